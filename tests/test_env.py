"""The learning environments against the libraries' own checkers, and against the engine."""

from __future__ import annotations

import itertools
import random
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from fifteentwo.actions import GO, Discard, Play
from fifteentwo.cards import Card
from fifteentwo.env import (
    ACTION_COUNT,
    ACTIONS,
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    CribbageEnv,
    CribbageGymEnv,
    action_index,
    encode,
)
from fifteentwo.errors import FifteenTwoError, IllegalActionError
from fifteentwo.game import Game
from fifteentwo.rules import find_rules, preset_names

VARIANTS = preset_names()


def test_action_space_round_trips() -> None:
    assert len(ACTIONS) == ACTION_COUNT == 1463
    assert [action_index(a) for a in ACTIONS] == list(range(ACTION_COUNT))
    assert action_index(Play(Card.parse("AC"))) == 0 and action_index(GO) == 52
    pair = Discard((Card.parse("KS"), Card.parse("AC")))  # either order names one index
    assert action_index(pair) == action_index(Discard((Card.parse("AC"), Card.parse("KS"))))


def test_layout_covers_the_vector() -> None:
    parts = sorted(OBSERVATION_LAYOUT.values(), key=lambda s: s.start)
    assert parts[0].start == 0 and parts[-1].stop == OBSERVATION_SIZE
    assert all(a.stop == b.start for a, b in itertools.pairwise(parts))


@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_api(variant: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(CribbageEnv(variant), num_cycles=200)


@pytest.mark.parametrize("variant", ["standard", "three-player", "four-player"])
def test_pettingzoo_seed(variant: str) -> None:
    seed_test(lambda: CribbageEnv(variant), num_cycles=200)


def test_pettingzoo_manual_count_api() -> None:
    rules = find_rules("standard").replace(muggins=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(CribbageEnv(rules, manual_count=True, reward="margin"), num_cycles=300)


@pytest.mark.parametrize("variant", ["standard", "five-card", "four-player"])
def test_gymnasium_check_env(variant: str) -> None:
    check_env(CribbageGymEnv(variant, opponents="random"), skip_render_check=True)


def test_gymnasium_render_check() -> None:
    check_env(CribbageGymEnv(opponents="random", render_mode="ansi"))


def _play_pettingzoo(env: CribbageEnv, seed: int, picks: int) -> tuple[list[int], dict[str, float]]:
    """A whole game of random legal actions; the actions taken and the rewards summed."""
    env.reset(seed=seed)
    rng = random.Random(picks)
    taken: list[int] = []
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        taken.append(action)
        env.step(action)
    return taken, totals


@pytest.mark.parametrize("variant", VARIANTS)
def test_points_rewards_are_the_scores(variant: str) -> None:
    """Rewards in ``points`` mode add up to each side's final score; the game is the engine's."""
    env = CribbageEnv(variant)
    taken, totals = _play_pettingzoo(env, 5, 1)
    game = env.table.game
    assert game.is_over
    rules = env.rules
    for agent, total in totals.items():
        seat = int(agent.split("_")[1])
        assert total == game.scores[rules.side_of(seat)]
    replay = Game(rules, seed=game.seed)
    replay.advance()
    for index in taken:
        assert ACTIONS[index] in replay.legal_actions()
        replay.apply(ACTIONS[index])
        replay.advance()
    assert replay.scores == game.scores and replay.is_over


def test_game_and_margin_rewards() -> None:
    env = CribbageEnv("standard", reward="game")
    _, totals = _play_pettingzoo(env, 8, 2)
    over = next(e for e in env.table.game.events if type(e).__name__ == "GameOver")
    points = over.game_points  # type: ignore[union-attr]
    assert totals[f"player_{over.winner}"] == points  # type: ignore[union-attr]
    assert totals[f"player_{1 - over.winner}"] == -points  # type: ignore[union-attr]
    env = CribbageEnv("three-player", reward="margin")
    _, totals = _play_pettingzoo(env, 8, 2)
    assert sum(totals.values()) == pytest.approx(0.0)


def test_seeded_episodes_repeat_exactly() -> None:
    first = _play_pettingzoo(CribbageEnv("five-card"), 11, 3)
    assert _play_pettingzoo(CribbageEnv("five-card"), 11, 3) == first
    assert _play_pettingzoo(CribbageEnv("five-card"), 12, 3) != first


def _play_gym(env: CribbageGymEnv, seed: int) -> tuple[list[float], float]:
    obs, info = env.reset(seed=seed)
    rng = random.Random(0)
    trace = [float(obs.sum())]
    total = 0.0
    done = False
    while not done:
        assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
        action = rng.choice(np.flatnonzero(env.action_masks()).tolist())
        obs, reward, done, truncated, info = env.step(action)
        assert not truncated
        trace.append(float(obs.sum()))
        total += reward
    return trace, total


@pytest.mark.parametrize("variant", VARIANTS)
def test_gymnasium_plays_every_variant_against_the_standard_level(variant: str) -> None:
    env = CribbageGymEnv(variant, seat=1)
    trace, total = _play_gym(env, 3)
    game = env.table.game
    assert game.is_over and total == game.scores[env.rules.side_of(1)]
    assert _play_gym(CribbageGymEnv(variant, seat=1), 3) == (trace, total)
    assert not env.action_masks().any()
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(0)


def test_illegal_actions() -> None:
    env = CribbageGymEnv(opponents="random")
    obs, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    again, reward, done, _, info2 = env.step(illegal)
    assert reward == -1.0 and not done and info2["illegal_action"]
    assert np.array_equal(again, obs)
    strict = CribbageGymEnv(opponents="random", illegal_action="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)
    aec = CribbageEnv(illegal_action="raise")
    aec.reset(seed=1)
    with pytest.raises(IllegalActionError):
        aec.step(illegal)


def test_bad_settings_are_named() -> None:
    with pytest.raises(FifteenTwoError, match="unknown player"):
        CribbageGymEnv(opponents="nobody")
    with pytest.raises(FifteenTwoError, match="2 opponents for 1"):
        CribbageGymEnv(opponents=["random", "random"])
    with pytest.raises(FifteenTwoError, match="no seat 4"):
        CribbageGymEnv(seat=4)
    with pytest.raises(FifteenTwoError, match="unknown reward"):
        CribbageEnv(reward="money")  # type: ignore[arg-type]


def test_observation_reads_the_seat_view() -> None:
    game = Game(find_rules("standard"), seed=4)
    game.advance()
    seat = game.to_move
    assert seat is not None
    obs = game.observation(seat)
    vector = encode(obs)
    hand = vector[OBSERVATION_LAYOUT["hand"]]
    assert sorted(np.flatnonzero(hand).tolist()) == sorted(c.index for c in obs.hand)
    assert vector[OBSERVATION_LAYOUT["phase"]].sum() == 1
    assert vector.dtype == np.float32 and vector.min() >= 0 and vector.max() <= 1
    other = encode(game.observation(1 - seat))
    assert not np.intersect1d(np.flatnonzero(hand), np.flatnonzero(other[:52])).size
