"""Reading a show count as people say it, for every front-end (plain mode, the Textual app).

One parser so that the same answer means the same count everywhere: digits (``14``), or any
number word a count can be (``zero`` to ``twenty-nine``, ``twenty nine``, any case), and the
table's ways of saying nothing: ``nineteen`` (no hand makes 19, so the word means zero),
``nothing``, ``none``.
"""

from __future__ import annotations

import re
from typing import Final

from fifteentwo.scoring import number_word

__all__ = ["MAX_COUNT", "begins_a_count", "parse_count"]

MAX_COUNT: Final = 29
"""The most a hand or crib can be worth."""

_NOTHING: Final = frozenset({"nothing", "none", "nineteen", "19"})
_WORDS: Final = {number_word(n): n for n in range(MAX_COUNT + 1)}
_FIRST_LETTERS: Final = frozenset(word[0] for word in (*_WORDS, *_NOTHING))


def parse_count(text: str) -> int:
    """The count someone typed, 0 to 29 (``nineteen`` and 19 mean 0); `ValueError` with a
    sentence fit to show when it is not one.

    >>> [parse_count(t) for t in ("14", "Fourteen", "twenty nine", "TWENTY-ONE", "nineteen")]
    [14, 14, 29, 21, 0]
    """
    said = "-".join(re.split(r"[\s_-]+", text.strip().lower()))
    if said in _NOTHING:
        return 0
    if said in _WORDS:
        return _WORDS[said]
    if said.isascii() and said.isdigit():
        value = int(said)
        if value > MAX_COUNT:
            raise ValueError(f"no hand is worth more than {MAX_COUNT}")
        return value
    raise ValueError(f"type a number of points, 0 to {MAX_COUNT} (digits or words: fourteen)")


def begins_a_count(character: str) -> bool:
    """Whether a count `parse_count` reads can begin with ``character``: a digit, or the first
    letter of a number word (``f`` for fourteen, ``n`` for nothing). A text box for counts lets
    other keys (``r``, ``u``, ``q``) act as the program's own until something is typed.

    >>> [c for c in "0fqrtu?" if begins_a_count(c)]
    ['0', 'f', 't']
    """
    return (character.isascii() and character.isdigit()) or character.lower() in _FIRST_LETTERS
