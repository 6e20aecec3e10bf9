"""The shipped throw frequencies (sensible opponent model) against fresh builds."""

from __future__ import annotations

import random
from math import comb, prod

import numpy as np
import pytest

from fifteentwo.analysis import analyze_discard
from fifteentwo.analysis.throws import (
    GAMES,
    TIE_UNIT,
    build_pattern_tallies,
    pair_counts,
    patterns,
    stored_tallies,
    suit_assignments,
    throw_weights,
)
from fifteentwo.cards import Card


def deals_of(pattern: tuple[int, ...]) -> int:
    return comb(13, len(pattern)) * prod(comb(4, part) for part in pattern)


@pytest.mark.parametrize("game", list(GAMES))
def test_stored_tallies_count_every_deal_once(game: str) -> None:
    size = GAMES[game]
    tallies = stored_tallies(game)
    assert tallies.shape == (len(patterns(size)), 2, 13, 13, 2)
    assert sum(deals_of(p) for p in patterns(size)) == comb(52, size)
    for pattern, counts in zip(patterns(size), tallies, strict=True):
        for role in (0, 1):
            assert counts[role].sum() == deals_of(pattern) * TIE_UNIT
    assert (tallies[..., 1][:, :, np.arange(13), np.arange(13)] == 0).all()  # no suited pairs


@pytest.mark.parametrize("game", list(GAMES))
def test_stored_tallies_equal_a_fresh_build_of_the_small_patterns(game: str) -> None:
    size = GAMES[game]
    checked = 0
    for pattern, stored in zip(patterns(size), stored_tallies(game), strict=True):
        if deals_of(pattern) <= 60_000:
            assert np.array_equal(build_pattern_tallies(size, pattern), stored), pattern
            checked += 1
    assert checked >= 8


def slow_tallies(size: int, pattern: tuple[int, ...], rank_sets, suit_rows) -> np.ndarray:
    """The same counts from `analyze_discard`, deal by deal."""
    tallies = np.zeros((2, 13, 13, 2))
    positions = [i for i, part in enumerate(pattern) for _ in range(part)]
    for ranks in rank_sets:
        for suits in suit_assignments(pattern)[suit_rows]:
            cards = [
                Card.from_index(ranks[p] * 4 + int(s))
                for p, s in zip(positions, suits, strict=True)
            ]
            for role, dealer in enumerate((True, False)):
                analysis = analyze_discard(cards, dealer=dealer)
                tied = [o for o in analysis if o.total > analysis.best.total - 1e-9]
                for option in tied:
                    x, y = sorted(c.index for c in option.throw)
                    tallies[role, x // 4, y // 4, int(x % 4 == y % 4)] += TIE_UNIT / len(tied)
    return tallies


@pytest.mark.parametrize("game", list(GAMES))
def test_builder_decides_like_analyze_discard(game: str) -> None:
    size = GAMES[game]
    rng = random.Random(size)
    for pattern in [*rng.sample(patterns(size), 6), (1,) * size]:
        suits = suit_assignments(pattern)
        # Rows with four or more cards of one suit first (flushes), then random ones.
        flushy = [i for i, row in enumerate(suits) if np.bincount(row).max() >= 4]
        rows = sorted({*flushy[:3], *rng.sample(range(len(suits)), min(3, len(suits)))})
        ranks = sorted([*rng.sample([r for r in range(13) if r != 10], len(pattern) - 1), 10])
        rank_sets = [ranks, sorted(rng.sample(range(13), len(pattern)))]
        fast = build_pattern_tallies(size, pattern, rank_sets=rank_sets, suit_rows=rows)
        assert np.array_equal(fast, slow_tallies(size, pattern, rank_sets, rows)), pattern


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("role", ["dealer", "pone"])
def test_weights_are_per_pair_probabilities(game: str, role: str) -> None:
    weights = throw_weights(game, role)
    assert np.array_equal(weights, weights.transpose(1, 0, 2))
    upper = np.triu(np.ones((13, 13)))[:, :, None]
    assert (weights * pair_counts() * upper).sum() == pytest.approx(1.0)


def test_what_sensible_players_throw_most() -> None:
    def top(role: str) -> tuple[int, int, int]:
        share = throw_weights("six-card", role) * pair_counts()
        low, high, suited = np.unravel_index(int(share.argmax()), share.shape)
        return int(low) + 1, int(high) + 1, int(suited)

    assert top("dealer") == (7, 8, 0)  # seven-eight to his own crib
    assert top("pone") == (10, 13, 0)  # ten-king, the classic baulk
