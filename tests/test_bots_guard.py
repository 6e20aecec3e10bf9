"""Misbehaving bots are named and stopped, never hang anything (issue 15; players/guard.py).

Each kind of misdeed in ``bots.bad`` is tried in-process through the guard, then through
``cribbage arena`` in a subprocess with ``--jobs 1`` and ``--jobs 2``, each run bounded in time:
exit status 2, one ``error:`` line naming the side and the bot, no traceback, and stdout never
corrupted by a bot's prints.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bot_games import play_out
from fifteentwo import COMPILED
from fifteentwo.cli import main
from fifteentwo.errors import FifteenTwoError
from fifteentwo.game import Game
from fifteentwo.players import load_player
from fifteentwo.players.guard import BotError, BotTimeout, GuardedPlayer
from fifteentwo.rules import find_rules

TESTS = Path(__file__).parent


def decide_until_failure(spec: str, move_time: float = 0.3) -> BotError:
    """Play a short game with the bot in seat 0 until the guard stops it."""
    bot = load_player(spec, 1, move_time=move_time)
    assert isinstance(bot, GuardedPlayer)
    with pytest.raises(BotError) as caught:
        play_out(bot, seed=5, other_seed=2)
    return caught.value


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("Raiser", "raised ValueError: the raiser bot broke"),
        ("Illegal", "chose an illegal action: Count(points=99)"),
        ("WrongType", "returned '5h', which is not an action"),
        ("Exiter", "called sys.exit(3)"),
        ("HardExiter", "tried to exit the program (os._exit(4))"),
        ("Sleeper", "took longer than 0.3 s to decide"),
        ("Spinner", "took longer than 0.3 s to decide"),
    ],
)
def test_each_misdeed_is_one_named_error(kind: str, words: str) -> None:
    error = decide_until_failure(f"bots.bad:{kind}")
    assert str(error) == f"the bot (bots.bad:{kind}) {words}"
    assert isinstance(error, BotTimeout) == words.startswith("took longer")


@pytest.mark.skipif(COMPILED, reason="the compiled Count makes a bool an int when it is built")
def test_a_mistyped_action_that_equals_a_legal_one_is_refused() -> None:
    # Count(True) == Count(1), but a bool is not a count: the guard compares types too.
    game = Game(find_rules("short"), seed=1, manual_count=(0,))
    bot = load_player("bots.bad:BoolCount", 0)
    with pytest.raises(BotError, match="illegal action: Count"):
        while True:
            seat = game.to_move
            if seat == -1:
                game.apply(game.sample_chance())
                continue
            assert seat is not None
            obs = game.observation(seat)
            if seat == 0 and obs.phase.value == "show":
                bot.choose(obs)
            game.apply(load_player("random", seat).choose(obs))


def test_the_time_limit_holds_off_the_main_thread() -> None:
    box: list[BaseException] = []

    def run() -> None:
        try:
            decide_until_failure("bots.bad:Sleeper", move_time=0.2)
        except BaseException as exc:  # pragma: no cover - reported below
            box.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(20)
    assert not worker.is_alive() and not box


def test_prints_go_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    bot = load_player("bots.bad:Printer", 0)
    game = Game(find_rules("short"), seed=2)
    game.advance()
    bot.choose(game.observation(game.to_move or 0))
    out, err = capsys.readouterr()
    assert out == "" and "bot chatter" in err


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        (":X", "bad player ':X'"),
        ("..:x", "bad player '..:x'"),
        ("builtins:object", "is not a player class"),
        ("bots.bad:NotAPlayer", "is not a player class"),
        ("bots.bad:BadInit", "cannot start player 'bots.bad:BadInit': RuntimeError"),
        ("no.such.module:Bot", "cannot load player 'no.such.module:Bot'"),
        ("bots.bad:Missing", "no Missing in it"),
    ],
)
def test_bad_specs_are_one_line(spec: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--a", spec, "--b", "random", "--games", "2", "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert words in err
    assert err.count("\n") == 1 and err.startswith("error: ")


def test_numbers_are_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    for args in (
        ["--games", "0"],
        ["--games", "99999999999"],
        ["--jobs", "-1"],
        ["--jobs", "100000"],
        ["--move-time", "0"],
        ["--move-time", "nan"],
        ["--seed", str(2**70)],
    ):
        assert main(["arena", "--a", "random", "--b", "random", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, args


def arena(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    return subprocess.run(
        [sys.executable, "-m", "fifteentwo", "arena", "--variant", "short", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(
    ("kind", "side", "words"),
    [
        ("Raiser", "A", "raised ValueError"),
        ("Illegal", "B", "illegal action"),
        ("WrongType", "A", "not an action"),
        ("Exiter", "B", "sys.exit(3)"),
        ("HardExiter", "A", "os._exit(4)"),
        ("Spinner", "B", "took longer than 0.5 s"),
    ],
)
def test_the_arena_stops_with_one_line(jobs: str, kind: str, side: str, words: str) -> None:
    spec = f"bots.bad:{kind}"
    a, b = (spec, "random") if side == "A" else ("random", spec)
    run = arena("--a", a, "--b", b, "--games", "40", "--jobs", jobs, "--move-time", "0.5")
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("error:")]
    assert errors == [f"error: player {side} ({spec}) {errors[0].split(') ', 1)[1]}"]
    assert words in errors[0]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_bot_that_ignores_its_time_limit_is_stopped(jobs: str) -> None:
    run = arena(
        "--a",
        "bots.bad:Stubborn",
        "--b",
        "random",
        "--games",
        "4",
        "--jobs",
        jobs,
        "--move-time",
        "0.3",
    )
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith("error: ")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_prints_never_corrupt_json(jobs: str) -> None:
    run = arena(
        "--a", "bots.bad:Printer", "--b", "random", "--games", "6", "--jobs", jobs, "--json"
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["games"] == 6
    assert "bot chatter" in run.stderr


def test_a_huge_match_starts_at_once() -> None:
    # Tasks are made lazily: the bad bot is met in the first games, not after ten million
    # tasks were built.
    run = arena(
        "--a", "bots.bad:Raiser", "--b", "random", "--games", "10000000", "--jobs", "1", timeout=30
    )
    assert run.returncode == 2 and "raised ValueError" in run.stderr


def test_guarded_players_keep_their_rng() -> None:
    bot = load_player("bots.bad:Printer", 7)
    assert bot.rng.random() == load_player("random", 7).rng.random()
    with pytest.raises(FifteenTwoError):
        load_player("", 0)
