"""`PostgresStore`: the hosted store, `SqlStore` on a PostgreSQL server.

Several server processes (or machines) share one database: every write is one transaction,
writers of one game are serialized by a transaction-scoped advisory lock on its id, leases say
which session owns a game (a lease from another host lapses without heartbeats), and web tables
are written with a compare-and-swap on their version. Connections come from SQLAlchemy's
thread-safe pool (psycopg 3); a server that goes away is retried with back-off and then reported
in one line (never with the password). docs/store.md has the schema.

Needs the ``postgres`` extra (psycopg 3).
"""

from __future__ import annotations

import contextlib
import re
import time
from typing import Any, Final, TypeVar
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import psycopg
import sqlalchemy as sa
from psycopg import sql
from psycopg.abc import PQGen
from psycopg.conninfo import conninfo_to_dict
from sqlalchemy.dialects import postgresql

from fifteentwo.store.base import StoreError, StoreUnavailable
from fifteentwo.store.schema import SCHEMA_VERSION, game_moves, leases
from fifteentwo.store.sql import SqlStore, Unavailable, next_step_number, short
from fifteentwo.store.upgrade import NotAStore, upgrade

__all__ = ["SCHEMA_VERSION", "PostgresStore", "redact", "server_options", "split_schema"]

DEFAULT_SCHEMA: Final = "fifteentwo"
DOWN_WAIT: Final = 0.3
"""Seconds a store call waits while the database is known to be down (issue 35)."""
IDLE_PING: Final = 2.0
"""A pooled connection idle longer than this many seconds is pinged before it is used."""
_NAME: Final = re.compile(r"[a-z_][a-z0-9_]{0,62}")
ANSWER_MARGIN: Final = 1.0
"""Seconds past the statement timeout after which the driver stops waiting for an answer."""

_R = TypeVar("_R")


class AnsweringConnection(psycopg.Connection[Any]):
    """A connection that stops waiting for a server that stops answering.

    Keepalives and ``tcp_user_timeout`` notice a server whose machine went away, and the
    statement timeout one that is slow; neither notices a server process that hangs (stopped,
    stuck on its disk) while its machine's kernel still acknowledges everything: the driver
    would wait for its answer forever, and a move with it. Past `answer_within` seconds the
    wait is given up, the connection closed (its state is unknown) and a disconnection raised,
    which the store retries or reports like any lost connection."""

    answer_within: float | None = None

    def wait(self, gen: PQGen[_R], interval: float = 0.1, timeout: float | None = None) -> _R:
        limit = self.answer_within
        if timeout is not None or limit is None:
            return super().wait(gen, interval, timeout)
        try:
            return super().wait(gen, interval, limit)
        except psycopg.errors._WaitTimeout:
            with contextlib.suppress(Exception):
                self.pgconn.finish()
            raise psycopg.OperationalError(
                f"the database did not answer within {limit:g} s"
            ) from None


def redact(url: str) -> str:
    """The URL without its password (for every message and `location`)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host += f":{parts.port}"
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def split_schema(url: str) -> tuple[str, str | None]:
    """The URL without a ``schema=`` query parameter, and that parameter (ours, not libpq's)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((v for k, v in query if k == "schema"), None)
    rest = [(k, v) for k, v in query if k != "schema"]
    # (``quote``: libpq reads a space as %20, and a plus as a plus, not as `urlencode`'s space)
    return urlunsplit(parts._replace(query=urlencode(rest, quote_via=quote))), schema


def server_options(conninfo: str, statement_timeout: float) -> str:
    """libpq's ``options`` for the store's connections: the URL's own (``?options=-c
    synchronous_commit%3Doff``: server settings an operator chooses, docs/web.md) and then the
    store's statement timeout (issue 35), which a connection's ``options`` argument would
    otherwise replace rather than join."""
    theirs = str(conninfo_to_dict(conninfo).get("options") or "").strip()
    ours = f"-c statement_timeout={max(1, round(statement_timeout * 1000))}"
    return f"{theirs} {ours}" if theirs else ours


class PostgresStore(SqlStore):
    """Games, finished games, settings, accounts and tables in one PostgreSQL schema."""

    serialized = False
    """Each thread's call takes its own pooled connection: a slow or hung call (up to the
    answer's bound, `ANSWER_MARGIN`) holds up only its own caller, and the pool overlaps the
    round trips of a server's moves. The database serializes the writers of one game
    (advisory locks, row locks, leases)."""

    def __init__(
        self,
        url: str,
        *,
        schema: str | None = None,
        retries: int = 3,
        backoff: float = 0.1,
        connect_timeout: float = 5.0,
        pool_size: int = 8,
        deadline: float = 1.2,
        statement_timeout: float = 5.0,
    ) -> None:
        conninfo, from_url = split_schema(url)
        self.schema = (schema or from_url or DEFAULT_SCHEMA).lower()
        if not _NAME.fullmatch(self.schema):
            raise StoreError(f"not a schema name: {self.schema!r}"[:200])
        self.location = redact(url)
        self.aside_place = f"table {self.schema}.set_aside of {self.location}"
        timeout = max(1, round(connect_timeout))
        try:
            # One direct connection first: a wrong URL or a missing server is one line at once.
            psycopg.connect(conninfo, connect_timeout=timeout).close()
        except psycopg.ProgrammingError as exc:
            raise StoreError(f"not a PostgreSQL URL: {self.location} ({short(exc)})") from None
        except psycopg.Error as exc:
            raise StoreUnavailable(
                f"cannot connect to the game store {self.location}: {_first_line(exc, url)}"
            ) from None
        search_path = sql.SQL("SET search_path TO {}").format(sql.Identifier(self.schema))
        options = server_options(conninfo, statement_timeout)

        def connect() -> psycopg.Connection[Any]:
            conn = AnsweringConnection.connect(
                conninfo,
                connect_timeout=max(2, timeout),
                # issue 35: a server that stops answering is noticed, not waited for
                keepalives=1,
                keepalives_idle=5,
                keepalives_interval=2,
                keepalives_count=2,
                tcp_user_timeout=3000,
                options=options,
            )
            conn.execute(search_path)
            conn.commit()
            conn.answer_within = statement_timeout + ANSWER_MARGIN
            return conn

        engine = sa.create_engine(
            "postgresql+psycopg://",
            creator=connect,
            pool_size=max(1, pool_size),
            max_overflow=0,
            pool_timeout=min(connect_timeout, deadline),
        )
        self._ping_when_idle(engine)
        super().__init__(engine, retries=retries, backoff=backoff)
        # issue 35: every call answers within `deadline` (retries included), and within
        # `DOWN_WAIT` while the database is known to be down (a move makes a few calls)
        self.deadline, self.down_wait = deadline, DOWN_WAIT
        try:
            self._write_now(self._create_schema)
        except Unavailable as exc:
            self.close()
            raise StoreUnavailable(
                f"cannot create the schema in the game store {self.location}: {exc}"
            ) from None
        except BaseException:
            self.close()
            raise

    def _ping_when_idle(self, engine: sa.Engine) -> None:
        """Ping a pooled connection before use only when it sat idle longer than `IDLE_PING`
        seconds, or was already in the pool when a lost connection was seen (the server may
        have restarted): a busy server no longer makes a round trip before every transaction
        (``pool_pre_ping`` did). A connection that fails the ping is replaced, not used; one
        that went bad between pings fails its statement and the store's retry takes a new one
        (`SqlStore._raw` marks the whole pool suspect then)."""
        dialect = engine.dialect

        @sa.event.listens_for(engine, "checkin")
        def _checked_in(dbapi_connection: Any, record: Any) -> None:
            record.info["idle_since"] = time.monotonic()

        @sa.event.listens_for(engine, "checkout")
        def _checked_out(dbapi_connection: Any, record: Any, proxy: Any) -> None:
            since = record.info.pop("idle_since", None)
            if since is None:  # a new connection
                return
            if time.monotonic() - since <= IDLE_PING and since > self._lost_at:
                return
            try:
                alive = dialect.do_ping(dbapi_connection)
            except Exception as exc:
                raise sa.exc.DisconnectionError(short(exc)) from exc
            if not alive:
                raise sa.exc.DisconnectionError("the connection did not answer")

    def _create_schema(self, conn: sa.Connection) -> None:
        dbapi = conn.connection.dbapi_connection
        waits = getattr(dbapi, "answer_within", None)
        if isinstance(dbapi, AnsweringConnection):
            dbapi.answer_within = None  # another process's migration may hold the lock long
        try:
            self._create_schema_now(conn)
        finally:
            if isinstance(dbapi, AnsweringConnection):
                dbapi.answer_within = waits

    def _create_schema_now(self, conn: sa.Connection) -> None:
        conn.exec_driver_sql("SET LOCAL statement_timeout = 0")  # another creator may be slow
        # One creator at a time across processes: a transaction-scoped advisory lock.
        conn.execute(sa.select(sa.func.pg_advisory_xact_lock(sa.func.hashtext(self.schema))))
        conn.exec_driver_sql(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
        try:
            upgrade(conn, f"{self.location} (schema {self.schema})", schema=self.schema)
        except NotAStore as exc:
            raise StoreError(f"{self.location} (schema {self.schema}): {exc}") from None

    def __enter__(self) -> PostgresStore:
        return self

    def drop_schema(self) -> None:
        """Drop this store's schema and everything in it (tests; never called by the app)."""
        self._write_or_fail(
            lambda c: c.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE'),
            "drop the schema of",
        )

    # --- what PostgreSQL decides ---------------------------------------------------------------

    def _transient(self, exc: BaseException) -> bool:
        """Lost connections, serialization failures, deadlocks and an exhausted pool."""
        if isinstance(exc, sa.exc.TimeoutError):
            return True
        if isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated:
            return True
        return isinstance(getattr(exc, "orig", None), psycopg.OperationalError)

    def _lock_game(self, conn: Any, game_id: str) -> bool:
        lock = self._hot(
            "advisory-lock",
            lambda: sa.select(
                sa.func.pg_advisory_xact_lock(sa.func.hashtext(sa.bindparam("game_id")))
            ),
        )
        lock.run(conn, game_id=game_id)
        return super()._lock_game(conn, game_id)

    _reads_alone = True  # (read committed: a statement alone sees what it would in one)

    def _next_seq(self) -> Any:
        return sa.Sequence("games_seq").next_value()

    def _write_step(
        self, conn: Any, values: dict[str, Any], text: str, owner: str, *, checked: bool
    ) -> tuple[int | None, bool]:
        """`SqlStore._write_step` as one statement on its own when it is ``checked`` (every
        web game's: `Session.optimistic`): each statement, and a transaction's begin and
        commit, is a round trip to the server and most of a step's CPU in psycopg; this is
        one round trip where the three statements in a transaction were five. The step is
        stored when the statement returns: a lease renewed after it (`_take`) is a write of
        its own, and a retry after a connection lost in between finds the version moved on
        (`GameConflict`: the session reads the game again, its step in it).

        The statement writes only where no other session holds a lease on the game (read
        under its lock); where one does, nothing is written and the step is made as
        `SqlStore` makes it, in a transaction that judges that lease (`GameBusy` while it
        lives, taken over when it lapsed). Only when checked: the step's number is read in
        the statement's snapshot, so two unchecked writers of one game could both take the
        same one, where the separate insert read it after the row's lock; a checked update is
        made only on the version its writer read, and every writer of a game's steps moves
        that version on."""
        if not checked:
            return super()._write_step(conn, values, text, owner, checked=checked)
        step = self._hot("step-alone", self._step_statement)
        dbapi = conn.dbapi_connection
        dbapi.autocommit = True  # (no transaction is open: this is the write's first statement)
        try:
            row = step.run(conn, **values, data=text, owner=owner).first()
        finally:
            with contextlib.suppress(Exception):  # (a lost connection is replaced by the pool)
                dbapi.autocommit = False
        version, holder = row[0], row[1]
        if version is None and holder is not None and holder != owner:
            return super()._write_step(conn, values, text, owner, checked=checked)
        return version, self._judge_lease(row[1:], values["game_id"], owner)

    def _step_statement(self) -> Any:
        """``WITH lease (locked), moved (the row's update, unless another session holds the
        lease), added (the step's row, only if moved) SELECT`` the new version and the lease,
        in one row whatever was found."""
        held = leases.c
        lease = (
            sa.select(held.owner, held.pid, held.host, held.heartbeat)
            .where(held.game_id == sa.bindparam("game_id"))
            .with_for_update()
            .cte("lease")
        )
        foreign = sa.exists().where(lease.c.owner != sa.bindparam("owner"))
        moved = self._step_update(checked=True).where(~foreign).cte("moved")
        row = sa.select(
            sa.cast(sa.bindparam("game_id"), sa.Text),
            next_step_number(),
            sa.cast(sa.bindparam("data"), sa.Text),
        ).select_from(moved)
        added = sa.insert(game_moves).from_select(["game_id", "n", "data"], row).cte("added")
        one = sa.select(sa.literal(1).label("one")).subquery("one")
        return (
            sa.select(
                sa.select(moved.c.seq).scalar_subquery(),
                lease.c.owner,
                lease.c.pid,
                lease.c.host,
                lease.c.heartbeat,
            )
            .select_from(one.outerjoin(lease, sa.true()))
            .add_cte(added)
        )

    def _insert(self, table: sa.Table) -> postgresql.Insert:
        return postgresql.insert(table)


def _first_line(exc: Exception, url: str) -> str:
    """libpq's message, first line, with the URL's password blotted out if it ever appears."""
    lines = str(exc).strip().splitlines() or [type(exc).__name__]
    text = lines[-1] if lines[-1].startswith("connection to server") else lines[0]
    password = urlsplit(url).password
    if password:
        text = text.replace(password, "***")
    return short(text)
