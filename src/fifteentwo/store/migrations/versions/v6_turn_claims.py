"""v6: ``turn_claims``: which server process computes a game's computer move at a version, until
when (so exactly one computes it; another takes the claim once it lapses).

Revision ID: v6
Revises: v5
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v6"
down_revision = "v5"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "turn_claims",
        sa.Column("game_id", sa.Text(), primary_key=True),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("until", sa.Float(), nullable=False),
    )
    op.execute(sa.text("UPDATE schema_version SET version = 6"))


def downgrade() -> None:
    raise NotImplementedError("schema steps are not taken back (nothing a user saved is dropped)")
