"""v10 (issue 32): a game's full save moves from ``games_in_progress.data`` to a table of its
own, ``game_saves``. Every step updates its game's row (details, order of play), and SQLite
writes a row whole: with the save in it, a step rewrote 10 to 20 KB of overflow pages to
change a few bytes (a step at 1,000 games in progress, ``bench/bench_steps.py``: 245 and 269 us
of CPU with the save in the row, 190 and 200 without, the index change below included).
PostgreSQL keeps large values apart already (TOAST); the schema is one for both.

The index a player's list of games reads, ``games_in_progress_recent`` on ``(owner_hint,
seq)``, becomes one on ``owner_hint`` alone: ``seq`` changes at every step, so that index was
rewritten at every step too (two more pages in each SQLite commit; on PostgreSQL it kept every
step's update from being a heap-only one). A player has a handful of games in progress, sorted
after they are found. SQLite's index on ``seq`` (v9) stays: each save's ``max(seq)`` reads it.

Revision ID: v10
Revises: v9
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v10"
down_revision = "v9"
branch_labels = None
depends_on = None

DROP_COLUMN_SINCE = (3, 35)
"""The SQLite that drops a column in place (older ones copy the table: Alembic's batch mode)."""


def upgrade() -> None:
    op.create_table(
        "game_saves",
        sa.Column("game_id", sa.Text(), primary_key=True),
        sa.Column("data", sa.Text(), nullable=False),
    )
    copy = "INSERT INTO game_saves (game_id, data) SELECT game_id, data FROM games_in_progress"
    op.execute(sa.text(copy))
    bind = op.get_bind()
    in_place = bind.dialect.name != "sqlite" or (
        bind.dialect.dbapi is not None
        and tuple(bind.dialect.dbapi.sqlite_version_info) >= DROP_COLUMN_SINCE
    )
    if in_place:
        op.drop_column("games_in_progress", "data")
    else:
        with op.batch_alter_table("games_in_progress", recreate="always") as batch:
            batch.drop_column("data")
    op.drop_index("games_in_progress_recent", table_name="games_in_progress")
    op.create_index("games_in_progress_owner", "games_in_progress", ["owner_hint"])
    op.execute(sa.text("UPDATE schema_version SET version = 10"))


def downgrade() -> None:
    raise NotImplementedError("schema steps are not taken back (nothing a user saved is dropped)")
