"""Exact expected crib points, by decomposing the crib's score instead of enumerating cribs.

A crib is our thrown cards plus the other crib cards (the opponent's throw, or in three- and
four-player games the other players' cards and the pack card) plus the starter. Its show score
is three independent parts, and each has an exact expectation that needs no enumeration:

* fifteens, pairs and runs depend only on the five ranks: the rank multiset of the *random*
  cards (other crib cards and starter together) has a distribution `q`, and the expectation is
  one row of `tables.crib_rank_table` dotted with `q`;
* a flush needs all five cards in one suit: our thrown cards decide the suit, and the chance
  that every random card has it is a ratio of binomials;
* nobs is a jack among the four crib cards of the starter's suit: for a thrown jack it is the
  chance the starter has its suit; for the other cards' jacks it does not depend on our throw.

Two models give the other cards: ``uniform`` (every set of unseen cards equally likely) and a
weighted one for two-player games, where the opponent's pair of cards is weighted by how often a
sensible player throws such a pair (see `fifteentwo.analysis.throws`). Both are exact sums over
the unseen cards; the tests check them against brute-force enumeration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from math import comb

import numpy as np
import numpy.typing as npt

from fifteentwo.analysis.tables import (
    crib_rank_table,
    multiset_index,
    multiset_weights,
    multisets,
    triple_index,
)

__all__ = [
    "CribTableEntry",
    "RandomCards",
    "crib_show_means",
    "crib_table",
    "uniform_cards",
    "weighted_pair",
]

FloatArray = npt.NDArray[np.float64]

JACK_INDICES = range(40, 44)


@dataclass(frozen=True, slots=True)
class RandomCards:
    """The distribution of the crib cards we do not choose (other throws and the starter),
    reduced to what the crib's expectation needs. All fields are probabilities or expectations.
    """

    count: int
    """How many random cards, the starter included: 3 (two-player) or 4 (three/four-player)."""
    ranks: FloatArray
    """P(the random cards have each rank multiset), indexed like `tables.multisets` (count)."""
    flush: FloatArray
    """Per suit: P(every random card has that suit)."""
    starter_suit: FloatArray
    """Per suit: P(the starter has that suit)."""
    other_nobs: float
    """Expected nobs from a jack among the random non-starter cards."""
    starter_jack: float
    """P(the starter is a jack): his heels for the dealer."""


def _rank_suit_counts(unseen: Sequence[int]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    cards = np.asarray(unseen, dtype=np.int64)
    return np.bincount(cards >> 2, minlength=13), np.bincount(cards & 3, minlength=4)


def uniform_cards(unseen: Sequence[int], count: int) -> RandomCards:
    """``count`` random cards (starter included) drawn uniformly from ``unseen``: every one of
    the C(N, count) sets is equally likely, and so is each card of a set being the starter."""
    ranks, suits = _rank_suit_counts(unseen)
    n = len(unseen)
    total = comb(n, count)
    jacks = [c for c in unseen if c in JACK_INDICES]
    others = count - 1
    # A jack J among the others with a starter of J's suit: the starter is one of the other
    # (u - 1) cards of that suit, then J is one of the `others` cards drawn from the n - 1 left.
    other_nobs = sum(others / (n - 1) * (suits[j & 3] - 1) / n for j in jacks)
    return RandomCards(
        count=count,
        ranks=multiset_weights(ranks, count) / total,
        flush=np.array([comb(int(u), count) / total for u in suits]),
        starter_suit=suits / n,
        other_nobs=float(other_nobs),
        starter_jack=len(jacks) / n,
    )


def weighted_pair(unseen: Sequence[int], pair_weights: FloatArray) -> RandomCards:
    """Two-player crib: a uniform starter from ``unseen``, then the opponent's pair from the
    rest, a pair {x, y} having probability proportional to ``pair_weights[rank x, rank y,
    suited]`` (ranks 0-based; suited 1 when x and y share a suit). All-equal weights give
    `uniform_cards` (unseen, 3)."""
    cards = np.asarray(unseen, dtype=np.int64)
    n = len(cards)
    rank, suit = cards >> 2, cards & 3
    same_suit = suit[:, None] == suit[None, :]
    w = pair_weights[rank[:, None], rank[None, :], same_suit.astype(np.int64)].astype(np.float64)
    np.fill_diagonal(w, 0.0)
    per_starter = w.sum() / 2 - w.sum(axis=1)  # weight of the pairs left once s is the starter
    prob = w[None, :, :] / (2.0 * n * per_starter)[:, None, None]  # [s, x, y], ordered x, y
    idx = np.arange(n)
    prob[idx, idx, :] = 0.0
    prob[idx, :, idx] = 0.0
    triples = triple_index()[rank[:, None, None], rank[None, :, None], rank[None, None, :]]
    ranks_q = np.bincount(triples.ravel(), prob.ravel(), minlength=len(multisets(3)))
    all_same = same_suit[:, :, None] & same_suit[:, None, :]  # [s, x, y] one suit
    flush = np.bincount(
        np.broadcast_to(suit[:, None, None], prob.shape)[all_same],
        prob[all_same],
        minlength=4,
    )
    # Nobs from the pair: x a jack of the starter's suit (twice, for y by symmetry).
    jack_x = (rank == 10)[None, :] & same_suit  # [s, x]
    other_nobs = 2.0 * float((prob.sum(axis=2) * jack_x).sum())
    suits = np.bincount(suit, minlength=4)
    return RandomCards(
        count=3,
        ranks=ranks_q.astype(np.float64),
        flush=flush.astype(np.float64),
        starter_suit=suits / n,
        other_nobs=other_nobs,
        starter_jack=float((rank == 10).sum()) / n,
    )


def crib_show_means(throws: Sequence[Sequence[int]], draw: RandomCards) -> FloatArray:
    """Expected crib show points (fifteens, pairs, runs, flush, nobs; not his heels) for each
    throw (card indices; all throws the same size, 5 - ``draw.count``)."""
    if not throws:
        return np.zeros(0)
    thrown = 5 - draw.count
    if any(len(t) != thrown for t in throws):
        raise ValueError(f"every throw must have {thrown} cards for this draw")
    table = crib_rank_table(thrown)
    rows = multiset_index(thrown, [[c // 4 + 1 for c in t] for t in throws])
    means: FloatArray = table[rows] @ draw.ranks
    means += draw.other_nobs
    for i, t in enumerate(throws):
        suit = t[0] & 3
        if all(c & 3 == suit for c in t):
            means[i] += 5.0 * draw.flush[suit]
        for c in t:
            if c in JACK_INDICES:
                means[i] += draw.starter_suit[c & 3]
    return means


@dataclass(frozen=True, slots=True)
class CribTableEntry:
    """Expected crib show points for one class of two-card throw, given only those two cards:
    the opponent's pair and the starter come from the other 50 cards."""

    low: int
    """Lower rank, 1..13."""
    high: int
    """Higher rank (equal to ``low`` for a pair)."""
    suited: bool
    """Both cards of one suit (never for a pair)."""
    uniform: float
    """Opponent's pair uniform over the other cards (the same to either player's crib)."""
    dealer: float
    """Thrown to our own crib; the pone throws sensibly (baulks)."""
    pone: float
    """Thrown to the dealer's crib; the dealer throws sensibly (feeds his crib)."""

    @property
    def label(self) -> str:
        """``5-5``, ``5-J``, ``K-A``-style name with an ``s`` for suited: ``7-8s``."""
        letters = "A23456789TJQK"
        return f"{letters[self.low - 1]}-{letters[self.high - 1]}{'s' if self.suited else ''}"

    def to_json(self) -> dict[str, object]:
        """``{"ranks": [low, high], "suited", "uniform", "dealer", "pone"}``."""
        return {
            "ranks": [self.low, self.high],
            "suited": self.suited,
            "uniform": self.uniform,
            "dealer": self.dealer,
            "pone": self.pone,
        }


@cache
def crib_table(game: str = "six-card") -> tuple[CribTableEntry, ...]:
    """Every class of two-card throw (91 rank pairs; suited and offsuit) with its expected crib
    show points under each model: 169 entries, pairs first within each low rank.

    His heels is left out (it does not depend on the throw unless a jack is thrown), as in the
    published tables.
    """
    from fifteentwo.analysis.throws import throw_weights  # package data, loaded on first use

    feed, baulk = throw_weights(game, "dealer"), throw_weights(game, "pone")
    entries = []
    for low in range(13):
        for high in range(low, 13):
            for suited in (False, True) if high > low else (False,):
                throw = (low * 4, high * 4 + (0 if suited else 1))
                unseen = [c for c in range(52) if c not in throw]
                values = [
                    float(crib_show_means([throw], model)[0])
                    for model in (
                        uniform_cards(unseen, 3),
                        weighted_pair(unseen, baulk),
                        weighted_pair(unseen, feed),
                    )
                ]
                entries.append(CribTableEntry(low + 1, high + 1, suited, *values))
    return tuple(entries)
