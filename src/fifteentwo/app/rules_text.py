"""This program's own rules of cribbage, written for it: the text behind ``cribbage rules``, the
plain mode's instructions and the Textual app's help. It is Markdown, kept as package data
(``fifteentwo/data/rules.md``) so it can be read and edited as a document."""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["rules_markdown", "rules_plain"]


@cache
def rules_markdown() -> str:
    """The rules as Markdown."""
    return resources.files("fifteentwo").joinpath("data/rules.md").read_text(encoding="utf-8")


def rules_plain() -> str:
    """The rules as plain text for the line mode: Markdown marks that a reader would hear as
    noise (emphasis stars, backticks, table rules) are removed; the structure stays.

    >>> "**" in rules_plain() or "`" in rules_plain()
    False
    """
    lines = []
    for line in rules_markdown().splitlines():
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
