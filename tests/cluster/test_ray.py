"""The Ray backend on a real local cluster: the same results as the local backends with one
worker process or two, a worker killed mid-run, resuming from a checkpoint, and clear errors."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from raycluster import RAY_ENV, RayHead, is_loopback, ray_available, start_head

from fifteentwo.arena import GameOutcome, GameTask, _play_chunk, run_match
from fifteentwo.cluster import (
    Checkpoint,
    ClusterError,
    InlineBackend,
    ProcessBackend,
    RayBackend,
    chunked,
    open_backend,
)
from fifteentwo.players.guard import BotError
from fifteentwo.rules import STANDARD
from fifteentwo.selfplay.equity import sample_deals

pytestmark = pytest.mark.usefixtures("ray_env")

# --- fixtures: a real Ray head on 127.0.0.1 (raycluster.py) ---------------------------------------
# (here rather than in a conftest.py, whose name would clash with tests/conftest.py)


@pytest.fixture(scope="session")
def ray_env() -> Iterator[None]:
    """The environment every Ray process of the tests needs, the driver (this process) too."""
    if not ray_available():
        pytest.skip("Ray is not installed (make test-cluster installs it) or running under xdist")
    saved = {k: os.environ.get(k) for k in RAY_ENV}
    os.environ.update(RAY_ENV)
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="session")
def ray_cluster(ray_env: None) -> Iterator[RayHead]:
    """A head node with two CPUs: two worker processes run chunks at once."""
    head = start_head(2)
    try:
        bad = [a for a in head.listening() if not is_loopback(a)]
        assert not bad, f"Ray listens beyond loopback: {bad}"
        yield head
    finally:
        _disconnect()
        head.stop()
        assert not head.pids(), "Ray processes left running"


@pytest.fixture(scope="session")
def ray_one_worker(ray_env: None) -> Iterator[RayHead]:
    """A second cluster, whose head has one CPU: one worker process runs every chunk."""
    head = start_head(1)
    try:
        yield head
    finally:
        _disconnect()
        head.stop()
        assert not head.pids(), "Ray processes left running"


def _disconnect() -> None:
    import ray

    if ray.is_initialized():
        ray.shutdown()


GAMES = 24


def tasks(a: str = "standard", b: str = "novice", games: int = GAMES) -> list[GameTask]:
    return [GameTask(a, b, STANDARD, 11, i, False, False) for i in range(games)]


def facts(outcomes: list[GameOutcome]) -> list[tuple[Any, ...]]:
    """Everything about the games but the decision times (which depend on the machine)."""
    return [
        (o.index, o.winner, o.scores, o.match_points, o.skunks, o.first_dealer, o.deals)
        for o in outcomes
    ]


def run(
    backend: Any, size: int = 3, work: list[GameTask] | None = None, **kw: Any
) -> list[tuple[Any, ...]]:
    """The games' facts as ``backend`` plays them in chunks of ``size``."""
    chunks = chunked(tasks() if work is None else work, size)
    with backend:
        return facts([o for chunk in backend.map(_play_chunk, chunks, **kw) for o in chunk])


@pytest.fixture(scope="module")
def reference() -> list[tuple[Any, ...]]:
    return run(InlineBackend())


def test_two_ray_workers_match_local(
    ray_cluster: RayHead, reference: list[tuple[Any, ...]]
) -> None:
    backend = RayBackend(ray_cluster.address)
    assert backend.workers == 2
    assert run(backend) == reference
    assert run(ProcessBackend(2)) == reference


def test_one_ray_worker_matches_local(
    ray_one_worker: RayHead, reference: list[tuple[Any, ...]]
) -> None:
    backend = RayBackend(ray_one_worker.address)
    assert backend.workers == 1
    assert run(backend, size=5) == reference


def test_killed_worker_is_retried(ray_cluster: RayHead, reference: list[tuple[Any, ...]]) -> None:
    killed: list[int] = []
    out: list[GameOutcome] = []
    with RayBackend(ray_cluster.address) as backend:
        for chunk in backend.map(_play_chunk, chunked(tasks("expert", "standard"), 2)):
            out.extend(chunk)
            if not killed:
                busy = ray_cluster.workers()
                assert busy, "no Ray worker process found"
                os.kill(busy[0], signal.SIGKILL)
                killed.append(busy[0])
    expected = run(InlineBackend(), work=tasks("expert", "standard"))
    assert facts(out) == expected
    assert killed


def test_checkpoint_resumes_on_ray(
    ray_cluster: RayHead, tmp_path: Path, reference: list[tuple[Any, ...]]
) -> None:
    path = tmp_path / "run.ckpt"
    params = {"games": GAMES, "seed": 11}
    with RayBackend(ray_cluster.address) as backend:
        results = backend.map(_play_chunk, chunked(tasks(), 3), checkpoint=Checkpoint(path, params))
        first = [next(results) for _ in range(3)]
        results.close()  # interrupted
    assert len(first) == 3
    resumed = Checkpoint(path, params)
    assert set(resumed.done) >= {0, 1, 2}
    assert run(RayBackend(ray_cluster.address), checkpoint=resumed) == reference


def test_bad_addresses_are_one_line(ray_env: None) -> None:
    for address in ("127.0.0.1:1", "nonsense::", "ray://", "no-such-host.invalid:6379"):
        with pytest.raises(ClusterError) as info:
            open_backend(address)
        assert "\n" not in str(info.value)


def test_a_port_that_is_not_ray_fails_fast(ray_env: None) -> None:
    """Something listens, but not Ray's GCS: refused in seconds (Ray would retry minutes)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]

        def hang_up() -> None:
            with contextlib.suppress(OSError):
                while True:
                    conn, _ = server.accept()
                    conn.close()

        threading.Thread(target=hang_up, daemon=True).start()
        start = time.monotonic()
        with pytest.raises(ClusterError, match=f"no Ray cluster answers at 127.0.0.1:{port}"):
            open_backend(f"127.0.0.1:{port}")
        assert time.monotonic() - start < 15


def test_an_error_on_a_worker_is_the_error_itself(ray_cluster: RayHead) -> None:
    """A bot that raises on a Ray worker stops the run with the guard's one-line error, as it
    would locally (not retried: the game is deterministic, so it would raise again)."""
    bad = [GameTask("badbots:Crasher", "standard", STANDARD, 1, i, False, False) for i in range(4)]
    words = r"player A \(badbots:Crasher\) raised RuntimeError: the crasher bot crashed"
    with RayBackend(ray_cluster.address) as backend, pytest.raises(BotError, match=words):
        list(backend.map(_play_chunk, chunked(bad, 2)))
    with ProcessBackend(2) as pool, pytest.raises(BotError, match=words):
        list(pool.map(_play_chunk, chunked(bad, 2)))
    with pytest.raises(BotError, match=words):
        run_match("badbots:Crasher", "standard", STANDARD, 4, cluster=ray_cluster.address)


def test_arena_and_table_builds_on_ray_match_local(ray_cluster: RayHead, tmp_path: Path) -> None:
    """The public entry points give the same results on Ray as on one process."""
    rules = STANDARD
    local = run_match("standard", "novice", rules, 8, seed=4, jobs=1)
    remote = run_match("standard", "novice", rules, 8, seed=4, cluster=ray_cluster.address)
    assert [facts([o]) for o in local.outcomes] == [facts([o]) for o in remote.outcomes]
    assert (local.a_wins, local.b_wins) == (remote.a_wins, remote.b_wins)
    here = sample_deals(120, player="greedy", seed=9, jobs=1)
    there = sample_deals(120, player="greedy", seed=9, cluster=ray_cluster.address)
    assert here == there


def test_auto_finds_the_cluster_of_this_machine(
    ray_cluster: RayHead, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with open_backend("auto") as backend:  # (the last started, when the tests run two)
        assert backend.workers in (1, 2)
        assert list(backend.map(_play_chunk, chunked(tasks(games=2), 1)))
