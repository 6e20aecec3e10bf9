"""Issue 34's server side of the page: spectators' words, the review's positions and units."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fifteentwo.actions import Discarded
from fifteentwo.app.describe import Describer
from fifteentwo.players import GreedyPlayer, play_game
from fifteentwo.records import game_record
from fifteentwo.rules import find_rules

pytest.importorskip("starlette")
pytest.importorskip("argon2")

from fifteentwo.web.stats import cost_text, percentage_points, review_json, value_text
from test_web_tables import client, join_all, make_table, play_table, sit, store_path
from web_helpers import LeakChecker

__all__ = ["client", "store_path"]  # fixtures, used by name
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SECOND_PERSON = re.compile(r"\b(you|your|you's)\b", re.IGNORECASE)


class Recorder(LeakChecker):
    """A leak checker that keeps every sentence the connection was sent."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.lines: list[str] = []

    def check(self, message: dict[str, Any]) -> None:
        super().check(message)
        self.lines.extend(message.get("log") or ())
        self.lines.extend(e["text"] for e in message.get("events", ()) if e.get("text"))


def test_a_spectator_reads_every_seat_by_name(client: Any) -> None:
    made = make_table(client, "short", ["person", "person"])
    other = sit(client, made["table"], "Bob")
    with (
        client.websocket_connect("/ws") as a,
        client.websocket_connect("/ws") as b,
        client.websocket_connect("/ws") as w,
    ):
        checkers: dict[int, LeakChecker] = {0: Recorder(0), 1: Recorder(1), -1: Recorder(-1)}
        joiners = [(0, a, made["token"]), (1, b, other["token"]), (-1, w, made["watch"])]
        states = join_all(made["table"], joiners, checkers)
        play_table({0: a, 1: b, -1: w}, states, checkers)
    watcher = checkers[-1]
    assert isinstance(watcher, Recorder) and watcher.lines
    assert not [line for line in watcher.lines if SECOND_PERSON.search(line)]
    assert any("Ann" in line for line in watcher.lines)
    assert any("Bob" in line for line in watcher.lines)
    seated = checkers[0]
    assert isinstance(seated, Recorder)
    assert not [line for line in seated.lines if "You's" in line or "You lays" in line]


def test_laying_away_agrees_with_its_subject() -> None:
    rules = find_rules("standard")
    you = Describer(rules, ["Ann", "Bob"], 0)
    nobody = Describer(rules, ["Ann", "Bob"], None)
    assert you.describe(Discarded(0, None, 2)) == "You lay away two cards."
    assert nobody.describe(Discarded(0, None, 2)) == "Ann lays away two cards."
    assert you.describe(Discarded(1, None, 2)) == "Bob lays away two cards."


@pytest.fixture(scope="module")
def reviewed() -> dict[str, Any]:
    game = play_game(find_rules("standard"), [GreedyPlayer(3), GreedyPlayer(4)], seed=34)
    row = {"record": game_record(game, ["Ann", "Bob"]), "human_seat": 0, "id": 7}
    data = review_json(row)
    json.dumps(data)  # all plain JSON
    return data


def test_a_mistake_carries_its_position_and_both_values(reviewed: dict[str, Any]) -> None:
    assert reviewed["mistakes"], "greedy players make mistakes the expert sees"
    for m in reviewed["mistakes"]:
        p = m["position"]
        assert p["target"] == 121 and len(p["scores"]) == 2
        assert (p["skunk"], p["double_skunk"]) == (91, 61)
        assert m["chosen_value"] and m["best_value"]
        if m["kind"] == "discard":
            assert len(p["hand"]) == 6 and p["pile"] == [] and p["starter"] is None
        else:
            assert p["starter"] is not None and 0 <= p["count"] <= 31
            assert (
                m["best"] in p["hand"]
                or m["best"] == "go"
                or m["best"][:-1] in {c[:-1] for c in p["hand"]}
            )
        assert m["cost"].startswith("−")
        unit = "points of win chance" if m["unit"] == "win" else "expected points"
        assert m["cost"].endswith(unit)


def test_win_chance_is_given_in_percentage_points(reviewed: dict[str, Any]) -> None:
    for seat in reviewed["seats"]:
        assert seat["win_points_lost"] == pytest.approx(100 * seat["win_lost"], abs=0.05)
    assert percentage_points(0.031) == 3.1
    assert cost_text(0.031, True) == "−3.1 points of win chance"
    assert cost_text(0.5, False) == "−0.50 expected points"
    assert value_text(0.613, True) == "61.3% to win"
    assert value_text(7.25, False) == "+7.25 points"
    assert value_text(None, True) is None
    assert "percentage points" in reviewed["win_note"]


@given(st.floats(0, 1, allow_nan=False))
def test_any_probability_converts_once(p: float) -> None:
    points = percentage_points(p)
    assert 0 <= points <= 100 and abs(points - 100 * p) <= 0.05 + 1e-9
