"""The results history: every finished game, and totals over them, read from the game store.

A thin layer over `fifteentwo.store` kept for the statistics screen, ``cribbage history`` and
``cribbage review ID``: one row per game (a match stores each of its games) with when, the
variant, the computer levels, the human's seat, the scores, the winner and skunk, the human's
show points deal by deal, points pegged in the play, take-backs, and the full game record.
Sessions with a store write their finished games themselves (one transaction with the save);
`record_game` is for sessions without one.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from fifteentwo.actions import GameOver
from fifteentwo.store import DATA_DIR_ENV, Store, StoreError, Totals, data_dir
from fifteentwo.store.summary import PEGGING_REASONS, finished_from_record

if TYPE_CHECKING:
    from fifteentwo.app.session import Session

__all__ = [
    "DATA_DIR_ENV",
    "PEGGING_REASONS",
    "GameSummary",
    "History",
    "HistoryError",
    "Totals",
    "data_dir",
    "summarize",
]

HISTORY_FILE: Final = "history.sqlite3"
"""The results file of earlier versions (imported into the store, then kept as .migrated)."""
SAVE_FILE: Final = "save.json"
"""The one save slot of earlier versions (imported into the store, then kept as .migrated)."""


class HistoryError(StoreError):
    """The history cannot be read or written."""


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One finished game as the history stores it (without the record)."""

    variant: str
    target: int
    levels: str
    """The computer seats' levels in seat order, comma-separated (``expert``)."""
    human_seat: int | None
    game_number: int
    scores: tuple[int, ...]
    winner: int
    won: bool | None
    """Whether the human's side won (None when no human played)."""
    skunk: int
    game_points: int
    deals: int
    hands: tuple[dict[str, Any], ...]
    """The human's show points deal by deal: ``{"deal": n, "hand": pts, "crib": pts|None}``."""
    counted: int
    pegged: int
    best_hand: int | None
    """The best hand the human held (its true total, crib not included)."""


def summarize(record: dict[str, Any], seats: list[dict[str, Any]]) -> GameSummary:
    """The summary of the last finished game in ``record`` (a record from `Session.record`)."""
    done = finished_from_record(record, seats, int(record.get("seed", 0)))
    return GameSummary(
        variant=done.variant,
        target=done.target,
        levels=done.levels,
        human_seat=done.human_seat,
        game_number=done.game_number,
        scores=done.scores,
        winner=done.winner,
        won=done.won,
        skunk=done.skunk,
        game_points=done.game_points,
        deals=done.deals,
        hands=done.hands,
        counted=done.counted,
        pegged=done.pegged,
        best_hand=done.best_hand,
    )


class History:
    """Finished games in the game store (by default the one in the data directory).

    The store is opened on first use, so making a `History` never fails; a store that cannot
    be used raises `HistoryError` (one line) from the first call.
    """

    def __init__(self, path: Path | None = None, *, store: Store | None = None) -> None:
        self._store = store
        if store is not None:
            self.path = Path(store.location)
        else:
            from fifteentwo.store.sqlite import STORE_FILE

            self.path = path if path is not None else data_dir() / STORE_FILE

    @property
    def store(self) -> Store:
        """The store, opened (and old files imported) on first use."""
        if self._store is None:
            from fifteentwo.app.saves import open_game_store

            try:
                self._store = open_game_store(self.path)
            except StoreError as exc:
                raise HistoryError(f"the results history cannot be used: {exc}") from None
        return self._store

    def check(self) -> None:
        """Raise `HistoryError` now if the store cannot be used."""
        _ = self.store

    def record_game(self, session: Session, event: GameOver) -> int:
        """Store the game that just ended in ``session``; return its row id."""
        done = finished_from_record(
            session.record(),
            [asdict(s) for s in session.seats],
            session.seed,
            takebacks=session.takebacks,
            kind=session.kind,
            owner_hint=session.owner_hint,
        )
        if tuple(event.scores) != done.scores:  # pragma: no cover - engine invariant
            raise HistoryError("the game record does not match the game that ended")
        try:
            return self.store.add_finished(done)
        except StoreError as exc:
            raise HistoryError(str(exc)) from None

    def totals(self) -> list[Totals]:
        """Results per computer level and variant, for games a human played."""
        try:
            return self.store.totals()
        except StoreError as exc:
            raise HistoryError(str(exc)) from None

    def games(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The stored games, newest first, as dicts (the record included)."""
        try:
            return self.store.finished_games(limit)
        except StoreError as exc:
            raise HistoryError(str(exc)) from None

    def game(self, row_id: int) -> dict[str, Any]:
        """One finished game by its id (as ``cribbage history --games`` shows it)."""
        try:
            return self.store.finished_game(row_id)
        except StoreError as exc:
            raise HistoryError(str(exc)) from None
