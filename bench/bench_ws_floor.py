"""The WebSocket transport's own cost: server CPU per message of an echo server (issue 32).

``cribbage serve`` answers each action with one message, so the CPU an echo of the same sizes
costs on the same stack (uvicorn, its WebSocket implementation, Starlette's `WebSocket`) is
the floor under the server's CPU per action, whatever the game does. This starts an echo
server per implementation, connects ``--clients`` clients that each send a small message
and wait for a reply of ``--reply`` bytes about once a second (as `bench_web.py`'s players
do), and prints the server process's CPU time (from ``/proc``) per message answered while all
are connected, with the reply's 50th and 99th percentile. Run on an idle machine:

    python bench/bench_ws_floor.py --clients 1000 --duration 20
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Sequence

IMPLEMENTATIONS = ("websockets-sansio", "websockets")
"""uvicorn's ``--ws`` choices measured: the one ``auto`` picks since uvicorn 0.50, and the
legacy one it replaced."""


def serve(impl: str, port: int, reply: int, raw: bool) -> None:
    """The echo server (run in a child process)."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.types import Receive, Scope, Send
    from starlette.websockets import WebSocket, WebSocketDisconnect

    text = "x" * reply

    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        try:
            while True:
                await ws.receive_text()
                await ws.send_text(text)
        except WebSocketDisconnect:
            pass

    async def bare(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        while (await receive())["type"] == "websocket.receive":
            await send({"type": "websocket.send", "text": text})

    app = bare if raw else Starlette(routes=[WebSocketRoute("/ws", endpoint)])
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        ws=impl,  # type: ignore[arg-type]
        log_level="warning",
        ws_per_message_deflate=False,
    )


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def clients(port: int, n: int, duration: float, pid: int) -> tuple[int, float, list[float]]:
    """(messages answered, server CPU seconds, reply times) while all ``n`` are connected."""
    from websockets.asyncio.client import connect

    answered = 0
    measuring = False
    times: list[float] = []
    go = asyncio.Event()
    stop = False
    ready = 0

    async def one() -> None:
        nonlocal answered, ready
        async with connect(f"ws://127.0.0.1:{port}/ws", compression=None, max_size=None) as ws:
            ready += 1
            await go.wait()
            await asyncio.sleep(random.random())
            while not stop:
                t = time.perf_counter()
                await ws.send('{"type":"play","card":"5H","decision":12}')
                await ws.recv()
                if measuring:
                    answered += 1
                    times.append(time.perf_counter() - t)
                await asyncio.sleep(random.uniform(0.5, 1.5))

    tasks = [asyncio.create_task(one()) for _ in range(n)]
    while ready < n:
        await asyncio.sleep(0.1)
    go.set()
    await asyncio.sleep(2)
    before = cpu_seconds(pid)
    measuring = True
    await asyncio.sleep(duration)
    measuring = False
    spent = cpu_seconds(pid) - before
    stop = True
    await asyncio.gather(*tasks)
    return answered, spent, times


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--reply", type=int, default=2000, help="reply bytes (a state message)")
    parser.add_argument(
        "--serve", nargs=3, metavar=("IMPL", "PORT", "MODE"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.serve:
        impl, port, mode = args.serve
        serve(impl, int(port), args.reply, mode == "asgi")
        return 0
    print(f"{args.clients} clients, a {args.reply}-byte reply about once a second each")
    for impl in IMPLEMENTATIONS:
        for mode in ("starlette", "asgi"):
            port = free_port()
            server = subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--reply",
                    str(args.reply),
                    "--serve",
                    impl,
                    str(port),
                    mode,
                ],
                env={**os.environ, "PYTHONWARNINGS": "ignore"},
            )
            try:
                deadline = time.monotonic() + 20
                while True:
                    try:
                        socket.create_connection(("127.0.0.1", port), timeout=1).close()
                        break
                    except OSError:
                        if time.monotonic() > deadline or server.poll() is not None:
                            print(f"error: the {impl} server did not start", file=sys.stderr)
                            return 1
                        time.sleep(0.1)
                answered, spent, times = asyncio.run(
                    clients(port, args.clients, args.duration, server.pid)
                )
            finally:
                server.terminate()
                server.wait()
            times.sort()
            p50 = times[len(times) // 2] * 1000
            p99 = times[int(len(times) * 0.99)] * 1000
            print(
                f"{impl:18s} {mode:9s} {answered:6d} messages  "
                f"{spent * 1000 / answered:.3f} ms of server CPU each  "
                f"p50 {p50:.1f} ms  p99 {p99:.1f} ms"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
