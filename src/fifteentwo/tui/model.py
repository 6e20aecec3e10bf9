"""What the table shows, kept from the engine's events: the app's memory, never its judge.

The engine's `Observation` says what the viewer may do now; but after the last card of a deal
the session runs straight on into the next deal, so the show the player wants to read is only
in the events. `TableModel` folds events into the table as they were said (series of the play,
hands shown, pegs), with no rules of its own: every number here was reported by the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from fifteentwo.actions import (
    CardPlayed,
    CountReset,
    DealDone,
    DealerChosen,
    Dealt,
    Discarded,
    Event,
    GameOver,
    GoSaid,
    HandCounted,
    MatchOver,
    Reason,
    Scored,
    StarterTurned,
)
from fifteentwo.cards import Card

__all__ = ["Mode", "Series", "TableModel", "unread_show"]


class Mode(Enum):
    """What the app is waiting for; decides the prompt, the live keys and the focus."""

    START = "start"
    """Asking the opening questions (instructions, game length)."""
    BUSY = "busy"
    """The engine (computers, chance) is working; input is off."""
    DISCARD = "discard"
    PLAY = "play"
    CUT = "cut"
    COUNT = "count"
    MUGGINS = "muggins"
    PAUSE = "pause"
    """A deal (or a game of a match) has ended; the player reads the show, then continues."""
    OVER = "over"
    """The game is over: another game?"""


@dataclass
class Series:
    """One series of the play (cards until the count starts again), with its last count."""

    cards: list[tuple[int, Card]] = field(default_factory=list)
    count: int = 0


@dataclass
class TableModel:
    """The table as the events described it."""

    sides: int
    dealer: int | None = None
    starter: Card | None = None
    crib_size: int = 0
    deal_number: int = 0
    series: list[Series] = field(default_factory=lambda: [Series()])
    shown: dict[tuple[int, bool], HandCounted] = field(default_factory=dict)
    """Hands shown this deal, by (seat, is the crib)."""
    fronts: list[int] = field(default_factory=list)
    """Each side's front peg (its score)."""
    backs: list[int] = field(default_factory=list)
    """Each side's back peg (its score before the last points it pegged)."""
    last_deal: DealDone | None = None
    game_over: GameOver | None = None
    match_over: MatchOver | None = None
    cut_for_deal: DealerChosen | None = None
    viewer: int = 0
    held: dict[int, int] = field(default_factory=dict)
    """Cards each seat holds now, as the events tell it (shown while the app paces events)."""
    hand: list[Card] = field(default_factory=list)
    """The viewer's cards held now, as the events tell it."""
    calls: list[tuple[int, str]] = field(default_factory=list)
    """What was called at the table since the last card (``(seat, "fifteen for 2")``, ``go``,
    a hand's spoken count), to announce next to the cards that made it."""
    _new_game: bool = False

    def __post_init__(self) -> None:
        if not self.fronts:
            self.fronts = [0] * self.sides
        if not self.backs:
            self.backs = [0] * self.sides

    @property
    def pile(self) -> Series:
        """The series being played (the last one)."""
        return self.series[-1]

    @property
    def earlier(self) -> list[Series]:
        """Series already finished this deal."""
        return self.series[:-1]

    def apply(self, event: Event) -> None:
        """Fold one event into the table."""
        if self._new_game and not isinstance(event, MatchOver):
            # The first event after a game of a match belongs to the next game: pegs go home.
            self._new_game = False
            self.fronts = [0] * self.sides
            self.backs = [0] * self.sides
            self.game_over = None
        if isinstance(event, DealerChosen):
            self.cut_for_deal = event
            if event.dealer is not None:
                self.dealer = event.dealer
        elif isinstance(event, Dealt):
            mine = event.hands[self.viewer] if self.viewer < len(event.hands) else None
            self.hand = list(mine or ())
            self.held = {seat: len(self.hand) for seat in range(len(event.hands))}
            self.calls = []
            self.dealer = event.dealer
            self.starter = None
            self.crib_size = event.pack_to_crib
            self.series = [Series()]
            self.shown = {}
            self.deal_number += 1
            self.last_deal = None
        elif isinstance(event, Discarded):
            self.crib_size += event.count
            self.held[event.seat] = max(0, self.held.get(event.seat, 0) - event.count)
            if event.seat == self.viewer and event.cards:
                self.hand = [c for c in self.hand if c not in event.cards]
        elif isinstance(event, StarterTurned):
            self.starter = event.card
        elif isinstance(event, CardPlayed):
            self.pile.cards.append((event.seat, event.card))
            self.pile.count = event.count
            self.held[event.seat] = max(0, self.held.get(event.seat, 0) - 1)
            if event.seat == self.viewer and event.card in self.hand:
                self.hand.remove(event.card)
            self.calls = []
        elif isinstance(event, GoSaid):
            self.calls.append((event.seat, "go"))
        elif isinstance(event, CountReset):
            self.series.append(Series())
        elif isinstance(event, HandCounted):
            self.shown[(event.seat, event.crib)] = event
            said = event.score().say() if event.total else "nineteen"  # (the word for nothing)
            self.calls = [(event.seat, said)]
        elif isinstance(event, Scored):
            self.backs[event.side] = self.fronts[event.side]
            self.fronts[event.side] = event.score
            if event.reason is Reason.PLAY:
                self.calls.extend((event.seat, f"{i.kind} for {i.points}") for i in event.items())
            elif event.reason in (Reason.GO, Reason.LAST_CARD, Reason.HIS_HEELS):
                self.calls.append((event.seat, f"{event.reason} for {event.points}"))
        elif isinstance(event, DealDone):
            self.last_deal = event
        elif isinstance(event, GameOver):
            self.game_over = event
            self._new_game = True
        elif isinstance(event, MatchOver):
            self.match_over = event


def unread_show(events: Sequence[Event], viewer: int) -> int | None:
    """Where the table last paused for the player to read a show: the index of the last
    deal's end (`DealDone`, or a game of a match over) when ``viewer`` has decided nothing
    since (their first decision after a deal is always a discard), else None.

    The session runs on into the next deal at once, so a game saved at "The deal is over"
    holds the next deal already; continuing it comes back to this pause. It is read from the
    game's own events, so nothing about the screen needs saving: the pause comes back until
    the player lays away in the next deal."""
    for i in range(len(events) - 1, -1, -1):
        event = events[i]
        if isinstance(event, Discarded) and event.seat == viewer:
            return None
        if isinstance(event, DealDone | GameOver):
            return i
    return None
