"""The Textual app, driven by keys and clicks through Textual's pilot on seeded games.

Every game here is seeded (the session's shuffles and the greedy computer), so each test sees
the same deals every run. The app runs its engine steps in a worker thread; `settle` waits for
them and for the screen to catch up.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import MarkdownViewer

from fifteentwo.actions import (
    GO,
    CardPlayed,
    CountReset,
    Dealt,
    Discard,
    GameOver,
    HandCounted,
    Play,
    Reason,
    Scored,
)
from fifteentwo.app.coach import action_label
from fifteentwo.app.counting import parse_count
from fifteentwo.app.describe import game_name, rules_name
from fifteentwo.app.options import SPEEDS, PlayOptions, SessionFactory
from fifteentwo.app.rules_text import rules_markdown
from fifteentwo.app.saves import describe_saved, saved_game_line
from fifteentwo.app.session import SeatConfig, Session
from fifteentwo.cards import Card, parse_cards
from fifteentwo.rules import Rules
from fifteentwo.scoring import hand_total, number_word
from fifteentwo.store import Store, open_store
from fifteentwo.tui import CribbageApp, make_app, saved_message
from fifteentwo.tui.model import Mode, TableModel
from fifteentwo.tui.render import LARGE, SMALL, CardSpec, draw_cards
from fifteentwo.tui.screens import HelpScreen, QuestionScreen, RulesScreen
from fifteentwo.tui.widgets import CardRow, CountInput, EventLog, HandView, Line, Pegboard

SIZE = (80, 24)


class Factory:
    """``make_session`` for the tests: a human and a greedy computer, seeded, counted calls."""

    def __init__(
        self,
        seed: int = 7,
        *,
        auto_count: bool = True,
        random_cut: bool = True,
        store: Store | None = None,
        muggins: bool = False,
        target: int | None = None,
    ) -> None:
        self.seed = seed
        self.auto_count = auto_count
        self.random_cut = random_cut
        self.store = store
        self.muggins = muggins
        self.target = target
        self.sessions: list[Session] = []

    def __call__(self, rules: Rules) -> Session:
        if self.muggins:
            rules = rules.replace(muggins=True)
        if self.target is not None:
            rules = rules.with_target(self.target)
        session = Session(
            rules,
            [SeatConfig("You", human=True), SeatConfig("Computer", level="greedy")],
            seed=self.seed + len(self.sessions),
            auto_count=self.auto_count,
            random_cut=self.random_cut,
            store=self.store,
        )
        self.sessions.append(session)
        return session


def options(variant: str | None = "standard", **kw: object) -> PlayOptions:
    kw.setdefault("instructions", False)
    kw.setdefault("speed", "instant")  # (pacing has its own tests)
    return PlayOptions(variant=variant, **kw)  # type: ignore[arg-type]


async def settle(pilot: Pilot[int]) -> None:
    """Wait until the engine's worker is done and the screen has caught up."""
    app = pilot.app
    for _ in range(100):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not any(w.is_running for w in app.workers) and app.mode is not Mode.BUSY:
            return
    raise AssertionError("the app stayed busy")


async def press(pilot: Pilot[int], *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot)


def first_playable(app: CribbageApp) -> int:
    """The number key (1-based) of the first card the engine says may be played."""
    assert app.obs is not None
    legal = {a.card for a in app.obs.legal if isinstance(a, Play)}
    return next(i for i, card in enumerate(app.obs.hand) if card in legal) + 1


async def step(pilot: Pilot[int], app: CribbageApp) -> None:
    """One decision the simple way: first two cards, first playable card, continue, cut."""
    if app.mode is Mode.DISCARD:
        await press(pilot, "1", "2", "enter")
    elif app.mode is Mode.PLAY:
        await press(pilot, str(first_playable(app)))
    elif app.mode in (Mode.PAUSE, Mode.CUT):
        await press(pilot, "enter")
    else:
        raise AssertionError(f"no simple step in mode {app.mode}")


async def play_until(
    pilot: Pilot[int], app: CribbageApp, done: Callable[[], bool], limit: int = 400
) -> None:
    for _ in range(limit):
        if done():
            return
        await step(pilot, app)
    raise AssertionError(f"not done after {limit} steps (mode {app.mode})")


async def play_paced(
    pilot: Pilot[int],
    app: CribbageApp,
    done: Callable[[], bool],
    *,
    on_show_wait: Callable[[], None] | None = None,
    seconds: float = 180.0,
) -> None:
    """`step` at a paced speed until ``done()``: paced events are waited out, and ⏎ answers
    the show when it waits for the next hand (``on_show_wait`` is told first).

    Bounded by time, not by a count of looks: a look waits at least 5 ms, but on a loaded
    machine the app's own work between looks takes longer (a count of 3,000 once ran out
    while the computer was still busy under a benchmark holding both cores)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await pilot.pause(0.005)
        if done():
            return
        if app._show_wait:
            if on_show_wait is not None:
                on_show_wait()
            await pilot.press("enter")
        elif app._pacing or app.mode in (Mode.BUSY, Mode.START):
            continue
        elif app.mode is Mode.DISCARD:
            await pilot.press("1", "2", "enter")
        elif app.mode is Mode.PLAY:
            await pilot.press(str(first_playable(app)))
        else:
            await pilot.press("enter")
    raise AssertionError(f"not done after {seconds:.0f} s (mode {app.mode})")


def log_text(app: CribbageApp) -> str:
    return "\n".join(app.query_one(EventLog).plain)


def line_text(app: CribbageApp, selector: str) -> str:
    line = app.query_one(selector, Line)
    return line.text.plain + " " + line.right.plain


# --- a game from the first deal ------------------------------------------------------------------


def _visible_inside(app: CribbageApp, width: int, height: int) -> None:
    """Every shown widget lies on the screen, and the table needs no scrolling."""
    screen = Region(0, 0, width, height)
    for widget in app.screen.query("*"):
        if widget.display and widget.region.area:
            assert screen.contains_region(widget.region), (widget, widget.region)
    table = app.query_one("#table")
    assert table.virtual_size.height <= table.size.height


async def test_main_screen_at_80x24() -> None:
    app = make_app(Factory(), options())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.mode is Mode.DISCARD
        svg = app.export_screenshot()
        assert app.obs is not None
        for card in app.obs.hand:
            assert card.rank.label in svg and card.suit.symbol in svg
        assert "Computer" in svg and "Lay" in svg
        assert re.search(r"You(&#160;|\s)0", svg)  # the score line
        assert "#c8102e" in svg  # red suits
        _visible_inside(app, *SIZE)
        assert app.query_one(HandView).card_size() == SMALL
        assert app.query_one(Pegboard).region.height == 4  # two tracks, twice round


async def test_lay_away_play_and_show_by_keys_and_clicks() -> None:
    app = make_app(Factory(), options())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.obs is not None
        hand = app.obs.hand
        assert len(hand) == 6
        assert "Lay away 2 cards" in line_text(app, "#prompt")
        view = app.query_one(HandView)
        await press(pilot, "1")
        await pilot.click(HandView, offset=(2 * 6 + 2, 3))  # the third card
        await settle(pilot)
        assert [spec.selected for spec in view.cards] == [True, False, True, False, False, False]
        await press(pilot, "3")  # chosen again: unchosen
        await press(pilot, "enter")
        assert app.mode is Mode.DISCARD
        assert "Choose 2 cards" in app.message.plain
        await press(pilot, "right", "space")  # the cursor (on card 3) moves to card 4
        await press(pilot, "enter")
        assert app.mode is Mode.PLAY
        assert f"You lay away {hand[0].unicode} {hand[3].unicode}." in log_text(app)
        # the engine refuses what is not legal, and the app says why
        app._step(GO)
        await settle(pilot)
        assert "cannot go" in app.message.plain
        assert app.mode is Mode.PLAY
        # play by clicking the first card that may be played
        n = first_playable(app) - 1
        await pilot.click(HandView, offset=(n * 6 + 2, 3))
        await settle(pilot)
        assert re.search(r"You play \S+ for \d+\.", log_text(app))
        # on to the show: the board moves, the hands are face up, the game waits
        board = app.query_one(Pegboard)
        await play_until(pilot, app, lambda: app.mode is Mode.PAUSE)
        last = app.model.last_deal
        assert last is not None and board.fronts == last.scores != (0, 0)
        assert app.session is not None
        scored = [e for e in app.session.game.events if isinstance(e, Scored)]
        for side in (0, 1):
            mine = [e for e in scored if e.side == side]
            if mine:  # the back peg is where the front peg was before the last score
                assert board.backs[side] == mine[-1].score - mine[-1].points
        assert "Your hand:" in Text.assemble(view.label).plain
        assert "Computer's hand (" in log_text(app)
        assert "The deal is over" in line_text(app, "#prompt")
        _visible_inside(app, *SIZE)
        deal = app.model.deal_number
        await press(pilot, "space")
        assert app.model.deal_number == deal + 1
        assert app.mode is Mode.DISCARD


async def test_short_game_to_the_end_and_another() -> None:
    factory = Factory(seed=54)
    app = make_app(factory, options("short"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play_until(pilot, app, lambda: app.mode is Mode.OVER)
        session = factory.sessions[0]
        assert session.is_over
        over = [e for e in session.game.events if isinstance(e, GameOver)][-1]
        assert max(over.scores) == 61
        prompt = line_text(app, "#prompt")
        assert "Another game? (y/n)" in prompt
        assert re.search(r"wins? 61-\d+", prompt)
        assert app.query_one(Pegboard).fronts == over.scores
        await press(pilot, "y")
        assert len(factory.sessions) == 2
        assert factory.sessions[1].rules == session.rules
        loser = 1 - over.winner  # the loser deals the next game, without a cut for deal
        assert factory.sessions[1].first_dealer == loser
        assert factory.sessions[1].game.dealer == loser
        assert app.mode is Mode.DISCARD
        assert app.query_one(Pegboard).fronts == (0, 0)
        assert "Game 2: short to 61" in log_text(app)


async def test_no_more_games_exits() -> None:
    app = make_app(Factory(seed=1, target=15), options("short"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play_until(pilot, app, lambda: app.mode is Mode.OVER)
        assert "Game points: " in line_text(app, "#prompt")
        await press(pilot, "n")
    assert app.return_code == 0
    assert app.exit_message is None  # nothing to save once the game is over


# --- quitting and resuming -----------------------------------------------------------------------


async def test_quit_saves_and_resume_continues(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    factory = Factory(store=store)
    app = make_app(factory, options())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "1", "2", "enter")
        assert app.mode is Mode.PLAY
        saved_at = len(factory.sessions[0].game.log)
        assert app.obs is not None
        hand = app.obs.hand
        await press(pilot, "q")
    assert app.return_code == 0
    assert app.exit_message == saved_message()
    (saved,) = store.list_games()
    resumed = Session.resume(store, saved.game_id)
    assert len(resumed.game.log) == saved_at
    again = make_app(Factory(), options(), resume=resumed)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.mode is Mode.PLAY
        assert again.obs is not None
        assert again.obs.hand == hand
        assert "Resuming your game: standard to 121." in log_text(again)
        assert again.query_one(Pegboard).fronts == again.obs.scores
        await press(pilot, str(first_playable(again)))
        assert len(resumed.game.log) > saved_at
        await press(pilot, "q")
    assert again.exit_message == saved_message()


@pytest.mark.parametrize("deals", [1, 2])
async def test_quit_at_the_end_of_a_deal_and_continue_comes_back_to_its_show(
    tmp_path: Path, deals: int
) -> None:
    """Quit while "The deal is over" waits (the session has already dealt the next hand):
    continuing comes back to that pause, with the deal's show and scores on the table, and ⏎
    deals on as it would have. The pause is derived from the game's events (no decision of
    yours since the deal's end), not kept anywhere by the app."""
    store = open_store(tmp_path / "s.sqlite3")
    factory = Factory(store=store)
    app = make_app(factory, options("short"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(deals):
            await play_until(pilot, app, lambda: app.mode is Mode.PAUSE)
            if _ < deals - 1:
                await step(pilot, app)
        assert app.model.game_over is None and app.model.last_deal is not None
        deal = app.model.deal_number
        last_deal = app.model.last_deal
        shown = dict(app.model.shown)
        fronts = list(app.model.fronts)
        await press(pilot, "q")
    (saved,) = store.list_games()
    resumed = Session.resume(store, saved.game_id)
    again = make_app(Factory(), options(), resume=resumed)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.mode is Mode.PAUSE
        assert again.model.deal_number == deal and again.model.last_deal == last_deal
        assert again.model.shown == shown and again.model.fronts == fronts
        assert again.query_one(Pegboard).fronts == tuple(fronts)
        assert ("enter", "continue") in {(k.key, k.action) for k in again.prompt_keys}
        await press(pilot, "enter")
        assert again.mode is Mode.DISCARD and again.model.deal_number == deal + 1
        assert again.obs is not None and list(again.model.fronts) == list(again.obs.scores)
        await press(pilot, "q")
    # Dealt on but not yet laid away: the show is still the last thing decided on, so it
    # comes back again; once you lay away, continuing comes back to the play.
    for expected in (Mode.PAUSE, Mode.PLAY):
        resumed = Session.resume(store, saved.game_id)
        later = make_app(Factory(), options(), resume=resumed)
        async with later.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert later.mode is expected
            if expected is Mode.PAUSE:
                await press(pilot, "enter")
                await press(pilot, "1", "2", "enter")
                assert later.mode is Mode.PLAY
            await press(pilot, "q")


async def test_a_game_that_cannot_start_exits_with_the_reason() -> None:
    app = make_app(Factory(), options("three-player"))  # two seats for three players
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert app.return_code == 2
    assert app.exit_message == "error: 2 seats for a 3-player game"


async def test_quit_without_a_save_file() -> None:
    app = make_app(Factory(), options())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "q")
    assert app.exit_message == "Game not saved."


# --- counting by hand ----------------------------------------------------------------------------


async def test_manual_count_over_claim_corrected_and_mugginsed() -> None:
    factory = Factory(seed=7, auto_count=False, muggins=True)
    app = make_app(factory, options("short", explain=True, muggins=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.query_one(Pegboard).region.height == 2  # two tracks, once round
        await play_until(pilot, app, lambda: app.mode is Mode.COUNT)
        _visible_inside(app, *SIZE)
        assert isinstance(app.focused, CountInput)
        assert "Count your hand" in line_text(app, "#prompt")
        obs = app.obs
        assert obs is not None and obs.starter is not None
        total = hand_total([c.index for c in obs.to_count], obs.starter.index, False)
        assert total > 1
        # A claim is final (issue 31): 29 is corrected to the true total, the computer takes
        # the excess by muggins, and the count is not asked again.
        await press(pilot, "2", "9", "enter")
        text = log_text(app)
        assert "You claimed 29." in text
        assert f"Computer pegs {29 - total} by muggins." in text
        assert f"The hand counts {total}:" in text  # explained, item by item
        shown = [e for e in factory.sessions[0].game.events if isinstance(e, Scored)]
        assert [e.points for e in shown if e.reason is Reason.MUGGINS][:1] == [29 - total]


async def count_until_muggins(pilot: Pilot[int], app: CribbageApp) -> None:
    """Play on, counting our own hands right, until we are asked to call muggins."""
    for _ in range(600):
        await settle(pilot)
        await pilot.pause(0.01)
        if app._pacing and not app._show_wait and app._show_event is None:
            continue
        obs = app.obs
        assert obs is not None
        if app.mode is Mode.MUGGINS and not app._pacing:
            return
        if app._show_wait or app._show_event is not None:
            await pilot.press("enter")
        elif app.mode is Mode.COUNT:
            assert obs.starter is not None
            cards = [c.index for c in obs.to_count]
            total = hand_total(cards, obs.starter.index, obs.counting_crib)
            await pilot.press(*str(total), "enter")
        elif app.mode is Mode.PLAY and not any(isinstance(a, Play) for a in obs.legal):
            await pilot.press("g")
        else:
            await step(pilot, app)
    raise AssertionError("never asked to call muggins")


@pytest.mark.parametrize("speed", ["instant", "fast"])
async def test_muggins_is_asked_on_the_claim_alone(
    speed: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer under-counts: you are asked about its claim, with the hand and the
    starter on the table, and nothing (the log, the label, the message, the show said aloud)
    gives its true count away; that comes after your answer, as in plain mode."""
    monkeypatch.setitem(SPEEDS, "fast", 0.003)  # (paced, and the show said aloud: quickly)
    play = PlayOptions(
        variant="short",
        level="novice",
        seed=1,
        auto_count=False,
        muggins=True,
        instructions=False,
        speed=speed,
    )
    app = make_app(SessionFactory(play), play)
    async with app.run_test(size=SIZE) as pilot:
        await count_until_muggins(pilot, app)
        held = app._held
        assert held is not None and held.claimed < held.total
        describer = app.describer
        assert describer is not None
        lines = app.query_one(EventLog).plain
        assert describer.claim_only(held) in lines
        assert describer.describe(held) not in lines  # the true count, item by item
        said = held.score().say()
        assert said not in app.message.plain and app.lit is None
        row = app.query_one("#crib" if held.crib else "#opponent-0", CardRow)
        label = row.label.plain if isinstance(row.label, Text) else row.label
        assert label.endswith(f": claims {held.claimed}")
        assert {k.action for k in app.prompt_keys} == {"answer"}
        await press(pilot, "y")
        lines = app.query_one(EventLog).plain
        assert describer.claim_verdict(held) in lines  # now said: what was missed, and why
        assert app._held is None
        shown = app.model.shown[(held.seat, held.crib)]
        assert (
            shown is held and app._shown_label(held).plain == f": {held.claimed} (of {held.total})"
        )


# --- cutting -------------------------------------------------------------------------------------


async def test_cut_for_deal_and_starter_with_the_slider() -> None:
    app = make_app(Factory(seed=3, random_cut=False), options("short"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.mode is Mode.CUT
        assert "Cut the pack for the deal" in line_text(app, "#prompt")
        await press(pilot, "right", "right", "enter")
        assert re.search(r"You cut \S+; Computer cuts \S+", log_text(app))
        while app.mode is Mode.CUT:  # a tie: cut again
            await press(pilot, "enter")
        # play on until a starter cut is ours (we are pone every other deal)
        await play_until(
            pilot,
            app,
            lambda: app.mode is Mode.CUT and "starter" in line_text(app, "#prompt"),
            limit=60,
        )
        await press(pilot, "left", "enter")
        assert "The starter is" in log_text(app)
        assert app.mode is not Mode.CUT


async def test_five_card_go_key() -> None:
    app = make_app(Factory(seed=31), options("five-card"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not app.check_action("go", ())
        await play_until(pilot, app, lambda: app.mode is Mode.PLAY and GO in app._legal(), limit=12)
        assert app.check_action("go", ())  # the engine lets us decline to play on
        assert "g to say go" in line_text(app, "#prompt")
        await press(pilot, "g")
        assert "You say go." in log_text(app)


# --- questions, help, rules, hints ---------------------------------------------------------------


async def test_opening_questions_help_rules_and_hints() -> None:
    factory = Factory()
    app = make_app(factory, options(variant=None, instructions=None))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
        assert "instructions" in app.screen.question
        await press(pilot, "y")
        assert isinstance(app.screen, RulesScreen)
        assert app.screen.markdown == rules_markdown("screen")
        assert app.screen.query_one(MarkdownViewer).document.source == rules_markdown("screen")
        await press(pilot, "escape")
        assert isinstance(app.screen, QuestionScreen)
        assert "Short game (61) or long game (121)?" in app.screen.question
        await press(pilot, "s")
        assert factory.sessions[0].rules.target == 61
        assert app.mode is Mode.DISCARD
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        await press(pilot, "escape")
        await press(pilot, "r")
        assert isinstance(app.screen, RulesScreen)
        await press(pilot, "escape")
        assert not isinstance(app.screen, RulesScreen | HelpScreen)
        await press(pilot, "h")
        assert app.message.plain.startswith("Best: throw ")  # short: the best and why
        assert " points): " in app.message.plain  # (a value always has its unit)
        log = log_text(app)
        assert "Hint (h again: the three best):" in log and "2. throw " not in log
        await press(pilot, "h")
        log = log_text(app)
        assert "Hints:" in log and "2. throw " in log and "3. throw " in log
        assert app.mode is Mode.DISCARD


# --- bigger terminals ----------------------------------------------------------------------------


async def test_bigger_terminal_gets_bigger_cards() -> None:
    app = make_app(Factory(), options())
    async with app.run_test(size=(132, 42)) as pilot:
        await settle(pilot)
        assert app.query_one(HandView).card_size() == LARGE
        assert app.query_one("#log").size.width > 40
        _visible_inside(app, 132, 42)


# --- pieces --------------------------------------------------------------------------------------


def test_table_model_pegs_and_series() -> None:
    model = TableModel(sides=2)
    c = parse_cards("5h 10s kd")
    model.apply(Dealt(0, ((), ()), 0))
    model.apply(Scored(1, 1, 2, Reason.HIS_HEELS, 2))
    model.apply(Scored(1, 1, 3, Reason.PLAY, 5, tuple(c)))
    assert model.fronts == [0, 5] and model.backs == [0, 2]
    model.apply(CardPlayed(1, c[0], 5))
    model.apply(CountReset(0))
    model.apply(CardPlayed(0, c[1], 10))
    assert [s.count for s in model.series] == [5, 10]
    assert model.pile.cards == [(0, c[1])]


def test_cards_draw_with_red_suits_and_overlap() -> None:
    cards = parse_cards("5h 10s")
    lines = draw_cards([CardSpec(cards[0]), CardSpec(cards[1])], step=4)
    assert [line.plain for line in lines] == ["╭───╭───╮", "│ 5♥│10♠│", "╰───╰───╯"]
    red = [span for span in lines[1].spans if "c8102e" in str(span.style)]
    assert red, "hearts are red"
    raised = draw_cards(
        [CardSpec(cards[0], selected=True), CardSpec(cards[1])], raise_selected=True
    )
    assert raised[0].plain.startswith("╭───╮") and raised[1].plain.startswith("│ 5♥│ ╭───╮")
    assert len(draw_cards([CardSpec()], size=LARGE)) == 5


# --- the coach -----------------------------------------------------------------------------------


async def test_coach_names_the_better_discard() -> None:
    app = make_app(Factory(), options(coach=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.obs is not None
        ranked = app.coach.ranking(app.obs)
        worst = ranked[-1].action
        assert isinstance(worst, Discard)
        for card in worst.cards:
            await press(pilot, str(app.obs.hand.index(card) + 1))
        await press(pilot, "enter")
        assert app.mode is not Mode.DISCARD
        best = action_label(ranked[0].action)
        assert f"Coach: {best} was better" in log_text(app)


async def test_go_with_a_playable_card_says_why_not() -> None:
    app = make_app(Factory(), options())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play_until(pilot, app, lambda: app.mode is Mode.PLAY and GO not in app._legal())
        before = app.obs
        await press(pilot, "g")
        assert app.mode is Mode.PLAY and app.obs == before  # nothing was played
        assert "You can't say go: you can play" in app.message.plain


async def test_the_key_bar_counts_the_cards_held() -> None:
    app = make_app(Factory(), options())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pick = next(b for b in app.BINDINGS if isinstance(b, Binding) and b.action == "pick(0)")
        assert app.get_key_display(pick) == "1-6"
        await play_until(pilot, app, lambda: app.mode is Mode.PLAY)
        assert app.get_key_display(pick) == "1-4"


async def test_a_digit_beyond_the_hand_says_so() -> None:
    app = make_app(Factory(), options())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play_until(pilot, app, lambda: app.mode is Mode.PLAY)
        await press(pilot, "6")
        assert "You hold 4 cards: press 1 to 4." in app.message.plain


async def test_nineteen_is_a_count_of_nothing() -> None:
    factory = Factory(seed=7, auto_count=False, muggins=True)
    app = make_app(factory, options("short", muggins=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play_until(pilot, app, lambda: app.mode is Mode.COUNT)
        await press(pilot, "1", "9", "enter")
        assert "You claimed 0." in log_text(app)


async def test_the_count_box_takes_words_and_leaves_the_game_its_keys() -> None:
    """Counts in words, as the docs and plain mode have them (`parse_count`): ``fourteen``,
    ``twenty one``. With the box empty, r is still the rules (no count begins with r); q and
    ? are never typed. A count that cannot be read is refused with the parser's reason."""
    factory = Factory(seed=7, auto_count=False)
    app = make_app(factory, options("short"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play_until(pilot, app, lambda: app.mode is Mode.COUNT)
        box = app.query_one(CountInput)
        await press(pilot, "r")  # the game's key while nothing is typed
        assert isinstance(app.screen, RulesScreen) and box.value == ""
        await press(pilot, "escape")
        assert app.focused is box
        assert "rules" in {k.action for k in app.footer_keys()}
        await press(pilot, "f", "i", "f", "t", "y")
        assert "rules" not in {k.action for k in app.footer_keys()}  # r is typed now
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen) and box.value == "fifty"  # ? is never typed
        await press(pilot, "escape", "enter")
        assert box.value == "fifty" and app.mode is Mode.COUNT  # refused: no hand makes 50
        assert "0 to 29" in app.message.plain
        box.value = ""
        obs = app.obs
        assert obs is not None and obs.starter is not None
        total = hand_total([c.index for c in obs.to_count], obs.starter.index, obs.counting_crib)
        word = number_word(total)
        keys = ["space" if c == "-" else c for c in word]  # "twenty one" as well as "twenty-one"
        await pilot.press(*keys)
        assert parse_count(box.value) == total
        await press(pilot, "enter")
        counted = [e for e in factory.sessions[0].game.events if isinstance(e, HandCounted)]
        mine = [e for e in counted if e.seat == 0]
        assert mine and mine[0].claimed == mine[0].total == total


# --- taking back a decision ----------------------------------------------------------------------


async def test_u_takes_back_the_last_decision() -> None:
    factory = Factory(seed=21)
    app = make_app(factory, options("short"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.mode is Mode.DISCARD
        assert app.obs is not None
        dealt = app.obs.hand
        await press(pilot, "1", "2", "enter")
        assert app.mode in (Mode.PLAY, Mode.CUT)
        session = factory.sessions[0]
        await press(pilot, "u")
        assert app.mode is Mode.DISCARD and app.obs is not None
        assert app.obs.hand == dealt  # the same six cards again
        assert session.takebacks == 1
        assert "You took back your last decision." in log_text(app)
        assert "You took back" in line_text(app, "#message")
        await press(pilot, "1", "2", "enter")  # and the game goes on
        assert app.mode in (Mode.PLAY, Mode.CUT)


async def test_u_never_takes_back_a_cut() -> None:
    """A cut (for the deal, for the starter) stays: u is not offered after it, and says why.
    (Taking back a lost cut for the deal let you cut again until you won the deal.)"""
    factory = Factory(seed=3, random_cut=False)
    app = make_app(factory, options("short"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.mode is Mode.CUT
        while app.mode is Mode.CUT:  # (a tie: cut again)
            await press(pilot, "enter")
        session = factory.sessions[0]
        dealer = session.game.dealer
        assert "undo" not in {k.action for k in app.footer_keys()}
        await press(pilot, "u")
        assert session.takebacks == 0 and session.game.dealer == dealer
        app.action_undo()  # (called anyway, it says why)
        assert "your cut stays" in app.message.plain
        await play_until(pilot, app, lambda: app.mode is Mode.CUT, limit=60)
        assert "undo" in {k.action for k in app.footer_keys()}  # the discard can go back
        await press(pilot, "enter")
        starter = session.game.starter
        assert starter is not None and "undo" not in {k.action for k in app.footer_keys()}
        await press(pilot, "u")
        assert session.game.starter == starter and session.takebacks == 0


async def test_u_is_hidden_and_refused_when_counting_by_hand_with_muggins() -> None:
    factory = Factory(seed=21, auto_count=False, muggins=True)
    app = make_app(factory, options("short", auto_count=False, muggins=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "1", "2", "enter")
        # refused, so not offered: the footer leaves u out, and u does nothing
        assert "undo" not in {k.action for k in app.footer_keys()}
        assert app.check_action("undo", ()) is False
        await press(pilot, "u")
        assert factory.sessions[0].takebacks == 0
        app.action_undo()  # (called anyway, it says why)
        assert "Cannot take back" in line_text(app, "#message")


# --- pacing --------------------------------------------------------------------------------------


async def test_pacing_shows_each_card_call_and_hand_in_turn() -> None:
    factory = Factory(seed=3)
    app = make_app(factory, options("short", speed="fast"))
    seen: list[tuple[bool, str, int]] = []

    async def wait_for_player(pilot: Pilot[int]) -> None:
        deadline = time.monotonic() + 120  # (time, not looks: a loaded machine is slower)
        while time.monotonic() < deadline:
            await pilot.pause(0.05)
            seen.append((app._pacing, app.message.plain, len(app.model.pile.cards)))
            if app.mode not in (Mode.BUSY, Mode.START) and not app._pacing:
                return
        raise AssertionError("the app never came back to the player")

    async with app.run_test(size=SIZE) as pilot:
        await wait_for_player(pilot)
        for _ in range(40):  # one deal: the discard, the play, then the show's pause
            if app.mode is Mode.PAUSE:
                break
            if app.mode is Mode.DISCARD:
                await pilot.press("1", "2", "enter")
            elif app.mode is Mode.PLAY:
                await pilot.press(str(first_playable(app)))
            else:
                await pilot.press("enter")
            await wait_for_player(pilot)
        assert app.mode is Mode.PAUSE
    paced = [s for s in seen if s[0]]
    assert paced, "at a speed other than instant some events wait their turn"
    # while paced, the table follows the events: the pile grows one card at a time
    piles = [n for _, _, n in paced]
    assert len(set(piles)) > 1
    messages = {m for _, m, _ in seen}
    assert any(m.startswith("Computer: ") for m in messages)  # calls said at the table
    assert any(" is " in m or "nineteen" in m or "for " in m for m in messages)
    assert app.model.held.get(1, 0) == 0  # every card was played


async def test_a_window_below_the_minimum_says_so_and_the_game_waits() -> None:
    factory = Factory(seed=5)
    app = make_app(factory, options("short"))
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        notice = app.query_one("#too-small")
        assert notice.display and "60x20" in str(notice.render())
        assert "at least 80x24" in str(notice.render())
        assert not app.query_one("#main").display
        assert app.mode is Mode.DISCARD  # the game is as it was
        await press(pilot, "1", "2", "enter")  # keys wait too: nothing is done unseen
        assert app.mode is Mode.DISCARD and not app._selected
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert not notice.display and app.query_one("#main").display
        await press(pilot, "1", "2", "enter")
        assert app.mode is not Mode.DISCARD


async def test_the_show_lights_each_combination_and_waits_for_enter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At normal speed each shown hand is said combination by combination (its cards lit,
    the others dimmed), then the next hand waits for enter."""
    monkeypatch.setitem(SPEEDS, "normal", 0.02)  # the same steps, quicker
    factory = Factory(seed=3)
    app = make_app(factory, options("short", speed="normal"))
    lit: list[tuple[int, bool, frozenset[Card], str]] = []
    waits = 0

    light = app._light

    def seen() -> None:  # each step as it is drawn
        light()
        assert app.lit is not None
        lit.append(app.lit)
        seat, crib, cards, phrase = app.lit
        shown = app.model.shown[(seat, crib)]
        assert cards <= {*shown.cards, shown.starter}  # lit cards are the hand's
        if seat == 0 and not crib:  # your hand: lit cards raised, the others dimmed
            specs = app.query_one(HandView).cards
            assert {s.card for s in specs if s.selected} == cards - {shown.starter}
            assert phrase in str(app.query_one(HandView).label)

    def waiting() -> None:
        nonlocal waits
        waits += 1
        text, keys = app._prompt()
        assert "next hand" in text.plain
        assert [(k.key, k.action) for k in keys] == [("enter", "continue")]

    monkeypatch.setattr(app, "_light", seen)
    async with app.run_test(size=SIZE) as pilot:
        await play_paced(pilot, app, lambda: app.mode is Mode.PAUSE, on_show_wait=waiting)
    assert waits == 2  # pone's hand, then the dealer's; the crib's total leads to the pause
    said = [phrase for *_, phrase in lit]
    expected = [
        phrase
        for shown in app.model.shown.values()
        for phrase in ([p for p, _ in shown.score().steps()] or ["nineteen"])
    ]
    assert sorted(said) == sorted(expected)  # every phrase of every hand, each once


# --- issue 31: the smaller ones ------------------------------------------------------------------


def test_number_keys_never_say_one_to_one() -> None:
    from fifteentwo.tui.texts import number_keys

    assert [number_keys(n) for n in (1, 2, 4, 6)] == ["1", "1-2", "1-4", "1-6"]


def test_a_hand_of_nothing_is_called_nineteen() -> None:
    from fifteentwo.actions import HandCounted

    model = TableModel(sides=2)
    hand = parse_cards("2C 4D 6H 8S")
    starter = parse_cards("KC")[0]
    assert hand_total([c.index for c in hand], starter.index, False) == 0
    model.apply(HandCounted(1, tuple(hand), starter, False, 0, 0))
    assert model.calls == [(1, "nineteen")]


async def test_the_crib_is_drawn_in_order_and_one_card_left_says_1() -> None:
    app = make_app(Factory(seed=11), options("short"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(60):
            if app.mode is Mode.PLAY and app.obs is not None and len(app.obs.hand) == 1:
                break
            await step(pilot, app)
        assert app.mode is Mode.PLAY and app.obs is not None and len(app.obs.hand) == 1
        text, keys = app._prompt()
        assert "1-1" not in text.plain and "1" in text.plain
        assert [k.key for k in keys if k.action == "pick"] == ["1"]
        assert {k.key: k.action for k in app.footer_keys()}.get("1") == "pick"
        await play_until(pilot, app, lambda: app.mode is Mode.PAUSE)
        model = app.model
        crib = next(shown for (seat, is_crib), shown in model.shown.items() if is_crib)
        drawn = [spec.card for spec in app.query_one("#crib", CardRow).cards]
        assert drawn == sorted(crib.cards)
        for (seat, is_crib), shown in model.shown.items():  # hands too: every shown hand in order
            assert [s.card for s in app._shown_cards(shown)] == sorted(shown.cards), (seat, is_crib)


async def test_the_crib_to_count_by_hand_is_in_order() -> None:
    factory = Factory(seed=7, auto_count=False)
    app = make_app(factory, options("short"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(400):
            if app.mode is Mode.COUNT and app.obs is not None and app.obs.counting_crib:
                break
            if app.mode is Mode.COUNT:
                obs = app.obs
                assert obs is not None and obs.starter is not None
                total = hand_total([c.index for c in obs.to_count], obs.starter.index, False)
                await press(pilot, *str(total), "enter")
            else:
                await step(pilot, app)
        obs = app.obs
        assert app.mode is Mode.COUNT and obs is not None and obs.counting_crib
        assert list(obs.to_count) != sorted(obs.to_count)  # (this seed's crib comes unsorted)
        drawn = [spec.card for spec in app.query_one(HandView).cards]
        assert drawn == sorted(obs.to_count)
        prompt = app.query_one("#prompt", Line).text.plain
        assert " ".join(c.unicode for c in sorted(obs.to_count)) in prompt


# --- the outside audit ---------------------------------------------------------------------------


async def test_a_card_that_cannot_be_played_is_named_as_the_screen_draws_it() -> None:
    """A refused play once said ``8S would take ...`` with no full stop: the card is named as
    the table draws it (``8♠``), in a sentence, and nothing is sent to the engine."""
    app = make_app(Factory(), options())

    def blocked() -> bool:
        return (
            app.mode is Mode.PLAY
            and app.obs is not None
            and len(app._playable()) < len(app.obs.hand)
        )

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play_until(pilot, app, blocked)
        assert app.obs is not None
        before = app.obs
        index, card = next((i, c) for i, c in enumerate(before.hand) if c not in app._playable())
        await press(pilot, str(index + 1))
        assert app.mode is Mode.PLAY and app.obs == before  # nothing was played
        assert app.message.plain == (
            f"{card.unicode} would take the count past 31 (count is {before.count})."
        )


async def test_a_game_has_one_name_everywhere(tmp_path: Path) -> None:
    """The standard game to 15 was a "short game to 15" on the table and "standard to 15" in
    Continue and ``cribbage saved``: every front-end names it with `rules_name`."""
    store = open_store(tmp_path / "s.sqlite3")
    factory = Factory(target=15, store=store)
    app = make_app(factory, options("standard"))
    name = "standard to 15"
    assert game_name("standard", 15) == name
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = factory.sessions[0]
        assert rules_name(session.rules) == name
        assert f" · {name}" in app.query_one("#topbar", Line).text.plain
        assert f"Game 1: {name}" in log_text(app)
        assert saved_game_line(session).startswith(f"{name} against ")
        await press(pilot, "q")
    (saved,) = store.list_games()
    assert describe_saved(saved).startswith(f"{name} against ")
    store.close()
