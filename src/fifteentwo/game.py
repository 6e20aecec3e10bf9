"""The game as a state machine: a state, whose move it is, the legal actions, and `apply`.

`Game` does no input, output or clock reading; its only randomness is the `random.Random` it
was seeded with, used for chance steps (the shuffle and the cuts). Chance is explicit: when
`to_move` is `CHANCE`, call `sample_chance()` and `apply()` the outcome, or `advance()` to do
that until a seat must decide. A replay applies recorded outcomes instead, so games replay
exactly from their records.

Scoring follows the order of the rules, and the game ends the instant a side reaches the
target: later points in the same deal are not pegged.

Actions come from untrusted code (bots, records, front-ends): anything that is not a legal,
well-formed action (wrong field types included: ``Count(0.5)``, ``Play("AH")``) is refused with
`IllegalActionError` before the state is touched, and a seat that is not in the game cannot be
observed (tests/test_game_fuzz.py).

>>> g = Game(find_rules("standard"), seed=7)
>>> _ = g.advance()
>>> g.phase, len(g.legal_actions())
(<Phase.DISCARD: 'discard'>, 15)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from itertools import chain, combinations
from operator import attrgetter
from typing import Final

from fifteentwo.actions import (
    CHANCE,
    GO,
    PLAY_ACTIONS,
    Action,
    CardPlayed,
    ChanceAction,
    Count,
    CountReset,
    Cut,
    DealDone,
    DealerChosen,
    DealHands,
    Dealt,
    Discard,
    Discarded,
    DrawForDeal,
    Event,
    GameOver,
    Go,
    GoSaid,
    HandCounted,
    MatchOver,
    Muggins,
    Phase,
    Play,
    Reason,
    Scored,
    StarterTurned,
    TurnStarter,
    fast_constructor,
)
from fifteentwo.cards import DECK, Card, Rank
from fifteentwo.errors import IllegalActionError
from fifteentwo.observation import Observation
from fifteentwo.rules import STANDARD, Rules, find_rules
from fifteentwo.scoring import (
    GO_POINTS,
    HIS_HEELS_POINTS,
    LAST_CARD_POINTS,
    RUN_TAIL3,
    hand_total,
    hand_total4,
    peg_points_ranks,
)

__all__ = ["COMPILED", "Game", "Observation", "find_rules"]

COMPILED: Final = not __file__.endswith(".py")
"""Whether this module was compiled by mypyc (``make compiled``; docs/speed.md)."""

_MAX_CLAIM = 29

# Phases, reasons and the jack as module constants: reading an enum member off its class costs
# ten times a global load (and a compiled module keeps Final ones in C variables).
_CUT_FOR_DEAL: Final = Phase.CUT_FOR_DEAL
_DEAL: Final = Phase.DEAL
_DISCARD: Final = Phase.DISCARD
_STARTER: Final = Phase.STARTER
_PLAY: Final = Phase.PLAY
_SHOW: Final = Phase.SHOW
_GAME_OVER: Final = Phase.GAME_OVER
_PLAY_REASON: Final = Reason.PLAY
_GO_REASON: Final = Reason.GO
_LAST_CARD: Final = Reason.LAST_CARD
_HAND: Final = Reason.HAND
_CRIB: Final = Reason.CRIB
_HIS_HEELS: Final = Reason.HIS_HEELS
_MUGGINS_REASON: Final = Reason.MUGGINS
_THREE_FOR_LAST: Final = Reason.THREE_FOR_LAST
_JACK: Final = int(Rank.JACK)

_RANK_OF: Final = tuple(i // 4 + 1 for i in range(52))
"""Rank (1..13) of each card index, as a plain int for `peg_points_ranks`."""

# Actions and events are immutable values, so the engine shares one object per value where
# there are few: legal-move lists then allocate nothing new.
_COUNTS: Final = tuple(Count(n) for n in range(_MAX_CLAIM + 1))
_MUGGINS: Final = (Muggins(True), Muggins(False))
_CUTS: Final = tuple(Cut(d) for d in range(53))
_GO_SAID: Final = tuple(GoSaid(seat) for seat in range(4))
_COUNT_RESET: Final = tuple(CountReset(seat) for seat in range(4))
_SEAT_CARD: Final = tuple(tuple((seat, card) for card in DECK) for seat in range(4))
"""``(seat, card)`` pairs for `Game.played`, shared rather than built per play."""
_CARD_PLAYED: Final[dict[int, CardPlayed]] = {}
"""Each `CardPlayed` made so far, by count, card and seat (at most 32 * 52 * 4 of them)."""
_DISCARDS: Final[dict[tuple[int, ...], Discard]] = {
    key: Discard(tuple(DECK[i] for i in key)) for k in (1, 2) for key in combinations(range(52), k)
}
"""`Discard` of every set of one or two card indices (every preset's discard)."""
_PAIRS: Final[tuple[tuple[Discard, ...], ...]] = tuple(
    tuple(_DISCARDS.get((a, b)) for b in range(52))  # type: ignore[misc]
    for a in range(52)
)
"""``_PAIRS[a][b]`` is the `Discard` of cards a < b (None otherwise), for discarding by index."""

_new_card_played = fast_constructor(CardPlayed)
_new_scored = fast_constructor(Scored)
_new_discarded = fast_constructor(Discarded)
_new_dealt = fast_constructor(Dealt)
_new_deal_done = fast_constructor(DealDone)
_new_deal_hands = fast_constructor(DealHands)
_new_turn_starter = fast_constructor(TurnStarter)
_new_starter_turned = fast_constructor(StarterTurned)
_new_hand_counted = fast_constructor(HandCounted)
_new_observation = fast_constructor(Observation)  # (compiled, `Game.observation` calls the class)


_INDEX: Final = attrgetter("index")
_CHANCE_TYPES: Final = (DealHands, TurnStarter, DrawForDeal)  # (a tuple tests faster than a union)
_ACTION_TYPES: Final = (Discard, Play, Go, Cut, Count, Muggins, *_CHANCE_TYPES)


# --- the RNG, without its Python call overhead -------------------------------------------------
# `random.Random.choice`, `sample`, `shuffle` and `randrange` are Python functions that each call
# `_randbelow` (another Python function) per number drawn: a few hundred calls a game. The
# functions below draw the very same numbers from `getrandbits` inline. They are checked against
# the standard library when this module loads and fall back to it if the draws ever differ
# (another Python version), or for RNGs that are not plain `random.Random`.


_RANDOM: Final = random.Random  # (a module attribute is looked up on every use)


def randbelow(rng: random.Random, n: int) -> int:
    """`rng.randrange(n)` for n > 0: the same number, drawn the same way."""
    if not _FAST_RNG or type(rng) is not _RANDOM or n <= 0:
        return rng.randrange(n)  # (which raises for n <= 0)
    getrandbits = rng.getrandbits
    bits = n.bit_length()
    r = getrandbits(bits)
    while r >= n:
        r = getrandbits(bits)
    return r


def sample_deck(rng: random.Random, k: int) -> list[Card]:
    """`rng.sample(DECK, k)`: the same cards in the same order."""
    if not _FAST_RNG or type(rng) is not _RANDOM or not 6 <= k <= 52:
        return rng.sample(DECK, k)  # (for k < 6 the library draws by another method)
    getrandbits = rng.getrandbits
    pool = list(DECK)
    top = []
    for m in range(52, 52 - k, -1):
        bits = m.bit_length()
        j = getrandbits(bits)
        while j >= m:
            j = getrandbits(bits)
        top.append(pool[j])
        pool[j] = pool[m - 1]
    return top


def shuffle(rng: random.Random, cards: list[Card]) -> None:
    """`rng.shuffle(cards)`: the same order."""
    if not _FAST_RNG or type(rng) is not _RANDOM:
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        m = i + 1
        bits = m.bit_length()
        j = getrandbits(bits)
        while j >= m:
            j = getrandbits(bits)
        cards[i], cards[j] = cards[j], cards[i]


def _same_as_the_library() -> bool:
    fast, slow = random.Random(20240), random.Random(20240)
    for n in (1, 2, 3, 40, 52, 1000):
        if randbelow(fast, n) != slow.randrange(n):
            return False
    for k in (6, 10, 12, 16, 20, 52):
        if sample_deck(fast, k) != slow.sample(DECK, k):
            return False
    a, b = list(DECK), list(DECK)
    shuffle(fast, a)
    slow.shuffle(b)
    return a == b and fast.getstate() == slow.getstate()


_FAST_RNG = True
_FAST_RNG = _same_as_the_library()
_CARD_TYPE: Final = {Card}


def _find(cards: list[Card], card: object) -> int:
    """Where ``card`` is in ``cards`` (-1 if absent), by identity: cards are interned.

    ``in``, `list.index` and `list.remove` compare with ``==``, which for `Card` goes through
    its Python-level comparison methods: this loop is many times cheaper.
    """
    for i, c in enumerate(cards):
        if c is card:
            return i
    return -1


def _take(cards: list[Card], card: Card) -> None:
    """Remove ``card`` (known to be there) from ``cards``; see `_find`."""
    for i, c in enumerate(cards):
        if c is card:
            del cards[i]
            return
    raise AssertionError(f"{card} is not there")  # pragma: no cover - checked before


def _without(hand: list[Card], cards: Sequence[Card]) -> list[Card] | None:
    """``hand`` less ``cards``, or None unless they are different cards all in ``hand``."""
    rest = list(hand)
    for card in cards:
        i = _find(rest, card)
        if i < 0:
            return None
        del rest[i]
    return rest


def _discard_actions(hand: Sequence[Card], k: int) -> list[Action]:
    """Every way to lay away ``k`` cards of ``hand``, in `itertools.combinations` order."""
    if k == 2 and len(hand) == 6:  # two-handed cribbage: written out, it is many times faster
        a, b, c, d, e, f = [card.index for card in hand]
        ra, rb, rc, rd, re = _PAIRS[a], _PAIRS[b], _PAIRS[c], _PAIRS[d], _PAIRS[e]
        pairs: list[Action] = [ra[b], ra[c], ra[d], ra[e], ra[f], rb[c], rb[d], rb[e], rb[f]]
        pairs += (rc[d], rc[e], rc[f], rd[e], rd[f], re[f])
        return pairs
    keys = combinations(map(_INDEX, hand), k)
    if 1 <= k <= 2:
        return list(map(_DISCARDS.__getitem__, keys))
    return [Discard(tuple(DECK[i] for i in key)) for key in keys]


def _describe(value: object) -> str:
    """``value`` for an error message: its text if it is short, else its type (never raises)."""
    try:
        text = str(value) if isinstance(value, _ACTION_TYPES) else repr(value)
    except Exception:  # (a malformed action's __str__ may raise anything)
        try:
            text = repr(value)
        except Exception:  # (so may a hostile object's __repr__)
            text = ""
    return text if 0 < len(text) <= 60 else f"a {type(value).__name__}"


def _is_card_tuple(cards: object) -> bool:
    """Whether ``cards`` is a tuple of `Card` (types checked, not compared)."""
    return type(cards) is tuple and all(isinstance(card, Card) for card in cards)


def _check_well_formed(action: object) -> None:
    """Refuse an action whose fields have the wrong types before anything reads them.

    A dataclass does not check its fields' types, so ``Count(0.5)``, ``Count(True)``,
    ``Cut(5.5)``, ``Play(42)`` or ``Discard(None)`` can be built; the engine must refuse them
    (with `IllegalActionError`) rather than accept them or fail half-way through a step. Exact
    types: a bool is not a count or a depth. (This runs only off the hot path: `apply` takes
    well-formed plays and discards of the seat's own cards without calling it.)
    """
    if isinstance(action, Play):
        card: object = action.card
        if not isinstance(card, Card):
            raise IllegalActionError(f"play a card, not {_describe(card)}")
    elif isinstance(action, Discard):
        if not _is_card_tuple(action.cards):
            raise IllegalActionError(f"discard a tuple of cards, not {_describe(action.cards)}")
    elif isinstance(action, Count):
        if type(action.points) is not int:
            raise IllegalActionError(f"a count is a whole number, not {_describe(action.points)}")
    elif isinstance(action, Cut):
        if type(action.depth) is not int:
            raise IllegalActionError(
                f"a cut depth is a whole number, not {_describe(action.depth)}"
            )
    elif isinstance(action, Muggins):
        if type(action.take) is not bool:
            raise IllegalActionError(f"muggins takes True or False, not {_describe(action.take)}")
    elif not isinstance(action, Go):
        raise IllegalActionError(f"{_describe(action)} is not an action")


class _GameEnded(Exception):
    """Raised inside a step when a side reaches the target, to stop all later scoring."""


_GAME_SLOTS: Final = (
    "_cut_deck",
    "_cuts",
    "_discard_size",
    "_muggins",
    "_n",
    "_next_dealer",
    "_nobs_in_crib",
    "_optional_go",
    "_out",
    "_pile_ranks",
    "_plays",
    "_sampled",
    "_second_series",
    "_show",
    "_sides",
    "_starter_at",
    "_target",
    "_to_move",
    "count",
    "crib",
    "cut_seats",
    "deal_number",
    "dealer",
    "dealt",
    "discards",
    "events",
    "game_number",
    "hands",
    "kept",
    "last_player",
    "log",
    "manual_count",
    "match_points",
    "passed",
    "phase",
    "pile",
    "played",
    "rng",
    "rules",
    "scores",
    "seed",
    "shown",
    "starter",
    "stock",
    "turn",
    "winner",
)
"""`Game`'s attributes, named here because a compiled class has no ``__slots__`` to read."""


class Game:
    """A game (or a best-of-N match) of cribbage under some `Rules`.

    ``manual_count`` names seats that claim their own show totals (muggins applies to them);
    other seats are counted automatically. ``cut_seats`` names seats that choose how deep to cut
    (for the deal and the starter); other cuts are drawn from the RNG. ``first_dealer`` skips the
    cut for deal.
    """

    # Slots: a game has more attributes than CPython's shared-key instance dicts hold, and every
    # step reads a dozen of them.
    __slots__ = _GAME_SLOTS

    def __init__(
        self,
        rules: Rules = STANDARD,
        *,
        seed: int,
        manual_count: Iterable[int] = (),
        cut_seats: Iterable[int] = (),
        first_dealer: int | None = None,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.rng = random.Random(seed)
        n = rules.players
        self.manual_count = frozenset(manual_count)
        self.cut_seats = frozenset(cut_seats)
        for seat in self.manual_count | self.cut_seats:
            if type(seat) is not int or not 0 <= seat < n:
                raise IllegalActionError(f"no seat {seat} in a {n}-player game")
        # Per-game constants read on every step.
        self._n = n
        self._sides = tuple(rules.side_of(s) for s in range(n))
        self._target = rules.target
        self._discard_size = rules.discard
        self._second_series = rules.second_series
        self._optional_go = rules.optional_play_after_go
        self._nobs_in_crib = rules.nobs_in_crib
        self.phase = _CUT_FOR_DEAL
        self.scores = [0] * rules.sides
        # Tuples, replaced when they change: observations share them instead of copying.
        self.match_points = (0,) * rules.sides
        self.game_number = 1
        self.dealer = 0
        self.winner: int | None = None
        """Side that won the match, once it is over."""
        self.log: list[tuple[int, Action | ChanceAction]] = []
        """Every action applied, with its actor (`CHANCE` for chance outcomes)."""
        self.events: list[Event] = []
        self._out: list[Event] = []
        self.deal_number = 0
        # cut for deal
        self._cut_deck: list[Card] = []
        self._cuts: list[tuple[int, Card]] = []
        # deal state
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        """Cards each seat holds, kept in index (rank, then suit) order."""
        self._plays: list[tuple[Play, ...]] = [()] * n
        """In the play, the `Play` of each card in ``hands``, in the same order: the legal plays
        are always a prefix of it (the hand is in rank order), so legal-move lists are slices."""
        self.dealt: list[tuple[Card, ...]] = [() for _ in range(n)]
        self.kept: list[tuple[Card, ...]] = [() for _ in range(n)]
        self.discards: list[tuple[Card, ...] | None] = [None] * n
        self.crib: list[Card] = []
        self.stock: list[Card] = []
        self.starter: Card | None = None
        self.pile: list[Card] = []
        self._pile_ranks: list[int] = []
        self.count = 0
        self.played: list[tuple[int, Card]] = []
        self.passed = (False,) * n
        self.turn = 0
        self.last_player: int | None = None
        self._show: list[tuple[int, bool]] = []
        self.shown: tuple[tuple[int, bool, tuple[Card, ...]], ...] = ()
        self._muggins: tuple[int, int] | None = None  # (opponent seat, missed points)
        self._next_dealer = 0
        self._starter_at = 0
        """Where in the stock `sample_chance` last drew a starter (saves a search)."""
        self._sampled: tuple[ChanceAction | None, int] = (None, 0)
        """The outcome `sample_chance` last drew, and when (the length of the log then): if
        nothing was applied since, it is known to be legal."""
        self._out = self.events
        if first_dealer is not None:
            if not 0 <= first_dealer < n:
                raise IllegalActionError(f"no seat {first_dealer} in a {n}-player game")
            self._start_game(first_dealer)
        else:
            self._begin_cut_for_deal()
        self._to_move = self._compute_to_move()

    # --- what is going on ----------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """True once the match (a single game unless best-of-N) is decided."""
        return self.phase is _GAME_OVER

    @property
    def to_move(self) -> int | None:
        """The seat that must decide, `CHANCE` for a chance step, or None when the match is over."""
        return self._to_move

    def _compute_to_move(self) -> int | None:
        phase = self.phase
        if phase is _PLAY:
            return self.turn
        if phase is _DISCARD:
            return self._discarding_seat()
        if phase is _SHOW:
            if self._muggins is not None:
                return self._muggins[0]
            return self._show[0][0]
        if phase is _STARTER:
            cutter = self.pone
            return cutter if cutter in self.cut_seats else CHANCE
        if phase is _CUT_FOR_DEAL:
            seat = len(self._cuts)
            return seat if seat in self.cut_seats else CHANCE
        if phase is _DEAL:
            return CHANCE
        return None

    @property
    def pone(self) -> int:
        """The seat to the dealer's left: cuts the starter and leads the play."""
        return (self.dealer + 1) % self._n

    def _discarding_seat(self) -> int:
        n = self._n
        discards = self.discards
        for i in range(1, n + 1):
            seat = (self.dealer + i) % n
            if discards[seat] is None:
                return seat
        raise AssertionError("no seat left to discard")  # pragma: no cover

    def legal_actions(self) -> list[Action]:
        """The legal actions of the seat to move, in a stable order (empty for chance/over).

        Plays come in hand order, then go; discards in `itertools.combinations` order, each in
        card order. A seat counting by hand is offered every claim from 0 to 29, so that the
        list does not give its total away; a claim above the total is refused when applied.
        """
        phase = self.phase
        if phase is _PLAY:
            return list(self._legal_plays(self.turn))
        if phase is _DISCARD:
            return _discard_actions(self.hands[self._discarding_seat()], self._discard_size)
        if phase is _SHOW:
            if self._muggins is not None:
                return list(_MUGGINS)
            return list(_COUNTS)
        if phase is _STARTER or phase is _CUT_FOR_DEAL:
            if self._to_move == CHANCE:
                return []
            deck = self.stock if phase is _STARTER else self._cut_deck
            return list(_CUTS[4 : len(deck) - 3])
        return []

    def _legal_plays(self, seat: int) -> tuple[Action, ...]:
        """The cards ``seat`` may play (a prefix of its hand: pips rise along it), then go if
        nothing comes in or (five-card) another seat has said go."""
        hand = self.hands[seat]
        k = len(hand)
        limit = 31 - self.count
        while k and hand[k - 1].pips > limit:
            k -= 1
        legal: tuple[Action, ...] = self._plays[seat][:k]
        if not k or (self._optional_go and any(self.passed)):
            legal += (GO,)
        return legal

    def check_legal(self, action: Action) -> None:
        """Raise `IllegalActionError` saying why ``action`` is not legal now."""
        seat = self.to_move
        if seat is None:
            raise IllegalActionError("the game is over")
        if seat == CHANCE:
            raise IllegalActionError(f"{_describe(action)} is not legal: a chance step is next")
        phase = self.phase
        _check_well_formed(action)
        if isinstance(action, Play) and phase is _PLAY:
            if _find(self.hands[seat], action.card) < 0:
                raise IllegalActionError(f"{action.card.short} is not in seat {seat}'s hand")
            if self.count + action.card.pips > 31:
                raise IllegalActionError(
                    f"{action.card.short} would take the count past 31 (count is {self.count})"
                )
            return
        if isinstance(action, Go) and phase is _PLAY:
            if not self._may_pass(seat):
                raise IllegalActionError(f"seat {seat} has a card that will come in, so cannot go")
            return
        if isinstance(action, Discard) and phase is _DISCARD:
            cards = action.cards
            if len(cards) != self.rules.discard or len(set(cards)) != len(cards):
                raise IllegalActionError(f"discard exactly {self.rules.discard} different card(s)")
            for card in cards:
                if _find(self.hands[seat], card) < 0:
                    raise IllegalActionError(f"{card.short} is not in seat {seat}'s hand")
            return
        if isinstance(action, Count) and phase is _SHOW and self._muggins is None:
            seat, crib = self._show[0]
            total = self._show_total(seat, crib)
            if action.points < 0:
                raise IllegalActionError("a count cannot be negative")
            if action.points > total:
                what = "crib" if crib else "hand"
                raise IllegalActionError(
                    f"over-pegging is not allowed: the {what} counts {total}, not {action.points}"
                )
            return
        if isinstance(action, Muggins) and self._muggins is not None:
            return
        if isinstance(action, Cut) and (phase is _STARTER or phase is _CUT_FOR_DEAL):
            deck = self.stock if phase is _STARTER else self._cut_deck
            if not 4 <= action.depth <= len(deck) - 4:
                raise IllegalActionError(
                    f"cut between 4 and {len(deck) - 4} cards deep, not {action.depth}"
                )
            return
        raise IllegalActionError(f"{_describe(action)} is not legal in the {phase.value} phase")

    def is_legal(self, action: Action) -> bool:
        """Whether `check_legal` would accept ``action``."""
        try:
            self.check_legal(action)
        except IllegalActionError:
            return False
        return True

    def _may_pass(self, seat: int) -> bool:
        """Go is legal when no card comes in, or after an opponent's go in five-card play."""
        hand = self.hands[seat]
        if not hand or hand[0].pips > 31 - self.count:  # the hand is in rank order
            return True
        return self._optional_go and any(self.passed)

    # --- applying actions ----------------------------------------------------------------------

    def apply(self, action: Action | ChanceAction) -> list[Event]:
        """Apply a seat's action or a chance outcome; return the events it caused.

        An illegal action raises `IllegalActionError` and leaves the game unchanged.
        """
        actor = self._to_move
        if actor is None:
            raise IllegalActionError("the game is over")
        out: list[Event] = []
        self._out = out
        try:
            # The common cases are checked inline; anything unusual goes through `check_legal`,
            # which raises with the reason (or accepts, and the general path applies it).
            if type(action) is Play and self.phase is _PLAY:
                card = action.card
                at = _find(self.hands[actor], card)
                if at < 0 or self.count + card.pips > 31:
                    self.check_legal(action)  # raises
                self.log.append((actor, action))
                self._play(actor, card, at)
            elif type(action) is Discard and self.phase is _DISCARD:
                cards = action.cards
                rest = _without(self.hands[actor], cards) if type(cards) is tuple else None
                if rest is None or len(cards) != self._discard_size:
                    self.check_legal(action)  # raises
                self.log.append((actor, action))
                self._discard(actor, cards, rest)
            elif isinstance(action, _CHANCE_TYPES):
                sampled = self._sampled  # made by `sample_chance` for this very state?
                if action is not sampled[0] or len(self.log) != sampled[1]:
                    self._check_chance(action)
                self.log.append((actor, action))
                if type(action) is DealHands:
                    self._deal(action)
                elif type(action) is TurnStarter:
                    self._turn_starter(action.card, action.depth)
                elif type(action) is DrawForDeal:
                    self._draw_for_deal(action.seat, action.card)
            else:
                self.check_legal(action)
                self.log.append((actor, action))
                self._apply_action(action, actor)
        except _GameEnded:
            self._after_game()
        except IllegalActionError:
            self._out = self.events  # (refused before any change: only this is put back)
            raise
        self._to_move = self.turn if self.phase is _PLAY else self._compute_to_move()
        self.events += out
        return out

    def advance(self) -> list[Event]:
        """Apply sampled chance outcomes until a seat must decide or the game is over."""
        events: list[Event] = []
        while self._to_move == CHANCE:
            events.extend(self.apply(self.sample_chance()))
        return events

    def sample_chance(self) -> ChanceAction:
        """Draw the next chance outcome from the game's RNG."""
        phase = self.phase
        rng = self.rng
        if phase is _DEAL:
            rules = self.rules
            n = self._n
            dealt = n * rules.hand_size
            # The top of a shuffled pack: one card at a time, starting on the dealer's left.
            top = sample_deck(rng, dealt + rules.crib_from_pack)
            hands: list[tuple[Card, ...]] = [()] * n
            for i in range(n):
                hands[(self.dealer + 1 + i) % n] = tuple(top[i:dealt:n])
            outcome: ChanceAction = _new_deal_hands(tuple(hands), tuple(top[dealt:]))
        elif phase is _STARTER:
            # The stock is unordered until someone cuts it by hand, so any card is equally likely.
            stock = self.stock
            at = randbelow(rng, len(stock))
            self._starter_at = at
            outcome = _new_turn_starter(stock[at], None)
        elif phase is _CUT_FOR_DEAL:
            deck = self._cut_deck
            outcome = DrawForDeal(len(self._cuts), deck[rng.randint(4, len(deck) - 4)])
        else:
            raise IllegalActionError(f"no chance step in the {phase.value} phase")
        self._sampled = (outcome, len(self.log))
        return outcome

    def _check_chance(self, action: ChanceAction) -> None:
        # A recorded cut result may stand in for a seat's cut; other chance steps need CHANCE.
        to_move = self._to_move
        if to_move != CHANCE and (type(action) is DealHands or to_move is None):
            raise IllegalActionError(f"a seat must decide now, not chance ({_describe(action)})")
        if type(action) is DealHands:
            if self.phase is not _DEAL:
                raise IllegalActionError("not time to deal")
            rules = self.rules
            size = rules.hand_size
            hands: object = action.hands
            pack: object = action.pack
            if (
                type(hands) is not tuple
                or type(pack) is not tuple
                or not all(type(h) is tuple for h in hands)
            ):
                raise IllegalActionError("deal tuples of cards")
            if len(hands) != rules.players or {*map(len, hands)} != {size}:
                raise IllegalActionError(f"deal {rules.players} hands of {size} cards each")
            if len(pack) != rules.crib_from_pack:
                raise IllegalActionError(f"deal {rules.crib_from_pack} card(s) to the crib")
            cards = [*chain.from_iterable(hands), *pack]
            if {*map(type, cards)} != _CARD_TYPE:
                raise IllegalActionError("only cards can be dealt")
            if len({*map(_INDEX, cards)}) != len(cards):
                raise IllegalActionError("a card is dealt twice")
        elif type(action) is TurnStarter:
            if self.phase is not _STARTER:
                raise IllegalActionError("not time to turn the starter")
            card: object = action.card
            if not isinstance(card, Card):
                raise IllegalActionError(f"the starter must be a card, not {_describe(card)}")
            if _find(self.stock, card) < 0:
                raise IllegalActionError(f"{card.short} is not in the stock")
            depth: object = action.depth
            if depth is not None and (type(depth) is not int or not 0 <= depth < len(self.stock)):
                raise IllegalActionError(f"no cut {_describe(depth)} cards deep in the stock")
        elif type(action) is DrawForDeal:
            seat: object = action.seat
            if self.phase is not _CUT_FOR_DEAL or type(seat) is not int or seat != len(self._cuts):
                raise IllegalActionError(f"not seat {_describe(seat)}'s cut for deal now")
            card = action.card
            if not isinstance(card, Card):
                raise IllegalActionError(f"a cut for deal draws a card, not {_describe(card)}")
            if _find(self._cut_deck, card) < 0:
                raise IllegalActionError(f"{card.short} was already drawn")
        else:
            raise IllegalActionError(f"{_describe(action)} is not a chance outcome")

    def _apply_action(self, action: Action, seat: int) -> None:
        if isinstance(action, Play):
            self._play(seat, action.card, _find(self.hands[seat], action.card))
        elif isinstance(action, Discard):
            self._discard(seat, action.cards, _without(self.hands[seat], action.cards))
        elif isinstance(action, Go):
            self._say_go(seat)
            self._next_turn(seat)
        elif isinstance(action, Count):
            self._claim(action.points)
        elif isinstance(action, Muggins):
            self._resolve_muggins(action.take)
        elif isinstance(action, Cut):
            if self.phase is _STARTER:
                self._turn_starter(self.stock[action.depth], action.depth)
            else:
                self._draw_for_deal(seat, self._cut_deck[action.depth])

    # --- the cut for deal ----------------------------------------------------------------------

    def _begin_cut_for_deal(self) -> None:
        self.phase = _CUT_FOR_DEAL
        self._cut_deck = list(DECK)
        shuffle(self.rng, self._cut_deck)
        self._cuts = []

    def _draw_for_deal(self, seat: int, card: Card) -> None:
        _take(self._cut_deck, card)
        self._cuts.append((seat, card))
        if len(self._cuts) < self._n:
            return
        low = min(c.rank for _, c in self._cuts)
        lowest = [s for s, c in self._cuts if c.rank == low]
        dealer = lowest[0] if len(lowest) == 1 else None
        self._out.append(DealerChosen(tuple(self._cuts), dealer))
        if dealer is None:
            self._begin_cut_for_deal()  # equal cards: both (all) cut again
        else:
            self._start_game(dealer)

    # --- games and deals -----------------------------------------------------------------------

    def _start_game(self, dealer: int) -> None:
        self.dealer = dealer
        self.scores = [0] * self.rules.sides
        self.phase = _DEAL
        if self.rules.three_for_last:
            try:
                self._score(self.pone, self.rules.three_for_last, _THREE_FOR_LAST)
            except _GameEnded:  # pragma: no cover - a target of 3 is rejected by Rules
                raise AssertionError("three for last cannot win") from None

    def _deal(self, action: DealHands) -> None:
        n = self._n
        self.deal_number += 1
        hands = action.hands
        self.hands = [sorted(h, key=_INDEX) for h in hands]  # kept in index order from here
        self.dealt = [tuple(h) for h in hands]  # (tuples already, unless built by hand)
        self.kept = [()] * n
        self._plays = [()] * n
        self.discards = [None] * n
        self.crib = list(action.pack)
        taken = [card.index for hand in hands for card in hand]
        taken += [card.index for card in action.pack]
        taken.sort(reverse=True)
        stock = list(DECK)  # the undealt cards, in index order
        for i in taken:
            del stock[i]
        if (self.dealer + 1) % n in self.cut_seats:
            shuffle(self.rng, stock)  # a seat will cut it by depth: give it a real order
        self.stock = stock
        self.starter = None
        self.pile, self._pile_ranks, self.count = [], [], 0
        self.played = []
        self.passed = (False,) * n
        self.last_player = None
        self._show = []
        self.shown = ()
        self._muggins = None
        self.phase = _DISCARD
        self._out.append(_new_dealt(self.dealer, tuple(self.dealt), len(action.pack)))

    def _discard(self, seat: int, cards: tuple[Card, ...], rest: list[Card] | None) -> None:
        """``seat`` lays ``cards`` away, keeping ``rest`` (its hand without them)."""
        assert rest is not None
        self.hands[seat] = rest
        cards = tuple(cards)
        discards = self.discards
        discards[seat] = cards
        self.kept[seat] = tuple(rest)
        self._plays[seat] = tuple([PLAY_ACTIONS[c.index] for c in rest])
        self.crib += cards
        self._out.append(_new_discarded(seat, cards, len(cards)))
        if None not in discards:
            self.phase = _STARTER

    def _turn_starter(self, card: Card, depth: int | None) -> None:
        self.starter = card
        stock = self.stock
        at = depth if depth is not None else self._starter_at  # where it was drawn, likely
        if at < len(stock) and stock[at] is card:
            del stock[at]
        else:
            _take(stock, card)
        pone = (self.dealer + 1) % self._n
        self._out.append(_new_starter_turned(card, pone, depth))
        self.phase = _PLAY
        self.turn = pone
        if _RANK_OF[card.index] == _JACK:
            self._score(self.dealer, HIS_HEELS_POINTS, _HIS_HEELS, (card,))

    # --- the play ------------------------------------------------------------------------------

    def _play(self, seat: int, card: Card, at: int) -> None:
        """``seat`` plays ``card``, which is ``hands[seat][at]``."""
        del self.hands[seat][at]
        plays = self._plays[seat]
        self._plays[seat] = plays[:at] + plays[at + 1 :]
        pile = self.pile
        pile.append(card)
        ranks = self._pile_ranks
        ranks.append(_RANK_OF[card.index])
        count = self.count + card.pips
        self.count = count
        self.played.append(_SEAT_CARD[seat][card.index])
        self.last_player = seat
        key = (count * 52 + card.index) * 4 + seat
        event = _CARD_PLAYED.get(key)
        if event is None:
            event = _CARD_PLAYED[key] = _new_card_played(seat, card, count)
        self._out.append(event)
        n = len(ranks)
        # A lone card cannot score (it counts at most 10). Most plays score nothing: fifteen,
        # thirty-one, a pair and a run of the last three are checked here before the full count.
        if n > 1 and (
            count == 15  # noqa: PLR1714
            or count == 31
            or ranks[-2] == ranks[-1]
            or (n > 2 and RUN_TAIL3[(ranks[-1] * 14 + ranks[-2]) * 14 + ranks[-3]])
        ):
            points = peg_points_ranks(ranks, count)
            if points:
                self._score(seat, points, _PLAY_REASON, tuple(pile))
        if count == 31:
            self._end_series()
            return
        # Usually the next seat simply plays on; `_next_turn` handles goes and empty hands.
        nxt = seat + 1
        if nxt == self._n:
            nxt = 0
        hand = self.hands[nxt]
        if hand and hand[0].pips <= 31 - count and not self.passed[nxt]:
            self.turn = nxt
        else:
            self._next_turn(seat)

    def _say_go(self, seat: int) -> None:
        passed = self.passed
        self.passed = (*passed[:seat], True, *passed[seat + 1 :])
        self._out.append(_GO_SAID[seat])

    def _next_turn(self, after: int) -> None:
        """Find the next seat that can come in; seats that cannot say go, with no cards skip."""
        n = self._n
        limit = 31 - self.count
        hands = self.hands
        passed = self.passed
        seat = after
        for _ in range(n):
            seat += 1
            if seat == n:
                seat = 0
            hand = hands[seat]
            if not hand or passed[seat]:
                continue
            if hand[0].pips <= limit:  # the hand is in rank order: its lowest card is first
                self.turn = seat
                return
            self._say_go(seat)
        self._end_series()

    def _end_series(self) -> None:
        last = self.last_player
        assert last is not None
        hands = self.hands
        cards_left = any(hands)
        if self.count != 31:
            if cards_left:
                self._score(last, GO_POINTS, _GO_REASON)
            else:
                self._score(last, LAST_CARD_POINTS, _LAST_CARD)
        if not cards_left or not self._second_series:
            self._begin_show()
            return
        n = self._n
        leader = next((last + i) % n for i in range(1, n + 1) if hands[(last + i) % n])
        self.pile, self._pile_ranks, self.count = [], [], 0
        self.passed = (False,) * n
        self.turn = leader
        self._out.append(_COUNT_RESET[leader])

    # --- the show ------------------------------------------------------------------------------

    def _begin_show(self) -> None:
        n = self._n
        self.phase = _SHOW
        self._show = [((self.dealer + i) % n, False) for i in range(1, n + 1)]
        self._show.append((self.dealer, True))
        self._run_show()

    def _show_cards(self, seat: int, crib: bool) -> tuple[Card, ...]:
        return tuple(self.crib) if crib else self.kept[seat]

    def _show_total(self, seat: int, crib: bool) -> int:
        return self._total(self._show_cards(seat, crib), crib)

    def _total(self, cards: tuple[Card, ...], crib: bool) -> int:
        starter = self.starter
        assert starter is not None
        if len(cards) == 4:
            a, b, c, d = cards
            total = hand_total4(a.index, b.index, c.index, d.index, starter.index, crib)
        else:
            total = hand_total([card.index for card in cards], starter.index, crib)
        if crib and not self._nobs_in_crib:
            jack = Card(Rank.JACK, starter.suit)
            if jack in cards:
                total -= 1
        return total

    def _run_show(self) -> None:
        """Count automatic hands in order until a manual count is due or the deal is done."""
        show = self._show
        manual = self.manual_count
        while show:
            seat, crib = show[0]
            if seat in manual:
                return
            cards = tuple(self.crib) if crib else self.kept[seat]
            total = self._total(cards, crib)
            self._count_hand(seat, crib, total, total, cards)
            del show[0]
        self._end_deal()

    def _count_hand(
        self, seat: int, crib: bool, total: int, claimed: int, cards: tuple[Card, ...] = ()
    ) -> None:
        cards = cards or self._show_cards(seat, crib)
        starter = self.starter
        assert starter is not None
        self.shown += ((seat, crib, cards),)
        self._out.append(
            _new_hand_counted(seat, cards, starter, crib, total, claimed, self._nobs_in_crib)
        )
        if claimed:
            self._score(seat, claimed, _CRIB if crib else _HAND, cards)

    def _claim(self, points: int) -> None:
        seat, crib = self._show[0]
        total = self._show_total(seat, crib)
        self._count_hand(seat, crib, total, points)
        if points < total and self.rules.muggins:
            self._muggins = ((seat + 1) % self._n, total - points)
            return
        self._show.pop(0)
        self._run_show()

    def _resolve_muggins(self, take: bool) -> None:
        assert self._muggins is not None
        opponent, missed = self._muggins
        self._muggins = None
        self._show.pop(0)
        if take:
            self._score(opponent, missed, _MUGGINS_REASON)
        self._run_show()

    @property
    def pending_muggins(self) -> int | None:
        """Points an opponent may take by muggins now, if that decision is pending."""
        return None if self._muggins is None else self._muggins[1]

    def _end_deal(self) -> None:
        self._out.append(_new_deal_done(tuple(self.scores)))
        self.dealer = self.pone
        self.phase = _DEAL

    # --- scoring and the end of a game ---------------------------------------------------------

    def _score(self, seat: int, points: int, reason: Reason, cards: tuple[Card, ...] = ()) -> None:
        side = self._sides[seat]
        target = self._target
        score = self.scores[side] + points
        if score > target:  # noqa: PLR1730 (no call: this runs for every point pegged)
            score = target
        self.scores[side] = score
        self._out.append(_new_scored(seat, side, points, reason, score, cards))
        if score == target:
            self._game_over(side)
            raise _GameEnded

    def _game_over(self, winner: int) -> None:
        rules = self.rules
        losers = [s for s in range(rules.sides) if s != winner]
        best_loser = max(self.scores[s] for s in losers)
        skunk = rules.skunk_level(best_loser)
        points = rules.game_points[skunk]
        match_points = list(self.match_points)
        match_points[winner] += points
        self.match_points = tuple(match_points)
        self._out.append(GameOver(winner, tuple(self.scores), skunk, points, self.match_points))
        if self.match_points[winner] >= rules.match_games // 2 + 1:
            self.winner = winner
            self._out.append(MatchOver(winner, self.match_points))
            self.phase = _GAME_OVER
            return
        # The loser (the lowest score, nearest the old dealer's left) deals the next game.
        n = self._n
        low = min(self.scores)
        seats = [(self.dealer + i) % n for i in range(1, n + 1)]
        self._next_dealer = next(s for s in seats if self.scores[self._sides[s]] == low)

    def _after_game(self) -> None:
        if self.phase is _GAME_OVER:
            return
        self.game_number += 1
        self._muggins = None
        self._start_game(self._next_dealer)

    # --- views -------------------------------------------------------------------------------

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may see now (no other seat's hidden cards, no stock order).

        A seat that is not in the game raises `IllegalActionError`.
        """
        if type(seat) is not int or not 0 <= seat < self._n:
            self._no_seat(seat)
        to_move = self._to_move
        phase = self.phase
        hands = self.hands
        to_count: tuple[Card, ...] = ()
        counting_crib = False
        pending_claim = None
        legal: tuple[Action, ...]
        if to_move != seat:
            legal = ()
        elif phase is _PLAY:
            legal = self._legal_plays(seat)
        elif phase is _DISCARD:
            legal = tuple(_discard_actions(hands[seat], self._discard_size))
        else:
            legal = tuple(self.legal_actions())
            if phase is _SHOW:
                if self._muggins is None:
                    counting_crib = crib = self._show[0][1]
                    to_count = self._show_cards(seat, crib)
                else:
                    pending_claim = self._muggins[1]
        # One is made for every decision: every field, in order. The pure engine fills a plain
        # slots object (`fast_constructor`); compiled, the class is called directly, which is
        # a C call (through a variable it would parse its 22 arguments; docs/speed.md).
        rules, dealer, starter, count = self.rules, self.dealer, self.starter, self.count
        hand, kept, discards = tuple(hands[seat]), self.kept[seat], self.discards[seat] or ()
        scores, pile, played = tuple(self.scores), tuple(self.pile), tuple(self.played)
        match_points, game_number = self.match_points, self.game_number
        passed, shown, sizes = self.passed, self.shown, tuple([len(h) for h in hands])
        if COMPILED:
            return Observation(
                rules, seat, phase, to_move, dealer, scores, match_points, game_number, hand, kept,
                discards, starter, pile, count, played, passed, sizes, shown, legal,
                pending_claim, to_count, counting_crib,
            )  # fmt: skip
        return _new_observation(
            rules, seat, phase, to_move, dealer, scores, match_points, game_number, hand, kept,
            discards, starter, pile, count, played, passed, sizes, shown, legal,
            pending_claim, to_count, counting_crib,
        )  # fmt: skip

    def events_for(self, seat: int, events: Sequence[Event] | None = None) -> list[Event]:
        """The events as ``seat`` may see them: other hands and discards hidden.

        A seat that is not in the game raises `IllegalActionError`.
        """
        if type(seat) is not int or not 0 <= seat < self._n:
            self._no_seat(seat)
        return [redact(e, seat) for e in (self.events if events is None else events)]

    def _no_seat(self, seat: object) -> None:
        raise IllegalActionError(f"no seat {_describe(seat)} in a {self._n}-player game")

    def clone(self) -> Game:
        """An independent copy (for search); the copy's RNG continues from the same state."""
        # A real (if throwaway) construction: a compiled `Game` cannot be made without __init__.
        other = type(self)(self.rules, seed=self.seed, first_dealer=0)
        for name in _GAME_SLOTS:
            setattr(other, name, getattr(self, name))
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        other.rng = rng
        other.scores = list(self.scores)
        other.log = list(self.log)
        other.events = list(self.events)
        other._out = other.events
        other.hands = [list(h) for h in self.hands]
        other._plays = list(self._plays)
        other.dealt = list(self.dealt)
        other.kept = list(self.kept)
        other.discards = list(self.discards)
        other.crib = list(self.crib)
        other.stock = list(self.stock)
        other.pile = list(self.pile)
        other._pile_ranks = list(self._pile_ranks)
        other.played = list(self.played)
        other._show = list(self._show)
        other._cut_deck = list(self._cut_deck)
        other._cuts = list(self._cuts)
        return other

    def __repr__(self) -> str:
        scores = "-".join(map(str, self.scores))
        return f"<Game {self.rules.name} seed={self.seed} {self.phase.value} scores {scores}>"


def redact(event: Event, seat: int) -> Event:
    """``event`` as ``seat`` may see it."""
    if isinstance(event, Dealt):
        hands = tuple(h if i == seat else None for i, h in enumerate(event.hands))
        return Dealt(event.dealer, hands, event.pack_to_crib)
    if isinstance(event, Discarded) and event.seat != seat:
        return Discarded(event.seat, None, event.count)
    return event
