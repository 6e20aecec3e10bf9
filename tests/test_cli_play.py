"""``cribbage play``, ``rules`` and ``history`` from the command line, including a real process."""

from __future__ import annotations

import io
import json
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from fifteentwo.app.launch import command_hint
from fifteentwo.app.options import PlayOptions
from fifteentwo.app.plain import resume_hint
from fifteentwo.app.session import Session
from fifteentwo.cli import COMMANDS, DEFAULT_COMMAND, main
from fifteentwo.records import replay
from fifteentwo.store import open_store
from plain_driver import Answerer, drive_subprocess

FAST = ["--plain", "--level", "greedy", "--no-instructions"]


def run_main(
    argv: list[str], capsys: pytest.CaptureFixture[str], stdin: str = ""
) -> tuple[int, str, str]:
    """``main`` with the given stdin text (so plain mode reads it); exit code, out, err."""
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        code = main(argv)
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


# --- a real process through pipes ---------------------------------------------------------------


def test_subprocess_plays_a_whole_game(fifteentwo_data_dir: Path) -> None:
    env = {"FIFTEENTWO_DATA_DIR": str(fifteentwo_data_dir)}
    answerer = Answerer()
    code, out, err = drive_subprocess(["play", "--seed", "5", "--short", *FAST], answerer, env)
    assert code == 0, err
    assert err == ""
    assert out.startswith("New game: short to 61. You; Computer (greedy). Seed 5. Game 1 of")
    assert "Cut for the deal: how many cards down (4-48)? 10\n" in out
    assert out.rstrip().endswith("Thanks for the game.")
    assert len(answerer.log) > 10
    score = re.search(r"wins the game (\d+)-(\d+)", out)
    assert score
    hcode, hout, _ = drive_subprocess(["history", "--games", "5", "--json"], Answerer(), env)
    (row,) = json.loads(hout)
    assert hcode == 0 and row["variant"] == "short" and row["seed"] == 5
    assert "-".join(map(str, sorted(row["scores"], reverse=True))) == score.group(0).split()[-1]


def test_subprocess_ctrl_c_saves_and_exits_130(fifteentwo_data_dir: Path) -> None:
    env = {"FIFTEENTWO_DATA_DIR": str(fifteentwo_data_dir)}
    code, out, err = drive_subprocess(
        ["play", "--seed", "5", "--short", "-r", *FAST],
        Answerer(),
        env,
        interrupt_at="Play a card",
    )
    assert code == 130
    assert "Traceback" not in err and "Traceback" not in out
    resumed = Session.resume(open_store(), latest_id())
    assert resumed.waiting_for == 0


def test_subprocess_end_of_input_saves_and_exits_0(fifteentwo_data_dir: Path) -> None:
    env = {"FIFTEENTWO_DATA_DIR": str(fifteentwo_data_dir)}
    code, out, _ = drive_subprocess(
        ["play", "--seed", "5", "--short", *FAST], Answerer(stop_after=4), env
    )
    assert code == 0
    assert out.rstrip().endswith(resume_hint(latest_id()))  # (the same PATH, cwd, Python)


def latest_id() -> str:
    """The id of the most recently played saved game in the data dir's store."""
    saved = open_store().most_recent()
    assert saved is not None
    return saved.game_id


# --- in process ---------------------------------------------------------------------------------


def test_play_is_registered_and_the_default_command() -> None:
    assert {"play", "rules", "history"} <= set(COMMANDS) and DEFAULT_COMMAND == "play"


def test_bare_options_run_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["--plain", "--seed", "2", "--short", "--level", "greedy"], capsys)
    assert code == 0 and err == ""
    assert out.startswith("Do you need instructions (y/n)? \n")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--variant", "canasta"], "unknown variant 'canasta'"),
        (["play", "--short", "--variant", "five-card"], "not allowed with"),
        (["play", "--short", "--long"], "not allowed with"),
        (["play", "--players", "human"], "--players names 1 seat; a game has 2, 3 or 4 seats\n"),
        (["play", "--players", "7"], "names 1 seat; a game has 2, 3 or 4 seats (list each seat"),
        (["play", "--players", "a,b,c,d,e"], "--players names 5 seats; a game has 2, 3 or 4 seats"),
        (
            ["play", "--players", "human,greedy,greedy", "--variant", "standard"],
            "--players names 3 seats, but the standard game has 2 seats",
        ),
        (["play", "--bogus"], "error: cribbage play: unrecognized arguments: --bogus"),
        (["--bogus"], "error: cribbage play: unrecognized arguments: --bogus"),
        (["history", "--bogus"], "error: cribbage history: unrecognized arguments: --bogus"),
        (["play", "--players", "human,,greedy"], "empty seat"),
        (["play", "--level", "grandmaster"], "unknown level 'grandmaster'"),
        (["play", "--players", "human,nowhere:Bot"], "cannot load player"),
        (["play", "--match", "2"], "--match must be an odd number from 1 to 99"),
        (["play", "--match", "101"], "--match must be an odd number from 1 to 99"),
        (["play", "--match", "0"], "--match must be an odd number"),
        (["play", "--match", "x"], "--match must be a whole number"),
        (["play", "--seed", "1" * 1001], "--seed has more than 1000 digits"),
        (["play", "--seed", "1.5"], "--seed must be a whole number"),
        (["play", "--resume", "nosuchgame"], "there is no saved game 'nosuchgame'"),
        (["play", "--target", "5"], "--target must be between 15 and 1000"),
        (["play", "--seed", "abc"], "--seed must be a whole number, not 'abc'"),
        (["play", "--manual-count", "--auto-count"], "not allowed with"),
        (["play", "--frobnicate"], "unrecognized arguments"),
    ],
)
def test_bad_arguments_give_one_error_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main([*argv, "--plain"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err


def test_resume_without_a_save_says_so(
    fifteentwo_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_main(["play", "--resume", "--plain"], capsys)
    assert code == 2
    assert err == (
        "error: there is no saved game to resume "
        f"(none in {fifteentwo_data_dir / 'fifteentwo.sqlite3'}); "
        f"'{command_hint('play')}' starts one\n"
    )


def test_quit_then_resume_from_the_command_line(
    fifteentwo_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["play", "--seed", "3", "--short", "-r", *FAST]
    code, out, _ = run_main(argv, capsys, stdin="#1 #2\nq\n")
    game_id = latest_id()
    assert code == 0 and out.rstrip().endswith(f"continues it (id {game_id}).")
    saved = Session.resume(open_store(), game_id)
    assert saved.waiting_for == 0 and saved.phase.value == "play"
    saved.release()
    code, out, _ = run_main(["play", "--resume", *FAST], capsys, stdin="q\n")
    assert code == 0
    assert out.startswith("Resuming your game: short to 61, You ")
    assert "Your hand: " in out and "Play a card (count is" in out
    code, out, _ = run_main(["play", "--resume", game_id, *FAST], capsys, stdin="q\n")
    assert code == 0 and out.startswith("Resuming your game: short to 61, You ")


def test_a_saved_game_is_offered_without_resume(
    fifteentwo_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["play", "--seed", "3", "--short", "-r", *FAST]
    run_main(argv, capsys, stdin="#1 #2\nq\n")
    code, out, _ = run_main(argv, capsys, stdin="y\nq\n")
    assert code == 0
    assert out.startswith("You have a saved game: short to 61, ")
    assert "Resume it (y/n)? y\nResuming your game" in out


def test_an_old_corrupt_save_is_reported_once_and_kept(
    fifteentwo_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = fifteentwo_data_dir / "save.json"
    save.write_text('{"format": "fifteentwo-save/1", "record": ', encoding="utf-8")
    code, out, err = run_main(["play", "--resume", *FAST], capsys)
    assert code == 2 and out == ""
    warning, error = err.splitlines()
    assert warning.startswith("warning: could not resume") and "save.json.corrupt" in warning
    assert error.startswith("error: there is no saved game to resume")
    assert (fifteentwo_data_dir / "save.json.corrupt").exists() and not save.exists()
    code, out, err = run_main(["play", "--short", *FAST], capsys, stdin="q\n")
    assert code == 0 and err == "" and out.startswith("New game: short to 61")


def test_an_old_save_is_migrated_and_offered(
    fifteentwo_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    shutil.copy(Path(__file__).parent / "data" / "old" / "save.json", fifteentwo_data_dir)
    code, out, err = run_main(["play", "--short", *FAST], capsys, stdin="y\nq\n")
    assert code == 0 and err.startswith("note: your saved game from") and err.count("\n") == 1
    assert out.startswith("You have a saved game: short to 61, You 0, Computer 0, against greedy")
    assert "Resuming your game" in out
    assert (fifteentwo_data_dir / "save.json.migrated").exists()


def test_a_corrupt_row_is_set_aside_and_reported_once(
    fifteentwo_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    run_main(["play", "--seed", "3", "--short", *FAST], capsys, stdin="q\n")
    conn = sqlite3.connect(fifteentwo_data_dir / "fifteentwo.sqlite3")
    with conn:
        conn.execute("UPDATE game_saves SET data = 'garbage'")
    conn.close()
    code, out, err = run_main(["play", "--short", *FAST], capsys, stdin="q\n")
    assert code == 0 and out.startswith("New game: short to 61")
    assert err.count("\n") == 1 and "set aside" in err
    code, out, err = run_main(["play", "--short", *FAST], capsys, stdin="n\nq\n")
    assert code == 0 and err == ""  # reported once; the program never fails on it again
    conn = sqlite3.connect(fifteentwo_data_dir / "fifteentwo.sqlite3")
    (kept,) = conn.execute("SELECT content FROM set_aside").fetchall()
    conn.close()
    assert "garbage" in kept[0]


def test_a_data_dir_that_is_a_file_plays_unsaved(
    fifteentwo_data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = fifteentwo_data_dir / "file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("FIFTEENTWO_DATA_DIR", str(blocker))
    code, out, err = run_main(["play", "--short", "--seed", "1", *FAST], capsys, stdin="q\n")
    assert code == 0 and "New game" in out and out.rstrip().endswith("Game not saved.")
    assert err.startswith("warning: the data directory") and "unsaved" in err
    assert err.count("\n") == 1
    code, out, err = run_main(["history"], capsys)
    assert code == 2 and err.startswith("error: ") and "is a file" in err


def test_starting_a_new_game_keeps_the_old_ones_and_saved_lists_them(
    fifteentwo_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_main(["play", "--seed", "3", "--short", *FAST], capsys, stdin="#1 #2\nq\n")
    first = latest_id()
    code, out, _ = run_main(["play", "--seed", "4", "--long", *FAST], capsys, stdin="n\nq\n")
    assert f"(id {first})" in out and "It stays saved" in out
    second = latest_id()
    assert second != first
    code, out, _ = run_main(["saved", "--json"], capsys)
    listed = json.loads(out)
    assert [g["id"] for g in listed] == [second, first]
    assert listed[1]["opponent"] == "greedy" and listed[1]["variant"] == "short"
    assert listed[0]["scores"] == [0, 0] and listed[0]["updated_at"].endswith("+00:00")
    assert listed[0]["score"] == "You 0, Computer 0" and listed[0]["when"].startswith("today")
    code, out, _ = run_main(["saved"], capsys)
    assert code == 0 and first in out and second in out and "standard to 121" in out
    code, out, err = run_main(["play", "--resume", first, *FAST], capsys, stdin="q\n")
    assert out.startswith("Resuming your game: short to 61"), (code, out, err)


def test_saved_with_nothing_saved(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(["saved", "--json"], capsys)[1] == "[]\n"
    assert "No saved games" in run_main(["saved"], capsys)[1]


@pytest.mark.parametrize("games", ["0", "-1", "10001", "x", "9" * 30])
def test_history_games_is_bounded(games: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["history", "--games", games], capsys)
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1
    assert "--games must be" in err


def test_history_command_tables_and_json(
    fifteentwo_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_main(["history"], capsys)
    assert code == 0 and "No games recorded yet" in out
    assert run_main(["history", "--json"], capsys)[1] == "[]\n"
    from plain_driver import play_in_process

    play_in_process(PlayOptions(variant="short", seed=5, level="greedy"), fifteentwo_data_dir)
    code, out, _ = run_main(["history", "--json"], capsys)
    (totals,) = json.loads(out)
    assert totals["levels"] == "greedy" and totals["variant"] == "short" and totals["games"] == 1
    assert totals["wins"] + totals["losses"] == 1
    code, out, _ = run_main(["history"], capsys)
    assert "Your results" in out and "greedy" in out and "short" in out
    code, out, _ = run_main(["history", "--games", "3", "--json"], capsys)
    (game,) = json.loads(out)
    assert "record" not in game and game["variant"] == "short"
    code, out, _ = run_main(["history", "--games", "3"], capsys)
    assert "Recent games" in out and re.search(rf"\b{game['id']}\b", out)
    code, out, _ = run_main(["review", str(game["id"]), "--json", "--no-plays"], capsys)
    assert code == 0 and json.loads(out)


def test_rules_command_prints_plain_text_when_piped(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["rules"], capsys)
    assert code == 0
    for words in ("HIS HEELS", "his nobs", "muggins", "skunk", "five-card", "q or quit"):
        assert words.lower() in out.lower()
    assert "**" not in out and "`" not in out
    code, out, _ = run_main(["rules", "--markdown"], capsys)
    assert out.startswith("# How to play cribbage with fifteentwo")


def test_terminal_runs_the_textual_app_with_the_agreed_interface(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[dict[str, Any]] = []

    def run_tui(
        make_session: Any,
        *,
        options: Any,
        resume: Any = None,
        menu: bool = False,
        offer: Any = None,
        store: Any = None,
    ) -> int:
        calls.append(
            {"make_session": make_session, "options": options, "resume": resume, "menu": menu}
        )
        return 0

    fake = types.ModuleType("fifteentwo.tui")
    fake.run_tui = run_tui  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fifteentwo.tui", fake)
    monkeypatch.setattr("fifteentwo.cli.play._stdio_is_terminal", lambda: True)
    code = main(["play", "--level", "greedy", "--seed", "4", "-q", "-e", "--muggins"])
    assert code == 0
    (call,) = calls
    options = call["options"]
    assert isinstance(options, PlayOptions) and call["resume"] is None
    assert not call["menu"]  # --level and --seed chose the game: no start screen
    assert options.quiet and options.explain and options.muggins and not options.auto_count
    assert options.variant is None and options.instructions is None  # the app asks
    session = call["make_session"](options.preset_rules("short"))
    assert isinstance(session, Session) and session.rules.muggins and session.seed == 4
    session.run()
    assert session.saving and session.game_id == latest_id()
    assert call["make_session"](options.preset_rules("standard")).seed == 5


def test_manual_game_replays_to_the_same_scores(
    fifteentwo_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from plain_driver import play_in_process

    options = PlayOptions(
        variant="short", seed=9, level="greedy", auto_count=False, muggins=True, explain=True
    )
    played = play_in_process(options, fifteentwo_data_dir)
    (row,) = played.history.games()
    game = replay(row["record"])
    assert list(game.scores) == row["scores"] and game.is_over


def test_subprocess_a_seed_beyond_64_bits_plays_to_the_end_and_reaches_the_history(
    fifteentwo_data_dir: Path,
) -> None:
    env = {"FIFTEENTWO_DATA_DIR": str(fifteentwo_data_dir)}
    seed = 2**64 + 7
    args = ["play", "--players", "greedy,greedy", "--short", "--seed", str(seed), *FAST]
    code, out, err = drive_subprocess(args, Answerer(), env)
    assert code == 0 and err == "" and "wins the game" in out
    code, out, err = drive_subprocess(["history", "--games", "1", "--json"], Answerer(), env)
    (row,) = json.loads(out)
    assert code == 0 and row["seed"] == seed


def test_a_target_alone_does_not_ask_short_or_long() -> None:
    """``--target 15`` plays the six-card game to 15: no "short (61) or long (121)?" question,
    and the game is not filed as a short game."""
    from fifteentwo.app.options import PlayOptions
    from fifteentwo.tui.state import Settings

    options = PlayOptions(target=15)
    assert options.variant_known
    rules = options.preset_rules()
    assert (rules.name, rules.target) == ("standard", 15)
    assert Settings.from_options(options).variant == "standard"


def test_plain_cribbage_play_opens_the_start_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without options that choose the game, the full-screen game opens on its start screen
    (difficulty and the rest are chosen there); --coach or --speed only preset the form."""
    calls: list[dict[str, Any]] = []

    def run_tui(make_session: Any, *, options: Any, **kw: Any) -> int:
        calls.append(kw)
        return 0

    fake = types.ModuleType("fifteentwo.tui")
    fake.run_tui = run_tui  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fifteentwo.tui", fake)
    monkeypatch.setattr("fifteentwo.cli.play._stdio_is_terminal", lambda: True)
    assert main(["play"]) == 0
    assert main(["play", "--coach", "--speed", "fast"]) == 0
    assert main(["play", "--short"]) == 0
    assert [bool(c.get("menu")) for c in calls] == [True, True, False]
    assert calls[0]["store"] is not None
