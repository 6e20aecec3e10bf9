"""The crib engine and the crib tables against enumeration."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fifteentwo.analysis.crib import crib_show_means, crib_table, uniform_cards, weighted_pair
from fifteentwo.analysis.tables import crib_rank_table, multiset_index, multisets
from fifteentwo.analysis.throws import pair_counts, throw_weights
from fifteentwo.scoring import RANK_TABLE, rank_points


def naive_crib(throw: tuple[int, ...], unseen: list[int], weights: np.ndarray | None) -> float:
    """Mean crib show over every starter and every (weighted) set of other cards."""
    total = 0.0
    for s in unseen:
        rest = [c for c in unseen if c != s]
        acc = norm = 0.0
        for others in combinations(rest, 4 - len(throw)):
            w = 1.0
            if weights is not None:
                x, y = others
                w = float(weights[x // 4, y // 4, int(x % 4 == y % 4)])
            crib = [*throw, *others, s]
            ranks = sorted(c // 4 + 1 for c in crib)
            points = rank_points(ranks)
            if len({c % 4 for c in crib}) == 1:
                points += 5
            points += sum(1 for c in crib[:-1] if c // 4 == 10 and c % 4 == s % 4)
            acc += w * points
            norm += w
        total += acc / norm
    return total / len(unseen)


ENTRIES = {entry.label: entry for entry in crib_table()}


def test_table_shape() -> None:
    entries = crib_table()
    assert len(entries) == 13 + 78 * 2
    assert len(ENTRIES) == len(entries)
    assert all(e.low <= e.high and not (e.suited and e.low == e.high) for e in entries)


@pytest.mark.parametrize("label", ["5-5", "5-Js", "A-K", "J-Qs", "7-8"])
def test_table_matches_enumeration(label: str) -> None:
    entry = ENTRIES[label]
    throw = (entry.low * 4 - 4, entry.high * 4 - 4 + (0 if entry.suited else 1))
    unseen = [c for c in range(52) if c not in throw]
    assert entry.uniform == pytest.approx(naive_crib(throw, unseen, None), abs=1e-9)


@pytest.mark.parametrize("label", ["5-J", "T-K"])
def test_sensible_table_matches_weighted_enumeration(label: str) -> None:
    entry = ENTRIES[label]
    throw = (entry.low * 4 - 4, entry.high * 4 - 4 + 1)
    unseen = [c for c in range(52) if c not in throw]
    baulk = naive_crib(throw, unseen, throw_weights("six-card", "pone"))
    feed = naive_crib(throw, unseen, throw_weights("six-card", "dealer"))
    assert (entry.dealer, entry.pone) == pytest.approx((baulk, feed), abs=1e-9)


def test_table_agrees_with_published_tables_roughly() -> None:
    """Loose bounds from the classic tables (docs/analysis.md has the comparison)."""
    assert 8.3 < ENTRIES["5-5"].dealer < 8.9  # own crib, a sensible pone: ~8.5
    assert 6.5 < ENTRIES["5-J"].dealer < 7.2  # ~6.7-7.0
    assert 3.8 < ENTRIES["A-K"].pone < 4.4  # to the dealer's crib: ~4.0-4.3
    best = max(crib_table(), key=lambda e: e.uniform)
    assert best.label == "5-5"
    for entry in crib_table():
        assert entry.dealer < entry.uniform < entry.pone


def test_mean_over_all_throws_is_a_random_crib() -> None:
    # Averaged over every pair of cards, the uniform table is the mean crib of five random
    # cards: E[rank part] + flush + nobs, computed here from the rank table directly.
    counts = pair_counts()
    mean = (
        sum(e.uniform * counts[e.low - 1, e.high - 1, int(e.suited)] for e in crib_table()) / 1326
    )
    draw = uniform_cards(list(range(52)), 5)
    rank_part = sum(
        p * RANK_TABLE[int(m.astype(np.int64) @ (5 ** np.arange(13)))]
        for p, m in zip(draw.ranks, multisets(5), strict=True)
        if p > 0
    )
    flush = 4 * 5 * draw.flush[0]
    nobs = 4 * (4 / 52) * (12 / 51)  # a jack among the four, the starter one of its 12 mates
    assert mean == pytest.approx(rank_part + flush + nobs, abs=1e-12)


def test_equal_weights_are_the_uniform_model() -> None:
    unseen = [c for c in range(52) if c not in (3, 17, 40, 41, 22, 50)]
    throws = list(combinations((3, 17, 40, 41, 22, 50), 2))
    uniform = crib_show_means(throws, uniform_cards(unseen, 3))
    weighted = crib_show_means(throws, weighted_pair(unseen, np.ones((13, 13, 2))))
    np.testing.assert_allclose(weighted, uniform, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=2, max_size=8, unique=True), st.sampled_from([3, 4]))
def test_draws_are_distributions(held: list[int], count: int) -> None:
    unseen = [c for c in range(52) if c not in held]
    draws = [uniform_cards(unseen, count)]
    if count == 3:
        draws.append(weighted_pair(unseen, throw_weights("six-card", "dealer")))
    for draw in draws:
        assert draw.ranks.sum() == pytest.approx(1.0)
        assert (draw.ranks >= 0).all()
        assert draw.starter_suit.sum() == pytest.approx(1.0)
        assert 0 <= draw.flush.sum() <= 1
        assert draw.starter_jack == pytest.approx(sum(c // 4 == 10 for c in unseen) / len(unseen))


def test_rank_table_is_the_scoring_table() -> None:
    table = crib_rank_table(2)
    row = multiset_index(2, [[5, 11]])[0]
    for ranks in ([5, 5, 5], [1, 2, 3], [10, 12, 13]):
        col = multiset_index(3, [ranks])[0]
        assert table[row, col] == rank_points([5, 11, *ranks])
    # Five of a rank cannot happen: the table says 0 there.
    assert crib_rank_table(1)[multiset_index(1, [[5]])[0], multiset_index(4, [[5] * 4])[0]] == 0
    with pytest.raises(ValueError, match="multiset"):
        multiset_index(3, [[5, 5, 5, 5]])
