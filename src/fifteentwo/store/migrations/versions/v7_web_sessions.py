"""v7: ``web_sessions``: the web server's browser sessions (issue 35). The cookie holds a random
id; this table holds its SHA-256, the player and account it stands for, and when it began and
was last used (Unix seconds), so logout and every lifetime end a session on every process.

Revision ID: v7
Revises: v6
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v7"
down_revision = "v6"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_sessions",
        sa.Column("key", sa.Text(), primary_key=True),
        sa.Column("player", sa.Text(), nullable=False),
        sa.Column("account_id", sa.Text()),
        sa.Column("username", sa.Text()),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("seen_at", sa.Float(), nullable=False),
    )
    op.create_index("web_sessions_account", "web_sessions", ["account_id"])
    op.execute(sa.text("UPDATE schema_version SET version = 7"))


def downgrade() -> None:
    raise NotImplementedError("schema steps are not taken back (nothing a user saved is dropped)")
