"""`SQLiteStore`: the embedded default store, one SQLite file in the data directory.

WAL mode (readers never wait for a writer), a busy timeout, and every write in an explicit
``BEGIN IMMEDIATE`` transaction retried with back-off while the file is locked. When storage
stays unavailable (locked, read-only, full, missing), writes go to a journal file beside the
database (JSON lines) and are stored at the next start. Rows that cannot be read are moved to
the ``set_aside`` table, never deleted. docs/store.md describes the schema.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, TypeVar

from fifteentwo.store.base import (
    Account,
    AccountExists,
    CorruptGame,
    FinishedGame,
    GameBusy,
    GameMeta,
    GameNotFound,
    RatingChange,
    RatingUpdate,
    SavedGame,
    Store,
    StoreError,
    StoreUnavailable,
    TableConflict,
    TableNotFound,
    TableRow,
    Totals,
    checked_int,
    checked_time,
    data_dir,
    lease_alive,
    new_game_id,
    this_process,
    utc_now,
)

__all__ = ["SCHEMA_VERSION", "SQLiteStore"]

SCHEMA_VERSION: Final = 4
STORE_FILE: Final = "fifteentwo.sqlite3"
JOURNAL_SUFFIX: Final = ".journal"
DEGRADED_SECONDS: Final = 30.0
"""How long after a journalled write later writes skip the back-off."""

_T = TypeVar("_T")

_SCHEMA_1: Final = (
    """CREATE TABLE schema_version (version INTEGER NOT NULL)""",
    """CREATE TABLE games_in_progress (
        game_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        owner_hint TEXT NOT NULL,
        meta TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        seq INTEGER NOT NULL
    )""",
    """CREATE INDEX games_in_progress_recent ON games_in_progress (owner_hint, seq)""",
    """CREATE TABLE leases (
        game_id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        heartbeat REAL NOT NULL
    )""",
    """CREATE TABLE finished_games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id TEXT,
        kind TEXT NOT NULL,
        owner_hint TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        variant TEXT NOT NULL,
        target INTEGER NOT NULL,
        levels TEXT NOT NULL,
        seats TEXT NOT NULL,
        human_seat INTEGER,
        seed TEXT NOT NULL,
        game_number INTEGER NOT NULL,
        scores TEXT NOT NULL,
        winner INTEGER NOT NULL,
        won INTEGER,
        skunk INTEGER NOT NULL,
        game_points INTEGER NOT NULL,
        deals INTEGER NOT NULL,
        hands TEXT NOT NULL,
        counted INTEGER NOT NULL,
        pegged INTEGER NOT NULL,
        best_hand INTEGER,
        takebacks INTEGER NOT NULL,
        record TEXT NOT NULL
    )""",
    """CREATE INDEX finished_by_level ON finished_games (levels, variant)""",
    """CREATE TABLE set_aside (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        source TEXT NOT NULL,
        key TEXT NOT NULL,
        reason TEXT NOT NULL,
        set_aside_at TEXT NOT NULL,
        content TEXT NOT NULL
    )""",
    """CREATE TABLE imports (
        source TEXT PRIMARY KEY,
        imported_at TEXT NOT NULL,
        detail TEXT NOT NULL
    )""",
)

_SCHEMA_2: Final = (
    """CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)""",
    """CREATE TABLE accounts (
        account_id TEXT PRIMARY KEY,
        username TEXT NOT NULL,
        username_key TEXT NOT NULL UNIQUE,
        password_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        rating REAL NOT NULL,
        rd REAL NOT NULL,
        volatility REAL NOT NULL,
        rated_games INTEGER NOT NULL
    )""",
    """CREATE TABLE tables (
        table_id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        version INTEGER NOT NULL,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    """CREATE INDEX tables_by_status ON tables (status, updated_at)""",
)
_SCHEMA_3: Final = (
    """ALTER TABLE tables ADD COLUMN due_at TEXT""",
    """CREATE INDEX tables_by_due ON tables (due_at)""",
)
_SCHEMA_4: Final = (  # issue 35: every rating change, for the account page
    """CREATE TABLE rating_changes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id TEXT NOT NULL,
        game TEXT NOT NULL,
        before REAL NOT NULL,
        after REAL NOT NULL,
        rd REAL NOT NULL,
        outcome TEXT NOT NULL,
        at TEXT NOT NULL
    )""",
    """CREATE INDEX rating_changes_by_account ON rating_changes (account_id, id)""",
)
_SCHEMA: Final = _SCHEMA_1 + _SCHEMA_2 + _SCHEMA_3 + _SCHEMA_4

MIGRATIONS: Final[dict[int, tuple[str, ...]]] = {2: _SCHEMA_2, 3: _SCHEMA_3, 4: _SCHEMA_4}
"""Statements that take a database from version N-1 to N, run in one transaction each."""

_JSON_COLUMNS: Final = ("seats", "scores", "hands", "record")
_TRANSIENT: Final = ("locked", "busy")


class _Unavailable(Exception):
    """Storage could not be written after retries (locked, read-only, full, missing)."""


def default_path() -> Path:
    """``fifteentwo.sqlite3`` in the data directory (``$FIFTEENTWO_DATA_DIR`` overrides)."""
    return data_dir() / STORE_FILE


class SQLiteStore(Store):
    """Games in one SQLite file. Safe across processes: every write is a transaction."""

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        busy_timeout: float = 1.0,
        retries: int = 4,
        backoff: float = 0.1,
    ) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.location = str(self.path)
        self.journal_path = self.path.with_name(self.path.name + JOURNAL_SUFFIX)
        self.busy_timeout = busy_timeout
        self.retries = retries
        self.backoff = backoff
        self._notices: list[str] = []
        self._journal_told = False
        self._degraded_until = 0.0
        """After a write went to the journal, later writes try once (no back-off) for a while,
        so a long lock does not slow every move."""
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        """One thread at a time on the connection (front-ends call from worker threads)."""
        self._check_dir()
        self._open()
        self.import_journal()

    # --- opening -------------------------------------------------------------------------------

    def _check_dir(self) -> None:
        parent = self.path.parent
        if parent.exists() and not parent.is_dir():
            raise StoreUnavailable(f"the data directory {parent} is a file, not a directory")
        if self.path.exists() and not self.path.is_file():
            raise StoreUnavailable(f"the game store {self.path} is not a regular file")
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailable(
                f"cannot create the data directory {parent}: {exc.strerror or exc}"
            ) from None

    def _open(self) -> None:
        """Connect, set WAL and the busy timeout, create or migrate the schema. A file that is
        not a database is renamed aside (kept) and a new store started, with one notice."""
        for attempt in range(2):
            try:
                conn = sqlite3.connect(
                    self.path,
                    timeout=self.busy_timeout,
                    isolation_level=None,
                    check_same_thread=False,  # used from worker threads; `_lock` serialises
                )
            except sqlite3.Error as exc:
                raise StoreUnavailable(f"cannot open the game store {self.path}: {exc}") from None
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
                with contextlib.suppress(sqlite3.OperationalError):  # read-only: keep its mode
                    conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                self._conn = conn
                self._ensure_schema()
                return
            except sqlite3.DatabaseError as exc:
                conn.close()
                self._conn = None
                if isinstance(exc, sqlite3.OperationalError) or attempt:
                    raise StoreUnavailable(
                        f"cannot use the game store {self.path}: {exc}"
                    ) from None
                kept = _rename_aside(self.path, ".corrupt")
                for extra in ("-wal", "-shm"):
                    side = self.path.with_name(self.path.name + extra)
                    if side.exists():
                        _rename_aside(side, ".corrupt")
                self._notices.append(
                    f"warning: the game store {self.path} could not be read ({exc}); it was kept "
                    f"as {kept} and a new one started"
                )
        raise AssertionError("unreachable")  # pragma: no cover

    def _ensure_schema(self) -> None:
        conn = self._db()
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:

            def create(c: sqlite3.Connection) -> None:
                again = c.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
                if again:  # another process created it meanwhile
                    return
                for statement in _SCHEMA:
                    c.execute(statement)
                c.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))

            self._write_now(create)
            return
        if "games" in tables and "games_in_progress" not in tables:
            raise StoreError(
                f"{self.path} is a results history of an earlier version, not a game store "
                "(it is imported when found in the data directory as history.sqlite3)"
            )
        if "schema_version" not in tables or "games_in_progress" not in tables:
            raise sqlite3.DatabaseError("not a fifteentwo game store")
        version = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
        if not isinstance(version, int) or version < 1:
            raise sqlite3.DatabaseError(f"unknown schema version {version!r}")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the game store {self.path} was written by a newer fifteentwo "
                f"(schema {version}, this one knows {SCHEMA_VERSION}); it was left as it is"
            )
        while version < SCHEMA_VERSION:
            step = version + 1

            def migrate(c: sqlite3.Connection, step: int = step) -> None:
                current = c.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
                if current >= step:
                    return
                for statement in MIGRATIONS[step]:
                    c.execute(statement)
                c.execute("UPDATE schema_version SET version = ?", (step,))

            self._write_now(migrate)
            version = step

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"the game store {self.path} is closed")
        return self._conn

    def close(self) -> None:
        """Close the connection (the store may not be used afterwards)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- transactions --------------------------------------------------------------------------

    def _write_now(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``work`` in one write transaction, retrying with back-off while the database is
        locked or busy; raise `_Unavailable` when it stays so or cannot be written at all."""
        with self._lock:
            return self._write_locked(work)

    def _write_locked(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        self._reopen_if_missing()
        conn = self._db()
        delay = self.backoff
        last: Exception | None = None
        retries = 0 if time.monotonic() < self._degraded_until else self.retries
        for attempt in range(retries + 1):
            try:
                conn.execute("BEGIN IMMEDIATE")
                result = work(conn)
                conn.execute("COMMIT")
                return result
            except sqlite3.DatabaseError as exc:
                _rollback(conn)
                last = exc
                transient = isinstance(exc, sqlite3.OperationalError) and _transient(exc)
                if (not transient and attempt >= 1) or attempt == retries:
                    break
                time.sleep(delay)
                delay *= 2
            except BaseException:
                _rollback(conn)
                raise
        raise _Unavailable(_short(last))

    def _reopen_if_missing(self) -> None:
        """The database file vanished (the data dir was removed): make a new one, so writes
        never go to a deleted file; if that fails the write is journalled."""
        if self._conn is not None and self.path.exists():
            return
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        try:
            self._check_dir()
            self._open()
        except StoreError as exc:
            raise _Unavailable(str(exc)) from None

    def _read(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run a read; a locked or unreadable database becomes one `StoreError` line."""
        with self._lock:
            return self._read_locked(work)

    def _read_locked(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        conn = self._db()
        delay = self.backoff
        for attempt in range(self.retries + 1):
            try:
                return work(conn)
            except sqlite3.OperationalError as exc:
                if not _transient(exc) or attempt == self.retries:
                    raise StoreError(f"cannot read the game store {self.path}: {exc}") from None
                time.sleep(delay)
                delay *= 2
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"cannot read the game store {self.path}: {exc}") from None
        raise AssertionError("unreachable")  # pragma: no cover

    # --- ownership -----------------------------------------------------------------------------

    def _check_owner(self, conn: sqlite3.Connection, game_id: str, owner: str) -> None:
        """Raise `GameBusy` if a live session other than ``owner`` holds the game."""
        row = conn.execute(
            "SELECT owner, pid, host, heartbeat FROM leases WHERE game_id = ?", (game_id,)
        ).fetchone()
        if row is None or row[0] == owner:
            return
        _holder, pid, host, beat = row
        if lease_alive(int(pid), str(host), float(beat)):
            where = f"process {pid}" if host == this_process("").host else f"{host}"
            raise GameBusy(
                f"game {game_id} is being played in another session ({where}); "
                "finish or quit it there first"
            )

    def _take(self, conn: sqlite3.Connection, game_id: str, owner: str) -> None:
        me = this_process(owner)
        conn.execute(
            "INSERT OR REPLACE INTO leases (game_id, owner, pid, host, heartbeat) "
            "VALUES (?, ?, ?, ?, ?)",
            (game_id, owner, me.pid, me.host, time.time()),
        )

    def claim(self, game_id: str, *, owner: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            if not _exists(conn, game_id):
                raise GameNotFound(
                    f"there is no saved game {game_id!r} ('cribbage saved' lists them)"[:200]
                )
            self._check_owner(conn, game_id, owner)
            self._take(conn, game_id, owner)

        try:
            self._write_now(work)
        except _Unavailable as exc:
            raise StoreError(f"cannot take game {game_id} in {self.path}: {exc}") from None

    def release(self, game_id: str, *, owner: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM leases WHERE game_id = ? AND owner = ?", (game_id, owner))

        with contextlib.suppress(_Unavailable):  # a lease of an ended process lapses anyway
            self._write_now(work)

    def heartbeat(self, game_id: str, *, owner: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            self._check_owner(conn, game_id, owner)
            self._take(conn, game_id, owner)

        with contextlib.suppress(_Unavailable):
            self._write_now(work)

    # --- games in progress ---------------------------------------------------------------------

    def create_game(self, data: dict[str, Any], meta: GameMeta, *, owner: str) -> str:
        game_id = new_game_id()
        self.save_game(game_id, data, meta, owner=owner)
        return game_id

    def save_game(self, game_id: str, data: dict[str, Any], meta: GameMeta, *, owner: str) -> None:
        _check_id(game_id)
        meta = meta.checked()
        text = _dumps(data)
        now = utc_now()

        def work(conn: sqlite3.Connection) -> None:
            self._check_owner(conn, game_id, owner)
            self._upsert(conn, game_id, text, meta, now)
            self._take(conn, game_id, owner)

        try:
            self._write_now(work)
        except _Unavailable as exc:
            self._journal(
                {"op": "save", "game_id": game_id, "data": data, "meta": meta.to_json()},
                owner,
                now,
                str(exc),
            )

    def _upsert(
        self, conn: sqlite3.Connection, game_id: str, text: str, meta: GameMeta, now: datetime
    ) -> None:
        seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM games_in_progress").fetchone()[0]
        conn.execute(
            "INSERT INTO games_in_progress "
            "(game_id, kind, owner_hint, meta, data, created_at, updated_at, seq) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO UPDATE SET "
            "kind = excluded.kind, owner_hint = excluded.owner_hint, meta = excluded.meta, "
            "data = excluded.data, updated_at = excluded.updated_at, seq = excluded.seq",
            (
                game_id,
                meta.kind,
                meta.owner_hint,
                _dumps(meta.to_json()),
                text,
                now.isoformat(),
                now.isoformat(),
                seq,
            ),
        )

    def load_game(self, game_id: str) -> SavedGame:
        row = self._read(
            lambda c: c.execute(
                "SELECT game_id, meta, data, created_at, updated_at FROM games_in_progress "
                "WHERE game_id = ?",
                (game_id,),
            ).fetchone()
        )
        if row is None:
            raise GameNotFound(f"there is no saved game {game_id!r}"[:200])
        try:
            return _saved_game(row)
        except (ValueError, TypeError, KeyError, RecursionError, StoreError) as exc:
            where = self.set_aside(game_id, str(exc))
            raise CorruptGame(
                f"saved game {game_id} cannot be read ({_short(exc)}); {where}"
            ) from None

    def list_games(self, *, owner_hint: str | None = None) -> list[SavedGame]:
        query = "SELECT game_id, meta, data, created_at, updated_at FROM games_in_progress"
        params: tuple[str, ...] = ()
        if owner_hint is not None:
            query += " WHERE owner_hint = ?"
            params = (owner_hint,)
        query += " ORDER BY seq DESC"
        rows = self._read(lambda c: c.execute(query, params).fetchall())
        out = []
        for row in rows:
            try:
                out.append(_saved_game(row))
            except (ValueError, TypeError, KeyError, RecursionError, StoreError) as exc:
                where = self.set_aside(row[0], str(exc))
                self._notices.append(
                    f"warning: saved game {row[0]} cannot be read ({_short(exc)}); {where}"
                )
        return out

    def delete_game(self, game_id: str, *, owner: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            if not _exists(conn, game_id):
                raise GameNotFound(f"there is no saved game {game_id!r}"[:200])
            self._check_owner(conn, game_id, owner)
            conn.execute("DELETE FROM games_in_progress WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM leases WHERE game_id = ?", (game_id,))

        try:
            self._write_now(work)
        except _Unavailable as exc:
            raise StoreError(f"cannot abandon game {game_id} in {self.path}: {exc}") from None

    def set_aside(self, game_id: str, reason: str) -> str:
        def work(conn: sqlite3.Connection) -> bool:
            row = conn.execute(
                "SELECT * FROM games_in_progress WHERE game_id = ?", (game_id,)
            ).fetchone()
            if row is None:
                return False
            names = [d[0] for d in conn.execute("SELECT * FROM games_in_progress").description]
            content = json.dumps(dict(zip(names, row, strict=True)), default=repr)
            _insert_aside(conn, "games_in_progress", game_id, reason, content)
            conn.execute("DELETE FROM games_in_progress WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM leases WHERE game_id = ?", (game_id,))
            return True

        try:
            moved = self._write_now(work)
        except _Unavailable:
            return "it was left where it is (the store is busy)"
        if not moved:
            return "it is no longer in the store"
        return f"it was set aside (kept in table set_aside of {self.path})"

    # --- finished games ------------------------------------------------------------------------

    def finish_game(
        self,
        game_id: str | None,
        finished: Sequence[FinishedGame],
        data: dict[str, Any] | None,
        meta: GameMeta | None = None,
        *,
        owner: str | None = None,
    ) -> list[int]:
        rows = [_finished_row(f.checked(), game_id) for f in finished]
        if data is not None:
            if game_id is None or meta is None:
                raise StoreError("a match that goes on needs its game id and details")
            meta = meta.checked()
        text = None if data is None else _dumps(data)
        now = utc_now()

        def work(conn: sqlite3.Connection) -> list[int]:
            if game_id is not None and owner is not None:
                self._check_owner(conn, game_id, owner)
            ids = [_insert_finished(conn, row) for row in rows]
            if game_id is not None:
                if text is None:
                    conn.execute("DELETE FROM games_in_progress WHERE game_id = ?", (game_id,))
                    conn.execute("DELETE FROM leases WHERE game_id = ?", (game_id,))
                else:
                    assert meta is not None
                    self._upsert(conn, game_id, text, meta, now)
                    if owner is not None:
                        self._take(conn, game_id, owner)
            return ids

        try:
            return self._write_now(work)
        except _Unavailable as exc:
            self._journal(
                {
                    "op": "finish",
                    "game_id": game_id,
                    "finished": [_finished_json(f) for f in finished],
                    "data": data,
                    "meta": None if meta is None else meta.to_json(),
                },
                owner or "",
                now,
                str(exc),
            )
            return []

    def finished_games(
        self, limit: int | None = None, *, owner_hint: str | None = None
    ) -> list[dict[str, Any]]:
        query = "SELECT * FROM finished_games"
        params: list[Any] = []
        if owner_hint is not None:
            query += " WHERE owner_hint = ?"
            params.append(owner_hint)
        query += " ORDER BY id DESC"
        if limit is not None:
            query += " LIMIT ?"
            params.append(checked_int(limit, "limit"))

        def work(conn: sqlite3.Connection) -> tuple[list[str], list[tuple[Any, ...]]]:
            cursor = conn.execute(query, params)
            return [d[0] for d in cursor.description], cursor.fetchall()

        names, rows = self._read(work)
        out = []
        for row in rows:
            raw = dict(zip(names, row, strict=True))
            try:
                out.append(_finished_dict(raw))
            except (ValueError, TypeError, KeyError, RecursionError, StoreError) as exc:
                self._set_aside_finished(raw, str(exc))
        return out

    def finished_game(self, row_id: int) -> dict[str, Any]:
        checked_int(row_id, "game id", limit=2**62)

        def work(conn: sqlite3.Connection) -> dict[str, Any] | None:
            cursor = conn.execute("SELECT * FROM finished_games WHERE id = ?", (row_id,))
            row = cursor.fetchone()
            if row is None:
                return None
            return dict(zip([d[0] for d in cursor.description], row, strict=True))

        raw = self._read(work)
        if raw is None:
            raise GameNotFound(f"no finished game with id {row_id}")
        try:
            return _finished_dict(raw)
        except (ValueError, TypeError, KeyError, RecursionError, StoreError) as exc:
            where = self._set_aside_finished(raw, str(exc))
            raise CorruptGame(
                f"finished game {row_id} cannot be read ({_short(exc)}); {where}"
            ) from None

    def _set_aside_finished(self, raw: dict[str, Any], reason: str) -> str:
        content = json.dumps(raw, default=repr)

        def work(conn: sqlite3.Connection) -> None:
            _insert_aside(conn, "finished_games", str(raw.get("id")), reason, content)
            conn.execute("DELETE FROM finished_games WHERE id = ?", (raw.get("id"),))

        try:
            self._write_now(work)
        except _Unavailable:
            where = "it was left where it is (the store is busy)"
        else:
            where = f"it was set aside (kept in table set_aside of {self.path})"
        self._notices.append(
            f"warning: finished game {raw.get('id')} cannot be read ({_short(reason)}); {where}"
        )
        return where

    def totals(self, *, owner_hint: str | None = None) -> list[Totals]:
        where = "WHERE human_seat IS NOT NULL"
        params: tuple[str, ...] = ()
        if owner_hint is not None:
            where += " AND owner_hint = ?"
            params = (owner_hint,)
        query = f"""
            SELECT levels, variant, COUNT(*), SUM(won), SUM(1 - won),
                   SUM(won = 1 AND skunk > 0), SUM(won = 0 AND skunk > 0),
                   SUM(pegged), SUM(counted), SUM(deals), MAX(best_hand)
            FROM finished_games {where}
            GROUP BY levels, variant ORDER BY levels, variant
        """
        rows = self._read(lambda c: c.execute(query, params).fetchall())
        out = []
        for levels, variant, n, wins, losses, given, taken, pegged, counted, deals, best in rows:
            per = max(int(deals or 0), 1)
            out.append(
                Totals(
                    levels=str(levels),
                    variant=str(variant),
                    games=int(n),
                    wins=int(wins or 0),
                    losses=int(losses or 0),
                    skunks_given=int(given or 0),
                    skunks_taken=int(taken or 0),
                    pegged_per_deal=int(pegged or 0) / per,
                    counted_per_deal=int(counted or 0) / per,
                    best_hand=None if best is None else int(best),
                )
            )
        return out

    # --- settings, accounts, ratings, tables ---------------------------------------------------

    def _write_or_fail(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """A write with no journal behind it: unavailable storage is one `StoreUnavailable`."""
        try:
            return self._write_now(work)
        except _Unavailable as exc:
            raise StoreUnavailable(f"cannot write the game store {self.path}: {exc}") from None

    def get_setting(self, key: str) -> str | None:
        row = self._read(
            lambda c: c.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        )
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        self._write_or_fail(
            lambda c: c.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(key), str(value)),
            )
        )

    def create_account(self, username: str, password_hash: str) -> Account:
        account = Account(new_game_id(), username, password_hash, utc_now())

        def work(conn: sqlite3.Connection) -> None:
            try:
                conn.execute(
                    "INSERT INTO accounts (account_id, username, username_key, password_hash, "
                    "created_at, rating, rd, volatility, rated_games) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        account.account_id,
                        username,
                        username.casefold(),
                        password_hash,
                        account.created_at.isoformat(),
                        account.rating,
                        account.rd,
                        account.volatility,
                        0,
                    ),
                )
            except sqlite3.IntegrityError:
                raise AccountExists(f"the username {username!r} is taken"[:200]) from None

        self._write_or_fail(work)
        return account

    def _account_where(self, where: str, value: str) -> Account | None:
        row = self._read(
            lambda c: c.execute(
                f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE {where}", (value,)
            ).fetchone()
        )
        return None if row is None else _account(row)

    def account(self, account_id: str) -> Account | None:
        return self._account_where("account_id = ?", account_id)

    def account_by_name(self, username: str) -> Account | None:
        return self._account_where("username_key = ?", username.casefold())

    def set_password_hash(self, account_id: str, password_hash: str) -> None:
        self._write_or_fail(
            lambda c: c.execute(
                "UPDATE accounts SET password_hash = ? WHERE account_id = ?",
                (password_hash, account_id),
            )
        )

    def save_ratings(self, updates: Sequence[RatingUpdate]) -> None:
        at = utc_now().isoformat()

        def work(conn: sqlite3.Connection) -> None:
            for u in updates:
                conn.execute(
                    "UPDATE accounts SET rating = ?, rd = ?, volatility = ?, "
                    "rated_games = rated_games + 1 WHERE account_id = ?",
                    (float(u.rating), float(u.rd), float(u.volatility), u.account_id),
                )
                conn.execute(  # issue 35: the change is kept
                    "INSERT INTO rating_changes (account_id, game, before, after, rd, outcome, at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        u.account_id,
                        u.game,
                        float(u.rating if u.before is None else u.before),
                        float(u.rating),
                        float(u.rd),
                        u.outcome,
                        at,
                    ),
                )

        self._write_or_fail(work)

    def leaderboard(self, limit: int = 50, *, min_games: int = 1) -> list[Account]:
        rows = self._read(
            lambda c: c.execute(
                f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE rated_games >= ? "
                "ORDER BY rating DESC, rd ASC, username_key ASC LIMIT ?",
                (checked_int(min_games, "min_games"), checked_int(limit, "limit")),
            ).fetchall()
        )
        return [_account(row) for row in rows]

    def save_table(
        self,
        table_id: str,
        data: dict[str, Any],
        status: str,
        *,
        expected_version: int | None,
        due_at: datetime | None = None,
    ) -> int:
        _check_id(table_id)
        text = _dumps(data)
        now = utc_now().isoformat()
        due = None if due_at is None else _utc_text(due_at)

        def work(conn: sqlite3.Connection) -> int:
            row = conn.execute(
                "SELECT version FROM tables WHERE table_id = ?", (table_id,)
            ).fetchone()
            if expected_version is None:
                if row is not None:
                    raise TableConflict(f"table {table_id} already exists")
                conn.execute(
                    "INSERT INTO tables"
                    " (table_id, status, version, data, created_at, updated_at, due_at)"
                    " VALUES (?, ?, 1, ?, ?, ?, ?)",
                    (table_id, status, text, now, now, due),
                )
                return 1
            if row is None:
                raise TableNotFound(f"there is no table {table_id!r}"[:200])
            if row[0] != expected_version:
                raise TableConflict(f"table {table_id} changed (version {row[0]})")
            conn.execute(
                "UPDATE tables SET status = ?, version = ?, data = ?, updated_at = ?, due_at = ? "
                "WHERE table_id = ?",
                (status, expected_version + 1, text, now, due, table_id),
            )
            return expected_version + 1

        try:
            return self._write_now(work)
        except _Unavailable as exc:
            raise StoreUnavailable(f"cannot write the game store {self.path}: {exc}") from None

    def table_versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        ids = list(table_ids)
        for table_id in ids:
            _check_id(table_id)

        def read(conn: sqlite3.Connection) -> list[Any]:
            rows: list[Any] = []
            for start in range(0, len(ids), 500):  # (SQLite's limit on parameters)
                chunk = ids[start : start + 500]
                marks = ", ".join("?" * len(chunk))
                query = f"SELECT table_id, version FROM tables WHERE table_id IN ({marks})"
                rows.extend(conn.execute(query, chunk).fetchall())
            return rows

        return {str(t): int(v) for t, v in self._read(read)}

    def load_table(self, table_id: str) -> TableRow:
        row = self._read(
            lambda c: c.execute(
                f"SELECT {_TABLE_COLUMNS} FROM tables WHERE table_id = ?", (table_id,)
            ).fetchone()
        )
        if row is None:
            raise TableNotFound(f"there is no table {table_id!r}"[:200])
        return _table(row)

    def list_tables(
        self,
        *,
        status: Sequence[str] | None = None,
        updated_before: datetime | None = None,
        due_before: datetime | None = None,
    ) -> list[TableRow]:
        query = f"SELECT {_TABLE_COLUMNS} FROM tables WHERE 1 = 1"
        args: list[Any] = []
        if status is not None:
            query += f" AND status IN ({', '.join('?' for _ in status)})"
            args.extend(status)
        if updated_before is not None:
            query += " AND updated_at < ?"
            args.append(_utc_text(updated_before))
        if due_before is not None:
            query += " AND due_at IS NOT NULL AND due_at <= ?"
            args.append(_utc_text(due_before))
        query += " ORDER BY updated_at DESC"
        rows = self._read(lambda c: c.execute(query, args).fetchall())
        return [_table(row) for row in rows]

    def write_problem(self) -> str | None:
        """Try an empty write transaction; if storage refuses it for good (not just a lock),
        say why unless the journal can take the games instead."""
        try:
            with self._lock:
                self._reopen_if_missing()
                conn = self._db()
                conn.execute("BEGIN IMMEDIATE")
                try:
                    conn.execute("UPDATE schema_version SET version = version")
                finally:
                    _rollback(conn)
            return None
        except (sqlite3.DatabaseError, _Unavailable, StoreError) as exc:
            if isinstance(exc, sqlite3.OperationalError) and _transient(exc):
                return None
            why = _short(exc)
        existed = self.journal_path.exists()
        try:
            with open(self.journal_path, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            return f"{why}; nor can {self.journal_path} be written: {exc.strerror or exc}"
        if not existed:
            with contextlib.suppress(OSError):
                self.journal_path.unlink()
        return None

    # --- notices and the journal ---------------------------------------------------------------

    def take_notices(self) -> list[str]:
        out, self._notices = self._notices, []
        return out

    def _journal(self, entry: dict[str, Any], owner: str, at: datetime, why: str) -> None:
        """Keep a write that storage refused in the journal (appended and synced)."""
        entry = {**entry, "owner": owner, "at": at.isoformat(), "entry": uuid.uuid4().hex}
        line = json.dumps(entry, separators=(",", ":")) + "\n"
        try:
            with _locked(self.journal_path, "a") as fh:
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            raise StoreUnavailable(
                f"cannot save to {self.path} ({why}) nor to {self.journal_path} "
                f"({exc.strerror or exc}); the game goes on unsaved until storage works again"
            ) from None
        self._degraded_until = time.monotonic() + DEGRADED_SECONDS
        if not self._journal_told:
            self._journal_told = True
            self._notices.append(
                f"warning: the game store {self.path} is unavailable ({why}); your game is kept "
                f"in {self.journal_path} and will be stored at the next start"
            )

    def import_journal(self) -> int:
        """Store the writes kept in the journal; entries that cannot be stored yet stay in it.
        Returns how many entries were stored (and tells the user once)."""
        if not self.journal_path.exists():
            return 0
        try:
            with _locked(self.journal_path, "r+") as fh:
                lines = fh.read().splitlines()
                kept: list[str] = []
                stored = 0
                for line in lines:
                    if not line.strip():
                        continue
                    try:
                        entry = json.loads(line)
                        done = self._apply_journal(entry)
                    except (
                        ValueError,
                        TypeError,
                        KeyError,
                        AttributeError,
                        RecursionError,
                        StoreError,
                    ) as exc:
                        self._quarantine_line(line, str(exc))
                        continue
                    except _Unavailable:
                        done = False
                    if done:
                        stored += 1
                    else:
                        kept.append(line)
                fh.seek(0)
                fh.truncate()
                fh.write("".join(k + "\n" for k in kept))
                fh.flush()
                os.fsync(fh.fileno())
        except OSError:
            return 0
        if not kept:
            with contextlib.suppress(OSError):
                self.journal_path.unlink()
        if stored:
            self._notices.append(
                f"note: stored {stored} change(s) kept in {self.journal_path} while the game "
                "store was unavailable"
            )
        return stored

    def _apply_journal(self, entry: dict[str, Any]) -> bool:
        """Apply one journal entry in one transaction (at most once: its id is recorded)."""
        key = f"journal:{entry['entry']}"
        at = datetime.fromisoformat(entry["at"])
        game_id = entry.get("game_id")
        owner = str(entry.get("owner", ""))
        meta = None if entry.get("meta") is None else GameMeta.from_json(entry["meta"])
        data = entry.get("data")
        text = None if data is None else _dumps(data)
        if entry["op"] == "save":
            if game_id is None or meta is None or text is None:
                raise KeyError("save without game")
        elif entry["op"] == "finish":
            finished = [_finished_from_json(f) for f in entry["finished"]]
            rows = [_finished_row(f.checked(), game_id) for f in finished]
        else:
            raise KeyError(f"unknown journal operation {entry['op']!r}")

        def work(conn: sqlite3.Connection) -> bool:
            if conn.execute("SELECT 1 FROM imports WHERE source = ?", (key,)).fetchone():
                return True
            if entry["op"] == "finish":
                for row in rows:
                    _insert_finished(conn, row)
            if game_id is not None:
                current = conn.execute(
                    "SELECT updated_at FROM games_in_progress WHERE game_id = ?", (game_id,)
                ).fetchone()
                newer = current is not None and datetime.fromisoformat(current[0]) > at
                if not newer and entry["op"] == "save":
                    assert text is not None and meta is not None
                    self._check_owner(conn, game_id, owner)
                    self._upsert(conn, game_id, text, meta, at)
                elif not newer and text is None:
                    conn.execute("DELETE FROM games_in_progress WHERE game_id = ?", (game_id,))
                    conn.execute("DELETE FROM leases WHERE game_id = ?", (game_id,))
                elif not newer and meta is not None and text is not None:
                    self._upsert(conn, game_id, text, meta, at)
            conn.execute(
                "INSERT INTO imports (source, imported_at, detail) VALUES (?, ?, ?)",
                (key, utc_now().isoformat(), str(entry["op"])),
            )
            return True

        try:
            return self._write_now(work)
        except GameBusy:
            return False

    def _quarantine_line(self, line: str, reason: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            _insert_aside(conn, "journal", str(self.journal_path), reason, line)

        with contextlib.suppress(_Unavailable):
            self._write_now(work)
            self._notices.append(
                f"warning: a journal entry in {self.journal_path} cannot be stored "
                f"({_short(reason)}); it was set aside in table set_aside of {self.path}"
            )

    # --- migration helpers (see fifteentwo.store.migrate) -------------------------------------

    def was_imported(self, source: str) -> bool:
        """Whether an old file (by its key) was imported already."""
        row = self._read(
            lambda c: c.execute("SELECT 1 FROM imports WHERE source = ?", (source,)).fetchone()
        )
        return row is not None

    def import_finished(self, source: str, finished: Sequence[FinishedGame], detail: str) -> int:
        """Store finished games from an old file, once: the file's key is recorded in the same
        transaction. Returns how many were stored (0 if imported before)."""
        rows = [_finished_row(f.checked(), None) for f in finished]

        def work(conn: sqlite3.Connection) -> int:
            if conn.execute("SELECT 1 FROM imports WHERE source = ?", (source,)).fetchone():
                return 0
            for row in rows:
                _insert_finished(conn, row)
            conn.execute(
                "INSERT INTO imports (source, imported_at, detail) VALUES (?, ?, ?)",
                (source, utc_now().isoformat(), detail),
            )
            return len(rows)

        try:
            return self._write_now(work)
        except _Unavailable as exc:
            raise StoreError(f"cannot write the game store {self.path}: {exc}") from None

    def import_game(self, source: str, data: dict[str, Any], meta: GameMeta) -> str | None:
        """Store a game in progress from an old save file, once; its new id (None if done)."""
        game_id = new_game_id()
        text = _dumps(data)
        meta = meta.checked()

        def work(conn: sqlite3.Connection) -> str | None:
            if conn.execute("SELECT 1 FROM imports WHERE source = ?", (source,)).fetchone():
                return None
            self._upsert(conn, game_id, text, meta, utc_now())
            conn.execute(
                "INSERT INTO imports (source, imported_at, detail) VALUES (?, ?, ?)",
                (source, utc_now().isoformat(), game_id),
            )
            return game_id

        try:
            return self._write_now(work)
        except _Unavailable as exc:
            raise StoreError(f"cannot write the game store {self.path}: {exc}") from None

    def notify(self, message: str) -> None:
        """Queue a one-line message for the user (migration reports)."""
        self._notices.append(message)

    # --- issue 35: ratings, account games, faults ---

    def rating_history(self, account_id: str, limit: int = 100) -> list[RatingChange]:
        rows = self._read(
            lambda c: c.execute(
                "SELECT account_id, game, before, after, rd, outcome, at FROM rating_changes "
                "WHERE account_id = ? ORDER BY id DESC LIMIT ?",
                (account_id, checked_int(limit, "limit")),
            ).fetchall()
        )
        return [
            RatingChange(str(a), str(g), float(b), float(af), float(rd), str(o), _when(at))
            for a, g, b, af, rd, o, at in rows
        ]


# --- helpers ----------------------------------------------------------------------------------


def _transient(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return any(word in text for word in _TRANSIENT)


def _rollback(conn: sqlite3.Connection) -> None:
    with contextlib.suppress(sqlite3.Error):
        if conn.in_transaction:
            conn.execute("ROLLBACK")


_ACCOUNT_COLUMNS: Final = (
    "account_id, username, password_hash, created_at, rating, rd, volatility, rated_games"
)
_TABLE_COLUMNS: Final = "table_id, data, status, version, created_at, updated_at, due_at"


def _when(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _account(row: tuple[Any, ...]) -> Account:
    account_id, username, password_hash, created, rating, rd, volatility, games = row
    return Account(
        account_id=str(account_id),
        username=str(username),
        password_hash=str(password_hash),
        created_at=datetime.fromisoformat(created),
        rating=float(rating),
        rd=float(rd),
        volatility=float(volatility),
        rated_games=int(games),
    )


def _table(row: tuple[Any, ...]) -> TableRow:
    table_id, data, status, version, created, updated, due = row
    loaded = json.loads(data)
    if not isinstance(loaded, dict):
        raise StoreError(f"table {table_id} cannot be read")
    return TableRow(
        table_id=str(table_id),
        data=loaded,
        status=str(status),
        version=int(version),
        created_at=datetime.fromisoformat(created),
        updated_at=datetime.fromisoformat(updated),
        due_at=None if due is None else datetime.fromisoformat(due),
    )


def _utc_text(moment: datetime) -> str:
    """A time as the text the store compares (UTC, ISO 8601, as `utc_now` writes it): text
    comparison is time order only in one time zone and one format."""
    return checked_time(moment, "a table time").isoformat(timespec="microseconds")


def _exists(conn: sqlite3.Connection, game_id: str) -> bool:
    row = conn.execute("SELECT 1 FROM games_in_progress WHERE game_id = ?", (game_id,)).fetchone()
    return row is not None


def _check_id(game_id: str) -> None:
    if not isinstance(game_id, str) or not 1 <= len(game_id) <= 100:
        raise StoreError(f"not a game id: {game_id!r}"[:200])


def _dumps(data: object) -> str:
    try:
        return json.dumps(data, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"the game cannot be stored as JSON: {exc}") from None


def _short(exc: object) -> str:
    text = str(exc).replace("\n", " ")
    return text if len(text) <= 120 else text[:117] + "..."


def _saved_game(row: tuple[Any, ...]) -> SavedGame:
    game_id, meta, data, created, updated = row
    loaded = json.loads(data)
    if not isinstance(loaded, dict):
        raise ValueError("the saved game is not a JSON object")
    meta_json = json.loads(meta)
    if not isinstance(meta_json, dict):
        raise ValueError("the game details are not a JSON object")
    return SavedGame(
        game_id=str(game_id),
        data=loaded,
        meta=GameMeta.from_json(meta_json),
        updated_at=datetime.fromisoformat(updated),
        created_at=datetime.fromisoformat(created),
    )


def _insert_aside(
    conn: sqlite3.Connection, source: str, key: str, reason: str, content: str
) -> None:
    conn.execute(
        "INSERT INTO set_aside (source, key, reason, set_aside_at, content) VALUES (?, ?, ?, ?, ?)",
        (source, key, reason[:1000], utc_now().isoformat(), content),
    )


def _finished_row(f: FinishedGame, game_id: str | None) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "kind": f.kind,
        "owner_hint": f.owner_hint,
        "finished_at": f.finished_at.isoformat(timespec="seconds"),
        "variant": f.variant,
        "target": f.target,
        "levels": f.levels,
        "seats": _dumps(list(f.seats)),
        "human_seat": f.human_seat,
        "seed": str(f.seed),
        "game_number": f.game_number,
        "scores": _dumps(list(f.scores)),
        "winner": f.winner,
        "won": None if f.won is None else int(f.won),
        "skunk": f.skunk,
        "game_points": f.game_points,
        "deals": f.deals,
        "hands": _dumps(list(f.hands)),
        "counted": f.counted,
        "pegged": f.pegged,
        "best_hand": f.best_hand,
        "takebacks": f.takebacks,
        "record": _dumps(f.record),
    }


def _insert_finished(conn: sqlite3.Connection, row: dict[str, Any]) -> int:
    columns = ", ".join(row)
    marks = ", ".join(f":{k}" for k in row)
    cursor = conn.execute(f"INSERT INTO finished_games ({columns}) VALUES ({marks})", row)
    return int(cursor.lastrowid or 0)


def _finished_dict(raw: dict[str, Any]) -> dict[str, Any]:
    """A row as the history shows it: JSON columns parsed, the seed an int again."""
    item = dict(raw)
    for key in _JSON_COLUMNS:
        item[key] = json.loads(item[key])
    if not isinstance(item["record"], dict):
        raise ValueError("the record is not a JSON object")
    seed = item["seed"]
    item["seed"] = int(seed) if isinstance(seed, str) else checked_int(seed, "seed", limit=2**64)
    if item["won"] is not None:
        item["won"] = bool(item["won"])
    return item


def _finished_json(f: FinishedGame) -> dict[str, Any]:
    data = asdict(f)
    data["finished_at"] = f.finished_at.isoformat()
    data["seed"] = str(f.seed)
    return data


def _finished_from_json(data: dict[str, Any]) -> FinishedGame:
    fields = dict(data)
    fields["finished_at"] = datetime.fromisoformat(fields["finished_at"])
    fields["seed"] = int(fields["seed"])
    for key in ("seats", "scores", "hands"):
        fields[key] = tuple(fields[key])
    return FinishedGame(**fields)


def _rename_aside(path: Path, suffix: str) -> Path:
    target = path.with_name(path.name + suffix)
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}{suffix}{n}")
    try:
        path.rename(target)
    except OSError:
        return path
    return target


@contextlib.contextmanager
def _locked(path: Path, mode: str) -> Iterator[Any]:
    """The journal opened and locked (flock) against other processes doing the same."""
    with open(path, mode, encoding="utf-8") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield fh
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
