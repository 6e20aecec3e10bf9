"""Guards around a loaded bot: every decision of an untrusted player is checked and timed.

A bot given as ``module:Class`` is somebody else's code. It may raise, return something that is
not an action or not a legal one, print to stdout (which would corrupt ``--json`` output), call
``sys.exit`` or ``os._exit``, or never return. `GuardedPlayer` stands in its seat and turns each
of these into one `BotError` naming the bot and what it did, so the arena, the terminal game and
the web server stop with one line instead of hanging, dying or printing a traceback.

The time limit is enforced with ``SIGALRM`` where that is possible (the main thread of a process:
the terminal game, ``arena --jobs 1`` and every arena worker process), which interrupts a bot
looping in Python. Elsewhere (a thread of the web server) the decision runs in a helper thread
that is abandoned when the time is up. A bot that swallows the interruption and keeps running is
stopped for good a few seconds later by ending the process with one ``error:`` line: in the arena
that process is a worker, whose death the arena reports.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any, Final

from fifteentwo.actions import Action
from fifteentwo.errors import FifteenTwoError
from fifteentwo.observation import Observation

__all__ = [
    "DEFAULT_MOVE_TIME",
    "MAX_MOVE_TIME",
    "BotError",
    "BotTimeout",
    "GuardedPlayer",
    "check_move_time",
    "default_move_time",
    "set_default_move_time",
]

DEFAULT_MOVE_TIME: Final = 10.0
"""Seconds a loaded bot may take for one decision unless told otherwise (``--move-time``)."""
MAX_MOVE_TIME: Final = 3600.0
GRACE: Final = 3.0
"""Seconds after the time limit before a bot that ignored the interruption ends the process."""

_real_exit = os._exit
_default = [DEFAULT_MOVE_TIME]


class BotError(FifteenTwoError):
    """A loaded bot misbehaved; the message names the bot and what it did."""


class BotTimeout(BotError):
    """A loaded bot missed its time limit (it hung, or it is too slow): a caller that would ask
    it again (``cribbage bot-check``) knows that asking costs another whole time limit."""


class _TimeUp(BaseException):
    """Raised inside a bot's decision by the alarm (a BaseException, so `except Exception`
    in the bot does not swallow it)."""


def default_move_time() -> float:
    """The time limit new guarded players get when none is given."""
    return _default[0]


def set_default_move_time(seconds: float) -> None:
    """Set the default time limit per decision (``cribbage play --move-time``)."""
    _default[0] = check_move_time(seconds)


def check_move_time(seconds: float) -> float:
    """``seconds`` if it is a usable time limit, else a `FifteenTwoError` saying why."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise FifteenTwoError(f"the time per decision must be a number, not {seconds!r}")
    if not 0 < seconds <= MAX_MOVE_TIME:  # also refuses NaN
        raise FifteenTwoError(
            f"the time per decision must be more than 0 and at most {MAX_MOVE_TIME:g} seconds"
        )
    return float(seconds)


class GuardedPlayer:
    """Stands in a seat for an untrusted player and checks every decision it makes."""

    def __init__(self, player: Any, spec: str, *, move_time: float | None = None) -> None:
        self.player = player
        self.spec = spec
        self.move_time = default_move_time() if move_time is None else check_move_time(move_time)
        self.label = "bot"
        """How messages name the seat: ``A`` or ``B`` in the arena, ``bot`` elsewhere."""

    def __getattr__(self, name: str) -> Any:
        # rng, seed, name, hints ... come from the player itself.
        return getattr(self.player, name)

    def __repr__(self) -> str:
        return f"GuardedPlayer({self.player!r}, {self.spec!r})"

    @property
    def who(self) -> str:
        """The bot as messages name it: ``player B (mybots:Bot)``."""
        name = "the bot" if self.label == "bot" else f"player {self.label}"
        return f"{name} ({_short(self.spec)})"

    def choose(self, obs: Observation) -> Action:
        """The bot's action, or a `BotError` saying what went wrong instead."""
        try:
            with _quiet_stdout(), _no_exit():
                action = _call_with_deadline(self.player.choose, obs, self.move_time)
        except _TimeUp:
            raise BotTimeout(
                f"{self.who} took longer than {self.move_time:g} s to decide"
            ) from None
        except BotError:
            raise
        except KeyboardInterrupt:
            raise
        except _BotExit as exc:
            raise BotError(f"{self.who} tried to exit the program ({exc})") from None
        except SystemExit as exc:
            raise BotError(f"{self.who} called sys.exit({exc.code!r})") from None
        except BaseException as exc:  # anything a bot raises is the bot's fault
            raise BotError(f"{self.who} raised {type(exc).__name__}: {_first_line(exc)}") from None
        if not _is_legal(action, obs):
            if not isinstance(action, Action):
                raise BotError(
                    f"{self.who} returned {_short(repr(action))}, which is not an action"
                )
            raise BotError(f"{self.who} chose an illegal action: {_short(repr(action))}")
        return action


def _is_legal(action: object, obs: Observation) -> bool:
    """Whether ``action`` is one of the legal actions, field types included (``Count(True)``
    equals ``Count(1)`` but is not a count)."""
    if not isinstance(action, Action):
        return False
    text = repr(action)
    return any(type(legal) is type(action) and repr(legal) == text for legal in obs.legal)


class _BotExit(BaseException):
    """Raised in place of ``os._exit`` while a bot decides."""


@contextlib.contextmanager
def _no_exit() -> Iterator[None]:
    """``os._exit`` raises while a bot decides, so a bot cannot end the process unseen."""

    def refuse(code: int) -> None:
        raise _BotExit(f"os._exit({code!r})")

    os._exit = refuse  # type: ignore[assignment]
    try:
        yield
    finally:
        os._exit = _real_exit


@contextlib.contextmanager
def _quiet_stdout() -> Iterator[None]:
    """A bot's prints go to stderr: stdout may be a ``--json`` result or the game itself."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


def _call_with_deadline(fn: Any, obs: Observation, seconds: float) -> Action:
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        return _call_with_alarm(fn, obs, seconds)
    return _call_in_thread(fn, obs, seconds)


def _call_with_alarm(fn: Any, obs: Observation, seconds: float) -> Action:
    fired = [0]

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        fired[0] += 1
        if fired[0] == 1:
            signal.setitimer(signal.ITIMER_REAL, GRACE)
            raise _TimeUp
        # The bot swallowed the first interruption: end this process with one line.
        sys.stderr.write(
            f"error: a bot ignored its time limit of {seconds:g} s; stopping this process\n"
        )
        sys.stderr.flush()
        _real_exit(2)

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(obs)  # type: ignore[no-any-return]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _call_in_thread(fn: Any, obs: Observation, seconds: float) -> Action:
    box: list[Any] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            box.append(fn(obs))
        except BaseException as exc:
            failure.append(exc)

    worker = threading.Thread(target=run, name="fifteentwo-bot", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise _TimeUp  # the thread is abandoned (Python cannot stop a thread)
    if failure:
        raise failure[0]
    return box[0]  # type: ignore[no-any-return]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return _short(text[0]) if text else "(no message)"


def _short(text: str, limit: int = 120) -> str:
    """Untrusted text cut to one printable line."""
    clean = "".join(c if c.isprintable() else "?" for c in text)
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"
