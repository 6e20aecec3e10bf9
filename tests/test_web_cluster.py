"""The web tests against a deployment: two ``cribbage serve`` processes on PostgreSQL and Redis
behind nginx (round robin, no stickiness), through tests/cluster_web.py. The same test functions
run in-process on SQLite in tests/test_web.py and tests/test_web_tables.py.

``make test`` runs a representative subset; ``make test-web-cluster`` (FIFTEENTWO_CLUSTER_ALL=1)
runs every test that does not reach into the server's process. Needs nginx, PostgreSQL and
Redis: skipped without them unless ``FIFTEENTWO_REQUIRE_REDIS`` is set.
"""

from __future__ import annotations

import functools
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("httpx2")
pytest.importorskip("websockets.sync.client")

import test_web
import test_web_tables
from cluster_web import RemoteClient, Site, nginx_problem
from store_backends import make_backend
from test_web_processes import need_redis

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

IN_PROCESS_ONLY = {
    "test_the_leak_checker_catches_leaks",  # no server at all
    "test_create_app_takes_a_path_or_a_store",  # create_app's arguments
    "test_a_slow_computer_never_stalls_the_server",  # patches a player inside the process
    "test_the_review_link_is_the_row_the_finish_stored",  # patches the process's store
}
SUBSET = {
    "test_whole_games_never_leak_a_hidden_card",
    "test_resume_on_a_new_connection_continues_from_the_same_decision",
    "test_bad_messages_are_refused_and_change_nothing",
    "test_http_api_validates_and_lists",
    "test_a_token_acts_only_in_its_own_game",
    "test_two_people_play_to_the_end_with_a_spectator",
    "test_reconnecting_returns_to_the_same_decision",
    "test_accounts_ratings_and_the_leaderboard",
}
FRESH_STORE = {"test_two_people_play_to_the_end_with_a_spectator"}
"""Tests that count every finished game in the store."""
ALL = bool(os.environ.get("FIFTEENTWO_CLUSTER_ALL"))


def _copy(test: Any) -> Any:
    @functools.wraps(test)
    def copy(*args: Any, **kwargs: Any) -> Any:
        return test(*args, **kwargs)

    return copy


for _module in (test_web, test_web_tables):
    for _name in dir(_module):
        if _name.startswith("test_") and _name not in IN_PROCESS_ONLY and (ALL or _name in SUBSET):
            globals()[_name] = _copy(getattr(_module, _name))  # marks must not reach the original


def deploy(work: Path) -> Iterator[Site]:
    """Two processes on a fresh PostgreSQL schema and Redis, behind nginx."""
    problem = nginx_problem()
    if problem:
        if os.environ.get("FIFTEENTWO_REQUIRE_REDIS"):
            pytest.fail(problem)
        pytest.skip(problem)
    need_redis()
    for backend in make_backend("postgres", work):
        deployed = Site(backend.url, work, processes=2)
        try:
            yield deployed.start("--table-tick", "0.05")
        finally:
            deployed.stop()


@pytest.fixture(scope="module")
def shared_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield from deploy(tmp_path_factory.mktemp("site"))


@pytest.fixture
def site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    """The module's site, or a site of its own for a test that counts what the store holds."""
    if request.node.originalname in FRESH_STORE:
        yield from deploy(tmp_path)
    else:
        yield request.getfixturevalue("shared_site")


@pytest.fixture(autouse=True)
def own_player(monkeypatch: pytest.MonkeyPatch) -> None:
    """The site's store outlives a test: each test's browser key is its own."""
    monkeypatch.setattr(test_web, "PLAYER", f"cluster-{secrets.token_hex(8)}")
    # a second browser on the same site (the tests make one with TestClient(client.app))
    monkeypatch.setattr(test_web_tables, "TestClient", lambda site, **_: RemoteClient(site))


@pytest.fixture
def client(site: Site) -> Iterator[RemoteClient]:
    with site.client() as c:
        yield c


@pytest.fixture
def store_path(site: Site) -> str:
    """Where the tests read what the site stored: its PostgreSQL URL."""
    return site.db


def test_the_balancer_spreads_requests_over_both_processes(site: Site, tmp_path: Path) -> None:
    import httpx2

    seen = set()
    for _ in range(8):
        body = httpx2.get(f"{site.url}/metrics", timeout=10).text
        info = next(line for line in body.splitlines() if line.startswith("fifteentwo_server_info"))
        seen.add(info)
    assert len(seen) == 2
