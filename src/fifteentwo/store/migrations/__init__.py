"""Alembic revisions of the store's schema (``versions/``), run at open by `store.upgrade`.

``v3`` is the schema every earlier fifteentwo wrote (version 3 in SQLite, 2 in PostgreSQL):
on an empty database it creates it, an older database is brought to it by the statements it was
written with and then stamped. Each later revision is one step forward on both databases.
"""
