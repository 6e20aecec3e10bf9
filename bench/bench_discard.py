"""Discard-analysis speed, as a ratio against a straightforward enumerator timed in the same run.

The enumerator values every discard of a six-card deal the obvious way: 15 discards x 46
starters x 990 opponent pairs = 683,100 crib scorings with `hand_total4`. The fast path
(`analyze_discard`) decomposes the crib's expectation into rank-table dot products and
combinatorial suit terms. Target (issue 5): a full six-card analysis in at most 20 ms on one
core; as a ratio, at least 30x faster than the enumerator. Also printed: building and loading
the tables, other deal shapes, and how much the ``sensible`` opponent model moves crib values
against ``uniform``.

Run with ``make bench`` or ``python bench/bench_discard.py``; exits 1 if the ratio target is
missed (the absolute target is reported only, since it depends on the machine).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from itertools import combinations

from fifteentwo.analysis import analyze_discard, tables, throws
from fifteentwo.cards import Card
from fifteentwo.scoring import hand_total4

ROUNDS = 5
TARGET_MS = 20.0
TARGET_RATIO = 30.0


def naive_analysis(cards: list[int], dealer: bool) -> list[tuple[float, tuple[int, int]]]:
    """Every discard by brute force: (total, throw), best first."""
    unseen = [c for c in range(52) if c not in cards]
    results = []
    for throw in combinations(cards, 2):
        a, b, c, d = (x for x in cards if x not in throw)
        hand = sum(hand_total4(a, b, c, d, s) for s in unseen) / len(unseen)
        crib = 0
        count = 0
        for s in unseen:
            heels = 2 if s // 4 == 10 else 0
            rest = [x for x in unseen if x != s]
            for x, y in combinations(rest, 2):
                crib += hand_total4(throw[0], throw[1], x, y, s, True) + heels
                count += 1
        mean = crib / count
        results.append((hand + mean if dealer else hand - mean, throw))
    results.sort(key=lambda r: -r[0])
    return results


def best_of(rounds: int, fn: Callable[[], object]) -> float:
    """Best wall time of ``rounds`` calls, in seconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def deals(rng: random.Random, count: int, size: int = 6) -> list[list[Card]]:
    return [[Card.from_index(c) for c in rng.sample(range(52), size)] for _ in range(count)]


def main() -> int:
    rng = random.Random(5)

    # One-off costs: the rank tables (built with numpy on first use) and the shipped throws.
    def build_tables() -> None:
        for fn in (tables.crib_rank_table, tables.hand_rank_table, tables.multisets):
            fn.cache_clear()
        tables.crib_rank_table(2), tables.crib_rank_table(1), tables.triple_index()

    def load_throws() -> None:
        throws.stored_tallies.cache_clear()
        throws.throw_weights.cache_clear()
        throws.throw_weights("six-card", "dealer")

    print(f"rank tables built in {best_of(ROUNDS, build_tables) * 1e3:.1f} ms")
    print(f"throw table loaded in {best_of(ROUNDS, load_throws) * 1e3:.2f} ms")
    start = time.perf_counter()
    throws.build_pattern_tallies(6, (2, 2, 2))
    print(
        "throw table build: one pattern (2,2,2) of 29 in "
        f"{(time.perf_counter() - start) * 1e3:.0f} ms; all: `python -m "
        "fifteentwo.analysis.throws` (about 25 s)"
    )

    sample = deals(rng, 40)
    for deal in sample:  # warm caches
        analyze_discard(deal, dealer=True)

    def fast_all(opponent: str = "uniform") -> None:
        for i, deal in enumerate(sample):
            analyze_discard(deal, dealer=i % 2 == 0, opponent=opponent)

    fast = best_of(ROUNDS, fast_all) / len(sample)
    sensible = best_of(ROUNDS, lambda: fast_all("sensible")) / len(sample)
    naive_deals = [[c.index for c in deal] for deal in sample[:2]]
    naive = best_of(1, lambda: [naive_analysis(d, True) for d in naive_deals]) / len(naive_deals)
    for deal in naive_deals:  # the two agree on the ranking and the values
        ref = naive_analysis(deal, True)
        got = analyze_discard([Card.from_index(c) for c in deal], dealer=True)
        assert all(abs(r[0] - o.total) < 1e-9 for r, o in zip(ref, got, strict=True))
    ratio = naive / fast
    print(
        f"six-card analysis: {fast * 1e3:.2f} ms (target {TARGET_MS:.0f} ms), sensible "
        f"opponent {sensible * 1e3:.2f} ms; enumerator {naive * 1e3:.0f} ms; "
        f"ratio {ratio:.0f}x (target {TARGET_RATIO:.0f}x)"
    )
    five = deals(rng, 40, 5)
    for players, label in ((2, "five-card game"), (3, "three/four-player")):
        t = best_of(
            ROUNDS, lambda p=players: [analyze_discard(d, dealer=True, players=p) for d in five]
        )
        print(f"{label} analysis: {t / len(five) * 1e3:.2f} ms")

    # How far the sensible opponent moves crib values from uniform.
    print("sensible vs uniform opponent, 400 random six-card deals per role:")
    for dealer in (True, False):
        shifts, changed, abs_shifts = [], 0, []
        for deal in deals(rng, 400):
            uni = analyze_discard(deal, dealer=dealer)
            sen = analyze_discard(deal, dealer=dealer, opponent="sensible")
            by_throw = {o.throw: o.crib.mean for o in uni}
            diffs = [o.crib.mean - by_throw[o.throw] for o in sen]
            shifts.extend(diffs)
            abs_shifts.extend(abs(x) for x in diffs)
            changed += uni.best.throw != sen.best.throw
        role = "dealer (pone baulks)" if dealer else "pone (dealer feeds)"
        print(
            f"  {role}: crib mean shift {statistics.mean(shifts):+.3f}, mean |shift| "
            f"{statistics.mean(abs_shifts):.3f}, max |shift| {max(abs_shifts):.3f}; "
            f"best discard changes in {changed / 4:.1f}% of deals"
        )
    if ratio < TARGET_RATIO:
        print(f"FAIL: ratio {ratio:.1f}x is below {TARGET_RATIO:.0f}x")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
