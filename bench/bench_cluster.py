"""Self-play speed on a Ray cluster: games per second with 1 and 2 worker processes, and the
scaling ratio, beside the local process pool with 1 and 2 processes.

The Ray runs start a real head on 127.0.0.1 (``ray start --head --num-cpus=N``, the dashboard
off), connect with the Ray backend of `fifteentwo.cluster`, and play the same match (expert v
standard, the arena's chunks of games) that the local pool plays; the results must be identical
(checked), only the time differs. Worker start-up is outside the timing (one untimed warm-up
chunk per worker first), since on a real cluster it is paid once per long run.

The scaling ratio can only approach 2 when two cores are free: on a shared machine it says how
much of a second core the run got. Without Ray installed (``make bench-cluster`` installs the
``cluster`` extra) only the local pool is measured.

Run with ``make bench-cluster`` or ``python bench/bench_cluster.py [--games N]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path
from typing import Any

from fifteentwo.arena import GameTask, _play_chunk
from fifteentwo.cluster import Backend, ProcessBackend, RayBackend, chunked
from fifteentwo.rules import STANDARD

CHUNK = 4
"""Games per task (the arena's chunk size for a few thousand games on a few workers)."""


def facts(backend: Backend, tasks: list[GameTask]) -> tuple[list[Any], float]:
    """Play ``tasks`` on ``backend``: each game's (winner, scores), and the seconds it took."""
    warm = [GameTask(t.a, t.b, t.rules, t.seed + 1, t.index, False, False) for t in tasks]
    list(backend.map(_play_chunk, chunked(warm[: CHUNK * backend.workers], CHUNK)))
    start = time.perf_counter()
    out = [
        (o.winner, o.scores)
        for chunk in backend.map(_play_chunk, chunked(tasks, CHUNK))
        for o in chunk
    ]
    return out, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=160, help="games per run (default 160)")
    args = parser.parse_args()
    tasks = [
        GameTask("expert", "standard", STANDARD, 2026, i, False, False) for i in range(args.games)
    ]
    print(
        f"{args.games} games of expert v standard, {CHUNK} games per task; cores: {os.cpu_count()}"
    )
    rates: dict[str, float] = {}
    reference = None
    for jobs in (1, 2):
        with ProcessBackend(jobs) as pool:
            out, seconds = facts(pool, tasks)
        reference = reference or out
        assert out == reference, "the local pool's results differ"
        rates[f"local {jobs}"] = args.games / seconds
        print(f"local pool, {jobs} process(es): {rates[f'local {jobs}']:7.1f} games/s")
    if importlib.util.find_spec("ray") is None:
        print("Ray is not installed (pip install 'fifteentwo[cluster]'): local pool only")
    else:
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # a one-machine cluster: loopback
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "cluster"))
        from raycluster import start_head

        for cpus in (1, 2):
            head = start_head(cpus)
            try:
                with RayBackend(head.address) as backend:
                    out, seconds = facts(backend, tasks)
            finally:
                head.stop()
            assert out == reference, "Ray's results differ from the local pool's"
            rates[f"ray {cpus}"] = args.games / seconds
            print(f"Ray, {cpus} worker process(es):  {rates[f'ray {cpus}']:7.1f} games/s")
    for kind in ("local", "ray"):
        if f"{kind} 2" in rates:
            ratio = rates[f"{kind} 2"] / rates[f"{kind} 1"]
            print(f"scaling 1 -> 2 workers ({kind}): {ratio:.2f}x")
    print("results identical on every backend: yes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
