"""Fast discard values for the table-driven levels: exact hand means and fixed crib tables.

The exact analysis (`fifteentwo.analysis.analyze_discard`) takes a few milliseconds a deal; the
standard level decides thousands of discards a second in self-play, so it values the hand with a
rank-vector trick instead and the crib from the published-style table.

A kept hand's fifteens, pairs and runs depend only on the ranks: for kept ranks K, let v[r] be
their total with a starter of rank r. The starter is any card not in our deal, of which there
are 4 - (our cards of rank r) of each rank, so the mean over starters is
``(4 * sum(v) - sum(v[rank c] for c in deal)) / starters``: six look-ups per option, with ``v``
cached per rank multiset. Flush and nobs add their exact suit terms.

>>> from fifteentwo.analysis import analyze_discard
>>> from fifteentwo.cards import to_cards
>>> deal = [c.index for c in to_cards("5h 5c jd qs 2h 9c")]
>>> keep = [c.index for c in to_cards("5h 5c jd qs")]
>>> round(hand_mean(keep, deal), 6) == round(analyze_discard(to_cards("5h 5c jd qs 2h 9c"),
...     dealer=True).option("2h 9c").hand.mean, 6)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations
from typing import Any, Final

from fifteentwo.scoring import RANK_KEY, RANK_TABLE
from fifteentwo.tablefiles import TableSource, read_json_table

__all__ = [
    "CRIB_FILE",
    "crib_tables",
    "crib_value",
    "encode_crib",
    "hand_mean",
    "keep_options",
    "single_crib_value",
    "table_discards",
]

_STEPS: Final = tuple(5**r for r in range(13))
_VECTORS: dict[int, tuple[int, tuple[int, ...]]] = {}


def _vector(key: int) -> tuple[int, tuple[int, ...]]:
    """(sum, v) for a kept rank multiset key: v[r] is its total with a starter of rank r+1."""
    found = _VECTORS.get(key)
    if found is None:
        get = RANK_TABLE.get
        v = tuple(get(key + step, 0) for step in _STEPS)
        found = (sum(v), v)
        _VECTORS[key] = found
    return found


def hand_mean(keep: Sequence[int], deal: Sequence[int]) -> float:
    """Mean show points of ``keep`` (3 or 4 card indices) over every starter not in ``deal``
    (the cards we know: our whole deal, which contains ``keep``)."""
    key = 0
    for c in keep:
        key += RANK_KEY[c]
    total, v = _vector(key)
    starters = 52 - len(deal)
    points = 4 * total
    for c in deal:
        points -= v[c >> 2]
    mean = points / starters
    suit = keep[0] & 3
    flush = True
    for c in keep:
        if c & 3 != suit:
            flush = False
        if 40 <= c < 44:  # a jack: nobs with a starter of its suit
            s = c & 3
            mean += (13 - sum(1 for d in deal if d & 3 == s)) / starters
    if flush:
        mean += len(keep) + (13 - sum(1 for d in deal if d & 3 == suit)) / starters
    return mean


def keep_options(deal: Sequence[int], kept: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every (keep, throw) split of ``deal`` keeping ``kept`` cards, in combinations order."""
    options = []
    for keep in combinations(deal, kept):
        throw = tuple(c for c in deal if c not in keep)
        options.append((keep, throw))
    return options


CRIB_FILE: Final = "crib.json"
CribTable = dict[tuple[int, int, bool], tuple[float, float, float]]


def encode_crib(table: CribTable) -> dict[str, list[float]]:
    """A crib table as JSON: keys ``"low,high,suited"`` (suited 0 or 1), sorted."""
    return {f"{lo},{hi},{int(su)}": list(v) for (lo, hi, su), v in sorted(table.items())}


def _decode_crib(data: dict[str, Any]) -> dict[str, CribTable]:
    out: dict[str, CribTable] = {}
    for game, rows in data.items():
        table: CribTable = {}
        for key, values in rows.items():
            lo, hi, su = (int(x) for x in key.split(","))
            a, b, c = (float(v) for v in values)
            if not (1 <= lo <= hi <= 13 and su in (0, 1)):
                raise ValueError(f"bad entry {key!r}")
            table[(lo, hi, bool(su))] = (a, b, c)
        out[game] = table
    return out


@cache
def crib_tables() -> tuple[dict[str, CribTable], TableSource]:
    """The crib tables of `fifteentwo.analysis.crib.crib_table` by game, and their file.

    Shipped as data (``data/crib.json``, rebuilt by ``python -m fifteentwo.selfplay.crib``):
    building takes about a second, and the standard level's first discard should not wait.
    """
    return read_json_table(CRIB_FILE, "crib", _decode_crib)


def _two_card_table(game: str) -> CribTable:
    return crib_tables()[0][game]


def crib_value(throw: Sequence[int], *, ours: bool, game: str = "six-card") -> float:
    """Expected crib show points of a two-card throw from the fixed table (no card removal):
    to our own crib the pone is assumed to baulk, to the opponent's he feeds it."""
    a, b = throw
    ra, rb = (a >> 2) + 1, (b >> 2) + 1
    low, high = (ra, rb) if ra <= rb else (rb, ra)
    entry = _two_card_table(game)[(low, high, ra != rb and (a & 3) == (b & 3))]
    return entry[1] if ours else entry[2]


@cache
def _single_table() -> tuple[float, ...]:
    from fifteentwo.analysis.crib import crib_show_means, uniform_cards

    values = [0.0]
    for rank in range(1, 14):
        card = (rank - 1) * 4
        unseen = [c for c in range(52) if c != card]
        values.append(float(crib_show_means([[card]], uniform_cards(unseen, 4))[0]))
    return tuple(values)


def single_crib_value(card: int) -> float:
    """Expected crib show points of one thrown card (three- and four-player games), every other
    crib card and the starter being uniformly random."""
    return _single_table()[(card >> 2) + 1]


@cache
def _flat_crib_table(game: str, ours: bool) -> tuple[float, ...]:
    """`crib_value` for every ordered pair of ranks (0-based) and suitedness, as one tuple
    indexed ``(a * 13 + b) * 2 + suited``."""
    table = _two_card_table(game)
    column = 1 if ours else 2
    flat = [0.0] * (13 * 13 * 2)
    for a in range(13):
        for b in range(13):
            low, high = min(a, b) + 1, max(a, b) + 1
            for suited in (0, 1):
                entry = table.get((low, high, bool(suited) and a != b))
                if entry is not None:
                    flat[(a * 13 + b) * 2 + suited] = entry[column]
    return tuple(flat)


_THROWS: Final = {(n, t): tuple(combinations(range(n), t)) for n in (5, 6) for t in (1, 2)}
"""Positions thrown, for each deal size and throw size."""


_BLIND: dict[tuple[int, int, int], tuple[float, ...]] = {}
"""Mean suit-blind hand points of every keep, by the deal's rank multiset (cached)."""


def _blind_means(deal: Sequence[int], key_all: int, kept: int) -> tuple[float, ...]:
    """For a deal in index order: the mean fifteens, pairs and runs of each keep over every
    starter, in `_THROWS` order. Depends on the deal's ranks only, so it is cached by them."""
    n = len(deal)
    found = _BLIND.get((key_all, n, kept))
    if found is None:
        starters = 52 - n
        ranks = [c >> 2 for c in deal]
        keys = [RANK_KEY[c] for c in deal]
        means = []
        for pos in _THROWS[n, n - kept]:
            key = key_all
            for i in pos:
                key -= keys[i]
            total, v = _VECTORS.get(key) or _vector(key)
            means.append((4 * total - sum([v[r] for r in ranks])) / starters)
        found = tuple(means)
        if len(_BLIND) > 200_000:
            _BLIND.clear()
        _BLIND[key_all, n, kept] = found
    return found


def table_discards(
    deal: Sequence[int], kept: int, *, ours: bool, game: str = "six-card"
) -> list[tuple[float, tuple[int, ...], float, float]]:
    """(value, throw, hand mean, crib value) of every discard, best first, the crib from the
    fixed tables: `hand_mean` and `crib_value` fused into one loop (the standard level's
    discards run thousands of times a second in self-play)."""
    deal = sorted(deal)  # the cached blind means go by position in index order
    n = len(deal)
    starters = 52 - n
    suit_left = [13, 13, 13, 13]
    key_all = 0
    for c in deal:
        suit_left[c & 3] -= 1
        key_all += RANK_KEY[c]
    blind = _blind_means(deal, key_all, kept)
    # Flushes need `kept` cards of one suit, and nobs a jack: most deals have neither.
    suited = max(13 - x for x in suit_left) >= kept
    jacks = deal[-1] >= 40 and any(40 <= c < 44 for c in deal)
    crib2 = _flat_crib_table(game, ours) if n - kept == 2 else None
    out = []
    for pos, mean in zip(_THROWS[n, n - kept], blind, strict=True):
        if suited or jacks:
            keep = [c for i, c in enumerate(deal) if i not in pos]
            suit = keep[0] & 3
            flush = suited
            for c in keep:
                if c & 3 != suit:
                    flush = False
                if 40 <= c < 44:
                    mean += suit_left[c & 3] / starters
            if flush:
                mean += kept + suit_left[suit] / starters
        if crib2 is not None:
            a, b = deal[pos[0]], deal[pos[1]]
            throw: tuple[int, ...] = (a, b)
            crib = crib2[((a >> 2) * 13 + (b >> 2)) * 2 + ((a & 3) == (b & 3))]
        else:
            throw = tuple(deal[i] for i in pos)
            crib = sum(single_crib_value(c) for c in throw)
        out.append((mean + crib if ours else mean - crib, throw, mean, crib))
    out.sort(key=lambda x: (-x[0], x[1]))
    return out
