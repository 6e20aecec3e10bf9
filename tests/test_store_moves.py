"""A move costs O(1) in the store: each step after a full save is one small row
(`Store.append_move`), full saves come at doubling log lengths, and a game rebuilt from its full
save plus its steps is the game that was played (on both databases)."""

from __future__ import annotations

import json
import statistics
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fifteentwo.app.session import FULL_SAVE_MIN, SaveError, SeatConfig, Session
from fifteentwo.players import GreedyPlayer
from fifteentwo.rules import find_rules
from fifteentwo.store import GameConflict, GameMeta, Store, StoreError, new_owner
from fifteentwo.store.base import merge_moves
from fifteentwo.store.sqlite import SQLiteStore
from store_backends import Backend


def a_session(store: Store, seed: int = 3) -> Session:
    seats = [SeatConfig("You", human=True), SeatConfig("Computer", level="greedy")]
    return Session(find_rules("standard"), seats, seed, store=store, on_notice=lambda _: None)


def _step_rows(backend: Backend, game_id: str) -> int:
    rows = backend.execute("SELECT COUNT(*) FROM game_moves WHERE game_id = ?", (game_id,))
    return int(rows[0][0])


def test_steps_are_small_rows_and_the_rebuilt_game_is_the_played_one(
    backend: Backend, store: Store
) -> None:
    session = a_session(store)
    me = GreedyPlayer(11)
    session.run()
    assert session.game_id is not None
    game_id = session.game_id
    sizes: list[int] = []
    full_saves = 0
    checked = 0
    while not session.is_over:
        rows_before = _step_rows(backend, game_id)
        session.act(me.choose(session.observation()))
        if session.is_over:
            break
        rows = _step_rows(backend, game_id)
        if rows == 0 and rows_before > 0:
            full_saves += 1
        else:
            assert rows == rows_before + 1
            (text,) = backend.execute(
                "SELECT data FROM game_moves WHERE game_id = ? AND n = ?", (game_id, rows)
            )[0]
            sizes.append(len(text))
        if checked % 7 == 0:  # a process that takes the game up here plays on exactly
            saved = store.load_game(game_id)
            again = Session.from_json(saved.data)
            assert again.game.log == session.game.log
            assert again.observation() == session.observation()
            assert again.game.rng.getstate() == session.game.rng.getstate()
            assert again.players[1].rng.getstate() == session.players[1].rng.getstate()
        checked += 1
    assert checked > 20 and sizes
    # a step's row does not grow through the game (no history in it): late steps are no
    # bigger than early ones; and an RNG state (3 KB) is in it only when it moved, so most
    # steps (a play draws nothing) are well under a step with all three states
    half = len(sizes) // 2
    assert max(sizes[half:]) < 1.2 * max(sizes[:half])
    assert statistics.median(sizes) < 0.6 * max(sizes)
    assert 1 <= full_saves <= 4  # doubling lengths after the first FULL_SAVE_MIN steps
    assert store.list_games() == [] and _step_rows(backend, game_id) == 0
    assert store.finished_games()[0]["game_id"] == game_id


def test_a_resumed_game_with_steps_goes_on_and_takes_back(store: Store) -> None:
    session = a_session(store, seed=8)
    me = GreedyPlayer(2)
    session.run()
    for _ in range(6):
        session.act(me.choose(session.observation()))
    session.release()
    assert session.game_id is not None
    again = Session.resume(store, session.game_id, on_notice=lambda _: None)
    assert again.game.log == session.game.log
    again.undo()  # a take-back replaces the game: the next save is a full one
    assert again.takebacks == 1
    third = Session.from_json(store.load_game(session.game_id).data)
    assert third.takebacks == 1 and third.game.log == again.game.log


def test_a_step_that_does_not_fit_is_refused_in_one_line(store: Store) -> None:
    session = a_session(store, seed=4)
    me = GreedyPlayer(1)
    session.run()
    session.act(me.choose(session.observation()))
    assert session.game_id is not None
    data = store.load_game(session.game_id).data
    bad = merge_moves(data, [{"append": {"decisions": [["nonsense", 99]]}}])
    with pytest.raises(SaveError) as info:
        Session.from_json(bad)
    assert "\n" not in str(info.value)


def test_a_bad_step_row_sets_the_game_aside(backend: Backend, store: Store) -> None:
    meta = GameMeta("short", 61, ("You", "C"), ("human", "greedy"), (0, 0))
    me = new_owner()
    game = store.create_game({"a": 1}, meta, owner=me)
    assert store.append_move(game, {"set": {"a": 2}}, meta, owner=me)
    assert store.load_game(game).data == {"a": 2, "moves_applied": 1}
    backend.execute("UPDATE game_moves SET data = ? WHERE game_id = ?", ("[1]", game))
    from fifteentwo.store import CorruptGame

    with pytest.raises(CorruptGame):
        store.load_game(game)
    (kept,) = backend.execute("SELECT content FROM set_aside WHERE key = ?", (game,))
    assert json.loads(kept[0])["moves"] == ["[1]"]
    assert not store.append_move(game, {"set": {"a": 3}}, meta, owner=me)  # gone: not stored


def test_full_saves_come_at_doubling_lengths() -> None:
    assert FULL_SAVE_MIN >= 16


def test_games_started_together_spread_their_first_full_saves() -> None:
    """Each game's first full save after its creation is due somewhere from `FULL_SAVE_MIN`
    to twice that by its seed: a thousand games started at once do not all write theirs in
    the same seconds."""
    seats = [SeatConfig("You", human=True), SeatConfig("Computer", level="greedy")]
    rules = find_rules("standard")
    due = [Session(rules, seats, seed).full_save_min for seed in range(4 * FULL_SAVE_MIN)]
    assert set(due) == set(range(FULL_SAVE_MIN, 2 * FULL_SAVE_MIN))
    assert Session(rules, seats, 2**63 + 5).full_save_min in range(FULL_SAVE_MIN, 2 * FULL_SAVE_MIN)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(deltas=st.lists(st.dictionaries(st.sampled_from(["append", "set", "x"]), JSON), max_size=4))
def test_any_step_is_stored_and_merged_or_refused_in_one_line(
    tmp_path_factory: pytest.TempPathFactory, deltas: list[dict[str, object]]
) -> None:
    """Fuzzed deltas: each is stored; reading the game back gives `merge_moves`'s result, or
    (a delta that is not one) the game is set aside with `CorruptGame` in one line."""
    from fifteentwo.store import CorruptGame
    from fifteentwo.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path_factory.mktemp("fuzz") / "g.sqlite3")
    meta = GameMeta("short", 61, ("You", "C"), ("human", "greedy"), (0, 0))
    me = new_owner()
    game = store.create_game({"decisions": [1]}, meta, owner=me)
    for delta in deltas:
        assert store.append_move(game, delta, meta, owner=me)
    try:
        expected = merge_moves({"decisions": [1]}, deltas)
    except (ValueError, TypeError, AttributeError):
        with pytest.raises(CorruptGame) as info:
            store.load_game(game)
        assert "\n" not in str(info.value)
    else:
        assert store.load_game(game).data == expected
    store.close()


def test_two_processes_racing_for_one_decision_store_exactly_one(store: Store) -> None:
    """Two server processes hold the same game (one owner token, optimistic writes) and both
    answer the same decision: the first write wins, the second changes nothing and is told
    (`SaveConflict`); the stored game is the winner's, its computer moves stored once; the
    loser loads the game again and plays on from there."""
    from fifteentwo.app.session import SaveConflict

    shared = new_owner()
    seats = [SeatConfig("You", human=True), SeatConfig("Computer", level="greedy")]
    first = Session(find_rules("standard"), seats, 12, store=store, owner=shared, optimistic=True)
    first.run()
    assert first.game_id is not None and first.version is not None
    game_id = first.game_id
    second = Session.resume(store, game_id, owner=shared, optimistic=True)
    me = GreedyPlayer(5)
    for round_ in range(12):  # steps and full saves alike
        winner, loser = (first, second) if round_ % 2 == 0 else (second, first)
        action = me.choose(winner.observation())
        winner.act(action)
        version = store.game_version(game_id)
        assert version == winner.version
        with pytest.raises(SaveConflict):
            loser.act(me.choose(loser.observation()))
        assert store.game_version(game_id) == version  # the loser wrote nothing
        stored = Session.from_json(store.load_game(game_id).data)
        assert stored.game.log == winner.game.log  # the computer's replies: stored once
        again = Session.resume(store, game_id, owner=shared, optimistic=True)
        if winner is first:
            second = again
        else:
            first = again
        assert again.game.log == winner.game.log


def test_an_optimistic_session_stores_the_decision_before_the_computers_think(
    store: Store,
) -> None:
    """A server process killed while its computer thinks loses nothing: the person's decision
    was stored first; the next process finds the computer to move and plays it on."""
    seats = [SeatConfig("You", human=True), SeatConfig("Computer", level="greedy")]
    session = Session(find_rules("standard"), seats, 21, store=store, optimistic=True)
    session.run()
    assert session.game_id is not None
    me = GreedyPlayer(3)
    action = me.choose(session.observation())
    stored_before_thinking: list[int] = []

    def think(*_: object) -> object:  # the computer's turn: what does the store hold now?
        saved = Session.from_json(store.load_game(session.game_id or "").data)
        stored_before_thinking.append(len(saved.game.log))
        raise KeyboardInterrupt  # the process dies here

    session.players[1].choose = think  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        session.act(action)
    if not stored_before_thinking:
        pytest.skip("the computer had no move right after this decision")
    taken = Session.resume(store, session.game_id, owner=session.owner, optimistic=True)
    assert len(taken.game.log) == stored_before_thinking[0]
    assert taken.waiting_for is None  # the computer is to move: the next process plays it
    taken.run()
    assert taken.waiting_for is not None or taken.is_over


def test_a_computer_turn_is_claimed_by_exactly_one_process(store: Store) -> None:
    """`claim_turn`: one claimant per game version; the holder again; another once the claim
    lapsed or the game moved on to a new version."""
    assert store.claim_turn("g1", 5, owner="a", seconds=30)
    assert not store.claim_turn("g1", 5, owner="b", seconds=30)
    assert store.claim_turn("g1", 5, owner="a", seconds=30)
    assert store.claim_turn("g1", 6, owner="b", seconds=30)  # the game moved on
    assert not store.claim_turn("g1", 6, owner="a", seconds=30)
    assert store.claim_turn("g2", 1, owner="a", seconds=-1)  # (lapsed at once)
    assert store.claim_turn("g2", 1, owner="b", seconds=30)  # a dead claimant's turn is taken


def test_a_session_without_the_turn_s_claim_leaves_the_turn_to_its_holder(store: Store) -> None:
    """Two processes hold a game whose computer is to move: only the one with the claim makes
    the moves; the other changes nothing, then reads them from the store."""
    shared = new_owner()
    seats = [SeatConfig("You", human=True), SeatConfig("Computer", level="greedy")]
    first = Session(find_rules("standard"), seats, 30, store=store, owner=shared, optimistic=True)
    first.run()
    me = GreedyPlayer(4)
    first.act(me.choose(first.observation()))
    assert first.game_id is not None
    computed: list[str] = []

    def claim_as(name: str) -> Any:
        def claim(session: Session) -> bool:
            assert session.game_id is not None and session.version is not None
            granted = store.claim_turn(session.game_id, session.version, owner=name, seconds=30)
            if granted:
                computed.append(name)
            return granted

        return claim

    # the person decided (stored); both processes now load the game with the computer to move
    a = Session.resume(store, first.game_id, owner=shared, optimistic=True)
    if a.waiting_for is not None:  # to a computer turn: a decision stored, no one runs on
        a.turn_claim = lambda s: False
        a.act(me.choose(a.observation()))
    b = Session.resume(store, first.game_id, owner=shared, optimistic=True)
    c = Session.resume(store, first.game_id, owner=shared, optimistic=True)
    assert b.waiting_for is None and not b.is_over  # the computers are to move
    b.turn_claim, c.turn_claim = claim_as("b"), claim_as("c")
    log = list(c.game.log)
    b.run()
    c.run()
    assert computed == ["b"] and c.game.log == log  # c did nothing
    stored = Session.from_json(store.load_game(first.game_id).data)
    assert stored.game.log == b.game.log and stored.waiting_for is not None


def test_a_game_resumed_from_steps_has_the_take_back_marks_and_states_it_was_saved_with(
    backend: Backend, store: Store
) -> None:
    """A step sets an RNG or take-back state only when it changed (most steps carry the marks
    alone); a process that takes the game up from its full save and steps has every one of
    them as the player left it, so a take-back there comes back to the same decision."""
    session = a_session(store, seed=41)
    me = GreedyPlayer(5)
    session.run()
    assert session.game_id is not None
    game_id = session.game_id
    steps_without_states = 0
    for turn in range(40):
        session.act(me.choose(session.observation()))
        if session.is_over:
            break
        rows = _step_rows(backend, game_id)
        if rows:
            (text,) = backend.execute(
                "SELECT data FROM game_moves WHERE game_id = ? AND n = ?", (game_id, rows)
            )[0]
            step = json.loads(text)["set"]
            assert step["undo_marks"] == [list(m) for m in session._undo_marks]
            steps_without_states += "undo" not in step and "players" not in step
        again = Session.resume(store, game_id, owner=session.owner)
        assert again._undo_marks == session._undo_marks
        assert again._undo_states == session._undo_states
        assert again.game.rng.getstate() == session.game.rng.getstate()
        assert again.players[1].rng.getstate() == session.players[1].rng.getstate()
        if turn % 9 == 8 and again.can_undo:
            session.undo()
            again.undo()
            assert again.game.log == session.game.log
            assert again.players[1].rng.getstate() == session.players[1].rng.getstate()
    assert steps_without_states > 5


def test_a_step_keeps_or_moves_the_games_owner_and_kind_and_still_checks_its_version(
    store: Store,
) -> None:
    """A step leaves the game's kind and owner as they are unless its details move them (a
    guest's game passing to an account): then the row moves, and the list by owner with it."""
    me = new_owner()
    guest = GameMeta("standard", 121, ("You", "Computer"), ("human", "greedy"), (0, 0))
    guest = replace(guest, kind="web", owner_hint="guest-1")
    game_id = store.create_game({"n": 0}, guest, owner=me)
    version = store.game_version(game_id)
    version = store.append_move(game_id, {"n": 1}, guest, owner=me, expected_version=version)
    assert version is not None
    assert [g.game_id for g in store.list_games(owner_hint="guest-1")] == [game_id]
    moved = replace(guest, owner_hint="account-7", scores=(5, 0))
    version = store.append_move(game_id, {"n": 2}, moved, owner=me, expected_version=version)
    assert version is not None and version == store.game_version(game_id)
    assert store.list_games(owner_hint="guest-1") == []
    (listed,) = store.list_games(owner_hint="account-7")
    assert listed.game_id == game_id and listed.meta.scores == (5, 0)
    with pytest.raises(GameConflict):  # a step onto a version that moved on, kept or moved
        store.append_move(game_id, {"n": 3}, moved, owner=me, expected_version=version - 1)
    with pytest.raises(GameConflict):
        store.append_move(game_id, {"n": 3}, guest, owner=me, expected_version=version - 1)
    assert store.game_version(game_id) == version


def test_sqlite_steps_reuse_one_held_connection_and_replace_a_lost_one(tmp_path: Path) -> None:
    """SQLite's hot path keeps the pool's one connection between calls instead of a checkout
    and checkin per step; it is the pool's own connection (one file, one writer), and one
    found closed is given up: at most the call that found it fails, and the game goes on
    with every step the store took."""
    store = SQLiteStore(tmp_path / "games.sqlite3")
    try:
        session = a_session(store, seed=5)
        me = GreedyPlayer(2)
        session.run()
        session.act(me.choose(session.observation()))
        held = store._held
        assert held is not None
        with store._db().connect() as conn:  # what every other call uses
            assert conn.connection.dbapi_connection is held.dbapi_connection
        for _ in range(3):
            session.act(me.choose(session.observation()))
        assert store._held is held  # the same one, step after step

        held.dbapi_connection.close()  # lost underneath (as a driver's fault would leave it)
        assert session.game_id is not None
        failed = 0
        for _ in range(2):
            try:
                store.game_version(session.game_id)
            except StoreError:
                failed += 1
        assert failed <= 1
        assert store._held is not None and store._held is not held
        while not session.is_over and len(session.game.log) < 60:
            session.act(me.choose(session.observation()))
        if not session.is_over:
            again = Session.from_json(store.load_game(session.game_id).data)
            assert again.game.log == session.game.log
    finally:
        store.close()
