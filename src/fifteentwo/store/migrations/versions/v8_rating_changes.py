"""v8 (issue 35): ``rating_changes``, every change of an account's rating (the game, the rating
before and after, how the game counted, when), for the account page.

Revision ID: v8
Revises: v7
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v8"
down_revision = "v7"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rating_changes",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            sa.Identity(always=False),
            primary_key=True,
        ),
        sa.Column("account_id", sa.Text(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("before", sa.Float(), nullable=False),
        sa.Column("after", sa.Float(), nullable=False),
        sa.Column("rd", sa.Float(), nullable=False),
        sa.Column("outcome", sa.Text(), nullable=False),
        sa.Column(
            "at", sa.DateTime(timezone=True).with_variant(sa.Text(), "sqlite"), nullable=False
        ),
        sqlite_autoincrement=True,
    )
    op.create_index("rating_changes_by_account", "rating_changes", ["account_id", "id"])
    op.execute(sa.text("UPDATE schema_version SET version = 8"))


def downgrade() -> None:
    raise NotImplementedError("schema steps are not taken back (nothing a user saved is dropped)")
