"""A playing session: a `Game` with human and computer seats, autosave, and a results history.

Both front-ends (plain mode and the Textual app) drive the same `Session`: they show its events,
ask the human for the pending decision, and call `act`. Computer seats and chance steps run by
themselves in between. After every step the session is saved atomically (when a save path is
set), so quitting or a closed terminal loses nothing; `Session.load` resumes it exactly, RNG
state included.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fifteentwo.actions import (
    CHANCE,
    GO,
    Action,
    Count,
    Cut,
    Discard,
    Event,
    GameOver,
    Go,
    Muggins,
    Phase,
    Play,
)
from fifteentwo.cards import Card
from fifteentwo.errors import FifteenTwoError
from fifteentwo.game import Game, Observation
from fifteentwo.players import Player, load_player
from fifteentwo.records import game_record, replay
from fifteentwo.rules import Rules

__all__ = ["SAVE_FORMAT", "SaveError", "SeatConfig", "Session"]

SAVE_FORMAT = "fifteentwo-save/1"


class SaveError(FifteenTwoError):
    """A save file that cannot be read or resumed."""


@dataclass(frozen=True, slots=True)
class SeatConfig:
    """Who sits in a seat: a human, or a computer of some level (``random``, ``greedy``, ...)."""

    name: str
    human: bool = False
    level: str = "greedy"


@dataclass
class Session:
    """A game in progress with its seats, options and callbacks."""

    rules: Rules
    seats: Sequence[SeatConfig]
    seed: int
    auto_count: bool = True
    """Count human hands automatically; when False humans claim their totals (muggins applies)."""
    random_cut: bool = True
    """Cut for humans at random; when False humans choose how deep to cut."""
    save_path: Path | None = None
    on_game_over: Callable[[Session, GameOver], None] | None = None
    game: Game = field(init=False)
    players: dict[int, Player] = field(init=False)

    def __post_init__(self) -> None:
        if len(self.seats) != self.rules.players:
            raise FifteenTwoError(f"{len(self.seats)} seats for a {self.rules.players}-player game")
        humans = [i for i, s in enumerate(self.seats) if s.human]
        self.game = Game(
            self.rules,
            seed=self.seed,
            manual_count=() if self.auto_count else humans,
            cut_seats=() if self.random_cut else humans,
        )
        self.players = {
            i: load_player(s.level, self.seed * 31 + i)
            for i, s in enumerate(self.seats)
            if not s.human
        }

    # --- who is deciding -------------------------------------------------------------------------

    @property
    def human_seats(self) -> list[int]:
        """Seats played by people."""
        return [i for i, s in enumerate(self.seats) if s.human]

    @property
    def viewer(self) -> int:
        """The seat whose view the front-end shows (the first human, else seat 0)."""
        humans = self.human_seats
        return humans[0] if humans else 0

    @property
    def waiting_for(self) -> int | None:
        """The human seat that must decide now, or None (computers to move, or game over)."""
        seat = self.game.to_move
        if seat is None or seat == CHANCE or not self.seats[seat].human:
            return None
        return seat

    @property
    def is_over(self) -> bool:
        """Whether the game (match) is finished."""
        return self.game.is_over

    def observation(self, seat: int | None = None) -> Observation:
        """What a seat (by default the viewer) sees."""
        return self.game.observation(self.viewer if seat is None else seat)

    def names(self) -> list[str]:
        """Seat names, in seat order."""
        return [s.name for s in self.seats]

    # --- moving ---------------------------------------------------------------------------------

    def run(self) -> list[Event]:
        """Play chance steps and computer seats until a human must decide or the game ends."""
        events: list[Event] = []
        game = self.game
        while not game.is_over:
            seat = game.to_move
            assert seat is not None
            if seat == CHANCE:
                events.extend(self._apply(game.sample_chance()))
            elif self.seats[seat].human:
                break
            else:
                action = self.players[seat].choose(game.observation(seat))
                events.extend(self._apply(action))
        self.save()
        return game.events_for(self.viewer, events)

    def act(self, action: Action) -> list[Event]:
        """Apply the waiting human's action, then run on; return what the viewer may see."""
        if self.waiting_for is None:
            raise FifteenTwoError("no one at this table is waiting to decide")
        events = self.game.events_for(self.viewer, self._apply(action))
        return events + self.run()

    def _apply(self, action: Any) -> list[Event]:
        events = self.game.apply(action)
        if self.on_game_over is not None:
            for event in events:
                if isinstance(event, GameOver):
                    self.on_game_over(self, event)
        return events

    @property
    def phase(self) -> Phase:
        """The game's phase."""
        return self.game.phase

    def record(self) -> dict[str, Any]:
        """The game record (see docs/records.md)."""
        return game_record(self.game, self.names())

    # --- saving ---------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Everything needed to resume: settings, the record so far, and every RNG's state."""
        return {
            "format": SAVE_FORMAT,
            "seats": [asdict(s) for s in self.seats],
            "seed": self.seed,
            "auto_count": self.auto_count,
            "random_cut": self.random_cut,
            "record": self.record(),
            "decisions": [_decision_json(a) for actor, a in self.game.log if actor != CHANCE],
            "rng": _rng_state(self.game.rng),
            "players": {str(i): _rng_state(p.rng) for i, p in self.players.items()},
        }

    def save(self) -> None:
        """Write the save file atomically (if this session has one); remove it once over."""
        if self.save_path is None:
            return
        if self.game.is_over:
            self.save_path.unlink(missing_ok=True)
            return
        _atomic_write(self.save_path, json.dumps(self.to_json()))

    @classmethod
    def from_json(cls, data: dict[str, Any], **kwargs: Any) -> Session:
        """Resume a session from `to_json` data; raises `SaveError` when it does not fit."""
        try:
            if data.get("format") != SAVE_FORMAT:
                raise SaveError(f"not a fifteentwo save (format {data.get('format')!r})")
            seats = [SeatConfig(**s) for s in data["seats"]]
            if "decisions" in data:
                game = _rerun(data["record"], data["decisions"], [s.name for s in seats])
            else:  # a save from before decisions were kept
                game = replay(data["record"])
            session = cls(
                game.rules,
                seats,
                int(data["seed"]),
                auto_count=bool(data["auto_count"]),
                random_cut=bool(data["random_cut"]),
                **kwargs,
            )
            session.game = game
            game.rng.setstate(_rng_from_json(data["rng"]))
            for seat, state in data["players"].items():
                session.players[int(seat)].rng.setstate(_rng_from_json(state))
        except SaveError:
            raise
        except (FifteenTwoError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise SaveError(f"the save cannot be resumed: {exc}") from None
        return session

    @classmethod
    def load(cls, path: Path, **kwargs: Any) -> Session:
        """Resume from a save file. A corrupt file is moved aside (never deleted) and reported."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise SaveError("the save is not a JSON object")
            return cls.from_json(data, save_path=path, **kwargs)
        except (OSError, ValueError, SaveError) as exc:
            kept = _set_aside(path)
            raise SaveError(
                f"could not resume {path} ({exc}); the file was kept as {kept}"
            ) from None


def _decision_json(action: Any) -> list[Any]:
    """A seat's action as JSON, for `_rerun`."""
    if isinstance(action, Discard):
        return ["discard", [c.short for c in action.cards]]
    if isinstance(action, Play):
        return ["play", action.card.short]
    if isinstance(action, Go):
        return ["go"]
    if isinstance(action, Cut):
        return ["cut", action.depth]
    if isinstance(action, Count):
        return ["count", action.points]
    if isinstance(action, Muggins):
        return ["muggins", action.take]
    raise TypeError(f"not a seat's action: {action!r}")


def _decision_from_json(item: list[Any]) -> Action:
    kind, *args = item
    if kind == "discard":
        return Discard(tuple(Card.parse(c) for c in args[0]))
    if kind == "play":
        return Play(Card.parse(args[0]))
    if kind == "go":
        return GO
    if kind == "cut":
        return Cut(int(args[0]))
    if kind == "count":
        return Count(int(args[0]))
    if kind == "muggins":
        return Muggins(bool(args[0]))
    raise ValueError(f"unknown decision {kind!r}")


def _rerun(record: dict[str, Any], decisions: list[Any], names: list[str]) -> Game:
    """Play the game again from its seed with the saved decisions, drawing chance as a session
    does; the record it makes must be the saved one.

    Unlike `replay`, this resumes any moment of a game (a discard or a count still to make),
    and every deck order, cuts by depth included, comes out as it was.
    """
    rules = Rules.from_json(record["rules"])
    game = Game(
        rules,
        seed=int(record["seed"]),
        manual_count=record.get("manual_count", ()),
        cut_seats=record.get("cut_seats", ()),
    )  # a session always cuts for deal (a record of one still in the cut names a first dealer)
    for item in decisions:
        game.advance()
        game.apply(_decision_from_json(item))
    game.advance()
    if game_record(game, names) != record:
        raise SaveError("the save's moves do not lead to its record")
    return game


def _rng_state(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _rng_from_json(state: list[Any]) -> tuple[Any, ...]:
    version, internal, gauss = state
    return (int(version), tuple(int(x) for x in internal), gauss)


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _set_aside(path: Path) -> Path:
    """Rename a bad save to ``NAME.corrupt`` (numbered if taken) so nothing is lost."""
    target = path.with_name(path.name + ".corrupt")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt{n}")
    try:
        path.rename(target)
    except OSError:
        return path
    return target
