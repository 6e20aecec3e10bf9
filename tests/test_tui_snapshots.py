"""Snapshot tests of the full-screen game (pytest-textual-snapshot): the start screen, the
new-game form, the statistics, practice, the show counted aloud, and a whole game at 80x24 and
160x45, each on fixed seeds. A changed screen fails with a side-by-side report; after a change
meant to be seen, ``pytest tests/test_tui_snapshots.py --snapshot-update`` records it
(tests/__snapshots__/, read them in a browser before committing).

The snapshots are drawn by the Textual and Rich versions the dev extra pins (pyproject.toml):
another version may draw a border or a colour differently, which is why they are pinned.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from fifteentwo.app.options import SPEEDS, PlayOptions, SessionFactory
from fifteentwo.store import open_store
from fifteentwo.tui import make_app
from fifteentwo.tui.model import Mode
from test_tui import Factory, options, play_paced, play_until, settle
from test_tui_menu import played_games

pytest.importorskip("pytest_textual_snapshot")

Snap = Callable[..., bool]


def menu_app(tmp_path: Path, games: int = 0) -> Any:
    store = open_store(tmp_path / "s.sqlite3")
    played_games(store, range(1, 1 + games))
    opts = PlayOptions(seed=11, instructions=False)
    return make_app(SessionFactory(opts, store=store), opts, menu=True, store=store)


def keys(*pressed: str) -> Callable[[Pilot[int]], Awaitable[None]]:
    async def run(pilot: Pilot[int]) -> None:
        await settle(pilot)
        for key in pressed:
            await pilot.press(key)
            await settle(pilot)

    return run


def test_start_screen(snap_compare: Snap, tmp_path: Path) -> None:
    assert snap_compare(menu_app(tmp_path), terminal_size=(80, 24), run_before=keys())


def test_new_game_form(snap_compare: Snap, tmp_path: Path) -> None:
    assert snap_compare(menu_app(tmp_path), terminal_size=(80, 24), run_before=keys("n"))


def test_statistics_screen(snap_compare: Snap, tmp_path: Path) -> None:
    app = menu_app(tmp_path, games=6)
    assert snap_compare(app, terminal_size=(80, 24), run_before=keys("s"))


def test_practice_screen(snap_compare: Snap, tmp_path: Path) -> None:
    app = menu_app(tmp_path)

    app.practice_seed = 4
    run = keys("p")

    assert snap_compare(app, terminal_size=(80, 24), run_before=run)


def test_the_show_counted_aloud(snap_compare: Snap, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopped while your hand is said: its combination's cards lit (the starter too), the
    others dimmed, the words on the hand's label and the message line."""
    monkeypatch.setitem(SPEEDS, "normal", 0.001)
    app = make_app(Factory(seed=3), options("short", speed="normal"))
    stop = {"at": None}

    def frozen() -> None:  # the next phrase never comes: the snapshot sees this one
        if app.lit is not None and app.lit[0] == 0 and not app.lit[1]:
            stop["at"] = app.lit
            return
        app.__class__._next_light(app)

    monkeypatch.setattr(app, "_next_light", frozen)

    async def run(pilot: Pilot[int]) -> None:
        await play_paced(pilot, app, lambda: stop["at"] is not None)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run)


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
def test_a_whole_game(snap_compare: Snap, size: tuple[int, int]) -> None:
    app = make_app(Factory(seed=9), options("short"))

    async def run(pilot: Pilot[int]) -> None:
        await settle(pilot)
        await play_until(pilot, pilot.app, lambda: pilot.app.mode is Mode.OVER)  # type: ignore[arg-type,attr-defined]

    assert snap_compare(app, terminal_size=size, run_before=run)
