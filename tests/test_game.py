"""The `Game` API: construction, chance steps, legal actions, observations and privacy, clones.

The rules themselves are tested scenario by scenario in test_game_rules.py and against the
source texts in test_game_sources.py; random games are checked in test_game_random.py.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import random
from collections.abc import Iterator
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fifteentwo
from _scripted import card, cards, new_game, setup
from fifteentwo import actions, observation, scoring
from fifteentwo import cards as cards_module
from fifteentwo import game as game_module
from fifteentwo.actions import (
    CHANCE,
    GO,
    PLAY_ACTIONS,
    Action,
    CardPlayed,
    Count,
    Cut,
    DealHands,
    Dealt,
    Discard,
    Discarded,
    DrawForDeal,
    HandCounted,
    Muggins,
    Phase,
    Play,
    Scored,
    TurnStarter,
    fast_constructor,
)
from fifteentwo.app import describe
from fifteentwo.cards import DECK, Card
from fifteentwo.engine import deal, play, show, state
from fifteentwo.errors import IllegalActionError
from fifteentwo.game import Game, Observation
from fifteentwo.players import GreedyPlayer, RandomPlayer
from fifteentwo.rules import PRESETS, find_rules
from fifteentwo.web import view

ALL_ACTIONS: list[Action] = [
    *PLAY_ACTIONS,
    GO,
    *(Discard(c) for k in (1, 2) for c in combinations(DECK[:12], k)),
    *(Count(n) for n in (-1, 0, 5, 29, 30)),
    Muggins(True),
    Muggins(False),
    *(Cut(d) for d in (0, 3, 4, 20, 36, 37, 47, 48, 49)),
]
"""A sample of every kind of action, legal or not, to offer a game in any state."""


def states(preset: str, seed: int, **options: object) -> Iterator[Game]:
    """A game at every step of one random game (the same object, advanced in place)."""
    rules = find_rules(preset)
    game = Game(rules, seed=seed, **options)  # type: ignore[arg-type]
    players = [RandomPlayer(seed + s) for s in range(rules.players)]
    while not game.is_over:
        yield game
        seat = game.to_move
        assert seat is not None
        if seat == CHANCE:
            game.apply(game.sample_chance())
        else:
            game.apply(players[seat].choose(game.observation(seat)))
    yield game


def fingerprint(game: Game) -> tuple[object, ...]:
    """Everything about a game's state that an action could change."""
    return (
        game.phase,
        game.to_move,
        game.dealer,
        tuple(game.scores),
        tuple(map(tuple, game.hands)),
        tuple(game.crib),
        tuple(game.pile),
        game.count,
        tuple(game.played),
        tuple(game.passed),
        len(game.log),
        len(game.events),
        game.rng.getstate(),
    )


# --- construction and chance ---------------------------------------------------------------


def test_a_new_game_cuts_for_deal_unless_told_the_dealer() -> None:
    game = Game(seed=1)
    assert game.rules == find_rules("standard")
    assert (game.phase, game.to_move, game.scores) == (Phase.CUT_FOR_DEAL, CHANCE, [0, 0])
    assert game.legal_actions() == [] and not game.is_over
    events = game.advance()
    assert game.phase is Phase.DISCARD and events == game.events
    told = Game(seed=1, first_dealer=1)
    assert told.phase is Phase.DEAL and told.dealer == 1 and told.pone == 0


@pytest.mark.parametrize(
    "options",
    [{"manual_count": [2]}, {"cut_seats": [-1]}, {"first_dealer": 2}, {"first_dealer": -1}],
)
def test_seats_must_exist(options: dict[str, object]) -> None:
    with pytest.raises(IllegalActionError, match="no seat"):
        Game(seed=1, **options)  # type: ignore[arg-type]


def test_the_same_seed_plays_the_same_game() -> None:
    def play(seed: int) -> list[object]:
        game = Game(find_rules("standard"), seed=seed)
        players = [GreedyPlayer(1), RandomPlayer(2)]
        while not game.is_over:
            seat = game.to_move
            assert seat is not None
            action = game.sample_chance() if seat == CHANCE else None
            game.apply(action or players[seat].choose(game.observation(seat)))
        return list(game.events)

    assert play(11) == play(11)
    assert play(11) != play(12)


def test_sample_chance_is_only_for_chance_steps() -> None:
    game = new_game("standard")
    outcome = game.sample_chance()
    assert isinstance(outcome, DealHands)
    game.apply(outcome)
    assert game.to_move == 0
    with pytest.raises(IllegalActionError, match="no chance step in the discard phase"):
        game.sample_chance()
    with pytest.raises(IllegalActionError, match="a seat must decide"):
        game.apply(outcome)
    assert game.advance() == []


def test_advance_stops_where_a_seat_decides() -> None:
    game = Game(find_rules("standard"), seed=4, cut_seats=[1])
    game.advance()  # seat 0's cut is drawn at random; seat 1 cuts by hand
    assert game.to_move == 1 and len(game.log) == 1
    assert game.legal_actions()[0] == Cut(4)
    assert game.advance() == [] and len(game.log) == 1


def test_a_recorded_cut_may_stand_in_for_a_seats_cut() -> None:
    # Replays apply the recorded card for a seat that chose how deep to cut.
    game = Game(find_rules("standard"), seed=4, cut_seats=[0])
    game.apply(DrawForDeal(0, card("3c")))
    game.apply(DrawForDeal(1, card("9d")))
    assert game.dealer == 0 and game.log[0] == (0, DrawForDeal(0, card("3c")))


# --- legal actions ---------------------------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_legal_actions_are_exactly_what_check_legal_accepts(preset: str) -> None:
    options = {"manual_count": [0], "cut_seats": [1]}
    for step, game in enumerate(states(preset, seed=5, **options)):
        if step % 3 or game.to_move == CHANCE:
            continue
        legal = game.legal_actions()
        assert len(set(legal)) == len(legal)
        for action in legal:
            if isinstance(action, Count):
                continue  # claims above the total are listed (they reveal nothing) but refused
            assert game.is_legal(action), action
        for action in ALL_ACTIONS:
            if game.is_legal(action):
                assert action in legal, action
        if game.phase is Phase.DISCARD:
            hand = game.hands[game.to_move]  # type: ignore[index]
            k = game.rules.discard
            assert legal == [Discard(c) for c in combinations(hand, k)]
        if game.phase is Phase.SHOW and game.pending_muggins is None:
            assert legal == [Count(n) for n in range(30)]


def test_legal_plays_are_in_hand_order_then_go() -> None:
    game = new_game("standard")
    setup(game, ["ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d"], ["kd qd", "3c 4d"], "ks")
    assert game.legal_actions() == [Play(c) for c in cards("ac 8c 9h 9s")]
    assert game.legal_actions()[0] is PLAY_ACTIONS[card("ac").index]


@settings(max_examples=60, deadline=None)
@given(
    preset=st.sampled_from(list(PRESETS)),
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 150),
    junk=st.lists(st.sampled_from(ALL_ACTIONS), min_size=1, max_size=8),
)
def test_an_illegal_action_raises_and_changes_nothing(
    preset: str, seed: int, steps: int, junk: list[Action]
) -> None:
    walk = states(preset, seed, manual_count=[0], cut_seats=[0])
    game = next(walk)
    for _ in range(steps):
        game = next(walk, game)
    for action in junk:
        legal = game.is_legal(action)
        before = fingerprint(game)
        if legal:
            game.clone().apply(action)  # accepted: it must apply without error
            continue
        with pytest.raises(IllegalActionError):
            game.apply(action)
        assert fingerprint(game) == before


def test_a_seat_action_at_a_chance_step_is_refused() -> None:
    game = Game(find_rules("standard"), seed=1)
    with pytest.raises(IllegalActionError, match="go is not legal: a chance step is next"):
        game.apply(GO)


# --- observations and privacy ----------------------------------------------------------------


def visible_cards(obs: Observation) -> set[Card]:
    """Every card an observation mentions, anywhere."""
    found: set[Card] = set()

    def walk(value: object) -> None:
        if isinstance(value, Card):
            found.add(value)
        elif isinstance(value, tuple):
            for item in value:
                walk(item)
        elif isinstance(value, Play | Discard):
            walk(dataclasses.astuple(value))

    for field in dataclasses.fields(obs):
        if field.name != "rules":
            walk(getattr(obs, field.name))
    return found


@pytest.mark.parametrize("preset", list(PRESETS))
def test_an_observation_shows_only_what_its_seat_may_see(preset: str) -> None:
    for seed in range(3):
        for game in states(preset, seed, manual_count=[1]):
            n = game.rules.players
            public = {c for _, c in game.played} | {c for _, _, h in game.shown for c in h}
            if game.starter is not None:
                public.add(game.starter)
            for seat in range(n):
                obs = game.observation(seat)
                own = set(game.dealt[seat])
                counting = set(obs.to_count)
                assert visible_cards(obs) <= public | own | counting, (seat, game.phase)
                if counting:  # only the seat counting by hand, and only what it shows
                    assert game.to_move == seat and game.phase is Phase.SHOW
                assert obs.hand == tuple(game.hands[seat])
                assert obs.hand_sizes == tuple(len(h) for h in game.hands)
                assert (obs.legal != ()) == (game.to_move == seat and bool(game.legal_actions()))


def test_observation_fields() -> None:
    game = new_game("four-player", dealer=3)
    game.advance()
    obs = game.observation(2)
    assert (obs.seat, obs.side, obs.is_dealer, obs.dealer) == (2, 0, False, 3)
    assert game.observation(3).is_dealer and game.observation(3).side == 1
    assert obs.to_move == 0 and obs.legal == () and obs.phase is Phase.DISCARD
    assert len(obs.hand) == 5 and obs.kept == () and obs.discards == ()
    mover = game.observation(0)
    assert mover.legal == tuple(game.legal_actions())
    game.apply(mover.legal[0])
    after = game.observation(0)
    assert after.discards == mover.legal[0].cards  # type: ignore[union-attr]
    assert len(after.kept) == 4 and after.hand == after.kept
    with pytest.raises(dataclasses.FrozenInstanceError):
        after.count = 5  # type: ignore[misc]


def test_observations_are_snapshots() -> None:
    game = new_game("standard")
    setup(game, ["ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d"], ["kd qd", "3c 4d"], "ks")
    before = game.observation(0)
    game.apply(Play(card("8c")))
    assert before.hand == cards("ac 8c 9h 9s") and before.played == () and before.count == 0
    assert game.observation(0).played == ((0, card("8c")),)


def test_events_for_hides_other_hands_and_discards() -> None:
    game = new_game("three-player", dealer=0)
    game.advance()
    while game.phase is Phase.DISCARD:
        game.apply(game.legal_actions()[0])
    for seat in range(3):
        seen = game.events_for(seat)
        (dealt,) = [e for e in seen if isinstance(e, Dealt)]
        assert [h is not None for h in dealt.hands] == [s == seat for s in range(3)]
        for e in seen:
            if isinstance(e, Discarded):
                assert (e.cards is not None) == (e.seat == seat) and e.count == 1
    full = next(e for e in game.events if isinstance(e, Dealt))
    assert all(h is not None for h in full.hands)  # the game's own list is untouched
    assert (
        game.events_for(1, game.events[-1:])
        == [
            e if e.seat == 1 else Discarded(e.seat, None, 1)  # type: ignore[union-attr]
            for e in game.events[-1:]
        ]
    )


def test_show_events_reveal_the_shown_cards_to_everyone() -> None:
    game = new_game("standard")
    setup(game, ["ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d"], ["kd qd", "3c 4d"], "ks")
    while game.phase is Phase.PLAY:
        game.apply(game.legal_actions()[0])
    counted = [e for e in game.events_for(0) if isinstance(e, HandCounted)]
    assert sorted(counted[2].cards) == sorted(cards("kd qd 3c 4d"))  # the crib, shown
    assert counted[0].score().total == counted[0].total


# --- clones, logs, events -------------------------------------------------------------------


def test_a_clone_is_independent_and_continues_the_same_way() -> None:
    game = Game(find_rules("standard"), seed=9)
    game.advance()
    copy = game.clone()
    assert copy.rng is not game.rng and copy.hands is not game.hands
    a = game.legal_actions()[0]
    game.apply(a)
    assert copy.phase is Phase.DISCARD and len(copy.log) == len(game.log) - 1
    copy.apply(a)
    for g in (game, copy):
        g.apply(g.legal_actions()[-1])
    assert game.sample_chance() == copy.sample_chance()  # the RNG state was copied
    assert fingerprint(game)[:-1] == fingerprint(copy)[:-1]


def test_apply_returns_the_events_it_caused_and_logs_the_action() -> None:
    game = new_game("standard")
    setup(game, ["ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d"], ["kd qd", "3c 4d"], "ks")
    n = len(game.events)
    events = game.apply(Play(card("8c")))
    assert events == [CardPlayed(0, card("8c"), 8)] and game.events[n:] == events
    events = game.apply(Play(card("7d")))
    assert events[1] == Scored(1, 1, 2, events[1].reason, 2, cards("8c 7d"))  # type: ignore[union-attr]
    assert game.log[-2:] == [(0, Play(card("8c"))), (1, Play(card("7d")))]
    assert [a for who, a in game.log if who == CHANCE][-1] == TurnStarter(card("ks"))


def test_repr_names_the_rules_seed_phase_and_scores() -> None:
    assert repr(Game(seed=3)) == "<Game standard seed=3 cut for deal scores 0-0>"


# --- the fast constructor behind events and observations --------------------------------------


def test_fast_constructor_makes_ordinary_frozen_values() -> None:
    make = fast_constructor(CardPlayed)
    made = make(1, card("5h"), 20)
    plain = CardPlayed(1, card("5h"), 20)
    assert type(made) is CardPlayed and made == plain and hash(made) == hash(plain)
    assert repr(made) == repr(plain) and pickle.loads(pickle.dumps(made)) == plain
    assert dataclasses.replace(made, count=21) == CardPlayed(1, card("5h"), 21)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.count = 3  # type: ignore[misc]

    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        x: int

    with pytest.raises(TypeError, match="not a slots dataclass"):
        fast_constructor(NoSlots)
    # A compiled class is its own fast constructor (its __init__ is compiled).
    assert (make is CardPlayed) is fifteentwo.COMPILED


def test_observations_pickle_and_stay_frozen() -> None:
    game = Game(seed=3)
    game.advance()
    obs = game.observation(game.to_move)
    assert pickle.loads(pickle.dumps(obs)) == obs
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.count = 3  # type: ignore[misc]


def test_games_are_independent_of_the_global_random_state() -> None:
    random.seed(1)
    a = Game(seed=5)
    a.advance()
    random.seed(2)
    b = Game(seed=5)
    b.advance()
    assert a.events == b.events


def test_the_engine_is_compiled_exactly_when_the_run_expects_it() -> None:
    """`make test-compiled` sets FIFTEENTWO_EXPECT_COMPILED=1, so its run cannot silently test
    the pure-Python engine; an ordinary install is pure Python."""
    expected = os.environ.get("FIFTEENTWO_EXPECT_COMPILED") == "1"
    assert fifteentwo.COMPILED is expected
    engine = (deal, play, show, state)
    served = (describe, view)  # the web server's state messages (docs/speed.md)
    for module in (game_module, scoring, actions, cards_module, observation, *engine, *served):
        assert module.__file__ is not None
        assert module.__file__.endswith(".py") is not expected, module.__name__
