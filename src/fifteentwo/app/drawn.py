"""RNGs that count their draws, so a saved game knows cheaply whether an RNG moved.

A step of a stored game (`Session.step_json`) carries an RNG's state only when it changed,
and most steps draw nothing. Reading a Mersenne Twister's state to find out builds a tuple
of 625 integers (about 17 us, several RNGs at every step: a tenth of the web server's CPU
per move, issue 32). A `CountedRandom` counts every call that moves its state instead, and
draws exactly the numbers `random.Random` draws: it overrides the two primitives every
method of `random.Random` draws through (`random`, `getrandbits`), the two that set the
state (`seed`, `setstate`) and `gauss`, which keeps a second number in the state between
calls, each calling the library's own.

It also counts the 32-bit words of the Mersenne Twister it consumed since its state was last
set (`words`): the generator's state after n more words is the state before with n words
drawn (`advance`), so a stored game's step can carry "the state saved earlier, n words on"
(a number) instead of the state itself (3 KB of text), which most steps with a deal or a
computer's draw did (issue 32). `base` is for the caller to keep what it saved of the state
the count starts from (it is cleared whenever the state is set).
"""

from __future__ import annotations

import random
from typing import Any


class CountedRandom(random.Random):
    """`random.Random`, counting the calls that move its state (`moves`)."""

    moves = 0
    words = 0
    """Words of the generator drawn since the state was last set (or since `base` was kept)."""
    base: object = None
    """What the caller kept of the state `words` counts from (None: nothing yet)."""

    def seed(self, *args: Any, **kwargs: Any) -> None:
        self.moves += 1
        self.words, self.base = 0, None
        super().seed(*args, **kwargs)

    def setstate(self, state: Any) -> None:
        self.moves += 1
        self.words, self.base = 0, None
        super().setstate(state)

    def random(self) -> float:
        self.moves += 1
        self.words += 2  # (53 bits: two words, as the C generator draws them)
        return super().random()

    def getrandbits(self, k: int, /) -> int:
        bits = super().getrandbits(k)  # (first: a negative k raises, drawing nothing)
        self.moves += 1
        self.words += (k + 31) // 32  # (no word for k == 0, one per 32 bits or part)
        return bits

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


def count_as(copy: random.Random, source: random.Random) -> None:
    """Make ``copy``, an RNG in ``source``'s state (a game's or a player's copied), count from
    where ``source`` counts, so a copy's step stores the count and not the state again."""
    tracked = counted(copy)
    if tracked is not None and isinstance(source, CountedRandom):
        tracked.base, tracked.words = source.base, source.words


def advance(rng: random.Random, words: int) -> None:
    """Draw ``words`` 32-bit words and drop them: the state `words` more draws on (one call
    into the generator's C code, counted by a `CountedRandom`)."""
    if words < 0:
        raise ValueError("an RNG cannot go back")
    if words:
        rng.getrandbits(32 * words)
