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
