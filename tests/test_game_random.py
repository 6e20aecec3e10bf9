"""100,000 random games over every preset, each checked against the rules and replayed.

Games mix random and greedy players, manual counting (with under-claims) and muggins, seats
that cut by hand, matches, other targets and the no-nobs-in-crib option. Each finished game's
event stream is checked in one pass against invariants that do not trust the engine's own
bookkeeping (the go and last-card points, the count, card conservation, the order of scoring,
the end of the game, skunks, dealers), and its record is replayed, which must reproduce it.

The games are split into chunks so that ``pytest -n auto`` spreads them over the cores.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

import pytest

from fifteentwo.actions import (
    CHANCE,
    Action,
    CardPlayed,
    CountReset,
    DealDone,
    DealerChosen,
    DealHands,
    Dealt,
    Discarded,
    GameOver,
    GoSaid,
    HandCounted,
    MatchOver,
    Reason,
    Scored,
    StarterTurned,
)
from fifteentwo.cards import Rank
from fifteentwo.game import Game, Observation
from fifteentwo.players import GreedyPlayer, Player, RandomPlayer
from fifteentwo.records import dumps, game_record, loads, replay
from fifteentwo.rules import PRESETS, Rules
from fifteentwo.scoring import peg_points_ranks

GAMES = int(os.environ.get("FIFTEENTWO_RANDOM_GAMES", "100000"))
"""How many games (at least 100,000 in ``make test``); set lower for a quick local run."""
CHUNKS = 50
PER_CHUNK = max(1, GAMES // CHUNKS)
PRESET_NAMES = list(PRESETS)

# Module constants: reading an enum member off its class is ten times slower than a global.
PLAY, GO, LAST = Reason.PLAY, Reason.GO, Reason.LAST_CARD
HEELS, THREE = Reason.HIS_HEELS, Reason.THREE_FOR_LAST
JACK = int(Rank.JACK)
PIPS = [min(i // 4 + 1, 10) for i in range(52)]


class Careless(RandomPlayer):
    """A random player counting by hand who sometimes misses points and muggins at random."""

    def choose_count(self, obs: Observation) -> int:
        total = super().choose_count(obs)
        if total and self.rng.random() < 0.3:
            return self.rng.randrange(total)
        return total

    def choose_muggins(self, obs: Observation) -> bool:
        return self.rng.random() < 0.7


class Uniform:
    """The leanest random seat: any legal action, uniformly, straight from the game.

    Most seats play this way, which spares building observations (the `Player` path is what
    `RandomPlayer`, `GreedyPlayer` and `Careless` seats exercise, and test_game.py checks).
    """

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, game: Game) -> Action:
        return self.rng.choice(game.legal_actions())


@dataclass(frozen=True)
class Setup:
    """One random game's rules and table."""

    rules: Rules
    seed: int
    players: tuple[Player | Uniform, ...]
    manual_count: tuple[int, ...]
    cut_seats: tuple[int, ...]
    first_dealer: int | None


def random_setup(seed: int) -> Setup:
    """Rules and players for game number ``seed``: every preset in turn, options at random."""
    rng = random.Random(seed * 7919 + 1)
    rules = PRESETS[PRESET_NAMES[seed % len(PRESET_NAMES)]]
    n = rules.players
    changes: dict[str, object] = {}
    if rng.random() < 0.25:
        changes["muggins"] = True
    if rng.random() < 0.1:
        changes["nobs_in_crib"] = False
    if rng.random() < 0.1:
        changes["match_games"] = 3
    if changes:
        rules = rules.replace(**changes)
    if rng.random() < 0.05:
        rules = rules.with_target(rng.choice((31, 45, 91)))
    manual = tuple(s for s in range(n) if rng.random() < 0.2)
    cut_seats = tuple(s for s in range(n) if rng.random() < 0.15)
    first_dealer = rng.randrange(n) if rng.random() < 0.5 else None
    players: list[Player | Uniform] = []
    for s in range(n):
        kind = rng.random()
        if s in manual:
            players.append(Careless(seed + s))
        elif kind < 0.1:
            players.append(GreedyPlayer(seed + s))
        elif kind < 0.25:
            players.append(RandomPlayer(seed + s))
        else:
            players.append(Uniform(seed + s))
    return Setup(rules, seed, tuple(players), manual, cut_seats, first_dealer)


def run(setup: Setup) -> Game:
    """Play the game to the end."""
    game = Game(
        setup.rules,
        seed=setup.seed,
        manual_count=setup.manual_count,
        cut_seats=setup.cut_seats,
        first_dealer=setup.first_dealer,
    )
    apply, sample, observe = game.apply, game.sample_chance, game.observation
    choose = [(p.act, None) if isinstance(p, Uniform) else (None, p.choose) for p in setup.players]
    seat = game.to_move
    while seat is not None:
        if seat == CHANCE:
            apply(sample())
        else:
            act, player = choose[seat]
            apply(act(game) if act is not None else player(observe(seat)))  # type: ignore[misc]
        seat = game.to_move
    return game


def expected_skunk(rules: Rules, best_loser: int) -> int:
    """The skunk level from the rules' lines, computed here independently of `Rules`."""
    if rules.double_skunk is not None and best_loser < rules.double_skunk:
        return 2
    if rules.skunk is not None and best_loser < rules.skunk:
        return 1
    return 0


def check(game: Game) -> None:
    """Check a finished game's events against the rules (see the module docstring)."""
    rules = game.rules
    n, target, sides = rules.players, rules.target, rules.sides
    side_of = [rules.side_of(s) for s in range(n)]
    deals = [a for actor, a in game.log if actor == CHANCE and isinstance(a, DealHands)]
    six_card_pair = n == 2 and rules.hand_size == 6 and rules.second_series

    scores = [0] * sides
    match_points = [0] * sides
    dealer = -1
    game_over = False
    expect_new_game = True  # the next deal begins a game (the first, or after a GameOver)
    expect_next_dealer: int | None = None
    deal_index = -1
    hands: list[set[object]] = []
    last_scored_side = -1
    count, ranks, last_player, owe_go = 0, [], -1, False
    pegged = [0] * n
    for i, event in enumerate(game.events):
        kind = type(event)
        if game_over and kind is not MatchOver:  # the next game of a match begins
            game_over = False
            expect_new_game = True
            scores = [0] * sides
        if kind is CardPlayed:
            seat, c = event.seat, event.card
            assert c.index in hands[seat], f"{c} played by seat {seat}, who does not hold it"
            hands[seat].remove(c.index)
            count += c.pips
            assert event.count == count <= 31
            ranks.append(c.rank)
            last_player = seat
            owe_go = True
            points = peg_points_ranks(ranks, count)
            nxt = game.events[i + 1] if i + 1 < len(game.events) else None
            if points:
                assert isinstance(nxt, Scored) and nxt.reason is PLAY and nxt.seat == seat
                assert nxt.points == points
            else:
                assert not (isinstance(nxt, Scored) and nxt.reason is PLAY)
            if count == 31:
                owe_go = False
        elif kind is Scored:
            assert event.points > 0 and event.side == side_of[event.seat]
            reason = event.reason
            if expect_new_game:  # before a game's first deal: only three for last
                assert reason is THREE
            if reason is GO or reason is LAST:
                assert owe_go and event.seat == last_player and count != 31
                assert event.points == 1
                cards_left = any(hands)
                assert (reason is GO) == cards_left, "a go with no cards left, or vice versa"
                owe_go = False
                if reason is LAST:
                    assert not cards_left
                pegged[event.seat] += 1
            elif reason is PLAY:
                pegged[event.seat] += event.points
            elif reason is HEELS:
                assert event.seat == dealer and event.points == 2
                assert isinstance(game.events[i - 1], StarterTurned)
            elif reason is THREE:
                assert event.points == rules.three_for_last
                if expect_next_dealer is not None:  # known unless the game set the dealer
                    assert event.seat == (expect_next_dealer + 1) % n
            side = event.side
            assert event.score == min(scores[side] + event.points, target)
            scores[side] = event.score
            last_scored_side = side
        elif kind is GoSaid:
            assert hands[event.seat], "a seat out of cards said go"
            # It cannot come in (or, in five-card play, chose not to after another's go).
            assert rules.optional_play_after_go or all(
                PIPS[c] + count > 31 for c in hands[event.seat]
            )
        elif kind is CountReset:
            assert rules.second_series and not owe_go
            # The player after the one who played last leads, skipping players out of cards.
            leader = next(
                (last_player + k) % n for k in range(1, n + 1) if hands[(last_player + k) % n]
            )
            assert event.leader == leader
            count, ranks = 0, []
        elif kind is Dealt:
            deal_index += 1
            if expect_new_game:
                if expect_next_dealer is not None:
                    assert event.dealer == expect_next_dealer, "the loser deals first"
                expect_new_game = False
            else:
                assert event.dealer == (dealer + 1) % n, "the deal passes to the left"
            dealer = event.dealer
            outcome = deals[deal_index]
            assert event.hands == outcome.hands
            dealt = {c.index for h in outcome.hands for c in h} | {c.index for c in outcome.pack}
            assert len(dealt) == n * rules.hand_size + rules.crib_from_pack
            hands = [{c.index for c in h} for h in outcome.hands]
            crib = [c.index for c in outcome.pack]
            kept: list[list[int]] = [[] for _ in range(n)]
            discard_order: list[int] = []
            starter = None
            count, ranks, last_player, owe_go = 0, [], -1, False
            pegged = [0] * n
            show: list[tuple[int, bool]] = []
        elif kind is Discarded:
            assert event.cards is not None
            discard_order.append(event.seat)
            assert len(event.cards) == rules.discard
            for c in event.cards:
                hands[event.seat].remove(c.index)
                crib.append(c.index)
            kept[event.seat] = sorted(hands[event.seat])
        elif kind is StarterTurned:
            assert discard_order == [(dealer + k) % n for k in range(1, n + 1)]
            starter = event.card
            assert starter.index not in dealt, "the starter was also dealt"
            assert event.cut_by == (dealer + 1) % n
            heels = game.events[i + 1] if i + 1 < len(game.events) else None
            is_heels = isinstance(heels, Scored) and heels.reason is HEELS
            assert is_heels == (starter.rank == JACK)
        elif kind is HandCounted:
            if not show:  # the play is over
                assert not owe_go, "a go or last card was not pegged"
                if rules.second_series:
                    assert not any(hands), "the play ended with cards unplayed"
                if six_card_pair:
                    # Hoyle: "Since nondealer makes the opening lead, dealer is bound to peg at
                    # least 1 in play."
                    assert pegged[dealer] >= 1
                show = [((dealer + k) % n, False) for k in range(1, n + 1)] + [(dealer, True)]
            assert (event.seat, event.crib) == show.pop(0), "the show is out of order"
            assert event.starter is starter
            shown = sorted(c.index for c in event.cards)
            assert shown == (sorted(crib) if event.crib else kept[event.seat])
            assert 0 <= event.claimed <= event.total
            if event.seat not in game.manual_count:
                assert event.claimed == event.total
        elif kind is DealDone:
            assert show == [] and list(event.scores) == scores
        elif kind is GameOver:
            winner = event.winner
            assert winner == last_scored_side and scores[winner] == target
            assert all(s < target for k, s in enumerate(scores) if k != winner)
            assert list(event.scores) == scores
            best_loser = max(s for k, s in enumerate(scores) if k != winner)
            skunk = expected_skunk(rules, best_loser)
            assert event.skunk == skunk and event.game_points == rules.game_points[skunk]
            match_points[winner] += event.game_points
            assert list(event.match_points) == match_points
            low = min(scores)
            expect_next_dealer = next(
                s for s in ((dealer + k) % n for k in range(1, n + 1)) if scores[side_of[s]] == low
            )
            game_over = True
        elif kind is MatchOver:
            assert game_over and event.winner == winner == game.winner
            assert max(match_points) >= rules.match_games // 2 + 1
            assert i == len(game.events) - 1
        elif kind is DealerChosen:
            low_rank = min(c.rank for _, c in event.cuts)
            lowest = [s for s, c in event.cuts if c.rank == low_rank]
            assert event.dealer == (lowest[0] if len(lowest) == 1 else None)
            if event.dealer is not None:
                expect_next_dealer = event.dealer
    assert game.is_over and game_over
    assert list(game.match_points) == match_points


def check_replay(game: Game, *, deep: bool) -> None:
    """The record replays to the same game; ``deep`` also goes through JSON and events."""
    record = game_record(game)
    if deep:
        record = loads(dumps(record))
    again = replay(record)
    assert again.is_over and again.scores == game.scores
    assert again.match_points == game.match_points and again.winner == game.winner
    if deep:
        assert again.events == game.events


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games_keep_the_rules_and_replay(chunk: int) -> None:
    for seed in range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK):
        setup = random_setup(seed)
        game = run(setup)
        try:
            check(game)
            check_replay(game, deep=seed % 10 == 0)
        except AssertionError as exc:
            raise AssertionError(f"game {seed} ({setup.rules.name}): {exc}") from exc


def test_the_random_games_cover_every_option() -> None:
    setups = [random_setup(seed) for seed in range(PER_CHUNK)]
    assert {s.rules.name for s in setups} == set(PRESETS)
    assert any(s.rules.muggins and s.manual_count for s in setups)
    assert any(s.cut_seats for s in setups) and any(s.first_dealer is None for s in setups)
    assert any(s.rules.match_games > 1 for s in setups)
    assert any(not s.rules.nobs_in_crib for s in setups)
    assert any(s.rules.target not in (61, 121) for s in setups)
    kinds = {type(p) for s in setups for p in s.players}
    assert kinds == {RandomPlayer, GreedyPlayer, Careless, Uniform}


def test_the_checker_catches_a_go_pegged_by_the_wrong_seat() -> None:
    game = run(random_setup(0))
    assert game.rules.players == 2
    check(game)
    i, go = next(
        (i, e) for i, e in enumerate(game.events) if isinstance(e, Scored) and e.reason is GO
    )
    game.events[i] = Scored(1 - go.seat, 1 - go.side, 1, GO, go.score, ())
    with pytest.raises(AssertionError):
        check(game)
