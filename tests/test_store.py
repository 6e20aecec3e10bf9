"""The game store: API, ownership, transactions, corrupt rows, big seeds, migration, journal."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import replace
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fifteentwo.store import (
    CorruptGame,
    FinishedGame,
    GameBusy,
    GameConflict,
    GameMeta,
    GameNotFound,
    Store,
    StoreError,
    StoreUnavailable,
    new_owner,
    open_store,
)
from fifteentwo.store.migrate import import_old_history
from fifteentwo.store.schema import SCHEMA_VERSION
from fifteentwo.store.sql import HEARTBEAT_BATCH
from fifteentwo.store.sqlite import SQLiteStore
from fifteentwo.store.summary import finished_from_record
from store_backends import Backend

OLD = Path(__file__).parent / "data" / "old"

META = GameMeta(
    variant="short",
    target=61,
    players=("You", "Computer"),
    levels=("human", "expert"),
    scores=(10, 7),
)
SEATS = ({"name": "You", "human": True, "level": ""}, {"name": "Computer", "level": "greedy"})


def finished_record() -> dict[str, Any]:
    """The record of a finished game from the old history fixture (written by the old code)."""
    conn = sqlite3.connect(OLD / "history.sqlite3")
    try:
        text = conn.execute("SELECT record FROM games ORDER BY id LIMIT 1").fetchone()[0]
    finally:
        conn.close()
    record = json.loads(text)
    assert isinstance(record, dict)
    return record


def a_finished(seed: int = 11, **changes: Any) -> FinishedGame:
    done = finished_from_record(finished_record(), SEATS, seed)
    return replace(done, **changes) if changes else done


def store_at(tmp_path: Path, **kwargs: Any) -> SQLiteStore:
    return SQLiteStore(tmp_path / "games.sqlite3", **kwargs)


def test_open_store_default_and_urls(fifteentwo_data_dir: Path, tmp_path: Path) -> None:
    store = open_store()
    assert Path(store.location) == fifteentwo_data_dir / "fifteentwo.sqlite3"
    assert open_store(f"sqlite://{tmp_path}/x.sqlite3").location == f"{tmp_path}/x.sqlite3"
    with pytest.raises(StoreError, match="unknown store URL"):
        open_store("redis://x")


def test_wal_mode_and_schema_version(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    store.close()
    conn = sqlite3.connect(tmp_path / "games.sqlite3")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    revision = conn.execute("SELECT version_num FROM alembic_version").fetchall()
    assert revision == [(f"v{SCHEMA_VERSION}",)]
    conn.close()


def test_games_in_progress_round_trip_and_order(store: Store) -> None:
    me = new_owner()
    first = store.create_game({"n": 1}, META, owner=me)
    second = store.create_game({"n": 2}, replace(META, scores=(1, 2)), owner=me)
    assert first != second and len(first) >= 12
    assert [g.game_id for g in store.list_games()] == [second, first]
    store.save_game(first, {"n": 3}, META, owner=me)
    recent = store.most_recent()
    assert recent is not None and recent.game_id == first and recent.data == {"n": 3}
    loaded = store.load_game(second)
    assert loaded.meta.scores == (1, 2) and loaded.updated_at.tzinfo is not None
    assert loaded.meta.opponent == "expert"
    store.delete_game(second, owner=me)
    with pytest.raises(GameNotFound):
        store.load_game(second)
    assert [g.game_id for g in store.list_games()] == [first]


def test_a_second_live_owner_is_refused_until_released(store: Store) -> None:
    me, other = new_owner(), new_owner()
    game = store.create_game({}, META, owner=me)
    with pytest.raises(GameBusy, match=f"game {game} is being played in another session"):
        store.claim(game, owner=other)
    with pytest.raises(GameBusy):
        store.save_game(game, {"x": 1}, META, owner=other)
    with pytest.raises(GameBusy):
        store.delete_game(game, owner=other)
    version = store.game_version(game)
    assert version is not None
    for expected in (None, version):  # (PostgreSQL writes a checked step in one statement)
        with pytest.raises(GameBusy):
            store.append_move(game, {"set": {"x": 2}}, META, owner=other, expected_version=expected)
    assert store.load_game(game).data == {} and store.game_version(game) == version
    store.release(game, owner=me)
    store.claim(game, owner=other)
    with pytest.raises(GameBusy):
        store.claim(game, owner=me)
    version = store.game_version(game)
    assert store.append_move(game, {"set": {"x": 3}}, META, owner=other, expected_version=version)
    assert store.load_game(game).data == {"x": 3, "moves_applied": 1}
    with pytest.raises(GameConflict):  # (that version is gone: compare and swap)
        store.append_move(game, {"set": {"x": 4}}, META, owner=other, expected_version=version)
    assert store.load_game(game).data == {"x": 3, "moves_applied": 1}


def test_many_leases_are_renewed_at_once_and_a_live_holder_keeps_its_own(
    backend: Backend, store: Store
) -> None:
    """A server renews all its games' leases in a few writes (`Store.heartbeat_many`): each
    lease it holds beats again, a game another live session holds is left to that session."""
    me, other = new_owner(), new_owner()
    mine = [store.create_game({"n": i}, META, owner=me) for i in range(HEARTBEAT_BATCH + 7)]
    theirs = store.create_game({}, META, owner=other)
    backend.execute("UPDATE leases SET heartbeat = ? WHERE owner = ?", (1000.0, me))  # (old)
    store.heartbeat_many([*mine, theirs], owner=me)
    beats = dict(backend.execute("SELECT game_id, heartbeat FROM leases"))
    assert all(float(beats[g]) > 1000.0 for g in mine)
    holder = backend.execute("SELECT owner FROM leases WHERE game_id = ?", (theirs,))
    assert holder == [(other,)]
    with pytest.raises(GameBusy):  # (the other session's lease still stands against us)
        store.save_game(theirs, {"x": 1}, META, owner=me)
    store.heartbeat_many([], owner=me)


def test_a_lease_of_a_dead_process_can_be_taken(backend: Backend) -> None:
    """By a claim, and by a version-checked step of another session (PostgreSQL writes those
    as one statement, which leaves another session's lease to the transaction that judges
    it): the process that held the game has ended."""
    code = (
        "import sys; from fifteentwo.store import open_store, GameMeta;"
        "s = open_store(sys.argv[1]);"
        "m = GameMeta('short', 61, ('You', 'C'), ('human', 'greedy'), (0, 0));"
        "print(s.create_game({}, m, owner='dead')); print(s.create_game({}, m, owner='dead'))"
    )
    games = subprocess.run(
        [sys.executable, "-c", code, backend.url],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.split()
    store = backend.open()
    me = new_owner()
    store.claim(games[0], owner=me)
    version = store.game_version(games[1])
    assert store.append_move(games[1], {"set": {"x": 1}}, META, owner=me, expected_version=version)
    assert store.load_game(games[1]).data == {"x": 1, "moves_applied": 1}
    other = new_owner()
    version = store.game_version(games[1])
    with pytest.raises(GameBusy):  # (and now the lease is ours, alive)
        store.append_move(games[1], {"set": {"x": 2}}, META, owner=other, expected_version=version)
    assert store.game_version(games[1]) == version


def test_finish_moves_a_game_in_one_transaction(store: Store) -> None:
    me = new_owner()
    game = store.create_game({"x": 1}, META, owner=me)
    (row,) = store.finish_game(game, [a_finished()], None, owner=me)
    assert store.list_games() == []
    done = store.finished_game(row)
    assert done["game_id"] == game and done["scores"] == [38, 61] and done["seed"] == 11
    assert done["takebacks"] == 0 and isinstance(done["record"], dict)


def test_a_finish_onto_a_version_that_moved_on_writes_nothing(store: Store) -> None:
    """A copy of a game that fell behind (another process moved it on, or finished it) never
    ends it: ``expected_version`` makes the finish refuse, with nothing written."""
    me = new_owner()
    game = store.create_game({"x": 1}, META, owner=me)
    old = store.game_version(game)
    assert old is not None
    store.save_game(game, {"x": 2}, META, owner=me, expected_version=old)  # moved on
    with pytest.raises(GameConflict):
        store.finish_game(game, [a_finished()], None, owner=me, expected_version=old)
    assert [g.game_id for g in store.list_games()] == [game] and store.finished_games() == []
    now = store.game_version(game)
    assert now is not None
    (row,) = store.finish_game(game, [a_finished()], None, owner=me, expected_version=now)
    assert store.list_games() == [] and store.finished_game(row)["game_id"] == game
    with pytest.raises(GameConflict):  # gone: finished already
        store.finish_game(game, [a_finished()], None, owner=me, expected_version=now)
    assert len(store.finished_games()) == 1


def test_a_match_that_goes_on_keeps_its_row(store: Store) -> None:
    me = new_owner()
    game = store.create_game({"x": 1}, META, owner=me)
    store.finish_game(game, [a_finished()], {"x": 2}, replace(META, scores=(0, 0)), owner=me)
    assert store.load_game(game).data == {"x": 2} and len(store.finished_games()) == 1


def test_a_failing_finish_leaves_the_game_in_progress(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If storing the finished game fails inside the transaction, nothing is removed."""
    store = backend.open()
    me = new_owner()
    game = store.create_game({"x": 1}, META, owner=me)

    def broken(conn: Any, row: dict[str, Any]) -> int:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(store, "_insert_finished", broken)
    with pytest.raises(RuntimeError):
        store.finish_game(game, [a_finished()], None, owner=me)
    assert store.load_game(game).data == {"x": 1}
    assert store.finished_games() == []


@pytest.mark.parametrize("seed", [0, 2**63 - 1, 2**63, 2**64 + 5, 10**40, -(2**70)])
def test_seeds_of_any_size_are_stored_exactly(backend: Backend, seed: int) -> None:
    store = backend.open()
    row = store.add_finished(a_finished(seed=seed))
    assert store.finished_game(row)["seed"] == seed
    assert store.finished_games(1)[0]["seed"] == seed
    store.close()
    assert backend.open().finished_games()[0]["seed"] == seed


@pytest.mark.parametrize(
    ("field", "value"),
    [("target", 2**70), ("target", True), ("scores", (1.5, 2)), ("players", (1, 2))],
)
def test_bad_details_are_refused_before_writing(store: Store, field: str, value: Any) -> None:
    with pytest.raises(StoreError):
        store.create_game({}, replace(META, **{field: value}), owner=new_owner())
    with pytest.raises(StoreError):
        store.create_game({"x": float("nan")}, META, owner=new_owner())
    assert store.list_games() == []


def test_finished_ints_are_bounded(store: Store) -> None:
    for bad in ({"pegged": 2**80}, {"winner": True}, {"seed": 1.5}, {"takebacks": -(2**64)}):
        with pytest.raises(StoreError):
            store.add_finished(a_finished(**bad))
    assert store.finished_games() == []


def test_a_game_whose_full_save_is_missing_is_set_aside(backend: Backend) -> None:
    """Since v10 a game's full save is a row of its own (`game_saves`): a game row without
    one is unreadable like any other, set aside with what is left, never a failure."""
    store = backend.open()
    me = new_owner()
    good = store.create_game({"ok": True}, META, owner=me)
    bad = store.create_game({"ok": False}, META, owner=me)
    store.append_move(bad, {"append": {"decisions": [1]}}, META, owner=me)
    backend.execute("DELETE FROM game_saves WHERE game_id = ?", (bad,))
    assert [g.game_id for g in store.list_games()] == [good]
    (notice,) = store.take_notices()
    assert bad in notice and "set aside" in notice and "\n" not in notice
    with pytest.raises(GameNotFound):
        store.load_game(bad)
    (content,) = [c for (c,) in backend.execute("SELECT content FROM set_aside")]
    assert json.loads(content)["moves"] == ['{"append":{"decisions":[1]}}']


def test_corrupt_rows_are_set_aside_and_reported(backend: Backend) -> None:
    store = backend.open()
    me = new_owner()
    good = store.create_game({"ok": True}, META, owner=me)
    bad = store.create_game({"ok": False}, META, owner=me)
    row = store.add_finished(a_finished())
    backend.execute("UPDATE game_saves SET data = '{broken' WHERE game_id = ?", (bad,))
    backend.execute("UPDATE finished_games SET record = '[1' WHERE id = ?", (row,))
    with pytest.raises(CorruptGame) as info:
        store.load_game(bad)
    assert "\n" not in str(info.value) and "set aside" in str(info.value)
    assert [g.game_id for g in store.list_games()] == [good]
    assert store.finished_games() == []
    notices = store.take_notices()
    assert len(notices) == 1 and "finished game" in notices[0]
    assert store.take_notices() == []
    kept = backend.execute("SELECT source, key, content FROM set_aside ORDER BY id")
    assert [(s, k) for s, k, _ in kept] == [
        ("games_in_progress", bad),
        ("finished_games", str(row)),
    ]
    assert "{broken" in kept[0][2]


def test_a_file_that_is_not_a_database_is_kept_and_a_new_store_started(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    store = SQLiteStore(path)
    (notice,) = store.take_notices()
    assert "could not be read" in notice and "games.sqlite3.corrupt" in notice
    assert (tmp_path / "games.sqlite3.corrupt").read_bytes().startswith(b"this is not")
    store.create_game({}, META, owner=new_owner())


def test_a_newer_schema_is_refused_in_one_line(tmp_path: Path) -> None:
    store_at(tmp_path).close()
    conn = sqlite3.connect(tmp_path / "games.sqlite3")
    with conn:
        conn.execute("UPDATE schema_version SET version = 99")
    conn.close()
    with pytest.raises(StoreError, match="written by a newer fifteentwo"):
        store_at(tmp_path)


def test_a_data_dir_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("x", encoding="utf-8")
    with pytest.raises(StoreUnavailable, match="is a file, not a directory"):
        SQLiteStore(tmp_path / "data" / "games.sqlite3")


def test_totals_and_owner_hints(store: Store) -> None:
    store.add_finished(a_finished())
    store.add_finished(a_finished(owner_hint="web-user-1", kind="web"))
    (total,) = store.totals()
    assert total.games == 2 and total.levels == "greedy"
    (mine,) = store.totals(owner_hint="web-user-1")
    assert mine.games == 1
    assert len(store.finished_games(owner_hint="web-user-1")) == 1


def test_the_old_history_is_imported_once_and_kept(tmp_path: Path) -> None:
    old = tmp_path / "history.sqlite3"
    shutil.copy(OLD / "history.sqlite3", old)
    store = store_at(tmp_path)
    assert import_old_history(store, old) == 2
    assert not old.exists() and (tmp_path / "history.sqlite3.migrated").exists()
    games = store.finished_games()
    assert [g["seed"] for g in games] == [2**40, 11]
    assert all(g["finished_at"].endswith("+00:00") for g in games)
    assert "2 finished game(s)" in store.take_notices()[0]
    shutil.copy(OLD / "history.sqlite3", old)  # the same file again: not imported twice
    import_old_history(store, old)
    assert len(store.finished_games()) == 2


def test_an_unreadable_old_history_is_kept_and_reported_once(tmp_path: Path) -> None:
    old = tmp_path / "history.sqlite3"
    old.write_bytes(b"garbage" * 50)
    store = store_at(tmp_path)
    assert import_old_history(store, old) == 0
    (notice,) = store.take_notices()
    assert "cannot be read" in notice and (tmp_path / "history.sqlite3.unreadable").exists()
    assert import_old_history(store, old) == 0 and store.take_notices() == []


def test_journal_keeps_writes_and_the_next_start_stores_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Storage that stays unavailable: the game goes to the journal; the next open stores it."""
    store = store_at(tmp_path, retries=1, backoff=0.01)
    me = new_owner()
    game = store.create_game({"step": 1}, META, owner=me)

    def unavailable(work: Any, **_: Any) -> Any:
        from fifteentwo.store.sqlite import _Unavailable

        raise _Unavailable("database or disk is full")

    monkeypatch.setattr(store, "_write_now", unavailable)
    store.save_game(game, {"step": 2}, META, owner=me)
    store.finish_game(None, [a_finished(seed=2**64)], None)
    (notice,) = store.take_notices()
    assert "unavailable (database or disk is full)" in notice and ".journal" in notice
    store.save_game(game, {"step": 3}, META, owner=me)
    assert store.take_notices() == []  # told once
    journal = tmp_path / "games.sqlite3.journal"
    assert len(journal.read_text(encoding="utf-8").splitlines()) == 3
    monkeypatch.undo()
    store.release(game, owner=me)
    store.close()
    again = store_at(tmp_path)
    (notice,) = again.take_notices()
    assert notice.startswith("note: stored 3 change(s)")
    assert again.load_game(game).data == {"step": 3}
    assert again.finished_games()[0]["seed"] == 2**64
    assert not journal.exists()
    again.close()
    assert store_at(tmp_path).take_notices() == []


def test_an_older_journal_entry_never_overwrites_a_newer_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = store_at(tmp_path, retries=0)
    me = new_owner()
    game = store.create_game({"step": 1}, META, owner=me)
    real = store._write_now

    def unavailable(work: Any, **_: Any) -> Any:
        from fifteentwo.store.sqlite import _Unavailable

        raise _Unavailable("database is locked")

    monkeypatch.setattr(store, "_write_now", unavailable)
    store.save_game(game, {"step": 2}, META, owner=me)
    monkeypatch.setattr(store, "_write_now", real)
    store.save_game(game, {"step": 3}, META, owner=me)
    assert store.import_journal() == 1
    assert store.load_game(game).data == {"step": 3}


def test_a_journal_that_cannot_be_written_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = store_at(tmp_path)
    me = new_owner()
    game = store.create_game({}, META, owner=me)

    def unavailable(work: Any, **_: Any) -> Any:
        from fifteentwo.store.sqlite import _Unavailable

        raise _Unavailable("attempt to write a readonly database")

    monkeypatch.setattr(store, "_write_now", unavailable)
    store.journal_path = tmp_path / "missing-dir" / "j"
    with pytest.raises(StoreUnavailable, match="the game goes on unsaved") as info:
        store.save_game(game, {}, META, owner=me)
    assert "\n" not in str(info.value)


def test_a_removed_database_is_made_again(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = SQLiteStore(data / "games.sqlite3")
    me = new_owner()
    game = store.create_game({"a": 1}, META, owner=me)
    shutil.rmtree(data)
    store.save_game(game, {"a": 2}, META, owner=me)
    assert SQLiteStore(data / "games.sqlite3").load_game(game).data == {"a": 2}


def test_times_are_utc(store: Store) -> None:
    game = store.create_game({}, META, owner=new_owner())
    assert store.load_game(game).created_at.tzinfo == UTC


# --- fuzz: whatever is in a row, a store never crashes and never loses it ---------------------

_JUNK = st.one_of(
    st.binary(max_size=40),
    st.text(max_size=40),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True),
    st.none(),
    st.just("[" * 5000 + "]" * 5000),
    st.just('{"variant": 1}'),
    st.just("9" * 5000),
    st.just("2026-13-45T99:99:99"),
)
_GAME_COLUMNS = ("meta", "data", "created_at", "updated_at", "kind")
_FINISHED_COLUMNS = ("seed", "scores", "record", "seats", "hands", "won", "finished_at")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game_column=st.sampled_from(_GAME_COLUMNS),
    finished_column=st.sampled_from(_FINISHED_COLUMNS),
    junk=_JUNK,
    more=_JUNK,
)
def test_fuzzed_rows_are_set_aside_never_lost(
    tmp_path_factory: pytest.TempPathFactory,
    game_column: str,
    finished_column: str,
    junk: object,
    more: object,
) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    store = SQLiteStore(folder / "g.sqlite3")
    me = new_owner()
    game = store.create_game({"n": 1}, META, owner=me)
    row = store.add_finished(a_finished())
    conn = sqlite3.connect(folder / "g.sqlite3")
    try:
        with conn:
            table = "game_saves" if game_column == "data" else "games_in_progress"
            conn.execute(f"UPDATE {table} SET {game_column} = ?", (junk,))
            conn.execute(f"UPDATE finished_games SET {finished_column} = ?", (more,))
    except sqlite3.IntegrityError:
        assume(False)  # NULL in a NOT NULL column cannot be written
    finally:
        conn.close()
    games = store.list_games()
    finished = store.finished_games()
    store.take_notices()
    for call in (lambda: store.load_game(game), lambda: store.finished_game(row)):
        try:
            call()
        except StoreError as exc:  # CorruptGame or GameNotFound (already set aside): one line
            assert "\n" not in str(exc)
    conn = sqlite3.connect(folder / "g.sqlite3")
    aside = conn.execute("SELECT COUNT(*) FROM set_aside").fetchone()[0]
    conn.close()
    assert len(games) + len(finished) + aside == 2  # every row is somewhere


def test_game_ids_are_letters_and_digits() -> None:
    """An id starting with ``-`` read as an option in ``cribbage play --resume ID``."""
    from fifteentwo.store.base import new_game_id

    ids = {new_game_id() for _ in range(2000)}
    assert len(ids) == 2000
    assert all(len(i) == 12 and i.isalnum() and i.isascii() for i in ids)
