"""The web action's hot path (issue 32): what it keeps to save CPU gives what the slow way
gives. A quick level's reply is stored with the person's decision in one write, a slow
level's after it; the seat decisions and the pegs are counted on from where the last message
stopped, through take-backs and new games of a match."""

from __future__ import annotations

from typing import Any

import pytest

from fifteentwo.actions import CHANCE
from fifteentwo.app.plain import peg_positions
from fifteentwo.app.session import SeatConfig
from fifteentwo.players import GreedyPlayer
from fifteentwo.rules import find_rules
from fifteentwo.store import open_store
from fifteentwo.web.games import WebGame, WebSession


@pytest.mark.parametrize(
    ("variant", "games", "seed"), [("standard", 1, 1), ("five-card", 1, 2), ("short", 3, 3)]
)
def test_counted_decisions_and_pegs_are_the_ones_read_from_the_start(
    variant: str, games: int, seed: int
) -> None:
    rules = find_rules(variant).replace(match_games=games)  # (3: pegs start again)
    session = WebSession(rules, [SeatConfig("You", human=True), SeatConfig("C")], seed)
    game = WebGame("g", session)
    session.run()
    me = GreedyPlayer(seed)
    moves = undos = 0
    while not session.is_over and moves < 2000:
        assert game.pegs() == peg_positions(session.game.events, rules.sides)
        assert game.decision == sum(1 for actor, _ in session.game.log if actor != CHANCE)
        session.act(me.choose(session.observation()))
        moves += 1
        if moves % 7 == 0 and undos < 6 and session.can_undo:
            session.undo()  # (a new game object: counted again from the start)
            undos += 1
    assert session.is_over and undos > 0
    assert game.pegs() == peg_positions(session.game.events, rules.sides)
    assert game.decision == sum(1 for actor, _ in session.game.log if actor != CHANCE)


class Counting:
    """A store's writes of one game, counted (the real store underneath)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.writes: list[int] = []  # (the log length the stored game has, per write)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def append_move(self, game_id: str, delta: dict[str, Any], *args: Any, **kw: Any) -> Any:
        self.writes.append(len(delta["append"]["decisions"]))
        return self.store.append_move(game_id, delta, *args, **kw)


@pytest.mark.parametrize(("level", "first"), [("greedy", False), ("expert", True)])
def test_a_quick_level_is_stored_with_the_decision_and_a_slow_one_after_it(
    tmp_path: Any, level: str, first: bool
) -> None:
    store = Counting(open_store(tmp_path / "games.sqlite3"))
    seats = [SeatConfig("You", human=True), SeatConfig("C", level=level)]
    session = WebSession(find_rules("standard"), seats, 9, store=store, optimistic=True)
    session.run()
    assert session.decision_first() is first
    me = GreedyPlayer(4)
    for _ in range(12):
        store.writes.clear()
        before = session.version
        session.act(me.choose(session.observation()))
        if session.is_over or not store.writes:
            continue  # (a full save instead of a step)
        replied = session.waiting_for is not None
        if first and replied and len(store.writes) == 2:
            assert store.writes[0] == 1  # the person's decision alone, before the computer
        if not first:
            assert len(store.writes) == 1  # the decision and the replies: one write
        assert session.version != before
        stored = WebSession.from_json(store.store.load_game(session.game_id).data)
        assert stored.game.log == session.game.log
    store.store.close()
