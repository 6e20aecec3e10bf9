"""The arena: statistics, reproducible seeding, duplicate deals, records and the command."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from fifteentwo.arena import (
    DecisionTimes,
    GameOutcome,
    GameTask,
    derive_seed,
    mean_interval,
    play_one,
    run_match,
    summarise,
    wilson_interval,
)
from fifteentwo.cli import main
from fifteentwo.errors import FifteenTwoError
from fifteentwo.records import read_records, replay
from fifteentwo.rules import find_rules


def strip_times(outcomes: list) -> list:  # type: ignore[type-arg]
    return [
        (o.index, o.a_seats, o.winner, o.scores, o.match_points, o.first_dealer, o.deals)
        for o in outcomes
    ]


# --- statistics ------------------------------------------------------------------------------


def test_wilson_interval_brackets_the_rate() -> None:
    i = wilson_interval(0, 10)
    assert i.value == 0 and i.low == 0 and 0.2 < i.high < 0.35
    i = wilson_interval(5500, 10000)
    assert i.low < 0.55 < i.high and i.high - i.low < 0.02
    assert i.excludes(0.5) and not i.excludes(0.55)
    assert math.isnan(wilson_interval(0, 0).value)


def test_mean_interval_narrows_with_samples() -> None:
    wide = mean_interval([1.0, -1.0] * 10)
    narrow = mean_interval([1.0, -1.0] * 1000)
    assert wide.value == narrow.value == 0
    assert narrow.high - narrow.low < wide.high - wide.low
    assert mean_interval([3.0]).low == -math.inf


def test_decision_time_quantiles_within_two_percent() -> None:
    times = DecisionTimes()
    for ms in range(1, 101):
        times.add(ms / 1000)
    other = DecisionTimes()
    other.add(0.5)
    times.merge(other)
    assert times.count == 101 and times.max == 0.5
    assert times.quantile(0.5) == pytest.approx(51, rel=0.03)
    assert times.quantile(0.99) == pytest.approx(100, rel=0.03)
    assert DecisionTimes().to_json() == {"decisions": 0}


def test_seeds_are_stable_and_distinct() -> None:
    assert derive_seed(1, "deal", 0) == derive_seed(1, "deal", 0)
    assert len({derive_seed(1, "deal", i) for i in range(100)}) == 100
    assert derive_seed(1, "a", 0) != derive_seed(2, "a", 0)


# --- matches --------------------------------------------------------------------------------


def test_a_match_is_reproducible_and_summarised() -> None:
    rules = find_rules("short")
    first = run_match("standard", "novice", rules, 12, seed=4)
    again = run_match("standard", "novice", rules, 12, seed=4)
    assert strip_times(first.outcomes) == strip_times(again.outcomes)
    assert first.a_wins + first.b_wins == 12
    assert [o.a_seats for o in first.outcomes[:2]] == [(0,), (1,)]  # seats alternate
    assert 0 <= first.win_rate.low <= first.win_rate.value <= first.win_rate.high <= 1
    assert first.decision_ms["a"]["decisions"] > 0
    data = first.to_json()
    json.dumps(data)
    assert data["paired"] is None and "outcomes" not in data
    different = run_match("standard", "novice", rules, 12, seed=5)
    assert strip_times(different.outcomes) != strip_times(first.outcomes)


def test_processes_do_not_change_the_result() -> None:
    rules = find_rules("short")
    one = run_match("standard", "greedy", rules, 8, seed=2, duplicate=True)
    two = run_match("standard", "greedy", rules, 8, seed=2, duplicate=True, jobs=2)
    assert strip_times(one.outcomes) == strip_times(two.outcomes)
    assert one.paired == two.paired


@pytest.mark.parametrize("variant", ["standard", "four-player", "three-player", "five-card"])
def test_duplicate_games_deal_the_same_cards_to_the_same_seats(variant: str) -> None:
    """The premise of duplicate play: both games of a set see the same deals seat by seat,
    with the players' seats swapped (so B holds A's cards), whatever the players do."""
    rules = find_rules(variant)
    n_legs = 3 if rules.players == 3 else 2
    for pair in range(3):
        games = [
            play_one(
                GameTask("novice", "random", rules, 9, pair * n_legs + leg, True, False),
                keep_deals=4,
            )
            for leg in range(n_legs)
        ]
        assert len({g.a_seats for g in games}) == n_legs  # A sat in different seats
        assert len({g.first_dealer for g in games}) == 1
        common = min(len(g.deals_seen) for g in games)
        assert common >= 2
        for g in games[1:]:
            assert g.deals_seen[:common] == games[0].deals_seen[:common]


def test_equal_deterministic_players_pair_to_exactly_zero() -> None:
    """Standard decides without randomness, so the two games of a pair are mirror images."""
    result = run_match("standard", "standard", find_rules("short"), 10, duplicate=True, seed=3)
    assert result.sets == 5
    assert result.paired is not None
    for key in ("wins", "margin", "game_points"):
        assert result.paired[key].value == 0
    assert result.win_rate.value == 0.5


def test_duplicate_rounds_games_up_to_whole_sets() -> None:
    result = run_match("novice", "random", find_rules("three-player"), 4, duplicate=True)
    assert result.games == 6 and result.sets == 2
    assert result.paired is not None


def test_records_replay(tmp_path: Path) -> None:
    result = run_match("expert", "standard", find_rules("short"), 2, record=True, seed=1)
    records = result.records()
    assert len(records) == 2
    assert records[0]["players"][0].startswith("A: ")
    for record in records:
        replay(record)


def test_bad_matches_are_refused() -> None:
    rules = find_rules("short")
    with pytest.raises(FifteenTwoError, match="1 to 10,000,000 games"):
        run_match("standard", "novice", rules, 0)
    with pytest.raises(FifteenTwoError, match="unknown player"):
        run_match("grandmaster", "novice", rules, 2)


# --- the command ----------------------------------------------------------------------------


def test_arena_command_json_and_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.jsonl"
    code = main(
        [
            "arena", "--a", "standard", "--b", "fifteentwo.players:RandomPlayer",
            "--games", "4", "--variant", "short", "--duplicate", "--jobs", "1",
            "--seed", "5", "--record", str(path), "--json",
        ]
    )  # fmt: skip
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 4 and data["duplicate"] and data["sets"] == 2
    assert {"wins", "margin", "game_points"} <= set(data["paired"])
    assert data["decision_ms"]["a"]["decisions"] > 0
    assert len(read_records(path)) == 4


def test_arena_command_table(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "--a", "novice", "--b", "random", "--games", "2", "--jobs", "1"])
    assert code == 0
    out = capsys.readouterr().out
    assert "A wins" in out and "first dealer wins" in out


def test_arena_command_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--games", "0"]) == 2
    assert main(["arena", "--a", "nobody", "--games", "1", "--jobs", "1"]) == 2
    assert "unknown player" in capsys.readouterr().err


def outcome(index: int, a_won: bool) -> GameOutcome:
    """A two-player game of a duplicate match (A in seat 0, then seat 1, of each set)."""
    a_side = index % 2
    winner = a_side if a_won else 1 - a_side
    scores = tuple(121 if side == winner else 100 for side in range(2))
    times = DecisionTimes(), DecisionTimes()
    seats = (a_side,)
    return GameOutcome(index, index // 2, seats, a_side, winner, scores, (0, 0), (), 0, 9, *times)


@pytest.mark.parametrize("a_wins", [0, 20])
def test_a_duplicate_match_won_or_lost_whole_keeps_a_real_interval(a_wins: int) -> None:
    """A who lost all 20 games was reported as winning 0.0% [0.0%, 0.0%]: the interval of the
    sets' means has no spread at 0 or 1, so there the games' Wilson interval stands."""
    games = [outcome(i, a_won=bool(a_wins)) for i in range(20)]
    result = summarise("a", "b", find_rules("standard"), games, duplicate=True)
    rate = result.win_rate
    assert rate.value == a_wins / 20
    assert rate.high - rate.low > 0.1
    assert (rate.low, rate.high) == (
        wilson_interval(a_wins, 20).low,
        wilson_interval(a_wins, 20).high,
    )
    some = [outcome(i, i % 4 == 0) for i in range(20)]
    mixed = summarise("a", "b", find_rules("standard"), some, duplicate=True)
    assert 0 <= mixed.win_rate.low <= mixed.win_rate.value <= mixed.win_rate.high <= 1
