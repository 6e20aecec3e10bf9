"""Bring a database to the newest schema at open: Alembic revisions, after the statements the
versions before Alembic used (kept here so any old store still opens). The caller holds one
transaction and the database's writer lock (SQLite ``BEGIN IMMEDIATE``, a PostgreSQL advisory
lock), so processes starting together do not race.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import sqlalchemy as sa

from fifteentwo.store.base import StoreError
from fifteentwo.store.schema import SCHEMA_VERSION, schema_version

if TYPE_CHECKING:
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

__all__ = ["BASELINE", "HEAD", "NotAStore", "upgrade"]

BASELINE: Final = "v3"
"""The Alembic revision every earlier fifteentwo's newest schema is stamped with."""

HEAD: Final = f"v{SCHEMA_VERSION}"
"""The newest revision in ``migrations`` (a test checks it against the scripts): a store
stamped with it is opened without loading Alembic at all (`_at_head`)."""

_LEGACY: Final[dict[str, dict[int, tuple[str, ...]]]] = {
    # Statements taking a store from version N-1 to N before Alembic (SQLite counted to 3,
    # PostgreSQL to 2; the last of each is the baseline).
    "sqlite": {
        2: (
            "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            """CREATE TABLE accounts (account_id TEXT PRIMARY KEY, username TEXT NOT NULL,
                username_key TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL,
                created_at TEXT NOT NULL, rating REAL NOT NULL, rd REAL NOT NULL,
                volatility REAL NOT NULL, rated_games INTEGER NOT NULL)""",
            """CREATE TABLE tables (table_id TEXT PRIMARY KEY, status TEXT NOT NULL,
                version INTEGER NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL)""",
            "CREATE INDEX tables_by_status ON tables (status, updated_at)",
        ),
        3: (
            "ALTER TABLE tables ADD COLUMN due_at TEXT",
            "CREATE INDEX tables_by_due ON tables (due_at)",
        ),
    },
    "postgresql": {
        2: (
            "ALTER TABLE tables ADD COLUMN due_at TIMESTAMPTZ",
            "CREATE INDEX tables_by_due ON tables (due_at)",
        ),
    },
}


class NotAStore(Exception):
    """The database holds tables, but not a fifteentwo game store's."""


def script() -> ScriptDirectory:
    """The revisions shipped in ``fifteentwo/store/migrations``."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(Path(__file__).with_name("migrations")))


def _at_head(conn: sa.Connection, names: set[str], schema: str | None) -> bool:
    """Whether the database is already a store of the newest schema: then nothing is done.
    Loading Alembic and its revision scripts cost every program that opens the store
    (``cribbage``, each server process) about a tenth of a second; most find nothing to do."""
    if not {"alembic_version", "schema_version", "games_in_progress"} <= names:
        return False
    stamps = sa.table("alembic_version", sa.column("version_num"), schema=schema)
    revisions = conn.execute(sa.select(stamps.c.version_num)).scalars().all()
    version = conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar()
    return revisions == [HEAD] and version == SCHEMA_VERSION


def upgrade(conn: sa.Connection, where: str, *, schema: str | None = None) -> None:
    """Create the schema in an empty database or migrate an older one; refuse a newer one
    (`StoreError`, nothing changed) and raise `NotAStore` for someone else's database.
    ``schema``: PostgreSQL's schema (the connection's search path), named for Alembic."""
    names = set(sa.inspect(conn).get_table_names(schema=schema))
    if _at_head(conn, names, schema):
        return
    from alembic.runtime.migration import MigrationContext

    revisions = script()
    if not names:
        _to_head(conn, revisions, schema)
        return
    if "games" in names and "games_in_progress" not in names:
        raise StoreError(
            f"{where} is a results history of an earlier version, not a game store "
            "(it is imported when found in the data directory as history.sqlite3)"
        )
    if "schema_version" not in names or "games_in_progress" not in names:
        raise NotAStore("not a fifteentwo game store")
    version = conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar()
    if not isinstance(version, int) or version < 1:
        raise NotAStore(f"unknown schema version {version!r}")
    newer = StoreError(
        f"the game store {where} was written by a newer fifteentwo "
        f"(schema {version}, this one knows {SCHEMA_VERSION}); it was left as it is"
    )
    if version > SCHEMA_VERSION:
        raise newer
    context = MigrationContext.configure(conn, opts={"version_table_schema": schema})
    current = context.get_current_revision()
    if current is None:
        legacy = _LEGACY[conn.dialect.name]
        for step in range(version + 1, max(legacy) + 1):
            for statement in legacy[step]:
                conn.exec_driver_sql(statement)
            conn.execute(sa.update(schema_version).values(version=step))
        context.stamp(revisions, BASELINE)
    elif current not in {rev.revision for rev in revisions.walk_revisions()}:
        raise newer
    _to_head(conn, revisions, schema)


def _to_head(conn: sa.Connection, revisions: ScriptDirectory, schema: str | None) -> None:
    from alembic.operations import Operations
    from alembic.runtime.migration import MigrationContext

    def steps(revision: Any, _context: MigrationContext) -> Any:
        return revisions._upgrade_revs("head", revision)

    context = MigrationContext.configure(
        conn, opts={"fn": steps, "script": revisions, "version_table_schema": schema}
    )
    with Operations.context(context):
        context.run_migrations()
