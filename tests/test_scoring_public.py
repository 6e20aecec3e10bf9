"""The public calls' fast totals against their own items (issue 16).

`score_hand` fills its total from the table path and lists the items only when asked, and
`peg_points` counts from `peg_points_ranks`: these tests pin that the quick number and the
itemized one never part, exhaustively over every rank multiset and over every suit pattern that
can matter, and that the lazy result behaves as the frozen value it replaced.
"""

from __future__ import annotations

import pickle
import random
from itertools import combinations_with_replacement, product

import pytest

from fifteentwo.cards import Card
from fifteentwo.errors import CardError
from fifteentwo.scoring import HandScore, peg_points, peg_score, score_hand


def _cards_for(ranks: tuple[int, ...]) -> list[Card]:
    """Distinct cards with these ranks: the k-th card of a rank in suit k."""
    seen: dict[int, int] = {}
    cards = []
    for r in ranks:
        seen[r] = seen.get(r, -1) + 1
        cards.append(Card.from_index((r - 1) * 4 + seen[r]))
    return cards


def _check(hand: list[Card], starter: Card) -> None:
    for crib in (False, True):
        result = score_hand(hand, starter, crib=crib)
        assert result.total == sum(item.points for item in result.items), (hand, starter, crib)


@pytest.mark.parametrize("size", [3, 4])
def test_total_is_the_sum_of_the_items_for_every_rank_multiset(size: int) -> None:
    """Every multiset of size + 1 ranks, each of its cards in turn as the starter."""
    cases = 0
    for ranks in combinations_with_replacement(range(1, 14), size + 1):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        cards = _cards_for(ranks)
        for i in range(size + 1):
            if i and cards[i].rank == cards[i - 1].rank:
                continue  # the same rank as starter again: the same suit-blind case
            _check(cards[:i] + cards[i + 1 :], cards[i])
            cases += 1
    assert cases > (3000 if size == 4 else 900)


def test_total_is_the_sum_of_the_items_for_every_suit_pattern() -> None:
    """Flushes and nobs: all 4**5 suit patterns on ranks holding a jack, every starter."""
    for ranks in ((11, 5, 10, 4, 13), (1, 2, 3, 11, 12), (11, 7, 8, 9, 6)):
        for suits in product(range(4), repeat=5):
            cards = [Card.from_index((r - 1) * 4 + s) for r, s in zip(ranks, suits, strict=True)]
            for i in range(5):
                _check(cards[:i] + cards[i + 1 :], cards[i])
                _check(cards[:i] + cards[i + 1 : 4 if i < 4 else 3], cards[i])


def test_random_deals_agree_with_an_eager_score() -> None:
    """The lazy value equals (and hashes as) one built with its items listed up front."""
    rng = random.Random(16)
    for _ in range(3000):
        picked = [Card.from_index(i) for i in rng.sample(range(52), 5)]
        hand, starter = picked[:4], picked[4]
        crib = rng.random() < 0.5
        lazy = score_hand(hand, starter, crib=crib)
        eager_items = score_hand(hand, starter, crib=crib).items
        eager = HandScore(tuple(hand), starter, crib, eager_items)
        assert lazy == eager
        assert hash(lazy) == hash(eager)
        assert lazy.total == eager.total
        texts = score_hand(" ".join(c.short for c in hand), starter.short, crib=crib)
        assert texts == lazy and texts.say() == lazy.say()


def test_lazy_score_is_a_frozen_value() -> None:
    result = score_hand("5h 5c 5s jd", "5d")
    assert result.total == 29
    assert repr(result).startswith("HandScore(hand=(Card.parse('5H'),")
    assert "items=(ScoreItem(kind='fifteen'" in repr(result)
    assert pickle.loads(pickle.dumps(result)) == result
    with pytest.raises(AttributeError):
        result.total = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.hand = ()  # type: ignore[misc]
    assert result != score_hand("5h 5c 5s jd", "5d", crib=True) or result.total == 29
    assert result.__eq__("29") is NotImplemented


def test_given_items_set_the_total() -> None:
    """The engine drops nobs from a crib under a house rule by passing the items it keeps."""
    full = score_hand("5h 5c 5s jd", "5d", crib=True)
    kept = tuple(i for i in full.items if i.kind != "nobs")
    trimmed = HandScore(full.hand, full.starter, True, kept)
    assert trimmed.total == 28 and trimmed.items == kept and trimmed != full


@pytest.mark.parametrize(
    ("hand", "starter", "message"),
    [
        ("5h 5h 5s jd", "5d", "duplicate card: 5H"),
        ("5h 5c", "zz", "a hand to show has 3 or 4 cards, got 2"),
        ("5h 5c 5s jd", "zz", "not a card"),
        ("5h 5c 5s jd", "5h", "duplicate card: 5H is the starter and in the hand"),
        ("5h 5c 5s jd 2c", "5d", "a hand to show has 3 or 4 cards, got 5"),
    ],
)
def test_bad_input_raises_as_before_cached_or_not(hand: str, starter: str, message: str) -> None:
    score_hand("5h 5c 5s jd", "5d")  # some strings already remembered
    for _ in range(2):
        with pytest.raises(CardError, match=message):
            score_hand(hand, starter)
    cards = [Card.parse(t) for t in hand.split()]
    if len(set(cards)) == len(cards):
        with pytest.raises(CardError, match=message):
            score_hand(cards, Card.parse(starter) if starter != "zz" else starter)


def test_three_card_hands() -> None:
    result = score_hand("5h 5c jd", "5d")
    # Four fifteens (each five with the jack, and the three fives), a pair royal, nobs.
    assert result.total == 8 + 6 + 1 == sum(i.points for i in result.items)
    assert score_hand(["5h", Card.parse("5c"), "jd"], "5d") == result


def test_peg_points_is_peg_score_total_on_random_plays() -> None:
    rng = random.Random(31)
    deck = list(range(52))
    piles = 0
    while piles < 20000:
        rng.shuffle(deck)
        pile: list[Card] = []
        count = 0
        for index in deck:
            card = Card.from_index(index)
            if count + card.pips > 31:
                break
            pile.append(card)
            count += card.pips
            assert peg_points(pile) == peg_score(pile).total, pile
            piles += 1
        text = " ".join(c.short for c in pile)
        assert peg_points(text) == peg_score(pile).total


@pytest.mark.parametrize(
    ("pile", "message"),
    [("", "empty"), ("5h 5h", "duplicate card: 5H"), ("kh kd ks 5c", "over 31"), ("zz", "not")],
)
def test_peg_points_bad_input(pile: str, message: str) -> None:
    for _ in range(2):
        with pytest.raises(CardError, match=message):
            peg_points(pile)
