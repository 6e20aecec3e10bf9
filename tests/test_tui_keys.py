"""Every key the screen names does what it says, in every state of whole games (issue 31).

The app gives its prompt's keys as data (`CribbageApp.prompt_keys`) and the footer's as well
(`CribbageApp.footer_keys`); these tests walk whole games (counting by hand or not, muggins on
or off, two or three players, at 80x24, 120x40 and 200x60), check at every state that each
named key is bound, live, to the action it names, and press them to see that they act: the
show's ⏎ after you count your own hand above all (it was dead while the count box kept the
focus). The games are seeded; the computer is the novice, which miscounts, so muggins is asked.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import pytest
from textual.pilot import Pilot

from fifteentwo.actions import Play
from fifteentwo.app.options import SPEEDS, PlayOptions, SessionFactory
from fifteentwo.scoring import hand_total
from fifteentwo.tui import CribbageApp, make_app
from fifteentwo.tui.model import Mode
from fifteentwo.tui.screens import HelpScreen, RulesScreen
from fifteentwo.tui.state import NamedKey
from fifteentwo.tui.texts import _action_parts
from fifteentwo.tui.widgets import CountInput, CutSlider, EventLog

SIZES = [(80, 24), (120, 40), (200, 60)]


@dataclass
class Walk:
    """What a walk pressed, by state and action, and what it must still press."""

    pressed: Counter[tuple[str, str]] = field(default_factory=Counter)
    side_keys_seen: set[tuple[str, str]] = field(default_factory=set)
    undone_in_game: set[int] = field(default_factory=set)
    turns: Counter[str] = field(default_factory=Counter)
    """Times each state was met (the walk alternates the keys it presses by it)."""
    games_over: int = 0


def state_of(app: CribbageApp) -> str:
    if app._show_wait:
        return "show-wait"
    if app._show_event is not None:
        return "show-said"
    return app.mode.value


async def idle(pilot: Pilot[int], app: CribbageApp) -> None:
    """Wait until the app asks the player something (or the show waits or is being said).
    Bounded by time, not by looks: a loaded machine makes each look slower."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        await pilot.pause(0.002)
        if app.return_code is not None or not app.is_running:
            return
        if app._show_wait or app._show_event is not None:
            return
        busy = any(w.is_running for w in app.workers)
        if not busy and not app._pacing and app.mode not in (Mode.BUSY, Mode.START):
            return
    raise AssertionError(f"the app never asked anything (mode {app.mode})")


def assert_bound(app: CribbageApp, keys: tuple[NamedKey, ...], where: str) -> None:
    """Each key named is bound where the focus is, live, to the action named."""
    active = app.screen.active_bindings
    for named in keys:
        assert named.key in active, (where, named, sorted(active))
        binding = active[named.key]
        assert binding.enabled, (where, named)
        assert _action_parts(binding.binding.action)[0] == named.action, (
            where,
            named,
            binding.binding.action,
        )


def log_lines(app: CribbageApp) -> list[str]:
    return app.query_one(EventLog).plain


async def side_keys(pilot: Pilot[int], app: CribbageApp, walk: Walk, state: str) -> None:
    """Help, the rules and the hint, once per state: each shows what it says, and the game is
    where it was afterwards."""
    named = {k.action: k.key for k in app.footer_keys()}
    mode = app.mode
    for action, screen in (("help", HelpScreen), ("rules", RulesScreen)):
        if action in named and (state, action) not in walk.side_keys_seen:
            walk.side_keys_seen.add((state, action))
            await pilot.press(named[action])
            await pilot.pause()
            assert isinstance(app.screen, screen), (state, action)
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, screen) and app.mode is mode
            walk.pressed[(state, action)] += 1
    if "hint" in named and (state, "hint") not in walk.side_keys_seen:
        walk.side_keys_seen.add((state, "hint"))
        before = len(log_lines(app))
        await pilot.press(named["hint"])
        await idle(pilot, app)
        assert any(line.startswith("Hint") for line in log_lines(app)[before:]), state
        walk.pressed[(state, "hint")] += 1


async def press_named(pilot: Pilot[int], app: CribbageApp, walk: Walk, *keys: str) -> None:
    """Press keys the screen names now (refused otherwise), counting them."""
    state = state_of(app)
    for key in keys:
        named = {k.key: k.action for k in (*app.prompt_keys, *app.footer_keys())}
        assert key in named, (state, key, named)
        walk.pressed[(state, named[key])] += 1
        await pilot.press(key)
        await pilot.pause()


async def discard(pilot: Pilot[int], app: CribbageApp, walk: Walk, turn: int) -> None:
    obs = app.obs
    assert obs is not None
    n = len(obs.hand)
    for i in range(n):  # every number key chooses its card, and again unchooses it
        await press_named(pilot, app, walk, str(i + 1))
        assert app._selected == {i}
        await press_named(pilot, app, walk, str(i + 1))
        assert not app._selected
    await press_named(pilot, app, walk, "enter")  # nothing chosen: says what to do
    assert app.mode is Mode.DISCARD and "Choose" in app.message.plain
    assert app.rules is not None
    need = app.rules.discard
    if turn % 2:
        for _ in range(need):  # ␣ chooses the card at the cursor, → moves it on
            await press_named(pilot, app, walk, "space", "right")
        assert len(app._selected) == need
    else:
        await press_named(pilot, app, walk, *(str(i + 1) for i in range(need)))
    await press_named(pilot, app, walk, "enter")
    await idle(pilot, app)
    assert app.mode is not Mode.DISCARD  # laid away: on to the cut or the play


async def play(pilot: Pilot[int], app: CribbageApp, walk: Walk, turn: int) -> None:
    obs = app.obs
    assert obs is not None
    keys = {k.key: k.action for k in app.prompt_keys}
    played_before = sum(1 for line in log_lines(app) if line.startswith("You play"))
    legal = {a.card for a in obs.legal if isinstance(a, Play)}
    if "g" in keys:
        assert not legal
        before = len(log_lines(app))
        await press_named(pilot, app, walk, "g")
        await idle(pilot, app)
        assert any("go" in line for line in log_lines(app)[before:])
        return
    assert legal, "a prompt without go must leave a card to play"
    unplayable = [i for i, c in enumerate(obs.hand) if c not in legal]
    if unplayable:  # a card that cannot be played: refused, the engine says why
        await press_named(pilot, app, walk, str(unplayable[0] + 1))
        await idle(pilot, app)
        assert app.mode is Mode.PLAY and app.obs is not None and app.obs.hand == obs.hand
        assert app.message.plain
    target = next(i for i, c in enumerate(obs.hand) if c in legal)
    if turn % 2 and len(obs.hand) > 1:  # ←/→ move the cursor there, ⏎ plays it
        cursor = app._cursor
        await press_named(pilot, app, walk, "right")
        assert app._cursor == (cursor + 1) % len(obs.hand)
        await press_named(pilot, app, walk, "left")
        assert app._cursor == cursor
        while app._cursor != target:
            await press_named(pilot, app, walk, "right")
        await press_named(pilot, app, walk, "enter")
    else:
        await press_named(pilot, app, walk, str(target + 1))
    await idle(pilot, app)
    played = sum(1 for line in log_lines(app) if line.startswith("You play"))
    assert played == played_before + 1


async def cut(pilot: Pilot[int], app: CribbageApp, walk: Walk) -> None:
    slider = app.query_one(CutSlider)
    assert app.focused is slider
    value = slider.value
    await press_named(pilot, app, walk, "right")
    assert slider.value == min(slider.high, value + 1)
    await press_named(pilot, app, walk, "left")
    assert slider.value == value
    phase = app.obs.phase if app.obs is not None else None
    await press_named(pilot, app, walk, "enter")
    await idle(pilot, app)
    assert app.mode is not Mode.CUT or (app.obs is not None and app.obs.phase is not phase)


async def count(pilot: Pilot[int], app: CribbageApp, walk: Walk, turn: int) -> None:
    obs = app.obs
    assert obs is not None and obs.starter is not None
    assert isinstance(app.focused, CountInput)
    total = hand_total([c.index for c in obs.to_count], obs.starter.index, obs.counting_crib)
    claim = total - 1 if total and turn % 3 == 0 else total  # now and then one short
    lines = len(log_lines(app))
    await pilot.press(*str(claim))
    await press_named(pilot, app, walk, "enter")
    await idle(pilot, app)
    assert f"claimed {claim}" in " ".join(log_lines(app)[lines:]) or claim == total
    # the count is sent: the box is closed and ⏎ is the game's again (the dead ⏎ of issue 31)
    assert not app.query_one("#entry").display or app.mode in (Mode.COUNT, Mode.CUT)
    assert not isinstance(app.focused, CountInput) or app.mode is Mode.COUNT


async def walk_games(pilot: Pilot[int], app: CribbageApp, *, games: int = 2) -> Walk:
    """Play ``games`` whole games by the keys the screen names, checking every state."""
    walk = Walk()
    for _ in range(3000):
        await idle(pilot, app)
        if not app.is_running:
            return walk
        state = state_of(app)
        walk.turns[state] += 1
        turn = walk.turns[state]
        prompt = app.prompt_keys
        footer = app.footer_keys()
        assert_bound(app, prompt, f"{state} prompt {app.query_one('#prompt').text.plain}")
        assert_bound(app, footer, f"{state} footer")
        if app.mode in (Mode.DISCARD, Mode.PLAY):  # one card left: "1", never "1-1"
            assert "1-1" not in app.query_one("#prompt").text.plain
        session = app.session
        assert session is not None
        if any(k.action == "undo" for k in footer):
            assert session.cannot_undo() is None  # u is shown only when it can act
        if state == "show-said":  # ⏎ skips to the hand's total
            event = app._show_event
            await press_named(pilot, app, walk, "enter")
            assert app._show_event is not event
            continue
        if state == "show-wait":  # ⏎ goes on to the next hand
            shown = len(app.model.shown)
            await press_named(pilot, app, walk, "enter")
            await idle(pilot, app)
            assert len(app.model.shown) > shown
            continue
        await side_keys(pilot, app, walk, state)
        mode = app.mode
        game = app.games_played
        if (
            mode in (Mode.DISCARD, Mode.PLAY)
            and any(k.action == "undo" for k in footer)
            and game not in walk.undone_in_game
        ):
            walk.undone_in_game.add(game)
            takebacks = session.takebacks
            await press_named(pilot, app, walk, "u")
            await idle(pilot, app)
            assert session.takebacks == takebacks + 1
            assert "You took back your last decision." in log_lines(app)
            continue
        if mode is Mode.DISCARD:
            await discard(pilot, app, walk, turn)
        elif mode is Mode.PLAY:
            await play(pilot, app, walk, turn)
        elif mode is Mode.CUT:
            await cut(pilot, app, walk)
        elif mode is Mode.COUNT:
            await count(pilot, app, walk, turn)
        elif mode is Mode.MUGGINS:
            # A computer only ever under-claims: asked on its claim alone, the count after.
            held = app._held
            assert held is not None and app.obs is not None
            assert app.obs.pending_claim == held.total - held.claimed
            assert held.score().say() not in app.message.plain
            before = len(log_lines(app))
            await press_named(pilot, app, walk, "y" if turn % 2 else "n")
            await idle(pilot, app)
            assert app.mode is not Mode.MUGGINS or len(log_lines(app)) > before
        elif mode is Mode.PAUSE:
            deal = app.model.deal_number
            over = app.model.game_over is not None
            await press_named(pilot, app, walk, "space" if turn % 2 and not over else "enter")
            await idle(pilot, app)
            assert app.mode is not Mode.PAUSE or app.model.deal_number > deal
        elif mode is Mode.OVER:
            walk.games_over += 1
            if walk.games_over < games:
                last = app.session
                await press_named(pilot, app, walk, "y")
                await idle(pilot, app)
                assert app.session is not last and app.games_played == game + 1
                assert f"Game {game + 1}: " in " ".join(log_lines(app))
            else:
                await press_named(pilot, app, walk, "n")
                await pilot.pause()
                return walk
        else:
            raise AssertionError(f"a state with no keys: {state}")
    raise AssertionError("the games did not end")


CASES = [
    # (players, counting by hand, muggins, size, games: the second after "Another game? y")
    pytest.param(2, True, False, SIZES[0], 2, id="manual-80x24"),
    # The other walks take a minute each: `make test-walks` runs them (.ci/run calls it).
    pytest.param(2, True, True, SIZES[1], 2, id="manual-muggins-120x40", marks=pytest.mark.walk),
    pytest.param(2, False, True, SIZES[2], 1, id="auto-muggins-200x60", marks=pytest.mark.walk),
    pytest.param(2, False, False, SIZES[1], 1, id="auto-120x40", marks=pytest.mark.walk),
    pytest.param(
        3, True, True, SIZES[2], 1, id="three-manual-muggins-200x60", marks=pytest.mark.walk
    ),
]


@pytest.mark.parametrize(("players", "manual", "muggins", "size", "games"), CASES)
async def test_every_named_key_does_what_it_says(
    monkeypatch: pytest.MonkeyPatch,
    *,
    players: int,
    manual: bool,
    muggins: bool,
    size: tuple[int, int],
    games: int,
) -> None:
    monkeypatch.setitem(SPEEDS, "normal", 0.003)  # the show still waits for ⏎; the rest quick
    options = PlayOptions(
        variant="short" if players == 2 else "three-player",
        target=31,
        level="novice",
        seed=40 + players,
        auto_count=not manual,
        muggins=muggins,
        instructions=False,
        speed="normal",
    )
    factory = SessionFactory(options)
    app = make_app(factory, options)
    async with app.run_test(size=size) as pilot:
        walk = await walk_games(pilot, app, games=games)
        assert walk.games_over == games
        sessions = [state for state, _ in walk.pressed]
        assert "discard" in sessions and "play" in sessions and "pause" in sessions
        actions = {action for _, action in walk.pressed}
        for action in ("pick", "choose", "lay_away", "play_cursor", "cursor", "continue"):
            assert action in actions, action
        assert ("show-wait", "continue") in walk.pressed  # the show's ⏎, pressed and live
        if manual:
            assert ("count", "submit") in walk.pressed
        if muggins and manual:
            assert not any(action == "undo" for _, action in walk.pressed)
        else:
            assert ("discard", "undo") in walk.pressed or ("play", "undo") in walk.pressed
    assert app.return_code == 0


async def test_after_counting_your_hand_enter_goes_on_to_the_next_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The dead ⏎ itself: count your hand, and the show's "⏎ for the next hand" works, with
    the count box (and its "your count, then Enter") gone."""
    monkeypatch.setitem(SPEEDS, "normal", 0.003)
    options = PlayOptions(
        variant="short", level="greedy", seed=8, auto_count=False, instructions=False
    )
    app = make_app(SessionFactory(options), options)
    async with app.run_test(size=(120, 40)) as pilot:
        walk = Walk()
        waits = 0
        for turn in range(600):
            await idle(pilot, app)
            if app._show_wait:
                waits += 1
                assert not app.query_one("#entry").display
                assert not isinstance(app.focused, CountInput)
                assert app.prompt_keys == (NamedKey("enter", "continue"),)
                shown = len(app.model.shown)
                await pilot.press("enter")
                await idle(pilot, app)
                assert len(app.model.shown) > shown  # on to the next hand
                if waits == 2:
                    break
            elif app._show_event is not None:
                await pilot.press("enter")
            elif app.mode is Mode.COUNT:
                await count(pilot, app, walk, 1)
            elif app.mode is Mode.DISCARD:
                await pilot.press("1", "2", "enter")
            elif app.mode is Mode.PLAY:
                obs = app.obs
                assert obs is not None
                legal = {a.card for a in obs.legal if isinstance(a, Play)}
                if not legal:
                    await pilot.press("g")
                else:
                    await pilot.press(
                        str(1 + next(i for i, c in enumerate(obs.hand) if c in legal))
                    )
            else:
                await pilot.press("enter")
            del turn
        assert waits == 2


async def test_tab_never_takes_away_the_keys_the_prompt_names() -> None:
    """Tab and Shift+Tab at the cut, the count, the discard and the play: the keys the prompt
    names stay bound where the focus is (the cut bar and the count box keep it), and they act.
    (Tab once moved the focus to the log: the cut's ⏎ and ←/→ went dead, the footer lost
    ``⏎ Cut``.)"""
    options = PlayOptions(
        variant="short",
        level="greedy",
        seed=3,
        auto_count=False,
        instructions=False,
        speed="instant",
    )
    app = make_app(SessionFactory(options), options)
    tabbed: set[Mode] = set()
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(400):
            await idle(pilot, app)
            mode = app.mode
            if mode in (Mode.CUT, Mode.COUNT, Mode.DISCARD, Mode.PLAY) and mode not in tabbed:
                tabbed.add(mode)
                focused = app.focused
                for key in ("tab", "shift+tab", "tab", "tab"):
                    await pilot.press(key)
                    await pilot.pause()
                    assert app.focused is focused, (mode, key, app.focused)
                    assert_bound(app, app.prompt_keys, f"{mode} after {key}")
                    assert_bound(app, app.footer_keys(), f"{mode} footer after {key}")
                if mode is Mode.CUT:
                    assert NamedKey("enter", "cut") in app.footer_keys()
                    slider = app.query_one(CutSlider)
                    value = slider.value
                    await pilot.press("right")
                    assert slider.value == value + 1
            if tabbed == {Mode.CUT, Mode.COUNT, Mode.DISCARD, Mode.PLAY}:
                break
            obs = app.obs
            assert obs is not None
            if app._show_wait or app._show_event is not None or mode in (Mode.PAUSE, Mode.CUT):
                before = (mode, obs.phase, len(log_lines(app)))
                await pilot.press("enter")
                await idle(pilot, app)
                if mode is Mode.CUT:  # ⏎ cut (the cut for deal again only after a tie)
                    assert (app.mode, app.obs and app.obs.phase, len(log_lines(app))) != before
            elif mode is Mode.COUNT:
                assert obs.starter is not None
                cards = [c.index for c in obs.to_count]
                total = hand_total(cards, obs.starter.index, obs.counting_crib)
                await pilot.press(*str(total), "enter")
            elif mode is Mode.DISCARD:
                await pilot.press("1", "2", "enter")
            elif mode is Mode.PLAY:
                legal = {a.card for a in obs.legal if isinstance(a, Play)}
                if legal:
                    await pilot.press(
                        str(1 + next(i for i, c in enumerate(obs.hand) if c in legal))
                    )
                else:
                    await pilot.press("g")
            else:
                await pilot.press("enter")
        assert tabbed == {Mode.CUT, Mode.COUNT, Mode.DISCARD, Mode.PLAY}
