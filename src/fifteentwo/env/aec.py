"""PettingZoo AEC environment: every seat of any variant is an agent (docs/env.md).

>>> env = CribbageEnv("standard")
>>> env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum())  # six cards: 15 ways to discard 2
((871,), 15)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from fifteentwo.env.encoding import ACTION_COUNT, OBSERVATION_SIZE, encode
from fifteentwo.env.render import describe
from fifteentwo.env.table import NO_ACTIONS, SEED_LIMIT, RewardMode, Table, rules_of
from fifteentwo.errors import IllegalActionError
from fifteentwo.rules import Rules

__all__ = ["CribbageEnv", "env", "raw_env"]

ObsDict = dict[str, npt.NDArray[Any]]


class CribbageEnv(AECEnv[str, ObsDict, int]):  # type: ignore[misc]  # (pettingzoo is untyped)
    """Cribbage for two to four agents (``player_0`` .. ``player_3``), one per seat.

    ``variant`` is a rules preset name (`fifteentwo.rules.preset_names`) or `Rules`.
    ``reward`` is ``points``, ``margin`` or ``game`` (`fifteentwo.env.table.REWARD_MODES`);
    ``manual_count`` makes every seat count its own show (with muggins when the rules have it).
    An action whose mask entry is 0 is refused: with ``illegal_action="raise"`` by
    `IllegalActionError`, by default by leaving the game as it was and giving the agent
    ``-illegal_penalty`` (``info["illegal_action"]`` says so).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "fifteentwo_cribbage_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: str | Rules = "standard",
        *,
        reward: RewardMode = "points",
        manual_count: bool = False,
        illegal_action: str = "penalty",
        illegal_penalty: float = 1.0,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if illegal_action not in ("penalty", "raise"):
            raise ValueError(f"illegal_action must be 'penalty' or 'raise', not {illegal_action!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.rules = rules_of(variant)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_penalty = illegal_penalty
        self.table = Table(self.rules, reward, manual_count)
        self.possible_agents = [f"player_{seat}" for seat in range(self.rules.players)]
        self.agents = list(self.possible_agents)
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._side = {agent: self.rules.side_of(seat) for agent, seat in self._seat.items()}
        self._flagged = ""
        """The agent whose info holds an illegal-action flag, to clear on the next step."""
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(ACTION_COUNT)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)
        self._rng = np.random.default_rng()
        self._pending: list[float] = []
        self.agent_selection = self.possible_agents[0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The same Dict space for every agent: ``observation`` and ``action_mask``."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(1463)``: the fixed action space of `fifteentwo.env.encoding`."""
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. A seed makes it (and every game after it without one) reproducible."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._flagged = ""
        # Points scored before the first decision (three for last in the five-card game) are
        # given with the first step's rewards: PettingZoo's rewards start at 0 after reset.
        self._pending = self.table.new_game(int(self._rng.integers(SEED_LIMIT)))
        self._select()

    def observe(self, agent: str) -> ObsDict:
        """The agent's view: its observation vector and its action mask (0s off turn)."""
        seat = self._seat[agent]
        table = self.table
        game = table.game
        mask = (table.mask() if game.to_move == seat else NO_ACTIONS).copy()
        return {"observation": encode(game.observation(seat)), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action (None once it is terminated)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        if action is None:
            raise ValueError(f"{agent} is to move: None is only for agents that are done")
        chosen = table.action(int(action))
        self._cumulative_rewards[agent] = 0.0
        if self._flagged:
            self.infos[self._flagged] = {}
            self._flagged = ""
        try:
            if chosen is None:
                raise IllegalActionError(f"action {action} is not legal for {agent} now")
            gained = table.apply(chosen)  # (a claim over the true count pegs the true count)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.rewards[agent] = -self.illegal_penalty
            self.infos[agent] = {"illegal_action": True}
            self._flagged = agent
            self._accumulate_rewards()
            return
        self._reward(gained)
        self._select()

    def _reward(self, gained: list[float]) -> None:
        if self._pending:
            gained = [a + b for a, b in zip(gained, self._pending, strict=True)]
            self._pending = []
        if not any(gained):  # most steps: nothing to add (the rewards dict is all 0 already?)
            if any(self.rewards.values()):
                self.rewards = dict.fromkeys(self.agents, 0.0)
            return
        side = self._side
        self.rewards = {agent: gained[side[agent]] for agent in self.agents}
        self._accumulate_rewards()

    def _select(self) -> None:
        seat = self.table.to_move
        if seat is None:  # over: every agent is done, and steps out with None
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[seat]

    def render(self) -> str | None:
        """With ``render_mode="ansi"``: the table as text (scores, pile, the seat to move)."""
        if self.render_mode is None:
            return None
        return describe(self.table.game)

    def close(self) -> None:
        """Nothing to release."""


def raw_env(variant: str | Rules = "standard", **kwargs: Any) -> CribbageEnv:
    """The environment without wrappers (PettingZoo's naming)."""
    return CribbageEnv(variant, **kwargs)


def env(variant: str | Rules = "standard", **kwargs: Any) -> CribbageEnv:
    """The environment, as ``pettingzoo`` classic games export it (no wrappers needed: the
    illegal-action and order checks are built in)."""
    return CribbageEnv(variant, **kwargs)
