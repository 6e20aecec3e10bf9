"""One store for games in progress and finished games (layer 8: engine and records only).

`open_store()` opens the embedded SQLite store in the data directory; front-ends keep every game
through it. See docs/store.md for the schema, transactions, ownership, journal and migration.
"""

from __future__ import annotations

from pathlib import Path

from fifteentwo.store.base import (
    DATA_DIR_ENV,
    CorruptGame,
    FinishedGame,
    GameBusy,
    GameConflict,
    GameMeta,
    GameNotFound,
    SavedGame,
    Store,
    StoreError,
    StoreUnavailable,
    Totals,
    data_dir,
    new_owner,
)
from fifteentwo.store.summary import finished_from_record

__all__ = [
    "DATA_DIR_ENV",
    "CorruptGame",
    "FinishedGame",
    "GameBusy",
    "GameConflict",
    "GameMeta",
    "GameNotFound",
    "SavedGame",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "Totals",
    "data_dir",
    "finished_from_record",
    "new_owner",
    "open_store",
]


def open_store(where: str | Path | None = None) -> Store:
    """Open a store: None for the default file in `data_dir`, a path, or a URL
    (``sqlite:///abs/path``), or ``postgresql://user@host/db[?schema=name]`` for the hosted
    PostgreSQL store (the ``postgres`` extra).

    Raises `StoreUnavailable` (one line) when the data dir is a file or cannot be created, and
    `StoreError` for a store written by a newer fifteentwo or an unknown URL.
    """
    from fifteentwo.store.sqlite import SQLiteStore

    if where is None:
        return SQLiteStore()
    text = str(where)
    if text.startswith("sqlite://"):
        path = text.removeprefix("sqlite://")
        if not path:
            raise StoreError("sqlite:// needs a path, e.g. sqlite:///home/me/games.sqlite3")
        return SQLiteStore(Path(path))
    if text.startswith(("postgresql://", "postgres://")):
        try:
            from fifteentwo.store.postgres import PostgresStore
        except ImportError as exc:
            raise StoreError(
                f"the PostgreSQL store needs the postgres extra ({exc.name} is missing): "
                "pip install 'fifteentwo[postgres]'"
            ) from None
        return PostgresStore(text)
    if "://" in text:
        raise StoreError(
            f"unknown store URL {text.split('://', maxsplit=1)[0]!r}; give a path or sqlite://"
        )
    return SQLiteStore(Path(text))
