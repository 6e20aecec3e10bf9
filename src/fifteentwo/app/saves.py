"""The game store as the terminal front-ends open it: old files imported, saved games described.

`open_game_store` opens the store in the data directory and imports what earlier versions left
there (``save.json``, ``history.sqlite3``), keeping the originals renamed ``.migrated``.
`describe_saved` is the one line that names a saved game (opponent, score, when) in the resume
question and in ``cribbage saved``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final

from fifteentwo.app.describe import game_name
from fifteentwo.store import GameBusy, GameMeta, SavedGame, Store, StoreError, data_dir
from fifteentwo.store.migrate import OLD_HISTORY_FILE, file_digest, import_old_history
from fifteentwo.store.sqlite import SQLiteStore, _rename_aside

if TYPE_CHECKING:
    from fifteentwo.app.session import Session

__all__ = [
    "OLD_SAVE_FILE",
    "describe_saved",
    "import_old_save",
    "offer_saved",
    "open_game_store",
    "saved_game_line",
    "scores_text",
]

OLD_SAVE_FILE: Final = "save.json"
TERMINAL: Final = "terminal"
"""The kind of a game played in the terminal (a web game is offered on the web)."""


def open_game_store(path: Path | str | None = None) -> Store:
    """Open the store (default: in the data directory) and import earlier versions' files found
    beside it. Raises `StoreError` (one line) when it cannot be used."""
    store = SQLiteStore(None if path is None else Path(path))
    folder = store.path.parent
    if path is None or folder == data_dir():
        import_old_history(store, folder / OLD_HISTORY_FILE)
        import_old_save(store, folder / OLD_SAVE_FILE)
    return store


def import_old_save(store: SQLiteStore, path: Path) -> str | None:
    """Make an old ``save.json`` a game in progress in the store (once); its id, or None.

    The file is kept as ``save.json.migrated``; one that cannot be resumed is kept as
    ``save.json.corrupt`` and reported in one line."""
    from fifteentwo.app.session import SaveError, Session

    if not path.is_file():
        return None
    try:
        key = f"save:{file_digest(path)}"
    except OSError as exc:
        store.notify(f"warning: the old save {path} cannot be read ({exc.strerror})")
        return None
    try:
        session = Session.load(path)
    except SaveError as exc:
        store.notify(f"warning: {exc}")
        return None
    try:
        game_id = store.import_game(key, session.to_json(), session.meta())
    except StoreError as exc:
        store.notify(f"warning: the old save {path} was not imported ({exc}); it was left as it is")
        return None
    kept = _rename_aside(path, ".migrated")
    if game_id is not None:
        store.notify(f"note: your saved game from {path} is now saved game {game_id} ({kept} kept)")
    return game_id


def scores_text(meta: GameMeta) -> str:
    """``You 10, Computer 7`` (partners named together in a four-player game)."""
    players, scores = meta.players, meta.scores
    sides = len(scores)
    if sides == 0:
        return ""
    parts = []
    for side, score in enumerate(scores):
        names = " and ".join(p for i, p in enumerate(players) if i % sides == side)
        parts.append(f"{names} {score}")
    return ", ".join(parts)


def when_text(moment: datetime, now: datetime | None = None) -> str:
    """A saved game's time in local time: ``today 14:03`` or ``2026-11-20 09:15``."""
    local = moment.astimezone()
    today = (now or datetime.now().astimezone()).date()
    if local.date() == today:
        return f"today {local:%H:%M}"
    return f"{local:%Y-%m-%d %H:%M}"


def describe_saved(saved: SavedGame) -> str:
    """One line naming a saved game: variant, opponent, score, when, id."""
    meta = saved.meta
    return (
        f"{game_name(meta.variant, meta.target)} against {meta.opponent}, {scores_text(meta)}, "
        f"last played {when_text(saved.updated_at)} (id {saved.game_id})"
    )


def saved_game_line(session: Session) -> str:
    """The saved game a session holds, in one line for an offer to continue it:
    ``standard to 121 against expert, You 45, Computer 60, last played today 14:03``."""
    meta = session.meta()
    when = "" if session.saved_at is None else f", last played {when_text(session.saved_at)}"
    name = game_name(meta.variant, meta.target)
    return f"{name} against {meta.opponent}, {scores_text(meta)}{when}"


def offer_saved(store: Store, warn: Callable[[str], None] | None = None) -> Session | None:
    """The most recent saved terminal game no other session is playing, opened to offer it
    (read afresh each time: the start screen asks again after every game); None if none.
    A game that cannot be read is skipped, and ``warn`` told why in one line."""
    from fifteentwo.app.session import SaveError, Session

    try:
        games = store.list_games()
    except StoreError as exc:  # (a store that cannot be read now: nothing to offer)
        if warn is not None:
            warn(str(exc))
        return None
    for saved in games:
        if saved.meta.kind != TERMINAL:
            continue
        try:
            return Session.resume(store, saved.game_id)
        except GameBusy:
            continue
        except (SaveError, StoreError) as exc:
            if warn is not None:
                warn(str(exc))
    return None
