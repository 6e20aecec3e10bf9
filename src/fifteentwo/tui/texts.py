"""Words the app builds from the engine's values: game titles, details, counts, the rules text."""

from __future__ import annotations

import importlib
from typing import Any

from fifteentwo.actions import (
    HandCounted,
)
from fifteentwo.app.session import Session
from fifteentwo.rules import Rules


def _game_title(rules: Rules) -> str:
    """``short game to 61``, ``five-card game to 61``, ``long game to 121``."""
    if rules.name in ("standard", "short"):
        name = "short" if rules.target <= 61 else "long"
    else:
        name = rules.name
    match = f", best of {rules.match_games}" if rules.match_games > 1 else ""
    return f"{name} game to {rules.target}{match}"


def _game_details(session: Session) -> str:
    """Who plays and the house rules, as the plain mode's header says them."""
    seats = ", ".join(s.name if s.human else f"{s.name} ({s.level})" for s in session.seats)
    extras = []
    if session.rules.muggins:
        extras.append("muggins")
    if not session.auto_count and session.human_seats:
        extras.append("you count your own hands")
    more = f"; {', '.join(extras)}" if extras else ""
    return f"{seats}{more}. Seed {session.seed}."


def _action_parts(action: str) -> tuple[str, tuple[object, ...]]:
    """``pick(0)`` as ``("pick", ())``: the name is all `check_action` looks at."""
    return action.split("(", 1)[0], ()


def number_keys(n: int) -> str:
    """The number keys for ``n`` cards: ``1-6``, ``1-4``, and ``1`` (never ``1-1``)."""
    return "1" if n <= 1 else f"1-{n}"


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _shown_total(shown: HandCounted) -> str:
    if shown.claimed != shown.total:
        return f"{shown.claimed} (of {shown.total})"
    return str(shown.total)


FALLBACK_RULES = """\
# Cribbage

Two players (or three, or four as partners) race to 121 points (61 in the short game).

**The deal.** Each player gets six cards and lays two away, face down, to the *crib*, which
counts for the dealer. The non-dealer cuts the pack and the dealer turns up the *starter*; a
jack turned pegs 2 for the dealer (*his heels*).

**The play.** Players lay cards in turn, announcing the running count, never past 31. Peg 2 for
making 15 or 31, 2 for a pair, 6 for three of a kind, 12 for four, and 1 a card for runs of
three or more. A player who cannot play says *go*; the other plays on and pegs 1 for the last
card (2 at 31). The count then starts again.

**The show.** Non-dealer's hand counts first, then the dealer's, then the crib, each with the
starter: 2 for each fifteen, 2 for each pair, 1 a card for runs, 4 for a flush in hand (5 with
the starter; a crib flush needs all five), and 1 for the jack of the starter's suit (*his nobs*).

**Winning.** The first to the target wins at once. A loser short of 91 (31 in the short game)
is *skunked* and loses a double game.
"""


def rules_markdown() -> str:
    """The rules as markdown, from `fifteentwo.app.rules_text` once it exists."""
    try:
        module: Any = importlib.import_module("fifteentwo.app.rules_text")
    except ImportError:
        return FALLBACK_RULES
    for name in ("rules_markdown", "RULES_MARKDOWN", "RULES", "rules_text", "TEXT"):
        value = getattr(module, name, None)
        if callable(value):
            value = value()
        if isinstance(value, str) and value.strip():
            return value
    return FALLBACK_RULES
