"""A playing session: a `Game` with human and computer seats, saved in the game store.

Both front-ends (plain mode and the Textual app) drive the same `Session`: they show its events,
ask the human for the pending decision, and call `act`. Computer seats and chance steps run by
themselves in between. After every step the session is saved in its `Store` (when it has one),
so quitting or a closed terminal loses nothing; `Session.resume` continues it exactly, RNG state
included. A finished game moves to the store's finished games in the same transaction that
removes it from the games in progress. `undo` takes back the human's last decision (not a
cut, nor anything before one).
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import random
import struct
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
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
from fifteentwo.app.drawn import CountedRandom, advance, count_as, counted
from fifteentwo.cards import Card
from fifteentwo.errors import FifteenTwoError
from fifteentwo.game import Game, Observation
from fifteentwo.players import Player, load_player
from fifteentwo.records import game_record, replay
from fifteentwo.rules import Rules
from fifteentwo.store import (
    FinishedGame,
    GameBusy,
    GameConflict,
    GameMeta,
    Store,
    StoreError,
    StoreUnavailable,
    new_owner,
)
from fifteentwo.store.summary import finished_from_record

__all__ = ["SAVE_FORMAT", "SaveError", "SeatConfig", "Session"]

UNDO_MARKS = 30
"""How many of the human's decisions a session can take back, at most. Each keeps the computer
players' RNG states (about 3 kB each, shared while they do not change), so saves stay small."""

SAVE_FORMAT = "fifteentwo-save/1"

FULL_SAVE_MIN = 48
"""Steps of the game log (decisions, chance, computers) after a full save before the next one
is due, at least (each game adds up to as many again by its seed: `Session.full_save_min`);
after that, as many as the log held at the last full save (so full saves come at doubling
lengths and a step costs O(1) on average: docs/store.md, "Moves")."""
REBASE_WORDS = 1 << 16
"""Words an RNG may draw past the state a stored game holds for it before a step stores its
state again (`Session._at`): a step carries the count (a number) instead of the state (3 KB),
and a resume draws at most this many words again (a fraction of a millisecond)."""
ADVANCE_MAX = 1 << 20
"""The most words a save may ask a resume to draw (a damaged save is refused, not obeyed)."""
PACKS_KEPT = 16
"""RNGs whose packed state a session remembers (its game's and players', a few over)."""


class SaveError(FifteenTwoError):
    """A save file that cannot be read or resumed."""


class SaveConflict(SaveError):
    """Another process moved the game on since this session read it: nothing was written;
    load the game again (`Session.resume`) and play on from there."""


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
    store: Store | None = None
    """Where the game is kept after every step (None: not saved)."""
    game_id: str | None = None
    """The game's id in the store (given on the first save)."""
    owner: str = field(default_factory=new_owner)
    """This session's owner token: the store refuses the game to other sessions meanwhile."""
    on_game_over: Callable[[Session, GameOver], None] | None = None
    on_notice: Callable[[str], None] | None = None
    """Where one-line store messages go (a journal written, storage lost); default stderr."""
    kind: str = "terminal"
    """Which front-end plays it (kept with the game: ``terminal``, ``web``)."""
    owner_hint: str = ""
    """Free text kept with the game and its results (a web user id)."""
    takebacks: int = 0
    """How many decisions the human took back (`undo`); kept with the finished game."""
    saved_at: datetime | None = None
    """When a resumed game was last saved before this session took it up."""
    first_dealer: int | None = None
    """Who deals first (a rematch: the loser of the last game); None cuts for deal."""
    finished_ids: list[int] = field(init=False, default_factory=list)
    """The store's row ids of the games this session stored as finished, in order (a web page
    links its review by them; a finish kept in the journal while the store was down has none
    here)."""
    store_trouble: str | None = field(init=False)
    """Why the last save failed while the store is down for now (None: saved); the next save
    tries again (issue 35)."""
    game: Game = field(init=False)
    players: dict[int, Player] = field(init=False)
    _finished: list[FinishedGame] = field(init=False, default_factory=list)
    _undo_marks: list[tuple[int, int, int]] = field(init=False, default_factory=list)
    """(seat decisions before it, index into `_undo_states`, game number) per human decision."""
    _undo_states: list[dict[str, str]] = field(init=False, default_factory=list)
    """Computer players' RNG states (`_pack_rng`) by seat, shared by consecutive marks."""
    _full_saved: Game | None = field(init=False, repr=False, compare=False)
    """The game object the store's full save (plus its steps) describes (None: none yet)."""
    _saved_log: int = field(init=False, repr=False, compare=False)
    """How much of that game's log the store holds."""
    _log_at_full: int = field(init=False, repr=False, compare=False)
    _stored_sets: dict[str, Any] = field(init=False, default_factory=dict, repr=False)
    """The RNG and take-back states the store holds (as `step_json` sets them): a step sets
    only those that changed (an RNG state is 3 KB of text, and most moves draw nothing)."""
    _decisions_seen: tuple[object, int, int] = field(init=False, repr=False, compare=False)
    """(the game object, its log length, its seat decisions) when `decision_count` last counted."""
    _packs: dict[int, tuple[random.Random, Any, str]] = field(
        init=False, default_factory=dict, repr=False, compare=False
    )
    """The last state packed of each RNG (by id: the RNG, its draws or its whole state then,
    the text): packed again only when it moved."""
    _meta_known: tuple[tuple[Any, ...], GameMeta] | None = field(
        init=False, repr=False, compare=False
    )
    """The last `meta` made and what it was made from (the same object while that holds)."""
    optimistic: bool = False
    """Write only onto the version this session last read or wrote (a game several server
    processes may serve: `SaveConflict` when another moved it on)."""
    version: int | None = field(default=None, repr=False, compare=False)
    """The stored game's version after this session's last read or write (None: not known)."""
    turn_claim: Callable[[Session], bool] | None = field(default=None, repr=False, compare=False)
    """Asked before computers and chance move a stored game: False when another process holds
    the claim to compute this turn (`Store.claim_turn`), and `run` then changes nothing."""

    def __post_init__(self) -> None:
        # The fields set here have no class-level default: a class compiled by mypyc (setup.py)
        # reads its own attributes only, so a default a dataclass leaves on the class would
        # never be seen.
        self.store_trouble = None
        self._full_saved = None
        self._saved_log = self._log_at_full = 0
        self._decisions_seen = (None, 0, 0)
        self._meta_known = None
        if len(self.seats) != self.rules.players:
            raise FifteenTwoError(f"{len(self.seats)} seats for a {self.rules.players}-player game")
        self.players = {
            i: load_player(s.level, self.seed * 31 + i)
            for i, s in enumerate(self.seats)
            if not s.human
        }
        self.game = self._new_game()

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
        return self._run(claimed=False)

    def _run(self, *, claimed: bool) -> list[Event]:
        """`run`; ``claimed``: this session holds the turn without asking `turn_claim` (the
        stored game is at the decision this session just answered in memory)."""
        events: list[Event] = []
        game = self.game
        claim = self.turn_claim
        if (
            not claimed
            and claim is not None
            and self.game_id is not None
            and not game.is_over
            and self.waiting_for is None
            and not claim(self)
        ):
            return events  # another process is making this turn's moves
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
        mark = self._undo_mark()
        events = self.game.events_for(self.viewer, self._apply(action))
        if isinstance(action, Cut):
            # A cut turns up a card by chance: taking it back (or a decision before it) would
            # let the pack be cut again elsewhere for another card. It stays, with all before.
            self._undo_marks.clear()
        else:
            self._undo_marks.append(mark)
        self._trim_undo()
        if self.optimistic and not self.game.is_over and self.decision_first():
            self.save()  # the decision is stored before the computers think: never lost
            return events + self.run()
        # optimistic: the decision and the computers' reply are stored together (one write,
        # onto the version this session read): the stored game stays at this decision until
        # then, so no other process computes this turn and no claim is asked
        return events + self._run(claimed=self.optimistic)

    def decision_first(self) -> bool:
        """Whether an optimistic session stores a person's decision before the computers think
        (so a process killed while they think loses nothing: another plays their turn from
        the store); True here. A subclass may store both in one write when the computers
        answer at once (`WebSession`: one transaction per action instead of two)."""
        return True

    def _apply(self, action: Any) -> list[Event]:
        events = self.game.apply(action)
        for seat, player in self.players.items():
            if getattr(player, "wants_events", False):  # a protocol bot: tell its program
                player.events(self.game.events_for(seat, events))  # type: ignore[attr-defined]
        for event in events:
            if isinstance(event, GameOver):
                self._finished.append(self._finished_game())
                if self.on_game_over is not None:
                    self.on_game_over(self, event)
        return events

    def _finished_game(self) -> FinishedGame:
        """The game that just ended, as the store keeps it."""
        return finished_from_record(
            self.record(),
            [asdict(s) for s in self.seats],
            self.seed,
            takebacks=self.takebacks,
            kind=self.kind,
            owner_hint=self.owner_hint,
        )

    # --- taking back ----------------------------------------------------------------------------

    def _undo_mark(self) -> tuple[int, int, int]:
        """Where the game stands before a human decision: enough to come back here exactly."""
        states = {str(seat): self._pack(p.rng) for seat, p in self.players.items()}
        if not self._undo_states or self._undo_states[-1] != states:
            self._undo_states.append(states)
        return self.decision_count(), len(self._undo_states) - 1, self.game.game_number

    def decision_count(self) -> int:
        """How many seat decisions the game's log holds (the web's id of the pending one), read
        on from the last count (the log only grows within one game object): a move late in a
        game costs what an early one does."""
        game, log = self.game, self.game.log
        known, length, count = self._decisions_seen
        if known is not game or length > len(log):
            length = count = 0
        count += sum(1 for i in range(length, len(log)) if log[i][0] != CHANCE)
        self._decisions_seen = (game, len(log), count)
        return count

    def cannot_undo(self) -> str | None:
        """Why `undo` is not possible now (one sentence), or None when it is."""
        if self.rules.muggins and not self.auto_count and self.human_seats:
            return "you cannot take back a move when you count your own hands with muggins"
        if self.game.is_over:
            return "the game is over"
        if not self._undo_marks:
            if self._last_human_decision_was_a_cut():
                return (
                    "your cut stays, with the moves before it "
                    "(cutting again would turn up another card)"
                )
            return "there is no move of yours to take back"
        if self._undo_marks[-1][2] != self.game.game_number:
            return "the last game of the match is finished and stored; its moves stay"
        return None

    def _decisions_to_last_cut(self) -> int:
        """How many seat decisions the log holds up to and including a person's last cut (0:
        none): no take-back reaches back before that many."""
        humans = set(self.human_seats)
        count = 0
        last = 0
        for actor, action in self.game.log:
            if actor != CHANCE:
                count += 1
                if actor in humans and isinstance(action, Cut):
                    last = count
        return last

    def _last_human_decision_was_a_cut(self) -> bool:
        humans = set(self.human_seats)
        log = self.game.log
        for i in range(len(log) - 1, -1, -1):
            actor, action = log[i]
            if actor in humans:
                return isinstance(action, Cut)
        return False

    @property
    def can_undo(self) -> bool:
        """Whether `undo` would take back a decision now."""
        return self.cannot_undo() is None

    def undo(self) -> None:
        """Take back the human's last decision and the computer moves after it.

        The game is played again from its seed with every decision before that one, so the
        deck and every RNG come back exactly as they were: the same decision made again leads
        to the same cards (the same deal, the same starter). The session counts a take-back
        (kept with the game and its result). Raises `FifteenTwoError` when not allowed (see
        `cannot_undo`): never with muggins when humans count their own hands, and never for a
        cut (for the deal or the starter) or a decision before one: cutting again at another
        depth would turn up another card, so a cut, once made, stays.
        """
        why = self.cannot_undo()
        if why is not None:
            raise FifteenTwoError(f"cannot take back: {why}")
        decisions_before, state_at, _ = self._undo_marks[-1]
        decisions = [a for actor, a in self.game.log if actor != CHANCE][:decisions_before]
        game = self._new_game()
        for action in decisions:
            game.advance()
            game.apply(action)
        game.advance()
        if game.to_move is None or game.to_move == CHANCE or not self.seats[game.to_move].human:
            raise FifteenTwoError("cannot take back: the replay did not reach your decision")
        self._undo_marks.pop()
        self.game = game
        for seat, state in self._undo_states[state_at].items():
            self.players[int(seat)].rng.setstate(_unpack_rng(state))
        del self._undo_states[state_at + 1 :]
        self.takebacks += 1
        self.save()

    def _trim_undo(self) -> None:
        """Keep the last `UNDO_MARKS` marks and only the RNG states they use."""
        marks = self._undo_marks[-UNDO_MARKS:]
        used = sorted({m[1] for m in marks})
        where = {old: new for new, old in enumerate(used)}
        self._undo_states = [self._undo_states[i] for i in used]
        self._undo_marks = [(d, where[i], g) for d, i, g in marks]

    def _new_game(self) -> Game:
        humans = self.human_seats
        return Game(
            self.rules,
            seed=self.seed,
            manual_count=() if self.auto_count else sorted(humans + self._fallible_counters()),
            cut_seats=() if self.random_cut else humans,
            first_dealer=self.first_dealer,
        )

    @property
    def phase(self) -> Phase:
        """The game's phase."""
        return self.game.phase

    def record(self) -> dict[str, Any]:
        """The game record (see docs/records.md)."""
        return game_record(self.game, self.names())

    def _fallible_counters(self) -> list[int]:
        """Computer seats that count by hand too when the people do with muggins: the levels
        that sometimes overlook a combination (`Player.miscount_rate`), so a person can call
        muggins on them. The expert never miscounts, and counts automatically."""
        if not self.rules.muggins:
            return []
        return [
            seat
            for seat, player in sorted(self.players.items())
            if getattr(player, "miscount_rate", 0.0) > 0
        ]

    def deal_first(self, seat: int) -> None:
        """Before the game begins: ``seat`` deals first instead of cutting for deal (another
        game after a finished one: the loser deals, `Game.loser_to_deal`)."""
        if self.game.log:
            raise FifteenTwoError("the game has begun: who deals first is settled")
        if not 0 <= seat < self.rules.players:
            raise FifteenTwoError(f"no seat {seat} in a {self.rules.players}-player game")
        self.first_dealer = seat
        self.game = self._new_game()

    def deal_after(self, last: Session) -> None:
        """Another game after ``last`` (finished, same number of players): its loser deals
        first. Nothing changes otherwise (a different table cuts for deal)."""
        if last.is_over and last.rules.players == self.rules.players and not self.game.log:
            self.deal_first(last.game.loser_to_deal())

    def clone(self) -> Session:
        """An independent copy to try a change on (a web table's move is applied to a copy and
        kept only once the store took it): the game by `Game.clone`, computer players by
        `copy.deepcopy` (their random state goes on from the same point). Much cheaper than
        `from_json(to_json())`, which replays the whole game. The copy is kept nowhere (no
        store, no game-over hook). Not for protocol bots (a running program cannot be
        copied)."""
        other = copy.copy(self)
        other.store = None  # (a trial never saves itself, nor logs a finished game)
        other.on_game_over = None
        other.game = self.game.clone()
        other.players = copy.deepcopy(self.players)
        count_as(other.game.rng, self.game.rng)
        for seat, player in self.players.items():
            count_as(other.players[seat].rng, player.rng)
        other._finished = list(self._finished)
        other.finished_ids = list(self.finished_ids)
        other._undo_marks = list(self._undo_marks)
        other._undo_states = list(self._undo_states)
        other._stored_sets = dict(self._stored_sets)
        other._packs = {}
        return other

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
            # (packed text: a tenth of the JSON list's encoding time; both forms are read)
            "rng": self._pack(self.game.rng),
            "players": {str(i): self._pack(p.rng) for i, p in self.players.items()},
            "takebacks": self.takebacks,
            "undo": {"marks": [list(m) for m in self._undo_marks], "states": self._undo_states},
            **self.extra_json(),
        }

    def meta(self) -> GameMeta:
        """What a list of saved games shows for this one (the same object as last time while
        nothing in it changed: a store checks and encodes a given object once)."""
        rules = self.rules
        key = (
            tuple(self.game.scores),
            tuple(self.seats),
            rules.name,
            rules.target,
            self.kind,
            self.owner_hint,
            self.takebacks,
        )
        known = self._meta_known
        if known is not None and known[0] == key:
            return known[1]
        meta = GameMeta(
            variant=rules.name,
            target=rules.target,
            players=tuple(self.names()),
            levels=tuple("human" if s.human else s.level for s in self.seats),
            scores=key[0],
            kind=self.kind,
            owner_hint=self.owner_hint,
            takebacks=self.takebacks,
        )
        self._meta_known = (key, meta)
        return meta

    @property
    def saving(self) -> bool:
        """Whether this session is kept in a store (False: it goes on unsaved)."""
        return self.store is not None

    def save(self) -> None:
        """Store the game's latest state; a game that ended moves to the finished games in the
        same transaction. Storage that fails leaves a one-line notice and the game goes on
        unsaved; another session holding the game raises `SaveError`."""
        store = self.store
        if store is None:
            return  # the finished games stay for `take_finished` (a web table stores its own)
        finished, self._finished = self._finished, []
        expected = self.version if self.optimistic else None
        if not finished and self.game_id is not None and self._step_due():
            try:
                step = self.step_json()
                version = store.append_move(
                    self.game_id, step, self.meta(), owner=self.owner, expected_version=expected
                )
                if version is not None:
                    self.version = version
                    self._saved_log = len(self.game.log)
                    self._stepped(step)
                    self._flush_notices()
                    return
            except GameConflict as exc:
                raise SaveConflict(str(exc)) from None
            except GameBusy as exc:
                raise SaveError(str(exc)) from None
            except StoreError:
                pass  # saved whole below (journalled if need be)
        data = None if self.game.is_over else self.to_json()
        meta = None if data is None else self.meta()
        try:
            if data is not None and meta is not None and self.game_id is None:
                self.game_id = store.create_game(data, meta, owner=self.owner)
                if self.optimistic:
                    self.version = store.game_version(self.game_id)
                if not finished:
                    self._mark_full_save()
                    self._flush_notices()
                    return
            if finished:
                self.finished_ids += store.finish_game(
                    self.game_id, finished, data, meta, owner=self.owner, expected_version=expected
                )
                if self.optimistic and data is not None and self.game_id is not None:
                    self.version = store.game_version(self.game_id)
            elif data is not None and meta is not None and self.game_id is not None:
                self.version = store.save_game(
                    self.game_id, data, meta, owner=self.owner, expected_version=expected
                )
            self._mark_full_save()
        except GameConflict as exc:
            raise SaveConflict(str(exc)) from None
        except GameBusy as exc:
            raise SaveError(str(exc)) from None
        except StoreUnavailable as exc:
            # issue 35: storage that is down for now (a database restarting, a full disk) is
            # tried again at the next save, which writes the whole state: no move is lost, and
            # a finished game waits here to be stored once
            self._finished = finished + self._finished
            if not self.store_trouble:
                self._notice(f"warning: {exc} (saving again at the next move)")
            self.store_trouble = str(exc)
            return
        except StoreError as exc:
            self.store = None
            self._notice(f"warning: {exc}; the game goes on unsaved")
        else:
            self.store_trouble = None
        self._flush_notices()

    def _step_due(self) -> bool:
        """Whether this save may be one small step after the store's full save: the same game
        object, moved only forward, and the next full save not yet due."""
        log = len(self.game.log)
        return (
            self._full_saved is self.game
            and not self.game.is_over
            and log >= self._saved_log
            and log - self._log_at_full < max(self.full_save_min, self._log_at_full)
        )

    @property
    def full_save_min(self) -> int:
        """The log's growth after which a full save is due, at least: `FULL_SAVE_MIN` to twice
        that, by the game's seed, so games started together (a server's thousand, a club's
        round) do not all write their full saves in the same few seconds (issue 32)."""
        return FULL_SAVE_MIN + self.seed % FULL_SAVE_MIN

    def _mark_full_save(self) -> None:
        self._full_saved = self.game
        self._saved_log = self._log_at_full = len(self.game.log)
        self._stored_sets = {}  # (the next step sets every state again)

    def _pack(self, rng: random.Random) -> str:
        """`_pack_rng`, remembered while the RNG's state stays the same: known by its count of
        draws (`counted`), without reading the whole state, unless it is of another class."""
        tracked = counted(rng)
        mark: Any = rng.getstate() if tracked is None else tracked.moves
        known = self._packs.get(id(rng))
        if known is not None and known[0] is rng and known[1] == mark:
            return known[2]
        packed = _pack_rng(rng)
        if len(self._packs) > PACKS_KEPT:  # (RNGs of games taken back stay here otherwise)
            self._packs.clear()
        self._packs[id(rng)] = (rng, mark, packed)
        return packed

    def _at(self, rng: random.Random) -> tuple[str, int]:
        """An RNG's state for a step: a state (`_pack_rng`) and the words drawn since it.
        The state is the one the RNG was last set to or packed at, so it stays the same text
        over many steps and only the count moves; it is packed again after `REBASE_WORDS`,
        and while the RNG keeps a Gaussian for its next call (the count cannot carry that)."""
        tracked = counted(rng)
        if tracked is None:
            return self._pack(rng), 0
        if (
            not isinstance(tracked.base, str)
            or tracked.words > REBASE_WORDS
            or getattr(tracked, "gauss_next", None) is not None  # (not in the stubs)
        ):
            tracked.base, tracked.words = self._pack(tracked), 0
        assert isinstance(tracked.base, str)
        return tracked.base, tracked.words

    def step_json(self) -> dict[str, Any]:
        """What changed since the last save, as a delta for `Store.append_move`: the new
        decisions, and the RNG, take-back and setting states (`to_json`'s, constant size)."""
        new = self.game.log[self._saved_log :]
        stored = self._stored_sets
        marks = [list(m) for m in self._undo_marks]
        rng, rng_at = self._at(self.game.rng)
        players = {str(i): self._at(p.rng) for i, p in self.players.items()}
        states = {  # (a state, packed, only when it was set or drew too far: a count otherwise)
            "rng": rng,
            "rng_at": rng_at,
            "players": {seat: state for seat, (state, _) in players.items()},
            "players_at": {seat: words for seat, (_, words) in players.items()},
        }
        changed: dict[str, Any] = {k: v for k, v in states.items() if stored.get(k) != v}
        undo_states = list(self._undo_states)  # (a copy: the list changes in place)
        if stored.get("undo_states") != undo_states:  # (rarely: the computers drew)
            changed["undo"] = {"marks": marks, "states": undo_states}
        return {
            "append": {"decisions": [_decision_json(a) for actor, a in new if actor != CHANCE]},
            "set": {
                **changed,
                "undo_marks": marks,  # (every step: they override the marks in "undo")
                "takebacks": self.takebacks,
                **self.extra_json(),
            },
        }

    def _stepped(self, step: dict[str, Any]) -> None:
        """Remember the states a stored step set (`step_json` leaves out those unchanged)."""
        changed = step["set"]
        for key in ("rng", "rng_at", "players", "players_at"):
            if key in changed:
                self._stored_sets[key] = changed[key]
        if "undo" in changed:
            self._stored_sets["undo_states"] = changed["undo"]["states"]

    def extra_json(self) -> dict[str, Any]:
        """What a subclass keeps beside the save (in full saves and in every step)."""
        return {}

    def load_extra(self, data: dict[str, Any]) -> None:
        """Read back what `extra_json` kept, from a save `from_json` resumes (a subclass's
        settings; a hook rather than an override of the class method, which mypyc's compiled
        ``super()`` in a class method would not call right: setup.py)."""

    def take_finished(self) -> list[FinishedGame]:
        """The games that ended since the last call (for a session kept without a store)."""
        finished, self._finished = self._finished, []
        return finished

    def release(self) -> None:
        """Give up this session's hold on its game (it stays saved for a later resume), and
        end the programs of protocol bots."""
        for player in self.players.values():
            close = getattr(player, "close", None)
            if close is not None:
                close()
        if self.store is not None and self.game_id is not None:
            self.store.release(self.game_id, owner=self.owner)
        self._flush_notices()

    def _flush_notices(self) -> None:
        if self.store is not None:
            for line in self.store.take_notices():
                self._notice(line)

    def _notice(self, line: str) -> None:
        if self.on_notice is not None:
            self.on_notice(line)
        else:
            print(line, file=sys.stderr)

    @classmethod
    def from_json(
        cls, data: dict[str, Any], *, base: Session | None = None, **kwargs: Any
    ) -> Session:
        """Resume a session from `to_json` data; raises `SaveError` when it does not fit.
        ``base``: an earlier moment of the same game, played on from there rather than from
        the start when it fits (`_rerun`)."""
        try:
            if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
                found = data.get("format") if isinstance(data, dict) else type(data).__name__
                raise SaveError(f"not a fifteentwo save (format {found!r})")
            seats = [SeatConfig(**s) for s in data["seats"]]
            if "decisions" in data:
                names = [s.name for s in seats]
                game = _rerun(
                    data["record"],
                    data["decisions"],
                    names,
                    None if base is None else base.game,
                    check_record="moves_applied" not in data,  # (its record: the full save's)
                )
            else:  # a save from before decisions were kept
                game = replay(data["record"])
            seed = data["seed"]
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise SaveError(f"the save's seed is not an integer: {seed!r}"[:100])
            session = cls(
                game.rules,
                seats,
                seed,
                auto_count=bool(data["auto_count"]),
                random_cut=bool(data["random_cut"]),
                **kwargs,
            )
            session.game = game
            record = data["record"]
            if not record.get("cut_for_deal") and record.get("first_dealer") is not None:
                session.first_dealer = int(record["first_dealer"])
            _restore_rng(game.rng, data["rng"], data.get("rng_at", 0))
            players_at = data.get("players_at", {})
            if not isinstance(players_at, dict):
                raise SaveError("the save's RNG counts are not by seat")
            for seat, state in data["players"].items():
                if int(seat) in session.players:  # (a seat a person took back from a computer)
                    rng = session.players[int(seat)].rng
                    _restore_rng(rng, state, players_at.get(seat, 0))
            takebacks = data.get("takebacks", 0)
            if isinstance(takebacks, bool) or not isinstance(takebacks, int) or takebacks < 0:
                raise SaveError(f"the save's take-backs are not a count: {takebacks!r}"[:100])
            session.takebacks = takebacks
            undo = data.get("undo") or {"marks": [], "states": []}
            session._undo_states = [
                {str(k): str(v) for k, v in states.items()} for states in undo["states"]
            ]
            for states in session._undo_states:
                for packed in states.values():
                    _unpack_rng(packed)  # a damaged state fails now, not at the take-back
            marks = data["undo_marks"] if "undo_marks" in data else undo["marks"]
            session._undo_marks = [(int(a), int(b), int(c)) for a, b, c in marks]
            if any(not 0 <= b < len(session._undo_states) for _, b, _ in session._undo_marks):
                raise SaveError("the save's take-back marks do not fit")
            cut = session._decisions_to_last_cut()
            if cut:  # (a save of an earlier version may keep marks from before a cut)
                session._undo_marks = [m for m in session._undo_marks if m[0] >= cut]
                session._trim_undo()
            session.load_extra(data)
            session._mark_full_save()
        except SaveError:
            raise
        except (
            FifteenTwoError,
            KeyError,
            TypeError,
            ValueError,
            AttributeError,
            IndexError,
            OverflowError,
            RecursionError,
            struct.error,
            binascii.Error,
        ) as exc:
            raise SaveError(f"the save cannot be resumed: {exc!s:.200}") from None
        return session

    @classmethod
    def resume(cls, store: Store, game_id: str, **kwargs: Any) -> Session:
        """Continue game ``game_id`` from ``store``, taking ownership of it.

        `GameBusy` if another live session plays it; a game that cannot be resumed is set aside
        (kept) and `SaveError` says so in one line."""
        owner = kwargs.pop("owner", None) or new_owner()
        store.claim(game_id, owner=owner)
        saved = store.load_game(game_id)
        try:
            session = cls.from_json(saved.data, store=store, game_id=game_id, owner=owner, **kwargs)
        except SaveError as exc:
            where = store.set_aside(game_id, str(exc))
            raise SaveError(f"could not resume game {game_id} ({exc}); {where}") from None
        session.kind = saved.meta.kind
        session.owner_hint = saved.meta.owner_hint
        session.saved_at = saved.updated_at
        session.version = saved.version
        return session

    @classmethod
    def load(cls, path: Path, **kwargs: Any) -> Session:
        """Read a save file of earlier versions (``save.json``); a corrupt one is moved aside
        (never deleted) and reported."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise SaveError("the save is not a JSON object")
            return cls.from_json(data, **kwargs)
        except (OSError, ValueError, SaveError, RecursionError) as exc:
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


def _rerun(
    record: dict[str, Any],
    decisions: list[Any],
    names: list[str],
    base: Game | None = None,
    *,
    check_record: bool = True,
) -> Game:
    """Play the game again from its seed with the saved decisions, drawing chance as a session
    does; the record it makes must be the saved one.

    Unlike `replay`, this resumes any moment of a game (a discard or a count still to make),
    and every deck order, cuts by depth included, comes out as it was. With ``base``, an
    earlier moment of the same game (a server's copy of a table another process moved on),
    only the decisions after it are played (a copy of it; it is not changed). Without
    ``check_record`` (a full save with steps after it: its record stops at the full save) only
    the record's header is used and every decision must still be legal.
    """
    if base is not None:
        caught_up = _catch_up(base, record, decisions, names, check_record)
        if caught_up is not None:
            return caught_up
    rules = Rules.from_json(record["rules"])
    first_dealer = record.get("first_dealer")
    game = Game(
        rules,
        seed=int(record["seed"]),
        manual_count=record.get("manual_count", ()),
        cut_seats=record.get("cut_seats", ()),
        first_dealer=first_dealer if not record.get("cut_for_deal") else None,
    )  # a session cuts for deal unless told who deals first (a rematch: the loser)
    for item in decisions:
        game.advance()
        game.apply(_decision_from_json(item))
    game.advance()
    if check_record and game_record(game, names) != record:
        raise SaveError("the save's moves do not lead to its record")
    return game


def _catch_up(
    base: Game,
    record: dict[str, Any],
    decisions: list[Any],
    names: list[str],
    check: bool = True,
) -> Game | None:
    """``base`` moved on by the saved decisions it has not made, if it is an earlier moment
    of the saved game (same seed, its decisions a prefix of the saved ones); else None."""
    try:
        if base.seed != int(record["seed"]) or base.rules.to_json() != record["rules"]:
            return None
        done = [a for actor, a in base.log if actor != CHANCE]
        if len(done) > len(decisions):
            return None
        if any(_decision_json(a) != d for a, d in zip(done, decisions, strict=False)):
            return None
        game = base.clone()
        for item in decisions[len(done) :]:
            game.advance()
            game.apply(_decision_from_json(item))
        game.advance()
        if check and game_record(game, names) != record:
            return None
        return game
    except (FifteenTwoError, KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None


def _pack_rng(rng: random.Random) -> str:
    """An RNG's state as short text (the Mersenne Twister words in base64)."""
    version, internal, gauss = rng.getstate()
    if version != 3 or gauss is not None or len(internal) != 625:
        return json.dumps([version, list(internal), gauss])
    return base64.b64encode(struct.pack("<625I", *internal)).decode("ascii")


def _restore_rng(rng: random.Random, state: Any, words: Any) -> None:
    """Set an RNG to a saved state (`_any_rng_state`) and draw the ``words`` a step counted
    past it (`Session._at`); the count checked first, so a damaged save cannot make a resume
    draw for ever."""
    if isinstance(words, bool) or not isinstance(words, int) or not 0 <= words <= ADVANCE_MAX:
        raise SaveError(f"the save's RNG count is not one: {words!r}"[:100])
    tracked = counted(rng)
    rng.setstate(_any_rng_state(state))
    advance(rng, words)
    if isinstance(tracked, CountedRandom) and isinstance(state, str):
        tracked.base = state  # (the state a step counts from: it need not be packed again)


def _unpack_rng(text: str) -> tuple[Any, ...]:
    """The inverse of `_pack_rng` (a state fit for `random.Random.setstate`)."""
    if text.startswith("["):
        state: tuple[Any, ...] = _rng_from_json(json.loads(text))
    else:
        words = struct.unpack("<625I", base64.b64decode(text.encode("ascii"), validate=True))
        state = (3, tuple(words), None)
    random.Random().setstate(state)  # raises on a state that is not one
    return state


def _rng_state(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _any_rng_state(state: Any) -> tuple[Any, ...]:
    """An RNG state as a full save keeps it (a JSON list) or as a step does (`_pack_rng`)."""
    return _unpack_rng(state) if isinstance(state, str) else _rng_from_json(state)


def _rng_from_json(state: list[Any]) -> tuple[Any, ...]:
    version, internal, gauss = state
    return (int(version), tuple(int(x) for x in internal), gauss)


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
