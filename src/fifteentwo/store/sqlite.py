"""`SQLiteStore`: the embedded default store, one SQLite file in the data directory.

The logic is `SqlStore`'s; this module is what only a file on this machine needs: WAL mode
(readers never wait for a writer), a busy timeout, every write in ``BEGIN IMMEDIATE`` retried
with back-off while the file is locked, a removed file made again, a file that is not a database
renamed aside, and the journal: when storage stays unavailable (locked, read-only, full,
missing), writes go to JSON lines beside the database and are stored at the next start.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.pool import StaticPool

from fifteentwo.store.base import (
    GameBusy,
    GameMeta,
    StoreError,
    StoreUnavailable,
    data_dir,
)
from fifteentwo.store.schema import (
    SCHEMA_VERSION,
    games_in_progress,
    imports,
    read_time,
    schema_version,
)
from fifteentwo.store.sql import (
    SqlStore,
    Unavailable,
    dumps,
    finished_from_json,
    finished_row,
    insert_aside,
    record_import,
    short,
    why,
)
from fifteentwo.store.upgrade import NotAStore, upgrade

__all__ = ["SCHEMA_VERSION", "STORE_FILE", "SQLiteStore"]

STORE_FILE: Final = "fifteentwo.sqlite3"
JOURNAL_SUFFIX: Final = ".journal"
DEGRADED_SECONDS: Final = 30.0
"""How long after a journalled write later writes skip the back-off."""
_TRANSIENT: Final = ("locked", "busy")

_Unavailable = Unavailable
"""(The name earlier versions and their tests used.)"""


def default_path() -> Path:
    """``fifteentwo.sqlite3`` in the data directory (``$FIFTEENTWO_DATA_DIR`` overrides)."""
    return data_dir() / STORE_FILE


class _HeldConnection:
    """A `StaticPool`'s sqlite3 connection as `SqlStore._raw` and `Prepared.run` use a pooled
    one (its driver connection, commit, rollback, invalidate), without the pool."""

    __slots__ = ("dbapi_connection", "engine", "lost")

    def __init__(self, engine: sa.Engine, conn: sqlite3.Connection) -> None:
        self.engine = engine
        self.dbapi_connection = conn
        self.lost = False

    def cursor(self) -> sqlite3.Cursor:
        return self.dbapi_connection.cursor()

    def commit(self) -> None:
        self.dbapi_connection.commit()

    def rollback(self) -> None:
        self.dbapi_connection.rollback()

    def invalidate(self, exc: BaseException | None = None) -> None:
        self.lost = True


class SQLiteStore(SqlStore):
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
        self.aside_place = f"table set_aside of {self.path}"
        self.journal_path = self.path.with_name(self.path.name + JOURNAL_SUFFIX)
        self.busy_timeout = busy_timeout
        super().__init__(None, retries=retries, backoff=backoff)
        self._journal_told = False
        self._reconnect = False
        """Issue 35: open a fresh connection before the next write (the last one failed)."""
        self._held: _HeldConnection | None = None
        """The connection the hot path uses (`_raw`), with the engine it belongs to."""
        self._degraded_until = 0.0
        """After a write went to the journal, later writes try once (no back-off) for a while,
        so a long lock does not slow every move."""
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

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path,
            timeout=self.busy_timeout,
            isolation_level=None,  # transactions are ours: BEGIN IMMEDIATE for writers
            check_same_thread=False,  # used from worker threads; `_lock` serialises
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            with contextlib.suppress(sqlite3.OperationalError):  # read-only: keep its mode
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.Error:
            conn.close()
            raise
        return conn

    def _new_engine(self) -> sa.Engine:
        engine = sa.create_engine("sqlite://", creator=self._connect, poolclass=StaticPool)

        @sa.event.listens_for(engine, "begin")
        def begin(conn: sa.Connection) -> None:
            statement = conn.get_execution_options().get("sqlite_begin")
            if statement:
                conn.exec_driver_sql(statement)

        return engine

    def _open(self) -> None:
        """Connect, create or migrate the schema. A file that is not a database is renamed
        aside (kept) and a new store started, with one notice."""
        for attempt in range(2):
            engine = self._new_engine()
            try:
                with engine.connect() as conn:
                    sa.inspect(conn).get_table_names()
                self._engine = engine
                self._write_now(lambda c: upgrade(c, str(self.path)))
                return
            except (sa.exc.DBAPIError, sqlite3.Error, NotAStore, Unavailable) as exc:
                engine.dispose()
                self._engine = None
                cause = getattr(exc, "orig", None) or exc
                operational = isinstance(cause, sqlite3.OperationalError | Unavailable)
                if operational or attempt:
                    raise StoreUnavailable(
                        f"cannot use the game store {self.path}: {short(cause)}"
                    ) from None
                kept = _rename_aside(self.path, ".corrupt")
                for extra in ("-wal", "-shm"):
                    side = self.path.with_name(self.path.name + extra)
                    if side.exists():
                        _rename_aside(side, ".corrupt")
                self._notices.append(
                    f"warning: the game store {self.path} could not be read ({short(cause)}); "
                    f"it was kept as {kept} and a new one started"
                )
            except BaseException:
                engine.dispose()
                self._engine = None
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def __enter__(self) -> SQLiteStore:
        return self

    # --- what SQLite decides -------------------------------------------------------------------

    def _connection(self, *, write: bool) -> contextlib.AbstractContextManager[sa.Connection]:
        conn = self._db().connect()
        if write:
            conn = conn.execution_options(sqlite_begin="BEGIN IMMEDIATE")
        return conn

    def _raw_begin(self, write: bool) -> str | None:
        return "BEGIN IMMEDIATE" if write else None

    def _raw_connection(self, engine: sa.Engine) -> Any:
        """The pool's one connection (`StaticPool`), held between `_raw` transactions: a
        checkout and a checkin per step (SQLAlchemy's pool, its events, a rollback at every
        return) were about a seventh of a step's instructions, for a connection that is always
        the same one (docs/web.md, "Hosting at scale"). Calls are one at a time (`_turn`). It
        is found through the pool at the first call, after the engine was made again and after
        the held one was lost."""
        held = self._held
        if held is None or held.engine is not engine or held.lost:
            pooled = engine.raw_connection()
            found = pooled.dbapi_connection  # (the pool's checkin forgets it; StaticPool keeps it)
            pooled.close()
            assert isinstance(found, sqlite3.Connection)
            held = self._held = _HeldConnection(engine, found)
        return held

    def _raw_release(self, pooled: Any) -> None:
        """Keep the held connection; one found lost (`_HeldConnection.invalidate`) is forgotten
        and the pool opens a new one."""
        if isinstance(pooled, _HeldConnection) and pooled.lost:
            self._held = None
            with contextlib.suppress(Exception):
                pooled.engine.pool.dispose()

    def _transient(self, exc: BaseException) -> bool:
        cause = getattr(exc, "orig", None)
        if not isinstance(cause, sqlite3.OperationalError):
            return False
        text = str(cause).lower()
        return any(word in text for word in _TRANSIENT)

    def _write_retries(self) -> int:
        return self.retries if self._well() else 0

    def _well(self) -> bool:
        return time.monotonic() >= self._degraded_until

    def _give_up_at_once(self, exc: BaseException) -> bool:
        # issue 35: after a full disk (or an I/O error) the connection may stay unusable when
        # space returns: the next write opens a fresh one (`_before_write`)
        self._reconnect = True
        return False  # read-only, full, I/O: tried once more, then the journal

    def _before_write(self) -> None:
        """The database file vanished (the data dir was removed): make a new one, so writes
        never go to a deleted file; if that fails the write is journalled. After a write that
        failed for good (a full disk), a fresh connection (issue 35)."""
        if self._engine is not None and os.path.exists(self.path) and not self._reconnect:
            return
        self._reconnect = False
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None
        try:
            self._check_dir()
            self._open()
        except StoreError as exc:
            raise Unavailable(str(exc)) from None

    def write_problem(self) -> str | None:
        """Try an empty write transaction; if storage refuses it for good (not just a lock),
        say why unless the journal can take the games instead."""
        try:
            with self._lock:
                self._before_write()
                with self._connection(write=True) as conn:
                    transaction = conn.begin()
                    try:
                        conn.execute(
                            sa.update(schema_version).values(version=schema_version.c.version)
                        )
                    finally:
                        transaction.rollback()
            return None
        except (sa.exc.DBAPIError, Unavailable, StoreError) as exc:
            if self._transient(exc):
                return None
            problem = why(exc)
        existed = self.journal_path.exists()
        try:
            with open(self.journal_path, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            return f"{problem}; nor can {self.journal_path} be written: {exc.strerror or exc}"
        if not existed:
            with contextlib.suppress(OSError):
                self.journal_path.unlink()
        return None

    def append_move(
        self,
        game_id: str,
        delta: dict[str, Any],
        meta: GameMeta,
        *,
        owner: str,
        expected_version: int | None = None,
    ) -> int | None:
        """`SqlStore.append_move`, except while the journal holds writes: a step must follow
        the full save it extends, which may be in the journal (so save whole until it is
        stored)."""
        if os.path.exists(self.journal_path):  # (os.path: a third of pathlib's cost, per step)
            return None
        return super().append_move(
            game_id, delta, meta, owner=owner, expected_version=expected_version
        )

    # --- the journal ---------------------------------------------------------------------------

    def _keep_elsewhere(self, entry: dict[str, Any], owner: str, at: datetime, why: str) -> None:
        self._journal(entry, owner, at, why)

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
                    except Unavailable:
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
        text = None if data is None else dumps(data)
        rows: list[dict[str, Any]] = []
        if entry["op"] == "save":
            if game_id is None or meta is None or text is None:
                raise KeyError("save without game")
        elif entry["op"] == "finish":
            finished = [finished_from_json(f) for f in entry["finished"]]
            rows = [finished_row(f.checked(), game_id) for f in finished]
        else:
            raise KeyError(f"unknown journal operation {entry['op']!r}")

        def work(conn: sa.Connection) -> bool:
            if conn.execute(sa.select(imports.c.source).where(imports.c.source == key)).first():
                return True
            for row in rows:
                self._insert_finished(conn, row)
            if game_id is not None:
                current = conn.execute(
                    sa.select(games_in_progress.c.updated_at).where(
                        games_in_progress.c.game_id == game_id
                    )
                ).scalar()
                newer = current is not None and read_time(current) > at
                if not newer and entry["op"] == "save":
                    assert text is not None and meta is not None
                    self._check_owner(conn, game_id, owner)
                    self._upsert(conn, game_id, text, meta, at)
                elif not newer and text is None:
                    self._drop_game(conn, game_id)
                elif not newer and meta is not None and text is not None:
                    self._upsert(conn, game_id, text, meta, at)
            record_import(conn, key, str(entry["op"]))
            return True

        try:
            return self._write_now(work)
        except GameBusy:
            return False

    def _quarantine_line(self, line: str, reason: str) -> None:
        def work(conn: sa.Connection) -> None:
            insert_aside(conn, "journal", str(self.journal_path), reason, line)

        with contextlib.suppress(Unavailable):
            self._write_now(work)
            self._notices.append(
                f"warning: a journal entry in {self.journal_path} cannot be stored "
                f"({short(reason)}); it was set aside in table set_aside of {self.path}"
            )


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
