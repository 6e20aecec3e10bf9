"""The results history: what a finished game stores, totals, schema, and a damaged file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from fifteentwo.actions import GameOver, HandCounted, Phase, Reason, Scored
from fifteentwo.app.history import History, HistoryError, data_dir
from fifteentwo.app.options import PlayOptions, SessionFactory
from fifteentwo.app.session import Session
from fifteentwo.players import GreedyPlayer, RandomPlayer


def finish(session: Session, seed: int = 0, *, random_human: bool = False) -> Session:
    """Play the human seats with a computer player until the session is over."""
    stand_in = RandomPlayer(seed) if random_human else GreedyPlayer(seed)
    session.run()
    while not session.is_over:
        seat = session.waiting_for
        assert seat is not None
        session.act(stand_in.choose(session.observation(seat)))
    return session


def played(history: History, variant: str = "short", seed: int = 1, **kwargs: object) -> Session:
    options = PlayOptions(variant=variant, seed=seed, level="greedy", **kwargs)  # type: ignore[arg-type]
    return finish(SessionFactory(options, store=history.store)(options.preset_rules()), seed)


def test_data_dir_honours_the_environment(fifteentwo_data_dir: Path) -> None:
    assert data_dir() == fifteentwo_data_dir
    assert History().path == fifteentwo_data_dir / "fifteentwo.sqlite3"


def test_data_dir_default_is_the_platform_user_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    monkeypatch.delenv("FIFTEENTWO_DATA_DIR")
    assert data_dir() == Path(platformdirs.user_data_dir("fifteentwo", appauthor=False))


def test_empty_history(fifteentwo_data_dir: Path) -> None:
    history = History()
    assert history.totals() == [] and history.games() == []
    history.check()


def test_a_session_without_a_store_logs_through_the_hook() -> None:
    history = History()
    options = PlayOptions(variant="short", seed=4, level="greedy")
    session = finish(SessionFactory(options, history=history)(options.preset_rules()), 4)
    (row,) = history.games()
    assert row["record"] == session.record() and history.game(row["id"])["seed"] == 4


def test_takebacks_are_kept_with_the_finished_game() -> None:
    history = History()
    options = PlayOptions(variant="short", seed=6, level="greedy")
    session = SessionFactory(options, store=history.store)(options.preset_rules())
    session.run()
    stand_in = GreedyPlayer(0)
    while session.phase is Phase.CUT_FOR_DEAL:  # (a cut stays: the discard is taken back)
        session.act(stand_in.choose(session.observation(0)))
    session.act(stand_in.choose(session.observation(0)))
    session.undo()
    finish(session)
    (row,) = history.games()
    assert row["takebacks"] == 1 == session.takebacks


def test_a_finished_game_is_stored_with_its_numbers() -> None:
    history = History()
    session = played(history, "standard", seed=3)
    (row,) = history.games()
    events = session.game.events
    (over,) = [e for e in events if isinstance(e, GameOver)]
    assert row["scores"] == list(over.scores) and row["winner"] == over.winner
    assert row["skunk"] == over.skunk and row["game_points"] == over.game_points
    assert row["won"] == int(over.winner == 0) and row["human_seat"] == 0
    assert row["variant"] == "standard" and row["target"] == 121 and row["levels"] == "greedy"
    assert row["seed"] == 3 and row["game_number"] == 1
    assert row["seats"][0]["human"] and not row["seats"][1]["human"]
    assert row["record"] == session.record()
    # Independent sums straight from the engine's events.
    shows = [e for e in events if isinstance(e, HandCounted) and e.seat == 0]
    pegged = sum(
        e.points
        for e in events
        if isinstance(e, Scored)
        and e.seat == 0
        and e.reason in (Reason.PLAY, Reason.GO, Reason.LAST_CARD)
    )
    assert row["counted"] == sum(e.claimed for e in shows)
    assert row["pegged"] == pegged
    assert row["best_hand"] == max(e.total for e in shows if not e.crib)
    assert row["deals"] == len(row["hands"]) == len(session.record()["deals"])
    assert sum((h["hand"] or 0) + (h["crib"] or 0) for h in row["hands"]) == row["counted"]
    assert row["finished_at"][:4].isdigit()


def test_totals_per_level_and_variant() -> None:
    history = History()
    sessions = [played(history, "short", seed=s) for s in (1, 2, 3, 4)]
    played(history, "standard", seed=5)
    totals = {(t.levels, t.variant): t for t in history.totals()}
    assert set(totals) == {("greedy", "short"), ("greedy", "standard")}
    short = totals["greedy", "short"]
    rows = [r for r in history.games() if r["variant"] == "short"]
    assert short.games == 4 == short.wins + short.losses
    assert short.wins == sum(r["won"] for r in rows)
    assert short.skunks_given == sum(1 for r in rows if r["won"] and r["skunk"])
    assert short.skunks_taken == sum(1 for r in rows if not r["won"] and r["skunk"])
    deals = sum(r["deals"] for r in rows)
    assert short.pegged_per_deal == pytest.approx(sum(r["pegged"] for r in rows) / deals)
    assert short.counted_per_deal == pytest.approx(sum(r["counted"] for r in rows) / deals)
    assert short.best_hand == max(r["best_hand"] for r in rows)
    assert short.to_json()["games"] == 4
    assert all(s.is_over for s in sessions)


def test_every_game_of_a_match_is_a_row() -> None:
    history = History()
    session = played(history, "short", seed=3, match_games=3)
    overs = [e for e in session.game.events if isinstance(e, GameOver)]
    rows = sorted(history.games(), key=lambda r: r["game_number"])
    assert [r["scores"] for r in rows] == [list(o.scores) for o in overs]
    assert [r["game_number"] for r in rows] == list(range(1, len(overs) + 1))


def test_partnership_game_is_scored_for_the_human_side() -> None:
    history = History()
    session = played(history, "four-player", seed=2)
    (row,) = history.games()
    assert row["levels"] == "greedy,greedy,greedy"
    assert row["won"] == int(session.game.winner == 0)


def test_games_without_a_human_are_kept_but_not_totalled() -> None:
    history = History()
    played(history, "short", seed=1, players=("greedy", "random"))
    (row,) = history.games()
    assert row["human_seat"] is None and row["won"] is None and row["levels"] == "greedy,random"
    assert history.totals() == []


def test_schema_version_is_recorded() -> None:
    from fifteentwo.store.sqlite import SCHEMA_VERSION

    history = History()
    played(history)
    with sqlite3.connect(history.path) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    conn.close()


def test_a_corrupt_store_is_kept_and_a_new_one_started(
    fifteentwo_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = fifteentwo_data_dir / "fifteentwo.sqlite3"
    junk = b"this is not a database, it is a shopping list\n" * 40
    path.write_bytes(junk)
    history = History()
    assert history.games() == []
    assert (fifteentwo_data_dir / "fifteentwo.sqlite3.corrupt").read_bytes() == junk
    (notice,) = history.store.take_notices()
    assert "\n" not in notice and "could not be read" in notice
    played(history)
    assert len(history.games()) == 1


def test_an_old_history_is_imported(fifteentwo_data_dir: Path) -> None:
    import shutil

    shutil.copy(Path(__file__).parent / "data" / "old" / "history.sqlite3", fifteentwo_data_dir)
    history = History()
    assert [g["seed"] for g in history.games()] == [2**40, 11]
    (total,) = history.totals()
    assert total.games == 2 and total.levels == "greedy"
    assert (fifteentwo_data_dir / "history.sqlite3.migrated").exists()


def test_a_data_dir_that_is_a_file_is_one_line(
    fifteentwo_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = fifteentwo_data_dir / "file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("FIFTEENTWO_DATA_DIR", str(blocker))
    with pytest.raises(HistoryError, match="is a file, not a directory") as info:
        History().totals()
    assert "\n" not in str(info.value)


def test_newer_schemas_are_refused(fifteentwo_data_dir: Path) -> None:
    from fifteentwo.store.sqlite import SCHEMA_VERSION

    history = History()
    played(history)
    history.store.close()
    with sqlite3.connect(history.path) as conn:
        conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    conn.close()
    with pytest.raises(HistoryError, match="newer fifteentwo"):
        History().totals()


def test_a_store_named_like_the_old_history_is_left_alone(fifteentwo_data_dir: Path) -> None:
    named = History(fifteentwo_data_dir / "history.sqlite3")
    played(named)
    assert History().games() == [] and len(named.games()) == 1
    assert not (fifteentwo_data_dir / "history.sqlite3.unreadable").exists()
