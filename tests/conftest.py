"""Shared pytest fixtures (each section is self-contained)."""

from __future__ import annotations

from pathlib import Path

import pytest

# --- play/history/saves (issue 7): never touch the real user data directory -------------------


@pytest.fixture(autouse=True)
def fifteentwo_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point FIFTEENTWO_DATA_DIR (saves, results history) at a fresh temporary directory."""
    path = tmp_path_factory.mktemp("fifteentwo-data")
    monkeypatch.setenv("FIFTEENTWO_DATA_DIR", str(path))
    return path


# --- the game store's backends (issue 19): `backend` and `store` run a test on each -----------

from store_backends import backend, store  # noqa: E402, F401  (fixtures: tests/store_backends.py)
