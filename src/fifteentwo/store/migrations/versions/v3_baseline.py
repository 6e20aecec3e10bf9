"""The version-3 schema (baseline): what fifteentwo wrote before Alembic, on either database.

Revision ID: v3
Revises: (none)
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "v3"
down_revision = None
branch_labels = None
depends_on = None


def _time() -> sa.types.TypeEngine[Any]:
    """ISO text in SQLite, TIMESTAMPTZ in PostgreSQL (as the earlier versions wrote them)."""
    return sa.DateTime(timezone=True).with_variant(sa.Text(), "sqlite")


def _row_id() -> sa.Column[int]:
    return sa.Column(
        "id",
        sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
        sa.Identity(always=False),
        primary_key=True,
    )


def upgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    text, integer, real = sa.Text(), sa.Integer(), sa.Float()
    op.create_table("schema_version", sa.Column("version", integer, nullable=False))
    if postgres:
        op.execute(sa.schema.CreateSequence(sa.Sequence("games_seq")))
    op.create_table(
        "games_in_progress",
        sa.Column("game_id", text, primary_key=True),
        sa.Column("kind", text, nullable=False),
        sa.Column("owner_hint", text, nullable=False),
        sa.Column("meta", text, nullable=False),
        sa.Column("data", text, nullable=False),
        sa.Column("created_at", _time(), nullable=False),
        sa.Column("updated_at", _time(), nullable=False),
        sa.Column("seq", sa.BigInteger().with_variant(integer, "sqlite"), nullable=False),
    )
    op.create_index("games_in_progress_recent", "games_in_progress", ["owner_hint", "seq"])
    op.create_table(
        "leases",
        sa.Column("game_id", text, primary_key=True),
        sa.Column("owner", text, nullable=False),
        sa.Column("pid", integer, nullable=False),
        sa.Column("host", text, nullable=False),
        sa.Column("heartbeat", sa.Double().with_variant(real, "sqlite"), nullable=False),
    )
    op.create_table(
        "finished_games",
        _row_id(),
        sa.Column("game_id", text),
        *(sa.Column(name, text, nullable=False) for name in ("kind", "owner_hint", "finished_at")),
        sa.Column("variant", text, nullable=False),
        sa.Column("target", integer, nullable=False),
        sa.Column("levels", text, nullable=False),
        sa.Column("seats", text, nullable=False),
        sa.Column("human_seat", integer),
        sa.Column("seed", text, nullable=False),
        sa.Column("game_number", integer, nullable=False),
        sa.Column("scores", text, nullable=False),
        sa.Column("winner", integer, nullable=False),
        sa.Column("won", integer),
        *(sa.Column(name, integer, nullable=False) for name in ("skunk", "game_points", "deals")),
        sa.Column("hands", text, nullable=False),
        sa.Column("counted", integer, nullable=False),
        sa.Column("pegged", integer, nullable=False),
        sa.Column("best_hand", integer),
        sa.Column("takebacks", integer, nullable=False),
        sa.Column("record", text, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("finished_by_level", "finished_games", ["levels", "variant"])
    if postgres:
        op.create_index("finished_by_owner", "finished_games", ["owner_hint", "id"])
    op.create_table(
        "set_aside",
        _row_id(),
        sa.Column("source", text, nullable=False),
        sa.Column("key", text, nullable=False),
        sa.Column("reason", text, nullable=False),
        sa.Column("set_aside_at", _time(), nullable=False),
        sa.Column("content", text, nullable=False),
        sqlite_autoincrement=True,
    )
    if not postgres:  # (PostgreSQL had no imports table before v4)
        op.create_table(
            "imports",
            sa.Column("source", text, primary_key=True),
            sa.Column("imported_at", text, nullable=False),
            sa.Column("detail", text, nullable=False),
        )
    op.create_table(
        "settings",
        sa.Column("key", text, primary_key=True),
        sa.Column("value", text, nullable=False),
    )
    op.create_table(
        "accounts",
        sa.Column("account_id", text, primary_key=True),
        sa.Column("username", text, nullable=False),
        sa.Column("username_key", text, nullable=False, unique=True),
        sa.Column("password_hash", text, nullable=False),
        sa.Column("created_at", _time(), nullable=False),
        *(
            sa.Column(name, sa.Double().with_variant(real, "sqlite"), nullable=False)
            for name in ("rating", "rd", "volatility")
        ),
        sa.Column("rated_games", integer, nullable=False),
    )
    op.create_table(
        "tables",
        sa.Column("table_id", text, primary_key=True),
        sa.Column("status", text, nullable=False),
        sa.Column("version", integer, nullable=False),
        sa.Column("data", text, nullable=False),
        sa.Column("created_at", _time(), nullable=False),
        sa.Column("updated_at", _time(), nullable=False),
        sa.Column("due_at", _time()),
    )
    op.create_index("tables_by_status", "tables", ["status", "updated_at"])
    op.create_index("tables_by_due", "tables", ["due_at"])
    op.execute(sa.text("INSERT INTO schema_version (version) VALUES (3)"))


def downgrade() -> None:
    raise NotImplementedError("the baseline is not taken back (nothing a user saved is dropped)")
