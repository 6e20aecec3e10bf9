"""Quick moves on the event loop (issue 32): once a quick level has proven quick, its games'
moves are made on the server's event loop itself, without the quick thread's hand-offs of the
interpreter lock; a move that turns out slow sends its game to the pool and its level back to
the quick thread, and a store that is busy or failing is never waited on from the loop."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from fifteentwo.players.simple import LEVELS, GreedyPlayer
from fifteentwo.store import open_store
from fifteentwo.web import games as web_games
from fifteentwo.web.games import GameHub
from fifteentwo.web.protocol import ActMessage, NewGameRequest, parse_client_message
from web_helpers import choose


class Flaky(GreedyPlayer):
    """A quick level that can be made slow, noting the thread each of its moves ran on."""

    quick = True
    pause: ClassVar[float] = 0.0
    threads: ClassVar[list[str]] = []

    def choose(self, obs: Any) -> Any:
        Flaky.threads.append(threading.current_thread().name)
        if Flaky.pause:
            time.sleep(Flaky.pause)
        return super().choose(obs)


class Page:
    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def send(self, message: dict[str, Any]) -> None:
        await self.inbox.put(message)


class Player:
    """One person's game through the hub, as a page plays it."""

    def __init__(self, hub: GameHub) -> None:
        self.hub = hub

    async def start(self) -> None:
        game_id, token = await self.hub.create(
            NewGameRequest(variant="standard", level="flaky", player="p" * 16)
        )
        self.game = await self.hub.open(game_id, token)
        self.page = Page(self.game.session.viewer)
        self.state = await self.hub.join(self.game, self.page)

    async def move(self) -> None:
        """One decision answered, and the computer's reply waited for."""
        while not self.state["waiting"]:
            self.state = await self.page.inbox.get()
        text = json.dumps(
            {"type": "act", "decision": self.state["decision"], "action": choose(self.state)}
        )
        message = parse_client_message(text)
        assert isinstance(message, ActMessage)
        await self.hub.act(self.game, self.page.seat, message.decision, message.action)
        self.state = await self.page.inbox.get()
        assert not self.state["over"], "(a longer game than the test needs)"

    async def move_answered(self) -> None:
        """Decisions answered until the computer has chosen once (`Flaky.threads` cleared)."""
        Flaky.threads.clear()
        for _ in range(10):
            await self.move()
            if Flaky.threads:
                return
        raise AssertionError("the computer never chose")


@pytest.fixture
def flaky(monkeypatch: pytest.MonkeyPatch) -> type[Flaky]:
    monkeypatch.setitem(LEVELS, "flaky", Flaky)
    monkeypatch.setattr(Flaky, "pause", 0.0)
    monkeypatch.setattr(Flaky, "threads", [])
    monkeypatch.setattr(web_games, "PROVEN_MOVES", 6)
    return Flaky


@contextlib.asynccontextmanager
async def a_hub(path: Path) -> AsyncIterator[GameHub]:
    hub = GameHub(lambda: open_store(path))
    await hub.start()
    try:
        yield hub
    finally:
        await hub.close()


async def a_proven_game(hub: GameHub) -> Player:
    """A game against `Flaky`, played until the level has proven quick."""
    player = Player(hub)
    await player.start()
    for _ in range(40):
        if hub._proven.get(Flaky, 0) >= web_games.PROVEN_MOVES:
            return player
        await player.move()
    raise AssertionError("the level never proved quick")


def test_a_proven_quick_level_moves_on_the_loop_until_a_move_is_slow(
    tmp_path: Path, flaky: type[Flaky]
) -> None:
    async def scenario() -> None:
        async with a_hub(tmp_path / "games.sqlite3") as hub:
            one = await a_proven_game(hub)
            # proving: on the quick thread (the moves at the game's start are the pool's)
            assert "fifteentwo-quick_0" in flaky.threads
            assert threading.current_thread().name not in flaky.threads
            for _ in range(3):
                await one.move_answered()
                assert set(flaky.threads) == {threading.current_thread().name}
            assert flaky.threads and set(flaky.threads) == {threading.current_thread().name}

            flaky.pause = web_games.QUICK_MOVE * 1.5  # the level slows down: one stall
            await one.move_answered()
            assert one.game.slow and hub._proven[Flaky] == 0
            flaky.pause = 0.0
            await one.move_answered()  # its game now on the pool for good
            assert flaky.threads and all(t.startswith("fifteentwo-bots") for t in flaky.threads)
            two = Player(hub)  # another game of the level: on the quick thread, proving again
            await two.start()
            await two.move_answered()
            assert flaky.threads and set(flaky.threads) == {"fifteentwo-quick_0"}

    asyncio.run(scenario())


def test_a_busy_store_is_not_waited_on_from_the_loop(tmp_path: Path, flaky: type[Flaky]) -> None:
    async def scenario() -> None:
        async with a_hub(tmp_path / "games.sqlite3") as hub:
            one = await a_proven_game(hub)
            store: Any = hub.store
            loop_thread = threading.current_thread().name

            held, release = threading.Event(), threading.Event()

            def hold() -> None:  # another thread of this process inside the store
                with store._lock:
                    held.set()
                    release.wait(5)

            holder = threading.Thread(target=hold)
            holder.start()
            held.wait(5)
            flaky.threads.clear()
            moving = asyncio.ensure_future(one.move())
            await asyncio.sleep(0.2)
            assert not moving.done()  # (waiting for the store on the quick thread, not here)
            release.set()
            await moving
            holder.join()
            assert loop_thread not in flaky.threads
            # a wait for the store is not the level's slowness: once the store is free again,
            # the game's moves are back on the loop
            assert not one.game.slow
            await one.move_answered()
            assert set(flaky.threads) == {loop_thread}

    asyncio.run(scenario())


def test_a_failing_store_is_not_written_from_the_loop(tmp_path: Path, flaky: type[Flaky]) -> None:
    async def scenario() -> None:
        async with a_hub(tmp_path / "games.sqlite3") as hub:
            one = await a_proven_game(hub)
            store: Any = hub.store
            loop_thread = threading.current_thread().name
            store._degraded_until = time.monotonic() + 60  # writing to the journal: not well
            await one.move_answered()
            assert flaky.threads and loop_thread not in flaky.threads
            store._degraded_until = 0.0
            await one.move_answered()
            assert flaky.threads and set(flaky.threads) == {loop_thread}

    asyncio.run(scenario())


def test_the_store_says_when_it_is_idle(tmp_path: Path) -> None:
    store: Any = open_store(tmp_path / "games.sqlite3")
    try:
        with store.idle() as free:
            assert free
            with store.idle() as again:  # (the holder's own calls go straight in)
                assert again
        outcome: list[bool] = []

        def other_thread() -> None:
            with store.idle() as free:
                outcome.append(free)

        with store._lock:
            thread = threading.Thread(target=other_thread)
            thread.start()
            thread.join()
        assert outcome == [False]
        store._degraded_until = time.monotonic() + 60
        with store.idle() as free:
            assert not free
    finally:
        store.close()


def test_the_sweep_renews_every_game_s_lease_in_a_few_writes(
    tmp_path: Path, flaky: type[Flaky], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sweeper renews the leases of all the games a process holds a batch at a time
    (`Store.heartbeat_many`), not one write per game."""
    path = tmp_path / "games.sqlite3"
    monkeypatch.setattr(web_games, "SWEEP_BATCH", 2)

    async def scenario() -> None:
        async with a_hub(path) as hub:
            players = [Player(hub) for _ in range(3)]
            for player in players:
                await player.start()
                await player.move()
            with sqlite3.connect(path) as db:
                db.execute("UPDATE leases SET heartbeat = 1000.0")
            store: Any = hub.store
            calls: list[str] = []
            for name in ("heartbeat", "heartbeat_many"):
                method = getattr(store, name)

                def counted(*args: Any, _name: str = name, _m: Any = method, **kw: Any) -> Any:
                    calls.append(_name)
                    return _m(*args, **kw)

                setattr(store, name, counted)
            await hub.sweep()
            assert calls == ["heartbeat_many", "heartbeat_many"]  # (3 games, 2 to a write)
            with sqlite3.connect(path) as db:
                beats = dict(db.execute("SELECT game_id, heartbeat FROM leases"))
            assert {p.game.game_id for p in players} <= set(beats)
            assert all(float(beats[p.game.game_id]) > 1000.0 for p in players)

    asyncio.run(scenario())
