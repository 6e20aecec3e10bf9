"""bench/cfr_pegging.py: the end of the play as an imperfect-information game, solved by CFR+."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from fifteentwo.game import Observation
from fifteentwo.players import load_player, play_game
from fifteentwo.players.pegging import PegSearch
from fifteentwo.rules import find_rules

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import cfr_pegging as cfr
import expert_variants

FULL = [0] + [4] * 13


def _hand(rng: random.Random, k: int) -> tuple[int, ...]:
    return tuple(sorted(rng.randint(1, 13) for _ in range(k)))


def test_with_both_hands_known_the_game_is_the_minimax_search() -> None:
    # One deal: every information set is one history, so the game's value is PegSearch's
    # minimax value, and CFR+'s best responses must bracket it and close in on it.
    rng = random.Random(3)
    search = PegSearch()
    for _ in range(12):
        a, b = _hand(rng, 3), _hand(rng, 3)
        solver = cfr.Solver(cfr.deals([(a, 1.0)], [(b, 1.0)], FULL), (), 0, 0)
        solver.run(60)
        hi = solver.best_response(solver.average, 0)
        lo = solver.best_response(solver.average, 1)
        exact = max(search.root(a, b, (), 0, 0, -1).values())
        assert lo - 1e-9 <= exact <= hi + 1e-9, (a, b)
        assert hi - lo < 0.05, (a, b)


def test_best_responses_bracket_any_strategy_profiles_value() -> None:
    rng = random.Random(5)
    ours = [(_hand(rng, 2), 1.0 + i) for i in range(4)]
    theirs = [(_hand(rng, 3), 1.0) for _ in range(5)]
    deals = cfr.deals(ours, theirs, FULL)
    assert abs(sum(d.weight for d in deals) - 1.0) < 1e-9
    solver = cfr.Solver(deals, (10,), 10, 0)

    def uniform(key: cfr.Key, actions: list[int]) -> list[float]:
        return [1.0 / len(actions)] * len(actions)

    for strategy in (uniform, solver.average):
        value = solver.value(strategy)
        assert solver.best_response(strategy, 1) <= value + 1e-9
        assert solver.best_response(strategy, 0) >= value - 1e-9
        solver.run(30)
    # After the iterations the average strategy is much closer to equilibrium than uniform.
    gap = solver.best_response(solver.average, 0) - solver.best_response(solver.average, 1)
    wide = solver.best_response(uniform, 0) - solver.best_response(uniform, 1)
    assert gap < wide / 4


def test_pairs_the_remaining_cards_cannot_make_are_left_out() -> None:
    counts = list(FULL)
    counts[5] = 1  # three fives gone
    deals = cfr.deals([((5, 6), 1.0)], [((5, 9), 1.0), ((7, 9), 3.0)], counts)
    assert [(d.ours, d.theirs, d.weight) for d in deals] == [((5, 6), (7, 9), 1.0)]


def test_the_cfr_variant_solves_the_end_of_the_play_in_real_games() -> None:
    solved: list[tuple[int, ...]] = []

    class Counting(expert_variants.CFRPlay):
        def solve(self, obs: Observation) -> tuple[cfr.Solver, list[int], list[float]] | None:
            found = super().solve(obs)
            if found is not None:
                _, actions, shares = found
                assert abs(sum(shares) - 1.0) < 1e-9 and len(shares) == len(actions)
                solved.append(tuple(actions))
            return found

    game = play_game(find_rules("short"), [Counting(4), load_player("standard", 5)], 4)
    assert game.is_over
    assert solved  # the solver decided some plays, each among its hand's legal ranks
