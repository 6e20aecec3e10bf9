"""TableHub without the web server: two hubs over one store act as two server processes whose
caches fall behind each other (no bus between them), and the sweeper finds only due tables."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from fifteentwo.app.plain import peg_positions
from fifteentwo.store import open_store
from fifteentwo.store.base import Store, StoreError, utc_now
from fifteentwo.web.bus import Bus, LocalBus
from fifteentwo.web.games import Refused
from fifteentwo.web.protocol import NewTableRequest, TableSeatSpec, parse_client_message
from fifteentwo.web.tables import IDLE_CLOSE, RESULTS_RETRY, SPECTATOR, TableHub
from web_helpers import choose


def action(view: dict[str, Any]) -> Any:
    """The tests' legal policy's action, validated as the server validates a message."""
    message = {"type": "act", "decision": view["decision"], "action": choose(view)}
    return parse_client_message(json.dumps(message)).action


async def direct(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "tables.sqlite3") as opened:
        yield opened


def hub(store: Store) -> TableHub:
    return TableHub(lambda: store, LocalBus(), run=direct, store_call=direct)


def two_people(**settings: Any) -> NewTableRequest:
    return NewTableRequest(
        variant="short", seats=[TableSeatSpec(kind="person")] * 2, name="Ann", **settings
    )


async def play_to_the_end(
    table_id: str,
    reader: Callable[[], TableHub],
    actor: Callable[[int], TableHub],
    *,
    replay: bool = False,
) -> int:
    """Play the table's game out with the tests' policy: each decision read from ``reader()``
    and made through ``actor(seat)`` (with ``replay``, the same answer is sent again through
    the other hub and must be refused). Returns how many moves were made."""
    for moves in range(400):
        table = await reader().load(table_id)
        session = table.session
        assert session is not None
        if session.is_over:
            return moves
        seat = session.waiting_for
        assert seat is not None
        view = reader().state(table, seat)
        await actor(seat).act(table_id, seat, view["decision"], action(view))
        if replay:
            with pytest.raises(Refused):
                await actor(1 - seat).act(table_id, seat, view["decision"], action(view))
    raise AssertionError("the game did not finish")


class Seat:
    """What a seat's connection was last sent (a stand-in for a socket)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.last: dict[str, Any] = {}

    async def send(self, message: dict[str, Any]) -> None:
        self.last = message


def test_two_hubs_whose_caches_fall_behind_still_play_every_move_once(store: Store) -> None:
    async def main() -> None:
        a, b = hub(store), hub(store)
        made = await a.create(two_people(), "p0", "Ann")
        took = await b.sit(made["table"], None, "p1", "Bob")
        seats = [Seat(0), Seat(1)]
        await a.join(made["table"], made["token"], seats[0])
        await b.join(made["table"], took["token"], seats[1])
        hubs = [a, b]
        rng = random.Random(3)
        # each seat's own hub acts; its cached copy is usually behind the other hub's write,
        # and an answer to an old decision is refused on either hub, stale cache or not
        moves = await play_to_the_end(
            made["table"], lambda: hubs[rng.random() < 0.5], hubs.__getitem__, replay=True
        )
        row = store.load_table(made["table"])
        assert row.status == "finished" and moves > 20
        assert row.version >= moves + 2  # create, sit, every move (no move lost or doubled)

    asyncio.run(main())


def test_the_pegs_sent_are_the_games_at_every_message(store: Store) -> None:
    """The pegs are read on from message to message (`LiveTable.pegs`), and stay the game's
    own across writes, the other hub's moves, and the seats' and a spectator's views."""

    async def main() -> None:
        hubs = [hub(store), hub(store)]
        made = await hubs[0].create(two_people(), "p0", "Ann")
        await hubs[1].sit(made["table"], None, "p1", "Bob")
        for _ in range(400):
            for h in hubs:
                table = await h.load(made["table"])
                session = table.session
                assert session is not None
                want = peg_positions(session.game.events, 2)
                for seat in (0, 1, SPECTATOR, 0):
                    pegs = h.state(table, seat)["pegs"]
                    assert (pegs["front"], pegs["back"]) == want
            if session.is_over:
                assert max(want[0]) >= 61
                return
            seat = session.waiting_for
            assert seat is not None
            view = hubs[1].state(table, seat)
            await hubs[seat].act(made["table"], seat, view["decision"], action(view))
        raise AssertionError("the game did not finish")

    asyncio.run(main())


def test_the_sweeper_reads_only_due_tables_and_covers_an_away_seat(store: Store) -> None:
    async def main() -> None:
        a = hub(store)
        made = await a.create(two_people(away_seconds=1), "p0", "Ann")
        took = await a.sit(made["table"], None, "p1", "Bob")
        await a.join(made["table"], made["token"], Seat(0))
        await a.join(made["table"], took["token"], Seat(1))
        row = store.load_table(made["table"])
        assert row.status == "playing" and row.due_at is not None
        assert row.due_at > utc_now() + timedelta(seconds=IDLE_CLOSE - 60)  # nobody away
        await a.leave(made["table"], next(iter(a.listeners[made["table"]])))
        row = store.load_table(made["table"])
        assert row.due_at is not None and row.due_at <= utc_now() + timedelta(seconds=1)
        await asyncio.sleep(1.1)
        assert [r.table_id for r in store.list_tables(due_before=utc_now())] == [made["table"]]
        await a.sweep()
        seats = store.load_table(made["table"]).data["seats"]
        assert any(s.get("covered") for s in seats)
        assert store.list_tables(due_before=utc_now()) == []

    asyncio.run(main())


class LosingBus(Bus):
    """A bus between processes that loses every message."""


def test_a_message_the_bus_lost_is_caught_up_by_the_next_sweep(store: Store) -> None:
    async def main() -> None:
        a = TableHub(lambda: store, LosingBus(), run=direct, store_call=direct)
        b = TableHub(lambda: store, LosingBus(), run=direct, store_call=direct)
        made = await a.create(two_people(), "p0", "Ann")
        took = await b.sit(made["table"], None, "p1", "Bob")
        ann, bob = Seat(0), Seat(1)
        await a.join(made["table"], made["token"], ann)
        await b.join(made["table"], took["token"], bob)
        table = await b.load(made["table"])
        assert table.session is not None
        seat = table.session.waiting_for
        assert seat is not None
        actor, watcher = (a, b) if seat == 0 else (b, a)
        view = actor.state(table, seat)
        await actor.act(made["table"], seat, view["decision"], action(view))
        seen = bob if watcher is b else ann
        assert seen.last.get("decision", 0) <= view["decision"]  # the bus lost it
        watcher.tables.clear()  # (and whatever it had cached is gone: its connection is not)
        await watcher.sweep()
        await watcher.drain()
        assert seen.last["decision"] == view["decision"] + 1

    asyncio.run(main())


def later(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """The sweeper's clock, ``seconds`` ahead."""
    import fifteentwo.web.tables as tables_module

    ahead = utc_now() + timedelta(seconds=seconds)
    monkeypatch.setattr(tables_module, "utc_now", lambda: ahead)
    monkeypatch.setattr(tables_module.time, "time", ahead.timestamp)


def test_an_idle_table_is_closed_after_a_week(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def main() -> None:
        a = hub(store)
        made = await a.create(two_people(), "p0", "Ann")
        await a.sweep()
        assert store.load_table(made["table"]).status == "open"
        later(monkeypatch, IDLE_CLOSE + 1)
        await a.sweep()
        row = store.load_table(made["table"])
        assert row.status == "closed" and row.due_at is None

    asyncio.run(main())


async def finished_unstored(store: Store, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, str]:
    """A hub whose two people played a table to the end, its results not stored yet (the
    finishing process's own storing is dropped, as if it died first)."""
    a = hub(store)
    monkeypatch.setattr(a, "detach", lambda work: work.close())
    made = await a.create(two_people(), "p0", "Ann")
    took = await a.sit(made["table"], None, "p1", "Bob")
    for seat, token in ((0, made["token"]), (1, took["token"])):
        await a.join(made["table"], token, Seat(seat))
    await play_to_the_end(made["table"], lambda: a, lambda seat: a)
    return a, str(made["table"])


def test_results_a_dead_process_did_not_store_are_stored_by_the_sweeper(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def main() -> None:
        a, table_id = await finished_unstored(store, monkeypatch)  # it died before storing
        assert store.load_table(table_id).data.get("pending_finished")
        assert store.finished_games() == []
        await a.sweep()  # not yet: the finishing process stores them itself
        assert store.finished_games() == []
        later(monkeypatch, RESULTS_RETRY + 1)
        await a.sweep()
        assert len(store.finished_games()) == 2  # one in each person's history
        assert not store.load_table(table_id).data.get("pending_finished")
        await a.sweep()
        assert len(store.finished_games()) == 2

    asyncio.run(main())


def test_results_whose_write_failed_are_kept_and_stored_later(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def main() -> None:
        a, table_id = await finished_unstored(store, monkeypatch)
        real = store.finish_game

        def broken(*args: Any, **kwargs: Any) -> Any:
            raise StoreError("disk full")

        monkeypatch.setattr(store, "finish_game", broken)
        await a.store_results(await a.load(table_id))
        data = store.load_table(table_id).data
        assert data.get("pending_finished") and "storing_since" not in data  # kept, unclaimed
        assert store.finished_games() == []
        monkeypatch.setattr(store, "finish_game", real)
        later(monkeypatch, RESULTS_RETRY + 1)
        await a.sweep()
        assert len(store.finished_games()) == 2
        data = store.load_table(table_id).data
        assert not data.get("pending_finished") and "storing_since" not in data

    asyncio.run(main())


def test_a_claim_left_by_a_dead_process_expires(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def main() -> None:
        a, table_id = await finished_unstored(store, monkeypatch)
        await a.mutate(table_id, lambda t: t.data.update(storing_since=time.time()))
        await a.store_results(await a.load(table_id))  # another process is storing them
        assert store.finished_games() == []
        later(monkeypatch, RESULTS_RETRY + 1)  # ... and died
        await a.sweep()
        assert len(store.finished_games()) == 2

    asyncio.run(main())


def test_a_row_the_sweeper_fails_on_is_said_once_and_the_others_are_swept(
    store: Store, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="fifteentwo.web")

    async def main() -> None:
        a = hub(store)
        bad = await a.create(two_people(), "p0", "Ann")
        good = await a.create(two_people(), "p1", "Bob")
        row = store.load_table(bad["table"])
        data = {**row.data, "seats": [None, None]}  # a row no version of the server writes
        store.save_table(
            bad["table"], data, row.status, expected_version=row.version, due_at=utc_now()
        )
        a.tables.clear()
        later(monkeypatch, IDLE_CLOSE + 1)
        await a.sweep()
        await a.sweep()
        assert store.load_table(good["table"]).status == "closed"
        assert store.load_table(bad["table"]).data["seats"] == [None, None]  # kept as it was
        errors = [json.loads(r.getMessage()) for r in caplog.records if r.name.endswith("errors")]
        assert [(e["event"], e["kind"], e["table"]) for e in errors] == [
            ("sweep_error", "server", bad["table"])
        ]
        assert "TypeError" in errors[0]["exc"]

    asyncio.run(main())


def test_a_store_that_is_down_is_said_once_by_the_sweeper(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="fifteentwo.web")
    a = hub(store)
    a.tick = 0.01
    failing = [True]

    async def sweep() -> None:
        if failing[0]:
            raise StoreError("cannot read the game store: it is down")

    a.sweep = sweep  # type: ignore[method-assign]

    async def main() -> None:
        task = asyncio.create_task(a.run_sweeper())
        await asyncio.sleep(0.3)
        failing[0] = False
        await asyncio.sleep(0.1)
        task.cancel()

    asyncio.run(main())
    lines = [r.getMessage() for r in caplog.records if r.name == "fifteentwo.web"]
    assert len(lines) == 2, lines
    assert "it is down" in lines[0] and "works again" in lines[1]
