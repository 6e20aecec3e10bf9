"""The results history: every finished game in a small SQLite file, and totals over them.

One row per game (a match stores each of its games): when, the variant, the computer levels,
the human's seat, the scores, the winner and skunk, the human's show points deal by deal and
points pegged in the play, and the full game record as JSON, so any game can be replayed later.
Everything is read from the engine's record; nothing here scores anything.

The file lives in the user's data directory (``FIFTEENTWO_DATA_DIR`` overrides it). A file that
is not a history we can read is reported in one line and left untouched, never deleted.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from fifteentwo.actions import GameOver
from fifteentwo.errors import FifteenTwoError

if TYPE_CHECKING:
    from fifteentwo.app.session import Session

__all__ = [
    "DATA_DIR_ENV",
    "SCHEMA_VERSION",
    "GameSummary",
    "History",
    "HistoryError",
    "Totals",
    "data_dir",
    "summarize",
]

SCHEMA_VERSION: Final = 1
DATA_DIR_ENV: Final = "FIFTEENTWO_DATA_DIR"
HISTORY_FILE: Final = "history.sqlite3"
SAVE_FILE: Final = "save.json"
PEGGING_REASONS: Final = frozenset({"play", "go", "last card"})
"""Points that count as "pegged in the play" (not his heels, muggins or three for last)."""

_SCHEMA: Final = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    finished_at TEXT NOT NULL,
    variant TEXT NOT NULL,
    target INTEGER NOT NULL,
    levels TEXT NOT NULL,
    seats TEXT NOT NULL,
    human_seat INTEGER,
    seed INTEGER NOT NULL,
    game_number INTEGER NOT NULL,
    scores TEXT NOT NULL,
    winner INTEGER NOT NULL,
    won INTEGER,
    skunk INTEGER NOT NULL,
    game_points INTEGER NOT NULL,
    deals INTEGER NOT NULL,
    hands TEXT NOT NULL,
    counted INTEGER NOT NULL,
    pegged INTEGER NOT NULL,
    best_hand INTEGER,
    record TEXT NOT NULL
);
CREATE INDEX games_by_level ON games (levels, variant);
"""


class HistoryError(FifteenTwoError):
    """The history file cannot be read or written."""


def data_dir() -> Path:
    """Where saves and the history live: ``$FIFTEENTWO_DATA_DIR`` or the platform's data dir."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("fifteentwo", appauthor=False))


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


@dataclass(frozen=True, slots=True)
class Totals:
    """Results against one level in one variant."""

    levels: str
    variant: str
    games: int
    wins: int
    losses: int
    skunks_given: int
    skunks_taken: int
    pegged_per_deal: float
    counted_per_deal: float
    best_hand: int | None

    def to_json(self) -> dict[str, Any]:
        """A plain dict for ``cribbage history --json``."""
        data = asdict(self)
        data["pegged_per_deal"] = round(self.pegged_per_deal, 2)
        data["counted_per_deal"] = round(self.counted_per_deal, 2)
        return data


def summarize(record: dict[str, Any], seats: list[dict[str, Any]]) -> GameSummary:
    """The summary of the last finished game in ``record`` (a record from `Session.record`)."""
    result = record["games"][-1]
    number = result["game"]
    humans = [i for i, s in enumerate(seats) if s.get("human")]
    me = humans[0] if humans else None
    partnerships = bool(record["rules"].get("partnerships"))
    my_side = None if me is None else (me % 2 if partnerships else me)
    deals = [d for d in record["deals"] if d["game"] == number]
    hands: list[dict[str, Any]] = []
    pegged = counted = 0
    best: int | None = None
    for k, deal in enumerate(deals, 1):
        hand: int | None = None
        crib: int | None = None
        for count in deal["counts"]:
            if count["seat"] != me:
                continue
            if count["crib"]:
                crib = count["claimed"]
            else:
                hand = count["claimed"]
                best = count["total"] if best is None else max(best, count["total"])
        counted += (hand or 0) + (crib or 0)
        pegged += sum(
            p["points"]
            for p in deal["points"]
            if p["seat"] == me and p["reason"] in PEGGING_REASONS
        )
        if me is not None:
            hands.append({"deal": k, "hand": hand, "crib": crib})
    levels = ",".join(s["level"] for s in seats if not s.get("human"))
    return GameSummary(
        variant=record["rules"]["name"],
        target=record["rules"]["target"],
        levels=levels or "none",
        human_seat=me,
        game_number=number,
        scores=tuple(result["scores"]),
        winner=result["winner"],
        won=None if my_side is None else result["winner"] == my_side,
        skunk=result["skunk"],
        game_points=result["game_points"],
        deals=len(deals),
        hands=tuple(hands),
        counted=counted,
        pegged=pegged,
        best_hand=best,
    )


class History:
    """The results file. Each call opens, works and closes, so nothing stays locked."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else data_dir() / HISTORY_FILE

    @contextmanager
    def _connect(self, *, create: bool) -> Iterator[sqlite3.Connection]:
        if not create and not self.path.exists():
            conn = sqlite3.connect(":memory:")  # nothing recorded yet: an empty history
        else:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path)
            except (OSError, sqlite3.Error) as exc:
                raise HistoryError(f"cannot open the results history {self.path}: {exc}") from None
        try:
            with conn:
                self._check_schema(conn)
                yield conn
        except sqlite3.DatabaseError as exc:
            raise HistoryError(
                f"the results history {self.path} cannot be read ({exc}); it was left as it is "
                "(move it away to start a new one)"
            ) from None
        finally:
            conn.close()

    def _check_schema(self, conn: sqlite3.Connection) -> None:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            conn.executescript(_SCHEMA)
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
            return
        if "schema_version" not in tables or "games" not in tables:
            raise sqlite3.DatabaseError("not a fifteentwo history")
        row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
        version = row[0] if row else None
        if version != SCHEMA_VERSION:
            newer = isinstance(version, int) and version > SCHEMA_VERSION
            why = "written by a newer fifteentwo" if newer else f"unknown version {version!r}"
            raise sqlite3.DatabaseError(f"history schema {why}")

    def check(self) -> None:
        """Raise `HistoryError` now if the file exists but cannot be used."""
        with self._connect(create=False):
            pass

    def record_game(self, session: Session, event: GameOver) -> int:
        """Store the game that just ended in ``session``; return its row id."""
        record = session.record()
        seats = [asdict(s) for s in session.seats]
        summary = summarize(record, seats)
        if tuple(event.scores) != summary.scores:  # pragma: no cover - engine invariant
            raise HistoryError("the game record does not match the game that ended")
        row = {
            "finished_at": datetime.now().astimezone().isoformat(timespec="seconds"),
            "variant": summary.variant,
            "target": summary.target,
            "levels": summary.levels,
            "seats": json.dumps(seats),
            "human_seat": summary.human_seat,
            "seed": session.seed,
            "game_number": summary.game_number,
            "scores": json.dumps(list(summary.scores)),
            "winner": summary.winner,
            "won": None if summary.won is None else int(summary.won),
            "skunk": summary.skunk,
            "game_points": summary.game_points,
            "deals": summary.deals,
            "hands": json.dumps(list(summary.hands)),
            "counted": summary.counted,
            "pegged": summary.pegged,
            "best_hand": summary.best_hand,
            "record": json.dumps(record, separators=(",", ":")),
        }
        columns = ", ".join(row)
        marks = ", ".join(f":{k}" for k in row)
        with self._connect(create=True) as conn:
            cursor = conn.execute(f"INSERT INTO games ({columns}) VALUES ({marks})", row)
            return int(cursor.lastrowid or 0)

    def totals(self) -> list[Totals]:
        """Results per computer level and variant, for games a human played."""
        query = """
            SELECT levels, variant, COUNT(*), SUM(won), SUM(1 - won),
                   SUM(won = 1 AND skunk > 0), SUM(won = 0 AND skunk > 0),
                   SUM(pegged), SUM(counted), SUM(deals), MAX(best_hand)
            FROM games WHERE human_seat IS NOT NULL
            GROUP BY levels, variant ORDER BY levels, variant
        """
        with self._connect(create=False) as conn:
            rows = conn.execute(query).fetchall()
        out = []
        for levels, variant, n, wins, losses, given, taken, pegged, counted, deals, best in rows:
            per = max(int(deals or 0), 1)
            out.append(
                Totals(
                    levels=levels,
                    variant=variant,
                    games=int(n),
                    wins=int(wins or 0),
                    losses=int(losses or 0),
                    skunks_given=int(given or 0),
                    skunks_taken=int(taken or 0),
                    pegged_per_deal=int(pegged or 0) / per,
                    counted_per_deal=int(counted or 0) / per,
                    best_hand=best,
                )
            )
        return out

    def games(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The stored games, newest first, as dicts (the record included)."""
        query = "SELECT * FROM games ORDER BY id DESC"
        params: tuple[int, ...] = ()
        if limit is not None:
            query += " LIMIT ?"
            params = (limit,)
        with self._connect(create=False) as conn:
            conn.row_factory = sqlite3.Row
            rows = conn.execute(query, params).fetchall()
        out = []
        for r in rows:
            item = dict(r)
            for key in ("seats", "scores", "hands", "record"):
                item[key] = json.loads(item[key])
            out.append(item)
        return out
