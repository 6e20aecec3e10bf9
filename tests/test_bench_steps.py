"""bench/bench_steps.py: the steps it times are stored, on both databases."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import bench_steps
from store_backends import Backend


def test_every_timed_step_is_stored_onto_its_game(backend: Backend) -> None:
    store = backend.open()
    args = argparse.Namespace(games=4, steps=30, save_bytes=200, seed=5)
    cpu, wall = bench_steps.measure(store, args)
    assert cpu >= 0 and wall > 0
    games = store.list_games()
    assert len(games) == 4
    assert sum(g.data.get("moves_applied", 0) for g in games) == 30
