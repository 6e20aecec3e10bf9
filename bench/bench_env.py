"""Learning-environment speed: random-action steps per second through each environment, as a
ratio to the raw engine timed in the same run.

The raw engine is `Game` driven directly: a uniform pick from `Game.legal_actions()` at every
decision, `sample_chance()` for chance, no observations (the lean driver of bench_engine.py).
Through the environments every decision also builds the seat's observation vector and action
mask, which is what a learner pays for:

- PettingZoo: ``agent_iter`` / ``last()`` / ``step()``, every seat picking uniformly among
  the indices its ``action_mask`` allows;
- Gymnasium: ``step()`` with a uniform pick from ``action_masks()`` for the learning seat,
  the other seat played by the ``random`` level (`RandomPlayer`, which reads an
  `Observation` but no vector).

Steps are decisions: every seat's in PettingZoo, only the learning seat's in Gymnasium, where
the opponent's decisions are also counted in "decisions/s" (the figure compared with the raw
engine, since each environment plays the same games' worth of decisions). Rates are best of
several interleaved rounds; the ratio is what to compare across machines. Goal (issue 20):
each environment at least half the raw engine's decisions per second.

Run with ``make bench`` or ``python bench/bench_env.py [--variant NAME] [--strict]``;
``--strict`` exits 1 if a ratio is under 0.5.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

import numpy as np

from fifteentwo.actions import CHANCE
from fifteentwo.env import CribbageEnv, CribbageGymEnv
from fifteentwo.game import Game
from fifteentwo.rules import Rules, find_rules

ROUNDS = 5
GAMES_PER_ROUND = 12
GOAL = 0.5

Runner = Callable[[int], tuple[int, int]]
"""Plays one game from a seed; returns (steps through the interface, decisions in the game)."""


def _decisions(game: Game) -> int:
    return sum(1 for actor, _ in game.log if actor != CHANCE)


def raw_runner(rules: Rules) -> Runner:
    def play(seed: int) -> tuple[int, int]:
        game = Game(rules, seed=seed)
        rng = random.Random(seed)
        apply, sample, legal = game.apply, game.sample_chance, game.legal_actions
        seat = game.to_move
        steps = 0
        while seat is not None:
            if seat == CHANCE:
                apply(sample())
            else:
                apply(rng.choice(legal()))
                steps += 1
            seat = game.to_move
        return steps, steps

    return play


def aec_runner(rules: Rules) -> Runner:
    env = CribbageEnv(rules)

    def play(seed: int) -> tuple[int, int]:
        env.reset(seed=seed)
        rng = random.Random(seed)
        steps = 0
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            steps += 1
        return steps, _decisions(env.table.game)

    return play


def gym_runner(rules: Rules) -> Runner:
    env = CribbageGymEnv(rules, opponents="random")

    def play(seed: int) -> tuple[int, int]:
        env.reset(seed=seed)
        rng = random.Random(seed)
        steps = 0
        done = False
        while not done:
            action = rng.choice(np.flatnonzero(env.action_masks()).tolist())
            _, _, done, _, _ = env.step(action)
            steps += 1
        return steps, _decisions(env.table.game)

    return play


def measure(runners: dict[str, Runner]) -> dict[str, tuple[float, float]]:
    """Best (steps/s, decisions/s) of each runner over interleaved rounds."""
    best = dict.fromkeys(runners, (0.0, 0.0))
    seed = 0
    for _ in range(ROUNDS):
        for name, play in runners.items():
            steps = decisions = 0
            start = time.perf_counter()
            for i in range(GAMES_PER_ROUND):
                s, d = play(seed + i)
                steps += s
                decisions += d
            elapsed = time.perf_counter() - start
            rate = (steps / elapsed, decisions / elapsed)
            best[name] = max(best[name], rate, key=lambda r: r[1])
        seed += GAMES_PER_ROUND
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", action="append", help="rules preset (default: several)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a goal is missed")
    args = parser.parse_args()
    variants = args.variant or ["standard", "three-player", "four-player"]
    ok = True
    for variant in variants:
        rules = find_rules(variant)
        rates = measure(
            {"raw engine": raw_runner(rules), "PettingZoo AEC": aec_runner(rules)}
            | {"Gymnasium (vs random)": gym_runner(rules)}
        )
        base = rates["raw engine"][1]
        print(f"{variant}: random actions, one core, best of {ROUNDS} rounds")
        for name, (steps, decisions) in rates.items():
            ratio = decisions / base
            print(
                f"  {name:24} {steps:>9,.0f} steps/s {decisions:>9,.0f} decisions/s"
                f"  {ratio:5.2f}x raw"
            )
            if name != "raw engine":
                ok &= ratio >= GOAL
        print(f"  goal >= {GOAL}x raw for each environment: {'met' if ok else 'MISSED'}")
    return 0 if ok or not args.strict else 1


if __name__ == "__main__":
    sys.exit(main())
