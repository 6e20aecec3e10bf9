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
the figures are an upper bound on what the server alone would show.

    python bench/bench_web.py [--games 50,200] [--think 1,0] [--level greedy]
"""

from __future__ import annotations

import argparse
import asyncio
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


def start_server(db: Path, port: int, workers: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "FIFTEENTWO_DATA_DIR": str(db.parent)}
    cmd = [
        sys.executable, "-m", "fifteentwo", "serve", "--port", str(port), "--db", str(db),
        "--workers", str(workers),
    ]  # fmt: skip
    log = (db.parent / f"{db.stem}.log").open("wb")  # a file: a full pipe would block it
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
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
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
    args = parser.parse_args()
    levels = [(int(n), float(t)) for t in args.think.split(",") for n in args.games.split(",")]
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
            warnings = (Path(tmp) / f"bench{n}.log").read_text(errors="replace").splitlines()
            if warnings:
                print(f"server said ({len(warnings)} lines): {warnings[-1][:200]}")
            lat, thought = stats.latency_ms, stats.think_ms
            row = (n, think, len(lat), statistics.median(lat), pct(lat, 0.99), max(lat))
            row += (statistics.median(thought), pct(thought, 0.99), per_game, stats.errors, wall)
            print(" ".join(f"{v:>9}" if isinstance(v, int) else f"{v:>9.2f}" for v in row))
    print("goal: p99 < 100 ms and < 1 MB per game at 200 concurrent games (2 cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
