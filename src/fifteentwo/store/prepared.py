"""Hot statements compiled once per database and run with the driver's own call.

A web action writes a step, claims the computer's turn and writes the reply: a handful of small
statements. Built and executed through SQLAlchemy Core each time, most of their CPU went to
building the statement and walking it for its cache key (bench/bench_store.py, docs/web.md);
compiled once here and run with `Connection.exec_driver_sql`, only the driver's work is left.
Values are passed as the driver takes them (no type processing): callers hand in plain text,
numbers, and times already converted (`bind_time`).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

from fifteentwo.store.schema import UtcTime

__all__ = ["Prepared", "bind_time"]


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

    def run(self, conn: sa.Connection, **values: Any) -> sa.CursorResult[Any]:
        merged = {**self.defaults, **values}
        if self.order is not None:
            return conn.exec_driver_sql(self.sql, tuple(merged[k] for k in self.order))
        return conn.exec_driver_sql(self.sql, merged)


def bind_time(value: Any, dialect: Dialect) -> Any:
    """A time as `UtcTime` stores it on this database (for a `Prepared` statement)."""
    return UtcTime().process_bind_param(value, dialect)
