"""This program's own rules of cribbage, written for it: the text behind ``cribbage rules``, the
plain mode's instructions and the Textual app's rules screen. It is Markdown, kept as package
data (``fifteentwo/data/rules.md``) so it can be read and edited as a document.

The document ends with the controls of each way to play: a section for the full-screen game
(`SCREEN_CONTROLS`) and one for plain line mode (`PLAIN_CONTROLS`). ``cribbage rules`` shows
both; each mode shows its own only (``controls="screen"`` or ``"plain"``).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Final, Literal

__all__ = ["PLAIN_CONTROLS", "SCREEN_CONTROLS", "Controls", "rules_markdown", "rules_plain"]

Controls = Literal["both", "screen", "plain"]
"""Whose controls the rules end with: both ways to play, the full-screen game's, plain mode's."""

SCREEN_CONTROLS: Final = "## The full-screen game"
"""The heading of the full-screen game's controls in ``rules.md``."""
PLAIN_CONTROLS: Final = "## Plain line mode"
"""The heading of plain line mode's controls in ``rules.md``."""


@cache
def rules_markdown(controls: Controls = "both") -> str:
    """The rules as Markdown, ending with the controls of both ways to play, or of one.

    >>> "5h 9c" in rules_markdown("screen"), "`?` the keys" in rules_markdown("screen")
    (False, True)
    >>> "5h 9c" in rules_markdown("plain"), "`?` the keys" in rules_markdown("plain")
    (True, False)
    """
    text = resources.files("fifteentwo").joinpath("data/rules.md").read_text(encoding="utf-8")
    if controls == "both":
        return text
    dropped = PLAIN_CONTROLS if controls == "screen" else SCREEN_CONTROLS
    kept: list[str] = []
    skipping = False
    for line in text.splitlines(keepends=True):
        if line.startswith("## "):
            skipping = line.rstrip() == dropped
        if not skipping:
            kept.append(line)
    return "".join(kept).rstrip("\n") + "\n"


def rules_plain(controls: Controls = "plain") -> str:
    """The rules as plain text (for the line mode, with its own controls): Markdown marks
    that a reader would hear as noise (emphasis stars, backticks, table rules) are removed; the
    structure stays.

    >>> "**" in rules_plain() or "`" in rules_plain()
    False
    """
    lines = []
    for line in rules_markdown(controls).splitlines():
        if line.startswith("|") and set(line) <= set("|-: "):
            continue  # a table's separator row
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            line = "  " + ": ".join(cells)
        elif line.startswith("* "):
            line = "- " + line[2:]
        elif line.startswith("#"):
            title = line.lstrip("#").strip()
            line = title.upper() if line.startswith("# ") else title
        lines.append(line.replace("**", "").replace("`", "").replace("*", ""))
    return "\n".join(lines) + "\n"
