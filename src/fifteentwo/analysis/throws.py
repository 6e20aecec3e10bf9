"""What a sensible player throws: exact throw frequencies behind the ``sensible`` opponent model.

A *sensible* player, dealt six cards (five in the five-card game), throws the two cards that
maximise the expected value of the discard: hand + crib as dealer, hand - crib as pone, with
the hand averaged over every starter and the crib over every starter and every pair the other
player could throw (the ``uniform`` model). Exact ties share the deal equally.

`build_tallies` runs that rule over every possible deal (all 20,358,520 six-card hands, or
2,598,960 five-card hands) and counts the thrown pair by class: its two ranks and whether the
cards share a suit. The counts are exact integers (each deal counts `TIE_UNIT`, split between
tied discards), grouped by the hand's rank pattern so that a test can rebuild a few groups and
compare. Building takes tens of seconds with numpy, so the counts are shipped as package data
(``fifteentwo/data/throws.npz``; ``python -m fifteentwo.analysis.throws [PATH]`` rebuilds them
into the data dir, where they are then used, or to PATH: never over the shipped file).

`throw_weights` turns the counts into P(a player in that role throws one particular pair of
cards of the class), the weight the ``sensible`` crib model gives each possible opponent throw.
"""

from __future__ import annotations

import io
import sys
import zipfile
from collections.abc import Iterator, Sequence
from functools import cache
from itertools import combinations, product
from math import comb
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from fifteentwo.analysis.tables import (
    crib_rank_table,
    hand_rank_table,
    multiset_index,
    multiset_weights,
)
from fifteentwo.tablefiles import (
    TableFileError,
    TableSource,
    check_table_path,
    shipped_path,
    table_source,
    user_table_path,
    write_table_bytes,
)

__all__ = [
    "GAMES",
    "ROLES",
    "TIE_UNIT",
    "build_pattern_tallies",
    "build_tallies",
    "pair_counts",
    "patterns",
    "stored_tallies",
    "suit_assignments",
    "tallies_in_use",
    "throw_weights",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

GAMES: Final[dict[str, int]] = {"six-card": 6, "five-card": 5}
"""Two-player games with a two-card throw, by the number of cards dealt to each player."""
ROLES: Final = ("dealer", "pone")
"""Index 0 and 1 of the role axis in the tallies."""
TIE_UNIT: Final = 360360
"""What one deal counts: divisible by 1..15, so ties split into exact integers."""
DATA_FILE: Final = "throws.npz"
_CHUNK: Final = 1 << 22
"""Hand-discard cells per numpy step (memory bound of the build)."""


def patterns(hand_size: int) -> list[tuple[int, ...]]:
    """Rank patterns of a hand: how many cards of each rank held, lowest rank first (each
    part 1..4). Every hand has exactly one, so the patterns split the deals into groups."""

    def walk(left: int) -> Iterator[tuple[int, ...]]:
        if left == 0:
            yield ()
            return
        for part in range(1, min(4, left) + 1):
            for rest in walk(left - part):
                yield (part, *rest)

    return list(walk(hand_size))


def pair_counts() -> IntArray:
    """Number of card pairs in each class [low rank, high rank, suited] (ranks 0-based):
    12 offsuit and 4 suited for two ranks, 6 offsuit for a pair, 0 elsewhere."""
    counts = np.zeros((13, 13, 2), dtype=np.int64)
    for a in range(13):
        counts[a, a, 0] = 6
        for b in range(a + 1, 13):
            counts[a, b, 0], counts[a, b, 1] = 12, 4
    return counts


def suit_assignments(pattern: tuple[int, ...]) -> IntArray:
    """Every way to give suits to a hand of this pattern (within a rank, suits increase, as
    the cards sort by index)."""
    per_rank = [list(combinations(range(4), part)) for part in pattern]
    rows = [sum(choice, ()) for choice in product(*per_rank)]
    return np.array(rows, dtype=np.int64)


def build_pattern_tallies(
    hand_size: int,
    pattern: tuple[int, ...],
    *,
    rank_sets: Sequence[Sequence[int]] | None = None,
    suit_rows: Sequence[int] | None = None,
) -> IntArray:
    """Thrown-pair counts [role, low rank, high rank, suited] over all deals of one pattern.

    ``rank_sets`` (distinct 0-based ranks, one per part of the pattern) and ``suit_rows`` (rows
    of `suit_assignments`) restrict the deals counted, so tests can check a sample by hand.
    """
    kept = hand_size - 2
    unseen = 52 - hand_size
    denom = comb(unseen, 3)  # values below are expectations times this (exact integers)
    hand_scale = denom // unseen
    positions = np.repeat(np.arange(len(pattern)), pattern)
    if rank_sets is None:
        rank_sets = list(combinations(range(13), len(pattern)))
    ranks = np.array(rank_sets, dtype=np.int64).reshape(-1, len(pattern))[
        :, positions
    ]  # [multiset, position], 0-based, non-decreasing
    counts = np.zeros((len(ranks), 13), dtype=np.int64)
    np.add.at(counts, (np.arange(len(ranks))[:, None], ranks), 1)
    discards = list(combinations(range(hand_size), 2))
    throw_pos = np.array(discards, dtype=np.int64)  # [discard, 2]
    keep_pos = np.array(
        [[p for p in range(hand_size) if p not in d] for d in discards], dtype=np.int64
    )
    # Suit-blind parts, per [multiset, discard].
    keep_rows = multiset_index(kept, ranks[:, keep_pos] + 1)
    hand_rank = (hand_rank_table(kept)[keep_rows] * (4 - counts)[:, None, :]).sum(axis=2)
    throw_rows = multiset_index(2, ranks[:, throw_pos] + 1)
    crib_all = np.rint(multiset_weights(4 - counts, 3) @ crib_rank_table(2).T.astype(np.float64))
    crib_rank = np.take_along_axis(crib_all.astype(np.int64), throw_rows, axis=1)
    base_dealer = hand_scale * hand_rank + crib_rank
    base_pone = hand_scale * hand_rank - crib_rank
    # Suit parts, per [suit assignment, discard].
    suits = suit_assignments(pattern)
    if suit_rows is not None:
        suits = suits[np.asarray(suit_rows, dtype=np.int64)]
    left = 13 - np.stack([(suits == s).sum(axis=1) for s in range(4)], axis=1)  # unseen/suit
    kept_suits = suits[:, keep_pos]
    keep_flush = (kept_suits == kept_suits[:, :, :1]).all(axis=2)
    keep_suit_left = np.take_along_axis(left, kept_suits[:, :, 0], axis=1)
    hand_flush = np.where(keep_flush, (kept * unseen + keep_suit_left) * hand_scale, 0)
    thrown_suits = suits[:, throw_pos]
    suited = thrown_suits[:, :, 0] == thrown_suits[:, :, 1]
    binom3 = np.array([comb(u, 3) for u in range(14)], dtype=np.int64)
    crib_flush = np.where(
        suited, 5 * binom3[np.take_along_axis(left, thrown_suits[:, :, 0], axis=1)], 0
    )
    # Nobs: a jack's suit-mates among the starters score it in hand or crib alike, which
    # cancels for the dealer and counts twice (kept minus thrown) for the pone.
    jack_value = np.take_along_axis(left, suits, axis=1) * hand_scale  # [assignment, position]
    sign = np.where((keep_pos[:, :, None] == np.arange(hand_size)).any(axis=1), 1, -1)
    is_jack = (ranks == 10).astype(np.int64)
    low_rank = ranks[:, throw_pos[:, 0]]
    high_rank = ranks[:, throw_pos[:, 1]]
    rank_class = (low_rank * 13 + high_rank) * 2  # [multiset, discard]

    tallies = np.zeros((2, 13 * 13 * 2), dtype=np.float64)
    step = max(1, _CHUNK // (len(suits) * len(discards)))
    for start in range(0, len(ranks), step):
        part = slice(start, start + step)
        jacks = np.einsum("np,mp,dp->nmd", is_jack[part], jack_value, sign)
        classes = rank_class[part][:, None, :] + suited[None, :, :]
        for role, value in enumerate(
            (
                base_dealer[part][:, None, :] + (hand_flush + crib_flush)[None],
                base_pone[part][:, None, :] + (hand_flush - crib_flush)[None] + jacks,
            )
        ):
            best = value == value.max(axis=2, keepdims=True)
            share = TIE_UNIT // best.sum(axis=2, keepdims=True)
            tallies[role] += np.bincount(
                classes[best],
                np.broadcast_to(share, best.shape)[best].astype(np.float64),
                minlength=tallies.shape[1],
            )
    return np.rint(tallies).astype(np.int64).reshape(2, 13, 13, 2)


def build_tallies(hand_size: int) -> IntArray:
    """`build_pattern_tallies` for every pattern: [pattern, role, low, high, suited]."""
    return np.stack([build_pattern_tallies(hand_size, p) for p in patterns(hand_size)])


def _data_path() -> Path:
    return shipped_path(DATA_FILE)


def tallies_in_use() -> TableSource:
    """The throws file `stored_tallies` reads: the data dir's if the user built one (and it
    reads), else the shipped one (`fifteentwo.tablefiles`)."""
    return _tallies_file()[1]


@cache
def _tallies_file() -> tuple[dict[str, IntArray], TableSource]:
    source = table_source(DATA_FILE)
    if not source.shipped:
        try:
            return _read_tallies(source.path), source
        except TableFileError as exc:
            note = f"yours at {source.path} is unusable: {exc}"
            source = TableSource(DATA_FILE, _data_path(), True, note)
    return _read_tallies(source.path), source


def _read_tallies(path: Path) -> dict[str, IntArray]:
    try:
        with path.open("rb") as fh, np.load(io.BytesIO(fh.read()), allow_pickle=False) as data:
            out = {game: data[game] for game in GAMES}
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise TableFileError(f"{path}: {exc}") from None
    for game, tallies in out.items():
        if tallies.dtype != np.int64 or tallies.shape[1:] != (2, 13, 13, 2):
            raise TableFileError(f"{path}: {game} tallies have the wrong shape")
        tallies.flags.writeable = False
    return out


def stored_tallies(game: str) -> IntArray:
    """The tallies of ``game`` (``six-card`` or ``five-card``), as `build_tallies`: shipped,
    or the user's build in the data dir (`tallies_in_use`)."""
    return _tallies_file()[0][game]


@cache
def throw_weights(game: str, role: str) -> FloatArray:
    """P(a sensible ``role`` player throws one given pair of cards of each class), indexed
    [rank, rank, suited] with 0-based ranks, symmetric in the two ranks; sums to 1 over all
    1,326 pairs of cards."""
    tallies = stored_tallies(game).sum(axis=0)[ROLES.index(role)].astype(np.float64)
    pairs = pair_counts()
    per_pair = np.divide(tallies, pairs, out=np.zeros_like(tallies), where=pairs > 0)
    per_pair /= TIE_UNIT * comb(52, GAMES[game])
    weights: FloatArray = per_pair + per_pair.transpose(1, 0, 2)
    idx = np.arange(13)
    weights[idx, idx] = per_pair[idx, idx]
    weights.flags.writeable = False
    return weights


def write_data(path: Path | None = None) -> Path:
    """Build the tallies of both games and write them atomically (temp file + rename) to
    ``path``, by default the data dir's ``tables/throws.npz`` (never the shipped file)."""
    target = check_table_path(path or user_table_path(DATA_FILE))
    arrays = {game: build_tallies(size) for game, size in GAMES.items()}
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
    written = write_table_bytes(target, buffer.getvalue())
    _tallies_file.cache_clear()
    throw_weights.cache_clear()
    return written


if __name__ == "__main__":  # pragma: no cover - maintenance command
    import time

    started = time.perf_counter()
    try:
        written = write_data(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
    except TableFileError as exc:
        sys.exit(f"error: {exc}")
    print(f"wrote {written} in {time.perf_counter() - started:.1f} s")
