"""The PostgreSQL store's own promises: several writers, leases across machines, a server that
is not there, and no password in any message (a real server; tests/store_backends.py)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fifteentwo.store import GameBusy, GameMeta, StoreError, new_owner, open_store
from fifteentwo.store.base import TableConflict, lease_alive
from fifteentwo.store.postgres import PostgresStore, redact, server_options, split_schema
from store_backends import Backend, make_backend

META = GameMeta("short", 61, ("You", "Computer"), ("human", "expert"), (0, 0))


@pytest.fixture
def pg(tmp_path: Path) -> Iterator[Backend]:
    yield from make_backend("postgres", tmp_path)


def test_each_table_version_is_won_by_exactly_one_writer(pg: Backend) -> None:
    stores = [pg.open(), pg.open()]
    stores[0].save_table("t", {"n": 0}, "playing", expected_version=None)
    wins: list[tuple[int, int]] = []
    lock = threading.Lock()

    def writer(who: int) -> None:
        store = stores[who]
        done = 0
        while done < 25:
            row = store.load_table("t")
            try:
                version = store.save_table(
                    "t", {"n": row.data["n"] + 1}, "playing", expected_version=row.version
                )
            except TableConflict:
                continue
            with lock:
                wins.append((who, version))
            done += 1

    threads = [threading.Thread(target=writer, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    row = stores[0].load_table("t")
    assert row.data["n"] == 50 and row.version == 51  # no lost update
    assert sorted(v for _, v in wins) == list(range(2, 52))  # each version written once


def test_a_lease_held_in_another_process_is_refused_then_released(pg: Backend) -> None:
    code = (
        "import sys, time; from fifteentwo.store import open_store, GameMeta;"
        "s = open_store(sys.argv[1]);"
        "m = GameMeta('short', 61, ('You', 'C'), ('human', 'greedy'), (0, 0));"
        "print(s.create_game({}, m, owner='other'), flush=True); sys.stdin.readline()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, pg.url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        game = proc.stdout.readline().strip()
        store = pg.open()
        with pytest.raises(GameBusy, match="another session"):
            store.claim(game, owner=new_owner())
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(30)
    store.claim(game, owner=new_owner())  # its process has ended: the lease lapsed


def test_a_lease_from_another_machine_lapses_without_heartbeats(pg: Backend) -> None:
    store = pg.open()
    game = store.create_game({}, META, owner="far")
    pg.execute("UPDATE leases SET host = 'elsewhere', heartbeat = ?", (time.time(),))
    with pytest.raises(GameBusy, match="elsewhere"):
        store.claim(game, owner=new_owner())
    pg.execute("UPDATE leases SET heartbeat = ?", (time.time() - 3600,))
    assert not lease_alive(1, "elsewhere", time.time() - 3600)
    store.claim(game, owner=new_owner())


def test_a_server_that_is_not_there_is_one_line_quickly() -> None:
    started = time.monotonic()
    with pytest.raises(StoreError) as info:
        open_store("postgresql://fifteen:s3cret-pw@127.0.0.1:1/test")
    message = str(info.value)
    assert time.monotonic() - started < 20
    assert "\n" not in message and "s3cret-pw" not in message
    assert "cannot connect" in message and "127.0.0.1:1" in message


def test_the_cli_says_one_line_for_a_missing_server(tmp_path: Path) -> None:
    url = "postgresql://u:hunter2@127.0.0.1:1/test"
    for argv in (["saved", "--db", url], ["serve", "--db", url, "--port", "0"]):
        result = subprocess.run(
            [sys.executable, "-m", "fifteentwo", *argv],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if "unrecognized arguments" in result.stderr:
            continue  # this command takes no --db
        assert result.returncode != 0
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
        assert "hunter2" not in result.stderr + result.stdout


def test_urls_are_redacted_and_schemas_checked() -> None:
    assert redact("postgresql://a:b@h:5/d") == "postgresql://a:***@h:5/d"
    assert redact("postgresql://a@h/d") == "postgresql://a@h/d"
    assert split_schema("postgresql://h/d?schema=x&sslmode=disable") == (
        "postgresql://h/d?sslmode=disable",
        "x",
    )
    assert split_schema("postgresql://h/d?options=-c%20a%3Db&schema=x") == (
        "postgresql://h/d?options=-c%20a%3Db",
        "x",
    )
    assert server_options("postgresql://h/d?options=-c%20a%3Db", 2.5) == (
        "-c a=b -c statement_timeout=2500"
    )
    assert server_options("postgresql://h/d", 0.1) == "-c statement_timeout=100"
    with pytest.raises(StoreError, match="schema name"):
        PostgresStore("postgresql://h/d", schema="x; DROP TABLE y")


def test_the_urls_server_options_reach_every_connection_with_the_stores_timeout(
    pg: Backend,
) -> None:
    """An operator's ``options`` in the URL (here asynchronous commits, docs/store.md) join the
    store's statement timeout instead of being replaced by it, and a space in the URL stays a
    space (``urlencode`` had made it a plus, which libpq reads as a plus)."""
    url = f"{pg.url}&options=-c%20synchronous_commit%3Doff&application_name=two%20words"
    store = PostgresStore(url, statement_timeout=3.0)
    pg.opened.append(store)
    with store._db().connect() as conn:  # a pooled connection, as every store call uses
        shown = [
            conn.exec_driver_sql(f"SHOW {name}").scalar()
            for name in ("synchronous_commit", "statement_timeout", "application_name")
        ]
    assert shown == ["off", "3s", "two words"]
    assert store.game_version("a" * 12) is None


def test_a_newer_schema_is_refused(pg: Backend) -> None:
    pg.open()
    pg.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(StoreError, match="newer fifteentwo"):
        pg.open()


PROXY = """
import asyncio, sys
async def pipe(r, w):
    try:
        while data := await r.read(65536):
            w.write(data)
            await w.drain()
    except OSError:
        pass
    finally:
        w.close()
async def handle(r, w):
    r2, w2 = await asyncio.open_connection(sys.argv[2], int(sys.argv[3]))
    await asyncio.gather(pipe(r, w2), pipe(r2, w))
async def main():
    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(srv.sockets[0].getsockname()[1], flush=True)
    async with srv:
        await srv.serve_forever()
asyncio.run(main())
"""


def test_a_call_that_waits_holds_up_no_other_thread(pg: Backend) -> None:
    """One process's calls run side by side, each on its own pooled connection: a game's save
    waiting on a lock another process holds (or a slow or hung answer) holds up only its own
    caller, not every game of the process (they were all serialized by one lock)."""
    import psycopg

    store = pg.open()
    me = new_owner()
    game = store.create_game({"n": 0}, META, owner=me)
    other = store.create_game({"n": 0}, META, owner=me)
    holder = psycopg.connect(pg.url.split("?")[0])
    try:
        holder.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (game,))  # (in its BEGIN)
        saved: list[int | None] = []
        waiting = threading.Thread(
            target=lambda: saved.append(store.save_game(game, {"n": 1}, META, owner=me))
        )
        waiting.start()
        time.sleep(0.5)
        assert waiting.is_alive() and not saved  # it waits for the other process's lock
        started = time.monotonic()
        assert store.game_version(other) is not None
        assert store.save_game(other, {"n": 2}, META, owner=me) is not None
        assert time.monotonic() - started < 1.0
        assert waiting.is_alive()
    finally:
        holder.rollback()  # the lock goes with the transaction
        holder.close()
    waiting.join(10)
    assert not waiting.is_alive() and saved and saved[0] is not None
    assert store.load_game(game).data == {"n": 1}


def test_a_hung_server_is_given_up_on(pg: Backend) -> None:
    """Found by an outside audit: a database whose process hangs while its machine still
    acknowledges every packet (here a proxy in front of it, stopped with SIGSTOP) defeats
    keepalives and tcp_user_timeout, and a move waited for it for minutes. The driver's wait
    is bounded (`AnsweringConnection`): one line, and the store works again once it answers."""
    import os
    import signal
    from urllib.parse import urlsplit

    target = urlsplit(pg.url)
    proxy = subprocess.Popen(
        [
            sys.executable,
            "-c",
            PROXY,
            "-",
            target.hostname or "127.0.0.1",
            str(target.port or 5432),
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert proxy.stdout is not None
        port = int(proxy.stdout.readline())
        user = target.netloc.rpartition("@")[0]
        netloc = f"{user}@127.0.0.1:{port}" if user else f"127.0.0.1:{port}"
        url = target._replace(netloc=netloc).geturl()
        store = PostgresStore(url, statement_timeout=1.0, connect_timeout=2.0)
        pg.opened.append(store)
        assert store.game_version("a" * 12) is None
        os.kill(proxy.pid, signal.SIGSTOP)
        for _ in range(2):  # the hung connection, then a new one that is never answered
            started = time.monotonic()
            with pytest.raises(StoreError) as info:
                store.game_version("a" * 12)
            assert time.monotonic() - started < 4.5
            assert "\n" not in str(info.value)
        # Known to be down: one call finds out whether it is back, the others answer at once.
        refused: list[bool] = []

        def find_out() -> None:
            try:
                store.game_version("a" * 12)
            except StoreError:
                refused.append(True)

        probe = threading.Thread(target=find_out)
        probe.start()
        time.sleep(0.3)
        assert probe.is_alive()  # waiting for a server that does not answer
        for call in (lambda: store.game_version("b" * 12), lambda: store.set_setting("k", "v")):
            started = time.monotonic()
            with pytest.raises(StoreError):
                call()
            assert time.monotonic() - started < 0.5
        probe.join(10)
        assert refused == [True]
        os.kill(proxy.pid, signal.SIGCONT)
        deadline = time.monotonic() + 10
        while True:
            try:
                assert store.game_version("a" * 12) is None
                break
            except StoreError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
    finally:
        os.kill(proxy.pid, signal.SIGCONT)
        proxy.kill()
        proxy.wait(timeout=10)


def test_the_call_finding_out_may_call_the_store_again(pg: Backend) -> None:
    """While the database is known to be down, the one call finding out whether it is back
    (`SqlStore._turn`) is not refused by its own turn when it calls the store again; another
    thread's call is."""
    store = pg.open()
    assert isinstance(store, PostgresStore) and not store.serialized
    store._down_since = time.monotonic()  # as a failed call leaves it
    refused: list[BaseException] = []

    def other() -> None:
        try:
            store.game_version("d" * 12)
        except StoreError as exc:
            refused.append(exc)

    with store._turn():
        thread = threading.Thread(target=other)
        thread.start()
        thread.join(10)
        assert len(refused) == 1  # another thread's call, refused at once
        assert store.game_version("c" * 12) is None  # this thread's own, nested: it goes on
    assert store._down_since is None  # (the nested call found the database back)
