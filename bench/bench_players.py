"""Computer players' speed: decision times per level, and self-play speed of the standard level.

Decision times are the arena's own measurement (`fifteentwo.arena.DecisionTimes`): every
decision a level makes in real games against the standard level, in this one process, after a
warm-up game (tables loaded, caches warm as they are in a long match). Targets: the expert's
median decision at most 20 ms and its p99 at most 200 ms on one core (issues 21 and 33, which
allowed the searches that make it stronger twice issue 6's first 100 ms).

Self-play speed: games per second of standard v standard, timed in alternating rounds with the
plain reference loop of `reference.py` (the benchmarks' yardstick) and with random v random
(the engine's own cost); the best round of each counts. Target: at least 200 standard games/s
on one core. That depends on the machine, so the check is the ratio to the reference: when the
target was met (221 games/s), the reference made about 290 games/s on the same idle machine
(in the engine benchmark of those days), so standard self-play must stay at least
`TARGET_RATIO` = 200/290 of the reference. (Until the engine
became faster, the yardstick was the random player; it moves with the engine, the reference
does not.)

Strength is not measured here: it needs thousands of games (``cribbage arena --duplicate``, see
docs/players.md).

Run with ``make bench`` or ``python bench/bench_players.py [--games N]``; exits 1 if the ratio
target is missed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from fifteentwo.arena import run_match
from fifteentwo.players import load_player, play_game
from fifteentwo.rules import find_rules
from reference import reference_game

TARGET_GAMES_PER_SECOND = 200.0
TARGET_RATIO = 200 / 290
"""Standard self-play at least this fraction of the reference loop's games per second."""
TARGET_MEDIAN_MS = 20.0
TARGET_P99_MS = 200.0


def self_play_rate(level: str, games: int, seed: int) -> float:
    """Games per second of ``level`` against itself (standard rules)."""
    rules = find_rules("standard")
    start = time.perf_counter()
    for i in range(games):
        play_game(rules, [load_player(level, 2 * i), load_player(level, 2 * i + 1)], seed + i)
    return games / (time.perf_counter() - start)


def reference_rate(games: int, seed: int) -> float:
    """Games per second of the reference loop."""
    start = time.perf_counter()
    for i in range(games):
        reference_game(random.Random(seed + i))
    return games / (time.perf_counter() - start)


def decision_times(level: str, games: int) -> dict[str, float | int]:
    """The level's decision times as A against the standard level, one process."""
    result = run_match(level, "standard", find_rules("standard"), games, seed=11, jobs=1)
    return result.decision_ms["a"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per level for timing")
    parser.add_argument("--rounds", type=int, default=5, help="self-play rounds of each level")
    args = parser.parse_args()

    print("decision times in ms (one process, against standard):")
    for level, games in (
        ("novice", args.games),
        ("standard", args.games),
        ("expert", args.games),
    ):
        t = decision_times(level, games)
        print(
            f"  {level:9} {t['decisions']:6} decisions: median {t['median']:7.3f}  p90 "
            f"{t['p90']:7.2f}  p99 {t['p99']:7.2f}  max {t['max']:7.1f}  mean {t['mean']:6.2f}"
        )
        if level == "expert":
            expert = t

    for level in ("random", "standard"):  # warm up: tables, caches
        self_play_rate(level, 5, 0)
    rates: dict[str, list[float]] = {"reference": [], "random": [], "standard": []}
    for r in range(args.rounds):
        for level, values in rates.items():
            if level == "reference":
                values.append(reference_rate(100, 1000 * r))
            else:
                values.append(self_play_rate(level, 200, 1000 * r))
    standard, random_ = max(rates["standard"]), max(rates["random"])
    reference = max(rates["reference"])
    ratio = standard / reference
    print(
        f"self-play, one core: standard {standard:.0f} games/s (target "
        f"{TARGET_GAMES_PER_SECOND:.0f}), random {random_:.0f}, reference {reference:.0f}; "
        f"standard {ratio:.2f}x the reference (target {TARGET_RATIO:.2f}x)"
    )
    median_ok = expert["median"] <= TARGET_MEDIAN_MS
    p99_ok = expert["p99"] <= TARGET_P99_MS
    print(
        f"expert: median {expert['median']:.2f} ms ({'ok' if median_ok else 'MISSED'}, target "
        f"{TARGET_MEDIAN_MS:.0f}), p99 {expert['p99']:.1f} ms ({'ok' if p99_ok else 'MISSED'}, "
        f"target {TARGET_P99_MS:.0f})"
    )
    if ratio < TARGET_RATIO:
        print(f"FAIL: standard self-play is {ratio:.2f}x the reference, below {TARGET_RATIO:.2f}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
