"""Misbehaving bots for the cluster tests (``badbots:Crasher``), importable by the workers."""

from __future__ import annotations

from fifteentwo.actions import Action
from fifteentwo.observation import Observation
from fifteentwo.players.base import Player


class Crasher(Player):
    """Raises on its first decision, as a buggy bot does."""

    name = "crasher"

    def choose(self, obs: Observation) -> Action:
        raise RuntimeError("the crasher bot crashed")
