"""Chance and the deal: the cut for deal, the shuffle and the deal, the discard, the starter.

The engine's only randomness is the `random.Random` a game was seeded with, drawn here for the
chance steps (`sample_chance`); a replay applies recorded outcomes instead, checked here
(`_check_chance`). `DealSteps` adds these steps to the play and the show; `fifteentwo.game.Game`
is built on it.
"""

from __future__ import annotations

import random
from itertools import chain
from operator import attrgetter
from typing import Final

from fifteentwo.actions import (
    CHANCE,
    PLAY_ACTIONS,
    ChanceAction,
    DealerChosen,
    DealHands,
    Dealt,
    Discarded,
    DrawForDeal,
    Phase,
    Reason,
    StarterTurned,
    TurnStarter,
    fast_constructor,
)
from fifteentwo.cards import DECK, Card, Rank
from fifteentwo.engine.play import PlaySteps
from fifteentwo.engine.state import _describe, _find, _GameEnded, _take
from fifteentwo.errors import IllegalActionError
from fifteentwo.scoring import HIS_HEELS_POINTS

__all__ = ["DealSteps", "randbelow", "sample_deck", "shuffle"]

# Phases, reasons and the jack as this module's own constants: reading an enum member off its
# class costs ten times a global load, and a compiled module keeps its Final ones in C
# variables (an imported name would be a dictionary look-up).
_CUT_FOR_DEAL: Final = Phase.CUT_FOR_DEAL
_DEAL: Final = Phase.DEAL
_DISCARD: Final = Phase.DISCARD
_STARTER: Final = Phase.STARTER
_PLAY: Final = Phase.PLAY
_GAME_OVER: Final = Phase.GAME_OVER
_HIS_HEELS: Final = Reason.HIS_HEELS
_THREE_FOR_LAST: Final = Reason.THREE_FOR_LAST
_JACK: Final = int(Rank.JACK)

_RANK_OF: Final = tuple(i // 4 + 1 for i in range(52))
_INDEX: Final = attrgetter("index")
_CARD_TYPE: Final = {Card}
_new_discarded = fast_constructor(Discarded)
_new_dealt = fast_constructor(Dealt)
_new_deal_hands = fast_constructor(DealHands)
_new_turn_starter = fast_constructor(TurnStarter)
_new_starter_turned = fast_constructor(StarterTurned)


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


class DealSteps(PlaySteps):
    """The chance steps and the deal's."""

    __slots__ = ()

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

    def _start_game(self, dealer: int) -> None:
        self.dealer = dealer
        self.scores = [0] * self.rules.sides
        self.phase = _DEAL
        if self.rules.three_for_last:
            try:
                self._score(self.pone, self.rules.three_for_last, _THREE_FOR_LAST)
            except _GameEnded:  # pragma: no cover - a target of 3 is rejected by Rules
                raise AssertionError("three for last cannot win") from None

    def _after_game(self) -> None:
        if self.phase is _GAME_OVER:
            return
        self.game_number += 1
        self._muggins = None
        self._start_game(self._next_dealer)

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
