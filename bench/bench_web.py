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
collector is off, so its pauses are not counted as the server's; they run on uvloop and read
the server's messages with orjson, as the server does, so the instrument takes as little of
the cores as it can: ``--client-loop asyncio`` runs them as before 2026-11-29).

Then tables of two people (issue 19): both seats are simulated clients, each table created over
HTTP by one and taken by the other, both on the WebSocket, playing ``--table-decisions``
decisions each (a person's thinking before each); reported: action to the actor's reply and
action to the other seat seeing it. First on one process (SQLite), then on two processes
sharing PostgreSQL with Redis pub/sub between them, the two seats of each table connected to
different processes. Goal: 200 concurrent tables with p99 action-to-reply under 100 ms.

Issue 32 adds, per level, the server's CPU time per action (its user+system time from /proc
while the games are played, divided by the actions answered; the computer's moves included)
and the same over the first and the last third of the actions (a move late in a game should
cost what an early one does); and ``--cluster-games``: that many games against the computer on
two processes sharing PostgreSQL and Redis (each client plays on the process that made its
game). ``--duration`` bounds each level: clients stop at the deadline, games unfinished.

The thirds of a timed run mix places in a game with the moves that end games (a game's end
stores its finished row, about three times an ordinary move) and the first full saves, which
games started together reach in the same seconds. ``--by-move`` measures a move early in a game
against one late in it directly: the clients play in rounds (each makes its k-th decision,
after its thinking, and round k + 1 starts once every game still going was answered), so the
server's CPU between two rounds' ends belongs to the k-th decisions alone; it prints the CPU
per action by band of rounds, with the games that ended in each band.
All clients start together (their games are held first, then a gate opens), so their games'
ends and full saves come in the same seconds; ``--stagger S`` has each client wait a random
0 to S seconds before its first decision, and ``--again`` has it start a new game when its game
ends, until the deadline: with both, the games in play stay at the level's number and their
phases spread out, as with players who sat down at different times.
Targets: 1,000 games on one process and 2,000 on two, p99 < 100 ms, < 0.5 MB per game,
< 0.4 ms of server CPU per action. The machine's load average is printed with the figures.

    python bench/bench_web.py [--games 50,200] [--think 1,0] [--level greedy] [--tables 200]
    python bench/bench_web.py --games 1000 --think 1 --duration 60 --tables 0 --cluster-games 2000
    python bench/bench_web.py --games 1000 --think 1 --tables 0 --by-move
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
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import httpx2
import orjson
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_players import reference_rate as reference_run  # the benchmarks' yardstick
from web_helpers import choose  # the tests' simple legal policy

_T = TypeVar("_T")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far (the servers), from /proc."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


NEIGHBOURS = {"postgres": "PostgreSQL", "redis-server": "Redis"}
"""Processes of this machine whose CPU a level also reports (by their name in /proc)."""


Snapshot = dict[tuple[str, int], float]
"""CPU seconds so far by (who, pid): the clients (this process) and each local PostgreSQL or
Redis process."""


def neighbours_cpu() -> Snapshot:
    """CPU seconds so far of the clients (this process) and of each local PostgreSQL and Redis
    process, from /proc (a database on another machine counts nothing here)."""
    used: Snapshot = {("clients", os.getpid()): sum(os.times()[:2])}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name = NEIGHBOURS.get((entry / "comm").read_text().strip())
            if name is not None:
                used[name, int(entry.name)] = cpu_seconds([int(entry.name)])
        except OSError:
            continue  # (gone meanwhile)
    return used


def cpu_between(before: Snapshot, after: Snapshot) -> dict[str, float]:
    """CPU seconds each of the clients, PostgreSQL and Redis used between two snapshots, process
    by process: a process that started since counts from zero, one that ended since counts
    nothing (its last moments are unseen), so a backend's exit never makes the sum go back."""
    used = {"clients": 0.0} | dict.fromkeys(NEIGHBOURS.values(), 0.0)
    for (name, pid), seconds in after.items():
        used[name] += max(0.0, seconds - before.get((name, pid), 0.0))
    return used


def raise_file_limit() -> None:
    """A thousand sockets on each side: the soft limit on open files up to the hard one."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f} (1/5 min) on {os.cpu_count()} CPUs"


REFERENCE_RATE: list[float] = []
"""The reference loop's games per second on one core of this machine, measured before the
levels (`reference_rate`)."""


def reference_rate(rounds: int = 5, games: int = 60) -> float:
    """Games per second of `reference.reference_game` (bench/reference.py) in this process:
    the best of ``rounds`` runs of ``games`` (`bench_players.reference_rate`), so a moment of
    load does not lower it.

    The machines these figures come from differ in speed by up to 1.7 times for the same
    code (0.42 and 0.70 ms of CPU per action, docs/web.md): the server's CPU per action in
    reference games (its milliseconds times this rate) compares runs on different machines."""
    return max(reference_run(games, seed=1000 * r) for r in range(rounds))


def rss_kib(pid: int) -> int:
    """Resident memory of a process, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


SERVER_OPTIONS: list[str] = []
"""Options every server process is started with (``--ws-compression``, ``--gc-every``)."""
SERVER_PYTHON: list[str] = [sys.executable]
"""The interpreter that runs the servers (``--server-python``: the compiled engine's)."""


def start_server(
    db: Path, port: int, workers: int, *extra: str, url: str | None = None
) -> subprocess.Popen[bytes]:
    env = {**os.environ, "FIFTEENTWO_DATA_DIR": str(db.parent)}
    cmd = [
        *SERVER_PYTHON, "-m", "fifteentwo", "serve", "--port", str(port), "--db", url or str(db),
        "--workers", str(workers), *SERVER_OPTIONS, *extra,
    ]  # fmt: skip
    log = (db.parent / f"{db.stem}-{port}.log").open("wb")  # a file: a full pipe would block it
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/api/options", timeout=1).status_code == 200:
                return proc
        except httpx2.HTTPError:
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
        self.deadline = float("inf")
        self.cpu: list[tuple[int, float]] = []
        """(actions answered so far, server CPU seconds) sampled while the games are played."""
        self.rounds: Rounds | None = None
        """``--by-move``: the clients' rounds."""
        self.neighbours: dict[str, float] = {}
        """CPU seconds of the clients, PostgreSQL and Redis while the games were played."""
        self.played_s = 0.0
        """Seconds from the first move's go to the last client's end."""


class Rounds:
    """``--by-move``: every client makes its k-th decision in round k; the round ends when
    each game still going was answered, and the server's CPU is read then."""

    def __init__(self, clients: int, pids: list[int]) -> None:
        self.live, self.pids = clients, pids
        self.number, self.pending = 1, clients
        self.next = asyncio.Event()
        self.ends: list[tuple[int, float, int]] = []
        """Per round: (actions answered in it, server CPU seconds at its end, games ended)."""
        self.answered = self.ended = 0

    def start(self) -> None:
        self.ends.append((0, cpu_seconds(self.pids), 0))

    async def wait(self, number: int) -> None:
        while self.number < number:
            await self.next.wait()

    def done(self, *, answered: bool, over: bool) -> None:
        """A client finished this round: it was answered (``over``: its game ended), or it
        stopped (an error or the deadline) and plays no more rounds."""
        self.answered += answered
        if over or not answered:
            self.live -= 1
            self.ended += over
        self.pending -= 1
        if self.pending == 0:
            cpu = cpu_seconds(self.pids)
            self.ends.append((self.answered, cpu, self.ended))
            self.answered = self.ended = 0
            self.number += 1
            self.pending = self.live
            self.next.set()
            self.next = asyncio.Event()


HTTP: dict[str, httpx2.AsyncClient] = {}
"""The clients' HTTP pools, by server (made in the level's event loop, closed after it)."""


async def play_one(
    base: str, ws_url: str, args: argparse.Namespace, stats: Stats, *, gate: Any, think: float
) -> None:
    """One client: create, join, play to the end (with ``--again``, a new game after each
    until the deadline)."""
    http = HTTP.get(base)
    if http is None:  # one pool per server: a client each costs an SSL context and 0.5 MB
        http = HTTP[base] = httpx2.AsyncClient(
            base_url=base,
            headers={"origin": base},
            timeout=120,
            limits=httpx2.Limits(max_connections=20),
        )
    await play_game(http, ws_url, args, stats, gate=gate, think=think)
    again = args.again and not args.by_move  # (rounds count one game per client)
    while again and time.perf_counter() < stats.deadline:
        await play_game(http, ws_url, args, stats, gate=None, think=think)


async def play_game(
    http: httpx2.AsyncClient,
    ws_url: str,
    args: argparse.Namespace,
    stats: Stats,
    *,
    gate: Any,
    think: float,
) -> None:
    """One game of a client; the first waits at ``gate`` until every client holds its own."""
    made = (
        await http.post(
            "/api/games",
            json={"variant": args.variant, "level": args.level, "player": "bench-player-0"},
        )
    ).json()
    async with connect(ws_url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "game": made["game"], "token": made["token"]}))
        state = orjson.loads(await ws.recv(decode=False))
        if gate is not None:
            stats.joined += 1
            await gate.wait()  # every client holds its game before any plays: real concurrency
            if args.stagger and stats.rounds is None:  # players who sat down over some seconds
                await asyncio.sleep(random.uniform(0, args.stagger))
        rounds, number = stats.rounds, 0
        try:
            while not state["over"] and time.perf_counter() < stats.deadline:
                number += 1
                if rounds is not None:
                    await rounds.wait(number)
                if think:
                    await asyncio.sleep(random.uniform(0.5, 1.5) * think)
                message = {"type": "act", "decision": state["decision"], "action": choose(state)}
                sent = time.perf_counter()
                await ws.send(orjson.dumps(message).decode())
                reply = orjson.loads(await ws.recv(decode=False))
                elapsed = (time.perf_counter() - sent) * 1000
                if reply.get("type") != "state":
                    stats.errors += 1
                    break
                stats.latency_ms.append(max(0.0, elapsed - reply["think_ms"]))
                stats.think_ms.append(reply["think_ms"])
                state = reply
                if rounds is not None:
                    rounds.done(answered=True, over=bool(state["over"]))
        finally:
            if rounds is not None and not state["over"]:  # stopped: it plays no more rounds
                rounds.done(answered=False, over=False)
    stats.games += 1


async def sample_memory(pids: list[int], stats: Stats, stop: asyncio.Event) -> None:
    while not stop.is_set():
        stats.peak_kib = max(stats.peak_kib, sum(rss_kib(pid) for pid in pids))
        await asyncio.sleep(0.05)


async def sample_cpu(pids: list[int], stats: Stats, stop: asyncio.Event) -> None:
    while not stop.is_set():
        stats.cpu.append((len(stats.latency_ms), cpu_seconds(pids)))
        await asyncio.sleep(0.5)
    stats.cpu.append((len(stats.latency_ms), cpu_seconds(pids)))


def cpu_per_action(stats: Stats, part: slice = slice(None)) -> float:
    """Server CPU ms per action over the samples in ``part`` (all, or a third of the run)."""
    samples = stats.cpu[part]
    if len(samples) < 2 or samples[-1][0] == samples[0][0]:
        return float("nan")
    return (samples[-1][1] - samples[0][1]) * 1000 / (samples[-1][0] - samples[0][0])


def thirds(stats: Stats) -> tuple[slice, slice]:
    """The samples of the first and the last third of the actions answered."""
    total = stats.cpu[-1][0] if stats.cpu else 0
    first = [i for i, (n, _) in enumerate(stats.cpu) if n <= total / 3]
    last = [i for i, (n, _) in enumerate(stats.cpu) if n >= 2 * total / 3]
    return slice(0, (first[-1] + 1) if first else 0), slice(last[0] if last else 0, None)


async def run_level(
    ports: list[int], pids: list[int], n: int, args: argparse.Namespace, think: float
) -> Stats:
    stats, gate, stop = Stats(), asyncio.Event(), asyncio.Event()
    sampler = asyncio.create_task(sample_memory(pids, stats, stop))
    clients = []
    for i in range(n):  # client i plays on process i mod len(ports), where it made its game
        base = f"http://127.0.0.1:{ports[i % len(ports)]}"
        ws_url = base.replace("http", "ws", 1) + "/ws"
        play = play_one(base, ws_url, args, stats, gate=gate, think=think)
        clients.append(asyncio.create_task(play))
        if i % 50 == 49:
            await asyncio.sleep(0.05)  # a ramp, not a thousand connects in one instant
    while stats.joined + sum(1 for c in clients if c.done()) < n:
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)
    stats.peak_kib = max(stats.peak_kib, sum(rss_kib(pid) for pid in pids))  # all joined
    stats.deadline = time.perf_counter() + args.duration
    if args.by_move:
        stats.rounds = Rounds(stats.joined, pids)
        stats.rounds.start()
    before, began = neighbours_cpu(), time.perf_counter()
    gate.set()
    cpu = asyncio.create_task(sample_cpu(pids, stats, stop))
    results = await asyncio.gather(*clients, return_exceptions=True)
    stats.neighbours = cpu_between(before, neighbours_cpu())
    stats.played_s = time.perf_counter() - began
    stop.set()
    await sampler
    await cpu
    for pool in HTTP.values():
        await pool.aclose()
    HTTP.clear()
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
        "--duration",
        type=float,
        default=600.0,
        help="seconds each level's games are played at most (600)",
    )
    parser.add_argument(
        "--cluster-games",
        default="0",
        help="games against the computer on two processes on PostgreSQL+Redis (0: none)",
    )
    parser.add_argument(
        "--table-setups", default="1,2", help="server processes for the tables (1: SQLite, 2: PG)"
    )
    parser.add_argument(
        "--ws-compression",
        action="store_true",
        help="start the servers with --ws-compression (permessage-deflate; off by default)",
    )
    parser.add_argument(
        "--gc-every",
        type=float,
        help="start the servers with --gc-every SECONDS (0: Python's own collector, as before "
        "2026-11-29; default: the server's)",
    )
    parser.add_argument(
        "--again",
        action="store_true",
        help="each client starts a new game when its game ends, until the deadline (the games "
        "in play stay at the level's number; off: one game each)",
    )
    parser.add_argument(
        "--stagger",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="each client waits a random 0 to SECONDS after all have joined before its first "
        "decision, so the games' ends and full saves do not all come in the same seconds, as "
        "with players who sat down at different times (0: all start together)",
    )
    parser.add_argument(
        "--by-move",
        action="store_true",
        help="play in rounds (every client's k-th decision in round k) and print the server's "
        "CPU per action by the decision's place in its game",
    )
    parser.add_argument(
        "--server-python",
        help="the Python that runs the servers (default: this one; .venv-compiled/bin/python "
        "for the engine compiled with mypyc, made by make compiled)",
    )
    parser.add_argument(
        "--client-loop",
        choices=("uvloop", "asyncio"),
        default="uvloop",
        help="the clients' event loop (uvloop: a cheaper instrument on the servers' cores)",
    )
    args = parser.parse_args()
    if args.ws_compression:
        SERVER_OPTIONS.append("--ws-compression")
    if args.gc_every is not None:
        SERVER_OPTIONS.extend(["--gc-every", str(args.gc_every)])
    if args.server_python:
        if not Path(args.server_python).is_file():
            raise SystemExit(f"error: no Python at {args.server_python} (make compiled makes one)")
        SERVER_PYTHON[:] = [args.server_python]
    raise_file_limit()
    # The clients are the measuring instrument: their own collector's pauses (100 ms and more
    # with hundreds of connections' states) are not the server's latency.
    gc.collect()
    gc.freeze()
    gc.disable()
    levels = [
        (int(n), float(t), 1)
        for t in args.think.split(",")
        for n in args.games.split(",")
        if int(n) > 0
    ]
    levels += [(int(n), float(args.think.split(",")[0]), 2) for n in args.cluster_games.split(",")]
    levels = [level for level in levels if level[0] > 0]
    engine = " (server: " + SERVER_PYTHON[0] + ")" if args.server_python else ""
    print(f"bench_web: {args.variant} games against {args.level}, loopback, "
          f"clients in this process on {args.client_loop}{engine}; {load()}")  # fmt: skip
    REFERENCE_RATE.append(reference_rate())
    print(f"the machine: the reference loop (bench/reference.py) makes {REFERENCE_RATE[0]:.0f} "
          "games/s on one core")  # fmt: skip
    columns = ("procs", "games", "think s", "actions", "p50 ms", "p99 ms", "max ms", "think p50",
               "think p99", "MB/game", "CPU ms/a", "early", "late", "errors", "wall s")  # fmt: skip
    print(" ".join(f"{c:>9}" for c in columns))
    for n, think, procs in levels:
        bench_games(n, think, procs, args)
    if levels:
        print("targets: 1,000 games on one process, 2,000 on two: p99 < 100 ms, < 0.5 MB per "
              "game, < 0.4 ms server CPU per action")  # fmt: skip
        print(f"after the games: {load()}")
    for n in (int(x) for x in args.tables.split(",") if int(x) > 0):
        bench_tables(n, args)
    return 0


def run_clients(clients: Coroutine[Any, Any, _T], args: argparse.Namespace) -> _T:
    """Run the clients on ``--client-loop``: uvloop (as the server runs) by default. The
    clients share the cores with the servers, so a cheaper instrument leaves the servers more
    of them; ``asyncio`` measures as the runs before 2026-11-29 did."""
    if args.client_loop == "uvloop":
        import uvloop

        return uvloop.run(clients)
    return asyncio.run(clients)


def bench_games(n: int, think: float, procs: int, args: argparse.Namespace) -> None:
    """``n`` games against the computer on ``procs`` processes (2: PostgreSQL and Redis)."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / f"bench{n}.sqlite3"
        schema = "bench_" + os.urandom(6).hex()
        url, extra = None, []
        if procs > 1:
            url = f"{args.postgres}{'&' if '?' in args.postgres else '?'}schema={schema}"
            extra = ["--redis", args.redis]
        ports = [free_port() for _ in range(procs)]
        servers = [start_server(db, p, args.workers, *extra, url=url) for p in ports]
        try:
            time.sleep(0.5)
            pids = [s.pid for s in servers]
            idle = sum(rss_kib(pid) for pid in pids)
            started = time.perf_counter()
            stats = run_clients(run_level(ports, pids, n, args, think), args)
            wall = time.perf_counter() - started
        finally:
            for proc in servers:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
            if url is not None:
                _drop_schema(args.postgres, schema)
        per_game = (stats.peak_kib - idle) / 1024 / n
        for port in ports:
            said = (Path(tmp) / f"{db.stem}-{port}.log").read_text(errors="replace")
            lines = [
                line for line in said.splitlines() if '"kind":"server"' in line or "Trace" in line
            ]
            if lines:
                print(f"server said ({len(lines)} lines): {lines[-1][:200]}")
        lat, thought = stats.latency_ms, stats.think_ms
        if not lat:
            print(f"{procs:>9} {n:>9} no action was answered ({stats.errors} errors)")
            return
        early, late = thirds(stats)
        row: tuple[Any, ...] = (procs, n, think, len(lat), statistics.median(lat), pct(lat, 0.99))
        row += (max(lat), statistics.median(thought), pct(thought, 0.99), per_game)
        cpu = cpu_per_action(stats)
        row += (cpu, cpu_per_action(stats, early), cpu_per_action(stats, late))
        row += (stats.errors, wall)
        print(" ".join(f"{v:>9}" if isinstance(v, int) else f"{v:>9.2f}" for v in row), flush=True)
        if REFERENCE_RATE:
            print(
                f"          server CPU per action in reference games: "
                f"{cpu * REFERENCE_RATE[0] / 1000:.3f} (0.4 ms here is "
                f"{0.4 * REFERENCE_RATE[0] / 1000:.3f})",
                flush=True,
            )
        print_neighbours(stats)
        if stats.rounds is not None:
            print_rounds(stats.rounds)


def print_neighbours(stats: Stats) -> None:
    """The rest of the machine's CPU per action while the games were played: what the
    servers share the cores with (on one machine, the clients and the databases too)."""
    actions = len(stats.latency_ms)
    if not actions or not stats.neighbours or not stats.played_s:
        return
    servers = stats.cpu[-1][1] - stats.cpu[0][1] if len(stats.cpu) > 1 else 0.0
    parts = [f"{name} {used * 1000 / actions:.2f}" for name, used in stats.neighbours.items()]
    busy = servers + sum(stats.neighbours.values())
    print(
        f"          CPU ms per action besides the servers: {', '.join(parts)}; the machine's "
        f"cores busy with all of it: {busy / stats.played_s:.2f} of {os.cpu_count()}",
        flush=True,
    )


def round_bands(ends: list[tuple[int, float, int]], width: int = 5) -> list[tuple[Any, ...]]:
    """``Rounds.ends`` in bands of ``width`` rounds: (first round, last round, actions, server
    CPU ms per action, games ended in the band)."""
    bands = []
    for first in range(1, len(ends), width):
        part = ends[first : first + width]
        actions = sum(a for a, _, _ in part)
        if not actions:
            continue
        cpu = (part[-1][1] - ends[first - 1][1]) * 1000 / actions
        bands.append((first, first + len(part) - 1, actions, cpu, sum(e for _, _, e in part)))
    return bands


def print_rounds(rounds: Rounds) -> None:
    """The CPU per action by the decision's place in its game (``--by-move``)."""
    print("   rounds   actions  CPU ms/a  games ended")
    bands = round_bands(rounds.ends)
    for first, last, actions, cpu, ended in bands:
        print(f"{first:>4}-{last:<4} {actions:>9} {cpu:>9.3f} {ended:>12}", flush=True)
    ordinary = [band for band in bands if band[4] == 0]  # no game's end (its finished row)
    if len(ordinary) > 1:
        early, late = ordinary[0], ordinary[-1]
        print(f"a move late in its game (rounds {late[0]}-{late[1]}: {late[3]:.3f} ms) against "
              f"an early one (rounds {early[0]}-{early[1]}: {early[3]:.3f} ms), no game ending "
              f"in either: {late[3] / early[3]:.2f}", flush=True)  # fmt: skip


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
        httpx2.AsyncClient(base_url=bases[0], headers={"origin": bases[0]}, timeout=60) as ann,
        httpx2.AsyncClient(base_url=bases[1], headers={"origin": bases[1]}, timeout=60) as bob,
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
        # every simulated person comes from 127.0.0.1: the servers' limit on tables made per
        # client (20 a minute, docs/web.md "Security") would refuse all but the first 20
        unlimited = ["--rate-limit", f"tables={2 * n}/60"]
        for label, extra, url in setups:
            ports = [free_port()] if url is None else [free_port(), free_port()]
            procs = [start_server(db, p, args.workers, *unlimited, *extra, url=url) for p in ports]
            try:
                bases = [f"http://127.0.0.1:{p}" for p in ports]
                pair = (bases[0], bases[-1])
                started = time.perf_counter()
                stats = run_clients(run_tables(pair, n, args), args)
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
