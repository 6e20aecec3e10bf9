"""What both environments share: a `Game` driven by action indices, and its rewards.

No rules here: the engine lists the legal actions, applies them, samples chance and pegs the
points; this module only translates indices to actions and events to rewards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

from fifteentwo.actions import CHANCE, Action, Event, GameOver, Reason, Scored
from fifteentwo.env.encoding import ACTION_COUNT, action_index
from fifteentwo.errors import FifteenTwoError
from fifteentwo.game import Game
from fifteentwo.rules import Rules, find_rules

__all__ = ["NO_ACTIONS", "REWARD_MODES", "RewardMode", "Table", "rules_of"]

RewardMode = Literal["points", "margin", "game", "pegging"]
REWARD_MODES: Final = ("points", "margin", "game", "pegging")
"""``points``: what my side pegs and scores in the show, as it happens; ``margin``: that minus
the other sides' (their mean with three), zero-sum; ``game``: only at the end, +game points
(1, 2 for a skunk, 4 a double skunk, per the rules) to the winning side, minus them to others;
``pegging``: ``margin`` counting only the points of the play (cards laid, go, last card)."""
_PEGGING: Final = frozenset({Reason.PLAY, Reason.GO, Reason.LAST_CARD})

NO_ACTIONS: Final = np.zeros(ACTION_COUNT, dtype=np.int8)
"""The mask of a seat not to move (read-only, shared)."""
NO_ACTIONS.flags.writeable = False

SEED_LIMIT: Final = 2**63
"""Game seeds are drawn below this from the environment's seeded generator."""


def rules_of(variant: str | Rules) -> Rules:
    """A rules preset by name (`fifteentwo.rules.preset_names`), or `Rules` as given."""
    return variant if isinstance(variant, Rules) else find_rules(variant)


class Table:
    """A game in progress, stepped by action index, with per-side rewards from its events."""

    def __init__(self, rules: Rules, reward: RewardMode, manual_count: bool) -> None:
        if reward not in REWARD_MODES:
            raise FifteenTwoError(f"unknown reward {reward!r}; choose from {REWARD_MODES}")
        self.rules = rules
        self.reward = reward
        self.manual_count = manual_count
        self.sides = rules.sides
        self.game = Game(rules, seed=0)
        self.legal: dict[int, Action] = {}
        """The legal actions of the seat to move, by index."""
        self._mask: npt.NDArray[np.int8] | None = None
        self._scores = [0] * self.sides
        """Each side's score as the events so far told it."""
        self.on_events: Callable[[Sequence[Event]], None] | None = None
        """Told every step's events (the Gymnasium environment tells protocol bots)."""

    def new_game(self, seed: int) -> list[float]:
        """Start a game from ``seed``; run chance to the first decision; per-side rewards."""
        seats = range(self.rules.players) if self.manual_count else ()
        self.game = Game(self.rules, seed=seed, manual_count=seats)
        self._mask = None
        self._scores = [0] * self.sides
        return self._settle(self.game.advance())

    @property
    def to_move(self) -> int | None:
        """The seat that must decide now, or None once the game is over."""
        return self.game.to_move

    def mask(self) -> npt.NDArray[np.int8]:
        """The legal actions of the seat to move as a 0/1 vector (read-only: one per state).

        Worked out once per state; `legal` then maps each index to its engine action.
        """
        mask = self._mask
        if mask is None:
            legal = self.game.legal_actions()
            self.legal = dict(zip([action_index(a) for a in legal], legal, strict=True))
            mask = np.zeros(ACTION_COUNT, dtype=np.int8)
            if legal:
                mask[list(self.legal)] = 1
            mask.flags.writeable = False
            self._mask = mask
        return mask

    def action(self, index: int) -> Action | None:
        """The legal action with this index, or None if it is not legal now."""
        if self._mask is None:
            self.mask()
        return self.legal.get(index)

    def apply(self, action: Action) -> list[float]:
        """Apply a seat's action, then chance up to the next decision; per-side rewards."""
        game = self.game
        self._mask = None
        events = game.apply(action)
        if game.to_move == CHANCE:
            events += game.advance()
        return self._settle(events)

    def _settle(self, events: Sequence[Event]) -> list[float]:
        if self.on_events is not None:
            self.on_events(events)
        sides = self.sides
        gained = [0.0] * sides
        mode = self.reward
        scores = self._scores
        for event in events:
            if isinstance(event, Scored):  # what counts: the last points stop at the target
                side = event.side
                if mode != "game" and (mode != "pegging" or event.reason in _PEGGING):
                    gained[side] += event.score - scores[side]
                scores[side] = event.score
            elif isinstance(event, GameOver):
                scores[:] = [0] * sides  # (a match's next game starts from nothing)
                if mode == "game":
                    points = event.game_points
                    for side in range(sides):
                        gained[side] += points if side == event.winner else -points
        if (mode == "margin" or mode == "pegging") and any(gained):  # noqa: PLR1714
            total = sum(gained)
            others = sides - 1
            gained = [g - (total - g) / others for g in gained]
        return gained
