"""`SqlStore`: the one implementation of `Store`, over SQLAlchemy Core, for SQLite and PostgreSQL.

Every call is one transaction. What differs between the databases is small and lives in the two
subclasses: how a connection is made and a writer is serialized (SQLite ``BEGIN IMMEDIATE`` under
a lock, PostgreSQL a pool and advisory locks), which failures are worth a retry, and where a
write goes when storage stays unavailable (SQLite: the journal; PostgreSQL: one error line).
docs/store.md describes the schema and the promises.
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any, Final, TypeVar

import sqlalchemy as sa

try:  # (the web extra: the steps' JSON, `dumps`)
    import orjson
except ImportError:  # pragma: no cover - the core install
    orjson = None  # type: ignore[assignment]
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.sql.dml import ReturningUpdate
from sqlalchemy.sql.expression import ClauseElement

from fifteentwo.store.base import (
    Account,
    AccountExists,
    CorruptGame,
    FinishedGame,
    GameBusy,
    GameConflict,
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
    WebSession,
    checked_int,
    checked_time,
    lease_alive,
    merge_moves,
    new_game_id,
    this_process,
    utc_now,
)
from fifteentwo.store.prepared import Prepared, bind_time
from fifteentwo.store.schema import (
    accounts,
    finished_games,
    game_moves,
    game_saves,
    games_in_progress,
    imports,
    leases,
    rating_changes,
    read_time,
    set_aside,
    settings,
    tables,
    turn_claims,
    web_sessions,
)

__all__ = ["SqlStore", "Unavailable"]

_T = TypeVar("_T")
_JSON_COLUMNS: Final = ("seats", "scores", "hands", "record")
_BAD_ROW: Final = (ValueError, TypeError, KeyError, RecursionError, StoreError)
_DB_ERRORS: Final = (sa.exc.DBAPIError, sa.exc.TimeoutError)
LEASE_FRESH: Final = 30.0
"""A step renews its owner's lease only when it is older than this (leases lapse after ten
minutes, or when their process is gone), saving a write per move."""
HEARTBEAT_BATCH: Final = 100
"""Leases renewed per transaction by `SqlStore.heartbeat_many` (a few milliseconds each)."""
_IN_CHUNK: Final = 500
"""Ids per ``IN (...)`` query (SQLite's limit on parameters)."""


class Unavailable(Exception):
    """Storage could not be written after the retries (locked, read-only, full, gone)."""


class _Unserialized:
    """The lock of a store whose calls may run at once (`SqlStore.serialized` False): taking
    it never waits."""

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        return True

    def release(self) -> None:
        pass

    def __enter__(self) -> bool:
        return True

    def __exit__(self, *exc: object) -> None:
        pass


class SqlStore(Store):
    """Games, finished games, settings, accounts and tables in one database (see the module)."""

    location: str
    serialized: bool = True
    """Whether one thread at a time may use the store (`_lock`): SQLite's one connection."""
    aside_place: str
    """Where set-aside rows are kept, for messages (``table set_aside of PATH``)."""
    _lost_at: float = float("-inf")
    """When `_raw` last saw a lost connection (`time.monotonic`): PostgreSQL pings the
    connections pooled before it (`PostgresStore._ping_when_idle`)."""

    def __init__(self, engine: sa.Engine | None, *, retries: int, backoff: float) -> None:
        self._engine: sa.Engine | None = engine
        self.retries = retries
        self.backoff = backoff
        self._notices: list[str] = []
        self._lock: threading.RLock | _Unserialized = (
            threading.RLock() if self.serialized else _Unserialized()
        )
        """Held by every call (`serialized`): SQLite's one connection, one thread at a time;
        PostgreSQL's pool lets each thread have its own connection, so it holds nothing."""
        self._metas: dict[int, tuple[GameMeta, GameMeta, str]] = {}
        """`_checked_meta`'s objects, by id."""
        # issue 35: a call's retries stop at a deadline (PostgreSQL sets one), shorter while the
        # database is known to be down, so a move always gets an answer in time
        self.deadline = float("inf")
        self.down_wait = float("inf")
        self._down_since: float | None = None
        self._probing = threading.Lock()
        """`_turn`: held by the one call finding out whether a database that is down is back."""
        self._prober: int | None = None
        """The thread holding `_probing`: a store call it makes inside its own goes through."""
        self._prepared: dict[str, Prepared] = {}

    @contextlib.contextmanager
    def idle(self, wait: float = 0.0) -> Iterator[bool]:
        """Whether this process may use the store now, having waited at most ``wait``
        seconds for its other threads to leave it, and no failure is being waited out.
        While True the store is held for the caller, whose own calls go straight in: a
        server's event loop writes a quick move there instead of handing it to a thread
        (issue 32), never waiting long on the store."""
        if self._down_since is not None or not self._well():
            yield False  # (failing: its retries would keep the caller waiting)
            return
        if not self._lock.acquire(timeout=wait):
            yield False
            return
        try:
            yield self._down_since is None and self._well()
        finally:
            self._lock.release()

    def _well(self) -> bool:
        """Whether the last writes went through (no journal, no retries being cut short)."""
        return True

    def _hot(self, name: str, build: Callable[[], ClauseElement]) -> Prepared:
        """A statement of the hot path (a web action), compiled once for this database."""
        found = self._prepared.get(name)
        if found is None:
            found = self._prepared[name] = Prepared(build(), self._db().dialect)
        return found

    # --- what each database decides ------------------------------------------------------------

    def _connection(self, *, write: bool) -> contextlib.AbstractContextManager[sa.Connection]:
        """A connection for one transaction (a writer's takes the database's write lock)."""
        return self._db().connect()

    def _transient(self, exc: BaseException) -> bool:
        """Whether a failure may pass if tried again (a lock, a lost connection)."""
        return isinstance(exc, sa.exc.TimeoutError)

    def _write_retries(self) -> int:
        return self.retries

    def _give_up_at_once(self, exc: BaseException) -> bool:
        """Whether a failure that is not transient is reported at once (not retried once)."""
        return True

    def _lock_game(self, conn: Any, game_id: str) -> bool:
        """Serialize writers of one game for this transaction; whether the game exists."""
        query = self._hot(
            "lock-game",
            lambda: (
                sa.select(games_in_progress.c.game_id)
                .where(games_in_progress.c.game_id == sa.bindparam("game_id"))
                .with_for_update()
            ),
        )
        return query.run(conn, game_id=game_id).first() is not None

    def _next_seq(self) -> Any:
        """The order number of the latest play (an SQL expression)."""
        return sa.select(
            sa.func.coalesce(sa.func.max(games_in_progress.c.seq), 0) + 1
        ).scalar_subquery()

    def _insert(self, table: sa.Table) -> sqlite.Insert | postgresql.Insert:
        return sqlite.insert(table)

    def _upsert_into(
        self,
        table: sa.Table,
        key: str,
        values: dict[str, Any],
        *,
        keep: Sequence[str] = (),
        where: sa.ColumnElement[bool] | None = None,
    ) -> sqlite.Insert | postgresql.Insert:
        """``INSERT ... ON CONFLICT (key) DO UPDATE``: one way to write a row keyed by one
        column on both databases. A conflict overwrites every column of ``values`` but the key
        and ``keep`` (in their order), only where ``where`` holds when given."""
        insert = self._insert(table).values(**values)
        changed = [name for name in values if name != key and name not in keep]
        return insert.on_conflict_do_update(
            index_elements=[table.c[key]],
            set_={name: insert.excluded[name] for name in changed},
            where=where,
        )

    def _keep_elsewhere(self, entry: dict[str, Any], owner: str, at: datetime, why: str) -> None:
        """A game's write that storage refused: keep it elsewhere or raise `StoreUnavailable`."""
        raise StoreUnavailable(f"cannot save to the game store {self.location}: {why}")

    # --- connections and transactions ----------------------------------------------------------

    def _db(self) -> sa.Engine:
        if self._engine is None:
            raise StoreError(f"the game store {self.location} is closed")
        return self._engine

    def close(self) -> None:
        """Close the connections (the store may not be used afterwards)."""
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def __enter__(self) -> SqlStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write_now(self, work: Callable[[Any], _T], *, raw: bool = False) -> _T:
        """Run ``work`` in one write transaction, retrying with back-off while the failure may
        pass; raise `Unavailable` when it stays, `StoreError` for one that never will.
        ``raw``: ``work`` is given the pool's DBAPI connection (`_raw`), for `Prepared`
        statements only."""
        with self._turn():
            return self._write_locked(work, raw=raw)

    @contextlib.contextmanager
    def _turn(self) -> Iterator[None]:
        """A call's turn at the database: `_lock` (SQLite: one thread at a time). While the
        database is known to be down, a store whose calls run side by side (PostgreSQL) sends
        one call at a time to find out whether it is back, and the others raise `Unavailable`
        at once: a server that stopped answering costs each of them its connect timeout (5 s)
        otherwise, and the web server's threads with them."""
        with self._lock:
            if self.serialized or self._down_since is None or self._prober == threading.get_ident():
                yield
                return
            if not self._probing.acquire(blocking=False):
                raise Unavailable(
                    "it is not answering (another call is finding out whether it is back)"
                )
            self._prober = threading.get_ident()
            try:
                yield
            finally:
                self._prober = None
                self._probing.release()

    def _write_locked(self, work: Callable[[Any], _T], *, raw: bool = False) -> _T:
        self._before_write()
        delay = self.backoff
        last: BaseException | None = None
        retries = self._write_retries()
        give_up = self._give_up_at()
        for attempt in range(retries + 1):
            try:
                if raw:
                    with self._raw(write=True) as dbapi:
                        result = work(dbapi)
                else:
                    with self._connection(write=True) as conn, conn.begin():
                        result = work(conn)
                self._down_since = None
                return result
            except _DB_ERRORS as exc:
                last = exc
                transient = self._transient(exc)
                if not transient and self._give_up_at_once(exc):
                    raise StoreError(
                        f"cannot write the game store {self.location}: {why(exc)}"
                    ) from None
                if (
                    (not transient and attempt >= 1)
                    or attempt == retries
                    or time.monotonic() + delay >= give_up  # issue 35
                ):
                    break
                time.sleep(delay)
                delay *= 2
        self._down_since = self._down_since or time.monotonic()
        raise Unavailable(why(last))

    def _before_write(self) -> None:
        """Make sure there is something to write to (SQLite: a removed file is made again)."""

    _reads_alone: bool = False
    """A `_raw` read runs outside a transaction (PostgreSQL: autocommit): the one-statement
    reads of the hot path (`game_version`, before every web move there) then cost one round
    trip to the server instead of three (begin, the read, commit)."""

    def _raw_begin(self, write: bool) -> str | None:
        """The statement that begins a `_raw` transaction (None: the driver begins one)."""
        return None

    @contextlib.contextmanager
    def _raw(self, *, write: bool) -> Iterator[PoolProxiedConnection]:
        """One transaction on the pool's DBAPI connection itself, for the hot path's `Prepared`
        statements: what `_connection` and ``begin()`` do (the pool, its checks, the SQLite
        writer's ``BEGIN IMMEDIATE``, commit or rollback) without SQLAlchemy's `Connection`,
        which cost a web action about a tenth of its CPU. A driver error is raised as
        SQLAlchemy's (`DBAPIError` and its kinds), so the retries treat both paths alike."""
        engine = self._db()
        dialect = engine.dialect
        error = dialect.loaded_dbapi.Error
        try:
            pooled = self._raw_connection(engine)
        except error as exc:
            raise sa.exc.DBAPIError.instance(None, None, exc, error, dialect=dialect) from exc
        alone = not write and self._reads_alone
        try:
            if alone:
                pooled.dbapi_connection.autocommit = True  # type: ignore[union-attr]
            begin = self._raw_begin(write)
            if begin is not None:
                pooled.cursor().execute(begin)
            yield pooled
            pooled.commit()
        except BaseException as exc:
            with contextlib.suppress(Exception):
                pooled.rollback()
            if not isinstance(exc, error):
                raise
            lost = dialect.is_disconnect(exc, pooled.dbapi_connection, None)
            if lost:
                self._lost_at = time.monotonic()  # the others in the pool may be gone too
                pooled.invalidate(exc)
            raise sa.exc.DBAPIError.instance(
                None, None, exc, error, connection_invalidated=lost, dialect=dialect
            ) from exc
        finally:
            if alone:
                with contextlib.suppress(Exception):  # (a lost connection has none)
                    pooled.dbapi_connection.autocommit = False  # type: ignore[union-attr]
            self._raw_release(pooled)

    def _raw_connection(self, engine: sa.Engine) -> PoolProxiedConnection:
        """The connection a `_raw` transaction runs on: one checked out of the pool."""
        return engine.raw_connection()

    def _raw_release(self, pooled: PoolProxiedConnection) -> None:
        """Give back what `_raw_connection` gave (to the pool; an invalidated one is dropped)."""
        pooled.close()

    def _read(self, work: Callable[[Any], _T], *, raw: bool = False) -> _T:
        """Run a read; a database that stays unavailable is one `StoreUnavailable` line, any
        other failure one `StoreError` line. ``raw``: as for `_write_now`."""
        try:
            with self._turn():
                return self._read_turn(work, raw=raw)
        except Unavailable as exc:
            raise StoreUnavailable(f"cannot read the game store {self.location}: {exc}") from None

    def _read_turn(self, work: Callable[[Any], _T], *, raw: bool) -> _T:
        delay = self.backoff
        give_up = self._give_up_at()
        for attempt in range(self.retries + 1):
            try:
                if raw:
                    with self._raw(write=False) as dbapi:
                        result = work(dbapi)
                else:
                    with self._connection(write=False) as conn, conn.begin():
                        result = work(conn)
                self._down_since = None
                return result
            except _DB_ERRORS as exc:
                message = f"cannot read the game store {self.location}: {why(exc)}"
                if not self._transient(exc):
                    raise StoreError(message) from None
                if attempt == self.retries or time.monotonic() + delay >= give_up:
                    self._down_since = self._down_since or time.monotonic()
                    raise StoreUnavailable(message) from None
                time.sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")  # pragma: no cover

    def _write_or_fail(
        self, work: Callable[[Any], _T], what: str = "write", *, raw: bool = False
    ) -> _T:
        """A write with no journal behind it: unavailable storage is one `StoreUnavailable`."""
        try:
            return self._write_now(work, raw=raw)
        except Unavailable as exc:
            raise StoreUnavailable(f"cannot {what} the game store {self.location}: {exc}") from None

    def _checked_meta(self, meta: GameMeta) -> tuple[GameMeta, str]:
        """``meta`` checked (`GameMeta.checked`) and as the JSON a row keeps, each made once
        per object: a session hands the same object while nothing in it changed
        (`Session.meta`), where every move checked and encoded it anew. Kept by identity,
        with the object itself (frozen), so an id is never reused."""
        known = self._metas.get(id(meta))
        if known is not None and known[0] is meta:
            return known[1], known[2]
        checked = meta.checked()
        text = dumps(checked.to_json())
        if len(self._metas) >= 4096:
            self._metas.clear()  # (the games of the last moments refill it)
        self._metas[id(meta)] = (meta, checked, text)
        self._metas[id(checked)] = (checked, checked, text)
        return checked, text

    # --- ownership -----------------------------------------------------------------------------

    def _check_owner(self, conn: Any, game_id: str, owner: str) -> bool:
        """Raise `GameBusy` if a live session other than ``owner`` holds the game; whether
        ``owner``'s own lease from this process beat in the last `LEASE_FRESH` seconds."""
        lease = self._hot(
            "lease",
            lambda: (
                sa.select(leases.c.owner, leases.c.pid, leases.c.host, leases.c.heartbeat)
                .where(leases.c.game_id == sa.bindparam("game_id"))
                .with_for_update()
            ),
        )
        return self._judge_lease(lease.run(conn, game_id=game_id).first(), game_id, owner)

    def _judge_lease(self, row: Any, game_id: str, owner: str) -> bool:
        """`_check_owner` of the lease ``row`` read (owner, pid, host, heartbeat; None or a row
        of None: no lease)."""
        if row is None or row[0] is None:
            return False
        _holder, pid, host, beat = row
        if row[0] == owner:
            me = this_process(owner)
            return (pid, host) == (me.pid, me.host) and time.time() - float(beat) < LEASE_FRESH
        if lease_alive(int(pid), str(host), float(beat)):
            where = f"process {pid}" if host == this_process("").host else f"{host}"
            raise GameBusy(
                f"game {game_id} is being played in another session ({where}); "
                "finish or quit it there first"
            )
        return False

    def _take(self, conn: Any, game_id: str, owner: str) -> None:
        me = this_process(owner)
        take = self._hot("take", self._take_statement)
        take.run(
            conn, game_id=game_id, owner=owner, pid=me.pid, host=me.host, heartbeat=time.time()
        )

    def _take_statement(self) -> ClauseElement:
        """The game's lease, made or handed to this owner and process (a fresh heartbeat)."""
        values = _bound("game_id", ("owner", "pid", "host", "heartbeat"))
        return self._upsert_into(leases, "game_id", values)

    def claim(self, game_id: str, *, owner: str) -> None:
        def work(conn: sa.Connection) -> None:
            if not self._lock_game(conn, game_id):
                raise GameNotFound(
                    f"there is no saved game {game_id!r} ('cribbage saved' lists them)"[:200]
                )
            self._check_owner(conn, game_id, owner)
            self._take(conn, game_id, owner)

        self._write_or_fail(work, f"take game {game_id} in")

    def release(self, game_id: str, *, owner: str) -> None:
        def work(conn: sa.Connection) -> None:
            conn.execute(
                sa.delete(leases).where(leases.c.game_id == game_id, leases.c.owner == owner)
            )

        with contextlib.suppress(Unavailable, StoreUnavailable):  # a dead lease lapses anyway
            self._write_now(work)

    def heartbeat(self, game_id: str, *, owner: str) -> None:
        with contextlib.suppress(Unavailable):
            self._write_now(lambda conn: self._renew(conn, game_id, owner))

    def _renew(self, conn: Any, game_id: str, owner: str) -> None:
        """A game's lease renewed for ``owner`` (`GameBusy` if a live session holds it)."""
        self._lock_game(conn, game_id)
        self._check_owner(conn, game_id, owner)
        self._take(conn, game_id, owner)

    def heartbeat_many(self, game_ids: Sequence[str], *, owner: str) -> None:
        """`heartbeat` for many games, `HEARTBEAT_BATCH` to a transaction: a server renews a
        thousand leases in a few short writes, not a thousand (issue 32: one write each kept
        the store from the moves for a second every minute)."""
        for start in range(0, len(game_ids), HEARTBEAT_BATCH):
            chunk = game_ids[start : start + HEARTBEAT_BATCH]

            def work(conn: Any, chunk: Sequence[str] = chunk) -> None:
                for game_id in chunk:
                    with contextlib.suppress(GameBusy):  # (held by a live session: its own)
                        self._renew(conn, game_id, owner)

            with contextlib.suppress(Unavailable):
                self._write_now(work, raw=True)

    # --- games in progress ---------------------------------------------------------------------

    def create_game(self, data: dict[str, Any], meta: GameMeta, *, owner: str) -> str:
        game_id = new_game_id()
        self.save_game(game_id, data, meta, owner=owner)
        return game_id

    def save_game(
        self,
        game_id: str,
        data: dict[str, Any],
        meta: GameMeta,
        *,
        owner: str,
        expected_version: int | None = None,
    ) -> int | None:
        """`Store.save_game`; returns the game's new version (None: kept in the journal).
        With ``expected_version``, `GameConflict` (nothing written) when the stored game is
        at another version."""
        check_id(game_id)
        meta = self._checked_meta(meta)[0]
        text = dumps(data)
        now = utc_now()

        def work(conn: Any) -> int:
            self._lock_game(conn, game_id)
            self._check_owner(conn, game_id, owner)
            self._expect_version(conn, game_id, expected_version)
            version = self._upsert(conn, game_id, text, meta, now)
            self._take(conn, game_id, owner)
            return version

        try:
            return self._write_now(work, raw=True)  # (every statement a `Prepared` one)
        except Unavailable as exc:
            entry = {"op": "save", "game_id": game_id, "data": data, "meta": meta.to_json()}
            self._keep_elsewhere(entry, owner, now, str(exc))
            return None

    def _upsert(self, conn: Any, game_id: str, text: str, meta: GameMeta, now: datetime) -> int:
        """A game's full save written (made or replaced), its steps deleted (superseded);
        its new version. ``conn``: a `Connection` or a `_raw` one (`Prepared` statements)."""
        upsert = self._hot("upsert", self._upsert_statement)
        save = self._hot("save", self._save_statement)
        delete = self._hot(
            "delete-steps",
            lambda: sa.delete(game_moves).where(game_moves.c.game_id == sa.bindparam("game_id")),
        )
        at = bind_time(now, self._db().dialect)
        version = upsert.run(
            conn,
            game_id=game_id,
            v_kind=meta.kind,
            v_owner_hint=meta.owner_hint,
            v_meta=self._checked_meta(meta)[1],
            v_created_at=at,
            v_updated_at=at,
        ).scalar()
        if version is None:
            raise StoreError(f"game {game_id} was not written")
        save.run(conn, game_id=game_id, v_data=text)
        delete.run(conn, game_id=game_id)
        return int(version)

    def _save_statement(self) -> ClauseElement:
        """A game's full save text, made or replaced (`game_saves`)."""
        return self._upsert_into(game_saves, "game_id", _bound("game_id", ("data",), "v_"))

    def _upsert_statement(self) -> ClauseElement:
        """A game's row: made, or replaced but for when it was made."""
        names = ("kind", "owner_hint", "meta", "created_at", "updated_at")
        values = _bound("game_id", names, "v_") | {"seq": self._next_seq()}
        upsert = self._upsert_into(games_in_progress, "game_id", values, keep=("created_at",))
        return upsert.returning(games_in_progress.c.seq)

    def append_move(
        self,
        game_id: str,
        delta: dict[str, Any],
        meta: GameMeta,
        *,
        owner: str,
        expected_version: int | None = None,
    ) -> int | None:
        """One small row per step (O(1) whatever the game's length); the game's details and
        order of play are updated in place, its full save is not rewritten. With
        ``expected_version`` the step is written only onto that version (compare and swap)."""
        check_id(game_id)
        meta, meta_text = self._checked_meta(meta)
        text = dumps(delta)
        checked = expected_version is not None
        values = {
            "game_id": game_id,
            "v_kind": meta.kind,
            "v_owner_hint": meta.owner_hint,
            "v_meta": meta_text,
            "v_updated_at": bind_time(utc_now(), self._db().dialect),
        }
        if expected_version is not None:
            values["expected"] = checked_int(expected_version, "version", limit=2**62)

        def work(conn: Any) -> int | None:
            version, fresh = self._write_step(conn, values, text, owner, checked=checked)
            if version is None:
                if expected_version is not None and self._version(conn, game_id) is not None:
                    raise GameConflict(f"game {game_id} was moved on in another process")
                return None
            if not fresh:
                self._take(conn, game_id, owner)
            return int(version)

        try:
            return self._write_now(work, raw=True)
        except Unavailable:
            return None  # the caller saves the whole game (journalled if need be)

    def _write_step(
        self, conn: Any, values: dict[str, Any], text: str, owner: str, *, checked: bool
    ) -> tuple[int | None, bool]:
        """A step's statements: the lease checked (`GameBusy`), the game's row updated (only
        at ``values["expected"]`` when ``checked``) and, if it was, the step's row added; the
        game's new version (None: not updated) and whether ``owner``'s lease is fresh."""
        game_id = values["game_id"]
        fresh = self._check_owner(conn, game_id, owner)
        # The game's kind and owner never change in a step but where a guest's game passes to
        # an account, and setting an indexed column rewrites its index entry even to the same
        # value (two more pages for SQLite to write at every step): so the update that leaves
        # them is tried first, and the whole one only where they moved (or nothing was found).
        same = self._hot(f"step-update-same-{checked}", lambda: self._step_update(checked, True))
        version = same.run(conn, **values).scalar()  # (the row lock serializes writers)
        if version is None:
            update = self._hot(f"step-update-{checked}", lambda: self._step_update(checked))
            version = update.run(conn, **values).scalar()
        if version is not None:
            insert = self._hot("step-insert", self._step_insert)
            insert.run(conn, game_id=game_id, data=text)
        return version, fresh

    def _step_update(self, checked: bool, same: bool = False) -> ReturningUpdate[tuple[int]]:
        """A step's update of its game's row (only at ``:expected`` when ``checked``); ``same``:
        only where its kind and owner are already ``:v_kind`` and ``:v_owner_hint``, which it
        then leaves as they are."""
        row = games_in_progress.c
        where = [row.game_id == sa.bindparam("game_id")]
        if checked:
            where.append(row.seq == sa.bindparam("expected"))
        keys: dict[str, Any] = {}
        if same:
            where += [
                row.kind == sa.bindparam("v_kind"),
                row.owner_hint == sa.bindparam("v_owner_hint"),
            ]
        else:
            keys = {"kind": sa.bindparam("v_kind"), "owner_hint": sa.bindparam("v_owner_hint")}
        return (
            sa.update(games_in_progress)
            .where(*where)
            .values(
                **keys,
                meta=sa.bindparam("v_meta"),
                updated_at=sa.bindparam("v_updated_at"),
                seq=self._next_seq(),
            )
            .returning(row.seq)
        )

    def _step_insert(self) -> ClauseElement:
        """A step's row, numbered after the game's last."""
        return sa.insert(game_moves).values(
            game_id=sa.bindparam("game_id"), n=next_step_number(), data=sa.bindparam("data")
        )

    def _version(self, conn: Any, game_id: str) -> int | None:
        query = self._hot(
            "version",
            lambda: sa.select(games_in_progress.c.seq).where(
                games_in_progress.c.game_id == sa.bindparam("game_id")
            ),
        )
        version = query.run(conn, game_id=game_id).scalar()
        return None if version is None else int(version)

    def _expect_version(self, conn: Any, game_id: str, expected: int | None) -> None:
        """`GameConflict` when ``expected`` is given and the stored game is not at it (moved
        on, or gone): the full save's and the finish's compare and swap."""
        if expected is not None and self._version(conn, game_id) != expected:
            raise GameConflict(f"game {game_id} was moved on in another process")

    def game_version(self, game_id: str) -> int | None:
        return self._read(lambda c: self._version(c, game_id), raw=True)

    def claim_turn(self, game_id: str, version: int, *, owner: str, seconds: float) -> bool:
        """One row per game: taken over when it names another version, has lapsed, or is the
        claimant's own; else refused (one statement, atomic on both databases)."""
        check_id(game_id)
        now = time.time()
        statement = self._hot("claim", self._claim_statement)
        values = {
            "game_id": game_id,
            "c_version": checked_int(version, "version", limit=2**62),
            "c_owner": owner,
            "c_until": now + float(seconds),
            "now": now,
        }
        return self._write_or_fail(
            lambda c: statement.run(c, **values).first() is not None, raw=True
        )

    def _claim_statement(self) -> ClauseElement:
        """The turn's claim: taken over only from another version, a lapsed one or one's own."""
        held = turn_claims.c
        values = _bound("game_id", ("version", "owner", "until"), "c_")
        taken_over = sa.or_(
            held.version != sa.bindparam("c_version"),
            held.until < sa.bindparam("now"),
            held.owner == sa.bindparam("c_owner"),
        )
        claim = self._upsert_into(turn_claims, "game_id", values, where=taken_over)
        return claim.returning(held.owner)

    _GAME_COLUMNS: Final = (
        games_in_progress.c.game_id,
        games_in_progress.c.meta,
        game_saves.c.data,
        games_in_progress.c.created_at,
        games_in_progress.c.updated_at,
        games_in_progress.c.seq,
    )
    _GAMES: Final = games_in_progress.outerjoin(
        game_saves, game_saves.c.game_id == games_in_progress.c.game_id
    )
    """A game's row with its full save (a row without one is read as unreadable: set aside)."""

    def load_game(self, game_id: str) -> SavedGame:
        query = (
            sa.select(*self._GAME_COLUMNS)
            .select_from(self._GAMES)
            .where(games_in_progress.c.game_id == game_id)
        )

        def read(conn: sa.Connection) -> tuple[Any, list[str]]:
            return conn.execute(query).first(), _moves_of(conn, [game_id]).get(game_id, [])

        row, moves = self._read(read)
        if row is None:
            raise GameNotFound(f"there is no saved game {game_id!r}"[:200])
        try:
            return _saved_game(tuple(row), moves)
        except _BAD_ROW as exc:
            where = self.set_aside(game_id, str(exc))
            raise CorruptGame(
                f"saved game {game_id} cannot be read ({short(exc)}); {where}"
            ) from None

    def list_games(self, *, owner_hint: str | None = None) -> list[SavedGame]:
        query = (
            sa.select(*self._GAME_COLUMNS)
            .select_from(self._GAMES)
            .order_by(games_in_progress.c.seq.desc())
        )
        if owner_hint is not None:
            query = query.where(games_in_progress.c.owner_hint == owner_hint)

        def read(conn: sa.Connection) -> tuple[list[Any], dict[str, list[str]]]:
            rows = list(conn.execute(query).all())
            return rows, _moves_of(conn, [str(r[0]) for r in rows])

        rows, moves = self._read(read)
        out = []
        for row in rows:
            try:
                out.append(_saved_game(tuple(row), moves.get(str(row[0]), [])))
            except _BAD_ROW as exc:
                where = self.set_aside(str(row[0]), str(exc))
                self._notices.append(
                    f"warning: saved game {row[0]} cannot be read ({short(exc)}); {where}"
                )
        return out

    def delete_game(self, game_id: str, *, owner: str) -> None:
        def work(conn: sa.Connection) -> None:
            if not self._lock_game(conn, game_id):
                raise GameNotFound(f"there is no saved game {game_id!r}"[:200])
            self._check_owner(conn, game_id, owner)
            self._drop_game(conn, game_id)

        self._write_or_fail(work, f"abandon game {game_id} in")

    def set_aside(self, game_id: str, reason: str) -> str:
        def work(conn: sa.Connection) -> bool:
            row = conn.execute(
                sa.select(games_in_progress)
                .where(games_in_progress.c.game_id == game_id)
                .with_for_update()
            ).first()
            if row is None:
                return False
            moves = _moves_of(conn, [game_id]).get(game_id, [])
            save = conn.execute(
                sa.select(game_saves.c.data).where(game_saves.c.game_id == game_id)
            ).scalar()
            content = json.dumps({**row._mapping, "data": save, "moves": moves}, default=str)
            insert_aside(conn, "games_in_progress", game_id, reason, content)
            self._drop_game(conn, game_id)
            return True

        try:
            moved = self._write_now(work)
        except (Unavailable, StoreError):
            return "it was left where it is (the store is unavailable)"
        if not moved:
            return "it is no longer in the store"
        return f"it was set aside (kept in {self.aside_place})"

    # --- finished games ------------------------------------------------------------------------

    def finish_game(
        self,
        game_id: str | None,
        finished: Sequence[FinishedGame],
        data: dict[str, Any] | None,
        meta: GameMeta | None = None,
        *,
        owner: str | None = None,
        expected_version: int | None = None,
    ) -> list[int]:
        rows = [finished_row(f.checked(), game_id) for f in finished]
        if data is not None:
            if game_id is None or meta is None:
                raise StoreError("a match that goes on needs its game id and details")
            meta = meta.checked()
        text = None if data is None else dumps(data)
        now = utc_now()

        def work(conn: Any) -> list[int]:
            if game_id is not None:
                self._lock_game(conn, game_id)
                if owner is not None:
                    self._check_owner(conn, game_id, owner)
                self._expect_version(conn, game_id, expected_version)
            ids = [self._insert_finished(conn, row) for row in rows]
            if game_id is not None:
                if text is None:
                    self._drop_game(conn, game_id)
                else:
                    assert meta is not None
                    self._upsert(conn, game_id, text, meta, now)
                    if owner is not None:
                        self._take(conn, game_id, owner)
            return ids

        try:
            return self._write_now(work, raw=True)  # (every statement a `Prepared` one)
        except Unavailable as exc:
            entry = {
                "op": "finish",
                "game_id": game_id,
                "finished": [finished_json(f) for f in finished],
                "data": data,
                "meta": None if meta is None else meta.to_json(),
            }
            self._keep_elsewhere(entry, owner or "", now, str(exc))
            return []

    def _insert_finished(self, conn: Any, row: dict[str, Any]) -> int:
        """One finished row (`finished_row`) inserted, a `Prepared` statement (the end of
        every web game); its id."""
        insert = self._hot(
            "insert-finished",
            lambda: (
                sa.insert(finished_games)
                .values({name: sa.bindparam(f"v_{name}") for name in _FINISHED_VALUES})
                .returning(finished_games.c.id)
            ),
        )
        return int(insert.run(conn, **{f"v_{k}": v for k, v in row.items()}).scalar())

    def _drop_game(self, conn: Any, game_id: str) -> None:
        """A game in progress and everything kept beside it deleted (it finished or was
        deleted), as `Prepared` statements (the end of every web game)."""
        for table in (games_in_progress, game_saves, turn_claims, game_moves, leases):
            delete = self._hot(f"drop-{table.name}", functools.partial(_delete_by_game, table))
            delete.run(conn, game_id=game_id)

    def finished_games(
        self, limit: int | None = None, *, owner_hint: str | None = None
    ) -> list[dict[str, Any]]:
        query = sa.select(finished_games).order_by(finished_games.c.id.desc())
        if owner_hint is not None:
            query = query.where(finished_games.c.owner_hint == owner_hint)
        if limit is not None:
            query = query.limit(checked_int(limit, "limit"))
        out = []
        for raw in self._read(lambda c: [dict(r._mapping) for r in c.execute(query)]):
            try:
                out.append(_finished_dict(raw))
            except _BAD_ROW as exc:
                self._set_aside_finished(raw, str(exc))
        return out

    def finished_game(self, row_id: int) -> dict[str, Any]:
        checked_int(row_id, "game id", limit=2**62)
        query = sa.select(finished_games).where(finished_games.c.id == row_id)
        rows = self._read(lambda c: [dict(r._mapping) for r in c.execute(query)])
        if not rows:
            raise GameNotFound(f"no finished game with id {row_id}")
        try:
            return _finished_dict(rows[0])
        except _BAD_ROW as exc:
            where = self._set_aside_finished(rows[0], str(exc))
            raise CorruptGame(
                f"finished game {row_id} cannot be read ({short(exc)}); {where}"
            ) from None

    def _set_aside_finished(self, raw: dict[str, Any], reason: str) -> str:
        content = json.dumps(raw, default=str)

        def work(conn: sa.Connection) -> None:
            insert_aside(conn, "finished_games", str(raw.get("id")), reason, content)
            conn.execute(sa.delete(finished_games).where(finished_games.c.id == raw.get("id")))

        try:
            self._write_now(work)
        except (Unavailable, StoreError):
            where = "it was left where it is (the store is unavailable)"
        else:
            where = f"it was set aside (kept in {self.aside_place})"
        self._notices.append(
            f"warning: finished game {raw.get('id')} cannot be read ({short(reason)}); {where}"
        )
        return where

    def totals(self, *, owner_hint: str | None = None) -> list[Totals]:
        f = finished_games.c

        def count_if(condition: sa.ColumnElement[bool]) -> Any:
            return sa.func.sum(sa.case((condition, 1), else_=0))

        query = (
            sa.select(
                f.levels,
                f.variant,
                sa.func.count(),
                sa.func.sum(f.won),
                sa.func.sum(1 - f.won),
                count_if(sa.and_(f.won == 1, f.skunk > 0)),
                count_if(sa.and_(f.won == 0, f.skunk > 0)),
                sa.func.sum(f.pegged),
                sa.func.sum(f.counted),
                sa.func.sum(f.deals),
                sa.func.max(f.best_hand),
            )
            .where(f.human_seat.is_not(None))
            .group_by(f.levels, f.variant)
            .order_by(f.levels, f.variant)
        )
        if owner_hint is not None:
            query = query.where(f.owner_hint == owner_hint)
        rows = self._read(lambda c: c.execute(query).all())
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

    def get_setting(self, key: str) -> str | None:
        query = sa.select(settings.c.value).where(settings.c.key == key)
        value = self._read(lambda c: c.execute(query).scalar())
        return None if value is None else str(value)

    def set_setting(self, key: str, value: str) -> None:
        statement = self._upsert_into(settings, "key", {"key": str(key), "value": str(value)})
        self._write_or_fail(lambda c: c.execute(statement))

    def create_account(self, username: str, password_hash: str) -> Account:
        account = Account(new_game_id(), username, password_hash, utc_now())
        statement = (
            self._insert(accounts)
            .values(
                account_id=account.account_id,
                username=username,
                username_key=username.casefold(),
                password_hash=password_hash,
                created_at=account.created_at,
                rating=account.rating,
                rd=account.rd,
                volatility=account.volatility,
                rated_games=0,
            )
            .on_conflict_do_nothing(index_elements=[accounts.c.username_key])
            .returning(accounts.c.account_id)
        )

        def work(conn: sa.Connection) -> None:
            if conn.execute(statement).first() is None:
                raise AccountExists(f"the username {username!r} is taken"[:200])

        self._write_or_fail(work)
        return account

    _ACCOUNT_COLUMNS: Final = (
        accounts.c.account_id,
        accounts.c.username,
        accounts.c.password_hash,
        accounts.c.created_at,
        accounts.c.rating,
        accounts.c.rd,
        accounts.c.volatility,
        accounts.c.rated_games,
    )

    def _account_where(self, condition: sa.ColumnElement[bool]) -> Account | None:
        query = sa.select(*self._ACCOUNT_COLUMNS).where(condition)
        row = self._read(lambda c: c.execute(query).first())
        return None if row is None else _account(tuple(row))

    def account(self, account_id: str) -> Account | None:
        return self._account_where(accounts.c.account_id == account_id)

    def account_by_name(self, username: str) -> Account | None:
        return self._account_where(accounts.c.username_key == username.casefold())

    def set_password_hash(self, account_id: str, password_hash: str) -> None:
        statement = (
            sa.update(accounts)
            .where(accounts.c.account_id == account_id)
            .values(password_hash=password_hash)
        )
        self._write_or_fail(lambda c: c.execute(statement))

    def save_ratings(self, updates: Sequence[RatingUpdate]) -> None:
        at = utc_now()

        def work(conn: sa.Connection) -> None:
            for u in updates:
                conn.execute(
                    sa.update(accounts)
                    .where(accounts.c.account_id == u.account_id)
                    .values(
                        rating=float(u.rating),
                        rd=float(u.rd),
                        volatility=float(u.volatility),
                        rated_games=accounts.c.rated_games + 1,
                    )
                )
                conn.execute(  # issue 35: the change is kept
                    sa.insert(rating_changes).values(
                        account_id=u.account_id,
                        game=u.game,
                        before=float(u.rating if u.before is None else u.before),
                        after=float(u.rating),
                        rd=float(u.rd),
                        outcome=u.outcome,
                        at=at,
                    )
                )

        self._write_or_fail(work)

    def leaderboard(self, limit: int = 50, *, min_games: int = 1) -> list[Account]:
        query = (
            sa.select(*self._ACCOUNT_COLUMNS)
            .where(accounts.c.rated_games >= checked_int(min_games, "min_games"))
            .order_by(accounts.c.rating.desc(), accounts.c.rd.asc(), accounts.c.username_key.asc())
            .limit(checked_int(limit, "limit"))
        )
        rows = self._read(lambda c: c.execute(query).all())
        return [_account(tuple(row)) for row in rows]

    def save_table(
        self,
        table_id: str,
        data: dict[str, Any],
        status: str,
        *,
        expected_version: int | None,
        due_at: datetime | None = None,
    ) -> int:
        check_id(table_id)
        text = dumps(data)
        now = utc_now()
        due = None if due_at is None else checked_time(due_at, "due_at")

        def work(conn: sa.Connection) -> int:
            if expected_version is None:
                created = conn.execute(
                    self._insert(tables)
                    .values(
                        table_id=table_id,
                        status=status,
                        version=1,
                        data=text,
                        created_at=now,
                        updated_at=now,
                        due_at=due,
                    )
                    .on_conflict_do_nothing(index_elements=[tables.c.table_id])
                    .returning(tables.c.table_id)
                )
                if created.first() is None:
                    raise TableConflict(f"table {table_id} already exists")
                return 1
            updated = conn.execute(
                sa.update(tables)
                .where(tables.c.table_id == table_id, tables.c.version == expected_version)
                .values(
                    status=status,
                    version=tables.c.version + 1,
                    data=text,
                    updated_at=now,
                    due_at=due,
                )
                .returning(tables.c.version)
            )
            if updated.first() is not None:
                return expected_version + 1
            version = conn.execute(
                sa.select(tables.c.version).where(tables.c.table_id == table_id)
            ).scalar()
            if version is None:
                raise TableNotFound(f"there is no table {table_id!r}"[:200])
            raise TableConflict(f"table {table_id} changed (version {version})")

        return self._write_or_fail(work)

    def table_versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        ids = list(table_ids)
        for table_id in ids:
            check_id(table_id)

        def read(conn: sa.Connection) -> list[Any]:
            rows: list[Any] = []
            for start in range(0, len(ids), _IN_CHUNK):
                chunk = ids[start : start + _IN_CHUNK]
                query = sa.select(tables.c.table_id, tables.c.version).where(
                    tables.c.table_id.in_(chunk)
                )
                rows.extend(conn.execute(query).all())
            return rows

        return {str(t): int(v) for t, v in self._read(read)}

    _TABLE_COLUMNS: Final = (
        tables.c.table_id,
        tables.c.data,
        tables.c.status,
        tables.c.version,
        tables.c.created_at,
        tables.c.updated_at,
        tables.c.due_at,
    )

    def load_table(self, table_id: str) -> TableRow:
        query = sa.select(*self._TABLE_COLUMNS).where(tables.c.table_id == table_id)
        row = self._read(lambda c: c.execute(query).first())
        if row is None:
            raise TableNotFound(f"there is no table {table_id!r}"[:200])
        return _table(tuple(row))

    def list_tables(
        self,
        *,
        status: Sequence[str] | None = None,
        updated_before: datetime | None = None,
        due_before: datetime | None = None,
    ) -> list[TableRow]:
        query = sa.select(*self._TABLE_COLUMNS).order_by(tables.c.updated_at.desc())
        if status is not None:
            query = query.where(tables.c.status.in_(list(status)))
        if updated_before is not None:
            query = query.where(
                tables.c.updated_at < checked_time(updated_before, "updated_before")
            )
        if due_before is not None:
            due = checked_time(due_before, "due_before")
            query = query.where(tables.c.due_at.is_not(None), tables.c.due_at <= due)
        rows = self._read(lambda c: c.execute(query).all())
        return [_table(tuple(row)) for row in rows]

    # --- notices -------------------------------------------------------------------------------

    def take_notices(self) -> list[str]:
        out, self._notices = self._notices, []
        return out

    def notify(self, message: str) -> None:
        """Queue a one-line message for the user (migration reports)."""
        self._notices.append(message)

    # --- imports of old files (see fifteentwo.store.migrate) -----------------------------------

    def was_imported(self, source: str) -> bool:
        """Whether an old file (by its key) was imported already."""
        return self._read(lambda c: _imported(c, source))

    def import_finished(self, source: str, finished: Sequence[FinishedGame], detail: str) -> int:
        """Store finished games from an old file, once: the file's key is recorded in the same
        transaction. Returns how many were stored (0 if imported before)."""
        rows = [finished_row(f.checked(), None) for f in finished]

        def work(conn: sa.Connection) -> int:
            if _imported(conn, source):
                return 0
            for row in rows:
                self._insert_finished(conn, row)
            record_import(conn, source, detail)
            return len(rows)

        return self._write_or_fail(work)

    def import_game(self, source: str, data: dict[str, Any], meta: GameMeta) -> str | None:
        """Store a game in progress from an old save file, once; its new id (None if done)."""
        game_id = new_game_id()
        text = dumps(data)
        meta = meta.checked()

        def work(conn: sa.Connection) -> str | None:
            if _imported(conn, source):
                return None
            self._upsert(conn, game_id, text, meta, utc_now())
            record_import(conn, source, game_id)
            return game_id

        return self._write_or_fail(work)

    # --- web sessions and security (issue 35) ---------------------------------------------------

    def create_web_session(self, session: WebSession) -> None:
        statement = sa.insert(web_sessions).values(
            key=session.key,
            player=session.player,
            account_id=session.account_id,
            username=session.username,
            created_at=float(session.created_at),
            seen_at=float(session.seen_at),
        )
        self._write_or_fail(lambda c: c.execute(statement))

    def web_session(self, key: str) -> WebSession | None:
        t = web_sessions.c
        query = sa.select(t.key, t.player, t.account_id, t.username, t.created_at, t.seen_at)
        row = self._read(lambda c: c.execute(query.where(t.key == key)).first())
        if row is None:
            return None
        return WebSession(
            str(row[0]),
            str(row[1]),
            None if row[2] is None else str(row[2]),
            None if row[3] is None else str(row[3]),
            float(row[4]),
            float(row[5]),
        )

    def touch_web_session(self, key: str, seen_at: float) -> None:
        statement = (
            sa.update(web_sessions).where(web_sessions.c.key == key).values(seen_at=float(seen_at))
        )
        self._write_or_fail(lambda c: c.execute(statement))

    def end_web_sessions(
        self, *, key: str | None = None, account_id: str | None = None, keep: str | None = None
    ) -> int:
        t = web_sessions.c
        if key is not None:
            statement = sa.delete(web_sessions).where(t.key == key)
        elif account_id is not None:
            statement = sa.delete(web_sessions).where(
                t.account_id == account_id, t.key != (keep or "")
            )
        else:
            return 0
        return int(self._write_or_fail(lambda c: c.execute(statement).rowcount))

    def purge_web_sessions(self, idle_before: float, created_before: float) -> int:
        t = web_sessions.c
        statement = sa.delete(web_sessions).where(
            sa.or_(t.seen_at < float(idle_before), t.created_at < float(created_before))
        )
        return int(self._write_or_fail(lambda c: c.execute(statement).rowcount))

    # --- end of web sessions and security (issue 35) --------------------------------------------

    # --- issue 35: ratings, account games, faults ---

    def _give_up_at(self) -> float:
        """When a call stops retrying (`deadline`; `down_wait` while known to be down)."""
        wait = self.down_wait if self._down_since is not None else self.deadline
        return time.monotonic() + wait

    def rating_history(self, account_id: str, limit: int = 100) -> list[RatingChange]:
        c = rating_changes.c
        query = (
            sa.select(c.account_id, c.game, c.before, c.after, c.rd, c.outcome, c.at)
            .where(c.account_id == account_id)
            .order_by(c.id.desc())
            .limit(checked_int(limit, "limit"))
        )
        rows = self._read(lambda conn: conn.execute(query).all())
        return [
            RatingChange(str(a), str(g), float(b), float(af), float(rd), str(o), read_time(at))
            for a, g, b, af, rd, o, at in rows
        ]


# --- helpers ----------------------------------------------------------------------------------


def why(exc: BaseException | None) -> str:
    """The database's own one-line reason (SQLAlchemy wraps it with the statement)."""
    cause = getattr(exc, "orig", None) or exc
    return short(cause if cause is not None else "unknown failure")


def short(exc: object) -> str:
    lines = str(exc).strip().splitlines() or [type(exc).__name__]
    text = lines[0]
    return text if len(text) <= 120 else text[:117] + "..."


def _bound(key: str, names: Sequence[str], prefix: str = "") -> dict[str, Any]:
    """Columns bound to parameters, for `SqlStore._upsert_into`: the key by its own name, the
    others by ``prefix`` and theirs (the names the hot path's callers pass)."""
    return {key: sa.bindparam(key)} | {name: sa.bindparam(prefix + name) for name in names}


def check_id(game_id: str) -> None:
    if not isinstance(game_id, str) or not 1 <= len(game_id) <= 100:
        raise StoreError(f"not a game id: {game_id!r}"[:200])


def _json_dumps(data: object) -> str:
    return json.dumps(data, separators=(",", ":"), allow_nan=False)


def _orjson_dumps(data: object) -> str:
    """orjson, where it is installed (the web extra): a tenth of `json.dumps`'s CPU for a
    step. orjson writes a float that is not a number as null, which `json.dumps` refuses,
    and refuses integers of more than 64 bits (seeds may be). Text with a null (a full save
    and a finished game's record have a dozen, all None) is read back and kept only if it
    gives the same values (no NaN made null; a NaN never equals what it became): about 40%
    of `json.dumps`'s CPU for a full save, where `json.dumps` was its whole cost again.
    What differs when read back (a NaN, a tuple, a key that is not text) and what orjson
    refuses is made by `json.dumps` (the same values, or its error)."""
    try:
        text: bytes = orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return _json_dumps(data)
    if b"null" in text and orjson.loads(text) != data:
        return _json_dumps(data)
    return text.decode("utf-8")


_dumps = _json_dumps if orjson is None else _orjson_dumps


def dumps(data: object) -> str:
    try:
        text = _dumps(data)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"the game cannot be stored as JSON: {exc}") from None
    if "\x00" in text:  # JSON escapes NUL, so this never happens; PostgreSQL TEXT refuses it
        raise StoreError("the game cannot be stored: it contains a NUL character")
    return text


_FINISHED_VALUES = tuple(c.name for c in finished_games.columns if c.name != "id")
"""The columns `finished_row` fills."""


def _delete_by_game(table: sa.Table) -> ClauseElement:
    return sa.delete(table).where(table.c.game_id == sa.bindparam("game_id"))


def _imported(conn: sa.Connection, source: str) -> bool:
    query = sa.select(imports.c.source).where(imports.c.source == source)
    return conn.execute(query).first() is not None


def record_import(conn: sa.Connection, source: str, detail: str) -> None:
    conn.execute(sa.insert(imports).values(source=source, imported_at=utc_now(), detail=detail))


def insert_aside(conn: sa.Connection, source: str, key: str, reason: str, content: str) -> None:
    conn.execute(
        sa.insert(set_aside).values(
            source=source, key=key, reason=reason[:1000], set_aside_at=utc_now(), content=content
        )
    )


def next_step_number() -> Any:
    """The number of the ``:game_id`` game's next step row (an SQL expression): after its
    last, 1 after a full save (which deletes the steps)."""
    return (
        sa.select(sa.func.coalesce(sa.func.max(game_moves.c.n), 0) + 1)
        .where(game_moves.c.game_id == sa.bindparam("game_id"))
        .scalar_subquery()
    )


def _moves_of(conn: sa.Connection, game_ids: Sequence[str]) -> dict[str, list[str]]:
    """The stored steps (JSON text, in order) of these games since their full saves."""
    out: dict[str, list[str]] = {}
    for start in range(0, len(game_ids), _IN_CHUNK):
        chunk = list(game_ids[start : start + _IN_CHUNK])
        query = (
            sa.select(game_moves.c.game_id, game_moves.c.data)
            .where(game_moves.c.game_id.in_(chunk))
            .order_by(game_moves.c.game_id, game_moves.c.n)
        )
        for game_id, data in conn.execute(query):
            out.setdefault(str(game_id), []).append(str(data))
    return out


def _saved_game(row: tuple[Any, ...], moves: Sequence[str] = ()) -> SavedGame:
    game_id, meta, data, created, updated, version = row
    if data is None:
        raise ValueError("the game's full save is missing")
    loaded = json.loads(data)
    if not isinstance(loaded, dict):
        raise ValueError("the saved game is not a JSON object")
    deltas = [json.loads(text) for text in moves]
    if not all(isinstance(d, dict) for d in deltas):
        raise ValueError("a stored step is not a JSON object")
    loaded = merge_moves(loaded, deltas)
    meta_json = json.loads(meta)
    if not isinstance(meta_json, dict):
        raise ValueError("the game details are not a JSON object")
    return SavedGame(
        game_id=str(game_id),
        data=loaded,
        meta=GameMeta.from_json(meta_json),
        updated_at=read_time(updated),
        created_at=read_time(created),
        version=int(version),
    )


def _account(row: tuple[Any, ...]) -> Account:
    account_id, username, password_hash, created, rating, rd, volatility, games = row
    return Account(
        account_id=str(account_id),
        username=str(username),
        password_hash=str(password_hash),
        created_at=read_time(created),
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
        created_at=read_time(created),
        updated_at=read_time(updated),
        due_at=None if due is None else read_time(due),
    )


def finished_row(f: FinishedGame, game_id: str | None) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "kind": f.kind,
        "owner_hint": f.owner_hint,
        "finished_at": f.finished_at.isoformat(timespec="seconds"),
        "variant": f.variant,
        "target": f.target,
        "levels": f.levels,
        "seats": dumps(list(f.seats)),
        "human_seat": f.human_seat,
        "seed": str(f.seed),
        "game_number": f.game_number,
        "scores": dumps(list(f.scores)),
        "winner": f.winner,
        "won": None if f.won is None else int(f.won),
        "skunk": f.skunk,
        "game_points": f.game_points,
        "deals": f.deals,
        "hands": dumps(list(f.hands)),
        "counted": f.counted,
        "pegged": f.pegged,
        "best_hand": f.best_hand,
        "takebacks": f.takebacks,
        "record": dumps(f.record),
    }


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


def finished_json(f: FinishedGame) -> dict[str, Any]:
    data = asdict(f)
    data["finished_at"] = f.finished_at.isoformat()
    data["seed"] = str(f.seed)
    return data


def finished_from_json(data: dict[str, Any]) -> FinishedGame:
    fields = dict(data)
    fields["finished_at"] = datetime.fromisoformat(fields["finished_at"])
    fields["seed"] = int(fields["seed"])
    for key in ("seats", "scores", "hands"):
        fields[key] = tuple(fields[key])
    return FinishedGame(**fields)
