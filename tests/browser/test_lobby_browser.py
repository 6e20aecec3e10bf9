"""The lobby, quick match, invitations and table talk in real browsers (docs/web.md, "Finding a
game" and "Table talk"): people in browser contexts of their own meet through the lobby and
through quick match and play the first card; talk shows markup as text and mute hides a person;
the invite link is copied and shared; axe-core audits the lobby and a table with talk."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser.test_browser import take_turn
from browser.test_tables_browser import create_table, data

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
MARKUP = "<img src=x onerror=alert(1)>"


@pytest.fixture
def people(browser: Any) -> Iterator[Any]:
    """Pages in contexts of their own (separate cookies and storage: separate people), with
    axe-core loaded into every page (an init script: the page's CSP does not apply to it)."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: make test-browser runs npm ci in tests/browser")
    contexts: list[Any] = []

    def make(**options: Any) -> Any:
        options.setdefault("viewport", {"width": 1200, "height": 900})
        context = browser.new_context(**options)
        context.add_init_script(path=str(AXE))
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.set_default_timeout(20_000)
        return page

    yield make
    for context in contexts:
        context.close()


def audit(page: Any, *within: str) -> None:
    """No serious or critical axe-core violation (in these parts of the page, or all of it)."""
    found = page.evaluate(
        """async (within) => {
            const context = within.length ? { include: within.map((s) => [s]) } : document;
            const result = await axe.run(context, { resultTypes: ["violations"] });
            return result.violations.map((v) => ({ id: v.id, impact: v.impact,
              nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
        }""",
        list(within),
    )
    bad = [v for v in found if v["impact"] in ("serious", "critical")]
    assert not bad, bad


def home(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#lobby")
    page.select_option("#speed", "instant")


def quick(page: Any, variant: str, name: str) -> None:
    page.select_option("#quick-variant", variant)
    page.fill("#quick-name", name)
    page.click("#quick-go")


def at_table(page: Any) -> str:
    page.wait_for_function("() => location.hash.startsWith('#/table/')")
    page.wait_for_selector("#page-game:not([hidden])")
    table: str = page.evaluate("() => location.hash.split('/')[2]")
    return table


def until_first_card(pages: list[Any], limit: float = 60.0) -> None:
    """Whoever's page is ready takes a turn until a card is on the pile."""
    deadline = time.monotonic() + limit
    while not any(p.locator("#pile .card").count() for p in pages):
        assert time.monotonic() < deadline, "no card was played"
        ready = [p for p in pages if data(p, "ready") == "1" and data(p, "over") != "1"]
        if not ready:
            time.sleep(0.05)
            continue
        page = ready[0]
        before = data(page, "decision")
        take_turn(page)
        page.wait_for_function(
            "(d) => document.getElementById('page-game').dataset.decision !== d", arg=before
        )
    for page in pages:
        page.wait_for_selector("#pile .card")


def test_the_lobby_shows_a_new_table_live_and_joins_it_in_one_click(
    people: Any, server: str, shots: Path
) -> None:
    ann, bob = people(), people()
    home(bob, server)
    create_table(ann, server, "short", ["person", "person"])
    table = ann.evaluate("() => location.hash.split('/')[2]")
    row = bob.locator(f'#lobby-list li[data-table="{table}"]')
    row.wait_for()  # no reload: the lobby asks again by itself
    assert "Ann" in row.inner_text() and "1/2 seats" in row.inner_text()
    assert "New table" in bob.inner_text("#lobby-news")  # said to screen readers
    audit(bob)
    bob.screenshot(path=str(shots / "lobby.png"))
    if os.environ.get("FIFTEENTWO_DOCS_SHOTS"):
        bob.locator("#lobby").screenshot(path=os.environ["FIFTEENTWO_DOCS_SHOTS"] + "/lobby.png")
    bob.fill("#quick-name", "Bob")
    row.get_by_role("button", name="Join").press("Enter")  # the keyboard alone
    assert at_table(bob) == table
    for page in (ann, bob):
        page.wait_for_function(
            "() => document.getElementById('page-game').dataset.ready === '1'"
            " || document.getElementById('page-game').dataset.phase !== 'waiting'"
        )
    assert "Bob" in ann.inner_text("#table-seats")
    home(bob, server)
    bob.wait_for_selector("#lobby-empty:not([hidden]), #lobby-list li")
    assert not bob.locator(f'#lobby-list li[data-table="{table}"]').count()
    for page in (ann, bob):
        assert not page.errors, page.errors


def test_quick_match_seats_two_people_who_play_the_first_card(people: Any, server: str) -> None:
    ann, bob = people(), people()
    home(ann, server)
    quick(ann, "short", "Ann")
    ann.wait_for_selector("#quick-wait:not([hidden])")
    assert ann.is_visible("#quick-computer")  # the computer, offered while you wait
    audit(ann, "#lobby")
    home(bob, server)
    quick(bob, "short", "Bob")
    table = at_table(bob)
    assert at_table(ann) == table
    until_first_card([ann, bob])
    assert "Bob" in ann.inner_text("#table-seats") and "Ann" in bob.inner_text("#table-seats")
    for page in (ann, bob):
        assert not page.errors, page.errors


def test_waiting_while_playing_the_computer_and_cancelling(people: Any, server: str) -> None:
    ann, bob, cy, di = people(), people(), people(), people()
    home(cy, server)
    quick(cy, "standard", "Cy")
    cy.wait_for_selector("#quick-wait:not([hidden])")
    cy.click("#quick-cancel")
    cy.wait_for_selector("#quick-wait", state="hidden")
    home(di, server)
    quick(di, "standard", "Di")  # Cy left the queue: Di waits instead of meeting Cy
    di.wait_for_selector("#quick-wait:not([hidden])")
    di.click("#quick-cancel")
    di.wait_for_selector("#quick-wait", state="hidden")

    home(ann, server)
    quick(ann, "five-card", "Ann")
    ann.wait_for_selector("#quick-wait:not([hidden])")
    ann.click("#quick-computer")
    ann.wait_for_function("() => location.hash.startsWith('#/game/')")
    home(bob, server)
    quick(bob, "five-card", "Bob")
    table = at_table(bob)
    ann.wait_for_selector("#quick-ready:not([hidden])")  # said while she plays the computer
    ann.click("#quick-ready-go")
    assert at_table(ann) == table
    for page in (ann, bob, cy, di):
        assert not page.errors, page.errors


def meet(people: Any, server: str, variant: str, **options: Any) -> tuple[Any, Any]:
    ann, bob = people(**options), people(**options)
    home(ann, server)
    quick(ann, variant, "Ann")
    ann.wait_for_selector("#quick-wait:not([hidden])")
    home(bob, server)
    quick(bob, variant, "Bob")
    at_table(bob)
    at_table(ann)
    for page in (ann, bob):
        page.wait_for_selector("#talk:not([hidden])")
    return ann, bob


def said(page: Any) -> list[str]:
    texts: list[str] = page.locator("#talk-log .talk-text").all_text_contents()
    return texts


def test_table_talk_is_text_and_mute_hides_a_person(people: Any, server: str) -> None:
    ann, bob = meet(people, server, "short")
    ann.fill("#talk-input", MARKUP)
    ann.press("#talk-input", "Enter")
    bob.wait_for_function(
        "(t) => [...document.querySelectorAll('#talk-log .talk-text')]"
        ".some((n) => n.textContent === t)",
        arg=MARKUP,
    )
    for page in (ann, bob):
        assert said(page) == [MARKUP]
        assert page.locator("#talk img, #talk-log img").count() == 0  # no element was made
        assert page.evaluate("() => document.querySelectorAll('img[src=\"x\"]').length") == 0
    bob.click('#talk .talk-phrases button[data-phrase="gl"]')
    ann.wait_for_function("() => document.querySelectorAll('#talk-log li').length === 2")
    assert said(ann) == [MARKUP, "good luck"]
    audit(bob, "#talk", "#table-panel")
    if os.environ.get("FIFTEENTWO_DOCS_SHOTS"):
        bob.locator("#talk").screenshot(path=os.environ["FIFTEENTWO_DOCS_SHOTS"] + "/talk.png")
    # Bob mutes Ann: her lines go, the next one never shows, and it is remembered at a reload
    bob.get_by_role("button", name="mute Ann").first.click()
    assert said(bob) == ["good luck"]
    ann.fill("#talk-input", "are you there?")
    ann.click("#talk-send")
    ann.wait_for_function("() => document.querySelectorAll('#talk-log li').length === 3")
    bob.reload()
    bob.wait_for_selector("#talk:not([hidden])")
    bob.wait_for_selector("#talk-log li")
    time.sleep(0.3)
    assert said(bob) == ["good luck"]
    bob.click("#talk-muted-title")
    bob.get_by_role("button", name="unmute Ann").click()
    assert said(bob) == [MARKUP, "good luck", "are you there?"]
    for page in (ann, bob):
        assert not page.errors, page.errors


def test_the_invite_link_is_copied_and_shared(people: Any, server: str) -> None:
    ann = people(permissions=["clipboard-read", "clipboard-write"])
    ann.context.add_init_script(
        "navigator.share = (data) => { window.__shared = data; return Promise.resolve(); };"
    )
    create_table(ann, server, "short", ["person", "person"])
    link = ann.input_value("#share-seat")
    ann.click('button[data-copy="share-seat"]')
    ann.wait_for_function("() => document.getElementById('share-note').textContent !== ''")
    assert ann.evaluate("() => navigator.clipboard.readText()") == link
    ann.click('button[data-share="share-seat"]')
    assert ann.evaluate("() => window.__shared.url") == link
    assert not ann.errors, ann.errors


PHONE = {"width": 390, "height": 844}
WIDE = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"


def test_lobby_and_talk_fit_a_phone(people: Any, server: str) -> None:
    ann, bob = meet(people, server, "standard", viewport=PHONE, has_touch=True, is_mobile=True)
    for page in (ann, bob):
        assert page.evaluate(WIDE), "the table with talk scrolls sideways at 390 px"
        assert page.locator("#talk-input").bounding_box()["width"] > 100
    ann.fill("#talk-input", "w" * 200)  # one long word wraps instead of widening the page
    ann.press("#talk-input", "Enter")
    bob.wait_for_selector("#talk-log li")
    assert bob.evaluate(WIDE)
    home(ann, server)
    assert ann.evaluate(WIDE), "the lobby scrolls sideways at 390 px"
    audit(ann, "#lobby")
