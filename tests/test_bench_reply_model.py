"""bench/reply_model.py: a model of a strong opponent's plays fitted to the experts' games."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import numpy as np

from fifteentwo.players import load_player, play_game
from fifteentwo.players.pegging import heuristic_plays
from fifteentwo.rules import find_rules

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import expert_variants
import reply_model as rm


def _states() -> tuple[list[rm.State], list[int]]:
    return rm.collect(2, seed=7)


def test_the_heuristic_weights_give_the_heuristics_values() -> None:
    states, _ = _states()
    assert len(states) > 40
    heur = [rm.HEURISTIC.get(name, 0.0) for name in rm.NAMES]
    for hand, pile, count, counts, unseen, k in states:
        ranks, rows = rm.feature_rows((hand, pile, count, counts, unseen, k))
        values = {
            r: v
            for r, v, _ in heuristic_plays(hand, pile, count, counts=counts, unseen=unseen, k=k)
        }
        assert sorted(ranks) == sorted(values)
        for r, row in zip(ranks, rows, strict=True):
            assert math.isclose(
                sum(w * f for w, f in zip(heur, row, strict=True)), values[r], abs_tol=1e-9
            )


def test_the_fit_recovers_the_weights_that_made_the_choices() -> None:
    states, _ = _states()
    truth = np.array(
        [0.9, -1.5, 1.0, 3.0, -0.4, 1.2, 1.0, 0.0, 0.0, 0.0, 0.3, 0.5, 0.5, 0.6, -1.0, 1.3]
    )
    rng = random.Random(11)
    many = states * 60
    chosen = []
    for state in many:
        shares = rm.probabilities(state, list(truth))
        chosen.append(rng.choices(list(shares), weights=list(shares.values()))[0])
    x, offsets, picks = rm.design(many, chosen)
    ridge = 1e-3
    w = rm.fit(x, offsets, picks, ridge=ridge)

    def objective(v: np.ndarray) -> float:
        return rm.log_likelihood(v, x, offsets, picks)[0] - ridge / 2 * float(v @ v)

    heuristic = np.array([rm.HEURISTIC.get(n, 0.0) for n in rm.NAMES]) / 0.75
    # The fit maximizes its objective: at least the truth's, far above the heuristic's (which
    # the choices did not come from), and it finds the weights the data can tell apart.
    assert objective(w) >= objective(truth) - 1e-9
    assert objective(w) > objective(heuristic) + 0.02
    assert abs(w[1] - truth[1]) < 0.5 and abs(w[-1] - truth[-1]) < 0.5


def test_the_learned_variant_plays_whole_games() -> None:
    game = play_game(
        find_rules("short"), [expert_variants.LearnedReplies(4), load_player("expert-1", 5)], 4
    )
    assert game.is_over
