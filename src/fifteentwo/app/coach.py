"""The coach: a strong player's view of a decision, as hints before it and remarks after it.

Both front-ends use it: ``hint`` (``h`` in the app) lists the top choices with their values and
reasons; with ``--coach``, a decision that loses more than a threshold against the best choice
is named at once, briefly, with the better choice. The values come from the player's own
ranking (`Player.rank`): expected points in most positions, a win probability near the end of
a game, where the score decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fifteentwo.actions import GO, Action, Discard, Phase, Play
from fifteentwo.errors import FifteenTwoError
from fifteentwo.game import Observation
from fifteentwo.players import Player, load_player
from fifteentwo.players.base import Hint

__all__ = ["Coach", "action_label", "reason"]

COACHED_PHASES = (Phase.DISCARD, Phase.PLAY)


def action_label(action: Action, *, ascii_only: bool = False) -> str:
    """``throw 5♥ 9♣``, ``play 7♦``, ``go``: an action as a player says it."""

    def text(cards: tuple[object, ...]) -> str:
        return " ".join(getattr(c, "short" if ascii_only else "unicode") for c in cards)

    if isinstance(action, Discard):
        return f"throw {text(action.cards)}"
    if isinstance(action, Play):
        return f"play {text((action.card,))}"
    if action == GO:
        return "go"
    return str(action)


_LEADING_ACTION = re.compile(r"^(?:play \w\w|say go): ")


def reason(hint: Hint) -> str:
    """The hint's reason without a leading repeat of its action (``play 7S: ...``)."""
    return _LEADING_ACTION.sub("", hint.why)


@dataclass
class Coach:
    """Hints and remarks from one player level (the expert by default)."""

    level: str = "expert"
    seed: int = 0
    points_threshold: float = 0.5
    """Flag a decision that loses more than this many expected points."""
    win_threshold: float = 0.02
    """... or more than this much win probability, where the score decides."""
    ascii_only: bool = False
    player: Player = field(init=False)
    _cache: tuple[Observation, list[Hint]] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.player = load_player(self.level, self.seed)

    def ranking(self, obs: Observation) -> list[Hint]:
        """Every choice, best first (computed once per decision)."""
        if self._cache is not None and self._cache[0] == obs:
            return self._cache[1]
        ranked = self.player.rank(obs) if obs.legal else []
        self._cache = (obs, ranked)
        return ranked

    def hint_lines(self, obs: Observation, top: int = 3) -> list[str]:
        """The top choices, one line each: ``1. throw 5♥ 9♣ (14.63): keep ...``."""
        if obs.phase not in COACHED_PHASES:
            return ["No hint here: this is not a discard or a play."]
        ranked = self.ranking(obs)
        if not ranked:
            return ["Nothing to decide."]
        if len(ranked) == 1:
            return [
                f"Only one choice: {action_label(ranked[0].action, ascii_only=self.ascii_only)}."
            ]
        lines = []
        for i, hint in enumerate(ranked[:top], 1):
            value = f"{hint.value:.1%}" if hint.is_win else f"{hint.value:+.2f}"
            label = action_label(hint.action, ascii_only=self.ascii_only)
            lines.append(f"{i}. {label} ({value}): {reason(hint)}")
        return lines

    def remark(self, obs: Observation, action: Action) -> str | None:
        """A short note when ``action`` loses more than the threshold against the best."""
        if obs.phase not in COACHED_PHASES:
            return None
        try:
            ranked = self.ranking(obs)
        except FifteenTwoError:
            return None
        if len(ranked) < 2 or ranked[0].action == action:
            return None
        chosen = next((h for h in ranked if h.action == action), None)
        if chosen is None:
            return None
        best = ranked[0]
        loss = best.value - chosen.value
        label = action_label(best.action, ascii_only=self.ascii_only)
        if best.is_win:
            if loss <= self.win_threshold:
                return None
            return f"Coach: {label} was better, by {loss:.1%} to win ({reason(best)})."
        if loss <= self.points_threshold:
            return None
        return f"Coach: {label} was better, by {loss:.2f} points ({reason(best)})."
