"""The baseline players (random, greedy), the `Player` defaults, `play_game` and `load_player`."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

import pytest

from _scripted import card, cards, deal, new_game, setup
from fifteentwo.actions import GO, Count, Cut, Muggins, Phase, Play
from fifteentwo.cards import DECK, Card
from fifteentwo.errors import FifteenTwoError, IllegalActionError
from fifteentwo.game import Game, Observation
from fifteentwo.players import GreedyPlayer, Player, RandomPlayer, load_player, play_game
from fifteentwo.rules import PRESETS, find_rules
from fifteentwo.scoring import hand_total


class GeneralRandom(RandomPlayer):
    """RandomPlayer through the general `Player.choose` path (its fast path is skipped when a
    subclass overrides `choose_play` or `choose_discard`)."""

    def choose_play(self, obs: Observation) -> Card | None:
        return super().choose_play(obs)

    def choose_discard(self, obs: Observation) -> Sequence[Card]:
        return super().choose_discard(obs)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_players_fast_path_is_the_general_path(preset: str) -> None:
    rules = find_rules(preset)
    for seed in range(3):
        fast = play_game(rules, [RandomPlayer(seed + s) for s in range(rules.players)], seed)
        general = play_game(rules, [GeneralRandom(seed + s) for s in range(rules.players)], seed)
        assert fast.events == general.events and fast.log == general.log


@pytest.mark.parametrize("preset", list(PRESETS))
def test_players_only_choose_legal_actions_and_finish_games(preset: str) -> None:
    rules = find_rules(preset)
    players: list[Player] = [
        (GreedyPlayer if s % 2 else RandomPlayer)(s) for s in range(rules.players)
    ]
    steps = []

    def on_step(game: Game) -> None:
        steps.append(game.phase)

    game = play_game(rules, players, seed=17, on_step=on_step)
    assert game.is_over and game.winner is not None
    assert len(steps) == len(game.log)  # every action, chance included, is a step


def test_players_are_deterministic_given_their_seed() -> None:
    rules = find_rules("standard")
    runs = [play_game(rules, [GreedyPlayer(1), RandomPlayer(2)], seed=3).events for _ in range(2)]
    assert runs[0] == runs[1]
    other = play_game(rules, [GreedyPlayer(1), RandomPlayer(9)], seed=3).events
    assert other != runs[0]


def test_random_player_chooses_uniformly() -> None:
    game = new_game("standard")
    setup(game, ["ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d"], ["kd qd", "3c 4d"], "ks")
    obs = game.observation(0)
    player = RandomPlayer(5)
    picks = {player.choose(obs) for _ in range(200)}
    assert picks == set(obs.legal) == {Play(c) for c in cards("ac 8c 9h 9s")}


def test_random_player_in_five_card_sometimes_declines_after_a_go() -> None:
    game = new_game("five-card")
    setup(game, ["tc 5s 4h 2c 3c", "kc qd 9s 2d 3d"], ["2c 3c", "2d 3d"], "6h")
    for seat, text in ((0, "tc"), (1, "kc"), (0, "5s")):
        game.apply(Play(card(text)))
        assert seat in (0, 1)
    obs = game.observation(0)
    assert obs.legal == (Play(card("4h")), GO)
    player = RandomPlayer(1)
    assert {player.choose(obs) for _ in range(100)} == {Play(card("4h")), GO}


def test_greedy_keeps_the_hand_with_the_best_average_show() -> None:
    # 5 5 5 J K Q: keeping the three fives and the jack averages far more than anything else.
    game = new_game("standard")
    deal(game, "5c 5d 5h jc kd qs", "ac 2c 3c 4c 6c 7c")
    obs = game.observation(0)
    assert sorted(GreedyPlayer(0).choose_discard(obs)) == sorted(cards("kd qs"))


def test_greedy_average_is_the_plain_sum_over_starters() -> None:
    # GreedyPlayer sums show totals over the unseen starters with one table look-up per hand;
    # the plain sum over `hand_total` picks the same keep.
    rng = random.Random(4)
    for _ in range(25):
        hand = sorted(rng.sample(DECK, 6))
        seen = {c.index for c in hand}
        starters = [c.index for c in DECK if c.index not in seen]
        best = max(
            combinations(hand, 4),
            key=lambda keep: sum(hand_total([c.index for c in keep], s) for s in starters),
        )
        game = new_game("standard")
        others = [c for c in DECK if c not in hand][:6]
        deal(game, " ".join(map(str, hand)), " ".join(map(str, others)))
        thrown = GreedyPlayer(0).choose_discard(game.observation(0))
        kept = [c for c in hand if c not in thrown]
        totals = [
            sum(hand_total([c.index for c in keep], s) for s in starters) for keep in (best, kept)
        ]
        assert totals[0] == totals[1]


def test_greedy_pegs_the_most_now_and_prefers_high_cards_on_ties() -> None:
    game = new_game("standard")
    setup(game, ["ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d"], ["kd qd", "3c 4d"], "ks")
    game.apply(Play(card("8c")))
    obs = game.observation(1)
    assert GreedyPlayer(0).choose(obs) == Play(card("7d"))  # 15 for two
    game.apply(Play(card("2s")))  # count 10
    obs = game.observation(0)
    # Nothing scores on 10: the highest card, a nine.
    assert GreedyPlayer(0).choose(obs).card.rank == 9  # type: ignore[union-attr]


def test_default_cut_is_a_legal_depth() -> None:
    game = Game(find_rules("standard"), seed=2, cut_seats=[0])
    obs = game.observation(0)
    picks = {RandomPlayer(s).choose(obs) for s in range(30)}
    assert picks <= set(obs.legal) and all(isinstance(c, Cut) for c in picks)


def test_default_count_is_the_true_total_even_without_nobs_in_the_crib() -> None:
    rules = find_rules("standard").replace(muggins=True, nobs_in_crib=False)
    game = new_game(rules, manual_count=[1])
    # Seat 0 lays the jack of hearts in the crib and the starter is a heart: no nobs there.
    setup(game, ["jh 8c 9h 9s kd qd", "2c 7h th 3h 4d 5d"], ["jh 8c", "4d 5d"], "2h")
    while game.phase is Phase.PLAY:
        game.apply(game.legal_actions()[0])
    claims = []
    while game.phase is Phase.SHOW:
        obs = game.observation(1)
        action = RandomPlayer(3).choose(obs)
        assert isinstance(action, Count)
        claims.append(action.points)
        game.apply(action)  # an over-claim would raise
    # Hand 2 7 10 3 + 2: fifteens 2-3-10 twice (4), the pair of twos (2): 6. Crib J 8 4 5 + 2:
    # fifteens 10-5 (J-5) and 8-5-2 (4), nothing else, and no nobs for the jack of hearts: 4.
    assert claims == [6, 4]


def test_default_muggins_is_to_take() -> None:
    rules = find_rules("standard").replace(muggins=True)
    game = new_game(rules, manual_count=[0])
    setup(game, ["2c 3d 4h 6s ah td", "kc qd 8h 7s ks 3s"], ["ah td", "ks 3s"], "9c")
    while game.phase is Phase.PLAY:
        game.apply(game.legal_actions()[0])
    game.apply(Count(0))
    assert RandomPlayer(1).choose(game.observation(1)) == Muggins(True)


def test_play_game_checks_the_table() -> None:
    with pytest.raises(IllegalActionError, match="1 players for a 2-seat game"):
        play_game(find_rules("standard"), [RandomPlayer()], seed=1)


def test_load_player() -> None:
    assert type(load_player("random", 3)) is RandomPlayer
    assert load_player("Greedy", 3).seed == 3
    loaded = load_player("fifteentwo.players:GreedyPlayer", 2)  # module:Class comes guarded
    assert type(loaded.player) is GreedyPlayer  # type: ignore[attr-defined]
    assert loaded.seed == 2
    with pytest.raises(FifteenTwoError, match="unknown player 'wizard'; choose from random"):
        load_player("wizard")
    with pytest.raises(FifteenTwoError, match="cannot load player"):
        load_player("fifteentwo.nowhere:Bot")
    with pytest.raises(FifteenTwoError, match="is not a player class"):
        load_player("fifteentwo.rules:STANDARD")
    assert repr(RandomPlayer(4)) == "RandomPlayer(seed=4)"


def test_a_player_must_implement_its_decisions() -> None:
    game = new_game("standard")
    game.advance()
    with pytest.raises(NotImplementedError):
        Player().choose(game.observation(0))
