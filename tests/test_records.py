"""Game records (`fifteentwo-record/1`, docs/records.md): their shape, files, and replay.

tests/data/standard_seed_2024.jsonl is the record of one seeded game kept as a regression
transcript: the engine must play that game again, byte for byte.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from _scripted import new_game, setup
from fifteentwo.actions import CHANCE, Count, Muggins, Phase
from fifteentwo.errors import RecordError
from fifteentwo.game import Game
from fifteentwo.players import GreedyPlayer, RandomPlayer, play_game
from fifteentwo.records import (
    FORMAT,
    dumps,
    game_record,
    loads,
    read_records,
    replay,
    write_records,
)
from fifteentwo.rules import PRESETS, find_rules

DATA = Path(__file__).parent / "data"
REGRESSION = DATA / "standard_seed_2024.jsonl"

TOP_KEYS = [
    "format",
    "rules",
    "players",
    "seed",
    "manual_count",
    "cut_seats",
    "cut_for_deal",
    "first_dealer",
    "deals",
    "muggins",
    "games",
    "final",
]
DEAL_KEYS = [
    "game",
    "dealer",
    "hands",
    "pack",
    "discards",
    "crib",
    "starter",
    "cut_depth",
    "play",
    "counts",
    "points",
    "scores_after",
]


def regression_game() -> Game:
    """The seeded game of the regression transcript (see docs/records.md)."""
    return play_game(find_rules("standard"), [GreedyPlayer(7), RandomPlayer(8)], seed=2024)


def test_regression_transcript_standard_seed_2024() -> None:
    # After a deliberate change of the rules or the record format, regenerate it with
    # `.venv/bin/python tests/test_records.py` and review the difference.
    expected = REGRESSION.read_text(encoding="utf-8")
    record = game_record(regression_game(), ["greedy", "random"])
    assert dumps(record) + "\n" == expected
    (stored,) = read_records(REGRESSION)
    assert replay(stored).scores == [121, 97]


def write_regression() -> None:  # pragma: no cover - run by hand only
    """Write the regression transcript afresh."""
    write_records(REGRESSION, [game_record(regression_game(), ["greedy", "random"])])


def finished(preset: str, seed: int, **options: Any) -> Game:
    """A finished game whose seats choose at random (options: manual_count, cut_seats...)."""
    rules = find_rules(preset)
    if "muggins" in options:
        rules = rules.replace(muggins=options.pop("muggins"))
    if "match_games" in options:
        rules = rules.replace(match_games=options.pop("match_games"))
    game = Game(rules, seed=seed, **options)
    players = [RandomPlayer(seed + s) for s in range(rules.players)]
    while not game.is_over:
        seat = game.to_move
        assert seat is not None
        if seat == CHANCE:
            game.apply(game.sample_chance())
        elif game.phase is Phase.SHOW and game.pending_muggins is None:
            # Count by hand, missing a point in odd seeds so that muggins comes up.
            total = players[seat].choose_count(game.observation(seat))
            game.apply(Count(max(0, total - seed % 2)))
        else:
            game.apply(players[seat].choose(game.observation(seat)))
    return game


def test_record_keys_in_order() -> None:
    game = finished("standard", 3)
    record = game_record(game)
    assert list(record) == TOP_KEYS
    assert record["format"] == FORMAT == "fifteentwo-record/1"
    assert record["players"] == ["seat 0", "seat 1"]
    assert all(list(deal) == DEAL_KEYS for deal in record["deals"])
    assert list(record["final"]) == ["scores", "winner", "skunk", "game_points", "match_points"]
    assert list(record["games"][0]) == ["game", "scores", "winner", "skunk", "game_points"]
    deal = record["deals"][0]
    assert list(deal["points"][0]) == ["seat", "points", "reason", "score"]
    assert list(deal["counts"][0]) == ["seat", "crib", "total", "claimed"]
    assert json.loads(dumps(record)) == record


def test_record_of_a_scripted_deal() -> None:
    game = new_game("standard")
    setup(game, ["ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d"], ["kd qd", "3c 4d"], "ks")
    while game.phase is Phase.PLAY:
        game.apply(game.legal_actions()[0])
    record = game_record(game, ["Matt", "Noel"])
    assert record["players"] == ["Matt", "Noel"]
    assert (record["first_dealer"], record["cut_for_deal"], record["final"]) == (1, [], None)
    (deal,) = record["deals"]
    assert deal["hands"] == [
        ["AC", "8C", "9H", "9S", "KD", "QD"],
        ["2S", "7D", "TC", "JH", "3C", "4D"],
    ]
    assert deal["discards"] == [["QD", "KD"], ["3C", "4D"]]
    assert deal["crib"] == ["QD", "KD", "3C", "4D"] and deal["starter"] == "KS"
    assert deal["play"][:3] == [[0, "AC"], [1, "2S"], [0, "8C"]]
    assert deal["counts"][0] == {"seat": 0, "crib": False, "total": 2, "claimed": 2}
    assert deal["scores_after"] == game.scores
    with pytest.raises(RecordError, match="3 player names for 2 seats"):
        game_record(game, ["a", "b", "c"])


@pytest.mark.parametrize("preset", list(PRESETS))
def test_replay_reproduces_games_of_every_preset(preset: str) -> None:
    variants: list[dict[str, Any]] = [
        {},
        {"first_dealer": 1},
        {"manual_count": [0, 1], "muggins": True},
        {"manual_count": [1]},
        {"cut_seats": [0, 1]},
        {"match_games": 3, "cut_seats": [1]},
    ]
    for seed, options in enumerate(variants):
        game = finished(preset, seed, **options)
        record = loads(dumps(game_record(game)))
        again = replay(record)
        assert again.events == game.events
        assert game_record(again) == record


def test_muggins_decisions_are_recorded_in_order() -> None:
    game = finished("standard", 1, manual_count=[0, 1], muggins=True)
    record = game_record(game)
    taken = [a.take for _, a in game.log if isinstance(a, Muggins)]
    assert taken and record["muggins"] == taken
    short = copy.deepcopy(record)
    short["muggins"] = short["muggins"][:-1]
    with pytest.raises(RecordError, match="a muggins decision is missing"):
        replay(short)
    # The same record saved before that decision was made replays (to the decision).
    short["final"] = None
    with pytest.raises(RecordError, match="'deals' do not match"):
        replay(short)  # its deals still show the points that decision gave


@pytest.mark.parametrize("preset", ["standard", "three-player"])
def test_a_record_saved_at_any_step_replays_to_the_same_position(preset: str) -> None:
    # A saved game in progress is resumed by replaying its record, wherever it stopped: in the
    # cut for deal, between discards, before a cut or a count by hand, before a muggins call.
    rules = find_rules(preset).replace(muggins=True, match_games=3)
    n = rules.players
    game = Game(rules, seed=21, manual_count=range(n), cut_seats=range(n))
    players = [RandomPlayer(s) for s in range(n)]
    steps = 0
    seen = set()
    while not game.is_over and steps < 500:
        seen.add(game.phase)
        seat = game.to_move
        assert seat is not None
        if seat == CHANCE:
            game.apply(game.sample_chance())
        elif game.phase is Phase.SHOW and game.pending_muggins is None:
            total = players[seat].choose_count(game.observation(seat))
            game.apply(Count(total - (total > 0 and steps % 2)))
        else:
            game.apply(players[seat].choose(game.observation(seat)))
        steps += 1
        again = replay(loads(dumps(game_record(game))))
        assert again.events == game.events, steps
        assert (again.phase, again.to_move, again.hands) == (game.phase, game.to_move, game.hands)
        assert again.legal_actions() == game.legal_actions()
    assert {Phase.CUT_FOR_DEAL, Phase.DISCARD, Phase.STARTER, Phase.SHOW} <= seen


def tamper(record: dict[str, Any], change: Any) -> dict[str, Any]:
    broken = copy.deepcopy(record)
    change(broken)
    return broken


def test_replay_names_what_does_not_fit() -> None:
    record = game_record(finished("standard", 5))
    cases = [
        (lambda r: r.update(format="fifteentwo-record/0"), "unknown record format"),
        (
            lambda r: r["deals"][1]["play"].__setitem__(0, [9, "AS"]),
            "deal 2 play #1: 9 is not between",
        ),
        (
            lambda r: r["deals"][1]["play"].__setitem__(
                0, [2 - r["deals"][1]["play"][0][0] - 1, "AS"]
            ),
            "deal 2, play #1: it is seat",
        ),
        (lambda r: r["deals"][0]["hands"][0].__setitem__(0, "XX"), "deal 1: not a card: 'XX'"),
        (lambda r: r["deals"][0]["discards"][0].pop(), "deal 1, seat .'s discard"),
        (lambda r: r["deals"][2].update(starter="ZZ"), "the starter: not a card"),
        (lambda r: r["deals"][0]["points"][0].update(points=99), "'deals' do not match"),
        (lambda r: r["games"][0].update(skunk=2), "'games' do not match"),
        (lambda r: r.update(final=None), "'final' do not match"),
        (lambda r: r["rules"].update(players=5), "bad record: players must be"),
        (lambda r: r.pop("deals"), "deals: expected a list"),
    ]
    for change, message in cases:
        with pytest.raises(RecordError, match=message):
            replay(tamper(record, change))


def test_a_record_claiming_an_end_the_replay_does_not_reach() -> None:
    record = game_record(finished("short", 2))
    cut = tamper(record, lambda r: r.update(deals=r["deals"][:-1]))
    with pytest.raises(RecordError, match=r"does not end it|do not match"):
        replay(cut)


def test_loads_dumps_and_files(tmp_path: Path) -> None:
    records = [game_record(finished("standard", s)) for s in (7, 8)]
    path = tmp_path / "sub" / "games.jsonl"
    write_records(path, records)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and all("\n" not in line and " " not in line[:30] for line in lines)
    assert read_records(path) == records
    assert not list(tmp_path.glob("sub/.*.tmp"))  # the temporary file is gone
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\n{not json}\n")
    with pytest.raises(RecordError, match=r"games.jsonl, line 4: not a JSON record"):
        read_records(path)
    for text, message in (
        ("[]", "a record is a JSON object"),
        ('{"format": "x"}', "unknown record format 'x'"),
        ("{", "not a JSON record"),
    ):
        with pytest.raises(RecordError, match=message):
            loads(text)
    assert loads(dumps(records[0])) == records[0]


def test_the_example_in_docs_records_md_replays() -> None:
    docs = Path(__file__).parent.parent / "docs" / "records.md"
    lines = [line for line in docs.read_text(encoding="utf-8").splitlines() if line.startswith("{")]
    (line,) = lines
    record = loads(line)
    game = replay(record)
    assert game.is_over and record["final"]["scores"] == game.scores == [31, 10]
    assert list(record) == TOP_KEYS


if __name__ == "__main__":  # pragma: no cover
    write_regression()
