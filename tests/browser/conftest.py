"""Browser tests: Playwright for Python driving Debian's Chromium against a real server.

They run under ``make test-browser`` (which sets FIFTEENTWO_BROWSER=1 and installs what they
need), never under ``make test``: collecting them is skipped unless that variable is set.
Playwright never downloads a browser here: it launches /usr/bin/chromium.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

collect_ignore_glob = [] if os.environ.get("FIFTEENTWO_BROWSER") else ["test_*.py"]

CHROMIUM = os.environ.get("FIFTEENTWO_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # web_helpers, test_web_restart


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``cribbage serve`` process on a free loopback port, with its own store."""
    from test_web_restart import free_port, kill, start_server

    data = tmp_path_factory.mktemp("web")
    port = free_port()
    proc = start_server(data / "games.sqlite3", port, data)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        if proc.poll() is None:
            kill(proc)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: make test-browser installs it with apt-get")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    """A fresh desktop page (its own storage: a new player) with errors collected."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    pg.set_default_timeout(20_000)
    try:
        yield pg
    finally:
        context.close()


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Path:
    """Where screenshots go (kept for people to look at: FIFTEENTWO_SHOTS, else a temp dir)."""
    where = os.environ.get("FIFTEENTWO_SHOTS")
    path = Path(where) if where else Path(request.getfixturevalue("tmp_path")) / "shots"
    path.mkdir(parents=True, exist_ok=True)
    return path
