"""Learning environments: PettingZoo (every seat an agent) and Gymnasium (one seat learns).

Needs the optional extra: ``pip install 'fifteentwo[env]'`` (gymnasium and pettingzoo).
Observations, actions, rewards and seeding are documented in docs/env.md; the numbers come
from `fifteentwo.env.encoding`, the rules and chance from the engine (`fifteentwo.game`).

>>> from fifteentwo.env import CribbageEnv, CribbageGymEnv, ACTION_COUNT
>>> ACTION_COUNT
1463
"""

from __future__ import annotations

try:
    import gymnasium as _gymnasium
    import pettingzoo as _pettingzoo  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the install
    raise ImportError(
        "fifteentwo.env needs gymnasium and pettingzoo: pip install 'fifteentwo[env]'"
    ) from exc

from fifteentwo.env.aec import CribbageEnv, env, raw_env
from fifteentwo.env.encoding import (
    ACTION_COUNT,
    ACTIONS,
    OBSERVATION_DOC,
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    action_index,
    action_mask,
    encode,
)
from fifteentwo.env.single import CribbageGymEnv
from fifteentwo.env.table import REWARD_MODES

GYM_ID = "fifteentwo/Cribbage-v0"
"""``gymnasium.make(GYM_ID, variant=..., opponents=...)`` makes a `CribbageGymEnv`."""
if GYM_ID not in _gymnasium.registry:
    _gymnasium.register(id=GYM_ID, entry_point="fifteentwo.env.single:CribbageGymEnv")

__all__ = [
    "ACTIONS",
    "ACTION_COUNT",
    "GYM_ID",
    "OBSERVATION_DOC",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "REWARD_MODES",
    "CribbageEnv",
    "CribbageGymEnv",
    "action_index",
    "action_mask",
    "encode",
    "env",
    "raw_env",
]
