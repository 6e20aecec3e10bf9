"""Game records: one JSON object per game (JSON Lines files), and replay that checks them.

A record is built from a game's events, so it says exactly what happened: the hands as dealt,
discards, starter, every card and go of the play, every point with its reason, and the result.
`replay` rebuilds the game by applying the recorded outcomes and decisions to a fresh `Game`, then
compares the record it would write with the one it was given. The format is documented in
docs/records.md.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Final

from fifteentwo.actions import (
    CHANCE,
    GO,
    PLAY_ACTIONS,
    CardPlayed,
    Count,
    DealDone,
    DealerChosen,
    DealHands,
    Dealt,
    Discard,
    Discarded,
    DrawForDeal,
    GameOver,
    GoSaid,
    HandCounted,
    Muggins,
    Phase,
    Reason,
    Scored,
    StarterTurned,
    TurnStarter,
    fast_constructor,
)
from fifteentwo.cards import DECK, Card
from fifteentwo.errors import FifteenTwoError, RecordError
from fifteentwo.game import _DISCARDS, _INDEX, Game
from fifteentwo.rules import Rules

__all__ = [
    "FORMAT",
    "dumps",
    "game_record",
    "loads",
    "read_records",
    "replay",
    "write_records",
]

FORMAT = "fifteentwo-record/1"
"""The version tag every record carries; readers refuse other versions."""


_SHORT: Final = tuple(c.short for c in DECK)
"""The record spelling of each card, by index (`Card.short` is a property: slower)."""
_BY_SHORT: Final = dict(zip(_SHORT, DECK, strict=True))
_REASON_TEXT: Final = {reason: reason.value for reason in Reason}
_DISCARD: Final = Phase.DISCARD  # (reading an enum member off its class is slow)
_new_deal_hands = fast_constructor(DealHands)
_new_turn_starter = fast_constructor(TurnStarter)
_DISCARD_OF: Final = _DISCARDS
"""The engine's shared `Discard` actions, by card indices (frozen values: no need for new ones)."""


def _card_indices(cards: tuple[Card, ...]) -> tuple[int, ...]:
    return tuple(map(_INDEX, cards))


_PLAY: Final = Phase.PLAY


def _cards(cards: Iterable[Card]) -> list[str]:
    return [_SHORT[c.index] for c in cards]


def game_record(game: Game, players: Sequence[str] | None = None) -> dict[str, Any]:
    """The record of ``game`` so far (complete once the game is over)."""
    names = (
        list(players) if players is not None else [f"seat {i}" for i in range(game.rules.players)]
    )
    if len(names) != game.rules.players:
        raise RecordError(f"{len(names)} player names for {game.rules.players} seats")
    cut_rounds: list[list[list[Any]]] = []
    deals: list[dict[str, Any]] = []
    games: list[dict[str, Any]] = []
    deal: dict[str, Any] = {}  # the current deal; empty before the first
    play: list[list[Any]] = []
    game_number = 1
    pre_deal_points: list[dict[str, Any]] = []
    # Exact types, most frequent first: this runs once per event of every game recorded (and
    # twice per replay), so the events are taken as Any rather than narrowed one by one.
    short = _SHORT
    events: list[Any] = game.events
    for event in events:
        kind = type(event)
        if kind is CardPlayed:
            play.append([event.seat, short[event.card.index]])
        elif kind is Scored:
            entry = {
                "seat": event.seat,
                "points": event.points,
                "reason": _REASON_TEXT[event.reason],
                "score": event.score,
            }
            if not deal or deal["scores_after"] is not None:
                pre_deal_points.append(entry)  # three for last, before the first deal of a game
            else:
                deal["points"].append(entry)
        elif kind is GoSaid:
            play.append([event.seat, "go"])
        elif kind is HandCounted:
            if event.crib:
                deal["crib"] = _cards(event.cards)
            deal["counts"].append(
                {
                    "seat": event.seat,
                    "crib": event.crib,
                    "total": event.total,
                    "claimed": event.claimed,
                }
            )
        elif kind is Discarded:
            deal["discards"][event.seat] = _cards(event.cards or ())
        elif kind is Dealt:
            play = []
            deal = {
                "game": game_number,
                "dealer": event.dealer,
                "hands": [_cards(h or ()) for h in event.hands],
                "pack": [],
                "discards": [[] for _ in event.hands],
                "crib": [],
                "starter": None,
                "cut_depth": None,
                "play": play,
                "counts": [],
                "points": pre_deal_points,
                "scores_after": None,
            }
            pre_deal_points = []
            deals.append(deal)
        elif kind is StarterTurned:
            deal["starter"] = short[event.card.index]
            deal["cut_depth"] = event.depth
        elif kind is DealDone:
            deal["scores_after"] = list(event.scores)
        elif kind is GameOver:
            if deal["scores_after"] is None:
                deal["scores_after"] = list(event.scores)
            games.append(
                {
                    "game": game_number,
                    "scores": list(event.scores),
                    "winner": event.winner,
                    "skunk": event.skunk,
                    "game_points": event.game_points,
                }
            )
            game_number += 1
        elif kind is DealerChosen:
            cut_rounds.append([[seat, short[card.index]] for seat, card in event.cuts])
    packs: list[list[str]] = []
    muggins: list[bool] = []
    for actor, action in game.log:
        if type(action) is DealHands:
            if actor == CHANCE:
                packs.append(_cards(action.pack))
        elif type(action) is Muggins:
            muggins.append(action.take)
    for d, pack in zip(deals, packs, strict=False):
        d["pack"] = pack
    in_cut = game.phase is Phase.CUT_FOR_DEAL
    if in_cut and game._cuts:  # a round of the cut for deal under way: the cards drawn so far
        cut_rounds.append([[seat, _SHORT[card.index]] for seat, card in game._cuts])
    record: dict[str, Any] = {
        "format": FORMAT,
        "rules": game.rules.to_json(),
        "players": names,
        "seed": game.seed,
        "manual_count": sorted(game.manual_count),
        "cut_seats": sorted(game.cut_seats),
        "cut_for_deal": cut_rounds,
        "first_dealer": None if cut_rounds or in_cut else _first_dealer(game),
        "deals": deals,
        "muggins": muggins,
        "games": games,
        "final": None,
    }
    if game.is_over:
        last = games[-1]
        record["final"] = {
            "scores": last["scores"],
            "winner": game.winner,
            "skunk": last["skunk"],
            "game_points": last["game_points"],
            "match_points": list(game.match_points),
        }
    return record


def _first_dealer(game: Game) -> int:
    for event in game.events:
        if isinstance(event, Dealt):
            return event.dealer
    return game.dealer


def dumps(record: dict[str, Any]) -> str:
    """One record as one line of JSON."""
    return json.dumps(record, separators=(",", ":"))


def loads(line: str) -> dict[str, Any]:
    """Parse one record line; check its format tag."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not a JSON record: {exc}") from None
    if not isinstance(record, dict):
        raise RecordError("a record is a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(f"unknown record format {record.get('format')!r}; expected {FORMAT!r}")
    return record


def write_records(path: str | os.PathLike[str], records: Iterable[dict[str, Any]]) -> None:
    """Write records to a JSON Lines file atomically (a crash never leaves half a file)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for record in records:
                fh.write(dumps(record) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All records of a JSON Lines file; a bad line raises `RecordError` naming its number."""
    records = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                records.append(loads(line))
            except RecordError as exc:
                raise RecordError(f"{path}, line {number}: {exc}") from None
    return records


# --- replay ---------------------------------------------------------------------------------------


def _card(text: Any, where: str) -> Card:
    card = _BY_SHORT.get(text) if type(text) is str else None
    if card is not None:
        return card
    try:
        return Card.parse(text)  # other spellings, from hand-written records
    except (FifteenTwoError, TypeError):
        raise RecordError(f"{where}: not a card: {text!r}") from None


def _card_tuple(texts: Any, where: str) -> tuple[Card, ...]:
    try:
        return tuple(map(_BY_SHORT.__getitem__, texts))
    except (KeyError, TypeError):
        return tuple(_card(text, where) for text in texts)


def replay(record: dict[str, Any]) -> Game:
    """Rebuild the game a record describes, checking every step and the final result.

    Raises `RecordError` naming the deal and the action that does not fit.
    """
    if record.get("format") != FORMAT:
        raise RecordError(f"unknown record format {record.get('format')!r}")
    try:
        rules = Rules.from_json(record["rules"])
        first_dealer = record.get("first_dealer")
        game = Game(
            rules,
            seed=int(record["seed"]),
            manual_count=record.get("manual_count", ()),
            cut_seats=record.get("cut_seats", ()),
            first_dealer=first_dealer if not record.get("cut_for_deal") else None,
        )
        _Replayer(game, record).run()
    except RecordError:
        raise
    except (FifteenTwoError, KeyError, TypeError, ValueError, IndexError) as exc:
        raise RecordError(f"bad record: {exc}") from None
    return game


class _Replayer:
    """Feeds a record's outcomes and decisions to a game, one deal at a time."""

    def __init__(self, game: Game, record: dict[str, Any]) -> None:
        self.game = game
        self.record = record
        self.muggins = list(record.get("muggins", []))
        self.stage = "cut for deal"
        """Where in the record we are, for error messages; see `where`."""
        self.item = 0
        """The play entry being applied (1-based), when ``stage`` is the play."""
        self.counts: list[dict[str, Any]] = []
        self.cursor = 0

    @property
    def where(self) -> str:
        """The place in the record an error names (built only when one is raised)."""
        if self.stage == "play":
            return f"deal {self.game.deal_number}, play #{self.item}"
        return self.stage

    def step(self, action: Any) -> None:
        try:
            self.game.apply(action)
        except FifteenTwoError as exc:
            raise RecordError(f"{self.where}: {action}: {exc}") from None

    def run(self) -> None:
        game = self.game
        for round_ in self.record.get("cut_for_deal", []):
            for seat, card in round_:
                self.step(DrawForDeal(int(seat), _card(card, self.where)))
        for number, deal in enumerate(self.record["deals"], 1):
            self.stage = f"deal {number}"
            self.replay_deal(deal)
        self.stage = "end of record"
        # A record saved mid-game may stop before a count or muggins decision is made.
        self.finish_show(strict=self.record.get("final") is not None)
        if not game.is_over and self.record.get("final") is not None:
            raise RecordError("the record says the game ended, but replaying it does not end it")
        mine = game_record(game, self.record.get("players"))
        for key in ("deals", "games", "final"):
            if mine[key] != self.record.get(key):
                raise RecordError(
                    f"the record's {key!r} do not match its replay{_diff(mine, self.record, key)}"
                )

    def replay_deal(self, deal: dict[str, Any]) -> None:
        game = self.game
        self.finish_show()
        if game.phase is not Phase.DEAL:
            raise RecordError(
                f"{self.where}: the game is in the {game.phase.value} phase, not ready to deal"
            )
        where = self.stage
        hands = tuple(_card_tuple(h, where) for h in deal["hands"])
        pack = _card_tuple(deal.get("pack", []), where)
        self.step(_new_deal_hands(hands, pack))
        n = game.rules.players
        for i in range(1, n + 1):
            seat = (game.dealer + i) % n
            if not _in_phase(game, _DISCARD):  # over, or the next game began
                return
            self.stage = f"deal {game.deal_number}, seat {seat}'s discard"
            cards = _card_tuple(deal["discards"][seat], self.stage)
            if not cards and game.rules.discard:
                return  # not laid away yet: a record saved during the discards ends here
            self.step(_DISCARD_OF.get(_card_indices(cards)) or Discard(cards))
        if deal.get("starter") is None or game.is_over:
            return
        self.stage = f"deal {game.deal_number}, the starter"
        depth = deal.get("cut_depth")
        self.step(
            _new_turn_starter(
                _card(deal["starter"], self.stage), None if depth is None else int(depth)
            )
        )
        self.stage = "play"
        apply = game.apply
        for index, (seat, what) in enumerate(deal.get("play", []), 1):
            if not _in_phase(game, _PLAY):  # over, or the next game began
                break
            self.item = index
            if what == "go":
                # Forced goes happen by themselves; a go the seat chose (five-card) is applied.
                if game.to_move == seat and GO in game.legal_actions():
                    self.step(GO)
                continue
            if game.to_move != seat:
                raise RecordError(
                    f"{self.where}: it is seat {game.to_move}'s turn, not seat {seat}'s"
                )
            card = _BY_SHORT.get(what) if type(what) is str else None
            action = PLAY_ACTIONS[(card or _card(what, self.where)).index]
            try:
                apply(action)
            except FifteenTwoError as exc:
                raise RecordError(f"{self.where}: {action}: {exc}") from None
        self.stage = f"deal {game.deal_number}"
        self.counts = list(deal.get("counts", []))
        self.cursor = 0

    def finish_show(self, *, strict: bool = True) -> None:
        """Apply the recorded claims (and muggins choices) of seats that count by hand.

        Not ``strict`` (the end of a record of a game in progress), a missing claim or muggins
        decision means the record stops there.
        """
        game = self.game
        while game.phase is Phase.SHOW:
            if game.pending_muggins is not None:
                if not self.muggins:
                    if not strict:
                        return
                    raise RecordError(f"{self.where}: a muggins decision is missing")
                self.step(Muggins(bool(self.muggins.pop(0))))
                continue
            seat = game.to_move
            while self.cursor < len(self.counts) and self.counts[self.cursor]["seat"] != seat:
                self.cursor += 1
            if self.cursor == len(self.counts):
                if not strict:
                    return
                raise RecordError(f"{self.where}: seat {seat}'s count is missing")
            self.step(Count(int(self.counts[self.cursor]["claimed"])))
            self.cursor += 1


def _in_phase(game: Game, phase: Phase) -> bool:
    """The game's phase, read afresh (applying actions changes it)."""
    return game.phase is phase


def _diff(mine: dict[str, Any], theirs: dict[str, Any], key: str) -> str:
    a, b = mine[key], theirs.get(key)
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False), 1):
            if x != y:
                if isinstance(x, dict) and isinstance(y, dict):
                    fields = [k for k in x if x.get(k) != y.get(k)]
                    return f" (item {i}: {', '.join(fields)} differ)"
                return f" (item {i} differs)"
        return f" ({len(a)} items replayed, {len(b)} recorded)"
    return ""
