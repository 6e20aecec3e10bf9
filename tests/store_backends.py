"""Every store backend for the interface tests: SQLite (always) and PostgreSQL (a real server).

The PostgreSQL tests use ``$FIFTEENTWO_TEST_POSTGRES`` (default: the project machines' server on
127.0.0.1:5432, database ``test``), each test in a fresh schema dropped afterwards. Without a
reachable server they are skipped, unless ``FIFTEENTWO_REQUIRE_POSTGRES`` is set (``make test``
sets it, so CI fails loudly instead).
"""

from __future__ import annotations

import functools
import os
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fifteentwo.store import Store, open_store

PG_URL = os.environ.get("FIFTEENTWO_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
BACKENDS = ("sqlite", "postgres")


def as_before_v10(execute: Callable[..., Any]) -> None:
    """Undo schema v10 in a store: its full saves back in ``games_in_progress.data``, where v9
    and every earlier schema kept them, and the list's index on ``(owner_hint, seq)`` again;
    for the tests that make an old store out of a new one."""
    execute("ALTER TABLE games_in_progress ADD COLUMN data TEXT NOT NULL DEFAULT ''")
    execute(
        "UPDATE games_in_progress SET data = (SELECT s.data FROM game_saves s "
        "WHERE s.game_id = games_in_progress.game_id)"
    )
    execute("DROP TABLE game_saves")
    execute("DROP INDEX games_in_progress_owner")
    execute("CREATE INDEX games_in_progress_recent ON games_in_progress (owner_hint, seq)")


@functools.cache
def postgres_problem() -> str | None:
    """Why PostgreSQL tests cannot run here, or None."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed"
    try:
        psycopg.connect(PG_URL, connect_timeout=3).close()
    except psycopg.Error as exc:
        return f"no PostgreSQL server at {PG_URL}: {exc}"
    return None


def need_postgres() -> None:
    """Skip (or fail, when required) a test that needs the PostgreSQL server."""
    problem = postgres_problem()
    if problem is None:
        return
    if os.environ.get("FIFTEENTWO_REQUIRE_POSTGRES"):
        pytest.fail(f"FIFTEENTWO_REQUIRE_POSTGRES is set but {problem}")
    pytest.skip(problem)


@dataclass
class Backend:
    """One store location of one kind: open it (again), run raw SQL on it, clean up."""

    kind: str
    url: str
    opened: list[Store]

    def open(self) -> Store:
        store = open_store(self.url)
        self.opened.append(store)
        return store

    def execute(self, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Raw SQL behind the store's back (corrupting rows); ``?`` placeholders."""
        if self.kind == "sqlite":
            import sqlite3

            conn = sqlite3.connect(self.url.removeprefix("sqlite://"))
            try:
                with conn:
                    return conn.execute(query, params).fetchall()
            finally:
                conn.close()
        import psycopg

        schema = self.url.rsplit("schema=", 1)[1]
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"SET search_path TO {schema}".encode())
            cursor = conn.execute(query.replace("?", "%s").encode(), params)
            return cursor.fetchall() if cursor.description else []


def make_backend(kind: str, tmp_path: Path) -> Iterator[Backend]:
    """A fresh location of ``kind``; every store opened on it is closed afterwards."""
    if kind == "postgres":
        need_postgres()
        schema = "t_" + secrets.token_hex(8)
        url = f"{PG_URL}{'&' if '?' in PG_URL else '?'}schema={schema}"
    else:
        url = f"sqlite://{tmp_path / 'games.sqlite3'}"
    backend = Backend(kind, url, [])
    try:
        yield backend
    finally:
        for store in backend.opened:
            store.close()
        if kind == "postgres":
            import psycopg

            with psycopg.connect(PG_URL, autocommit=True) as conn:
                conn.execute(
                    f"DROP SCHEMA IF EXISTS {url.rsplit('schema=', 1)[1]} CASCADE".encode()
                )


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Each backend in turn."""
    yield from make_backend(str(request.param), tmp_path)


@pytest.fixture
def store(backend: Backend) -> Store:
    """A fresh store of each backend in turn."""
    return backend.open()
