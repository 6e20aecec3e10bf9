"""v4: the two databases hold the same tables: PostgreSQL gains ``imports`` (journal entries and
old files are recorded once there too), SQLite the ``finished_by_owner`` index of the history.

Revision ID: v4
Revises: v3
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v4"
down_revision = "v3"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.create_table(
            "imports",
            sa.Column("source", sa.Text(), primary_key=True),
            sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("detail", sa.Text(), nullable=False),
        )
    else:
        op.create_index("finished_by_owner", "finished_games", ["owner_hint", "id"])
    op.execute(sa.text("UPDATE schema_version SET version = 4"))


def downgrade() -> None:
    raise NotImplementedError("schema steps are not taken back (nothing a user saved is dropped)")
