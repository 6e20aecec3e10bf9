"""Rank-multiset tables behind the exact expectations, built from `scoring.RANK_TABLE`.

The fifteens, pairs and runs of a crib depend only on the multiset of its five ranks, so the
expected rank part of a crib is a dot product: a row of `crib_rank_table` (the thrown ranks
against every multiset of the other cards' ranks) times the probability of each multiset. The
tables are small (91 x 455 and 13 x 1,820 entries) and numpy builds them in about 20 ms on
first use, so nothing is cached on disk.

>>> m = multisets(2)
>>> len(m), len(multisets(3)), len(multisets(4))
(91, 455, 1820)
>>> int(crib_rank_table(2)[multiset_index(2, [[5, 5]])[0], multiset_index(3, [[5, 5, 11]])[0]])
28
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement
from math import comb
from typing import Final

import numpy as np
import numpy.typing as npt

from fifteentwo.scoring import RANK_TABLE

__all__ = [
    "BINOMIAL",
    "POWERS",
    "crib_rank_table",
    "hand_rank_table",
    "multiset_index",
    "multiset_keys",
    "multiset_weights",
    "multisets",
    "rank_points_of_counts",
    "triple_index",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

POWERS: Final[IntArray] = 5 ** np.arange(13, dtype=np.int64)
"""5 ** (rank - 1) for ranks 1..13: a count vector dotted with this is a `RANK_TABLE` key."""

BINOMIAL: Final[FloatArray] = np.array(
    [[comb(n, k) for k in range(6)] for n in range(6)], dtype=np.float64
)
"""BINOMIAL[n, k] = C(n, k) for n, k <= 5: ways to pick k cards of a rank with n unseen."""


@cache
def _sorted_rank_table() -> tuple[IntArray, IntArray]:
    keys = np.array(sorted(RANK_TABLE), dtype=np.int64)
    values = np.array([RANK_TABLE[int(k)] for k in keys], dtype=np.int64)
    return keys, values


@cache
def multisets(size: int) -> npt.NDArray[np.int8]:
    """Every multiset of ``size`` ranks (each rank at most 4 times) as 13 counts, in a fixed
    order (that of ``combinations_with_replacement``)."""
    rows = []
    for combo in combinations_with_replacement(range(13), size):
        counts = [0] * 13
        for r in combo:
            counts[r] += 1
        if max(counts) <= 4:
            rows.append(counts)
    table = np.array(rows, dtype=np.int8).reshape(-1, 13)
    table.flags.writeable = False
    return table


@cache
def multiset_keys(size: int) -> IntArray:
    """The `scoring.RANK_KEY` sums (base-5 keys) of the rows of `multisets` (``size``)."""
    keys = multisets(size).astype(np.int64) @ POWERS
    keys.flags.writeable = False
    return keys


@cache
def _key_order(size: int) -> tuple[IntArray, IntArray]:
    keys = multiset_keys(size)
    order = np.argsort(keys, kind="stable")
    return keys[order], order


def multiset_index(size: int, ranks: npt.ArrayLike) -> IntArray:
    """Row numbers in `multisets` (``size``) of rank lists (ranks 1..13, shape ``(..., size)``)."""
    ranks_arr = np.asarray(ranks, dtype=np.int64)
    if ranks_arr.shape[-1] != size:
        raise ValueError(f"expected {size} ranks per multiset, got {ranks_arr.shape[-1]}")
    # Five or more of a rank carry into the next digit, so they never match a real key.
    keys = (5 ** (ranks_arr - 1)).sum(axis=-1)
    return _index_of_keys(size, keys)


def _index_of_keys(size: int, keys: npt.NDArray[np.int64]) -> IntArray:
    sorted_keys, order = _key_order(size)
    pos = np.searchsorted(sorted_keys, keys)
    if np.any(pos >= len(sorted_keys)) or np.any(
        sorted_keys[np.minimum(pos, len(sorted_keys) - 1)] != keys
    ):
        raise ValueError("not a multiset of the given size with at most four of a rank")
    result: IntArray = order[pos]
    return result


def rank_points_of_counts(counts: npt.NDArray[np.integer]) -> IntArray:
    """`scoring.RANK_TABLE` for count vectors (shape ``(..., 13)``, 4 or 5 cards); 0 where a
    rank occurs more than four times (an impossible hand)."""
    counts64 = np.asarray(counts, dtype=np.int64)
    valid = (counts64 <= 4).all(axis=-1)
    keys = np.where(valid, counts64 @ POWERS, 0)
    table_keys, table_values = _sorted_rank_table()
    pos = np.clip(np.searchsorted(table_keys, keys), 0, len(table_keys) - 1)
    found = valid & (table_keys[pos] == keys)
    if not np.array_equal(found, valid):
        raise ValueError("RANK_TABLE has no entry for some 4- or 5-card multiset")
    points: IntArray = np.where(valid, table_values[pos], 0)
    return points


@cache
def crib_rank_table(thrown: int) -> IntArray:
    """Points of the rank part of a five-card crib: rows are the multisets of the ``thrown``
    ranks (1 or 2), columns the multisets of the other ``5 - thrown`` ranks (the other players'
    cards and the starter); impossible combinations are 0 (they never get any probability)."""
    left = multisets(thrown).astype(np.int16)
    right = multisets(5 - thrown).astype(np.int16)
    table = rank_points_of_counts(left[:, None, :] + right[None, :, :])
    table.flags.writeable = False
    return table


@cache
def hand_rank_table(kept: int) -> IntArray:
    """Rank part of a hand of ``kept`` (3 or 4) cards with each starter rank: rows are the
    multisets of the kept ranks, columns the starter rank 1..13 (0 where impossible)."""
    left = multisets(kept).astype(np.int16)
    table = rank_points_of_counts(left[:, None, :] + np.eye(13, dtype=np.int16)[None, :, :])
    table.flags.writeable = False
    return table


def multiset_weights(unseen_counts: npt.ArrayLike, size: int) -> FloatArray:
    """Number of ways to draw each rank multiset of ``size`` cards from unseen cards whose
    rank counts are ``unseen_counts`` (shape ``(..., 13)``): the product of C(n_r, m_r)."""
    counts = np.asarray(unseen_counts, dtype=np.int64)
    table = multisets(size).astype(np.int64)
    ways = BINOMIAL[counts[..., None, :], table]
    result: FloatArray = ways.prod(axis=-1)
    return result


def triple_index() -> IntArray:
    """A 13 x 13 x 13 array: the row in `multisets` (3) of the ranks (a+1, b+1, c+1)."""
    return _triple_index()


@cache
def _triple_index() -> IntArray:
    a, b, c = np.meshgrid(np.arange(13), np.arange(13), np.arange(13), indexing="ij")
    keys = POWERS[a] + POWERS[b] + POWERS[c]
    index = _index_of_keys(3, keys)
    index.flags.writeable = False
    return index
