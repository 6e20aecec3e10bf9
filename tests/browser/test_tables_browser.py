"""Tables with friends in real browsers: two browser contexts (two people) play each other to
the end while a third watches; a three-player table of two people and a computer; a reload
mid-game; a rematch where the loser deals first. The spectator's page is checked at the
protocol level too: every frame it receives goes through the leak checker."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from browser.test_browser import take_turn
from web_helpers import LeakChecker

pytestmark = pytest.mark.browser


@pytest.fixture
def people(browser: Any) -> Iterator[Any]:
    """Makes pages in contexts of their own (separate cookies and storage: separate people)."""
    contexts: list[Any] = []

    def make() -> Any:
        context = browser.new_context(viewport={"width": 1200, "height": 860})
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.set_default_timeout(20_000)
        return page

    yield make
    for context in contexts:
        context.close()


def create_table(page: Any, server: str, variant: str, seats: list[str]) -> str:
    """Fill in the friends form on the home page; returns the seat link to share."""
    page.goto(server + "/")
    page.wait_for_selector("#tbl-variant option", state="attached")
    page.select_option("#speed", "instant")
    page.select_option("#tbl-variant", variant)
    for i, kind in enumerate(seats[1:], start=1):
        page.select_option(f'#tbl-seats select[data-seat="{i}"]', kind)
    page.fill("#tbl-name", "Ann")
    page.click("#tbl-create")
    page.wait_for_selector("#page-game:not([hidden])")
    page.wait_for_selector("#share-seat", state="visible")
    link: str = page.input_value("#share-seat")
    assert "/t/" in link
    return link


def sit(page: Any, link: str, name: str) -> None:
    page.goto(link)
    page.wait_for_selector("#page-sit:not([hidden])")
    page.select_option("#speed", "instant")
    page.fill("#sit-name", name)
    page.click("#sit-go")
    page.wait_for_selector("#page-game:not([hidden])")


def watch_frames(page: Any, seat: int) -> LeakChecker:
    """Every state frame the page receives, through a leak checker for ``seat``."""
    checker = LeakChecker(seat)

    def on_socket(ws: Any) -> None:
        def frame(payload: Any) -> None:
            message = json.loads(payload)
            if message.get("type") == "state" and message.get("view") is not None:
                checker.check(message)

        ws.on("framereceived", frame)

    page.on("websocket", on_socket)
    return checker


def data(page: Any, key: str) -> str | None:
    value: str | None = page.get_attribute("#page-game", f"data-{key}")
    return value


def play_between(pages: list[Any], limit: float = 240.0) -> int:
    """Whoever's page is ready takes a turn, until every page shows the game over."""
    moves = 0
    deadline = time.monotonic() + limit
    while not all(data(p, "over") == "1" for p in pages):
        assert time.monotonic() < deadline, "the table's game did not finish"
        ready = [p for p in pages if data(p, "ready") == "1" and data(p, "over") != "1"]
        if not ready:
            time.sleep(0.03)
            continue
        page = ready[0]
        before = data(page, "decision")
        take_turn(page)
        moves += 1
        page.wait_for_function(
            "(d) => { const p = document.getElementById('page-game');"
            " return p.dataset.over === '1' || p.dataset.decision !== d; }",
            arg=before,
        )
    for page in pages:
        page.wait_for_selector("#over:not([hidden])")
    return moves


def test_two_people_play_to_the_end_watched_then_rematch(people: Any, server: str) -> None:
    ann, bob, eve = people(), people(), people()
    link = create_table(ann, server, "short", ["person", "person"])
    watch_link = ann.input_value("#share-watch")
    assert "/watch/" in watch_link
    assert "Waiting for 1 more person" in ann.inner_text("#status-line")
    sit(bob, link, "Bob")
    spectator = watch_frames(eve, -1)
    eve.goto(server + "/")
    eve.select_option("#speed", "instant")  # (remembered: the watch page opens at that speed)
    eve.goto(watch_link)
    eve.wait_for_selector("#page-game.watching")
    for page in (ann, bob):
        page.wait_for_function(
            "() => document.getElementById('page-game').dataset.phase !== 'waiting'"
        )
    assert "Bob" in ann.inner_text("#table-seats") and "Ann" in bob.inner_text("#table-seats")
    moves = play_between([ann, bob])
    assert moves > 20
    eve.wait_for_selector("#over:not([hidden])")
    titles = {ann.inner_text("#over-title"), bob.inner_text("#over-title")}
    assert titles == {"You win!", "You lose"}
    assert "won" in eve.inner_text("#over-title")
    assert spectator.messages > 20
    assert not eve.locator("#hand .card").count()  # a spectator holds nothing
    # rematch: both ask, a new game starts, the loser deals first
    loser = ann if ann.inner_text("#over-title") == "You lose" else bob
    for page in (ann, bob):
        page.click("#btn-rematch")
    for page in (ann, bob):
        page.wait_for_selector("#over", state="hidden")
    loser.wait_for_function(
        "() => document.getElementById('my-name').textContent.includes('dealer')"
    )
    for page in (ann, bob, eve):
        assert not page.errors, page.errors


def test_three_seats_two_people_and_a_computer(people: Any, server: str) -> None:
    ann, cy = people(), people()
    link = create_table(ann, server, "three-player", ["person", "computer:greedy", "person"])
    sit(cy, link, "Cy")
    seats = ann.inner_text("#table-seats")
    assert "computer greedy" in seats and "Cy" in seats
    play_between([ann, cy])
    for page in (ann, cy):
        assert not page.errors, page.errors


def test_a_reload_returns_to_the_same_decision(people: Any, server: str) -> None:
    ann, bob = people(), people()
    link = create_table(ann, server, "short", ["person", "person"])
    sit(bob, link, "Bob")
    # a few decisions, then whoever must decide reloads their page
    pages = [ann, bob]
    for _ in range(6):
        deadline = time.monotonic() + 20
        while not (ready := [p for p in pages if data(p, "ready") == "1"]):
            assert time.monotonic() < deadline
            time.sleep(0.03)
        before = data(ready[0], "decision")
        take_turn(ready[0])
        ready[0].wait_for_function(
            "(d) => document.getElementById('page-game').dataset.decision !== d", arg=before
        )
    deadline = time.monotonic() + 20
    while not (ready := [p for p in pages if data(p, "ready") == "1"]):
        assert time.monotonic() < deadline
        time.sleep(0.03)
    page = ready[0]
    decision = data(page, "decision")
    page.reload()
    page.wait_for_function(
        "(d) => { const p = document.getElementById('page-game');"
        " return p.dataset.ready === '1' && p.dataset.decision === d; }",
        arg=decision,
    )
    other = bob if page is ann else ann
    assert "away" not in page.inner_text("#table-seats")
    assert data(other, "decision") == decision
