"""Every screen of the full-screen game at 80x24, 120x40 and 200x60 (issue 31): the widgets
that carry what the screen is for (the cards above all) exist, are shown and lie inside the
window. The discard drill once showed no cards at 32 rows or more (the table's hand style,
docked to the bottom, caught the drill's hand too).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import MarkdownViewer, OptionList

from fifteentwo.app.options import SPEEDS
from fifteentwo.app.rules_text import rules_markdown, rules_plain
from fifteentwo.store import open_store
from fifteentwo.tui import keys, make_app
from fifteentwo.tui.menu import NewGameScreen, StartScreen
from fifteentwo.tui.model import Mode
from fifteentwo.tui.practice import PracticeScreen
from fifteentwo.tui.screens import HelpScreen, QuestionScreen, RulesScreen
from fifteentwo.tui.statistics import StatisticsScreen
from fifteentwo.tui.widgets import CardRow, HandView
from test_tui import Factory, options, play_paced, play_until, press, settle
from test_tui_menu import menu_app, played_games

SIZES = [(80, 24), (120, 40), (200, 60)]


def assert_shown(widget: Widget, size: tuple[int, int]) -> None:
    """Shown, with room, and wholly inside the window."""
    assert widget.display and widget.visible, widget
    region = widget.region
    assert region.area > 0, (widget, region)
    assert Region(0, 0, *size).contains_region(region), (widget, region, size)


def assert_cards_shown(row: CardRow, size: tuple[int, int], count: int) -> None:
    """A row of ``count`` cards, tall enough for its caption and the cards, on the screen."""
    assert len(row.cards) == count, row
    assert_shown(row, size)
    assert row.region.height >= 1 + row.card_size().height, (row, row.region)
    assert row.region.width >= row.card_size().width, (row, row.region)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_practice_drills_show_their_cards(tmp_path: Path, size: tuple[int, int]) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    app, _ = menu_app(store)
    async with app.run_test(size=size) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        await press(pilot, "p")
        screen = app.screen  # type: ignore[attr-defined]
        assert isinstance(screen, PracticeScreen)
        assert_cards_shown(screen.query_one("#practice-hand", HandView), size, 4)
        assert_cards_shown(screen.query_one("#practice-starter", CardRow), size, 1)
        assert_shown(screen.query_one("#practice-entry"), size)
        await press(pilot, "d")  # the discard drill: six cards to choose from
        hand = screen.query_one("#practice-hand", HandView)
        assert_cards_shown(hand, size, 6)
        await press(pilot, "1", "2")
        assert [c.selected for c in hand.cards] == [True, True, False, False, False, False]
        await press(pilot, "enter")
        assert_shown(screen.query_one("#practice-feedback"), size)
        assert_cards_shown(hand, size, 6)  # the next hand, shown as well
        await press(pilot, "escape")
        assert isinstance(app.screen, StartScreen)  # type: ignore[attr-defined]
    store.close()


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_menu_screens_fit(tmp_path: Path, size: tuple[int, int]) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    played_games(store, range(1, 4))
    app, _ = menu_app(store)
    async with app.run_test(size=size) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        start = app.screen  # type: ignore[attr-defined]
        assert isinstance(start, StartScreen)
        assert_shown(start.query_one(OptionList), size)
        await press(pilot, "n")
        form = app.screen  # type: ignore[attr-defined]
        assert isinstance(form, NewGameScreen)
        for field in ("level", "variant", "target", "speed", "manual", "muggins", "coach"):
            widget = form.query_one(f"#{field}")
            widget.focus()  # (the form scrolls to the field with the focus)
            await pilot.pause()
            assert_shown(widget, size)
        form.query_one("#start-game").focus()
        await pilot.pause()
        assert_shown(form.query_one("#start-game"), size)
        await press(pilot, "escape", "s")
        stats = app.screen  # type: ignore[attr-defined]
        assert isinstance(stats, StatisticsScreen)
        assert_shown(stats.query_one("#statistics-box"), size)
        await press(pilot, "escape", "r")
        rules = app.screen  # type: ignore[attr-defined]
        assert isinstance(rules, RulesScreen)
        assert_shown(rules.query_one(MarkdownViewer), size)
        await press(pilot, "escape")
        assert isinstance(app.screen, StartScreen)  # type: ignore[attr-defined]
    store.close()


async def walk_to(pilot: Pilot[int], app: object, mode: Mode) -> None:
    await play_until(pilot, app, lambda: app.mode is mode)  # type: ignore[arg-type, attr-defined]


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_the_table_fits_in_every_state(size: tuple[int, int]) -> None:
    app = make_app(Factory(seed=54, random_cut=False), options("short", instructions=None))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        question = app.screen
        assert isinstance(question, QuestionScreen)
        assert_shown(question.query_one("#question-box"), size)
        await press(pilot, "n")
        for mode in (Mode.CUT, Mode.DISCARD, Mode.PLAY, Mode.PAUSE, Mode.OVER):
            await walk_to(pilot, app, mode)
            hand = app.query_one("#hand", HandView)
            if mode in (Mode.DISCARD, Mode.PLAY):
                assert app.obs is not None
                assert_cards_shown(hand, size, len(app.obs.hand))
            for part in ("#topbar", "#board", "#crib", "#starter", "#pile", "#prompt", "#log"):
                assert_shown(app.query_one(part), size)
            assert_shown(app.query_one("#opponent-0"), size)
            table = app.query_one("#table")
            assert table.virtual_size.height <= table.size.height  # nothing scrolled away
            if mode is Mode.DISCARD:
                await press(pilot, "question_mark")
                assert isinstance(app.screen, HelpScreen)
                assert_shown(app.screen.query_one("#help-box"), size)
                await press(pilot, "escape")
        assert app.mode is Mode.OVER


# --- the audit of the show, the help and the rules ------------------------------------------------


def assert_row_whole(row: CardRow, within: Region) -> None:
    """A row of the table shows its caption (as data: the caption's cells) and its cards
    wholly, inside the table."""
    assert within.contains_region(row.region), (row, row.region, within)
    label = row.label if isinstance(row.label, str) else row.label.plain
    assert row.region.width >= len(label), (row, label, row.region)
    assert row.region.width >= row.card_size().width, (row, row.region)


@pytest.mark.parametrize("size", [(80, 24), (80, 40), (100, 30)], ids=["80x24", "80x40", "100x30"])
async def test_the_show_fits_while_the_crib_is_said(
    monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    """The crib's combinations said aloud once squashed the starter and the pile at 80x24: the
    crib's caption grew with the words. The words are on the message line (naming the crib),
    the caption stays short, and the middle row (crib, starter, pile) keeps its room."""
    monkeypatch.setitem(SPEEDS, "normal", 0.001)
    app = make_app(Factory(seed=3), options("short", speed="normal"))
    stop: dict[str, object] = {}

    def frozen() -> None:  # stop on the crib's last phrase, its longest words
        lit = app.lit
        if lit is not None and lit[1] and app._show_index == len(app._show_steps) - 1:
            stop["at"] = lit
            return
        app.__class__._next_light(app)

    monkeypatch.setattr(app, "_next_light", frozen)
    async with app.run_test(size=size) as pilot:
        await play_paced(pilot, app, lambda: "at" in stop)
        await pilot.pause()
        lit = app.lit
        assert lit is not None and lit[1]
        phrase = lit[3]
        assert phrase in app.message.plain and "crib" in app.message.plain  # nothing lost
        message = app.query_one("#message")
        assert app.message.cell_len <= message.region.width
        table = app.query_one("#table").content_region
        for part in ("#crib", "#starter", "#pile"):
            assert_row_whole(app.query_one(part, CardRow), table)
        crib = app.query_one("#crib", CardRow)
        assert {c.card for c in crib.cards if c.selected} <= lit[2]  # its combination lit
        monkeypatch.setattr(app, "_next_light", lambda: app.__class__._next_light(app))
        app.__class__._next_light(app)  # the crib's total
        await play_paced(pilot, app, lambda: app.mode is Mode.PAUSE)
        await pilot.pause()
        for part in ("#crib", "#starter", "#pile"):
            assert_row_whole(app.query_one(part, CardRow), table)


LONG_HINT = "/home/a-player/some/rather/long/clone/path/of/fifteentwo/.venv/bin/cribbage"


def assert_help_fits(screen: object, size: tuple[int, int]) -> HelpScreen:
    """The key help lies inside the window, its text wraps inside its box (nothing cut at the
    right, as a long resume command once was) and needs no scrolling at this size."""
    assert isinstance(screen, HelpScreen)
    box = screen.query_one("#help-box", VerticalScroll)
    text = screen.query_one("#help-text")
    assert_shown(box, size)
    assert box.content_region.contains_region(text.region), (box.content_region, text.region)
    assert box.max_scroll_x == 0 and box.max_scroll_y == 0, (box.virtual_size, box.size)
    return screen


def help_words(screen: HelpScreen) -> tuple[set[str], str]:
    return {line.keys for line in screen.keys}, " ".join(line.what for line in screen.keys)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
async def test_the_key_help_fits_and_lists_the_keys_of_its_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    """`?` once showed the game's keys everywhere (the start screen, practice), in a box cut
    off at 80x24 and at 100x30. It lists the keys of the screen it is asked on, from that
    screen's bindings, and fits."""
    monkeypatch.setattr(keys, "command_hint", lambda args: f"{LONG_HINT} {args}")
    store = open_store(tmp_path / "s.sqlite3")
    played_games(store, range(1, 2))
    app, _ = menu_app(store)
    async with app.run_test(size=size) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        await press(pilot, "question_mark")
        shown, words = help_words(assert_help_fits(app.screen, size))  # type: ignore[attr-defined]
        assert {"n", "s", "p", "r", "?"} <= shown and "c" not in shown  # (no game to continue)
        assert "New game" in words and "Lay away" not in words and "Pick" not in words
        await press(pilot, "escape")
        assert isinstance(app.screen, StartScreen)  # type: ignore[attr-defined]
        await press(pilot, "p", "question_mark")
        shown, words = help_words(assert_help_fits(app.screen, size))  # type: ignore[attr-defined]
        assert {"c", "d", "⏎", "?"} <= shown
        assert "Answer" in words and "Lay away" not in words
        await press(pilot, "escape")
        assert isinstance(app.screen, PracticeScreen)  # type: ignore[attr-defined]
        await press(pilot, "escape", "r", "question_mark")
        shown, words = help_words(assert_help_fits(app.screen, size))  # type: ignore[attr-defined]
        assert "Back to the menu" in words and "Lay away" not in words
    store.close()
    game = make_app(Factory(), options())
    async with game.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        help_screen = assert_help_fits(game.screen, size)
        shown, words = help_words(help_screen)
        assert {"1-6", "← →", "⏎", "g", "y", "n", "?", "r", "h", "u", "q"} <= shown
        assert "Lay away" in words and "Hint" in words
        assert any(LONG_HINT in note for note in help_screen.notes)
        await press(pilot, "escape")
        assert game.mode is Mode.DISCARD


async def test_the_rules_say_where_escape_goes_back_to(tmp_path: Path) -> None:
    """The rules opened from the start screen once offered "Back to the game" with no game."""
    store = open_store(tmp_path / "s.sqlite3")
    app, _ = menu_app(store)

    def back() -> str:
        screen = app.screen  # type: ignore[attr-defined]
        assert isinstance(screen, RulesScreen)
        return str(screen.active_bindings["escape"].binding.description)

    async with app.run_test(size=SIZES[0]) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        await press(pilot, "r")
        assert back() == "Back to the menu"
        await press(pilot, "escape")
        assert isinstance(app.screen, StartScreen)  # type: ignore[attr-defined]
    store.close()
    game = make_app(Factory(), options(variant=None, instructions=None))
    async with game.run_test(size=SIZES[0]) as pilot:
        await settle(pilot)
        await press(pilot, "y")  # instructions: the rules, then the game's length
        app = game
        assert back() == "Back"
        await press(pilot, "escape", "s")
        assert game.mode is Mode.DISCARD
        await press(pilot, "r")
        assert back() == "Back to the game"


async def test_the_rules_in_the_game_give_its_own_controls() -> None:
    """The full-screen game's rules once described plain line mode's controls (type the cards,
    ``hand``, ``score``): they end with the full-screen game's keys instead."""
    game = make_app(Factory(), options())
    async with game.run_test(size=SIZES[0]) as pilot:
        await settle(pilot)
        await press(pilot, "r")
        screen = game.screen
        assert isinstance(screen, RulesScreen)
        text = screen.markdown
        assert text == rules_markdown("screen")
        for key in ("`1`-`6`", "`←` `→`", "`enter`", "`space`", "`g`", "`y`", "`n`"):
            assert key in text, key
        for key in ("`?`", "`r`", "`h`", "`u`", "`q`"):
            assert key in text, key
        for plain in ("`5h 9c`", "`hand`", "`score`", "`help`", "`-r`"):
            assert plain not in text, plain
    plain = rules_plain()
    assert "5h 9c" in plain and "hand:" in plain and "`?` the keys" not in plain
    assert "? the keys" not in plain and "Cutting" not in plain
