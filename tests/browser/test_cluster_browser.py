"""A table played in two browsers through nginx in front of two ``cribbage serve`` processes
(PostgreSQL and Redis), while one process is killed with SIGKILL and started again, and then
the other is stopped with SIGTERM (a rolling restart): the pages reconnect by themselves and the
game is played to the end (docs/web.md, Deployment)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser.test_browser import take_turn
from browser.test_tables_browser import create_table, data, people, play_between, sit
from cluster_web import Site, nginx_problem
from store_backends import make_backend

pytestmark = pytest.mark.browser
__all__ = ["people"]  # the fixture, imported for this module's tests


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    problem = nginx_problem()
    if problem:
        pytest.fail(problem)
    for backend in make_backend("postgres", tmp_path):
        deployed = Site(backend.url, tmp_path, processes=2)
        try:
            yield deployed.start("--shutdown-timeout", "5")
        finally:
            deployed.stop()


def turns(pages: list[Any], count: int) -> None:
    """``count`` decisions, whoever's page is ready (each page reconnects on its own)."""
    for _ in range(count):
        deadline = time.monotonic() + 30
        while not (ready := [p for p in pages if data(p, "ready") == "1"]):
            assert time.monotonic() < deadline, "no page became ready (did it reconnect?)"
            time.sleep(0.05)
        if data(ready[0], "over") == "1":
            return
        before = data(ready[0], "decision")
        take_turn(ready[0])
        ready[0].wait_for_function(
            "(d) => document.getElementById('page-game').dataset.decision !== d", arg=before
        )


def test_a_table_survives_a_killed_process_and_a_rolling_restart(people: Any, site: Site) -> None:
    ann, bob = people(), people()
    link = create_table(ann, site.url, "short", ["person", "person"])
    sit(bob, link, "Bob")
    pages = [ann, bob]
    turns(pages, 8)
    decision = max(int(data(p, "decision") or 0) for p in pages)
    site.kill(0)  # SIGKILL: no goodbye; sockets on it drop, pages retry through nginx
    site.restart(0)
    turns(pages, 6)
    assert max(int(data(p, "decision") or 0) for p in pages) > decision
    site.terminate(1)  # SIGTERM: sockets closed with 1012, pages reconnect at once
    site.restart(1)
    play_between(pages)
    for page in pages:
        assert not page.errors, page.errors
