"""Hot statements compiled once per database and run on the driver's own cursor.

A web action writes a step, claims the computer's turn and writes the reply: a handful of small
statements. Built and executed through SQLAlchemy Core each time, most of their CPU went to
building the statement and walking it for its cache key; run with `Connection.exec_driver_sql`,
the rest went to SQLAlchemy's result machinery (a `CursorResult` and its metadata per
statement). Compiled once here and executed on the DBAPI cursor of the transaction's
connection, only the driver's work is left (bench/bench_store.py, docs/web.md). The transaction
itself (begin, commit, the pool) stays SQLAlchemy's. Values are passed as the driver takes them
(no type processing): callers hand in plain text, numbers, and times already converted
(`bind_time`). A driver error is raised as SQLAlchemy's (`DBAPIError` and its kinds), as
`Connection.execute` would, and a lost connection is invalidated (the pool replaces it).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

from fifteentwo.store.schema import UtcTime

__all__ = ["Prepared", "Rows", "bind_time"]


class Rows:
    """What a `Prepared` statement returned: its rows (all fetched) and the rows it changed."""

    __slots__ = ("rowcount", "rows")

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self.rows = rows
        self.rowcount = rowcount

    def first(self) -> Any:
        """The first row, or None."""
        return self.rows[0] if self.rows else None

    def scalar(self) -> Any:
        """The first column of the first row, or None."""
        return self.rows[0][0] if self.rows else None


class Prepared:
    """One statement compiled for one dialect; `run` it with the values of its named binds."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        self.sql = str(compiled)
        self.defaults: dict[str, Any] = {
            name: bind.value for name, bind in compiled.binds.items() if not bind.required
        }
        """The literals SQLAlchemy made binds of (``coalesce(max(n), 0) + 1``)."""
        self.order: list[str] | None = (
            list(compiled.positiontup or ()) if compiled.positional else None
        )
        self._pick: Callable[[dict[str, Any]], Any] | None = None
        """The positional values from the named ones, at C speed (``itemgetter``)."""
        if self.order is not None:
            pick = itemgetter(*self.order) if self.order else (lambda _: ())
            self._pick = pick if len(self.order) != 1 else (lambda values: (pick(values),))
        self.dialect = dialect

    def run(self, conn: sa.Connection | PoolProxiedConnection, **values: Any) -> Rows:
        """Execute in ``conn``'s transaction (begun by the caller) on the driver's cursor;
        ``conn``: a SQLAlchemy connection or a pool's DBAPI connection (`SqlStore._raw`)."""
        merged = {**self.defaults, **values} if self.defaults else values
        params: Any = merged if self._pick is None else self._pick(merged)
        pooled = conn.connection if isinstance(conn, sa.Connection) else conn
        raw = pooled.dbapi_connection
        assert raw is not None
        cursor = raw.cursor()
        error = self.dialect.loaded_dbapi.Error
        try:
            cursor.execute(self.sql, params)
            rows = list(cursor.fetchall()) if cursor.description else []
            return Rows(rows, cursor.rowcount)
        except error as exc:
            lost = self.dialect.is_disconnect(exc, raw, cursor)
            if lost:
                conn.invalidate(exc)
            raise sa.exc.DBAPIError.instance(
                self.sql, params, exc, error, connection_invalidated=lost, dialect=self.dialect
            ) from exc
        finally:
            cursor.close()


_UTC_TIME = UtcTime()


def bind_time(value: Any, dialect: Dialect) -> Any:
    """A time as `UtcTime` stores it on this database (for a `Prepared` statement)."""
    return _UTC_TIME.process_bind_param(value, dialect)
