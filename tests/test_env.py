"""The learning environments against the libraries' own checkers, and against the engine."""

from __future__ import annotations

import itertools
import random
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from fifteentwo.actions import GO, Count, Discard, Phase, Play, Reason, Scored
from fifteentwo.cards import Card
from fifteentwo.env import (
    ACTION_COUNT,
    ACTIONS,
    GYM_ID,
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    CribbageEnv,
    CribbageGymEnv,
    action_index,
    encode,
)
from fifteentwo.errors import FifteenTwoError, IllegalActionError
from fifteentwo.game import Game
from fifteentwo.observation import Observation
from fifteentwo.players import load_player
from fifteentwo.rules import find_rules, preset_names
from fifteentwo.scoring import hand_total

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


@pytest.mark.parametrize("variant", VARIANTS)
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


def test_gymnasium_render_check_through_make() -> None:
    made = gymnasium.make(GYM_ID, opponents="random", render_mode="ansi")
    check_env(made.unwrapped)
    made.reset(seed=2)
    assert "pile" in str(made.render())


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


def _reference_vector(obs: Observation) -> np.ndarray:
    """The documented layout filled field by field, the plain way, for `encode` to match."""
    rules, me, n = obs.rules, obs.seat, obs.rules.players
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)

    def part(name: str) -> np.ndarray:
        return out[OBSERVATION_LAYOUT[name]]

    def cards(name: str, chosen: object, offset: int = 0) -> None:
        for card in chosen:  # type: ignore[attr-defined]
            part(name)[offset + card.index] = 1

    cards("hand", obs.hand)
    cards("kept", obs.kept)
    cards("discards", obs.discards)
    cards("starter", [obs.starter] if obs.starter else [])
    cards("pile", obs.pile)
    for k, card in enumerate(reversed(obs.pile)):
        if k < 3:
            part("last_ranks")[13 * k + card.rank - 1] = 1
        part("pile_ranks")[k] = card.rank / 13
    for seat, card in obs.played:
        part("played")[52 * ((seat - me) % n) + card.index] = 1
    for seat, crib, shown in obs.shown:
        if crib:
            cards("crib_shown", shown)
        else:
            cards("shown", shown, 52 * ((seat - me) % n))
    cards("to_count", obs.to_count)
    part("dealer")[(obs.dealer - me) % n] = 1
    if obs.to_move is not None and obs.to_move >= 0:
        part("to_move")[(obs.to_move - me) % n] = 1
    part("phase")[list(Phase).index(obs.phase)] = 1
    for seat, said in enumerate(obs.passed):
        part("passed")[(seat - me) % n] = said
    part("players")[n - 2] = 1
    part("count")[0] = obs.count / 31
    for side, score in enumerate(obs.scores):
        part("scores")[(side - rules.side_of(me)) % rules.sides] = score / rules.target
    for seat, size in enumerate(obs.hand_sizes):
        part("hand_sizes")[(seat - me) % n] = size / 6
    claim = part("claim")
    claim[:] = (obs.counting_crib, obs.pending_claim is not None, (obs.pending_claim or 0) / 29)
    part("target")[0] = rules.target / 121
    variant = (rules.partnerships, rules.hand_size / 6, rules.discard / 2)
    part("variant")[:] = (*variant, rules.optional_play_after_go)
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_encode_matches_the_documented_layout(variant: str) -> None:
    """Every seat's vector at every decision of a game (counting by hand, with muggins)."""
    rules = find_rules(variant).replace(muggins=True)
    game = Game(rules, seed=9, manual_count=range(rules.players))
    rng = random.Random(9)
    checked = 0
    while not game.is_over:
        game.advance()
        if game.is_over:
            break
        for seat in range(rules.players):
            obs = game.observation(seat)
            assert np.array_equal(encode(obs), _reference_vector(obs)), (seat, obs.phase)
            checked += 1
        legal = game.legal_actions()
        claims = [a for a in legal if isinstance(a, Count)]
        if claims:  # claim at most the true total, sometimes less (muggins then)
            obs = game.observation(game.to_move)  # type: ignore[arg-type]
            total = hand_total([c.index for c in obs.to_count], obs.starter.index)  # type: ignore[union-attr]
            game.apply(Count(rng.choice([total, max(total - 2, 0)])))
        else:
            game.apply(rng.choice(legal))
    assert checked > 100


def test_pegging_reward_is_the_pegging_margin() -> None:
    env = CribbageEnv("standard", reward="pegging")
    _, totals = _play_pettingzoo(env, 21, 4)
    pegged = [0, 0]
    for event in env.table.game.events:
        if isinstance(event, Scored) and event.reason in (Reason.PLAY, Reason.GO, Reason.LAST_CARD):
            pegged[event.side] += event.points
    assert totals["player_0"] == pytest.approx(pegged[0] - pegged[1])
    assert totals["player_1"] == pytest.approx(pegged[1] - pegged[0])


def test_gymnasium_opponents_as_players_and_partners() -> None:
    """Four players: the learner in seat 1, its partner (seat 3) and the others given as
    players; rewards are the learner's side's points."""
    players = [load_player("random", 5), load_player("greedy", 6), load_player("standard", 7)]
    env = CribbageGymEnv("four-player", opponents=players, seat=1, reward="margin")
    _, total = _play_gym(env, 13)
    game = env.table.game
    assert env.players[3] is players[2]
    assert total == game.scores[1] - game.scores[0]
