"""Capacity of ``cribbage serve``: many clients on loopback playing whole games at once.

Each simulated client creates a game over HTTP, joins it on the WebSocket and plays it to the
end against a fast computer level through the real protocol (docs/web.md), as a browser would:
answer, wait for the reply, answer again. Reported per concurrency level:

- the 50th/99th percentile from sending an action to receiving the server's reply, with the
  computer's thinking (the reply's ``think_ms``, measured in the worker) taken out, and the
  thinking itself separately;
- the server process's memory (resident set) above its idle size, per game in play.

Each client thinks before every decision, as a person does (``--think`` seconds on average,
uniformly 0.5x to 1.5x; not counted); ``--think 0`` is the closed loop, every client answering
at once, which measures saturation rather than a table of players.

The goal (issue 18) is p99 < 100 ms and < 1 MB per game at 200 concurrent games on 2 cores. The
clients run in this process on the same machine, so they compete with the server for the CPU:
the figures are an upper bound on what the server alone would show (the clients' garbage
collector is off, so its pauses are not counted as the server's).

Then tables of two people (issue 19): both seats are simulated clients, each table created over
HTTP by one and taken by the other, both on the WebSocket, playing ``--table-decisions``
decisions each (a person's thinking before each); reported: action to the actor's reply and
action to the other seat seeing it. First on one process (SQLite), then on two processes
sharing PostgreSQL with Redis pub/sub between them, the two seats of each table connected to
different processes. Goal: 200 concurrent tables with p99 action-to-reply under 100 ms.

    python bench/bench_web.py [--games 50,200] [--think 1,0] [--level greedy] [--tables 200]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from web_helpers import choose  # the tests' simple legal policy


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def rss_kib(pid: int) -> int:
    """Resident memory of a process, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def start_server(
    db: Path, port: int, workers: int, *extra: str, url: str | None = None
) -> subprocess.Popen[bytes]:
    env = {**os.environ, "FIFTEENTWO_DATA_DIR": str(db.parent)}
    cmd = [
        sys.executable, "-m", "fifteentwo", "serve", "--port", str(port), "--db", url or str(db),
        "--workers", str(workers), *extra,
    ]  # fmt: skip
    log = (db.parent / f"{db.stem}-{port}.log").open("wb")  # a file: a full pipe would block it
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/options", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("error: the server did not start")


class Stats:
    """Latencies and thinking times of every action, and the server's peak memory."""

    def __init__(self) -> None:
        self.latency_ms: list[float] = []
        self.think_ms: list[float] = []
        self.games = 0
        self.joined = 0
        self.errors = 0
        self.peak_kib = 0


async def play_one(
    base: str, ws_url: str, args: argparse.Namespace, stats: Stats, *, gate: Any, think: float
) -> None:
    """One client: create, join, play to the end."""
    async with httpx.AsyncClient(base_url=base, headers={"origin": base}, timeout=60) as http:
        made = (
            await http.post(
                "/api/games",
                json={"variant": args.variant, "level": args.level, "player": "bench-player-0"},
            )
        ).json()
    async with connect(ws_url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "game": made["game"], "token": made["token"]}))
        state = json.loads(await ws.recv())
        stats.joined += 1
        await gate.wait()  # every client holds its game before any plays: real concurrency
        while not state["over"]:
            if think:
                await asyncio.sleep(random.uniform(0.5, 1.5) * think)
            message = {"type": "act", "decision": state["decision"], "action": choose(state)}
            sent = time.perf_counter()
            await ws.send(json.dumps(message))
            reply = json.loads(await ws.recv())
            elapsed = (time.perf_counter() - sent) * 1000
            if reply.get("type") != "state":
                stats.errors += 1
                break
            stats.latency_ms.append(max(0.0, elapsed - reply["think_ms"]))
            stats.think_ms.append(reply["think_ms"])
            state = reply
    stats.games += 1


async def sample_memory(pid: int, stats: Stats, stop: asyncio.Event) -> None:
    while not stop.is_set():
        stats.peak_kib = max(stats.peak_kib, rss_kib(pid))
        await asyncio.sleep(0.05)


async def run_level(port: int, pid: int, n: int, args: argparse.Namespace, think: float) -> Stats:
    base, ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws"
    stats, gate, stop = Stats(), asyncio.Event(), asyncio.Event()
    sampler = asyncio.create_task(sample_memory(pid, stats, stop))
    clients = [
        asyncio.create_task(play_one(base, ws_url, args, stats, gate=gate, think=think))
        for _ in range(n)
    ]
    while stats.joined + sum(1 for c in clients if c.done()) < n:
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)
    stats.peak_kib = max(stats.peak_kib, rss_kib(pid))  # every game created and joined
    gate.set()
    results = await asyncio.gather(*clients, return_exceptions=True)
    stop.set()
    await sampler
    stats.errors += sum(1 for r in results if isinstance(r, BaseException))
    return stats


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="50,200", help="concurrency levels (50,200)")
    parser.add_argument(
        "--think", default="1,0", help="clients' mean thinking seconds per decision (1,0)"
    )
    parser.add_argument("--level", default="greedy", help="the computer's level (greedy: fast)")
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--workers", type=int, default=4, help="the server's worker threads")
    parser.add_argument(
        "--tables", default="200", help="concurrent two-person tables (200; 0: none)"
    )
    parser.add_argument(
        "--table-think", type=float, default=1.0, help="people's mean thinking seconds (1)"
    )
    parser.add_argument(
        "--table-decisions", type=int, default=40, help="decisions played at each table (40)"
    )
    parser.add_argument(
        "--postgres",
        default=os.environ.get(
            "FIFTEENTWO_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test"
        ),
        help="the PostgreSQL server the two processes share (a fresh schema, dropped after)",
    )
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0", help="the Redis server")
    parser.add_argument(
        "--table-setups", default="1,2", help="server processes for the tables (1: SQLite, 2: PG)"
    )
    args = parser.parse_args()
    # The clients are the measuring instrument: their own collector's pauses (100 ms and more
    # with hundreds of connections' states) are not the server's latency.
    gc.collect()
    gc.freeze()
    gc.disable()
    levels = [
        (int(n), float(t))
        for t in args.think.split(",")
        for n in args.games.split(",")
        if int(n) > 0
    ]
    print(f"bench_web: {args.variant} games against {args.level}, loopback, "
          f"clients in this process; {os.cpu_count()} CPUs (shared with the clients)")  # fmt: skip
    columns = ("games", "think s", "actions", "p50 ms", "p99 ms", "max ms", "think p50",
               "think p99", "MB/game", "errors", "wall s")  # fmt: skip
    print(" ".join(f"{c:>9}" for c in columns))
    with tempfile.TemporaryDirectory() as tmp:
        for n, think in levels:
            db, port = Path(tmp) / f"bench{n}.sqlite3", free_port()
            proc = start_server(db, port, args.workers)
            try:
                time.sleep(0.5)
                idle = rss_kib(proc.pid)
                started = time.perf_counter()
                stats = asyncio.run(run_level(port, proc.pid, n, args, think))
                wall = time.perf_counter() - started
            finally:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
            per_game = (stats.peak_kib - idle) / 1024 / n
            warnings = (Path(tmp) / f"bench{n}-{port}.log").read_text(errors="replace")
            warnings = warnings.splitlines()
            if warnings:
                print(f"server said ({len(warnings)} lines): {warnings[-1][:200]}")
            lat, thought = stats.latency_ms, stats.think_ms
            row = (n, think, len(lat), statistics.median(lat), pct(lat, 0.99), max(lat))
            row += (statistics.median(thought), pct(thought, 0.99), per_game, stats.errors, wall)
            print(" ".join(f"{v:>9}" if isinstance(v, int) else f"{v:>9.2f}" for v in row))
    if levels:
        print("goal: p99 < 100 ms and < 1 MB per game at 200 concurrent games (2 cores)")
    for n in (int(x) for x in args.tables.split(",") if int(x) > 0):
        bench_tables(n, args)
    return 0


# --- tables of two people -------------------------------------------------------------------------


class TableSeat:
    """One person's connection: the newest state it was sent, and an event when it changes."""

    def __init__(self, ws: Any, state: dict[str, Any]) -> None:
        self.ws, self.state = ws, state
        self.changed = asyncio.Event()

    async def read(self) -> None:
        async for raw in self.ws:
            message = json.loads(raw)
            if message.get("type") == "error":
                self.state = dict(self.state, error=message)  # what the wait then reports
                self.changed.set()
            if message.get("type") == "state" and message["decision"] >= self.state["decision"]:
                self.state = message
                self.changed.set()

    async def past(self, decision: int) -> None:
        while not (self.state["over"] or self.state["decision"] > decision):
            if "error" in self.state:
                raise RuntimeError(f"the server said {self.state['error']}")
            self.changed.clear()
            await self.changed.wait()


class TableStats:
    def __init__(self) -> None:
        self.reply_ms: list[float] = []
        self.other_ms: list[float] = []
        self.joined = 0
        self.errors = 0


async def play_table(
    bases: tuple[str, str], args: argparse.Namespace, stats: TableStats, gate: asyncio.Event
) -> None:
    """Ann creates a table on the first process, Bob sits on the second; both play."""
    async with (
        httpx.AsyncClient(base_url=bases[0], headers={"origin": bases[0]}, timeout=60) as ann,
        httpx.AsyncClient(base_url=bases[1], headers={"origin": bases[1]}, timeout=60) as bob,
    ):
        made = (
            await ann.post(
                "/api/tables",
                json={"variant": "standard", "seats": [{"kind": "person"}] * 2, "name": "Ann"},
            )
        ).json()
        took = (await bob.post(f"/api/tables/{made['table']}/sit", json={"name": "Bob"})).json()
    seats: list[TableSeat] = []
    readers = []
    for base, token in ((bases[0], made["token"]), (bases[1], took["token"])):
        ws = await connect(base.replace("http", "ws", 1) + "/ws", max_size=2**22)
        await ws.send(json.dumps({"type": "join", "table": made["table"], "token": token}))
        seat = TableSeat(ws, json.loads(await ws.recv()))
        seats.append(seat)
        readers.append(asyncio.create_task(seat.read()))
    stats.joined += 1
    await gate.wait()
    try:
        for _ in range(args.table_decisions):
            waiting = [s for s in seats if s.state["waiting"] and not s.state["over"]]
            if not waiting:
                break
            actor = waiting[0]
            other = seats[1 - seats.index(actor)]
            state = actor.state
            await asyncio.sleep(random.uniform(0.5, 1.5) * args.table_think)
            sent = time.perf_counter()
            message = {"type": "act", "decision": state["decision"], "action": choose(state)}
            await actor.ws.send(json.dumps(message))
            for seat, times in ((actor, stats.reply_ms), (other, stats.other_ms)):
                try:
                    await asyncio.wait_for(seat.past(state["decision"]), 30)
                except TimeoutError:
                    who = "actor" if seat is actor else "other seat"
                    raise TimeoutError(
                        f"table {made['table']}: the {who} saw no reply to decision "
                        f"{state['decision']} in 30 s (it has {seat.state['decision']})"
                    ) from None
                times.append((time.perf_counter() - sent) * 1000)
    finally:
        for seat, reader in zip(seats, readers, strict=True):
            reader.cancel()
            await seat.ws.close()


async def run_tables(bases: tuple[str, str], n: int, args: argparse.Namespace) -> TableStats:
    stats, gate = TableStats(), asyncio.Event()
    tasks = [asyncio.create_task(play_table(bases, args, stats, gate)) for _ in range(n)]
    while stats.joined + sum(1 for t in tasks if t.done()) < n:
        await asyncio.sleep(0.1)
    gate.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    stats.errors += len(failures)
    if failures:
        print(f"(first error: {failures[0]!r:.200})")
    return stats


def bench_tables(n: int, args: argparse.Namespace) -> None:
    """``n`` tables on one process (SQLite), then on two (PostgreSQL and Redis)."""
    print(
        f"tables: {n} tables of two people, {args.table_decisions} decisions each, "
        f"thinking {args.table_think} s on average"
    )
    columns = ("setup", "tables", "actions", "p50 ms", "p99 ms", "max ms", "other p50",
               "other p99", "errors", "wall s")  # fmt: skip
    print(" ".join(f"{c:>9}" for c in columns))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "tables.sqlite3"
        wanted = args.table_setups.split(",")
        setups: list[tuple[str, list[str], str | None]] = []
        if "1" in wanted:
            setups.append(("1 proc", [], None))
        schema = "bench_" + os.urandom(6).hex()
        pg = f"{args.postgres}{'&' if '?' in args.postgres else '?'}schema={schema}"
        if "2" in wanted:
            setups.append(("2 procs", ["--redis", args.redis], pg))
        for label, extra, url in setups:
            ports = [free_port()] if url is None else [free_port(), free_port()]
            procs = [start_server(db, p, args.workers, *extra, url=url) for p in ports]
            try:
                bases = [f"http://127.0.0.1:{p}" for p in ports]
                pair = (bases[0], bases[-1])
                started = time.perf_counter()
                stats = asyncio.run(run_tables(pair, n, args))
                wall = time.perf_counter() - started
            finally:
                for proc in procs:
                    proc.send_signal(signal.SIGTERM)
                    try:
                        proc.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        proc.kill()
            for port in ports:
                said = (Path(tmp) / f"{db.stem}-{port}.log").read_text(errors="replace")
                lines = [
                    line
                    for line in said.splitlines()
                    if "Traceback" in line or "ERROR" in line or "WARNING" in line
                ]
                if lines:
                    print(f"server on {port} said ({len(lines)} warnings): {lines[-1][:200]}")
            lat, other = stats.reply_ms, stats.other_ms
            if not lat:
                print(f"{label:>9} no action was answered ({stats.errors} errors)")
                continue
            row: tuple[Any, ...] = (label, n, len(lat), statistics.median(lat), pct(lat, 0.99))
            row += (max(lat), statistics.median(other), pct(other, 0.99), stats.errors, wall)
            print(" ".join(f"{v:>9}" if isinstance(v, (int, str)) else f"{v:>9.2f}" for v in row))
        if "2" in wanted:
            _drop_schema(args.postgres, schema)
    print("goal: 200 concurrent tables, p99 action-to-reply < 100 ms (2 cores)")


def _drop_schema(url: str, schema: str) -> None:
    try:
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE".encode())
    except Exception as exc:
        print(f"(could not drop the schema {schema}: {exc})")


if __name__ == "__main__":
    raise SystemExit(main())
