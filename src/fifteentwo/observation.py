"""`Observation`: what one seat may see of a game, the only view a player gets.

It lives apart from `fifteentwo.game` so that the game module can be compiled (see
docs/speed.md) while this stays an ordinary dataclass: the engine builds one for every decision
with `fifteentwo.actions.fast_constructor` (a plain class with the same slots, filled, then given
this class), which a compiled class would not allow.
"""

from __future__ import annotations

from dataclasses import dataclass

from fifteentwo.actions import Action, Phase
from fifteentwo.cards import Card
from fifteentwo.rules import Rules

__all__ = ["Observation"]


@dataclass(frozen=True, slots=True)
class Observation:
    """What one seat may see: its own cards, played and shown cards, the starter, the scores."""

    rules: Rules
    seat: int
    phase: Phase
    to_move: int | None
    dealer: int
    scores: tuple[int, ...]
    match_points: tuple[int, ...]
    game_number: int
    hand: tuple[Card, ...]
    """Cards this seat still holds."""
    kept: tuple[Card, ...]
    """This seat's hand for the show (empty before it discards)."""
    discards: tuple[Card, ...]
    """What this seat laid away to the crib."""
    starter: Card | None
    pile: tuple[Card, ...]
    """Cards played since the count was last reset."""
    count: int
    played: tuple[tuple[int, Card], ...]
    """Every card played this deal, in order, with its seat."""
    passed: tuple[bool, ...]
    """Which seats have said go in this series."""
    hand_sizes: tuple[int, ...]
    """Cards each seat still holds."""
    shown: tuple[tuple[int, bool, tuple[Card, ...]], ...]
    """Hands (and the crib, flagged True) shown so far this deal."""
    legal: tuple[Action, ...]
    """The legal actions when this seat is to move, else empty."""
    pending_claim: int | None = None
    """In a muggins decision: the points the opponent failed to claim."""
    to_count: tuple[Card, ...] = ()
    """When this seat must count by hand: the cards it counts (its hand or its crib)."""
    counting_crib: bool = False
    """Whether `to_count` is the crib."""

    @property
    def side(self) -> int:
        """Which score this seat pegs on."""
        return self.rules.side_of(self.seat)

    @property
    def is_dealer(self) -> bool:
        """Whether this seat owns the crib this deal."""
        return self.seat == self.dealer
