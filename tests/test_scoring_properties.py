"""Hypothesis properties of the scorers, and the fast paths against an independent reference.

The reference here (`naive_show`, `naive_peg`) is written from the rules text alone: every
subset of the five cards for the show, every tail of the pile for the play. It shares no code
with `fifteentwo.scoring`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, pairwise, permutations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fifteentwo.cards import Card
from fifteentwo.scoring import (
    PegScore,
    hand_total,
    hand_total4,
    hand_totals,
    number_word,
    peg_points_ranks,
    peg_score,
    rank_points,
    score_hand,
)


def naive_show(hand: Sequence[int], starter: int, crib: bool = False) -> int:
    """Show total by the definition, over card indices (rank = index // 4 + 1, suit = % 4)."""
    cards = [*hand, starter]
    ranks = [c // 4 + 1 for c in cards]
    points = 0
    longest_runs: dict[int, int] = {}
    for size in range(2, len(cards) + 1):
        for group in combinations(range(len(cards)), size):
            group_ranks = sorted(ranks[i] for i in group)
            if sum(min(r, 10) for r in group_ranks) == 15:
                points += 2
            if size == 2 and group_ranks[0] == group_ranks[1]:
                points += 2
            if size >= 3 and all(b == a + 1 for a, b in pairwise(group_ranks)):
                longest_runs[size] = longest_runs.get(size, 0) + size
    if longest_runs:
        points += longest_runs[max(longest_runs)]
    suits = {c % 4 for c in hand}
    if len(suits) == 1:
        if starter % 4 in suits:
            points += len(hand) + 1
        elif not crib:
            points += len(hand)
    points += sum(1 for c in hand if c // 4 + 1 == 11 and c % 4 == starter % 4)
    return points


def naive_peg(ranks: Sequence[int]) -> int:
    """Pegging by the definition: count, trailing equal ranks, and the longest run tail."""
    count = sum(min(r, 10) for r in ranks)
    points = 2 if count in (15, 31) else 0
    same = 1
    while same < len(ranks) and ranks[-same - 1] == ranks[-1]:
        same += 1
    points += {1: 0, 2: 2, 3: 6, 4: 12}[same]
    for length in range(len(ranks), 2, -1):
        tail = ranks[-length:]
        if len(set(tail)) == length and max(tail) - min(tail) == length - 1:
            return points + length
    return points


def cards_strategy(size: int) -> st.SearchStrategy[list[int]]:
    """``size`` distinct card indices."""
    return st.lists(st.integers(0, 51), min_size=size, max_size=size, unique=True)


show_cases = st.one_of(cards_strategy(4), cards_strategy(5))
"""A hand of 3 or 4 cards followed by its starter."""


def _pile(deck: list[int], length: int) -> list[int]:
    """The first ``length`` cards of a shuffled deck, stopping before the count passes 31."""
    pile: list[int] = []
    count = 0
    for card in deck[:length]:
        count += min(card // 4 + 1, 10)
        if count > 31:
            break
        pile.append(card)
    return pile


legal_piles = st.builds(_pile, st.permutations(range(52)), st.integers(1, 13))
"""Card indices of a pile in the play: distinct cards, counting at most 31."""


# Piles rich in runs and pairs: low ranks only, in any order.
low_piles = st.lists(st.integers(0, 27), min_size=1, max_size=10, unique=True).filter(
    lambda cards: sum(c // 4 + 1 for c in cards) <= 31
)


@settings(max_examples=300)
@given(show_cases, st.booleans())
def test_fast_totals_equal_itemized_and_naive(cards: list[int], crib: bool) -> None:
    *hand, starter = cards
    expected = naive_show(hand, starter, crib)
    result = score_hand([Card.from_index(c) for c in hand], Card.from_index(starter), crib=crib)
    assert result.total == expected
    assert hand_total(hand, starter, crib) == expected
    assert hand_totals(hand, crib)[starter] == expected
    if len(hand) == 4:
        assert hand_total4(*hand, starter, crib) == expected


@settings(max_examples=200)
@given(show_cases, st.booleans())
def test_hand_order_never_changes_the_score(cards: list[int], crib: bool) -> None:
    *hand, starter = (Card.from_index(c) for c in cards)
    first = score_hand(hand, starter, crib=crib)
    for order in list(permutations(hand))[:: 5 if len(hand) == 4 else 1]:
        again = score_hand(order, starter, crib=crib)
        assert again.total == first.total
        assert sorted((i.kind, sorted(i.cards), i.points) for i in again.items) == sorted(
            (i.kind, sorted(i.cards), i.points) for i in first.items
        )


@settings(max_examples=300)
@given(show_cases, st.booleans())
def test_items_are_valid_and_sum_to_the_total(cards: list[int], crib: bool) -> None:
    *hand, starter = (Card.from_index(c) for c in cards)
    result = score_hand(hand, starter, crib=crib)
    assert sum(item.points for item in result.items) == result.total
    assert sum(result.points_by_kind().values()) == result.total
    five = {*hand, starter}
    for item in result.items:
        assert set(item.cards) <= five and len(set(item.cards)) == len(item.cards)
        ranks = sorted(c.rank for c in item.cards)
        if item.kind == "fifteen":
            assert sum(c.pips for c in item.cards) == 15 and item.points == 2
        elif item.kind in ("pair", "pair royal", "double pair royal"):
            assert len(set(ranks)) == 1
            assert item.points == {2: 2, 3: 6, 4: 12}[len(ranks)]
        elif item.kind == "run":
            assert ranks == list(range(ranks[0], ranks[0] + len(ranks))) and len(ranks) >= 3
            assert item.points == len(ranks)
        elif item.kind == "flush":
            assert len({c.suit for c in item.cards}) == 1 and item.points == len(item.cards)
            assert set(hand) <= set(item.cards)
        else:
            assert item.kind == "nobs" and item.points == 1
            assert item.cards[0].rank == 11 and item.cards[0].suit == starter.suit
    spoken = result.say()
    if result.total:
        assert spoken.endswith(number_word(result.total))
    else:
        assert spoken == "nineteen (no score)"


@settings(max_examples=200)
@given(show_cases, st.booleans(), st.permutations(range(4)))
def test_suit_relabelling_changes_nothing(
    cards: list[int], crib: bool, suit_map: list[int]
) -> None:
    relabelled = [c - c % 4 + suit_map[c % 4] for c in cards]
    *hand, starter = cards
    *hand2, starter2 = relabelled
    assert hand_total(hand2, starter2, crib) == hand_total(hand, starter, crib)
    as_cards = [Card.from_index(c) for c in relabelled]
    assert score_hand(as_cards[:-1], as_cards[-1], crib=crib).total == naive_show(
        hand, starter, crib
    )


@settings(max_examples=300)
@given(st.lists(st.integers(1, 13), min_size=4, max_size=5))
def test_rank_points_is_the_suit_blind_part(ranks: list[int]) -> None:
    assume(max(ranks.count(r) for r in ranks) <= 4)
    # Any suits will do (the k-th card of a rank gets suit k); the flush and nobs that the
    # naive total may then hold are taken off again.
    cards = []
    used: dict[int, int] = {}
    for r in ranks:
        used[r] = used.get(r, -1) + 1
        cards.append((r - 1) * 4 + used[r])
    *hand, starter = cards
    expected = naive_show(hand, starter)
    expected -= sum(1 for c in hand if c // 4 == 10 and c % 4 == starter % 4)
    if len({c % 4 for c in hand}) == 1:
        expected -= len(hand) + (1 if starter % 4 == hand[0] % 4 else 0)
    assert rank_points(ranks) == expected


@settings(max_examples=400)
@given(st.one_of(legal_piles, low_piles))
def test_peg_points_ranks_equals_peg_score_and_naive(cards: list[int]) -> None:
    ranks = [c // 4 + 1 for c in cards]
    result: PegScore = peg_score([Card.from_index(c) for c in cards])
    assert result.total == naive_peg(ranks)
    assert peg_points_ranks(ranks) == result.total
    assert peg_points_ranks(tuple(ranks), result.count) == result.total
    assert sum(item.points for item in result.items) == result.total


@settings(max_examples=200)
@given(low_piles, st.permutations(range(4)))
def test_peg_suits_do_not_matter(cards: list[int], suit_map: list[int]) -> None:
    relabelled = [c - c % 4 + suit_map[c % 4] for c in cards]
    assert (
        peg_score([Card.from_index(c) for c in relabelled]).total
        == peg_score([Card.from_index(c) for c in cards]).total
    )


def test_every_short_pile_against_naive() -> None:
    # Exhaustive over every rank sequence of length 1..4 (28,561 of length 4), any count.
    for length in range(1, 5):
        for ranks in _sequences(length):
            if max(ranks.count(r) for r in ranks) <= 4:
                assert peg_points_ranks(ranks) == naive_peg(ranks), ranks


def _sequences(length: int) -> list[list[int]]:
    seqs: list[list[int]] = [[]]
    for _ in range(length):
        seqs = [[*s, r] for s in seqs for r in range(1, 14)]
    return seqs


@settings(max_examples=300)
@given(show_cases, st.booleans())
def test_the_count_step_by_step_says_what_say_says(cards: list[int], crib: bool) -> None:
    """`HandScore.steps` (the show lit phrase by phrase) is `say` cut at its commas, names
    only the hand's and the starter's cards, lights every scoring card, and ends on the total."""
    *hand, starter = (Card.from_index(c) for c in cards)
    result = score_hand(hand, starter, crib=crib)
    steps = result.steps()
    if result.total == 0:
        assert steps == [] and result.say() == "nineteen (no score)"
        return
    assert ", ".join(phrase for phrase, _ in steps) == result.say()
    assert steps[-1][0].endswith(f" {number_word(result.total)}")
    five = {*hand, starter}
    lit = {card for _, named in steps for card in named}
    assert all(named and set(named) <= five for _, named in steps)
    assert lit == {card for item in result.items for card in item.cards}
