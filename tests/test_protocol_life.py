"""A protocol bot's life (docs/protocol.md): started once where the docs say, told ``quit``
however its player is dropped, ended with everything it started; and the bot side of the
protocol (``cribbage engine``) answering what it cannot use with an error, never dying."""

from __future__ import annotations

import argparse
import gc
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot_games import PLAY_LEGAL, PLAY_VIEW, play_out
from fifteentwo.app.options import check_level
from fifteentwo.cli import build_parser
from fifteentwo.errors import FifteenTwoError
from fifteentwo.players.guard import BotError
from fifteentwo.players.protocol import ProtocolPlayer, check_command
from fifteentwo.rules import find_rules
from plain_driver import Answerer, drive_subprocess

BOTS = Path(__file__).parent / "bots"


def logging_bot(log: Path) -> str:
    """The command of a bot that notes ``start`` and ``quit`` in ``log``."""
    return shlex.join([sys.executable, str(BOTS / "protocol_log.py"), str(log)])


def life(log: Path, expect: int, seconds: float = 10.0) -> list[str]:
    """The bot's starts and quits, once there are ``expect`` of them (or the time is up)."""
    deadline = time.monotonic() + seconds
    while True:
        words = log.read_text().split() if log.exists() else []
        words = [w for w in words if w in ("start", "quit")]
        if len(words) >= expect or time.monotonic() > deadline:
            return words
        time.sleep(0.05)


def leftovers(marker: str) -> list[str]:
    ps = subprocess.run(["ps", "-eo", "pid,stat,args"], capture_output=True, text=True, check=True)
    return [line for line in ps.stdout.splitlines() if marker in line and "ps -eo" not in line]


def test_a_dropped_bot_is_told_quit(tmp_path: Path) -> None:
    """A session that ends without closing its players (the terminal game, plain mode) drops
    them: the program still hears ``quit`` (a bot may save what it learnt), not a kill."""
    log = tmp_path / "bot.log"
    player = ProtocolPlayer(logging_bot(log))
    assert life(log, 1) == ["start"]
    del player
    gc.collect()
    assert life(log, 2) == ["start", "quit"]


def test_checking_an_exec_seat_does_not_start_the_program(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    spec = f"exec:{logging_bot(log)}"
    assert check_level(spec) == spec
    time.sleep(0.3)
    assert not log.exists()
    with pytest.raises(FifteenTwoError, match=r"cannot start .*No such file or directory"):
        check_level("exec:/no/such/program --level 3")
    with pytest.raises(FifteenTwoError, match=r"cannot start .*Permission denied"):
        check_command(str(tmp_path))  # a directory is no program
    with pytest.raises(FifteenTwoError, match="No closing quotation"):
        check_level("exec:'unterminated")
    with pytest.raises(FifteenTwoError, match="needs a command"):
        check_level("exec:  ")


def test_cribbage_play_starts_an_exec_bot_once_and_ends_it_with_quit(
    tmp_path: Path, fifteentwo_data_dir: Path
) -> None:
    """The docs: the program is started for each session of ``cribbage play`` (it was
    started three times: twice to check the options, each of those killed unwarned)."""
    log = tmp_path / "bot.log"
    args = ["play", "--plain", "--short", "--seed", "5", "--no-instructions", "-r"]
    args += ["--players", f"human,exec:{logging_bot(log)}"]
    env = {"FIFTEENTWO_DATA_DIR": str(fifteentwo_data_dir)}
    code, out, err = drive_subprocess(args, Answerer(), env)
    assert code == 0, err
    assert "Thanks for the game." in out
    assert life(log, 2) == ["start", "quit"]


def test_a_wrapper_scripts_children_end_with_the_bot(tmp_path: Path) -> None:
    """``#!/bin/sh`` then ``python3 bot.py``: the shell is the bot's process, the Python
    program its child. Ending only the shell left the child running (for an hour here), and
    holding the pipe a caller reads the arena's output from, so ``arena ... | tee`` hung."""
    marker = f"marker-wrapped-{os.getpid()}"
    bad = shlex.join([sys.executable, str(BOTS / "protocol_bad.py"), "timeout", marker])
    wrapper = tmp_path / "wrapper.sh"
    wrapper.write_text(f"#!/bin/sh\n{bad}\necho the shell ran on\n")
    wrapper.chmod(0o755)
    command = [sys.executable, "-m", "fifteentwo", "arena", "--variant", "short"]
    command += ["--games", "2", "--jobs", "1", "--move-time", "0.5", "--b", "random"]
    command += ["--a", f"exec:{shlex.quote(str(wrapper))}"]
    run = subprocess.run(
        command,
        capture_output=True,  # (pipes: read to their end, as a pipeline does)
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert run.returncode == 2, run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "took longer than 0.5 s" in errors[0]
    assert leftovers(marker) == []


def test_a_line_that_is_not_json_is_quoted_as_text() -> None:
    """The docs' words: ``sent a line that is not JSON: 'hello'`` (not ``b'hello'``)."""
    bot = ProtocolPlayer(shlex.join([sys.executable, str(BOTS / "protocol_bad.py"), "garbage"]))
    try:
        with pytest.raises(BotError) as caught:
            play_out(bot)
    finally:
        bot.close()
    assert str(caught.value).endswith("sent a line that is not JSON: 'this is not json'")


def engine(*lines: str, level: str = "standard") -> tuple[int, list[dict[str, object]]]:
    run = subprocess.run(
        [sys.executable, "-m", "fifteentwo", "engine", "--level", level],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return run.returncode, [json.loads(line) for line in run.stdout.splitlines()]


@pytest.mark.parametrize("level", ["standard", "expert", "greedy"])
def test_the_engine_answers_views_no_game_reaches_with_errors(level: str) -> None:
    """A host with a bug may send a view no game can reach: the engine says it cannot decide
    (it died with an internal error), and never answers with an action outside ``legal``."""
    rules = find_rules("standard").to_json()
    view, legal = PLAY_VIEW, PLAY_LEGAL

    def decide(ident: int, changes: dict[str, object], moves: object = legal) -> str:
        message = {"type": "decide", "id": ident, "view": {**view, **changes}, "legal": moves}
        return json.dumps(message)

    broken = [
        decide(1, {}, []),  # nothing legal
        decide(2, {"hand": []}),  # legal cards not in the hand
        decide(3, {"phase": "discard"}),  # plays in the discard
        decide(4, {"passed": []}),  # no seat has said go or not
        decide(5, {"pile": ["5H"] * 9}),
        decide(6, {"scores": []}),
    ]
    code, replies = engine(
        '{"type":"hello","protocol":1}',
        json.dumps({"type": "new_game", "seat": 1, "players": 2, "rules": rules, "seed": 1}),
        "[1, 2]",
        *broken,
        decide(7, {}),
        '{"type":"quit"}',
        level=level,
    )
    assert code == 0
    assert replies[0]["type"] == "hello"
    assert replies[1] == {"type": "error", "message": "not a JSON object"}
    assert len(replies) == 2 + len(broken) + 1  # one answer to every decide
    for reply in replies[2:]:
        assert reply["type"] in ("action", "error")
        if reply["type"] == "action":
            assert reply["action"] in legal
    assert replies[2]["type"] == "error"  # nothing legal: no action to give
    assert replies[-1]["type"] == "action" and replies[-1]["id"] == 7  # and it plays on


def test_the_arena_says_its_time_limit_binds_exec_bots() -> None:
    """``--move-time`` times a program's decisions too (the help named module:Class alone)."""
    subcommands = next(
        a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    )
    arena = subcommands.choices["arena"]
    (option,) = [a for a in arena._actions if "--move-time" in a.option_strings]
    assert option.help is not None and "exec:" in option.help


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("killed", "was killed by SIGKILL instead of sending its action"),
        ("close-stdout", "closed its output instead of sending its action"),
    ],
)
def test_a_bot_gone_by_a_signal_or_a_closed_output_is_named_so(mode: str, words: str) -> None:
    """It said "exited with status -9", and "exited" of a bot still running."""
    bot = ProtocolPlayer(shlex.join([sys.executable, str(BOTS / "protocol_bad.py"), mode]))
    try:
        with pytest.raises(BotError) as caught:
            play_out(bot)
    finally:
        bot.close()
    assert str(caught.value).endswith(words)
