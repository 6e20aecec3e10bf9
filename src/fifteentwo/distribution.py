"""The exact distribution of show scores, by enumerating every (hand, starter) case with numpy.

There are C(52, 4) = 270,725 four-card hands and 48 starters for each: 12,994,800 cases. All of
them are scored, one by one, as rows of a ``(hands, 52)`` array (one column per starter): the
suit-blind part (fifteens, pairs, runs) comes from a small table of rank multisets built from
`fifteentwo.scoring.RANK_TABLE`, then flushes and nobs are added per case. Nothing is sampled and
no suit symmetry is used, so the figures are exact and the same array serves as a check of the
scorer. It takes about 0.15 s for the hand and the same again for the crib.

>>> d = score_distribution()
>>> d.cases, d.counts[0], d.counts[29], round(d.mean, 4), d.impossible
(12994800, 1009008, 4, 4.7692, (19, 25, 26, 27))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import comb
from typing import Final

import numpy as np
import numpy.typing as npt

from fifteentwo.scoring import RANK_TABLE

__all__ = [
    "MAX_SCORE",
    "Distribution",
    "all_hands",
    "rank_points_table",
    "score_distribution",
    "show_totals",
]

MAX_SCORE: Final = 29
"""The highest show score (J 5 5 5 with the fifth 5 of the jack's suit turned up)."""
_CHUNK: Final = 1 << 14
"""Hands per block when counting: keeps the working arrays near 1 MB, in cache."""
_STARTER_COLUMNS: Final = np.arange(0, 52, 4)
"""Column offsets of one suit's 13 starters (add the suit)."""


def all_hands(size: int = 4) -> npt.NDArray[np.int8]:
    """Every ``size``-card hand as rows of card indices, ascending, in lexicographic order.

    >>> h = all_hands(4)
    >>> h.shape, h[0].tolist(), h[-1].tolist()
    ((270725, 4), [0, 1, 2, 3], [48, 49, 50, 51])
    """
    return _all_hands(size)


@cache
def _all_hands(size: int) -> npt.NDArray[np.int8]:
    if not 1 <= size <= 6:
        raise ValueError(f"hand size must be 1..6, not {size}")
    rows = np.arange(52, dtype=np.intp)[:, None]
    for _ in range(size - 1):
        # Extend each row by every card above its last one.
        last = rows[:, -1]
        extra = 51 - last
        parent = np.repeat(np.arange(len(rows)), extra)
        first = np.cumsum(extra) - extra
        nxt = np.repeat(last + 1 - first, extra) + np.arange(len(parent))
        rows = np.concatenate([rows[parent], nxt[:, None]], axis=1)
    hands = rows.astype(np.int8)
    hands.flags.writeable = False
    assert len(hands) == comb(52, size)
    return hands


def rank_points_table(size: int = 4) -> npt.NDArray[np.int8]:
    """Fifteens + pairs + runs by hand ranks and starter rank, from `RANK_TABLE`.

    Row ``code`` is a hand's ranks (0-based, ascending) read as a base-13 number; column ``r``
    is a starter of rank ``r + 1``. Rows that are not ascending rank lists stay 0, as do cells
    for a fifth card of a rank (which no starter can be).

    >>> t = rank_points_table(4)
    >>> t[((4 * 13 + 4) * 13 + 4) * 13 + 10, 4]  # 5 5 5 J with a 5
    np.int8(28)
    """
    return _rank_points_table(size)


@cache
def _rank_points_table(size: int) -> npt.NDArray[np.int8]:
    if size not in (3, 4):
        raise ValueError(f"a hand to show has 3 or 4 cards, not {size}")
    steps = [5**r for r in range(13)]
    table = np.zeros((13**size, 13), dtype=np.int8)
    for ranks in combinations_with_replacement(range(13), size):
        key = code = 0
        for r in ranks:
            key += steps[r]
            code = code * 13 + r
        table[code] = [RANK_TABLE.get(key + step, 0) for step in steps]
    table.flags.writeable = False
    return table


def show_totals(hands: npt.ArrayLike, *, crib: bool = False) -> npt.NDArray[np.int8]:
    """Show totals of many hands (rows of 3 or 4 distinct card indices) with every starter.

    Returns an ``(len(hands), 52)`` array: column ``s`` is the total with starter ``s``, and -1
    where ``s`` is in the hand, exactly as `fifteentwo.scoring.hand_totals` for one hand.

    >>> show_totals([[16, 18, 19, 41]])[0, [17, 0, 16]].tolist()  # 5C 5H 5S JD with 5D, AC, 5C
    [29, 14, -1]
    """
    cards = np.asarray(hands, dtype=np.intp)
    if cards.ndim != 2 or cards.shape[1] not in (3, 4):
        raise ValueError(f"hands must be rows of 3 or 4 card indices, got shape {cards.shape}")
    if cards.size and (cards.min() < 0 or cards.max() > 51):
        raise ValueError("card indices must be 0..51")
    n, size = cards.shape
    ranks = np.sort(cards >> 2, axis=1)
    code = np.zeros(n, dtype=np.intp)
    for i in range(size):
        code = code * 13 + ranks[:, i]
    # Starter s = 4 * rank + suit, so each rank's points repeat over four adjacent columns.
    totals = np.repeat(_rank_points_table(size)[code], 4, axis=1)
    suits = cards & 3
    flush = np.flatnonzero((suits == suits[:, :1]).all(axis=1))
    if len(flush):
        same_suit = suits[flush, :1] + _STARTER_COLUMNS  # the starters of the flush suit
        if crib:  # only a five-card flush counts in the crib
            totals[flush[:, None], same_suit] += size + 1
        else:
            totals[flush] += size
            totals[flush[:, None], same_suit] += 1
    for suit in range(4):  # his nobs: the jack of the starter's suit in hand
        holders = np.flatnonzero((cards == 40 + suit).any(axis=1))
        totals[holders[:, None], _STARTER_COLUMNS + suit] += 1
    totals[np.arange(n)[:, None], cards] = -1
    return totals


@dataclass(frozen=True, slots=True)
class Distribution:
    """How many (hand, starter) cases give each show score 0..29, with summary figures."""

    crib: bool
    hand_size: int
    counts: tuple[int, ...]
    """``counts[s]``: the number of cases scoring ``s``, for s in 0..29."""

    @property
    def cases(self) -> int:
        """Number of (hand, starter) cases counted: C(52, 4) * 48 = 12,994,800 for 4 cards."""
        return sum(self.counts)

    @property
    def total_points(self) -> int:
        """Sum of the scores of all cases."""
        return sum(score * n for score, n in enumerate(self.counts))

    @property
    def mean_exact(self) -> Fraction:
        """The mean score as an exact fraction."""
        return Fraction(self.total_points, self.cases)

    @property
    def mean(self) -> float:
        """The mean score: 4.7692 for a hand."""
        return self.total_points / self.cases

    @property
    def zero_share(self) -> float:
        """The share of cases scoring nothing ("nineteen")."""
        return self.counts[0] / self.cases

    @property
    def impossible(self) -> tuple[int, ...]:
        """Scores in 0..29 that no case reaches."""
        return tuple(score for score, n in enumerate(self.counts) if n == 0)

    @property
    def max_score(self) -> int:
        """The highest score reached."""
        return max(score for score, n in enumerate(self.counts) if n)

    def to_json(self) -> dict[str, object]:
        """The shape printed by ``cribbage stats --json``."""
        return {
            "crib": self.crib,
            "hand_size": self.hand_size,
            "cases": self.cases,
            "mean": self.mean,
            "zero_share": self.zero_share,
            "impossible": list(self.impossible),
            "max": self.max_score,
            "counts": {str(score): n for score, n in enumerate(self.counts)},
        }


def score_distribution(*, crib: bool = False, hand_size: int = 4) -> Distribution:
    """Score every (hand, starter) case and count the scores; ``crib=True`` for the crib rules.

    ``hand_size=3`` gives the five-card game's hands: C(52, 3) * 49 = 1,082,900 cases.
    """
    if hand_size not in (3, 4):
        raise ValueError(f"a hand to show has 3 or 4 cards, not {hand_size}")
    hands = _all_hands(hand_size)
    counts = np.zeros(256, dtype=np.int64)
    for start in range(0, len(hands), _CHUNK):
        totals = show_totals(hands[start : start + _CHUNK], crib=crib)
        # As uint8 the -1 of held starters becomes 255, out of the way of the scores.
        counts += np.bincount(totals.ravel().view(np.uint8), minlength=256)
    if counts[MAX_SCORE + 1 : 255].any():
        raise AssertionError("a show score above 29")
    return Distribution(crib, hand_size, tuple(int(n) for n in counts[: MAX_SCORE + 1]))
