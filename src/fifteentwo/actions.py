"""Actions and events of the game state machine: small frozen values with JSON forms.

Actions are what a seat (or chance) does; events are what happened as a result. A front-end
renders events; a record stores actions and chance outcomes; a bot returns actions.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, TypeVar

from fifteentwo.cards import Card
from fifteentwo.scoring import HandScore, ScoreItem, peg_score, score_hand

__all__ = [
    "CHANCE",
    "GO",
    "PLAY_ACTIONS",
    "Action",
    "CardPlayed",
    "ChanceAction",
    "Count",
    "CountReset",
    "Cut",
    "DealDone",
    "DealHands",
    "DealerChosen",
    "Dealt",
    "Discard",
    "Discarded",
    "DrawForDeal",
    "Event",
    "GameOver",
    "Go",
    "GoSaid",
    "HandCounted",
    "MatchOver",
    "Muggins",
    "Phase",
    "Play",
    "Reason",
    "Scored",
    "StarterTurned",
    "TurnStarter",
]

CHANCE: Final = -1
"""`Game.to_move` when the next step is a chance outcome (a shuffle, a cut)."""

_T = TypeVar("_T")


class _Value:
    """The base of every action, event and `Observation`: pickles any of them by calling its
    class again.

    (A compiled class has no ``__dict__`` or ``__slots__`` for pickle's default to work from.
    The classes the engine builds in its hot paths also write out their ``__init__``, because
    mypyc compiles a written ``__init__`` but not a generated one; docs/speed.md.)
    """

    __slots__ = ()

    def __reduce__(self) -> tuple[type[_Value], tuple[object, ...]]:
        values = [getattr(self, f.name) for f in dataclasses.fields(self)]  # type: ignore[arg-type]
        return (type(self), tuple(values))


def fast_constructor(cls: type[_T]) -> Callable[..., _T]:
    """A positional constructor for a frozen slots dataclass, for the engine's hot paths.

    A frozen dataclass's ``__init__`` stores each field through ``object.__setattr__``, several
    times the cost of a plain slot store, and self-play builds an event or an observation per
    step. The returned function fills a plain class with the same slots and then gives the
    object the dataclass as its class (CPython allows ``__class__`` assignment between equal
    slot layouts), so the result is an ordinary instance: equal, hashable, frozen, picklable.
    Every field is passed, in declaration order; nothing is checked.

    A class compiled by mypyc (docs/speed.md) is returned as it is: it has no slots to fill,
    and its own ``__init__`` is compiled.
    """
    if "__mypyc_attrs__" in cls.__dict__:
        return cls
    names = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    if getattr(cls, "__slots__", None) != names:
        raise TypeError(f"{cls.__name__} is not a slots dataclass")
    builder = type(f"_{cls.__name__}Builder", cls.__bases__, {"__slots__": names})
    args = ", ".join(names)
    stores = "".join(f"    o.{name} = {name}\n" for name in names)
    source = f"def make({args}):\n    o = new(B)\n{stores}    o.__class__ = C\n    return o\n"
    namespace: dict[str, Any] = {"new": object.__new__, "B": builder, "C": cls}
    exec(source, namespace)  # the same technique dataclasses uses to build __init__
    make: Callable[..., _T] = namespace["make"]
    make.__qualname__ = make.__name__ = f"new_{cls.__name__}"
    return make


class Phase(StrEnum):
    """Where a game is; each phase has its own kind of decision."""

    CUT_FOR_DEAL = "cut for deal"
    DEAL = "deal"
    DISCARD = "discard"
    STARTER = "starter"
    PLAY = "play"
    SHOW = "show"
    GAME_OVER = "game over"


class Reason(StrEnum):
    """Why points were pegged."""

    THREE_FOR_LAST = "three for last"
    HIS_HEELS = "his heels"
    PLAY = "play"
    GO = "go"
    LAST_CARD = "last card"
    HAND = "hand"
    CRIB = "crib"
    MUGGINS = "muggins"


# --- actions a seat takes ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Discard(_Value):
    """Lay these cards away to the crib."""

    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return "discard " + " ".join(c.short for c in self.cards)


@dataclass(frozen=True, slots=True)
class Play(_Value):
    """Lay this card on the count."""

    card: Card

    def __str__(self) -> str:
        return "play " + self.card.short


@dataclass(frozen=True, slots=True)
class Go(_Value):
    """Say go: no card will come in (or, where the rules allow, decline to play on)."""

    def __str__(self) -> str:
        return "go"


@dataclass(frozen=True, slots=True)
class Cut(_Value):
    """Cut the pack, lifting ``depth`` cards (at least four, leaving at least four)."""

    depth: int

    def __str__(self) -> str:
        return f"cut {self.depth}"


@dataclass(frozen=True, slots=True)
class Count(_Value):
    """Claim a show total when counting by hand (``manual_count`` seats)."""

    points: int

    def __str__(self) -> str:
        return f"count {self.points}"


@dataclass(frozen=True, slots=True)
class Muggins(_Value):
    """Take (or leave) the points an opponent failed to claim in the show."""

    take: bool

    def __str__(self) -> str:
        return "muggins" if self.take else "no muggins"


# --- chance outcomes ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DrawForDeal(_Value):
    """A seat's card in the cut for deal."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True, init=False)
class DealHands(_Value):
    """The hands as dealt (seat order) and the cards dealt from the pack to the crib."""

    hands: tuple[tuple[Card, ...], ...]
    pack: tuple[Card, ...] = ()

    def __init__(self, hands: tuple[tuple[Card, ...], ...], pack: tuple[Card, ...] = ()) -> None:
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "pack", pack)


@dataclass(frozen=True, slots=True, init=False)
class TurnStarter(_Value):
    """The starter turned up after the cut; ``depth`` records a seat's chosen cut, if any."""

    card: Card
    depth: int | None = None

    def __init__(self, card: Card, depth: int | None = None) -> None:
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "depth", depth)


Action = Discard | Play | Go | Cut | Count | Muggins

PLAY_ACTIONS: Final[tuple[Play, ...]] = tuple(Play(Card.from_index(i)) for i in range(52))
"""`Play` of each card by index, built once so legal-move lists allocate nothing new."""
GO: Final = Go()
ChanceAction = DrawForDeal | DealHands | TurnStarter


# --- events -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealerChosen(_Value):
    """The cut for deal: each seat's card; ``dealer`` is None on a tie (cut again)."""

    cuts: tuple[tuple[int, Card], ...]
    dealer: int | None


@dataclass(frozen=True, slots=True, init=False)
class Dealt(_Value):
    """A new deal. ``hands`` holds None for hands the observer may not see."""

    dealer: int
    hands: tuple[tuple[Card, ...] | None, ...]
    pack_to_crib: int

    def __init__(
        self, dealer: int, hands: tuple[tuple[Card, ...] | None, ...], pack_to_crib: int
    ) -> None:
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "pack_to_crib", pack_to_crib)


@dataclass(frozen=True, slots=True, init=False)
class Discarded(_Value):
    """A seat laid cards away; ``cards`` is None for observers who may not see them."""

    seat: int
    cards: tuple[Card, ...] | None
    count: int

    def __init__(self, seat: int, cards: tuple[Card, ...] | None, count: int) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "count", count)


@dataclass(frozen=True, slots=True, init=False)
class StarterTurned(_Value):
    """The starter; ``depth`` is how deep the cut was, when a seat chose it."""

    card: Card
    cut_by: int
    depth: int | None

    def __init__(self, card: Card, cut_by: int, depth: int | None) -> None:
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "cut_by", cut_by)
        object.__setattr__(self, "depth", depth)


@dataclass(frozen=True, slots=True, init=False)
class CardPlayed(_Value):
    """A card laid in the play; ``count`` is the running count after it."""

    seat: int
    card: Card
    count: int

    def __init__(self, seat: int, card: Card, count: int) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "count", count)


@dataclass(frozen=True, slots=True)
class GoSaid(_Value):
    """A seat could not (or chose not to) come in."""

    seat: int


@dataclass(frozen=True, slots=True)
class CountReset(_Value):
    """The count went back to zero; ``leader`` leads the next series."""

    leader: int


@dataclass(frozen=True, slots=True, init=False)
class HandCounted(_Value):
    """A hand or the crib shown; ``claimed`` is what its owner pegged (the total when automatic)."""

    seat: int
    cards: tuple[Card, ...]
    starter: Card
    crib: bool
    total: int
    claimed: int
    nobs_in_crib: bool = True

    def __init__(  # noqa: PLR0917 (the fields, in order)
        self,
        seat: int,
        cards: tuple[Card, ...],
        starter: Card,
        crib: bool,
        total: int,
        claimed: int,
        nobs_in_crib: bool = True,
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "starter", starter)
        object.__setattr__(self, "crib", crib)
        object.__setattr__(self, "total", total)
        object.__setattr__(self, "claimed", claimed)
        object.__setattr__(self, "nobs_in_crib", nobs_in_crib)

    def score(self) -> HandScore:
        """The itemized count, computed on demand (events stay cheap in self-play), and
        shared by the calls about one hand (a message says the count and lists its items)."""
        return _shown_score(self.cards, self.starter, self.crib, self.nobs_in_crib)


@functools.lru_cache(maxsize=64)
def _shown_score(
    cards: tuple[Card, ...], starter: Card, crib: bool, nobs_in_crib: bool
) -> HandScore:
    """`HandCounted.score`, remembered for the last hands shown."""
    result = score_hand(cards, starter, crib=crib)
    if crib and not nobs_in_crib:
        items = tuple(i for i in result.items if i.kind != "nobs")
        result = HandScore(result.hand, result.starter, result.crib, items)
    return result


@dataclass(frozen=True, slots=True, init=False)
class Scored(_Value):
    """Points pegged by a seat (for its side), why, and the side's score after."""

    seat: int
    side: int
    points: int
    reason: Reason
    score: int
    cards: tuple[Card, ...] = ()
    """For play points, the pile since the last reset; for a show, the hand; else empty."""

    def __init__(  # noqa: PLR0917 (the fields, in order)
        self,
        seat: int,
        side: int,
        points: int,
        reason: Reason,
        score: int,
        cards: tuple[Card, ...] = (),
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "side", side)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "cards", cards)

    def items(self) -> tuple[ScoreItem, ...]:
        """The itemized combinations of play points (empty for other reasons)."""
        if self.reason is Reason.PLAY:
            return peg_score(self.cards).items
        return ()


@dataclass(frozen=True, slots=True, init=False)
class DealDone(_Value):
    """All hands and the crib are counted; scores after the deal."""

    scores: tuple[int, ...]

    def __init__(self, scores: tuple[int, ...]) -> None:
        object.__setattr__(self, "scores", scores)


@dataclass(frozen=True, slots=True)
class GameOver(_Value):
    """A side reached the target. ``skunk`` is 0, 1 (skunk/lurch) or 2 (double skunk)."""

    winner: int
    scores: tuple[int, ...]
    skunk: int
    game_points: int
    match_points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchOver(_Value):
    """The match is decided."""

    winner: int
    match_points: tuple[int, ...]


Event = (
    DealerChosen
    | Dealt
    | Discarded
    | StarterTurned
    | CardPlayed
    | GoSaid
    | CountReset
    | HandCounted
    | Scored
    | DealDone
    | GameOver
    | MatchOver
)
