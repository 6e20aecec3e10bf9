"""Post-game review: every decision of a recorded game next to the best one, with the cost of
each mistake, each player's luck, and the win probability after every deal.

It works on any game record (the terminal game's history, the arena's ``--record`` files), so
a bot-writer can review their bot. Discards are judged by the exact discard analysis (expected
points, and win probability where the equity table covers the game); plays by a pegging
evaluator, when one is given (the expert player's).

>>> from fifteentwo.players import GreedyPlayer, play_game
>>> from fifteentwo.records import game_record
>>> from fifteentwo.rules import find_rules
>>> game = play_game(find_rules("short"), [GreedyPlayer(1), GreedyPlayer(2)], seed=3)
>>> review = review_record(game_record(game))
>>> len(review.deals) == game.deal_number, review.win_curve[-1].p_seat0 in (0.0, 1.0)
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from fifteentwo.actions import (
    CHANCE,
    DealDone,
    DealerChosen,
    Dealt,
    Discard,
    GameOver,
    HandCounted,
    Phase,
    Play,
)
from fifteentwo.analysis.discard import analyze_discard
from fifteentwo.analysis.equity import EquityError, load_table
from fifteentwo.cards import Card
from fifteentwo.errors import FifteenTwoError
from fifteentwo.game import Game, Observation
from fifteentwo.records import replay

__all__ = [
    "DealReview",
    "Decision",
    "GameReview",
    "PlayEvaluator",
    "SeatSummary",
    "WinPoint",
    "review_game",
    "review_record",
]

PlayEvaluator = Callable[[Observation], list[tuple[Card | None, float, bool]]]
"""For a play decision: (card, or None for go; value; whether the value is a win probability
rather than expected net pegging points) for each choice, best first."""

MISTAKE_THRESHOLD: Final = 0.25
"""A decision losing more than this many expected points (or 1% of win probability) is a
mistake worth flagging."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of one seat, with its alternatives' values (best first)."""

    deal: int
    seat: int
    kind: str
    """``discard`` or ``play``."""
    chosen: str
    best: str
    loss: float
    """Expected points lost against the best choice (0 when the best was chosen)."""
    win_loss: float | None
    """Win probability lost, where the equity table covers the position."""
    options: tuple[tuple[str, float], ...]
    """(choice, value) for the top alternatives, best first."""

    @property
    def is_mistake(self) -> bool:
        """Whether the loss is worth flagging."""
        return self.loss > MISTAKE_THRESHOLD or (self.win_loss or 0.0) > 0.01


@dataclass(frozen=True, slots=True)
class DealReview:
    """One deal: who dealt, the scores before and after, luck, and the decisions."""

    number: int
    game: int
    dealer: int
    scores_before: tuple[int, ...]
    scores_after: tuple[int, ...]
    luck: tuple[float, ...]
    """Per seat: points from the cards dealt and cut beyond what an average deal gives the
    seat's role, net of mistakes (positive: lucky)."""
    decisions: tuple[Decision, ...]


@dataclass(frozen=True, slots=True)
class WinPoint:
    """The probability that seat 0's side wins, before a deal (or at the end)."""

    label: str
    scores: tuple[int, ...]
    p_seat0: float


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """Totals of one seat over the game."""

    seat: int
    name: str
    decisions: int
    mistakes: int
    points_lost: float
    win_lost: float
    luck: float


@dataclass(frozen=True)
class GameReview:
    """The review of a whole game (or match)."""

    players: tuple[str, ...]
    rules_name: str
    deals: tuple[DealReview, ...]
    win_curve: tuple[WinPoint, ...]
    seats: tuple[SeatSummary, ...]
    final_scores: tuple[int, ...]
    winner: int | None
    notes: tuple[str, ...] = field(default=())

    def mistakes(self, seat: int | None = None) -> list[Decision]:
        """Flagged decisions, worst first (of one seat, or all)."""
        found = [
            d
            for deal in self.deals
            for d in deal.decisions
            if d.is_mistake and (seat is None or d.seat == seat)
        ]
        return sorted(found, key=lambda d: -(d.win_loss or 0.0) * 100 - d.loss)

    def to_json(self) -> dict[str, Any]:
        """Everything, as plain JSON types (``cribbage review --json``)."""
        return asdict(self)


def _role_average(dealer: bool) -> float:
    """Average show points of a deal for a role (hand + crib, or hand - opponent's crib)."""
    try:
        means = load_table(121).role_means
    except EquityError:
        means = None
    if means is None:  # published averages for six-card cribbage
        return 4.7 + 4.9 if dealer else 4.7 - 4.9
    hand = means["hand_dealer"] if dealer else means["hand_pone"]
    crib = means["crib"] + means["heels"]
    return hand + crib if dealer else hand - crib


def _equity_target(game: Game) -> int | None:
    rules = game.rules
    if rules.players != 2 or rules.hand_size != 6 or rules.target not in (121, 61):
        return None
    return rules.target


def _win_p0(game: Game, scores: Sequence[int], dealer_next: int) -> float | None:
    target = _equity_target(game)
    if target is None:
        return None
    a, b = scores[0], scores[1]
    return load_table(target).win_probability(a, b, my_deal=dealer_next == 0)


def review_record(
    record: dict[str, Any],
    *,
    play_evaluator: PlayEvaluator | None = None,
) -> GameReview:
    """Review a game record (see docs/records.md)."""
    return review_game(replay(record), record.get("players"), play_evaluator=play_evaluator)


def review_game(
    finished: Game,
    players: Sequence[str] | None = None,
    *,
    play_evaluator: PlayEvaluator | None = None,
) -> GameReview:
    """Review a game by stepping a fresh copy through its log, judging each seat's decision."""
    rules = finished.rules
    names = tuple(players or [f"seat {i}" for i in range(rules.players)])
    cut_for_deal = any(isinstance(e, DealerChosen) for e in finished.events)
    game = Game(
        rules,
        seed=finished.seed,
        manual_count=finished.manual_count,
        cut_seats=finished.cut_seats,
        first_dealer=None if cut_for_deal else _first_dealer(finished),
    )
    notes: list[str] = []
    if _equity_target(game) is None:
        notes.append("win probabilities cover two-player six-card games to 121 or 61 only")
    if play_evaluator is None:
        notes.append("plays were not judged (no pegging evaluator given)")
    tracker = _DealTracker(game)
    for actor, action in finished.log:
        if actor != CHANCE and isinstance(action, Discard):
            tracker.judge_discard(actor, action)
        elif actor != CHANCE and game.phase is Phase.PLAY and play_evaluator is not None:
            obs = game.observation(actor)
            if len(obs.legal) > 1 and len({_rank_of(a) for a in obs.legal}) > 1:
                choice = action.card if isinstance(action, Play) else None
                values = play_evaluator(obs)
                tracker.decisions.append(_judge_play(values, choice, actor, tracker.number))
        before = tuple(game.scores)
        for event in game.apply(action):
            tracker.see(event, before)
    curve = tracker.curve
    if curve and finished.is_over and finished.winner is not None:
        final = 1.0 if rules.side_of(0) == finished.winner else 0.0
        curve.append(WinPoint("end", tuple(finished.scores), final))
    deals = tracker.deals
    seats = []
    for seat in range(rules.players):
        mine = [d for deal in deals for d in deal.decisions if d.seat == seat]
        seats.append(
            SeatSummary(
                seat=seat,
                name=names[seat],
                decisions=len(mine),
                mistakes=sum(1 for d in mine if d.is_mistake),
                points_lost=round(sum(d.loss for d in mine), 3),
                win_lost=round(sum(d.win_loss or 0.0 for d in mine), 4),
                luck=round(sum(deal.luck[seat] for deal in deals), 3),
            )
        )
    return GameReview(
        players=names,
        rules_name=rules.name,
        deals=tuple(deals),
        win_curve=tuple(curve),
        seats=tuple(seats),
        final_scores=tuple(finished.scores),
        winner=finished.winner,
        notes=tuple(notes),
    )


def _first_dealer(game: Game) -> int:
    for event in game.events:
        if isinstance(event, Dealt):
            return event.dealer
    return 0


class _DealTracker:
    """Follows the replayed events, one deal at a time, collecting what the review needs."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.deals: list[DealReview] = []
        self.curve: list[WinPoint] = []
        self.decisions: list[Decision] = []
        self.shows: list[HandCounted] = []
        self.expected: dict[int, float] = {}
        self.dealt_best: dict[int, float] = {}
        self.dealer = 0
        self.scores_before: tuple[int, ...] = ()
        self.game_number = 1
        self.open = False

    @property
    def number(self) -> int:
        """The current deal's number (1-based)."""
        return len(self.deals) + 1

    def judge_discard(self, seat: int, action: Discard) -> None:
        """Value the seat's discard against the best one."""
        obs = self.game.observation(seat)
        decision, best_total, chosen_total = _judge_discard(self.game, obs, action, self.number)
        if decision is not None:
            self.decisions.append(decision)
            self.dealt_best[seat] = best_total
            self.expected[seat] = chosen_total

    def see(self, event: object, scores_before: tuple[int, ...]) -> None:
        """Open a deal on `Dealt`, collect shows, close it on `DealDone` or `GameOver`."""
        if isinstance(event, Dealt):
            self.open = True
            self.dealer = event.dealer
            self.scores_before = scores_before
            self.game_number = self.game.game_number
            p = _win_p0(self.game, scores_before, event.dealer)
            if p is not None:
                self.curve.append(WinPoint(f"deal {self.number}", scores_before, p))
        elif isinstance(event, HandCounted):
            self.shows.append(event)
        elif isinstance(event, DealDone | GameOver) and self.open:
            self.close(event.scores)

    def close(self, scores_after: tuple[int, ...]) -> None:
        """Finish the open deal: luck per seat, and its decisions."""
        rules = self.game.rules
        luck = []
        for seat in range(rules.players):
            base = _role_average(seat == self.dealer)
            actual = 0.0
            for shown in self.shows:
                if shown.seat == seat:
                    actual += shown.total
                elif shown.crib and rules.players == 2:
                    actual -= shown.total
            dealt = self.dealt_best.get(seat, base) - base
            cut = actual - self.expected.get(seat, actual)
            luck.append(round(dealt + cut, 3))
        self.deals.append(
            DealReview(
                number=self.number,
                game=self.game_number,
                dealer=self.dealer,
                scores_before=self.scores_before,
                scores_after=tuple(scores_after),
                luck=tuple(luck),
                decisions=tuple(self.decisions),
            )
        )
        self.decisions, self.shows = [], []
        self.expected, self.dealt_best = {}, {}
        self.open = False


def _judge_discard(
    game: Game, obs: Observation, action: Discard, deal: int
) -> tuple[Decision | None, float, float]:
    rules = game.rules
    target = _equity_target(game)
    score = None
    if target is not None:
        score = (obs.scores[rules.side_of(obs.seat)], obs.scores[1 - rules.side_of(obs.seat)])
    try:
        analysis = analyze_discard(
            obs.hand,
            dealer=obs.is_dealer,
            players=rules.players,
            opponent="sensible" if rules.players == 2 else "uniform",
            score=score,
            target=target or 121,
        )
    except FifteenTwoError:
        return None, 0.0, 0.0
    by_points = max(analysis, key=lambda o: o.total)
    chosen = analysis.option(action.cards)
    best = analysis.best
    win_loss = None
    if best.win is not None and chosen.win is not None:
        win_loss = round(best.win - chosen.win, 5)
    decision = Decision(
        deal=deal,
        seat=obs.seat,
        kind="discard",
        chosen=chosen.throw_text,
        best=best.throw_text,
        loss=round(by_points.total - chosen.total, 4),
        win_loss=win_loss,
        options=tuple((o.throw_text, round(o.total, 3)) for o in analysis.options[:5]),
    )
    return decision, by_points.total, chosen.total


def _rank_of(action: object) -> int:
    """Cards of one rank are the same choice in the play; go is its own."""
    return action.card.rank if isinstance(action, Play) else 0


def _judge_play(
    values: list[tuple[Card | None, float, bool]], card: Card | None, seat: int, deal: int
) -> Decision:
    best_card, best_value, is_win = values[0]
    chosen_value = next(
        (v for c, v, _ in values if c == card or (c and card and c.rank == card.rank)),
        best_value,
    )
    loss = best_value - chosen_value

    def name(c: Card | None) -> str:
        return "go" if c is None else c.short

    return Decision(
        deal=deal,
        seat=seat,
        kind="play",
        chosen=name(card),
        best=name(best_card),
        loss=0.0 if is_win else round(loss, 4),
        win_loss=round(loss, 5) if is_win else None,
        options=tuple((name(c), round(v, 3)) for c, v, _ in values[:5]),
    )
