"""``cribbage bot-check`` against a bot that hangs (docs/protocol.md): one time limit per
variant, one ``FAIL`` line each, then the next variant; the program killed at once, not told
``quit`` and waited for."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fifteentwo.cli import main
from fifteentwo.game import Game
from fifteentwo.players import protocol
from fifteentwo.players.guard import BotError, BotTimeout
from fifteentwo.players.protocol import ProtocolPlayer
from fifteentwo.rules import find_rules

BAD = Path(__file__).parent / "bots" / "protocol_bad.py"
MOVE_TIME = 0.5


def leftovers(marker: str) -> list[str]:
    ps = subprocess.run(["ps", "-eo", "pid,stat,args"], capture_output=True, text=True, check=True)
    return [line for line in ps.stdout.splitlines() if marker in line and "ps -eo" not in line]


def test_a_hanging_bot_costs_one_time_limit_per_variant(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It cost three limits a variant (three games tried, each waited out) and a second more
    each for the bot, busy with its decision, to be told ``quit``: 9 s here, not 1."""
    marker = f"marker-hang-{os.getpid()}"
    command = shlex.join([sys.executable, str(BAD), "hang", marker])
    start = time.monotonic()
    code = main(["bot-check", command, "--move-time", str(MOVE_TIME), "--json"])
    elapsed = time.monotonic() - start
    assert code == 1
    result = json.loads(capsys.readouterr().out)
    assert not result["passed"]
    reports = {report["variant"]: report for report in result["variants"]}
    assert set(reports) == {"short", "five-card"}  # a hang in one still checks the other
    for variant, report in reports.items():
        assert report["games"] == 1 and report["timed_out"] is True
        (failure,) = report["failures"]
        assert failure.startswith("seed 0: the bot (exec:")
        assert f"took longer than {MOVE_TIME:g} s to send its action" in failure
        assert f"the rest of {variant} is skipped" in failure
    assert len(result["problems"]) == 2
    # Two limits, and generous slack for starting three bots on a busy machine.
    assert elapsed < 2 * MOVE_TIME + 5.0, elapsed
    assert leftovers(marker) == []


def test_a_hang_is_one_fail_line_however_narrow_the_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "50")
    command = shlex.join([sys.executable, str(BAD), "hang", f"marker-narrow-{os.getpid()}"])
    assert main(["bot-check", command, "--move-time", str(MOVE_TIME)]) == 1
    lines = capsys.readouterr().out.splitlines()
    fails = [line for line in lines if line.startswith("FAIL ")]
    assert len(fails) == 2
    for fail, variant in zip(fails, ("short", "five-card"), strict=True):
        assert fail.startswith(f"FAIL {variant}, seed 0: the bot")
        assert fail.endswith("a bot that misses its time limit is not waited for again)")


def test_a_passing_variant_reports_it_did_not_time_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    command = shlex.join([sys.executable, str(BAD), "illegal", "x"])
    assert main(["bot-check", command, "--games", "1", "--move-time", "5", "--json"]) == 1
    (report,) = json.loads(capsys.readouterr().out)["variants"]
    assert report["timed_out"] is False and report["failures"]


def test_a_late_bot_is_a_bot_timeout_and_is_killed_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A late bot is still busy with its decision: it is killed, not told ``quit`` and given
    time to exit (which a hanging bot never does). That time is made long here, so that waiting
    for it shows."""
    monkeypatch.setattr(protocol, "QUIT_TIME", 20.0)
    bot = ProtocolPlayer(shlex.join([sys.executable, str(BAD), "hang", "x"]), move_time=MOVE_TIME)
    game = Game(find_rules("short"), seed=2)
    while game.to_move == -1:  # the cut for deal and the deal
        game.apply(game.sample_chance())
    seat = game.to_move
    assert seat is not None
    start = time.monotonic()
    with pytest.raises(BotTimeout, match=r"took longer than 0\.5 s to send its action"):
        bot.choose(game.observation(seat))
    assert time.monotonic() - start < MOVE_TIME + 10.0  # not MOVE_TIME + QUIT_TIME
    assert bot.proc.returncode == -9  # killed and reaped


def test_a_handshake_that_hangs_is_a_bot_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "HANDSHAKE_TIME", 0.3)
    silent = shlex.join([sys.executable, "-c", "import time; time.sleep(60)"])
    with pytest.raises(BotTimeout, match=r"took longer than 0\.3 s to send its hello") as caught:
        ProtocolPlayer(silent, move_time=0.3)
    assert isinstance(caught.value, BotError)  # what every caller catches


def test_the_command_may_be_given_as_an_exec_spec(capsys: pytest.CaptureFixture[str]) -> None:
    """``exec:CMD`` is how `cribbage play` and the arena name a protocol bot; bot-check takes
    the same spec as well as the bare command."""
    command = shlex.join([sys.executable, str(BAD), "illegal", "x"])
    assert main(["bot-check", "exec:" + command, "--games", "1", "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["bot"]["name"] == "bad" and [v["variant"] for v in result["variants"]] == [
        "short"
    ]
