"""Shared pytest fixtures (each section is self-contained)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

# Tests interrupt programs they start with SIGINT (Ctrl-C). A suite started in the background by a
# non-interactive shell (a CI runner, `cmd &`) inherits SIGINT ignored, and children inherit an
# ignored signal across exec: Python in them would install no KeyboardInterrupt handler and the
# tests' Ctrl-C would do nothing. A handled signal is reset to its default at exec, so handling it
# here gives every child the Ctrl-C a terminal gives (issue 31: however the suite is started).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# --- play/history/saves (issue 7): never touch the real user data directory -------------------


@pytest.fixture(autouse=True)
def fifteentwo_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point FIFTEENTWO_DATA_DIR (saves, results history) at a fresh temporary directory."""
    path = tmp_path_factory.mktemp("fifteentwo-data")
    monkeypatch.setenv("FIFTEENTWO_DATA_DIR", str(path))
    return path


# --- the terminal (issue 31): the suite must not depend on the width it is run at ---------------


TEST_COLUMNS = "200"
"""The width Rich renders at in tests (tables, charts, wrapped sentences), whatever COLUMNS the
suite was started with: output compared as text must not move with the terminal (CI runs the
suite with COLUMNS=60). A test about narrow terminals sets its own width."""


@pytest.fixture(autouse=True)
def fixed_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Render at `TEST_COLUMNS` in this process and in programs the test starts."""
    monkeypatch.setenv("COLUMNS", TEST_COLUMNS)
    monkeypatch.delenv("LINES", raising=False)


# --- the game store's backends (issue 19): `backend` and `store` run a test on each -----------

from store_backends import backend, store  # noqa: E402, F401  (fixtures: tests/store_backends.py)
