"""Game-engine speed: full two-player games per second with random players, on one core.

The headline is `play_game` with two `RandomPlayer`s (standard rules, 121 up): every decision
goes through an `Observation`, every step is checked, logged and turned into events, as in real
self-play. Machines differ and shared ones are noisy, so each rate is also given as a ratio
against `reference.reference_game`, a deliberately plain, self-contained cribbage loop (stdlib only,
brute-force scoring, no checks, events or observations) timed in the same run, interleaved, best
of several rounds. The ratio is what to compare across machines.

Goal (issue 4): more than 1,200 games/s, "faster than OpenSpiel's C++ cribbage driven from
Python". The second half is the test, and is measured here when ``pyspiel`` is installed
(``make bench-openspiel`` installs it): OpenSpiel's ``cribbage`` game, driven from Python as its
examples play random games (a uniform pick from the legal actions; its chance outcomes are all
equally likely, which the driver checks), timed in the same run. On this project's shared, noisy
machine it made 1,250-2,250 games/s, so the two halves agree. Without OpenSpiel the bench falls
back on the reference: OpenSpiel ran at 6.4x to 9.0x the reference here (2026-11-23), so the
fallback goal is 6.4x. The first engine (commit 4ea177d) ran at 1.03x to 1.15x the reference; the
play_game figure is also given as a multiple of it.

The lean driver (uniform random legal actions straight from `Game.legal_actions`, no
observations: the loop that matches OpenSpiel's) and record replay are reported too.

The engine may be pure Python (``make bench``) or compiled with mypyc (``make bench-compiled``;
docs/speed.md); the report's second line says which. Run with ``make bench`` or
``python bench/bench_engine.py [--strict]``; ``--strict`` exits 1 if the goal is missed.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

from fifteentwo import COMPILED
from fifteentwo.actions import CHANCE
from fifteentwo.game import Game
from fifteentwo.players import RandomPlayer, play_game
from fifteentwo.records import game_record, replay
from fifteentwo.rules import find_rules
from reference import reference_game

ROUNDS = 7
GAMES_PER_ROUND = 40
FIRST_ENGINE_RATIO = 1.12
"""The first engine's play_game rate over the reference's, as measured (see above)."""
OPENSPIEL_RATIO = 6.4
"""OpenSpiel's rate over the reference's, as measured (see above): the goal without OpenSpiel."""


# --- the engine, driven three ways -------------------------------------------------------------


def engine_game(seed: int) -> Game:
    """The headline: play_game with two RandomPlayers."""
    return play_game(RULES, [RandomPlayer(seed), RandomPlayer(seed + 1)], seed)


def lean_game(seed: int) -> Game:
    """Uniform random legal actions taken straight from the game, without observations."""
    game = Game(RULES, seed=seed)
    rng = random.Random(seed)
    apply, sample, legal = game.apply, game.sample_chance, game.legal_actions
    seat = game.to_move
    while seat is not None:
        apply(sample() if seat == CHANCE else rng.choice(legal()))
        seat = game.to_move
    return game


def openspiel_driver() -> Callable[[int], object] | None:
    """A random game of OpenSpiel's cribbage, if OpenSpiel is installed (it is not required)."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("cribbage")

    def play(seed: int, check: bool = False) -> object:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if check and state.is_chance_node():
                assert len({p for _, p in state.chance_outcomes()}) == 1, "not uniform"
            # Every chance outcome of this game is equally likely (checked once, below), so
            # chance and player nodes alike take a uniform pick from `legal_actions`.
            state.apply_action(rng.choice(state.legal_actions()))
        return state

    play(0, check=True)
    return play


RULES = find_rules("standard")
RECORDS = [game_record(engine_game(seed)) for seed in range(GAMES_PER_ROUND)]


def rate(run: Callable[[int], object], rounds: list[int]) -> float:
    """Games per second, best of the rounds (each round a fresh range of seeds)."""
    best = float("inf")
    for r in rounds:
        start = time.perf_counter()
        for seed in range(r * GAMES_PER_ROUND, (r + 1) * GAMES_PER_ROUND):
            run(seed)
        best = min(best, time.perf_counter() - start)
    return GAMES_PER_ROUND / best


def main() -> int:
    strict = "--strict" in sys.argv[1:]
    runs: dict[str, Callable[[int], object]] = {
        "reference (plain loop)": lambda seed: reference_game(random.Random(seed)),
        "play_game + RandomPlayer": engine_game,
        "lean driver": lean_game,
        "replay of a record": lambda seed: replay(RECORDS[seed % GAMES_PER_ROUND]),
    }
    openspiel = openspiel_driver()
    if openspiel is not None:
        runs["OpenSpiel cribbage (C++)"] = openspiel
    best = dict.fromkeys(runs, 0.0)
    for r in range(ROUNDS):  # interleaved, so that a noisy moment hits every figure alike
        for name, run in runs.items():
            best[name] = max(best[name], rate(run, [r]))
    reference = best["reference (plain loop)"]
    engine = "compiled with mypyc" if COMPILED else "pure Python (`make bench-compiled`: compiled)"
    print(f"standard rules, two random players, one core; best of {ROUNDS} x {GAMES_PER_ROUND}")
    print(f"engine: {engine}")
    for name, value in best.items():
        unit = "records/s" if name.startswith("replay") else "games/s"
        print(f"  {name:26s} {value:8.0f} {unit:9s} {value / reference:5.2f}x reference")
    headline = best["play_game + RandomPlayer"]
    ratio = headline / reference
    print(
        f"play_game: {headline:.0f} games/s, {ratio:.2f}x the reference, "
        f"{ratio / FIRST_ENGINE_RATIO:.2f}x the first engine"
    )
    if openspiel is None:
        met = ratio > OPENSPIEL_RATIO
        print(
            f"goal: faster than OpenSpiel, which ran at {OPENSPIEL_RATIO}x the reference when "
            f"measured: {'met' if met else 'MISSED'} (`make bench-openspiel` measures it here)"
        )
    else:
        theirs = best["OpenSpiel cribbage (C++)"]
        met = headline > theirs
        for name in ("play_game + RandomPlayer", "lean driver"):
            verdict = "faster" if best[name] > theirs else "slower"
            print(f"{name} against OpenSpiel: {best[name] / theirs:.2f}x ({verdict})")
        print(f"goal: play_game faster than OpenSpiel: {'met' if met else 'MISSED'}")
    return 1 if strict and not met else 0


if __name__ == "__main__":
    sys.exit(main())
