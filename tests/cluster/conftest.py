"""Fixtures of the cluster tests: a real Ray head on 127.0.0.1 (see raycluster.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from raycluster import RAY_ENV, RayHead, is_loopback, ray_available, start_head


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
