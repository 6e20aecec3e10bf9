"""Computer players behind one small protocol, and the self-play driver.

Levels, weakest first: ``random``, ``greedy``, ``novice``, ``standard``, ``expert``; and
``expert-1`` and ``expert-2``, the experts of 2026-11-25 and 2026-11-26 kept unchanged as
yardsticks (docs/players.md).
`load_player` takes a level name, ``package.module:Class`` or ``exec:CMD`` (`check_player`
checks one without starting a program).
"""

from fifteentwo.players.base import LEVELS, Hint, Player, check_player, load_player, play_game
from fifteentwo.players.expert import ExpertPlayer, FrozenExpert2Player, FrozenExpertPlayer
from fifteentwo.players.novice import NovicePlayer
from fifteentwo.players.simple import GreedyPlayer, RandomPlayer
from fifteentwo.players.standard import StandardPlayer

LEVELS.update(
    novice=NovicePlayer,
    standard=StandardPlayer,
    expert=ExpertPlayer,
    **{"expert-1": FrozenExpertPlayer, "expert-2": FrozenExpert2Player},
)

__all__ = [
    "ExpertPlayer",
    "FrozenExpert2Player",
    "FrozenExpertPlayer",
    "GreedyPlayer",
    "Hint",
    "NovicePlayer",
    "Player",
    "RandomPlayer",
    "StandardPlayer",
    "check_player",
    "load_player",
    "play_game",
]
