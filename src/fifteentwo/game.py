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

This module is the public face; the steps of each phase are in `fifteentwo.engine` (`state`:
the attributes and scoring; `show`; `play`; `deal`: chance, the deal, the discard, the starter).

>>> g = Game(find_rules("standard"), seed=7)
>>> _ = g.advance()
>>> g.phase, len(g.legal_actions())
(<Phase.DISCARD: 'discard'>, 15)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from itertools import combinations
from operator import attrgetter
from typing import Final, cast

from fifteentwo.actions import (
    CHANCE,
    Action,
    ChanceAction,
    Count,
    Cut,
    DealHands,
    Dealt,
    Discard,
    Discarded,
    DrawForDeal,
    Event,
    Go,
    Muggins,
    Phase,
    Play,
    TurnStarter,
    fast_constructor,
)
from fifteentwo.cards import DECK, Card
from fifteentwo.engine.deal import DealSteps, randbelow, sample_deck, shuffle
from fifteentwo.engine.state import _GAME_SLOTS, _describe, _find, _GameEnded, _without
from fifteentwo.errors import IllegalActionError
from fifteentwo.observation import Observation
from fifteentwo.rules import STANDARD, Rules, find_rules

__all__ = [
    "COMPILED",
    "Game",
    "Observation",
    "find_rules",
    "randbelow",
    "redact",
    "sample_deck",
    "shuffle",
]

COMPILED: Final = not __file__.endswith(".py")
"""Whether this module was compiled by mypyc (``make compiled``; docs/speed.md)."""

_MAX_CLAIM = 29

# Phases, reasons and the jack as this module's own constants: reading an enum member off its
# class costs ten times a global load, and a compiled module keeps its Final ones in C
# variables (an imported name would be a dictionary look-up).
_CUT_FOR_DEAL: Final = Phase.CUT_FOR_DEAL
_DEAL: Final = Phase.DEAL
_DISCARD: Final = Phase.DISCARD
_STARTER: Final = Phase.STARTER
_PLAY: Final = Phase.PLAY
_SHOW: Final = Phase.SHOW
_GAME_OVER: Final = Phase.GAME_OVER

# Actions are immutable values, so the engine shares one object per value where there are few:
# legal-move lists then allocate nothing new.
_COUNTS: Final = tuple(Count(n) for n in range(_MAX_CLAIM + 1))
_MUGGINS: Final = (Muggins(True), Muggins(False))
_CUTS: Final = tuple(Cut(d) for d in range(53))
_DISCARDS: Final[dict[tuple[int, ...], Discard]] = {
    key: Discard(tuple(DECK[i] for i in key)) for k in (1, 2) for key in combinations(range(52), k)
}
"""`Discard` of every set of one or two card indices (every preset's discard)."""
_PAIRS: Final[tuple[tuple[Discard, ...], ...]] = tuple(
    tuple(_DISCARDS.get((a, b)) for b in range(52))  # type: ignore[misc]
    for a in range(52)
)
"""``_PAIRS[a][b]`` is the `Discard` of cards a < b (None otherwise), for discarding by index."""
_new_observation = fast_constructor(Observation)  # (compiled, `Game.observation` calls the class)

_INDEX: Final = attrgetter("index")
_CHANCE_TYPES: Final = (DealHands, TurnStarter, DrawForDeal)  # (a tuple tests faster than a union)


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


class Game(DealSteps):
    """A game (or a best-of-N match) of cribbage under some `Rules`.

    ``manual_count`` names seats that claim their own show totals (muggins applies to them);
    other seats are counted automatically. ``cut_seats`` names seats that choose how deep to cut
    (for the deal and the starter); other cuts are drawn from the RNG. ``first_dealer`` skips the
    cut for deal.

    The state and the steps of each phase are in `fifteentwo.engine` (state, show, play, deal),
    built one on another; this class adds what callers use.
    """

    __slots__ = ()

    def __init__(
        self,
        rules: Rules = STANDARD,
        *,
        seed: int,
        manual_count: Iterable[int] = (),
        cut_seats: Iterable[int] = (),
        first_dealer: int | None = None,
    ) -> None:
        super().__init__(rules, seed, manual_count, cut_seats)
        if first_dealer is not None:
            n = self._n
            if type(first_dealer) is not int or not 0 <= first_dealer < n:
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

    def _discarding_seat(self) -> int:
        n = self._n
        discards = self.discards
        for i in range(1, n + 1):
            seat = (self.dealer + i) % n
            if discards[seat] is None:
                return seat
        raise AssertionError("no seat left to discard")  # pragma: no cover

    # --- legal actions ---------------------------------------------------------------------------

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

    # (`check_legal`, `is_legal` and `apply` take any object, so that the compiled engine too
    # refuses a non-action with `IllegalActionError` rather than a `TypeError` at the call.)

    def check_legal(self, action: Action | object) -> None:
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
            if not 0 <= action.points <= _MAX_CLAIM:
                raise IllegalActionError(f"a claim is 0 to {_MAX_CLAIM}, not {action.points}")
            return  # a claim is final: one above the total is corrected (`ShowSteps._claim`)
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

    def is_legal(self, action: Action | object) -> bool:
        """Whether `check_legal` would accept ``action``."""
        try:
            self.check_legal(action)
        except IllegalActionError:
            return False
        return True

    # --- applying actions ------------------------------------------------------------------------

    def apply(self, action: Action | ChanceAction | object) -> list[Event]:
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
                checked = cast(Action, action)  # (an action: `check_legal` passed it)
                self.log.append((actor, checked))
                self._apply_action(checked, actor)
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

    # --- views -----------------------------------------------------------------------------------

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
