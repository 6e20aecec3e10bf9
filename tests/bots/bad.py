"""Misbehaving bots, one per kind of misdeed the guards must catch (tests/test_bots_guard.py).

Each plays legally (as the random level) until its ``trigger``-th decision, so a match gets
going before the misdeed, as with a real buggy bot.
"""

from __future__ import annotations

import os
import sys
import time

from fifteentwo.actions import Action, Count
from fifteentwo.observation import Observation
from fifteentwo.players.simple import RandomPlayer


class _Bad(RandomPlayer):
    trigger = 3

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.decisions = 0

    def choose(self, obs: Observation) -> Action:
        self.decisions += 1
        if self.decisions >= self.trigger:
            return self.misbehave(obs)
        return super().choose(obs)

    def misbehave(self, obs: Observation) -> Action:
        raise NotImplementedError


class Raiser(_Bad):
    def misbehave(self, obs: Observation) -> Action:
        raise ValueError("the raiser bot broke")


class Illegal(_Bad):
    def misbehave(self, obs: Observation) -> Action:
        return Count(99)


class WrongType(_Bad):
    def misbehave(self, obs: Observation) -> Action:
        return "5h"  # type: ignore[return-value]


class BoolCount(_Bad):
    """Answers a legal-looking but mistyped action wherever it can."""

    trigger = 1

    def misbehave(self, obs: Observation) -> Action:
        return Count(True)


class Exiter(_Bad):
    def misbehave(self, obs: Observation) -> Action:
        sys.exit(3)


class HardExiter(_Bad):
    def misbehave(self, obs: Observation) -> Action:
        os._exit(4)


class Printer(RandomPlayer):
    """Plays legally but prints junk on every decision (must not corrupt --json output)."""

    def choose(self, obs: Observation) -> Action:
        print("{not json: bot chatter}")
        return super().choose(obs)


class Sleeper(_Bad):
    def misbehave(self, obs: Observation) -> Action:
        while True:
            time.sleep(0.01)


class Spinner(_Bad):
    def misbehave(self, obs: Observation) -> Action:
        n = 0
        while True:
            n += 1


class Stubborn(_Bad):
    """Swallows every interruption: only ending the process stops it."""

    def misbehave(self, obs: Observation) -> Action:
        while True:
            try:
                while True:
                    time.sleep(0.01)
            except BaseException:  # the point of this bot
                pass


class NotAPlayer:
    """Has no choose method."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed


class BadInit(RandomPlayer):
    def __init__(self, seed: int = 0) -> None:
        raise RuntimeError("cannot start")
