"""Sessions: seats, whose turn it is, autosave and exact resume, damaged saves, game-over hook."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fifteentwo.actions import Count, GameOver
from fifteentwo.app.options import PlayOptions, SessionFactory, default_level, seat_names
from fifteentwo.app.session import SaveError, SeatConfig, Session
from fifteentwo.errors import FifteenTwoError
from fifteentwo.players import GreedyPlayer
from fifteentwo.rules import find_rules


def human_vs_greedy(path: Path | None, seed: int = 7, **kwargs: object) -> Session:
    seats = [SeatConfig("You", human=True), SeatConfig("Computer", level="greedy")]
    return Session(find_rules("short"), seats, seed, save_path=path, **kwargs)  # type: ignore[arg-type]


def step(session: Session, player: GreedyPlayer) -> None:
    seat = session.waiting_for
    assert seat is not None
    session.act(player.choose(session.observation(seat)))


def test_run_stops_for_the_human_and_act_moves_on(tmp_path: Path) -> None:
    session = human_vs_greedy(tmp_path / "save.json")
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
    path = tmp_path / "save.json"
    straight = human_vs_greedy(None)
    straight.run()
    saved = human_vs_greedy(path)
    saved.run()
    a, b = GreedyPlayer(3), GreedyPlayer(3)
    for _ in range(6):
        step(straight, a)
        step(saved, b)
    assert path.exists()
    resumed = Session.load(path)
    while not straight.is_over:
        step(straight, a)
        step(resumed, b)
    assert resumed.is_over and resumed.record() == straight.record()
    assert not path.exists()  # a finished game removes its save


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
    path = tmp_path / "save.json"
    session = human_vs_greedy(path)
    session.run()
    step(session, GreedyPlayer(0))
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


def test_a_save_from_before_decisions_were_kept_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "save.json"
    session = human_vs_greedy(path)
    session.run()
    step(session, GreedyPlayer(0))  # lay away; the play is next
    step(session, GreedyPlayer(0))
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["decisions"]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert Session.load(path).record() == session.record()
