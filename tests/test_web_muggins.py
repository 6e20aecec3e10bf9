"""The web's muggins question (web/view.py `muggins_json`): a claim short of the hand asks
about the points missed; an over-claim (corrected to the true total, issue 31) asks about the
excess. Asserted on the data the page shows, from the engine's own events. While a seat decides
on a short claim the server holds it (`held_claim`) and asks by the claim alone: see
`tests/test_web_muggins_claim.py`."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from fifteentwo.actions import Count
from fifteentwo.app.describe import Describer
from fifteentwo.web.view import muggins_json
from test_game_rules import claim, muggins_deal


def question(claimed: int) -> dict[str, object] | None:
    game = muggins_deal()  # seat 0's hand is worth 9; seat 1 may call muggins
    claim(game, 0, claimed)
    describer = Describer(game.rules, ("Ann", "Bob"), 1)
    return muggins_json(game.observation(1), game.events_for(1), describer)


def test_a_short_claim_asks_about_the_points_missed() -> None:
    asked = question(7)
    assert asked is not None
    assert {k: asked[k] for k in ("points", "seat", "claimed", "total", "over")} == {
        "points": 2,
        "seat": 0,
        "claimed": 7,
        "total": 9,
        "over": False,
    }
    prompt = str(asked["prompt"])
    assert "missed" in prompt and "over-claimed" not in prompt
    assert "Ann claimed 7" in prompt and "2 points" in prompt


def test_an_over_claim_asks_about_the_excess_not_a_miss() -> None:
    asked = question(12)
    assert asked is not None
    assert (asked["points"], asked["claimed"], asked["total"], asked["over"]) == (3, 12, 9, True)
    prompt = str(asked["prompt"])
    assert "over-claimed" in prompt and "missed" not in prompt and "failed" not in prompt
    assert "corrected to 9" in prompt and "3 points" in prompt


def test_one_point_is_singular_and_no_question_without_a_pending_claim() -> None:
    asked = question(10)
    assert asked is not None and asked["points"] == 1
    assert "Take the 1 point over-claimed?" in str(asked["prompt"])
    game = muggins_deal()
    describer = Describer(game.rules, ("Ann", "Bob"), 1)
    assert muggins_json(game.observation(1), game.events_for(1), describer) is None
    game.apply(Count(9))  # right: nothing to ask
    assert muggins_json(game.observation(1), game.events_for(1), describer) is None


def test_the_page_asks_the_servers_question() -> None:
    script = (resources.files("fifteentwo.web") / "static" / "app.js").read_text()
    assert "s.muggins.prompt" in script
    assert "points were missed" not in script and "failed to claim" not in script


def test_a_game_against_a_miscounting_computer_asks_with_the_claim(tmp_path: Path) -> None:
    """Through the real protocol: counting by hand against ``random`` (it overlooks a
    combination 30% of the time), the state that asks for muggins carries the claim, and
    the claim alone: the points missed and the true count come after the answer
    (`tests/test_web_muggins_claim.py`)."""
    from starlette.testclient import TestClient

    from fifteentwo.store import open_store
    from fifteentwo.web import create_app
    from test_web import act, hello, new_game
    from web_helpers import choose

    app = create_app(lambda: open_store(tmp_path / "games.sqlite3"), workers=2)
    asked: list[dict[str, object]] = []
    with TestClient(app, headers={"origin": "http://testserver"}) as client:
        for _ in range(4):  # a few games, until the computer miscounts once
            game = new_game(client, level="random", manual_count=True)
            with client.websocket_connect("/ws") as ws:
                state = hello(ws, game)
                for _ in range(600):
                    if state["over"] or not state["waiting"]:
                        break
                    if "muggins" in state["view"]["legal"]:
                        asked.append(state)
                    state = act(ws, state, choose(state))
                    assert state["type"] == "state", state
            if asked:
                break
    assert asked, "the computer never miscounted in four games"
    for state in asked:
        muggins = state["muggins"]
        assert isinstance(muggins, dict)
        assert state["view"]["pending_claim"] is None  # (the points missed: yours to find)
        assert (muggins["points"], muggins["total"], muggins["over"]) == (None, None, None)
        assert isinstance(muggins["claimed"], int)
        assert "missed" not in str(muggins["prompt"]) and "short" not in str(muggins["prompt"])
        assert muggins["seat"] != state["view"]["seat"]
