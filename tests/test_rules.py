"""`Rules`: the presets as the sources give them, the checks on every field, JSON, look-up.

docs/rules.md gives the source text behind each preset and option.
"""

from __future__ import annotations

import dataclasses

import pytest

from fifteentwo.errors import RulesError
from fifteentwo.rules import PRESETS, STANDARD, Rules, find_rules, preset_names

# name: (players, partnerships, hand, discard, pack, target, skunk, double, three for last,
#        second series, optional play after a go)
TABLE = {
    "standard": (2, False, 6, 2, 0, 121, 91, 61, 0, True, False),
    "short": (2, False, 6, 2, 0, 61, 31, 1, 0, True, False),
    "five-card": (2, False, 5, 2, 0, 61, 30, None, 3, False, True),
    "three-player": (3, False, 5, 1, 1, 61, 31, 1, 0, True, False),
    "four-player": (4, True, 5, 1, 0, 121, 91, 61, 0, True, False),
    "hoyle-lurch": (2, False, 6, 2, 0, 121, 61, None, 0, True, False),
}


@pytest.mark.parametrize("name", list(TABLE))
def test_presets_as_documented(name: str) -> None:
    r = find_rules(name)
    assert r.name == name
    got = (
        r.players,
        r.partnerships,
        r.hand_size,
        r.discard,
        r.crib_from_pack,
        r.target,
        r.skunk,
        r.double_skunk,
        r.three_for_last,
        r.second_series,
        r.optional_play_after_go,
    )
    assert got == TABLE[name]
    # Options every preset leaves at the modern default.
    assert (r.muggins, r.match_games, r.nobs_in_crib, r.game_points) == (False, 1, True, (1, 2, 4))
    # Each hand keeps four cards (three at five-card), and the crib always has four.
    assert r.kept == (3 if name == "five-card" else 4)
    assert r.players * r.discard + r.crib_from_pack == 4


def test_preset_names_and_aliases() -> None:
    assert preset_names() == list(TABLE) == list(PRESETS)
    for alias, name in {
        "121": "standard",
        "Six-Card": "standard",
        "61": "short",
        "5-card": "five-card",
        "five_card": "five-card",
        "3": "three-player",
        "four": "four-player",
        " LURCH ": "hoyle-lurch",
    }.items():
        assert find_rules(alias) is PRESETS[name]
    with pytest.raises(RulesError, match="unknown variant 'seven'; choose from standard"):
        find_rules("seven")
    assert STANDARD is find_rules("standard") and Rules() == STANDARD


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"players": 5}, "players must be 2, 3 or 4"),
        ({"partnerships": True}, "partnerships need four players"),
        ({"discard": 1}, "the crib must have 4 cards"),
        ({"hand_size": 8}, "must keep 3 or 4 cards"),
        ({"target": 10}, "target must be between 15 and 1000"),
        ({"skunk": 0}, "skunk line must be between 1 and the target"),
        ({"double_skunk": 95}, "at or below the skunk line"),
        ({"skunk": None}, "at or below the skunk line"),
        ({"match_games": 2}, "odd number of games"),
        ({"three_for_last": -1}, "three for last must be from 0 to below the target"),
        ({"three_for_last": 121}, "three for last must be from 0 to below the target"),
        ({"game_points": (1, 2)}, "three positive numbers"),
        ({"game_points": (1, 0, 4)}, "three positive numbers"),
    ],
)
def test_rules_are_checked_when_made(changes: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        STANDARD.replace(**changes)


def test_rules_are_frozen_values() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        STANDARD.target = 61  # type: ignore[misc]
    assert STANDARD.replace(muggins=True) == STANDARD.replace(muggins=True)
    assert STANDARD.replace(muggins=True).name == "standard"  # a change does not rename


def test_sides_and_side_of_seat() -> None:
    assert [STANDARD.side_of(s) for s in range(2)] == [0, 1]
    four = find_rules("four-player")
    assert four.sides == 2 and [four.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    three = find_rules("three-player")
    assert three.sides == 3 and [three.side_of(s) for s in range(3)] == [0, 1, 2]


@pytest.mark.parametrize(
    ("name", "levels"),
    [
        # loser's score: skunk level (0 plain, 1 skunk or lurch, 2 double skunk)
        ("standard", {120: 0, 91: 0, 90: 1, 61: 1, 60: 2, 0: 2}),
        ("short", {60: 0, 31: 0, 30: 1, 1: 1, 0: 2}),
        ("five-card", {60: 0, 30: 0, 29: 1, 0: 1}),
        ("three-player", {31: 0, 30: 1, 0: 2}),
        ("four-player", {91: 0, 90: 1, 60: 2}),
        ("hoyle-lurch", {61: 0, 60: 1, 0: 1}),
    ],
)
def test_skunk_levels(name: str, levels: dict[int, int]) -> None:
    rules = find_rules(name)
    assert {score: rules.skunk_level(score) for score in levels} == levels


def test_with_target_keeps_the_lines_distance_below_the_target() -> None:
    assert STANDARD.with_target(61) == STANDARD.replace(target=61, skunk=31, double_skunk=1)
    assert find_rules("short").with_target(121).skunk == 91
    lurch = find_rules("hoyle-lurch").with_target(61)
    assert (lurch.skunk, lurch.double_skunk) == (1, None)
    tiny = STANDARD.with_target(31)
    assert (tiny.skunk, tiny.double_skunk) == (1, 1)  # clamped to the first hole


def test_json_round_trip_and_errors() -> None:
    for rules in [*PRESETS.values(), STANDARD.replace(muggins=True, match_games=5)]:
        data = rules.to_json()
        assert data["game_points"] == list(rules.game_points)
        assert set(data) == {f.name for f in dataclasses.fields(Rules)}
        assert Rules.from_json(data) == rules
    assert Rules.from_json({}) == STANDARD
    with pytest.raises(RulesError, match="unknown rules field"):
        Rules.from_json({"players": 2, "jokers": True})
    with pytest.raises(RulesError, match="a JSON object"):
        Rules.from_json([])  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="players must be"):
        Rules.from_json({"players": 7})
