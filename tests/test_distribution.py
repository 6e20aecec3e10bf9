"""The exact show-score distribution, checked three ways, and ``cribbage stats``.

1. `score_distribution` scores all 12,994,800 (hand, starter) cases one by one with numpy.
2. `exact_by_rank_multisets` below counts the same cases combinatorially, from rank multisets
   and the number of suit assignments giving each flush/nobs outcome. It shares no code with
   fifteentwo: its fifteens, pairs and runs come from a brute-force subset count.
3. A random sample of cases is scored by the numpy path, by `rank_points` plus flush and nobs
   written out here, by the itemized `score_hand` and by the fast `hand_total4`.

The hand figures are the published ones (mean 4.7692, 1,009,008 hands of nothing, four 29s,
no 19, 25, 26 or 27); the test does not take them on trust, since methods 1 and 2 must each
reproduce them. The crib figures have no source to hand and rest on methods 1 and 2 agreeing.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import combinations, combinations_with_replacement, pairwise
from math import comb, prod

import numpy as np
import pytest

from fifteentwo.cards import Card
from fifteentwo.cli import main
from fifteentwo.distribution import (
    Distribution,
    all_hands,
    rank_points_table,
    score_distribution,
    show_totals,
)
from fifteentwo.scoring import hand_total4, hand_totals, rank_points, score_hand

# The published distribution of 4-card hand scores with the starter (counts of 0..29).
PUBLISHED_HAND_COUNTS = (
    1009008,
    99792,
    2813796,
    505008,
    2855676,
    697508,
    1800268,
    751324,
    1137236,
    361224,
    388740,
    51680,
    317340,
    19656,
    90100,
    9168,
    58248,
    11196,
    2708,
    0,
    8068,
    2496,
    444,
    356,
    3680,
    0,
    0,
    0,
    76,
    4,
)
CASES = comb(52, 4) * 48


@cache
def brute_rank_points(ranks: tuple[int, ...]) -> int:
    """Fifteens, pairs and the longest runs of a rank multiset, by checking every subset."""
    points = 0
    runs: dict[int, int] = {}
    for size in range(2, len(ranks) + 1):
        for group in combinations(ranks, size):
            if sum(min(r, 10) for r in group) == 15:
                points += 2
            if size == 2 and group[0] == group[1]:
                points += 2
            ordered = sorted(group)
            if size >= 3 and all(b == a + 1 for a, b in pairwise(ordered)):
                runs[size] = runs.get(size, 0) + size
    return points + (runs[max(runs)] if runs else 0)


def exact_by_rank_multisets(hand_size: int, crib: bool) -> list[int]:
    """Counts of each score 0..29 over all (hand, starter) cases, without enumerating suits
    case by case: for each hand rank multiset and starter rank, count the suit assignments."""
    counts = [0] * 30
    jack = 11
    for hand_ranks in combinations_with_replacement(range(1, 14), hand_size):
        held = Counter(hand_ranks)
        if max(held.values()) > 4:
            continue
        hand_suitings = prod(comb(4, n) for n in held.values())
        distinct = len(held) == hand_size
        for s in range(1, 14):
            free = 4 - held[s]  # starters of rank s not in the hand
            if not free:
                continue
            base = brute_rank_points(tuple(sorted((*hand_ranks, s))))
            cases = hand_suitings * free
            # Nobs, whatever the other suits: a jack in hand of the starter's suit. Only the
            # suits of the jacks and of the starter's rank in hand matter.
            nobs = 0
            if s != jack and held[jack]:
                others = prod(comb(4, n) for r, n in held.items() if r not in (jack, s))
                for jack_suits in combinations(range(4), held[jack]):
                    for taken in combinations(range(4), held[s]):
                        for t in range(4):
                            if t not in taken and t in jack_suits:
                                nobs += others
            # Flushes: all hand cards of one suit (needs distinct ranks); these few cases are
            # counted one by one with their own nobs.
            flush_cases = flush_nobs = 0
            if distinct:
                for suit in range(4):
                    for t in range(4):
                        if held[s] and t == suit:
                            continue  # that starter is the hand's own card
                        flush_cases += 1
                        extra = hand_size + 1 if t == suit else (0 if crib else hand_size)
                        nob = int(s != jack and held[jack] == 1 and t == suit)
                        flush_nobs += nob
                        counts[base + extra + nob] += 1
            plain, plain_nobs = cases - flush_cases, nobs - flush_nobs
            counts[base] += plain - plain_nobs
            counts[base + 1] += plain_nobs
    return counts


@pytest.fixture(scope="module")
def hand_dist() -> Distribution:
    return score_distribution()


@pytest.fixture(scope="module")
def crib_dist() -> Distribution:
    return score_distribution(crib=True)


def test_hand_distribution_is_the_published_one(hand_dist: Distribution) -> None:
    assert hand_dist.cases == CASES == 12_994_800
    assert hand_dist.counts == PUBLISHED_HAND_COUNTS
    assert round(hand_dist.mean, 4) == 4.7692
    assert hand_dist.counts[0] == 1_009_008
    assert hand_dist.counts[29] == 4
    assert hand_dist.impossible == (19, 25, 26, 27)
    assert hand_dist.max_score == 29


def test_hand_distribution_by_a_second_exact_method(hand_dist: Distribution) -> None:
    counts = exact_by_rank_multisets(4, crib=False)
    assert tuple(counts) == PUBLISHED_HAND_COUNTS == hand_dist.counts
    mean = Fraction(sum(s * n for s, n in enumerate(counts)), sum(counts))
    assert mean == hand_dist.mean_exact


def test_crib_distribution_by_a_second_exact_method(crib_dist: Distribution) -> None:
    counts = exact_by_rank_multisets(4, crib=True)
    assert tuple(counts) == crib_dist.counts
    assert crib_dist.cases == CASES
    # Only flush cases differ from the hand: 4-card flushes score 4 less in the crib.
    assert crib_dist.counts[0] == 1_022_208
    assert round(crib_dist.mean, 4) == 4.7348
    assert crib_dist.impossible == (19, 25, 26, 27)
    assert crib_dist.counts[29] == 4


@pytest.mark.parametrize("crib", [False, True])
def test_three_card_hands_by_a_second_exact_method(crib: bool) -> None:
    dist = score_distribution(hand_size=3, crib=crib)
    assert dist.cases == comb(52, 3) * 49
    assert list(dist.counts) == exact_by_rank_multisets(3, crib)
    assert dist.max_score == 20  # 5 5 5 with a 5: eight for fifteens, twelve for the pairs


def test_crib_differs_from_hand_only_by_lost_four_card_flushes(
    hand_dist: Distribution, crib_dist: Distribution
) -> None:
    # The only rule that differs: a 4-card flush whose starter is of another suit scores 4 in
    # hand and nothing in the crib. There are 4 * C(13, 4) = 2,860 one-suit hands, each with
    # 39 starters of other suits.
    lost = hand_dist.total_points - crib_dist.total_points
    assert lost == 4 * (4 * comb(13, 4)) * 39


def test_sample_agrees_with_rank_points_itemized_and_fast_paths() -> None:
    rng = random.Random(3)
    hands = all_hands()
    rows = rng.sample(range(len(hands)), 1500)
    for crib in (False, True):
        totals = show_totals(hands[rows], crib=crib)
        for row, hand_row in zip(rows, totals, strict=True):
            hand = [int(c) for c in hands[row]]
            assert hand_row.tolist() == hand_totals(hand, crib)
            for starter in rng.sample([s for s in range(52) if s not in hand], 3):
                expected = _rank_points_path(hand, starter, crib)
                assert hand_row[starter] == expected
                assert hand_total4(*hand, starter, crib) == expected
                cards = [Card.from_index(c) for c in hand]
                assert score_hand(cards, Card.from_index(starter), crib=crib).total == expected


def _rank_points_path(hand: list[int], starter: int, crib: bool) -> int:
    """`rank_points` for the suit-blind part, with flush and nobs by the rules text."""
    ranks = [c // 4 + 1 for c in (*hand, starter)]
    points = rank_points(ranks)
    assert points == brute_rank_points(tuple(sorted(ranks)))
    if len({c % 4 for c in hand}) == 1:
        if starter % 4 == hand[0] % 4:
            points += 5
        elif not crib:
            points += 4
    return points + sum(1 for c in hand if c // 4 + 1 == 11 and c % 4 == starter % 4)


def test_all_hands_are_every_combination_in_order() -> None:
    hands = all_hands()
    assert hands.shape == (270_725, 4)
    assert np.array_equal(hands, np.array(list(combinations(range(52), 4))))
    assert all_hands(3).shape == (22_100, 3)
    assert not hands.flags.writeable


def test_rank_points_table_rows() -> None:
    table = rank_points_table(4)
    # 5 5 5 J (0-based ranks 4 4 4 10) with each starter rank: the 5 makes 28.
    row = table[((4 * 13 + 4) * 13 + 4) * 13 + 10]
    assert row[4] == 28
    assert row.tolist() == [rank_points([5, 5, 5, 11, r]) for r in range(1, 14)]


def test_show_totals_rejects_bad_shapes() -> None:
    with pytest.raises(ValueError, match="rows of 3 or 4"):
        show_totals([[1, 2]])
    with pytest.raises(ValueError, match=r"0\.\.51"):
        show_totals([[1, 2, 3, 52]])
    with pytest.raises(ValueError):
        score_distribution(hand_size=5)
    assert show_totals(np.zeros((0, 4), dtype=np.int8)).shape == (0, 52)


def test_distribution_json(hand_dist: Distribution) -> None:
    data = hand_dist.to_json()
    assert data["cases"] == 12_994_800
    assert data["counts"] == {str(s): n for s, n in enumerate(PUBLISHED_HAND_COUNTS)}
    assert data["impossible"] == [19, 25, 26, 27]
    assert data["zero_share"] == pytest.approx(1_009_008 / 12_994_800)
    assert json.loads(json.dumps(data)) == data


# --- cribbage stats ----------------------------------------------------------------------------


def test_cli_stats_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cases"] == 12_994_800
    assert round(data["mean"], 4) == 4.7692
    assert [data["counts"][str(s)] for s in range(30)] == list(PUBLISHED_HAND_COUNTS)
    assert data["crib"] is False


def test_cli_stats_crib_json(capsys: pytest.CaptureFixture[str], crib_dist: Distribution) -> None:
    assert main(["stats", "--crib", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["crib"] is True
    assert [data["counts"][str(s)] for s in range(30)] == list(crib_dist.counts)


def test_cli_stats_chart(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats"]) == 0
    out = capsys.readouterr().out
    assert "12,994,800" in out and "1,009,008" in out
    assert "mean 4.7692" in out
    assert "impossible scores: 19, 25, 26, 27" in out
    assert out.count("impossible") == 5  # four rows and the summary line
    assert "█" in out
