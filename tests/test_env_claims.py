"""Counting by hand in the environments (docs/env.md, Actions): a claim over the true total is
not refused like an illegal action; the engine pegs the true total (a claim is final,
docs/rules.md), and with muggins the next seat may take the excess."""

from __future__ import annotations

import numpy as np
import pytest

from fifteentwo.actions import Count, Muggins
from fifteentwo.env import OBSERVATION_LAYOUT, CribbageEnv, action_index
from fifteentwo.rules import find_rules
from fifteentwo.scoring import score_hand

CLAIMS = range(action_index(Count(0)), action_index(Count(29)) + 1)


def to_first_claim(env: CribbageEnv) -> str:
    """Play random legal actions until a seat must claim its show; that seat's agent."""
    rng = np.random.default_rng(0)
    for agent in env.agent_iter(10_000):
        obs, _, terminated, truncated, _ = env.last()
        assert not (terminated or truncated), "the game ended before anybody counted"
        legal = np.flatnonzero(obs["action_mask"])
        if set(legal) <= set(CLAIMS):
            return agent
        env.step(int(rng.choice(legal)))
    raise AssertionError("no claim")


@pytest.mark.parametrize("muggins", [True, False])
def test_an_over_claim_is_corrected_not_refused(muggins: bool) -> None:
    rules = find_rules("standard").replace(muggins=muggins)
    env = CribbageEnv(rules, manual_count=True, reward="points")
    env.reset(seed=4)
    agent = to_first_claim(env)
    game = env.table.game
    seat = game.to_move
    assert seat is not None
    view = game.observation(seat)
    assert view.starter is not None
    true = score_hand(view.to_count, view.starter, crib=view.counting_crib).total
    assert true < 29
    before = list(game.scores)
    env.step(action_index(Count(29)))
    assert env.infos[agent] == {}  # no illegal action
    side = rules.side_of(seat)
    assert game.scores[side] == before[side] + true  # the true total pegged
    assert env.rewards[agent] == true
    if not muggins:
        after = env.observe(env.agent_selection)["action_mask"]  # the show goes on: no muggins
        assert not after[action_index(Muggins(True))] and after.any()
        return
    # The next seat may take the 29 - true points over-claimed.
    other = env.agent_selection
    assert other != agent
    mask = env.observe(other)["action_mask"]
    assert set(np.flatnonzero(mask)) == {action_index(Muggins(True)), action_index(Muggins(False))}
    claim = env.observe(other)["observation"][OBSERVATION_LAYOUT["claim"]]
    assert claim[1] == 1 and round(float(claim[2]) * 29) == 29 - true
