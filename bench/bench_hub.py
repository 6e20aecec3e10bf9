"""The web server's work per move without its sockets: seeded games played through `GameHub`
(the store, the engine, the computer and the state messages; no uvicorn, Starlette or network).

`bench_web.py` measures the whole server, but its CPU per action moves by 20 to 40% from one
run to the next on a shared 2-core machine (the clients share the cores). This benchmark plays
the same games every time (``--seed``), so under Valgrind it gives a figure that moves by about
1% (the threads' interleaving): instructions per action, for comparing two versions of the
code (docs/web.md, "Hosting at scale")::

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/bench_hub.py --games 12
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/bench_hub.py --games 0

The difference of the two "Collected" totals divided by the actions printed is the figure (the
second run is the start-up: imports, the store's creation). Without Valgrind it prints the
process's CPU per action, as noisy as any timing here.

``--by-move`` plays one game at a time and prints the CPU of each action by its place in the
game (eight at a time, the move that ends the game apart): whether a move late in a game costs
what an early one does (issue 32), without the finishes that a timed run's later part gathers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fifteentwo.store import open_store
from fifteentwo.web import games as web_games
from fifteentwo.web.app import encode
from fifteentwo.web.games import GameHub
from fifteentwo.web.protocol import ActMessage, NewGameRequest, parse_client_message

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from web_helpers import choose  # the tests' simple legal policy (as bench_web.py plays)


class Page:
    """A listener as the socket handler is one: every message encoded, then queued."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def send(self, message: dict[str, Any]) -> None:
        encode(message)
        await self.inbox.put(message)


COSTS: dict[int, list[float]] = {}
"""``--by-move``: each action's process CPU (seconds) by its group of eight moves in the game
(`FINISH`: the move that ends the game)."""
FINISH = 10**6


def group_name(group: int) -> str:
    return (
        "the move that ends the game"
        if group == FINISH
        else f"moves {group * 8 + 1}-{group * 8 + 8}"
    )


async def play(hub: GameHub, request: NewGameRequest, *, by_move: bool = False) -> int:
    """One whole game through the hub, as a page plays it; the actions sent. ``by_move``:
    each action's CPU kept in `COSTS` (only meaningful with one game at a time)."""
    game_id, token = await hub.create(request)
    game = await hub.open(game_id, token)
    page = Page(game.session.viewer)
    state = await hub.join(game, page)
    actions = 0
    while not state["over"]:
        if not state["waiting"]:
            state = await page.inbox.get()
            continue
        text = json.dumps({"type": "act", "decision": state["decision"], "action": choose(state)})
        message = parse_client_message(text)
        assert isinstance(message, ActMessage)
        started = time.process_time()
        await hub.act(game, page.seat, message.decision, message.action)
        state = await page.inbox.get()
        if by_move:
            spent = time.process_time() - started
            COSTS.setdefault(FINISH if state["over"] else actions // 8, []).append(spent)
        actions += 1
    return actions


async def run(args: argparse.Namespace, db: Path) -> tuple[int, float]:
    hub = GameHub(lambda: open_store(db), workers=args.workers)
    await hub.start()
    request = NewGameRequest(variant=args.variant, level=args.level, player="b" * 16)
    gate = asyncio.Semaphore(args.concurrency)

    async def one() -> int:
        async with gate:
            return await play(hub, request, by_move=args.by_move)

    started = time.process_time()
    counts = await asyncio.gather(*(one() for _ in range(args.games)))
    cpu = time.process_time() - started
    await hub.close()
    return sum(counts), cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=6, help="games in play at once")
    parser.add_argument("--level", default="greedy")
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2026, help="the games' seeds come from it")
    parser.add_argument(
        "--by-move", action="store_true", help="one game at a time; CPU by place in the game"
    )
    args = parser.parse_args()
    if args.by_move:
        args.concurrency = 1
    if args.games < 0 or args.concurrency < 1:
        raise SystemExit("error: --games must be 0 or more and --concurrency 1 or more")
    # the same games every run: the hub draws each game's seed from `secrets.randbits`
    web_games.secrets.randbits = random.Random(args.seed).getrandbits  # type: ignore[attr-defined]
    with tempfile.TemporaryDirectory() as tmp:
        actions, cpu = asyncio.run(run(args, Path(tmp) / "bench.sqlite3"))
    per = f"{cpu / actions * 1000:.3f} ms of CPU per action" if actions else "no action"
    print(
        f"bench_hub: {args.games} {args.variant} games against {args.level}: {actions} actions,",
        per,
    )
    for group, costs in sorted(COSTS.items()):
        costs.sort()
        mean = sum(costs) / len(costs) * 1000
        median = costs[len(costs) // 2] * 1000
        name = group_name(group)
        print(f"  {name}: {len(costs)} actions, mean {mean:.3f} ms, median {median:.3f} ms")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
