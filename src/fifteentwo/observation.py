"""`Observation`: what one seat may see of a game, the only view a player gets.

The engine builds one for every decision, so it is compiled along with the engine when the
engine is (docs/speed.md); that is why it writes out its ``__init__``, and pickles through the
base it shares with actions and events. It is also importable
from `fifteentwo.game` and `fifteentwo`.
"""

from __future__ import annotations

from dataclasses import dataclass

from fifteentwo.actions import Action, Phase, _Value
from fifteentwo.cards import Card
from fifteentwo.rules import Rules

__all__ = ["Observation"]


@dataclass(frozen=True, slots=True, init=False)
class Observation(_Value):
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
    """In a muggins decision: the points the opponent's claim was off by (missed, or the
    excess of an over-claim)."""
    to_count: tuple[Card, ...] = ()
    """When this seat must count by hand: the cards it counts (its hand or its crib)."""
    counting_crib: bool = False
    """Whether `to_count` is the crib."""

    # Written out, not generated: a compiled dataclass's generated ``__init__`` cannot set its
    # frozen fields (docs/speed.md). ``object.__setattr__`` is what the generated one does too.
    def __init__(  # noqa: PLR0917 (the fields, in order, as the generated one takes them)
        self,
        rules: Rules,
        seat: int,
        phase: Phase,
        to_move: int | None,
        dealer: int,
        scores: tuple[int, ...],
        match_points: tuple[int, ...],
        game_number: int,
        hand: tuple[Card, ...],
        kept: tuple[Card, ...],
        discards: tuple[Card, ...],
        starter: Card | None,
        pile: tuple[Card, ...],
        count: int,
        played: tuple[tuple[int, Card], ...],
        passed: tuple[bool, ...],
        hand_sizes: tuple[int, ...],
        shown: tuple[tuple[int, bool, tuple[Card, ...]], ...],
        legal: tuple[Action, ...],
        pending_claim: int | None = None,
        to_count: tuple[Card, ...] = (),
        counting_crib: bool = False,
    ) -> None:
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "to_move", to_move)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "match_points", match_points)
        object.__setattr__(self, "game_number", game_number)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "kept", kept)
        object.__setattr__(self, "discards", discards)
        object.__setattr__(self, "starter", starter)
        object.__setattr__(self, "pile", pile)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "played", played)
        object.__setattr__(self, "passed", passed)
        object.__setattr__(self, "hand_sizes", hand_sizes)
        object.__setattr__(self, "shown", shown)
        object.__setattr__(self, "legal", legal)
        object.__setattr__(self, "pending_claim", pending_claim)
        object.__setattr__(self, "to_count", to_count)
        object.__setattr__(self, "counting_crib", counting_crib)

    @property
    def side(self) -> int:
        """Which score this seat pegs on."""
        return self.rules.side_of(self.seat)

    @property
    def is_dealer(self) -> bool:
        """Whether this seat owns the crib this deal."""
        return self.seat == self.dealer
