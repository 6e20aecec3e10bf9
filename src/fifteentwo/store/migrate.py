"""Import the results history of earlier versions (``history.sqlite3``) into the store.

The old file is read (never written), its games are stored in one transaction together with
the file's key, so a second start imports nothing twice, and then it is renamed
``history.sqlite3.migrated`` (kept, never deleted). A file that cannot be read is renamed
``.unreadable`` and reported in one line, so it is not reported again on every start.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from fifteentwo.store.base import FinishedGame, StoreError
from fifteentwo.store.sqlite import SQLiteStore, _rename_aside

__all__ = ["OLD_HISTORY_FILE", "file_digest", "import_old_history"]

OLD_HISTORY_FILE: Final = "history.sqlite3"


def import_old_history(store: SQLiteStore, path: Path) -> int:
    """Import the finished games of an old history file; how many were stored (0: none or done).

    Reports in the store's notices (one line each)."""
    if not path.is_file() or path.resolve() == store.path.resolve() or _is_store(path):
        return 0
    try:
        key = f"history:{file_digest(path)}"
    except OSError as exc:
        store.notify(f"warning: the old results history {path} cannot be read ({exc.strerror})")
        return 0
    if store.was_imported(key):
        _rename_aside(path, ".migrated")
        return 0
    try:
        games = _read_old(path)
    except (sqlite3.Error, ValueError, TypeError, KeyError, StoreError) as exc:
        kept = _rename_aside(path, ".unreadable")
        store.notify(
            f"warning: the old results history {path} cannot be read ({exc}); it was kept as {kept}"
        )
        return 0
    stored = store.import_finished(key, games, f"{len(games)} games from {path}")
    kept = _rename_aside(path, ".migrated")
    if stored:
        store.notify(
            f"note: {stored} finished game(s) from {path} are now in the game store ({kept} kept)"
        )
    return stored


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes: an old file is imported once, whatever its name or time."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _is_store(path: Path) -> bool:
    """Whether ``path`` is itself a game store (someone named a store history.sqlite3)."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return "games_in_progress" in names


def _read_old(path: Path) -> list[FinishedGame]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        conn.row_factory = sqlite3.Row
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "schema_version" not in tables or "games" not in tables:
            raise ValueError("not a fifteentwo history")
        version = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
        if version != 1:
            raise ValueError(f"history schema version {version!r} is not one this version reads")
        rows = conn.execute("SELECT * FROM games ORDER BY id").fetchall()
    finally:
        conn.close()
    return [_finished(dict(r)) for r in rows]


def _finished(row: dict[str, Any]) -> FinishedGame:
    when = datetime.fromisoformat(str(row["finished_at"]))
    if when.tzinfo is None:
        when = when.astimezone()
    record = json.loads(row["record"])
    if not isinstance(record, dict):
        raise ValueError("a game record is not a JSON object")
    won = row["won"]
    return FinishedGame(
        variant=str(row["variant"]),
        target=int(row["target"]),
        levels=str(row["levels"]),
        seats=tuple(json.loads(row["seats"])),
        human_seat=row["human_seat"],
        seed=int(row["seed"]),
        game_number=int(row["game_number"]),
        scores=tuple(json.loads(row["scores"])),
        winner=int(row["winner"]),
        won=None if won is None else bool(won),
        skunk=int(row["skunk"]),
        game_points=int(row["game_points"]),
        deals=int(row["deals"]),
        hands=tuple(json.loads(row["hands"])),
        counted=int(row["counted"]),
        pegged=int(row["pegged"]),
        best_hand=row["best_hand"],
        record=record,
        finished_at=when.astimezone(UTC),
    ).checked()
