"""The coach: a strong player's view of a decision, as hints before it and remarks after it.

Both front-ends use it: ``hint`` (``h`` in the app) names the best choice with one line of
why (``hints``, or ``h`` again, the top three); with ``--coach``, a decision that loses more
than a little against the best choice is named at once, briefly, with the better choice. The
values come from the player's own ranking (`Player.rank`): expected points in most positions,
the chance to win near the end of a game, where the score decides. `cribbage review` judges
with the same ranking and the same rule (`fifteentwo.analysis.review.judge`), so a decision
gets one verdict: the hint's best is the review's best, and the coach remarks exactly on the
review's mistakes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fifteentwo.actions import GO, Action, Discard, Phase, Play
from fifteentwo.analysis.review import (
    MISTAKE_POINTS,
    MISTAKE_WIN,
    judge,
    loss_text,
    value_text,
)
from fifteentwo.app.describe import cards_text
from fifteentwo.cards import Card, parse_card
from fifteentwo.errors import FifteenTwoError
from fifteentwo.game import Observation
from fifteentwo.players import Player, load_player
from fifteentwo.players.base import Hint

__all__ = ["Coach", "action_label", "reason"]

COACHED_PHASES = (Phase.DISCARD, Phase.PLAY)


def action_label(action: Action, *, ascii_only: bool = False) -> str:
    """``throw 5♥ 9♣``, ``play 7♦``, ``go``: an action as a player says it."""

    def text(cards: tuple[Card, ...]) -> str:
        return cards_text(cards, ascii_only=ascii_only)

    if isinstance(action, Discard):
        return f"throw {text(action.cards)}"
    if isinstance(action, Play):
        return f"play {text((action.card,))}"
    if action == GO:
        return "go"
    return str(action)


_LEADING_ACTION = re.compile(r"^(?:play \w\w|say go): ")


_CARD_TOKEN = re.compile(r"\b[2-9TJQKA][SHDC]\b")


def reason(hint: Hint, *, ascii_only: bool = False) -> str:
    """The hint's reason without a leading repeat of its action (``play 7S: ...``), its cards
    written as the rest of the screen writes them (``10♣``, or ``10C`` in plain ASCII, never
    the library's ``TC``)."""
    text = _LEADING_ACTION.sub("", hint.why)
    return _CARD_TOKEN.sub(
        lambda m: cards_text([parse_card(m.group(0))], ascii_only=ascii_only), text
    )


@dataclass
class Coach:
    """Hints and remarks from one player level (the expert by default)."""

    level: str = "expert"
    seed: int = 0
    points_threshold: float = MISTAKE_POINTS
    """Flag a decision that loses more than this many expected points (the review's rule)."""
    win_threshold: float = MISTAKE_WIN
    """... or more than this much of the chance to win, where the score decides."""
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

    def evaluate(self, obs: Observation) -> list[tuple[Action, float, bool]]:
        """The ranking as `cribbage review` takes it (an `analysis.review.Evaluator`)."""
        if obs.phase not in COACHED_PHASES:
            return []
        return [(h.action, h.value, h.is_win) for h in self.ranking(obs)]

    def hint_lines(self, obs: Observation, top: int = 1) -> list[str]:
        """The best choice and why (``top`` 3: the three best), each value with its unit:
        ``Best: throw 5♥ 9♣ (+14.63 points): keep ...``."""
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
            label = action_label(hint.action, ascii_only=self.ascii_only)
            lead = "Best:" if top == 1 else f"{i}."
            why = reason(hint, ascii_only=self.ascii_only)
            lines.append(f"{lead} {label} ({value_text(hint.value, hint.is_win)}): {why}")
        if ranked[0].is_win:
            lines.append("(Near the end the score decides: values are the chance to win.)")
        return lines

    def remark(self, obs: Observation, action: Action) -> str | None:
        """A short note when ``action`` loses more than the threshold against the best (the
        review's mistakes, judged the same way)."""
        if obs.phase not in COACHED_PHASES:
            return None
        try:
            ranked = self.ranking(obs)
        except FifteenTwoError:
            return None
        if len(ranked) < 2:
            return None
        verdict = judge([(h.action, h.value, h.is_win) for h in ranked], action)
        if verdict is None:
            return None
        limit = self.win_threshold if verdict.is_win else self.points_threshold
        if verdict.loss <= limit:
            return None
        best = ranked[0]
        label = action_label(best.action, ascii_only=self.ascii_only)
        cost = loss_text(verdict.loss, verdict.is_win)
        why = reason(best, ascii_only=self.ascii_only)
        return f"Coach: {label} was better; yours cost {cost} ({why})."
