"""Accessibility: axe-core (from the npm registry: tests/browser/package.json, installed by
``make test-browser`` with ``npm ci``) run inside every page finds no serious or critical
violation; the game is playable from the keyboard, with cards and controls labelled."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser.test_browser import play_to_end, start, wait_ready

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"

AUDIT = """async () => {
  const result = await axe.run(document, { resultTypes: ['violations'] });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                   nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
}"""


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    """A fresh page whose context lets the test inject axe-core: the server's Content-Security-
    Policy (scripts from 'self' only) would refuse the injected script, as it should for any
    other; the page's own scripts run as they always do."""
    context = browser.new_context(viewport={"width": 1280, "height": 860}, bypass_csp=True)
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    pg.set_default_timeout(20_000)
    try:
        yield pg
    finally:
        context.close()


def audit(page: Any, where: str) -> None:
    """Inject axe-core and fail on any serious or critical violation of the page as it is."""
    if not AXE.exists():
        pytest.fail(
            f"{AXE} is missing: make test-browser installs it (npm ci --prefix tests/browser)"
        )
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(AUDIT)
    assert not found, f"{where}: {found}"


def test_home_history_account_and_leaderboard(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#opt-level option", state="attached")
    audit(page, "home")
    for name, selector in [
        ("history", "#page-history:not([hidden])"),
        ("account", "#page-account:not([hidden])"),
        ("leaderboard", "#page-leaderboard:not([hidden])"),
    ]:
        page.goto(f"{server}/#/{name}")
        page.wait_for_selector(selector)
        page.wait_for_timeout(300)
        audit(page, name)
    assert not page.errors


def test_a_game_and_its_review(page: Any, server: str) -> None:
    start(page, server, "short")
    audit(page, "game (discard)")
    play_to_end(page)
    audit(page, "game over")
    page.click("#over-review")
    page.wait_for_selector("#review-body table")
    audit(page, "review")
    opener = page.locator("#review-body button.open-mistake")
    if opener.count():
        opener.first.click()
        page.wait_for_selector("#review-position:not([hidden]) .board-svg")
        audit(page, "review position")
    assert not page.errors


def test_a_table_waiting_room(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#tbl-variant option", state="attached")
    page.fill("#tbl-name", "Ann")
    page.click("#tbl-create")
    page.wait_for_selector("#page-game:not([hidden])")
    page.wait_for_function("() => document.getElementById('page-game').dataset.phase === 'waiting'")
    for control in ("#btn-hint", "#btn-undo"):
        assert not page.locator(control).is_visible()
    assert not page.locator("#coach-toggle").is_visible()
    audit(page, "table")
    assert not page.errors


def test_keyboard_alone_plays_a_deal(page: Any, server: str) -> None:
    """Tab to a card and press Enter/Space, as a keyboard or screen-reader user does."""
    start(page, server, "short")
    names = page.locator("#hand button.card").evaluate_all(
        "(bs) => bs.map((b) => b.getAttribute('aria-label') || '')"
    )
    assert names and all(n for n in names)
    labelled = page.evaluate(
        "() => [...document.querySelectorAll('#page-game button:not([hidden])')]"
        ".filter((b) => b.offsetParent && !(b.getAttribute('aria-label') || b.textContent.trim()))"
        ".length"
    )
    assert labelled == 0
    for _ in range(2):  # lay away two cards with the keyboard
        page.locator("#hand button.card:not(.selected)").first.focus()
        page.keyboard.press("Enter")
    page.locator("#btn-discard").focus()
    page.keyboard.press("Enter")
    wait_ready(page)
    assert page.locator("#hand button.card").count() == 4
    live = page.evaluate("() => [...document.querySelectorAll('[aria-live]')].map((e) => e.id)")
    assert "count" in live and "score-news" in live
    assert "Scores:" in page.inner_text("#score-news")
    assert not page.errors
