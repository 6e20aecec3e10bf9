"""Words the app builds from the engine's values: game details, counts, the rules text (a game's
name is `fifteentwo.app.describe.rules_name`, the same in every front-end)."""

from __future__ import annotations

from fifteentwo.actions import (
    HandCounted,
)
from fifteentwo.app import rules_text
from fifteentwo.app.session import Session


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


def rules_markdown() -> str:
    """The rules as the full-screen game shows them: ending with its own controls (the plain
    mode's are its own, `fifteentwo.app.rules_text`)."""
    return rules_text.rules_markdown("screen")
