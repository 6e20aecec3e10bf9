"""A protocol bot (``exec:``) as the Gymnasium environment's opponent: started by a reset,
not by the constructor's check; told what each deal revealed and the game's end, as the arena
and the terminal game tell it; ended with ``quit`` by `close` (docs/protocol.md)."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import numpy as np

from fifteentwo.env import CribbageGymEnv

BOTS = Path(__file__).parent / "bots"


def notes(log: Path, last: str, seconds: float = 10.0) -> list[str]:
    """The bot's notes once the last is ``last`` (or the time is up)."""
    deadline = time.monotonic() + seconds
    while True:
        words = log.read_text().split() if log.exists() else []
        if (words and words[-1] == last) or time.monotonic() > deadline:
            return words
        time.sleep(0.05)


def test_an_exec_opponent_hears_the_deals_and_quit(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    command = shlex.join([sys.executable, str(BOTS / "protocol_log.py"), str(log)])
    env = CribbageGymEnv("short", opponents=f"exec:{command}")
    time.sleep(0.3)
    assert not log.exists()  # checking the spec starts nothing
    _, info = env.reset(seed=3)
    terminated = False
    while not terminated:
        action = int(np.flatnonzero(info["action_mask"])[0])
        _, _, terminated, _, info = env.step(action)
    deals = sum(1 for e in env.table.game.events if type(e).__name__ == "DealDone")
    env.close()
    words = notes(log, "quit")
    assert words[0] == "start" and words[-1] == "quit"
    assert words.count("start") == 1
    assert words.count("deal_end") == deals >= 1
    assert words[-2] == "game_end"
