"""Win probability (equity) of every two-player position: P(win | my score, opponent's score,
who deals next), and the expected game points with skunks.

How it is built (``cribbage equity --build``, by `fifteentwo.selfplay.equity`, since the deals
come from the computer players, a layer above this one): computer players play many complete
deals, and
each deal is kept as its ordered list of scores, (dealer or pone, points), exactly as they were
pegged: his heels, the play, the pone's hand, the dealer's hand, the crib. A backward dynamic
programme over positions then replays every sampled deal from every position: whoever first
reaches the target during the deal wins there and then (so pegging out first, or counting first
in the show, matters); otherwise the position moves on with the deal passing. Positions are
solved from high scores down, because every deal scores at least one point (the last card).

The tables (121 and 61 up) ship as package data and load in milliseconds. A table the user
built goes to the data directory, and is used from then on (`table_in_use` says which file is
read; `fifteentwo.tablefiles`).

>>> p = win_probability(0, 0, my_deal=True)
>>> 0.5 < p < 0.6
True
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fifteentwo.errors import FifteenTwoError
from fifteentwo.tablefiles import TableSource, shipped_path, table_source

__all__ = [
    "DealSample",
    "EquityTable",
    "clear_cache",
    "discard_win",
    "expected_game_points",
    "load_table",
    "solve",
    "table_in_use",
    "win_probability",
]

TARGETS: Final = (121, 61)
SKUNK_LINES: Final = {121: (91, 61), 61: (31, 1)}
"""(skunk, double skunk) lines: the loser below them loses 2 or 4 game points."""
GAME_POINTS: Final = (1, 2, 4)
DATA_FILE: Final = "equity.npz"

DealSample = list[tuple[bool, int]]
"""One deal's scores in the order pegged: (scored by the dealer?, points)."""

ROLE_MEANS: Final = ("peg_dealer", "peg_pone", "hand_dealer", "hand_pone", "crib", "heels")
"""Average points per deal by source, measured with the samples."""
ROLE_SUMS: Final = {
    "pone_peg": ("peg_pone",),
    "dealer_peg": ("peg_dealer", "heels"),
    "pone_all": ("peg_pone", "hand_pone"),
    "dealer_no_crib": ("peg_dealer", "heels", "hand_dealer"),
}
"""Per-deal point distributions kept with the table (for `discard_win`): the pone's pegging,
the dealer's pegging and heels, the pone's pegging and hand, the dealer's all but the crib."""


class EquityError(FifteenTwoError, ValueError):
    """A position outside the table, or a missing/corrupt table."""


@dataclass(frozen=True)
class EquityTable:
    """Solved values for one target: ``win[a, b, d]`` and ``points[a, b, d]``.

    ``a`` is my score, ``b`` the opponent's (0..target-1), ``d`` is 1 when I deal next.
    ``points`` is my expected game points minus the opponent's (skunks count 2 and 4).
    """

    target: int
    win: npt.NDArray[np.float64]
    points: npt.NDArray[np.float64]
    deals: int
    """How many sampled deals the table was solved from."""
    source: str
    """Which players produced the deals."""
    role_means: dict[str, float] | None = None
    """Average points per deal by source (`ROLE_MEANS`), when the table file has them."""
    histograms: dict[str, npt.NDArray[np.float64]] | None = None
    """P(points) per deal for each `ROLE_SUMS` entry, when the table file has them."""

    def win_probability(self, my_score: int, opp_score: int, my_deal: bool) -> float:
        """P(I win) from this position, before the next deal."""
        t = self.target
        if my_score >= t:
            return 1.0
        if opp_score >= t:
            return 0.0
        if my_score < 0 or opp_score < 0:
            raise EquityError(f"scores cannot be negative: {my_score}, {opp_score}")
        return float(self.win[my_score, opp_score, int(my_deal)])

    def expected_points(self, my_score: int, opp_score: int, my_deal: bool) -> float:
        """My expected game points minus the opponent's, skunks included."""
        t = self.target
        if my_score >= t or opp_score >= t:
            raise EquityError("the game is already over")
        return float(self.points[my_score, opp_score, int(my_deal)])


def _first_reach(cum: npt.NDArray[np.int64], target: int, big: int) -> npt.NDArray[np.int64]:
    """For each sample and k in 0..target: the first event index where ``cum >= k`` (big if
    never). ``cum`` is (samples, events), non-decreasing along events."""
    samples, events = cum.shape
    out = np.full((samples, target + 1), big, dtype=np.int64)
    out[:, 0] = -1  # needing nothing: already there
    ks = np.arange(1, target + 1)
    # searchsorted per row: cum rows are sorted ascending.
    for s in range(samples):
        idx = np.searchsorted(cum[s], ks, side="left")
        idx[idx >= events] = big
        out[s, 1:] = idx
    return out


def solve(samples: Sequence[DealSample], target: int, source: str = "") -> EquityTable:
    """Solve the equity table for ``target`` from sampled deals (see the module docstring)."""
    if not samples:
        raise EquityError("no deals to solve from")
    n = len(samples)
    length = max(1, *(len(s) for s in samples))
    dealer_cum = np.zeros((n, length), dtype=np.int64)
    pone_cum = np.zeros((n, length), dtype=np.int64)
    for i, deal in enumerate(samples):
        d = p = 0
        for j in range(length):
            if j < len(deal):
                by_dealer, pts = deal[j]
                if by_dealer:
                    d += pts
                else:
                    p += pts
            dealer_cum[i, j] = d
            pone_cum[i, j] = p
    big = length + 10
    first_d = _first_reach(dealer_cum, target, big)
    first_p = _first_reach(pone_cum, target, big)
    total_d = np.minimum(dealer_cum[:, -1], target)
    total_p = np.minimum(pone_cum[:, -1], target)
    rows = np.arange(n)
    # Loser's score at the moment the winner reaches the target, per (sample, event index).
    dealer_at = np.concatenate([dealer_cum, dealer_cum[:, -1:]], axis=1)
    pone_at = np.concatenate([pone_cum, pone_cum[:, -1:]], axis=1)
    skunk, double = SKUNK_LINES.get(target, (None, None))

    def game_points(loser_scores: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        pts = np.full(loser_scores.shape, float(GAME_POINTS[0]))
        if skunk is not None:
            pts[loser_scores < skunk] = GAME_POINTS[1]
        if double is not None:
            pts[loser_scores < double] = GAME_POINTS[2]
        return pts

    # win[a, b, d]: my score a, opp b, d=1 if I deal this deal. Every deal scores at least a
    # point, so the positions a deal can lead to lie on later anti-diagonals (a + b larger):
    # solve one anti-diagonal at a time, all its positions and samples at once.
    win = np.zeros((target, target, 2))
    points = np.zeros((target, target, 2))
    col = rows[:, None]
    for total in range(2 * target - 2, -1, -1):
        a = np.arange(max(0, total - target + 1), min(target - 1, total) + 1)
        b = total - a
        for mine in (1, 0):
            dealer_score, pone_score = (a, b) if mine else (b, a)  # shape (positions,)
            fd = first_d[:, target - dealer_score]  # (samples, positions)
            fp = first_p[:, target - pone_score]
            dealer_wins = fd < fp
            pone_wins = fp < fd
            pone_final = pone_score + pone_at[col, np.minimum(fd, length)]
            dealer_final = dealer_score + dealer_at[col, np.minimum(fp, length)]
            gp_dealer = game_points(pone_final)
            gp_pone = game_points(dealer_final)
            # After a deal that decides nothing, the deal passes to the other player.
            nd = np.minimum(dealer_score + total_d[:, None], target - 1)
            np_ = np.minimum(pone_score + total_p[:, None], target - 1)
            if mine:  # I deal now, so the opponent deals next
                w = np.where(dealer_wins, 1.0, np.where(pone_wins, 0.0, win[nd, np_, 0]))
                v = np.where(
                    dealer_wins, gp_dealer, np.where(pone_wins, -gp_pone, points[nd, np_, 0])
                )
            else:  # I am the pone now, so I deal next
                w = np.where(pone_wins, 1.0, np.where(dealer_wins, 0.0, win[np_, nd, 1]))
                v = np.where(
                    pone_wins, gp_pone, np.where(dealer_wins, -gp_dealer, points[np_, nd, 1])
                )
            win[a, b, mine] = w.mean(axis=0)
            points[a, b, mine] = v.mean(axis=0)
    return EquityTable(target, win, points, n, source)


def _package_data_path() -> Path:
    return shipped_path(DATA_FILE)


def table_in_use() -> TableSource:
    """The equity file `load_table` reads: a table built into the data dir, else the shipped
    one (`fifteentwo.tablefiles`); the source's note says why a user table was passed over."""
    return _load_file()[1]


@cache
def _load_file() -> tuple[dict[str, npt.NDArray[Any]], TableSource]:
    source = table_source(DATA_FILE)
    if not source.shipped:
        try:
            return _read_npz(source.path), source
        except EquityError as exc:
            note = f"yours at {source.path} is unusable: {exc}"
            source = TableSource(DATA_FILE, _package_data_path(), True, note)
    return _read_npz(source.path), source


def _read_npz(path: Path) -> dict[str, npt.NDArray[Any]]:
    """Every array of an equity file, checked for the names and shapes `load_table` reads."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise EquityError(f"equity table missing or corrupt ({exc})") from None
    for t in TARGETS:
        for name in (f"win{t}", f"points{t}"):
            if name not in arrays or arrays[name].shape != (t, t, 2):
                raise EquityError(f"equity table missing or corrupt (no {name} of {t}x{t}x2)")
    if "meta" not in arrays or "source" not in arrays:
        raise EquityError("equity table missing or corrupt (no meta or source)")
    return arrays


@cache
def load_table(target: int = 121) -> EquityTable:
    """The table for 121 or 61 up (loaded once): the data dir's if built, else the shipped
    one (`table_in_use` says which)."""
    if target not in TARGETS:
        raise EquityError(f"no equity table for a game to {target}; there are {TARGETS}")
    try:
        data, _ = _load_file()
    except EquityError as exc:
        raise EquityError(f"{exc}; run 'cribbage equity --build'") from None
    win = data[f"win{target}"].astype(np.float64)
    points = data[f"points{target}"].astype(np.float64)
    deals = int(data["meta"][0])
    source = str(data["source"])
    role_means = None
    if "role_means" in data:
        role_means = dict(zip(ROLE_MEANS, map(float, data["role_means"]), strict=True))
    histograms = None
    if all(f"hist_{name}" in data for name in ROLE_SUMS):
        histograms = {name: data[f"hist_{name}"].astype(np.float64) for name in ROLE_SUMS}
    return EquityTable(target, win, points, deals, source, role_means, histograms)


def clear_cache() -> None:
    """Forget the loaded tables (after a build wrote a new one)."""
    _load_file.cache_clear()
    load_table.cache_clear()


def win_probability(my_score: int, opp_score: int, my_deal: bool, target: int = 121) -> float:
    """P(win) for a two-player position before the next deal; ``my_deal``: I deal next."""
    return load_table(target).win_probability(my_score, opp_score, my_deal)


def expected_game_points(my_score: int, opp_score: int, my_deal: bool, target: int = 121) -> float:
    """Expected game points won minus lost from a position (skunk 2, double skunk 4)."""
    return load_table(target).expected_points(my_score, opp_score, my_deal)


def discard_win(
    my_score: int,
    opp_score: int,
    *,
    dealer: bool,
    hand_distribution: dict[int, int],
    crib_mean: float,
    target: int = 121,
    peg_shift: float = 0.0,
    crib_distribution: Sequence[float] | None = None,
) -> float:
    """P(win) after keeping a hand, from the position before the deal (an approximation).

    My hand adds its exact points for each starter; the crib adds its mean for its owner; the
    pegging of each side and the opponent's hand follow the per-deal distributions measured
    with the table's deals (taken as independent). The counting order is kept: the pone pegs
    and shows before the dealer, so a pone who reaches the target wins before the dealer
    counts. A position the deal does not decide is valued from the table, the deal passing.

    Two refinements, off by default (the analysis's ranking, and expert-1, use neither):
    ``peg_shift`` is the kept cards' expected net pegging against the average hand (half of it
    moves my pegging up, half the opponent's down), and ``crib_distribution`` (P(points) by
    points) replaces the crib's mean rounded to whole points; it is moved to ``crib_mean``.
    """
    table = load_table(target)
    hist = table.histograms
    if hist is None:
        raise EquityError("the equity table has no per-deal distributions; rebuild it")
    starters = sum(hand_distribution.values())
    hand_pts = np.array(list(hand_distribution), dtype=np.int64)
    hand_p = np.array(list(hand_distribution.values()), dtype=np.float64) / starters
    if dealer:
        opp_p = hist["pone_all"]  # the pone's pegging and hand, counted before mine
        mine_p = hist["dealer_peg"]
    else:
        opp_p = hist["dealer_no_crib"]
        mine_p = hist["pone_peg"]
    win_table = np.zeros((target + 1, target + 1))
    win_table[:target, :target] = table.win[:, :, 0 if dealer else 1]
    win_table[target, :] = 1.0  # I reached the target
    win_table[:, target] = 0.0  # the opponent did
    if dealer:
        win_table[target, target] = 0.0  # the pone counts first
    else:
        win_table[target, target] = 1.0  # I am the pone: I count first
    if peg_shift or crib_distribution is not None:
        return _refined_win(
            my_score,
            opp_score,
            dealer=dealer,
            hand=np.bincount(hand_pts, weights=hand_p).astype(np.float64),
            mine_p=mine_p,
            opp_p=opp_p,
            crib=_crib_points(crib_mean, crib_distribution),
            peg_shift=peg_shift,
            win_table=win_table,
            target=target,
        )
    crib = round(crib_mean)
    # My points this deal: pegging + hand (+ crib when I deal), as a distribution.
    mine_dist = np.convolve(mine_p, np.bincount(hand_pts, weights=hand_p))
    if dealer:
        mine_dist = np.concatenate([np.zeros(crib), mine_dist])
    my_after = np.minimum(my_score + np.arange(len(mine_dist)), target)
    opp_pts = np.arange(len(opp_p)) + (0 if dealer else crib)
    opp_after = np.minimum(opp_score + opp_pts, target)
    values = win_table[np.ix_(my_after, opp_after)]
    return min(1.0, max(0.0, float(mine_dist @ values @ opp_p)))  # rounding can pass 1


FloatArray = npt.NDArray[np.float64]


def _refined_win(
    my_score: int,
    opp_score: int,
    *,
    dealer: bool,
    hand: FloatArray,
    mine_p: FloatArray,
    opp_p: FloatArray,
    crib: FloatArray,
    peg_shift: float,
    win_table: FloatArray,
    target: int,
) -> float:
    """`discard_win` with the pegging moved by ``peg_shift`` and the crib as a distribution."""
    mine = np.convolve(shift_distribution(mine_p, peg_shift / 2), hand)
    theirs = shift_distribution(opp_p, -peg_shift / 2)
    if dealer:
        mine = np.convolve(mine, crib)
    else:
        theirs = np.convolve(theirs, crib)
    my_after = np.minimum(my_score + np.arange(len(mine)), target)
    opp_after = np.minimum(opp_score + np.arange(len(theirs)), target)
    values = win_table[np.ix_(my_after, opp_after)]
    return min(1.0, max(0.0, float(mine @ values @ theirs)))


def _crib_points(mean: float, distribution: Sequence[float] | None) -> FloatArray:
    """The crib's P(points): the distribution moved to ``mean``, or the mean alone (split
    between the two whole numbers around it, so that its mean is exact)."""
    if distribution is None:
        return shift_distribution(np.array([1.0]), mean)
    dist = np.asarray(distribution, dtype=np.float64)
    dist = dist / dist.sum()
    return shift_distribution(dist, mean - float(np.arange(len(dist)) @ dist))


def shift_distribution(dist: FloatArray, by: float) -> FloatArray:
    """P(points) moved up by ``by`` points (a fraction splits each point between the two whole
    shifts around it; points pushed below zero stay at zero), so its mean moves by ``by``
    unless mass piles up at zero."""
    low = int(np.floor(by))
    part = by - low
    out = _whole_shift(dist, low)
    if part:
        up = _whole_shift(dist, low + 1)
        out = np.concatenate([out, np.zeros(len(up) - len(out))]) * (1 - part) + part * up
    return out


def _whole_shift(dist: FloatArray, by: int) -> FloatArray:
    if by >= 0:
        return np.concatenate([np.zeros(by), dist])
    if -by >= len(dist):
        return np.array([float(dist.sum())])
    out = np.array(dist[-by:], dtype=np.float64)
    out[0] += float(dist[:-by].sum())
    return out
