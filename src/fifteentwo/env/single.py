"""Gymnasium environment: one seat learns, fifteentwo players take the others (docs/env.md).

>>> env = CribbageGymEnv("standard", opponents="random")
>>> obs, info = env.reset(seed=1)
>>> obs.shape, int(info["action_mask"].sum()), env.action_masks().dtype
((871,), 15, dtype('bool'))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import Env, spaces

from fifteentwo.actions import Event
from fifteentwo.env.encoding import ACTION_COUNT, OBSERVATION_SIZE, encode
from fifteentwo.env.render import describe
from fifteentwo.env.table import NO_ACTIONS, SEED_LIMIT, RewardMode, Table, rules_of
from fifteentwo.errors import FifteenTwoError, IllegalActionError
from fifteentwo.players import Player, check_player, load_player
from fifteentwo.rules import Rules

__all__ = ["CribbageGymEnv"]

Obs = npt.NDArray[np.float32]


class CribbageGymEnv(Env[Obs, int]):
    """Cribbage from one seat (``seat``, default 0) against fifteentwo players.

    ``opponents`` is one player spec for every other seat (a level name such as ``standard``,
    ``expert``, ``random``, or ``module:Class``, as `load_player` takes), or one spec or
    `Player` per other seat in seat order (a partner, in the four-player game, is one of
    them). Players made from specs are seeded from the episode's seed, so a seeded episode
    replays exactly. Rewards, manual counting and illegal actions as in `CribbageEnv`; the
    action mask is ``info["action_mask"]`` and `action_masks()` (booleans, as sb3-contrib's
    MaskablePPO reads it).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (as gymnasium's)

    def __init__(
        self,
        variant: str | Rules = "standard",
        *,
        opponents: str | Sequence[str | Player] = "standard",
        seat: int = 0,
        reward: RewardMode = "points",
        manual_count: bool = False,
        illegal_action: str = "penalty",
        illegal_penalty: float = 1.0,
        render_mode: str | None = None,
    ) -> None:
        if illegal_action not in ("penalty", "raise"):
            raise ValueError(f"illegal_action must be 'penalty' or 'raise', not {illegal_action!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.rules = rules_of(variant)
        n = self.rules.players
        if not 0 <= seat < n:
            raise FifteenTwoError(f"no seat {seat} in a {n}-player game")
        others = [s for s in range(n) if s != seat]
        specs = [opponents] * len(others) if isinstance(opponents, str) else list(opponents)
        if len(specs) != len(others):
            raise FifteenTwoError(f"{len(specs)} opponents for {len(others)} other seats")
        for spec in specs:
            if isinstance(spec, str):
                check_player(spec)  # a bad spec fails here, not at the first reset
        self._specs = dict(zip(others, specs, strict=True))
        self.players: dict[int, Player] = {}
        self.seat = seat
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_penalty = illegal_penalty
        self.table = Table(self.rules, reward, manual_count)
        self._side = self.rules.side_of(seat)
        self.observation_space = spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32)
        self.action_space = spaces.Discrete(ACTION_COUNT)  # type: ignore[assignment]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """A new game; with a seed, it and the games after it replay exactly."""
        super().reset(seed=seed)
        rng = self.np_random
        self._close_made()
        self.players = {
            s: load_player(spec, int(rng.integers(SEED_LIMIT))) if isinstance(spec, str) else spec
            for s, spec in self._specs.items()
        }
        listeners = [(s, p) for s, p in self.players.items() if getattr(p, "wants_events", False)]
        self.table.on_events = self._teller(listeners) if listeners else None
        reward = self._run_others(self.table.new_game(int(rng.integers(SEED_LIMIT))))
        self._pending = reward  # points before the first decision (his heels, say) come first
        obs, info = self._observe()
        return obs, info

    def step(self, action: int) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """Apply this seat's action, then the other seats' until it is this seat's turn again."""
        table = self.table
        if table.to_move is None:
            raise IllegalActionError("the game is over: call reset()")
        chosen = table.action(int(action))
        try:
            if chosen is None:
                raise IllegalActionError(f"action {action} is not legal now")
            gained = table.apply(chosen)  # (a claim over the true count pegs the true count)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            obs, info = self._observe()
            info["illegal_action"] = True
            return obs, -self.illegal_penalty, False, False, info
        reward = self._pending + self._run_others(gained)
        self._pending = 0.0
        obs, info = self._observe()
        return obs, reward, table.to_move is None, False, info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as booleans (all False once the game is over; read-only)."""
        table = self.table
        return (table.mask() if table.to_move is not None else NO_ACTIONS).view(np.bool_)

    def render(self) -> str | None:
        """With ``render_mode="ansi"``: the table as text (it shows every seat's cards)."""
        if self.render_mode is None:
            return None
        return describe(self.table.game)

    def close(self) -> None:
        """End the players this environment made (a protocol bot's program is told ``quit``)."""
        self._close_made()
        self.players = {}

    def _close_made(self) -> None:
        for s, player in self.players.items():
            close = getattr(player, "close", None)
            if isinstance(self._specs[s], str) and callable(close):
                close()

    def _teller(self, listeners: list[tuple[int, Player]]) -> Callable[[Sequence[Event]], None]:
        """What tells protocol bots their seats' events (what each deal revealed), as the arena
        and the terminal game do."""
        game_of = self.table

        def tell(events: Sequence[Event]) -> None:
            game = game_of.game
            for seat, player in listeners:
                player.events(game.events_for(seat, events))  # type: ignore[attr-defined]

        return tell

    def _run_others(self, gained: list[float]) -> float:
        """Let the other seats decide until this seat must; this seat's reward meanwhile."""
        table = self.table
        game = table.game
        reward = gained[self._side]
        players = self.players
        seat = table.to_move
        while seat is not None and seat != self.seat:
            reward += table.apply(players[seat].choose(game.observation(seat)))[self._side]
            seat = table.to_move
        return reward

    def _observe(self) -> tuple[Obs, dict[str, Any]]:
        table = self.table
        mask = table.mask() if table.to_move is not None else NO_ACTIONS
        mask = mask.copy()  # (callers keep infos: each gets its own)
        return encode(table.game.observation(self.seat)), {"action_mask": mask}
