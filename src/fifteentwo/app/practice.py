"""Practice drills: count hands and cribs against a clock, and choose discards against the
exact analysis, with a running score. The drills deal from a seeded RNG, judge with the
library (`score_hand`, `analyze_discard`) and keep the tally; the front-ends only ask and tell.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from fifteentwo.analysis.discard import DiscardAnalysis, analyze_discard
from fifteentwo.cards import DECK, Card
from fifteentwo.scoring import HandScore, score_hand

__all__ = ["CountDrill", "CountTask", "DiscardDrill", "DiscardTask", "Tally", "practice_summary"]


@dataclass
class Tally:
    """Answers so far: how many, how many right, and the time they took."""

    asked: int = 0
    right: int = 0
    seconds: list[float] = field(default_factory=list)
    lost: float = 0.0
    """Discard drill: expected points given away against the best discards, in total."""

    def add(self, right: bool, seconds: float, lost: float = 0.0) -> None:
        self.asked += 1
        self.right += right
        self.seconds.append(seconds)
        self.lost += lost

    @property
    def accuracy(self) -> float:
        return self.right / self.asked if self.asked else 0.0

    def line(self) -> str:
        """``3 of 4 right (75%), 4.2 s an answer``."""
        if not self.asked:
            return "No answers yet."
        mean = sum(self.seconds) / len(self.seconds)
        text = f"{self.right} of {self.asked} right ({self.accuracy:.0%}), {mean:.1f} s an answer"
        if self.lost:
            text += f", {self.lost:.2f} points given away"
        return text


def practice_summary(tallies: dict[str, Tally]) -> str | None:
    """How a practice went, drill by drill (those answered at all), or None when nothing was
    answered: ``Practice over: counting 3 of 4 right (75%), 4.2 s an answer.``"""
    parts = [f"{name} {tally.line()}" for name, tally in tallies.items() if tally.asked]
    return f"Practice over: {'; '.join(parts)}." if parts else None


@dataclass(frozen=True)
class CountTask:
    """A hand (or crib) and its starter to count."""

    cards: tuple[Card, ...]
    starter: Card
    crib: bool

    @property
    def score(self) -> HandScore:
        return score_hand(self.cards, self.starter, crib=self.crib)

    def question(self) -> str:
        what = "crib" if self.crib else "hand"
        cards = " ".join(c.unicode for c in self.cards)
        return f"Count this {what}: {cards}, starter {self.starter.unicode}"


class CountDrill:
    """Random hands to count; about one in four is a crib (where a flush needs the starter).
    Hands are dealt as in a game, so most are worth something and some are worth a lot."""

    def __init__(self, seed: int | None = None, *, cribs: bool = True) -> None:
        self.rng = random.Random(seed)
        self.cribs = cribs
        self.tally = Tally()

    def next(self) -> CountTask:
        cards = self.rng.sample(DECK, 5)
        crib = self.cribs and self.rng.random() < 0.25
        return CountTask(tuple(sorted(cards[:4])), cards[4], crib)

    def answer(self, task: CountTask, claimed: int, seconds: float, limit: float | None) -> bool:
        """Mark an answer: right if it is the total (19 means nothing, as players say) and,
        with a time limit, in time."""
        if claimed == 19:
            claimed = 0
        right = claimed == task.score.total and (limit is None or seconds <= limit)
        self.tally.add(right, seconds)
        return right


@dataclass(frozen=True)
class DiscardTask:
    """Six cards dealt, and whose crib it is."""

    cards: tuple[Card, ...]
    dealer: bool

    def question(self) -> str:
        crib = "your crib" if self.dealer else "your opponent's crib"
        return f"Lay away two ({crib}): {' '.join(c.unicode for c in self.cards)}"

    @property
    def analysis(self) -> DiscardAnalysis:
        return analyze_discard(self.cards, dealer=self.dealer, opponent="sensible")


class DiscardDrill:
    """Six-card hands: the player picks two for the crib; the exact analysis (hand plus or
    minus crib, expected points, with a sensible opponent's throw) is the judge."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.tally = Tally()

    def next(self) -> DiscardTask:
        return DiscardTask(tuple(sorted(self.rng.sample(DECK, 6))), self.rng.random() < 0.5)

    def answer(self, task: DiscardTask, throw: tuple[Card, ...], seconds: float) -> float:
        """Mark a throw: right when no throw is worth more; returns the points given away."""
        analysis = task.analysis
        best = max(o.total for o in analysis)
        lost = round(best - analysis.option(throw).total, 4)
        self.tally.add(lost <= 1e-9, seconds, lost)
        return lost
