"""The store's interface: the abstract `Store`, the values it keeps, and its errors.

Every front-end (plain mode, the Textual app, the web server) keeps games through a `Store`, so
games in progress and finished games live in one place, with one set of guarantees: a game is
owned by the session playing it, a finished game moves from "in progress" to "finished" in one
transaction, and nothing a user saved is deleted. `SQLiteStore` is the embedded default; a
PostgreSQL backend implements the same methods for a hosted server (docs/store.md).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import string
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from fifteentwo.errors import FifteenTwoError

__all__ = [
    "DATA_DIR_ENV",
    "SQLITE_INT_MAX",
    "Account",
    "AccountExists",
    "CorruptGame",
    "FinishedGame",
    "GameBusy",
    "GameMeta",
    "GameNotFound",
    "Owner",
    "RatingChange",
    "RatingUpdate",
    "SavedGame",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "TableConflict",
    "TableNotFound",
    "TableRow",
    "Totals",
    "WebSession",
    "checked_int",
    "data_dir",
    "new_owner",
    "utc_now",
]

SQLITE_INT_MAX: Final = 2**63 - 1
"""The largest integer an SQLite INTEGER column holds; bigger ones (seeds) are kept as TEXT."""

SMALL_INT_LIMIT: Final = 10**9
"""Bound on the counters, scores and seat numbers a store writes to integer columns."""


class StoreError(FifteenTwoError):
    """The store cannot do what was asked; the message is one line for the user."""


class GameNotFound(StoreError):
    """No game in progress has this id."""


class GameBusy(StoreError):
    """Another live session owns this game (it is being played elsewhere)."""


class GameConflict(GameBusy):
    """The game changed in the store since this session read it (another process moved it)."""


class CorruptGame(StoreError):
    """A saved game that cannot be read; it was set aside (never deleted) and this says where."""


class StoreUnavailable(StoreError):
    """Storage stayed locked, read-only, full or missing after retries, and the journal could
    not be written either: the game goes on unsaved."""


class AccountExists(StoreError):
    """The username is taken (usernames compare without regard to case)."""


class TableNotFound(StoreError):
    """No table has this id."""


class TableConflict(StoreError):
    """The table changed since it was read (another process wrote it first): read it again."""


DATA_DIR_ENV: Final = "FIFTEENTWO_DATA_DIR"


def data_dir() -> Path:
    """Where the store lives: ``$FIFTEENTWO_DATA_DIR`` or the platform's user data dir."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("fifteentwo", appauthor=False))


def utc_now() -> datetime:
    """Now, timezone-aware UTC (every time a store hands out is)."""
    return datetime.now(UTC)


def checked_time(moment: datetime, what: str) -> datetime:
    """A time a store compares, in UTC; a naive one is refused (its zone would be a guess)."""
    if not isinstance(moment, datetime) or moment.tzinfo is None:
        raise StoreError(f"{what} must be a timezone-aware datetime")
    return moment.astimezone(UTC)


def checked_int(value: object, name: str, *, limit: int = SMALL_INT_LIMIT) -> int:
    """``value`` as an int for an integer column, refusing bools, floats and huge values.

    >>> checked_int(61, "target")
    61
    >>> checked_int(True, "target")
    Traceback (most recent call last):
    ...
    fifteentwo.store.base.StoreError: target must be an integer, not True
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise StoreError(f"{name} must be an integer, not {value!r}"[:200])
    if not -limit <= value <= limit:
        raise StoreError(f"{name} is out of range ({str(value)[:30]})")
    return value


@dataclass(frozen=True, slots=True)
class Owner:
    """Who holds a game: an unguessable token plus where the session runs (for stale leases)."""

    token: str
    pid: int
    host: str


_ID_ALPHABET: Final = string.ascii_letters + string.digits


def new_game_id() -> str:
    """A fresh game id: 12 letters and digits (71 bits, unguessable). Never ``-`` or ``_``: an id
    starting with ``-`` would read as an option in ``cribbage play --resume ID``."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(12))


SAME_HOST_LEASE: Final = 24 * 3600.0
"""A lease of a live process on this host lapses after a day without a heartbeat (pid reuse)."""
OTHER_HOST_LEASE: Final = 600.0
"""A lease from another host (shared data dir or database) lapses after ten minutes without one."""


def lease_alive(pid: int, host: str, beat: float) -> bool:
    """Whether a lease still stands: on this host while its process lives (and has beaten in
    the last day); elsewhere while it has beaten in the last ten minutes."""
    age = time.time() - beat
    if host != this_process("").host:
        return age < OTHER_HOST_LEASE
    if age > SAME_HOST_LEASE:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def new_owner() -> str:
    """A fresh owner token for a session (pass it as ``owner=`` to every call)."""
    return secrets.token_hex(16)


_PROCESS: list[tuple[int, str]] = []
"""This process's id and host name, read once (a lease is judged at every step; issue 32) and
read again in a child after a fork."""
os.register_at_fork(after_in_child=_PROCESS.clear)


def this_process(token: str) -> Owner:
    """The `Owner` for ``token`` in this process."""
    if not _PROCESS:
        _PROCESS.append((os.getpid(), socket.gethostname()))
    pid, host = _PROCESS[0]
    return Owner(token, pid, host)


@dataclass(frozen=True, slots=True)
class GameMeta:
    """What a list of saved games shows without reading the game: who, what, the score."""

    variant: str
    target: int
    players: tuple[str, ...]
    """Seat names in seat order."""
    levels: tuple[str, ...]
    """``human`` or the computer level, seat by seat."""
    scores: tuple[int, ...]
    """Each side's score in the current game."""
    kind: str = "terminal"
    """Which front-end keeps it: ``terminal``, ``web``, ... (free text)."""
    owner_hint: str = ""
    """Free text a front-end may filter on (a web user id); may be empty."""
    takebacks: int = 0
    """How many decisions the human took back so far (`Session.undo`)."""

    @property
    def opponent(self) -> str:
        """The computer levels in the game (``expert``, ``greedy x3``), or ``no computer``."""
        bots = [lv for lv in self.levels if lv != "human"]
        if not bots:
            return "no computer"
        if len(bots) > 1 and len(set(bots)) == 1:
            return f"{bots[0]} x{len(bots)}"
        return ", ".join(bots)

    def to_json(self) -> dict[str, Any]:
        """A plain dict (the columns a store keeps; ``cribbage saved --json``)."""
        return {  # (written out: `asdict` cost a web action 50 us, twice)
            "variant": self.variant,
            "target": self.target,
            "players": list(self.players),
            "levels": list(self.levels),
            "scores": list(self.scores),
            "kind": self.kind,
            "owner_hint": self.owner_hint,
            "takebacks": self.takebacks,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameMeta:
        """The inverse of `to_json`; raises `StoreError` on anything that does not fit."""
        try:
            read = cls(
                variant=data["variant"],
                target=data["target"],
                players=data["players"],
                levels=data["levels"],
                scores=data["scores"],
                kind=data.get("kind", "terminal"),
                owner_hint=data.get("owner_hint", ""),
                takebacks=data.get("takebacks", 0),
            )
        except (KeyError, TypeError) as exc:
            raise StoreError(f"game details do not fit: {exc!r}"[:200]) from None
        return read.checked()

    def checked(self) -> GameMeta:
        """Self, after checking every field a store writes (types and bounds): a copy with
        its sequences made tuples (`from_json` reads through it)."""
        try:
            return GameMeta(
                variant=_text(self.variant, "variant"),
                target=checked_int(self.target, "target"),
                players=tuple(_text(p, "player") for p in self.players),
                levels=tuple(_text(p, "level") for p in self.levels),
                scores=tuple(checked_int(s, "score") for s in self.scores),
                kind=_text(self.kind, "kind"),
                owner_hint=_text(self.owner_hint, "owner_hint"),
                takebacks=checked_int(self.takebacks, "takebacks"),
            )
        except TypeError as exc:
            raise StoreError(f"game details do not fit: {exc!r}"[:200]) from None


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise StoreError(f"{name} must be text, not {type(value).__name__}")
    return value


@dataclass(frozen=True, slots=True)
class SavedGame:
    """A game in progress as stored: its id, save data (`Session.to_json`) and details."""

    game_id: str
    data: dict[str, Any]
    meta: GameMeta
    updated_at: datetime
    created_at: datetime
    version: int | None = None
    """Changes with every write of the game (`Store.game_version`; None: not known)."""

    def to_json(self) -> dict[str, Any]:
        """What ``cribbage saved --json`` prints for it (the details, not the save data)."""
        return {
            "id": self.game_id,
            **self.meta.to_json(),
            "opponent": self.meta.opponent,
            "updated_at": self.updated_at.isoformat(timespec="seconds"),
            "created_at": self.created_at.isoformat(timespec="seconds"),
        }


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """One finished game (each game of a match is one) with everything the history shows."""

    variant: str
    target: int
    levels: str
    """The computer seats' levels in seat order, comma-separated (``expert``)."""
    seats: tuple[dict[str, Any], ...]
    """The seats as the session had them (name, human, level)."""
    human_seat: int | None
    seed: int
    """The game's seed, any size (stored as text)."""
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
    record: dict[str, Any]
    """The full game record (docs/records.md) so the game can be replayed and reviewed."""
    finished_at: datetime = field(default_factory=utc_now)
    takebacks: int = 0
    """Decisions the human took back in this game (0: played straight)."""
    kind: str = "terminal"
    owner_hint: str = ""

    def checked(self) -> FinishedGame:
        """Self after checking the integer fields' types and bounds (seed: any int)."""
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise StoreError(f"seed must be an integer, not {self.seed!r}"[:200])
        for name in ("target", "game_number", "winner", "skunk", "game_points", "deals"):
            checked_int(getattr(self, name), name)
        for name in ("counted", "pegged", "takebacks"):
            checked_int(getattr(self, name), name)
        for value in (self.human_seat, self.best_hand):
            if value is not None:
                checked_int(value, "seat or hand")
        for score in self.scores:
            checked_int(score, "score")
        if self.finished_at.tzinfo is None:
            raise StoreError("finished_at must be timezone-aware")
        return self


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


@dataclass(frozen=True, slots=True)
class Account:
    """A player's account: a unique username, a password hash made by a password-hashing library
    (the store never sees the password) and a Glicko-2 rating for games between people."""

    account_id: str
    """Unguessable id (`new_game_id` style); what finished games and tables refer to."""
    username: str
    password_hash: str
    created_at: datetime
    rating: float = 1500.0
    rd: float = 350.0
    """Rating deviation."""
    volatility: float = 0.06
    rated_games: int = 0

    def to_json(self) -> dict[str, Any]:
        """The public part (never the hash), e.g. for the leaderboard."""
        return {
            "username": self.username,
            "rating": round(self.rating, 1),
            "rd": round(self.rd, 1),
            "rated_games": self.rated_games,
            "created_at": self.created_at.isoformat(timespec="seconds"),
        }


@dataclass(frozen=True, slots=True)
class RatingUpdate:
    """An account's new rating after one rated game (`Store.save_ratings`)."""

    account_id: str
    rating: float
    rd: float
    volatility: float
    # issue 35: each change is kept (`Store.rating_history`): the game, the rating before, and
    # how the game counted for this account ("won", "lost" or "forfeit")
    game: str = ""
    before: float | None = None
    outcome: str = ""


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One kept change of an account's rating (issue 35): which game, before and after, when."""

    account_id: str
    game: str
    before: float
    after: float
    rd: float
    outcome: str
    at: datetime

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "before": round(self.before, 1),
            "after": round(self.after, 1),
            "change": round(self.after - self.before, 1),
            "rd": round(self.rd, 1),
            "outcome": self.outcome,
            "at": self.at.isoformat(timespec="seconds"),
        }


@dataclass(frozen=True, slots=True)
class TableRow:
    """A web table as stored: the front-end's JSON (seats, token hashes, the game's save data),
    its status and a version number that every write increases (optimistic concurrency, so
    several server processes can serve one table)."""

    table_id: str
    data: dict[str, Any]
    status: str
    """``open`` (seats to fill), ``playing``, ``adjourned``, ``finished`` or ``closed``."""
    version: int
    created_at: datetime
    updated_at: datetime
    due_at: datetime | None = None
    """When a server next has something to do for it unasked (an away seat's or a turn's time
    runs out, a result to store, an idle table to close): what `list_tables(due_before=...)`
    finds, so a server's sweep reads only the tables that need it."""


@dataclass(frozen=True, slots=True)
class WebSession:
    """A browser's session (issue 35): who it is and when it began and was last used (Unix
    seconds). ``key`` is the SHA-256 of the cookie's id, so the store never holds a usable id."""

    key: str
    player: str
    account_id: str | None
    username: str | None
    created_at: float
    seen_at: float


class Store(ABC):
    """Games in progress and finished games. Every write is one transaction.

    ``owner`` is the session's token (`new_owner`): a game in progress is held by one live
    owner at a time, and calls by another owner raise `GameBusy`.
    """

    location: str
    """Where the store lives, for messages (a path or a URL without its password)."""

    @abstractmethod
    def create_game(self, data: dict[str, Any], meta: GameMeta, *, owner: str) -> str:
        """Store a new game in progress owned by ``owner``; return its new unguessable id."""

    @abstractmethod
    def save_game(
        self,
        game_id: str,
        data: dict[str, Any],
        meta: GameMeta,
        *,
        owner: str,
        expected_version: int | None = None,
    ) -> int | None:
        """Write a game's latest state (insert or replace); `GameBusy` if another owner holds it.
        Returns the game's new version (None: not known). With ``expected_version``,
        `GameConflict` (nothing written) when the stored game is at another version.

        When storage stays unavailable after retries the state goes to a journal instead (see
        `notices`); `StoreUnavailable` only if even that fails."""

    def append_move(
        self,
        game_id: str,
        delta: dict[str, Any],
        meta: GameMeta,
        *,
        owner: str,
        expected_version: int | None = None,
    ) -> int | None:
        """Store one step of a game already saved as a small delta beside its last full save
        (`merge_moves` says how it applies); the game's new version, or None when it was not
        stored (the game is not there, or storage is unavailable): the caller then saves the
        whole game instead. `GameBusy` as for `save_game`; with ``expected_version``,
        `GameConflict` (nothing written) when the game is no longer at that version. This
        default stores nothing (a store without deltas)."""
        return None

    def claim_turn(self, game_id: str, version: int, *, owner: str, seconds: float) -> bool:
        """Claim the computer's move of a game at ``version`` for ``seconds``: True for exactly
        one claimant at a time (again for the holder; for another once the claim lapsed or the
        game moved on). This default grants every claim (a store one process uses)."""
        return True

    def game_version(self, game_id: str) -> int | None:
        """The game's version (changes with every write of it), None if it is not stored."""
        return None

    @abstractmethod
    def load_game(self, game_id: str) -> SavedGame:
        """A game in progress; `GameNotFound`, or `CorruptGame` after setting a bad row aside."""

    @abstractmethod
    def claim(self, game_id: str, *, owner: str) -> None:
        """Take ownership of a game (a lease); `GameBusy` if a live session holds it."""

    @abstractmethod
    def release(self, game_id: str, *, owner: str) -> None:
        """Give up ownership (the game stays saved); a no-op if ``owner`` does not hold it."""

    @abstractmethod
    def heartbeat(self, game_id: str, *, owner: str) -> None:
        """Renew ``owner``'s lease (a long-lived server calls this while a player thinks)."""

    def heartbeat_many(self, game_ids: Sequence[str], *, owner: str) -> None:
        """`heartbeat` for each game; a game another live session holds is left to it."""
        for game_id in game_ids:
            with contextlib.suppress(GameBusy):
                self.heartbeat(game_id, owner=owner)

    @abstractmethod
    def list_games(self, *, owner_hint: str | None = None) -> list[SavedGame]:
        """Games in progress, most recently played first; corrupt rows are set aside."""

    def most_recent(self, *, owner_hint: str | None = None) -> SavedGame | None:
        """The game in progress played last, or None."""
        games = self.list_games(owner_hint=owner_hint)
        return games[0] if games else None

    @abstractmethod
    def delete_game(self, game_id: str, *, owner: str) -> None:
        """Abandon a game in progress on the user's explicit request (never implicitly)."""

    @abstractmethod
    def set_aside(self, game_id: str, reason: str) -> str:
        """Move a game that cannot be resumed out of the way (kept, never deleted); return a
        one-line description of where it went."""

    @abstractmethod
    def finish_game(
        self,
        game_id: str | None,
        finished: Sequence[FinishedGame],
        data: dict[str, Any] | None,
        meta: GameMeta | None = None,
        *,
        owner: str | None = None,
        expected_version: int | None = None,
    ) -> list[int]:
        """In ONE transaction: store the finished games, then remove the game in progress
        (``data`` None) or update it (a match that goes on: ``data`` and ``meta``). Returns the
        finished rows' ids. A game is never removed before its results are stored. With
        ``expected_version``, `GameConflict` (nothing written) when the stored game is at
        another version or gone: a copy that fell behind never ends the game."""

    def add_finished(self, finished: FinishedGame) -> int:
        """Store one finished game not tied to a saved game; its row id."""
        return self.finish_game(None, [finished], None)[0]

    @abstractmethod
    def finished_games(
        self, limit: int | None = None, *, owner_hint: str | None = None
    ) -> list[dict[str, Any]]:
        """Finished games newest first, as dicts (``id``, the `FinishedGame` fields, record)."""

    @abstractmethod
    def finished_game(self, row_id: int) -> dict[str, Any]:
        """One finished game by row id; `GameNotFound` if there is none."""

    @abstractmethod
    def totals(self, *, owner_hint: str | None = None) -> list[Totals]:
        """Results per computer level and variant over games a human played."""

    # --- settings, accounts, ratings and tables (the web server's and the app's) ---------------

    @abstractmethod
    def get_setting(self, key: str) -> str | None:
        """A remembered setting (the app's last choices), or None."""

    @abstractmethod
    def set_setting(self, key: str, value: str) -> None:
        """Remember a setting (insert or replace)."""

    @abstractmethod
    def create_account(self, username: str, password_hash: str) -> Account:
        """A new account with the default rating; `AccountExists` if the username (compared
        case-insensitively) is taken. The username is kept as typed."""

    @abstractmethod
    def account(self, account_id: str) -> Account | None:
        """The account with this id, or None."""

    @abstractmethod
    def account_by_name(self, username: str) -> Account | None:
        """The account with this username (case-insensitive), or None."""

    @abstractmethod
    def set_password_hash(self, account_id: str, password_hash: str) -> None:
        """Replace an account's hash (a rehash with stronger parameters, a new password)."""

    @abstractmethod
    def save_ratings(self, updates: Sequence[RatingUpdate]) -> None:
        """In one transaction: set each account's rating, add one to its rated games and keep
        the change (`rating_history`)."""

    @abstractmethod
    def rating_history(self, account_id: str, limit: int = 100) -> list[RatingChange]:
        """An account's kept rating changes, newest first (issue 35)."""

    @abstractmethod
    def leaderboard(self, limit: int = 50, *, min_games: int = 1) -> list[Account]:
        """Accounts with at least ``min_games`` rated games, best rating first (ties: lower
        deviation first, then username)."""

    @abstractmethod
    def save_table(
        self,
        table_id: str,
        data: dict[str, Any],
        status: str,
        *,
        expected_version: int | None,
        due_at: datetime | None = None,
    ) -> int:
        """Write a table and return its new version. ``expected_version`` None creates it
        (`TableConflict` if the id exists); otherwise the write happens only if the stored
        version is still ``expected_version`` (`TableConflict` if not, `TableNotFound` if
        there is no such table). ``due_at``: see `TableRow.due_at` (None: never)."""

    @abstractmethod
    def table_versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        """The stored version of each of these tables that exists (no data is read: a server
        checks that the tables its connections watch are up to date)."""

    @abstractmethod
    def load_table(self, table_id: str) -> TableRow:
        """A table; `TableNotFound` if there is none."""

    @abstractmethod
    def list_tables(
        self,
        *,
        status: Sequence[str] | None = None,
        updated_before: datetime | None = None,
        due_before: datetime | None = None,
    ) -> list[TableRow]:
        """Tables (optionally only those with one of these statuses, last written before a
        time, or due (`TableRow.due_at`) at or before a time), most recently written first."""

    # --- web sessions and security (issue 35) ---------------------------------------------------

    @abstractmethod
    def create_web_session(self, session: WebSession) -> None:
        """Keep a new browser session (its key is a hash of the cookie's random id)."""

    @abstractmethod
    def web_session(self, key: str) -> WebSession | None:
        """The session with this key, or None."""

    @abstractmethod
    def touch_web_session(self, key: str, seen_at: float) -> None:
        """Note that the session was used (for its idle lifetime)."""

    @abstractmethod
    def end_web_sessions(
        self, *, key: str | None = None, account_id: str | None = None, keep: str | None = None
    ) -> int:
        """End one session (``key``) or every session of an account but ``keep``; how many."""

    @abstractmethod
    def purge_web_sessions(self, idle_before: float, created_before: float) -> int:
        """Delete sessions last used before ``idle_before`` or made before ``created_before``."""

    # --- end of web sessions and security (issue 35) --------------------------------------------

    def write_problem(self) -> str | None:
        """Why nothing can be saved here (read-only storage and no journal possible), or None
        when saving can work (perhaps through the journal)."""
        return None

    def take_notices(self) -> list[str]:
        """One-line messages for the user (a corrupt row set aside, a journal imported or
        written), each handed out once."""
        return []

    def close(self) -> None:  # noqa: B027 - optional for backends that keep nothing open
        """Release any resources (connections)."""


def merge_moves(data: dict[str, Any], moves: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A full save with the deltas stored after it applied in order: each delta's ``append``
    lists are added to the save's lists, its ``set`` values replace the save's. The result
    counts them in ``moves_applied`` (so a reader knows parts of the save, like the record,
    stop at the full save)."""
    if not moves:
        return data
    merged = dict(data)
    for delta in moves:
        append, replace = delta.get("append", {}), delta.get("set", {})
        if not isinstance(append, dict) or not isinstance(replace, dict):
            raise ValueError("a stored step is not a delta")
        for key, items in append.items():
            if not isinstance(items, list):
                raise ValueError(f"a stored step's {key!r} is not a list"[:100])
            merged[key] = [*merged.get(key, []), *items]
        for key, value in replace.items():
            merged[key] = value
    merged["moves_applied"] = int(merged.get("moves_applied", 0)) + len(moves)
    return merged
