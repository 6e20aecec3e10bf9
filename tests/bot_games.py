"""What the bot tests share: a game played out with a bot in seat 0, and one position of the
play as the protocol's ``decide`` carries it (tests/test_protocol_*.py, test_bots_guard.py)."""

from __future__ import annotations

from typing import Any

from fifteentwo.game import Game
from fifteentwo.players import load_player
from fifteentwo.players.base import Player
from fifteentwo.rules import find_rules


def play_out(bot: Player, *, seed: int = 2, other_seed: int = 1) -> None:
    """A game to 61 with ``bot`` in seat 0 against the random level, to its end (or until the
    bot raises)."""
    game = Game(find_rules("short"), seed=seed)
    other = load_player("random", other_seed)
    while not game.is_over:
        seat = game.to_move
        if seat == -1:
            game.apply(game.sample_chance())
            continue
        assert seat is not None
        player = bot if seat == 0 else other
        game.apply(player.choose(game.observation(seat)))


PLAY_VIEW: dict[str, Any] = {
    "seat": 1,
    "phase": "play",
    "to_move": 1,
    "dealer": 1,
    "scores": [0, 0],
    "match_points": [0, 0],
    "game_number": 1,
    "hand": ["AD", "2C", "3D", "7H"],
    "kept": ["AD", "2C", "3D", "7H"],
    "discards": ["TD", "KS"],
    "starter": "4D",
    "pile": ["5S"],
    "count": 5,
    "played": [[0, "5S"]],
    "passed": [False, False],
    "hand_sizes": [3, 4],
    "shown": [],
    "pending_claim": None,
    "to_count": [],
    "counting_crib": False,
}
"""Seat 1 of a standard game, to play after the 5S was led (a ``decide`` message's view)."""

PLAY_LEGAL: list[dict[str, Any]] = [{"type": "play", "card": c} for c in ("AD", "2C", "3D", "7H")]
"""The plays `PLAY_VIEW` allows."""
