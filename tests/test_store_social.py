"""Settings, accounts, ratings and web tables in the store (every backend; docs/store.md)."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from fifteentwo.store.base import (
    AccountExists,
    GameMeta,
    RatingUpdate,
    Store,
    TableConflict,
    TableNotFound,
    utc_now,
)
from fifteentwo.store.sqlite import SCHEMA_VERSION, SQLiteStore
from store_backends import Backend, as_before_v10

META = GameMeta("standard", 121, ("you", "greedy"), ("human", "greedy"), (0, 0))


def test_settings_are_remembered_across_opens(backend: Backend) -> None:
    first = backend.open()
    assert first.get_setting("level") is None
    first.set_setting("level", "novice")
    first.set_setting("level", "expert")
    first.close()
    assert backend.open().get_setting("level") == "expert"


def test_accounts_are_unique_without_regard_to_case(store: Store) -> None:
    made = store.create_account("Alice", "$argon2id$hash")
    assert store.account_by_name("alice") == made
    assert store.account(made.account_id) == made
    assert made.username == "Alice" and made.rating == 1500.0 and made.rated_games == 0
    with pytest.raises(AccountExists):
        store.create_account("ALICE", "other")
    assert store.account_by_name("bob") is None
    store.set_password_hash(made.account_id, "new")
    found = store.account(made.account_id)
    assert found is not None and found.password_hash == "new"
    assert "password_hash" not in made.to_json()


def test_ratings_and_leaderboard(store: Store) -> None:
    a = store.create_account("a", "h")
    b = store.create_account("b", "h")
    store.create_account("never-played", "h")
    store.save_ratings(
        [
            RatingUpdate(a.account_id, 1662.3, 290.3, 0.06),
            RatingUpdate(b.account_id, 1337.7, 290.3, 0.06),
        ]
    )
    board = store.leaderboard()
    assert [acc.username for acc in board] == ["a", "b"]
    assert board[0].rated_games == 1 and board[0].rating == pytest.approx(1662.3)
    assert [acc.username for acc in store.leaderboard(min_games=0)] == ["a", "never-played", "b"]
    assert len(store.leaderboard(limit=1)) == 1


def test_tables_are_written_with_optimistic_versions(store: Store) -> None:
    assert store.save_table("t1", {"seats": []}, "open", expected_version=None) == 1
    with pytest.raises(TableConflict):
        store.save_table("t1", {}, "open", expected_version=None)
    assert store.save_table("t1", {"seats": [1]}, "playing", expected_version=1) == 2
    with pytest.raises(TableConflict):
        store.save_table("t1", {"seats": [2]}, "playing", expected_version=1)
    row = store.load_table("t1")
    assert (row.data, row.status, row.version) == ({"seats": [1]}, "playing", 2)
    with pytest.raises(TableNotFound):
        store.load_table("nope")
    with pytest.raises(TableNotFound):
        store.save_table("nope", {}, "open", expected_version=3)
    store.save_table("t2", {}, "adjourned", expected_version=None)
    assert [t.table_id for t in store.list_tables()] == ["t2", "t1"]
    assert [t.table_id for t in store.list_tables(status=["playing"])] == ["t1"]
    later = utc_now() + timedelta(seconds=5)
    assert {t.table_id for t in store.list_tables(updated_before=later)} == {"t1", "t2"}
    assert store.list_tables(updated_before=utc_now() - timedelta(days=1)) == []


def test_table_versions_are_read_without_their_data(store: Store) -> None:
    assert store.table_versions([]) == {}
    store.save_table("a", {}, "open", expected_version=None)
    store.save_table("b", {}, "open", expected_version=None)
    store.save_table("b", {}, "playing", expected_version=1)
    assert store.table_versions(["a", "b", "missing"]) == {"a": 1, "b": 2}
    many = [f"t{i}" for i in range(1200)]  # more than one statement's parameters
    assert store.table_versions([*many, "b"]) == {"b": 2}


def test_tables_due_for_attention_are_found_by_time(store: Store) -> None:
    now = utc_now()
    soon, late = now + timedelta(seconds=5), now + timedelta(days=7)
    store.save_table("soon", {}, "playing", expected_version=None, due_at=soon)
    store.save_table("late", {}, "playing", expected_version=None, due_at=late)
    store.save_table("never", {}, "adjourned", expected_version=None)
    assert store.list_tables(due_before=now) == []
    found = store.list_tables(due_before=now + timedelta(seconds=10))
    assert [t.table_id for t in found] == ["soon"]
    assert found[0].due_at is not None
    assert abs(found[0].due_at - soon) < timedelta(milliseconds=1)
    assert {t.table_id for t in store.list_tables(due_before=now + timedelta(days=8))} == {
        "soon",
        "late",
    }
    assert store.load_table("never").due_at is None
    # every write sets the time again (None: nothing to do)
    store.save_table("soon", {}, "adjourned", expected_version=1)
    assert store.list_tables(due_before=now + timedelta(seconds=10)) == []
    # a naive time is refused rather than compared in the wrong zone
    with pytest.raises(Exception, match="timezone"):
        store.list_tables(due_before=now.replace(tzinfo=None))


def test_a_version_1_store_is_migrated_keeping_its_games(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with SQLiteStore(path) as s:
        s.set_setting("x", "1")
        game = s.create_game({"n": 1}, META, owner="me")
    conn = sqlite3.connect(path)
    with conn:
        for name in (
            "settings",
            "accounts",
            "tables",
            "alembic_version",
            "game_moves",
            "turn_claims",
            "web_sessions",
            "rating_changes",
        ):
            conn.execute(f"DROP TABLE {name}")
        conn.execute("DROP INDEX finished_by_owner")
        conn.execute("DROP INDEX games_in_progress_seq")  # (v9)
        as_before_v10(conn.execute)  # (v10)
        conn.execute("UPDATE schema_version SET version = 1")  # as version 1 wrote it
    conn.close()
    with SQLiteStore(path) as s:
        assert s.get_setting("x") is None
        assert s.load_game(game).data == {"n": 1}
        s.set_setting("x", "2")
        assert s.get_setting("x") == "2"
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    conn.close()


def test_tables_written_before_due_times_are_kept_by_the_migration(backend: Backend) -> None:
    first = backend.open()
    first.save_table("t1", {"seats": [1]}, "playing", expected_version=None)
    first.close()
    backend.execute("DROP TABLE rating_changes")  # (the migration after it, issue 35)
    backend.execute("DROP INDEX tables_by_due")
    backend.execute("ALTER TABLE tables DROP COLUMN due_at")
    # as the versions before Alembic left it: SQLite's version 2, PostgreSQL's version 1
    backend.execute("DROP TABLE alembic_version")
    backend.execute("DROP TABLE game_moves")
    backend.execute("DROP TABLE turn_claims")
    backend.execute("DROP TABLE web_sessions")
    as_before_v10(backend.execute)  # (v10)
    if backend.kind == "sqlite":
        backend.execute("DROP INDEX finished_by_owner")
        backend.execute("DROP INDEX games_in_progress_seq")  # (v9)
        backend.execute("UPDATE schema_version SET version = 2")
    else:
        backend.execute("DROP TABLE imports")
        backend.execute("UPDATE schema_version SET version = 1")
    store = backend.open()
    row = store.load_table("t1")
    assert (row.data, row.version, row.due_at) == ({"seats": [1]}, 1, None)
    store.save_table("t1", {}, "playing", expected_version=1, due_at=utc_now())
    assert [t.table_id for t in store.list_tables(due_before=utc_now())] == ["t1"]
