"""Issue 35 in a real browser: the table states the rating rule before the game starts (and
whether the game will be rated), and the account page shows the rating history, statistics and
every game with its review link."""

from __future__ import annotations

from typing import Any

import pytest

from browser.test_tables_browser import create_table, people, sit  # noqa: F401

pytestmark = pytest.mark.browser


def register(page: Any, server: str, name: str) -> None:
    made = page.context.request.post(
        server + "/api/register",
        data={"username": name, "password": "a long passphrase 35"},
        headers={"Origin": server},
    )
    assert made.status == 201, made.text()


def test_the_rating_rule_is_shown_before_the_game_and_the_account_page(
    people: Any,  # noqa: F811
    server: str,
) -> None:
    ann, bob = people(), people()
    suffix = str(abs(hash(server)) % 100000)
    register(ann, server, "ann" + suffix)
    link = create_table(ann, server, "short", ["person", "person"])
    rule = ann.wait_for_selector("#rating-rule", state="visible")
    assert "forfeits" in rule.text_content()
    assert ann.get_attribute("#rating-rule", "data-will-rate") == "0"  # bob's seat is empty
    assert "forfeits" in ann.text_content("#status-line")
    register(bob, server, "bob" + suffix)
    sit(bob, link, "Bob")
    ann.wait_for_selector('#rating-rule[data-will-rate="1"]', state="attached")
    assert bob.get_attribute("#rating-rule", "data-will-rate") == "1"
    ann.goto(server + "/#/account")
    ann.wait_for_selector("#account-in:not([hidden])")
    ann.wait_for_selector("#account-history h2")
    headings = ann.locator("#account-history h2").all_text_contents()
    assert headings[:2] == ["Rating history", "Statistics"]
    assert ann.errors == [] and bob.errors == []


def test_store_trouble_shows_a_bar_above_the_board_and_the_move_is_sent_again(
    page: Any, server: str
) -> None:
    """The server answers the first move with ``unavailable`` (as when its database is down):
    the page shows the trouble bar without covering the prompt, sends the same move again by
    itself, and the bar goes once the move is taken."""
    import json

    from browser.test_browser import start, take_turn, wait_ready

    refused: list[dict[str, Any]] = []
    acts: list[dict[str, Any]] = []

    def route(ws: Any) -> None:
        server_ws = ws.connect_to_server()

        def from_page(message: Any) -> None:
            data = json.loads(message)
            if data.get("type") == "act":
                acts.append(data)
                if not refused:
                    refused.append(data)
                    ws.send(
                        json.dumps(
                            {
                                "type": "error",
                                "code": "unavailable",
                                "message": "the server is having trouble with its game store",
                            }
                        )
                    )
                    return
            server_ws.send(message)

        ws.on_message(from_page)

    page.route_web_socket("**/ws", route)
    start(page, server, "short")
    wait_ready(page)
    before = page.get_attribute("#page-game", "data-decision")
    take_turn(page)
    bar = page.wait_for_selector("#trouble:not([hidden])")
    box, prompt = bar.bounding_box(), page.locator("#prompt").bounding_box()
    assert box is not None and prompt is not None
    assert box["y"] + box["height"] <= prompt["y"] or prompt["y"] + prompt["height"] <= box["y"]
    page.wait_for_function(
        "(d) => document.getElementById('page-game').dataset.decision !== d",
        arg=before,
        timeout=15_000,
    )
    page.wait_for_selector("#trouble", state="hidden")
    assert len(acts) == 2 and acts[0]["decision"] == acts[1]["decision"]
    assert acts[0]["action"] == acts[1]["action"]
    assert page.errors == []
