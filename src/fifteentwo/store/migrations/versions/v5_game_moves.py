"""v5: ``game_moves``: a game's steps since its last full save, one small row each, so a move
costs the same late in a game as early (the full save is written only now and then).

Revision ID: v5
Revises: v4
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v5"
down_revision = "v4"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_moves",
        sa.Column("game_id", sa.Text(), primary_key=True),
        sa.Column("n", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("data", sa.Text(), nullable=False),
    )
    op.execute(sa.text("UPDATE schema_version SET version = 5"))


def downgrade() -> None:
    raise NotImplementedError("schema steps are not taken back (nothing a user saved is dropped)")
