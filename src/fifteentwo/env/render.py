"""Plain-text view of a game for ``render_mode="ansi"``: what a person watching would see."""

from __future__ import annotations

from fifteentwo.game import Game

__all__ = ["describe"]


def describe(game: Game) -> str:
    """Scores, dealer, phase, starter, the pile and count, and every seat's cards."""
    cards = " ".join
    lines = [
        f"{game.rules.name}: scores {' - '.join(map(str, game.scores))}, dealer seat {game.dealer}",
        f"phase {game.phase.value}, to move {game.to_move}",
    ]
    if game.starter is not None:
        lines.append(f"starter {game.starter.short}")
    lines.append(f"pile {cards(c.short for c in game.pile) or '-'} (count {game.count})")
    for seat, hand in enumerate(game.hands):
        lines.append(f"seat {seat}: {cards(c.short for c in hand) or '-'}")
    return "\n".join(lines)
