"""bench/bench_web.py --by-move: the rounds end when every game still going was answered, and
the CPU between two rounds' ends is divided among that round's actions alone."""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
pytest.importorskip("httpx2")
pytest.importorskip("websockets")
import bench_web


def test_a_round_ends_once_every_live_client_is_done_and_finished_games_leave() -> None:
    async def scenario() -> list[tuple[int, float, int]]:
        rounds = bench_web.Rounds(3, [os.getpid()])
        rounds.start()
        waiting = asyncio.create_task(rounds.wait(2))
        rounds.done(answered=True, over=False)
        rounds.done(answered=True, over=True)  # this game ended in round 1
        await asyncio.sleep(0)
        assert not waiting.done() and rounds.number == 1  # one client still owes round 1
        rounds.done(answered=True, over=False)
        await asyncio.wait_for(waiting, 1)
        assert (rounds.number, rounds.live, rounds.pending) == (2, 2, 2)
        rounds.done(answered=True, over=False)
        rounds.done(answered=False, over=False)  # stopped (the deadline): no more rounds
        assert (rounds.number, rounds.live, rounds.pending) == (3, 1, 1)
        return rounds.ends

    ends = asyncio.run(scenario())
    assert [(a, e) for a, _, e in ends] == [(0, 0), (3, 1), (1, 0)]
    assert all(later[1] >= earlier[1] for earlier, later in itertools.pairwise(ends))


def test_bands_divide_each_bands_cpu_by_its_own_actions() -> None:
    ends = [(0, 10.0, 0), (100, 10.1, 0), (100, 10.2, 0), (50, 10.4, 3)]
    bands = bench_web.round_bands(ends, width=2)
    assert [(b[0], b[1], b[2], b[4]) for b in bands] == [(1, 2, 200, 0), (3, 3, 50, 3)]
    assert bands[0][3] == pytest.approx(1.0)  # 0.2 s over 200 actions: 1 ms each
    assert bands[1][3] == pytest.approx(4.0)
    assert bench_web.round_bands([(0, 1.0, 0), (0, 1.5, 2)]) == []  # no action: no band


def test_the_rest_of_the_machine_is_read_by_process_name() -> None:
    """What the servers share the cores with: this process (the clients) and any local
    PostgreSQL or Redis, from /proc, process by process; the clients' time moves with their own
    work, and nobody's time goes back when one of their processes ends meanwhile (other tests
    close PostgreSQL connections, whose backends exit)."""
    before = bench_web.neighbours_cpu()
    assert {name for name, _ in before} >= {"clients"}
    assert all(seconds >= 0 for seconds in before.values())
    sum(i * i for i in range(2_000_000))  # some CPU of this process
    used = bench_web.cpu_between(before, bench_web.neighbours_cpu())
    assert set(used) == {"clients", "PostgreSQL", "Redis"}
    assert used["clients"] > 0
    assert all(seconds >= 0 for seconds in used.values())


def test_a_process_that_ended_or_began_between_two_readings_never_lowers_the_sum() -> None:
    before = {("clients", 1): 2.0, ("PostgreSQL", 10): 5.0, ("PostgreSQL", 11): 7.0}
    after = {("clients", 1): 3.5, ("PostgreSQL", 11): 7.25, ("PostgreSQL", 12): 0.5}
    assert bench_web.cpu_between(before, after) == {
        "clients": 1.5,
        "PostgreSQL": 0.75,
        "Redis": 0.0,
    }
