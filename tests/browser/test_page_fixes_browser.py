"""Issue 34's fixes seen in the page: the played card leaves the hand at once, the crib's owner
in good grammar, the reconnecting banner covers nothing, log numbers of 100 and more, skunks at
game over, and a review mistake that opens its position."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from browser.test_browser import play_to_end, start, take_turn, visible, wait_ready


def to_the_play(page: Any) -> None:
    for _ in range(20):
        if page.locator("#hand button.card:enabled").count() and not visible(page, "#btn-discard"):
            return
        take_turn(page)
        page.wait_for_timeout(50)
        wait_ready(page)
    raise AssertionError("never reached a play")


def test_a_played_card_leaves_the_hand_at_once(page: Any, server: str) -> None:
    start(page, server, "standard", speed="slow")
    crib = page.inner_text("#crib")
    assert re.search(r"(Your|Computer's) crib", crib) and "You's" not in crib
    to_the_play(page)
    card = page.locator("#hand button.card:enabled").first
    code = card.get_attribute("data-card")
    card.click()
    # at once, while the computer's reply is still being animated (slow speed)
    still = page.evaluate(
        "(c) => document.querySelectorAll(`#hand button.card[data-card='${c}']`).length", code
    )
    assert still == 0
    wait_ready(page)
    assert page.locator(f"#hand [data-card='{code}']").count() == 0
    assert not page.errors


def test_the_reconnecting_banner_covers_nothing(page: Any, server: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    start(page, server, "standard")
    page.evaluate("() => { document.getElementById('conn').hidden = false; }")
    banner = page.locator("#conn").bounding_box()
    for selector in ("#prompt", "#btn-hint", "#hand", "#board", ".bar"):
        box = page.locator(selector).first.bounding_box()
        assert box is not None
        apart = (
            box["y"] >= banner["y"] + banner["height"] - 0.5
            or box["y"] + box["height"] <= banner["y"] + 0.5
        )
        assert apart, (selector, box, banner)


def test_a_whole_game_log_skunk_and_review_position(page: Any, server: str, shots: Path) -> None:
    start(page, server, "standard")
    play_to_end(page)
    skunk = page.get_attribute("#over", "data-skunk")
    assert skunk in {"0", "1", "2"}
    text = page.inner_text("#over-text")
    assert ("skunk" in text) == (skunk != "0")
    lines = page.locator("#log li").count()
    pad = page.evaluate(
        "() => { const s = getComputedStyle(document.getElementById('log'));"
        " return parseFloat(s.paddingLeft) / parseFloat(s.fontSize); }"
    )
    assert lines and pad >= 3  # room for "100." and more
    page.click("#over-review")
    page.wait_for_selector("#review-body table")
    assert "131" not in page.inner_text("#review-body")
    headers = page.locator("#review-body th").all_inner_texts()
    assert any("percentage points" in h for h in headers)
    opener = page.locator("#review-body button.open-mistake")
    if opener.count():
        opener.first.click()
        where = page.locator("#review-position")
        where.locator(".board-svg").wait_for()
        # the hand held at the mistake: six at a discard, one to four in the play (a random
        # game's first mistake may come after a card is played)
        assert 1 <= where.locator(".position-hand .card").count() <= 6
        assert where.locator("td").count() >= 4
        assert "Cost:" in where.inner_text() and "You's" not in where.inner_text()
        assert where.locator(".skunk-line").count() == 2
        where.screenshot(path=str(shots / "review-position.png"))
    assert not page.errors
