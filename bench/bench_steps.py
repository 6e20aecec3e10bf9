"""A step's cost in the store with many games in progress: `Store.append_move` alone (issue 32).

`bench_store.py` plays whole games one after another, so the store holds one game at a time;
a server holds a thousand, and what a step costs then depends on the rows beside it (SQLite
writes a row whole, indexes keyed by the order of play move at every step) and, on
PostgreSQL, on the round trips a step makes. This makes ``--games`` games with full saves of
about ``--save-bytes`` bytes, then writes ``--steps`` version-checked steps (as the web server
writes them) to games picked at random, and prints this process's CPU and the wall time per
step (a PostgreSQL server's own CPU is not in the first figure)::

    python bench/bench_steps.py
    python bench/bench_steps.py --db "postgresql://127.0.0.1/test?schema=bench_steps"

Compare two versions of the code in interleaved runs (``PYTHONPATH=<worktree>/src``); a
PostgreSQL schema named in ``--db`` is dropped afterwards.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from fifteentwo.store import GameMeta, Store, open_store


def meta(rng: random.Random) -> GameMeta:
    scores = (rng.randrange(121), rng.randrange(121))
    return GameMeta("standard", 121, ("you", "greedy"), ("human", "greedy"), scores, kind="web")


def measure(store: Store, args: argparse.Namespace) -> tuple[float, float]:
    """CPU and wall seconds per step."""
    rng = random.Random(args.seed)
    owner = "bench-steps"
    versions: dict[str, int | None] = {}
    for _ in range(args.games):
        size = rng.randrange(args.save_bytes // 2, args.save_bytes * 3 // 2 + 1)
        game = store.create_game({"pad": "y" * size}, meta(rng), owner=owner)
        versions[game] = store.game_version(game)
    games = list(versions)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(args.steps):
        game = rng.choice(games)
        # most steps carry a decision or two; one in three an RNG's state too (3.5 KB)
        delta = {
            "append": {"decisions": [["play", "5C"]]},
            "set": {"x": "z" * rng.choice([50, 50, 3500])},
        }
        versions[game] = store.append_move(
            game, delta, meta(rng), owner=owner, expected_version=versions[game]
        )
        if versions[game] is None:
            raise SystemExit("error: a step was not stored")
    return (time.process_time() - cpu) / args.steps, (time.perf_counter() - wall) / args.steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games in progress")
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--save-bytes", type=int, default=11000, help="a full save's mean size")
    parser.add_argument("--db", default=None, help="a store URL (default: SQLite, temporary)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.games < 1 or args.steps < 1 or args.save_bytes < 2:
        raise SystemExit("error: --games, --steps and --save-bytes must be positive")
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(args.db or str(Path(tmp) / "bench.sqlite3"))
        try:
            cpu, wall = measure(store, args)
        finally:
            drop = getattr(store, "drop_schema", None)
            if args.db and drop is not None:
                drop()
            store.close()
    print(
        f"bench_steps: {args.steps} steps at {args.games} games in progress: "
        f"{cpu * 1e6:.0f} us of CPU, {wall * 1e6:.0f} us wall per step"
    )


if __name__ == "__main__":
    main()
