"""Scoring speed, each figure also as a ratio against naive scorers timed in the same run.

Machines differ and shared ones are noisy, so absolute rates are printed for the record but the
ratios are what to compare: the naive scorers (every subset of the five cards for the show,
every tail of the pile for the play) run interleaved with the fast paths, best of several
rounds each. Targets (issue 3): the show >= 2,000,000 hands/s in pure Python and >= 30x naive;
the full distribution < 1 s each for hand and crib; pegging >= 1,000,000 calls/s. Issue 16: the
public call ``score_hand(hand, starter).total`` >= 30x naive, timed with `Card` objects and with
strings (parsed once and remembered by `score_hand`, as a program scoring the same hands again
would see); ``peg_points`` is timed the same way.

Run with ``make bench`` or ``python bench/bench_scoring.py``; exits 1 if a ratio target is
missed (absolute targets are reported only, since they depend on the machine).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Sequence
from itertools import pairwise

from fifteentwo.cards import Card
from fifteentwo.distribution import score_distribution
from fifteentwo.scoring import (
    hand_total,
    hand_total4,
    hand_totals,
    peg_points,
    peg_points_ranks,
    peg_score,
    score_hand,
)

ROUNDS = 5
SHOW_TARGET_RATE = 2_000_000
SHOW_TARGET_RATIO = 30.0
PUBLIC_TARGET_RATIO = 30.0
DIST_TARGET_SECONDS = 1.0
PEG_TARGET_RATE = 1_000_000

Case = tuple[int, int, int, int, int]


def naive_show(hand: Sequence[int], starter: int, crib: bool = False) -> int:
    """The definition, by brute force: every subset of the five cards is checked."""
    cards = [*hand, starter]
    ranks = [c // 4 + 1 for c in cards]
    pips = [min(r, 10) for r in ranks]
    points = 0
    runs = {3: 0, 4: 0, 5: 0}
    for mask in range(1, 32):
        members = [i for i in range(5) if mask >> i & 1]
        if sum(pips[i] for i in members) == 15:
            points += 2
        if len(members) == 2 and ranks[members[0]] == ranks[members[1]]:
            points += 2
        chosen = sorted(ranks[i] for i in members)
        if len(chosen) >= 3 and all(b == a + 1 for a, b in pairwise(chosen)):
            runs[len(chosen)] += len(chosen)
    points += runs[5] or runs[4] or runs[3]  # only the longest runs count
    if all(c % 4 == hand[0] % 4 for c in hand):
        if starter % 4 == hand[0] % 4:
            points += 5
        elif not crib:
            points += 4
    points += sum(1 for c in hand if c // 4 == 10 and c % 4 == starter % 4)
    return points


def naive_peg(ranks: Sequence[int]) -> int:
    """Pegging by the definition: the count, trailing equal ranks, and every tail for a run."""
    count = sum(min(r, 10) for r in ranks)
    points = 2 if count in (15, 31) else 0
    same = 1
    while same < len(ranks) and ranks[-same - 1] == ranks[-1]:
        same += 1
    points += (0, 0, 2, 6, 12)[same]
    for length in range(len(ranks), 2, -1):
        tail = ranks[-length:]
        if len(set(tail)) == length and max(tail) - min(tail) == length - 1:
            return points + length
    return points


def best_rate(work: Callable[[], int], seconds: float = 0.15) -> float:
    """Items per second of ``work`` (which returns its item count), best of a few repeats."""
    best = 0.0
    deadline = time.perf_counter() + seconds
    while True:
        start = time.perf_counter()
        items = work()
        elapsed = time.perf_counter() - start
        best = max(best, items / elapsed)
        if time.perf_counter() > deadline:
            return best


def interleaved(runners: dict[str, Callable[[], int]]) -> dict[str, float]:
    """Best rate of each runner over ROUNDS rounds, the runners taking turns within a round."""
    rates = dict.fromkeys(runners, 0.0)
    for _ in range(ROUNDS):
        for name, work in runners.items():
            rates[name] = max(rates[name], best_rate(work))
    return rates


def show_runners(rng: random.Random) -> dict[str, Callable[[], int]]:
    """The show scorers, each over the same kind of random (hand, starter) cases."""
    cases: list[Case] = []
    for _ in range(2000):
        a, b, c, d, s = rng.sample(range(52), 5)
        cases.append((a, b, c, d, s))
    objects = [([Card.from_index(i) for i in case[:4]], Card.from_index(case[4])) for case in cases]
    hands = [list(case[:4]) for case in cases[:500]]
    texts = [(" ".join(c.short for c in hand), starter.short) for hand, starter in objects]

    def naive() -> int:
        for a, b, c, d, s in cases[:400]:
            naive_show((a, b, c, d), s)
        return 400

    def itemized() -> int:
        for hand, starter in objects[:400]:
            score_hand(hand, starter).items  # noqa: B018 (listed on first use: the cost timed)
        return 400

    def public_total() -> int:
        for hand, starter in objects:
            score_hand(hand, starter).total  # noqa: B018 (the call is what is timed)
        return len(objects)

    def public_text() -> int:
        for hand, starter in texts:
            score_hand(hand, starter).total  # noqa: B018
        return len(texts)

    def total() -> int:
        for a, b, c, d, s in cases:
            hand_total((a, b, c, d), s)
        return len(cases)

    def total4() -> int:
        for a, b, c, d, s in cases:
            hand_total4(a, b, c, d, s)
        return len(cases)

    def batch() -> int:
        for hand in hands:
            hand_totals(hand)
        return len(hands) * 48  # 48 starters are not in a 4-card hand

    return {
        "naive subsets": naive,
        "score_hand(...).items (itemized)": itemized,
        "score_hand(Cards).total": public_total,
        "score_hand(strings).total": public_text,
        "hand_total": total,
        "hand_total4": total4,
        "hand_totals (48 starters a call)": batch,
    }


def peg_runners(rng: random.Random) -> dict[str, Callable[[], int]]:
    """The pegging scorers over the piles of random plays (every prefix up to 31)."""
    piles: list[tuple[list[int], int]] = []
    deck = [r for r in range(1, 14) for _ in range(4)]
    while len(piles) < 3000:
        rng.shuffle(deck)
        pile: list[int] = []
        count = 0
        for rank in deck:
            if count + min(rank, 10) > 31:
                break
            pile.append(rank)
            count += min(rank, 10)
            piles.append((list(pile), count))
    card_piles = [_cards_of(pile) for pile, _ in piles]

    def naive() -> int:
        for pile, _ in piles:
            naive_peg(pile)
        return len(piles)

    def fast_count() -> int:
        for pile, count in piles:
            peg_points_ranks(pile, count)
        return len(piles)

    def fast() -> int:
        for pile, _ in piles:
            peg_points_ranks(pile)
        return len(piles)

    def itemized() -> int:
        for cards in card_piles[:500]:
            peg_score(cards)
        return 500

    def public() -> int:
        for cards in card_piles:
            peg_points(cards)
        return len(card_piles)

    return {
        "naive tails": naive,
        "peg_score (itemized)": itemized,
        "peg_points(Cards)": public,
        "peg_points_ranks(ranks, count)": fast_count,
        "peg_points_ranks(ranks)": fast,
    }


def _cards_of(ranks: Sequence[int]) -> list[Card]:
    """Cards for a list of ranks, the k-th card of a rank in suit k (suits do not matter here)."""
    seen: dict[int, int] = {}
    cards = []
    for r in ranks:
        seen[r] = seen.get(r, -1) + 1
        cards.append(Card.from_index((r - 1) * 4 + seen[r]))
    return cards


def report(title: str, unit: str, rates: dict[str, float]) -> float:
    """Print each rate and its ratio to the first (naive) one; return that naive rate."""
    names = list(rates)
    base = rates[names[0]]
    print(f"{title}")
    for name in names:
        print(f"  {name:34} {rates[name]:>13,.0f} {unit}/s  {rates[name] / base:8.1f}x naive")
    return base


def main() -> int:
    """Run every measurement, print figures and targets; 1 if a ratio target is missed."""
    rng = random.Random(2024)
    ok = True
    for _ in range(2000):  # the naive scorers must agree with the fast ones they are timed against
        a, b, c, d, s = rng.sample(range(52), 5)
        for crib in (False, True):
            assert naive_show((a, b, c, d), s, crib) == hand_total4(a, b, c, d, s, crib)

    shows = interleaved(show_runners(rng))
    naive_rate = report("Show scoring (one core, pure Python)", "hands", shows)
    fastest = max(shows["hand_total4"], shows["hand_totals (48 starters a call)"])
    ratio = fastest / naive_rate
    ok &= ratio >= SHOW_TARGET_RATIO
    print(
        f"  target >= {SHOW_TARGET_RATE:,} hands/s: {_met(fastest >= SHOW_TARGET_RATE)}"
        f" ({fastest:,.0f}); >= {SHOW_TARGET_RATIO:.0f}x naive:"
        f" {_met(ratio >= SHOW_TARGET_RATIO)} ({ratio:.0f}x)"
    )

    for name in ("score_hand(Cards).total", "score_hand(strings).total"):
        public = shows[name] / naive_rate
        ok &= public >= PUBLIC_TARGET_RATIO
        print(
            f"  {name} >= {PUBLIC_TARGET_RATIO:.0f}x naive:"
            f" {_met(public >= PUBLIC_TARGET_RATIO)} ({public:.0f}x)"
        )

    print("Exact distribution (numpy, all 12,994,800 cases one by one)")
    score_distribution()  # build the cached hands and tables first
    for crib in (False, True):
        best = min(_timed(score_distribution, crib) for _ in range(ROUNDS))
        rate = 12_994_800 / best
        print(
            f"  {'crib' if crib else 'hand':34} {best:13.3f} s  {rate:>13,.0f} hands/s"
            f"  {rate / naive_rate:8.0f}x naive"
            f"  (target < {DIST_TARGET_SECONDS:.0f} s: {_met(best < DIST_TARGET_SECONDS)})"
        )
    cold = _cold_distribution_seconds()
    print(f"  {'first call (builds hands, tables)':34} {cold:13.3f} s")

    pegs = interleaved(peg_runners(rng))
    report("Pegging (points for the last card of a pile)", "calls", pegs)
    peg_rate = pegs["peg_points_ranks(ranks, count)"]
    print(
        f"  target >= {PEG_TARGET_RATE:,} calls/s: {_met(peg_rate >= PEG_TARGET_RATE)}"
        f" ({peg_rate:,.0f})"
    )
    return 0 if ok else 1


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


def _timed(work: Callable[..., object], crib: bool = False) -> float:
    start = time.perf_counter()
    work(crib=crib)
    return time.perf_counter() - start


def _cold_distribution_seconds() -> float:
    """One distribution with the cached hand list and rank tables cleared first."""
    from fifteentwo import distribution

    distribution._all_hands.cache_clear()
    distribution._rank_points_table.cache_clear()
    return _timed(score_distribution)


if __name__ == "__main__":
    sys.exit(main())
