"""Sessions: seats, whose turn it is, autosave in the store and exact resume, damaged saves,
the game-over hook, and taking back a move (undo)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fifteentwo.actions import Count, Cut, GameOver, Phase
from fifteentwo.app.options import PlayOptions, SessionFactory, default_level, seat_names
from fifteentwo.app.session import SaveError, SeatConfig, Session, _catch_up
from fifteentwo.errors import FifteenTwoError
from fifteentwo.players import GreedyPlayer
from fifteentwo.rules import find_rules
from fifteentwo.store import GameBusy, Store, open_store

OLD_SAVE = Path(__file__).parent / "data" / "old" / "save.json"


def human_vs_greedy(store: Store | None, seed: int = 7, **kwargs: object) -> Session:
    seats = [SeatConfig("You", human=True), SeatConfig("Computer", level="greedy")]
    return Session(find_rules("short"), seats, seed, store=store, **kwargs)  # type: ignore[arg-type]


def file_save(session: Session, path: Path) -> Path:
    """The session's save data in a file, as earlier versions wrote ``save.json``."""
    path.write_text(json.dumps(session.to_json()), encoding="utf-8")
    return path


def step(session: Session, player: GreedyPlayer) -> None:
    seat = session.waiting_for
    assert seat is not None
    session.act(player.choose(session.observation(seat)))


def test_run_stops_for_the_human_and_act_moves_on(tmp_path: Path) -> None:
    session = human_vs_greedy(open_store(tmp_path / "s.sqlite3"))
    assert session.waiting_for is None  # nothing dealt yet: chance is next
    session.run()
    assert session.waiting_for == 0 and session.viewer == 0
    obs = session.observation()
    assert obs.legal and obs.seat == 0
    step(session, GreedyPlayer(1))
    assert session.waiting_for in (0, None)


def test_act_when_no_one_waits_is_an_error() -> None:
    session = Session(
        find_rules("short"), [SeatConfig("A", level="greedy"), SeatConfig("B", level="greedy")], 1
    )
    session.run()
    assert session.is_over
    with pytest.raises(FifteenTwoError, match="no one at this table"):
        session.act(Count(0))


def test_seat_count_must_fit_the_rules() -> None:
    with pytest.raises(FifteenTwoError, match="3 seats for a 2-player game"):
        Session(find_rules("standard"), [SeatConfig("x", human=True)] * 3, 1)


def test_autosave_resumes_exactly(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    straight = human_vs_greedy(None)
    straight.run()
    saved = human_vs_greedy(store)
    saved.run()
    a, b = GreedyPlayer(3), GreedyPlayer(3)
    for _ in range(6):
        step(straight, a)
        step(saved, b)
    assert saved.game_id is not None
    (listed,) = store.list_games()
    assert listed.game_id == saved.game_id and listed.meta.scores == tuple(saved.game.scores)
    with pytest.raises(GameBusy):  # the first session still holds it
        Session.resume(store, saved.game_id)
    saved.release()
    resumed = Session.resume(store, saved.game_id)
    while not straight.is_over:
        step(straight, a)
        step(resumed, b)
    assert resumed.is_over and resumed.record() == straight.record()
    assert store.list_games() == []  # the finished game moved to the history
    (row,) = store.finished_games()
    assert row["record"] == straight.record() and row["game_id"] == saved.game_id


def test_a_big_seed_plays_to_the_end_and_is_stored(tmp_path: Path) -> None:
    """A seed >= 2**63 used to crash the last move; now it is stored exactly."""
    store = open_store(tmp_path / "s.sqlite3")
    seed = 2**64 + 12345
    options = PlayOptions(variant="short", seed=seed, players=("greedy", "greedy"))
    session = SessionFactory(options, store=store)(options.preset_rules())
    session.run()
    assert session.is_over
    (row,) = store.finished_games()
    assert row["seed"] == seed and row["record"]["seed"] == seed


def test_an_unresumable_game_is_set_aside(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    session = human_vs_greedy(store)
    session.run()
    step(session, GreedyPlayer(0))
    session.release()
    assert session.game_id is not None
    data = session.to_json()
    data["record"]["deals"][0]["hands"][0][0] = "XX"
    store.save_game(session.game_id, data, session.meta(), owner="tamperer")
    store.release(session.game_id, owner="tamperer")
    with pytest.raises(SaveError, match="set aside") as info:
        Session.resume(store, session.game_id)
    assert "\n" not in str(info.value) and store.list_games() == []


def test_damaged_save_is_moved_aside_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "save.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(SaveError) as info:
        Session.load(path)
    assert "\n" not in str(info.value) and "save.json.corrupt" in str(info.value)
    assert not path.exists()
    assert (tmp_path / "save.json.corrupt").read_text(encoding="utf-8") == "{not json"
    path.write_text(json.dumps({"format": "something else"}), encoding="utf-8")
    with pytest.raises(SaveError, match="not a fifteentwo save"):
        Session.load(path)
    assert (tmp_path / "save.json.corrupt2").exists()


def test_tampered_save_record_is_refused(tmp_path: Path) -> None:
    session = human_vs_greedy(None)
    session.run()
    step(session, GreedyPlayer(0))
    path = file_save(session, tmp_path / "save.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["record"]["deals"][0]["hands"][0][0] = "XX"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SaveError, match=r"could not resume .*save\.json\.corrupt"):
        Session.load(path)


def test_game_over_hook_runs_once_per_game() -> None:
    seen: list[GameOver] = []
    options = PlayOptions(variant="short", seed=3, players=("greedy", "greedy"), match_games=3)
    session = SessionFactory(options)(options.preset_rules())
    session.on_game_over = lambda s, e: seen.append(e)
    session.run()
    overs = [e for e in session.game.events if isinstance(e, GameOver)]
    assert seen == overs and len(seen) >= 1


# --- options into sessions ---------------------------------------------------------------------


def test_options_build_the_seats_and_rules() -> None:
    options = PlayOptions(
        variant="short", level="greedy", seed=9, muggins=True, auto_count=False, target=91
    )
    session = SessionFactory(options)(options.preset_rules())
    assert session.rules.target == 91 and session.rules.skunk == 61 and session.rules.muggins
    assert [(s.name, s.human, s.level) for s in session.seats] == [
        ("You", True, ""),
        ("Computer", False, "greedy"),
    ]
    assert session.seed == 9 and not session.auto_count and not session.random_cut


def test_players_spec_picks_the_variant_and_seats() -> None:
    options = PlayOptions(players=("human", "greedy", "random", "computer"), level="greedy")
    assert options.variant == "four-player" and options.variant_known
    rules = options.preset_rules()
    assert [s.level for s in options.seats(rules)] == ["", "greedy", "random", "greedy"]
    assert seat_names(options.seat_specs(rules)) == ["You", "Left", "Partner", "Right"]
    with pytest.raises(FifteenTwoError, match="names 4 seats"):
        options.seats(find_rules("standard"))


def test_factory_seeds_follow_on_and_random_seeds_differ() -> None:
    options = PlayOptions(variant="short", seed=40, level="greedy")
    factory = SessionFactory(options)
    assert [factory(options.preset_rules()).seed for _ in range(3)] == [40, 41, 42]
    loose = SessionFactory(PlayOptions(variant="short", level="greedy"))
    seeds = {loose(find_rules("short")).seed for _ in range(5)}
    assert len(seeds) > 1


def test_default_level_prefers_the_strongest(monkeypatch: pytest.MonkeyPatch) -> None:
    from fifteentwo.players import simple

    assert default_level() in simple.LEVELS
    base = {"random": simple.RandomPlayer, "greedy": simple.GreedyPlayer}
    monkeypatch.setattr(simple, "LEVELS", base)
    assert default_level() == "greedy"
    monkeypatch.setattr(simple, "LEVELS", {**base, "standard": simple.GreedyPlayer})
    assert default_level() == "standard"
    monkeypatch.setattr(
        simple, "LEVELS", {"expert": simple.GreedyPlayer, **base, "standard": simple.GreedyPlayer}
    )
    assert default_level() == "expert"


def test_levels_by_name_or_module_class() -> None:
    options = PlayOptions(variant="short", players=("human", "fifteentwo.players:RandomPlayer"))
    assert options.seats(options.preset_rules())[1].level == "fifteentwo.players:RandomPlayer"
    with pytest.raises(FifteenTwoError, match="unknown level 'grandmaster'"):
        PlayOptions(variant="short", level="grandmaster").check()
    with pytest.raises(FifteenTwoError, match="cannot load player"):
        PlayOptions(variant="short", players=("human", "nowhere.at_all:Bot")).check()


@pytest.mark.parametrize("variant", ["short", "five-card", "three-player"])
def test_a_save_at_every_decision_resumes_exactly(variant: str) -> None:
    """Discards, cuts by depth, hand counts and muggins still to make all survive a save."""
    options = PlayOptions(variant=variant, seed=17, level="greedy", auto_count=False, muggins=True)
    session = SessionFactory(options)(options.preset_rules())
    session.run()
    me = GreedyPlayer(5)
    kinds = set()
    while not session.is_over:
        data = json.loads(json.dumps(session.to_json()))
        resumed = Session.from_json(data)
        assert resumed.record() == session.record()
        assert resumed.waiting_for == session.waiting_for
        assert resumed.observation() == session.observation()
        assert resumed.game.rng.getstate() == session.game.rng.getstate()
        obs = session.observation()
        kinds.add(obs.phase.value if obs.pending_claim is None else "muggins")
        action = me.choose(obs)
        if obs.phase.value == "show" and obs.pending_claim is None:
            action = type(action)(0)  # claim nothing, so muggins comes up
        session.act(action)
        resumed.act(action)
        assert resumed.record() == session.record()
    assert {"cut for deal", "discard", "starter", "play", "show", "muggins"} <= kinds | {"muggins"}


@pytest.mark.parametrize("variant", ["short", "three-player"])
def test_a_save_loads_from_an_earlier_copy_of_the_game_as_from_the_start(variant: str) -> None:
    """``base``: a server's copy of a table another process moved on plays only the new
    decisions; the result is the same session as a replay, and a base from another game (or
    from ahead of the save) is ignored."""
    options = PlayOptions(variant=variant, seed=23, level="greedy", auto_count=False, muggins=True)
    session = SessionFactory(options)(options.preset_rules())
    session.run()
    other = SessionFactory(replace(options, seed=24))(options.preset_rules())
    other.run()
    me = GreedyPlayer(5)
    earlier = [session.clone()]
    while not session.is_over:
        session.act(me.choose(session.observation()))
        data = json.loads(json.dumps(session.to_json()))
        names = [seat.name for seat in session.seats]
        caught = _catch_up(earlier[-1].game, data["record"], data["decisions"], names)
        assert caught is not None  # (the short way was taken)
        assert _catch_up(other.game, data["record"], data["decisions"], names) is None
        for base in (earlier[-1], earlier[len(earlier) // 2], other, session):
            resumed = Session.from_json(data, base=base)
            assert resumed.to_json() == data and resumed.record() == session.record()
            assert resumed.game.rng.getstate() == session.game.rng.getstate()
        ahead = earlier[-1]
        if len(earlier) > 2:  # a base ahead of the save is not a prefix of it
            older = json.loads(json.dumps(earlier[1].to_json()))
            assert Session.from_json(older, base=ahead).record() == earlier[1].record()
        earlier.append(session.clone())
    assert len(earlier) > 20 and earlier[0].record() != session.record()


@pytest.mark.parametrize("variant", ["short", "three-player", "four-player"])
def test_another_game_is_dealt_by_the_loser(variant: str) -> None:
    rules = find_rules(variant)
    seats = [SeatConfig(f"P{i}", level="greedy") for i in range(rules.players)]
    last = Session(rules, seats, 5)
    last.run()
    assert last.is_over
    dealer = last.game.loser_to_deal()
    scores = last.game.scores
    assert scores[dealer % rules.sides] == min(scores)
    after = Session(rules, seats, 6)
    after.deal_after(last)
    assert after.first_dealer == dealer
    after.run()
    dealt = [e for e in after.game.events if type(e).__name__ == "Dealt"]
    assert dealt[0].dealer == dealer  # (no cut for deal)
    assert after.record()["first_dealer"] == dealer
    with pytest.raises(FifteenTwoError, match="begun"):
        after.deal_first(0)
    # a game still going, or another table, changes nothing
    fresh = Session(rules, seats, 7)
    fresh.deal_after(Session(rules, seats, 8))
    assert fresh.first_dealer is None
    other = Session(
        find_rules("standard" if rules.players != 2 else "three-player"),
        [SeatConfig(f"Q{i}", level="greedy") for i in range(3 if rules.players == 2 else 2)],
        9,
    )
    other.deal_after(last)
    assert other.first_dealer is None


def test_a_save_from_before_decisions_were_kept_still_loads(tmp_path: Path) -> None:
    session = human_vs_greedy(None)
    session.run()
    step(session, GreedyPlayer(0))  # lay away; the play is next
    step(session, GreedyPlayer(0))
    path = file_save(session, tmp_path / "save.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["decisions"]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert Session.load(path).record() == session.record()


def test_the_save_json_of_the_previous_version_still_loads() -> None:
    """tests/data/old/save.json was written by the code before the store."""
    session = Session.from_json(json.loads(OLD_SAVE.read_text(encoding="utf-8")))
    assert session.waiting_for == 0 and session.takebacks == 0 and not session.can_undo
    step(session, GreedyPlayer(0))
    assert session.can_undo


# --- taking back a move -------------------------------------------------------------------------


def human_vs_random(
    store: Store | None, seed: int, variant: str = "short", *, random_cut: bool = True
) -> Session:
    """The random level draws from its RNG at every decision: undo must restore it."""
    seats = [SeatConfig("You", human=True), SeatConfig("Computer", level="random")]
    return Session(find_rules(variant), seats, seed, store=store, random_cut=random_cut)


def test_undo_restores_the_position_and_every_rng_exactly() -> None:
    session = human_vs_random(None, seed=21)
    session.run()
    me = GreedyPlayer(2)
    for _ in range(5):
        step(session, me)
    before = json.loads(json.dumps(session.to_json()))
    obs = session.observation()
    rngs = (session.game.rng.getstate(), session.players[1].rng.getstate())
    step(session, me)
    session.undo()
    assert session.takebacks == 1
    assert session.observation() == obs and session.record() == Session.from_json(before).record()
    assert (session.game.rng.getstate(), session.players[1].rng.getstate()) == rngs
    # Playing on from here is the same game as never having moved.
    straight = Session.from_json(before)
    while not straight.is_over:
        a, b = GreedyPlayer(9), GreedyPlayer(9)
        step(straight, a)
        step(session, b)
    assert session.record() == straight.record()


def test_undo_several_times_and_after_a_resume(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    session = human_vs_greedy(store, seed=5)
    session.run()
    me = GreedyPlayer(1)
    observations = []
    for _ in range(4):
        observations.append(session.observation())
        step(session, me)
    session.undo()
    assert session.observation() == observations[-1]
    session.release()
    assert session.game_id is not None
    resumed = Session.resume(store, session.game_id)
    assert resumed.takebacks == 1 and store.load_game(session.game_id).meta.takebacks == 1
    resumed.undo()
    resumed.undo()
    assert resumed.observation() == observations[1] and resumed.takebacks == 3
    resumed.undo()
    assert resumed.observation() == observations[0]
    assert not resumed.can_undo
    with pytest.raises(FifteenTwoError, match="no move of yours to take back"):
        resumed.undo()


def test_undo_is_refused_with_muggins_when_counting_by_hand() -> None:
    options = PlayOptions(variant="short", seed=3, level="greedy", auto_count=False, muggins=True)
    session = SessionFactory(options)(options.preset_rules())
    session.run()
    step(session, GreedyPlayer(0))
    assert not session.can_undo
    with pytest.raises(FifteenTwoError, match="count your own hands with muggins"):
        session.undo()
    assert session.takebacks == 0


def test_undo_never_reaches_into_a_finished_game_of_a_match() -> None:
    options = PlayOptions(variant="short", seed=8, level="greedy", match_games=3)
    session = SessionFactory(options)(options.preset_rules())
    session.run()
    me = GreedyPlayer(4)
    while session.game.game_number == 1:
        step(session, me)
    assert not session.can_undo
    with pytest.raises(FifteenTwoError, match="finished and stored"):
        session.undo()
    step(session, me)
    if session.game.game_number == 2 and not session.is_over:
        assert session.can_undo


def test_take_backs_are_bounded_and_saves_stay_small() -> None:
    from fifteentwo.app.session import UNDO_MARKS

    session = human_vs_random(None, seed=4, variant="standard")
    session.run()
    me = GreedyPlayer(1)
    moves = 0
    while not session.is_over and moves < UNDO_MARKS + 10:
        step(session, me)
        moves += 1
    size = len(json.dumps(session.to_json()))
    assert size < 60_000 + 4_000 * UNDO_MARKS
    undone = 0
    while session.can_undo:
        session.undo()
        undone += 1
    assert not session.is_over and undone == UNDO_MARKS
    resumed = Session.from_json(json.loads(json.dumps(session.to_json())))
    assert resumed.takebacks == undone and resumed.record() == session.record()


def _chance_and_rngs(session: Session) -> tuple[object, ...]:
    """Everything a decision and the chance after it could change: the record (every card
    dealt, cut and played), the game's RNG and each computer's."""
    return (
        session.record(),
        session.game.rng.getstate(),
        {seat: p.rng.getstate() for seat, p in session.players.items()},
    )


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32),
    random_cut=st.booleans(),
    before=st.integers(0, 30),
    after=st.integers(0, 14),
    choices=st.randoms(use_true_random=False),
)
def test_a_decision_taken_back_and_made_again_gives_the_same_cards(
    seed: int, random_cut: bool, before: int, after: int, choices: Any
) -> None:
    """Undo, then the same decision: the same game as never having taken it back, and the
    same chance after it (deals, starters, every cut made again at the same depth turns up
    the same card). A cut itself is never taken back (a re-cut elsewhere would re-roll it)."""
    straight = human_vs_random(None, seed, random_cut=random_cut)
    undone = human_vs_random(None, seed, random_cut=random_cut)
    straight.run()
    undone.run()

    def both(action: Any) -> None:
        straight.act(action)
        undone.act(action)

    for _ in range(before):
        if straight.is_over:
            return
        both(choices.choice(straight.observation().legal))
    if straight.is_over:
        return
    decision = choices.choice(straight.observation().legal)
    both(decision)
    if isinstance(decision, Cut):
        assert undone.cannot_undo() == (
            "your cut stays, with the moves before it (cutting again would turn up another card)"
        )
        with pytest.raises(FifteenTwoError, match="your cut stays"):
            undone.undo()
        assert _chance_and_rngs(undone) == _chance_and_rngs(straight) and not undone.takebacks
        return
    if not undone.can_undo:  # (the game of a match just ended, or muggins by hand)
        return
    undone.undo()
    undone.act(decision)
    assert _chance_and_rngs(undone) == _chance_and_rngs(straight)
    for _ in range(after):  # cuts included: the same depth turns up the same card
        if straight.is_over:
            break
        both(choices.choice(straight.observation().legal))
        assert _chance_and_rngs(undone) == _chance_and_rngs(straight)
    assert undone.takebacks == 1


def test_a_cut_for_the_deal_or_the_starter_cannot_be_taken_back() -> None:
    """Losing the cut for the deal and taking it back to cut again until you win, or cutting
    the starter again for a better one: refused. The decisions after a cut can be taken back
    (to just after it: the same starter), those before it cannot."""
    session = human_vs_greedy(None, seed=3, random_cut=False)
    session.run()
    assert session.phase is Phase.CUT_FOR_DEAL
    session.act(Cut(10))
    while session.phase is Phase.CUT_FOR_DEAL:  # (a tie: cut again)
        session.act(Cut(10))
    dealer = session.game.dealer
    assert not session.can_undo and "your cut stays" in (session.cannot_undo() or "")
    with pytest.raises(FifteenTwoError, match="your cut stays"):
        session.undo()
    assert session.game.dealer == dealer and session.takebacks == 0
    me = GreedyPlayer(5)
    while session.phase is not Phase.STARTER:  # on to a starter we cut (we are pone)
        step(session, me)
    assert session.can_undo  # the discard: the pack is not cut yet
    session.act(Cut(12))
    starter = session.game.starter
    assert not session.can_undo and session.game.starter == starter
    step(session, me)  # a card played (or go): this one can be taken back
    if session.waiting_for is not None and session.phase is Phase.PLAY:
        session.undo()
        assert session.game.starter == starter and session.takebacks == 1
        assert not session.can_undo  # back to just after the cut, which stays


def test_a_save_with_take_back_marks_from_before_a_cut_does_not_reach_past_it() -> None:
    """Saves of earlier versions kept marks across cuts: resumed, the cut still stays."""
    session = human_vs_greedy(None, seed=3, random_cut=False)
    session.run()
    while session.phase is Phase.CUT_FOR_DEAL:
        session.act(Cut(10))
    step(session, GreedyPlayer(1))  # a decision after the cut (its mark is kept)
    data = json.loads(json.dumps(session.to_json()))
    assert len(data["undo"]["marks"]) == 1
    data["undo"]["marks"].insert(0, [0, data["undo"]["marks"][0][1], 1])  # one before the cut
    resumed = Session.from_json(data)
    resumed.undo()
    assert "your cut stays" in (resumed.cannot_undo() or "")


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d["undo"]["states"].append({"1": "not base64!"}),
        lambda d: d["undo"]["marks"].append([1, 99, 1]),
        lambda d: d.update(takebacks=True),
        lambda d: d.update(takebacks=-1),
        lambda d: d.update(seed="7"),
        lambda d: d["undo"].update(marks=[[1, 2]]),
    ],
)
def test_damaged_undo_data_is_a_save_error(damage: Any) -> None:
    session = human_vs_random(None, seed=2)
    session.run()
    step(session, GreedyPlayer(0))
    data = json.loads(json.dumps(session.to_json()))
    damage(data)
    with pytest.raises(SaveError):
        Session.from_json(data)


def test_lower_levels_sometimes_miscount_so_muggins_works_both_ways() -> None:
    """Counting by hand with muggins, a novice computer counts by hand too and sometimes
    overlooks a combination; the person may take it. The expert counts automatically."""
    from fifteentwo.actions import Muggins, Reason, Scored

    rules = find_rules("short").replace(muggins=True)
    expert = Session(
        rules, [SeatConfig("You", human=True), SeatConfig("E", level="expert")], 1, auto_count=False
    )
    assert expert.game.manual_count == (0,) or list(expert.game.manual_count) == [0]
    taken = offered = 0
    for seed in range(1, 9):
        session = Session(
            rules,
            [SeatConfig("You", human=True), SeatConfig("N", level="novice")],
            seed,
            auto_count=False,
        )
        assert 1 in session.game.manual_count
        me = GreedyPlayer(seed)  # counts exactly, always takes muggins
        session.run()
        while not session.is_over:
            obs = session.observation(0)
            action = me.choose(obs)
            offered += isinstance(action, Muggins)
            for event in session.act(action):
                if isinstance(event, Scored) and event.reason is Reason.MUGGINS and event.seat == 0:
                    taken += 1
    assert offered > 0 and taken == offered  # the novice missed points; you took them all


def test_the_saved_details_follow_every_change_of_score_and_seat(tmp_path: Path) -> None:
    """`Session.meta` hands back the same object while nothing in it changed (a store checks
    and encodes each object once): the stored details still follow the scores move by move,
    a take-back and a seat's new name."""
    store = open_store(tmp_path / "g.sqlite3")
    session = human_vs_greedy(store, seed=11)
    session.run()
    player = GreedyPlayer(seed=3)
    first = session.meta()
    assert session.meta() is first
    scores = {first.scores}
    for _ in range(40):
        if session.is_over:
            break
        step(session, player)
        if session.is_over:
            break
        meta = session.meta()
        assert meta.scores == tuple(session.game.scores)
        assert meta.takebacks == session.takebacks
        (row,) = [g for g in store.list_games() if g.game_id == session.game_id]
        assert row.meta == meta
        scores.add(meta.scores)
    assert len(scores) > 3  # (the scores moved, and the stored details with them)
    session.seats[1] = replace(session.seats[1], name="Robot")
    assert session.meta().players == ("You", "Robot")
    store.close()
