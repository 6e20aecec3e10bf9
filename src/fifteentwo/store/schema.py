"""The store's tables as SQLAlchemy Core objects: the one description both databases are
queried through (the DDL itself lives in the Alembic revisions under ``migrations/``).

Times are `UtcTime`: ISO 8601 text in SQLite (as every earlier version wrote them), TIMESTAMPTZ
in PostgreSQL. Reads hand the raw value back (`read_time` parses it), so a row whose time cannot
be read is set aside like any other unreadable row instead of failing the whole query.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeEngine

from fifteentwo.store.base import checked_time

__all__ = [
    "SCHEMA_VERSION",
    "UtcTime",
    "accounts",
    "finished_games",
    "game_moves",
    "game_saves",
    "games_in_progress",
    "imports",
    "leases",
    "metadata",
    "rating_changes",
    "read_time",
    "schema_version",
    "set_aside",
    "settings",
    "tables",
    "turn_claims",
    "web_sessions",
]

SCHEMA_VERSION: Final = 10
"""The newest schema (``schema_version.version``; Alembic revision ``v10``)."""


class UtcTime(sa.types.TypeDecorator[Any]):
    """An aware UTC time: ISO 8601 text in SQLite (text order is time order in one zone and one
    format), TIMESTAMPTZ in PostgreSQL."""

    impl = sa.Text
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(sa.DateTime(timezone=True))
        return dialect.type_descriptor(sa.Text())

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        moment = checked_time(value, "a time")
        if dialect.name == "postgresql":
            return moment
        return moment.isoformat(timespec="microseconds")

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        return value  # parsed by `read_time`, row by row


def read_time(value: object) -> datetime:
    """A stored time as the store hands times out: aware, in UTC."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        moment = datetime.fromisoformat(value)
    else:
        raise ValueError(f"not a time: {value!r}"[:100])
    if moment.tzinfo is None:
        raise ValueError(f"a time without its zone: {value!r}"[:100])
    return moment.astimezone(UTC)


metadata = sa.MetaData()

schema_version = sa.Table(
    "schema_version", metadata, sa.Column("version", sa.Integer, nullable=False)
)

games_in_progress = sa.Table(
    "games_in_progress",
    metadata,
    sa.Column("game_id", sa.Text, primary_key=True),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("owner_hint", sa.Text, nullable=False),
    sa.Column("meta", sa.Text, nullable=False),
    sa.Column("created_at", UtcTime, nullable=False),
    sa.Column("updated_at", UtcTime, nullable=False),
    sa.Column("seq", sa.BigInteger, nullable=False),
)
"""A game in progress: its details and order of play, updated at every step (a narrow row:
its full save is in `game_saves`)."""

game_saves = sa.Table(
    "game_saves",
    metadata,
    sa.Column("game_id", sa.Text, primary_key=True),
    sa.Column("data", sa.Text, nullable=False),
)
"""A game in progress's full save (`Store.save_game`), written now and then: apart from its
``games_in_progress`` row since v10, because SQLite rewrites a whole row, a 10 to 20 KB save
and all, when a step updates the row's details."""

game_moves = sa.Table(
    "game_moves",
    metadata,
    sa.Column("game_id", sa.Text, primary_key=True),
    sa.Column("n", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("data", sa.Text, nullable=False),
)
"""A game's steps since its full save in ``game_saves`` (`Store.append_move`)."""

leases = sa.Table(
    "leases",
    metadata,
    sa.Column("game_id", sa.Text, primary_key=True),
    sa.Column("owner", sa.Text, nullable=False),
    sa.Column("pid", sa.Integer, nullable=False),
    sa.Column("host", sa.Text, nullable=False),
    sa.Column("heartbeat", sa.Float, nullable=False),
)

finished_games = sa.Table(
    "finished_games",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True),
    sa.Column("game_id", sa.Text),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("owner_hint", sa.Text, nullable=False),
    sa.Column("finished_at", sa.Text, nullable=False),
    sa.Column("variant", sa.Text, nullable=False),
    sa.Column("target", sa.Integer, nullable=False),
    sa.Column("levels", sa.Text, nullable=False),
    sa.Column("seats", sa.Text, nullable=False),
    sa.Column("human_seat", sa.Integer),
    sa.Column("seed", sa.Text, nullable=False),
    sa.Column("game_number", sa.Integer, nullable=False),
    sa.Column("scores", sa.Text, nullable=False),
    sa.Column("winner", sa.Integer, nullable=False),
    sa.Column("won", sa.Integer),
    sa.Column("skunk", sa.Integer, nullable=False),
    sa.Column("game_points", sa.Integer, nullable=False),
    sa.Column("deals", sa.Integer, nullable=False),
    sa.Column("hands", sa.Text, nullable=False),
    sa.Column("counted", sa.Integer, nullable=False),
    sa.Column("pegged", sa.Integer, nullable=False),
    sa.Column("best_hand", sa.Integer),
    sa.Column("takebacks", sa.Integer, nullable=False),
    sa.Column("record", sa.Text, nullable=False),
)

set_aside = sa.Table(
    "set_aside",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("key", sa.Text, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("set_aside_at", UtcTime, nullable=False),
    sa.Column("content", sa.Text, nullable=False),
)

imports = sa.Table(
    "imports",
    metadata,
    sa.Column("source", sa.Text, primary_key=True),
    sa.Column("imported_at", UtcTime, nullable=False),
    sa.Column("detail", sa.Text, nullable=False),
)

settings = sa.Table(
    "settings",
    metadata,
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("account_id", sa.Text, primary_key=True),
    sa.Column("username", sa.Text, nullable=False),
    sa.Column("username_key", sa.Text, nullable=False, unique=True),
    sa.Column("password_hash", sa.Text, nullable=False),
    sa.Column("created_at", UtcTime, nullable=False),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("rd", sa.Float, nullable=False),
    sa.Column("volatility", sa.Float, nullable=False),
    sa.Column("rated_games", sa.Integer, nullable=False),
)

rating_changes = sa.Table(  # issue 35: every rating change, for the account page (v5)
    "rating_changes",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("account_id", sa.Text, nullable=False),
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("before", sa.Float, nullable=False),
    sa.Column("after", sa.Float, nullable=False),
    sa.Column("rd", sa.Float, nullable=False),
    sa.Column("outcome", sa.Text, nullable=False),
    sa.Column("at", UtcTime, nullable=False),
)

tables = sa.Table(
    "tables",
    metadata,
    sa.Column("table_id", sa.Text, primary_key=True),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("created_at", UtcTime, nullable=False),
    sa.Column("updated_at", UtcTime, nullable=False),
    sa.Column("due_at", UtcTime),
)

turn_claims = sa.Table(
    "turn_claims",
    metadata,
    sa.Column("game_id", sa.Text, primary_key=True),
    sa.Column("version", sa.BigInteger, nullable=False),
    sa.Column("owner", sa.Text, nullable=False),
    sa.Column("until", sa.Float, nullable=False),
)
"""Who computes a game's computer move at a version, until when (`Store.claim_turn`)."""

# --- web sessions and security (issue 35) ---
web_sessions = sa.Table(
    "web_sessions",
    metadata,
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("player", sa.Text, nullable=False),
    sa.Column("account_id", sa.Text),
    sa.Column("username", sa.Text),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("seen_at", sa.Float, nullable=False),
    sa.Index("web_sessions_account", "account_id"),
)
"""Browser sessions: the SHA-256 of the cookie's id, who it is, when made and last used."""
