"""Computer players behind one small protocol, and the self-play driver."""

from fifteentwo.players.base import Player, load_player, play_game
from fifteentwo.players.simple import GreedyPlayer, RandomPlayer

__all__ = ["GreedyPlayer", "Player", "RandomPlayer", "load_player", "play_game"]
