"""A real version-3 store of each kind (written by the code before the SQLAlchemy store, kept
as SQL dumps in tests/data/store_v3) opens with the new store: migrated by Alembic at open,
every row kept and readable, new writes work, and a second open changes nothing."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from fifteentwo.store import GameMeta, Store, new_owner
from fifteentwo.store.schema import SCHEMA_VERSION
from fifteentwo.store.sqlite import SQLiteStore
from store_backends import Backend, make_backend

DUMPS = Path(__file__).parent / "data" / "store_v3"
OLD_GAME = "NAZ4z4S5t0pU"
OLD_ACCOUNT = "cpUB4DqqZd9n"
PG_OLD_GAME = "u19i0GWGK8z6"


@pytest.fixture(params=["sqlite", "postgres"])
def old_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Backend, str]]:
    """(kind, backend with the version-3 dump loaded, the old game's id)"""
    kind = str(request.param)
    gen = make_backend(kind, tmp_path)
    backend = next(gen)
    if kind == "sqlite":
        conn = sqlite3.connect(backend.url.removeprefix("sqlite://"))
        conn.executescript((DUMPS / "sqlite_v3.sql").read_text(encoding="utf-8"))
        conn.close()
        game = OLD_GAME
    else:
        import psycopg

        from store_backends import PG_URL

        schema = backend.url.rsplit("schema=", 1)[1]
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}".encode())
            conn.execute(f"SET search_path TO {schema}".encode())
            conn.execute((DUMPS / "postgres_v3.sql").read_bytes())
        game = PG_OLD_GAME
    yield backend, game
    for _ in gen:
        pass


def _version(backend: Backend) -> tuple[int, str]:
    (version,) = backend.execute("SELECT version FROM schema_version")
    (revision,) = backend.execute("SELECT version_num FROM alembic_version")
    return int(version[0]), str(revision[0])


def test_an_old_store_is_migrated_at_open_keeping_every_row(
    old_store: tuple[Backend, str],
) -> None:
    backend, game = old_store
    assert backend.execute("SELECT version FROM schema_version")[0][0] in (2, 3)
    store: Store = backend.open()
    assert _version(backend) == (SCHEMA_VERSION, f"v{SCHEMA_VERSION}")
    if backend.kind == "sqlite":  # (v9: a save's max(seq) + 1 reads an index, not every game)
        plan = backend.execute("EXPLAIN QUERY PLAN SELECT max(seq) FROM games_in_progress")
        assert any("games_in_progress_seq" in str(row) for row in plan), plan
    saved = store.load_game(game)
    assert saved.data == {"version": 1, "step": 7, "note": "a game kept by version 3"}
    assert saved.meta.scores == (12, 30) and saved.updated_at.tzinfo is not None
    (done,) = store.finished_games()
    assert (
        done["seed"] == 2**64 + 5 and done["won"] is True and done["record"] == {"moves": [1, 2, 3]}
    )
    assert store.get_setting("web.secret") == "s3cr3t"
    (ada,) = store.leaderboard()
    assert (ada.username, ada.rating, ada.rated_games) == ("Ada", 1612.5, 1)
    table = store.load_table("tbl000000001")
    assert table.version == 1 and table.due_at is not None and table.due_at.year == 2026
    # the old game's lease (a process long gone) is taken; play goes on and new rows are added
    me = new_owner()
    store.claim(game, owner=me)
    store.save_game(game, {"step": 8}, saved.meta, owner=me)
    meta = GameMeta("short", 61, ("You", "C"), ("human", "greedy"), (0, 0))
    fresh = store.create_game({"new": True}, meta, owner=me)
    assert [g.game_id for g in store.list_games()] == [fresh, game]
    assert store.was_imported("x") is False
    assert store.import_finished("x", [], "nothing") == 0 and store.was_imported("x")
    store.close()
    again = backend.open()  # a second open migrates nothing and keeps everything
    assert _version(backend) == (SCHEMA_VERSION, f"v{SCHEMA_VERSION}")
    assert again.load_game(game).data == {"step": 8}


def test_a_store_from_a_newer_alembic_revision_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE alembic_version SET version_num = 'v99'")
    conn.close()
    with pytest.raises(Exception, match="newer fifteentwo"):
        SQLiteStore(path)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [("v99",)]
    conn.close()


def test_the_newest_revision_is_the_one_a_store_at_head_is_opened_by() -> None:
    """`HEAD`, with which an up-to-date store is opened without Alembic, is the shipped
    scripts' head: a new revision that forgets to move `SCHEMA_VERSION` fails here."""
    from fifteentwo.store.upgrade import HEAD, script

    assert script().get_current_head() == HEAD == f"v{SCHEMA_VERSION}"


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_store_at_the_newest_schema_opens_without_alembic(kind: str, tmp_path: Path) -> None:
    """Opening a store that is already up to date loads no migration machinery (a program's
    start pays for it otherwise), on both databases; the first open of an empty one does."""
    import subprocess
    import sys

    gen = make_backend(kind, tmp_path)
    backend = next(gen)
    try:
        code = (
            "import sys\n"
            "from fifteentwo.store import open_store\n"
            f"open_store({backend.url!r}).close()\n"
            "print('alembic' in sys.modules)\n"
        )
        runs = [
            subprocess.run(
                [sys.executable, "-c", code],
                check=False,
                capture_output=True,
                text=True,
                timeout=120,
            )
            for _ in range(2)
        ]
        assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
        assert [r.stdout.strip() for r in runs] == ["True", "False"]
        assert _version(backend) == (SCHEMA_VERSION, f"v{SCHEMA_VERSION}")
    finally:
        for _ in gen:
            pass
