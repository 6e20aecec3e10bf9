"""RNGs that count their draws, so a saved game knows cheaply whether an RNG moved.

A step of a stored game (`Session.step_json`) carries an RNG's state only when it changed,
and most steps draw nothing. Reading a Mersenne Twister's state to find out builds a tuple
of 625 integers (about 17 us, several RNGs at every step: a tenth of the web server's CPU
per move, issue 32). A `CountedRandom` counts every call that moves its state instead, and
draws exactly the numbers `random.Random` draws: it overrides the two primitives every
method of `random.Random` draws through (`random`, `getrandbits`), the two that set the
state (`seed`, `setstate`) and `gauss`, which keeps a second number in the state between
calls, each calling the library's own.
"""

from __future__ import annotations

import random
from typing import Any


class CountedRandom(random.Random):
    """`random.Random`, counting the calls that move its state (`moves`)."""

    moves = 0

    def seed(self, *args: Any, **kwargs: Any) -> None:
        self.moves += 1
        super().seed(*args, **kwargs)

    def setstate(self, state: Any) -> None:
        self.moves += 1
        super().setstate(state)

    def random(self) -> float:
        self.moves += 1
        return super().random()

    def getrandbits(self, k: int, /) -> int:
        self.moves += 1
        return super().getrandbits(k)

    def gauss(self, mu: float = 0.0, sigma: float = 1.0) -> float:
        self.moves += 1  # (a call without a draw still clears the number it kept)
        return super().gauss(mu, sigma)


def counted(rng: random.Random) -> CountedRandom | None:
    """The same object, now counting its draws (whoever else holds it draws the same
    numbers), or None for an RNG of another class (which is then read in full)."""
    if isinstance(rng, CountedRandom):
        return rng
    if type(rng) is not random.Random:
        return None  # (a subclass may draw by other means: not ours to retype)
    rng.__class__ = CountedRandom
    return rng  # type: ignore[return-value]
