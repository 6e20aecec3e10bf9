"""Post-game review: every decision of a recorded game next to the best one, with the cost of
each mistake, each player's luck, and the win probability after every deal.

It works on any game record (the terminal game's history, the arena's ``--record`` files), so
a bot-writer can review their bot. Decisions are judged by an `Evaluator`, when one is given:
the front-ends give the expert's own ranking, the same one their hints and coach use, so a
decision gets one verdict everywhere (`judge`). Without one, discards are judged by the exact
discard analysis and plays are not judged. Each verdict has one unit: expected points, or the
chance to win near the end of a game, where the score decides.

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
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Final

from fifteentwo.actions import (
    CHANCE,
    GO,
    Action,
    Count,
    DealDone,
    DealerChosen,
    Dealt,
    Discard,
    GameOver,
    Go,
    HandCounted,
    Muggins,
    Play,
)
from fifteentwo.analysis.discard import analyze_discard
from fifteentwo.analysis.equity import EquityError, load_table
from fifteentwo.cards import Card
from fifteentwo.errors import FifteenTwoError
from fifteentwo.game import Game, Observation
from fifteentwo.records import replay

__all__ = [
    "MISTAKE_POINTS",
    "MISTAKE_WIN",
    "UNIT_NOTE",
    "DealReview",
    "Decision",
    "Evaluator",
    "GameReview",
    "Position",
    "SeatSummary",
    "Verdict",
    "WinPoint",
    "choice_text",
    "for_people",
    "is_mistake",
    "judge",
    "loss_text",
    "review_game",
    "review_record",
    "same_choice",
    "value_text",
]

Evaluator = Callable[[Observation], Sequence[tuple[Action, float, bool]]]
"""For a discard or a play: (action, value, whether the value is a chance to win rather than
expected points) for each choice, best first; empty when it does not judge this decision."""

MISTAKE_POINTS: Final = 0.5
"""A decision losing more than this many expected points is a mistake (the review flags it,
the coach remarks on it)."""
MISTAKE_WIN: Final = 0.02
"""... or more than this much of the chance to win, where the score decides."""
UNIT_NOTE: Final = (
    "values are expected points, except near the end of a game, where the score decides "
    "and they are the chance to win"
)


def is_mistake(loss: float, is_win: bool) -> bool:
    """Whether a loss in its unit is a mistake (`MISTAKE_POINTS`, `MISTAKE_WIN`)."""
    return loss > (MISTAKE_WIN if is_win else MISTAKE_POINTS)


def same_choice(a: Action, b: Action) -> bool:
    """Whether two actions are one decision: a discard of the same cards in any order, or
    plays of cards of one rank (they peg alike, and the show does not care which was played)."""
    if isinstance(a, Discard) and isinstance(b, Discard):
        return sorted(a.cards) == sorted(b.cards)
    if isinstance(a, Play) and isinstance(b, Play):
        return a.card.rank == b.card.rank
    return a == b


def choice_text(action: Action) -> str:
    """A choice as the review lists it: ``2H 9C`` (a discard, cards in order), ``7D``, ``go``."""
    if isinstance(action, Discard):
        return " ".join(c.short for c in sorted(action.cards))
    if isinstance(action, Play):
        return action.card.short
    return "go" if action == GO else str(action)


def for_people(choice: str) -> str:
    """A choice as the game shows cards to people: ``TC 7C`` becomes ``10♣ 7♣``; anything
    else (``go``, a count) is kept. `Decision` keeps the machine form (``--json``).

    >>> for_people("TC 7C"), for_people("go"), for_people("12")
    ('10♣ 7♣', 'go', '12')
    """
    words = choice.split()
    try:
        cards = [Card.parse(word) for word in words]
    except FifteenTwoError:
        return choice
    return " ".join(card.unicode for card in cards) if cards else choice


def value_text(value: float, is_win: bool) -> str:
    """``+2.31 points`` or ``61.3% to win``: a value with its unit."""
    return f"{value:.1%} to win" if is_win else f"{value:+.2f} points"


def loss_text(loss: float, is_win: bool) -> str:
    """``0.54 points`` or ``4.2% of the chance to win``: what a choice cost, with its unit."""
    return f"{loss:.1%} of the chance to win" if is_win else f"{loss:.2f} points"


@dataclass(frozen=True, slots=True)
class Verdict:
    """One decision judged: the best choice, what the chosen one cost, in which unit."""

    best: Action
    loss: float
    is_win: bool

    @property
    def is_mistake(self) -> bool:
        """Whether the loss is worth flagging (the review's ✗, the coach's remark)."""
        return is_mistake(self.loss, self.is_win)


def judge(ranked: Sequence[tuple[Action, float, bool]], chosen: Action) -> Verdict | None:
    """The verdict on ``chosen`` from an evaluator's ranking (best first); None when there is
    nothing to judge (no ranking, or the choice is not in it). The one rule for the review,
    the coach and the hints: the best is the ranking's first, the loss is in its unit."""
    if not ranked:
        return None
    best, best_value, is_win = ranked[0]
    value = next((v for a, v, _ in ranked if same_choice(a, chosen)), None)
    if value is None:
        return None
    loss = 0.0 if same_choice(best, chosen) else max(0.0, best_value - value)
    return Verdict(best, loss, is_win)


@dataclass(frozen=True, slots=True)
class Position:
    """What the deciding seat saw: enough to set the table again when a mistake is reviewed."""

    hand: tuple[str, ...]
    """The seat's cards (short names, ``5H``)."""
    pile: tuple[str, ...]
    """The cards of the current count, in play order (empty at a discard)."""
    count: int
    starter: str | None
    """The starter, once turned (never at a discard)."""
    scores: tuple[int, ...]
    """Each side's score before the decision."""
    dealer: int
    target: int
    skunk: int | None = None
    """The rules' skunk lines, for drawing the board (None: no such line)."""
    double_skunk: int | None = None

    @classmethod
    def of(cls, obs: Observation) -> Position:
        """The seat's own view (the engine's redaction: nothing it could not see)."""
        return cls(
            hand=tuple(c.short for c in obs.hand),
            pile=tuple(c.short for c in obs.pile),
            count=obs.count,
            starter=None if obs.starter is None else obs.starter.short,
            scores=tuple(obs.scores),
            dealer=obs.dealer,
            target=obs.rules.target,
            skunk=obs.rules.skunk,
            double_skunk=obs.rules.double_skunk,
        )


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of one seat, with its alternatives' values (best first)."""

    deal: int
    seat: int
    kind: str
    """``discard``, ``play`` or ``count`` (a show total claimed by hand: ``chosen`` is the
    claim, ``best`` the true total, ``loss`` the points the claim cost: those missed, or an
    over-claim's excess taken by muggins)."""
    chosen: str
    best: str
    loss: float
    """What the choice lost against the best one, in ``unit`` (0 when the best was chosen)."""
    unit: str
    """``points`` (expected points) or ``win`` (the chance to win, near the end of a game)."""
    options: tuple[tuple[str, float], ...]
    """(choice, value in ``unit``) for the top alternatives, best first."""
    chosen_value: float | None = None
    """The chosen option's value in ``unit`` (it may be outside the top ``options``)."""
    best_value: float | None = None
    position: Position | None = None
    """The position the decision was made in (None when the reviewer had no observation)."""

    @property
    def is_win(self) -> bool:
        """Whether the values are chances to win."""
        return self.unit == "win"

    @property
    def is_mistake(self) -> bool:
        """Whether the loss is worth flagging (the same rule as the coach's remarks)."""
        return is_mistake(self.loss, self.is_win)


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
    """Expected points lost, over the decisions judged in points."""
    win_lost: float
    """Chance to win lost, over the decisions judged by it (near the end of a game)."""
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
        return sorted(found, key=lambda d: -d.loss * (100 if d.is_win else 1))

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
    evaluator: Evaluator | None = None,
) -> GameReview:
    """Review a game record (see docs/records.md)."""
    return review_game(replay(record), record.get("players"), evaluator=evaluator)


def review_game(
    finished: Game,
    players: Sequence[str] | None = None,
    *,
    evaluator: Evaluator | None = None,
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
    if evaluator is None:
        notes.append("plays were not judged (no evaluator given)")
    tracker = _DealTracker(game, evaluator)
    for actor, action in finished.log:
        if actor != CHANCE and isinstance(action, Discard):
            tracker.judge_discard(actor, action)
        elif actor != CHANCE and isinstance(action, Play | Go) and evaluator is not None:
            obs = game.observation(actor)
            if len(obs.legal) > 1 and len({_rank_of(a) for a in obs.legal}) > 1:
                decision = _decision(
                    evaluator(obs), action, "play", actor, tracker.number, position=Position.of(obs)
                )
                if decision is not None:
                    tracker.decisions.append(decision)
        elif actor != CHANCE and isinstance(action, Muggins):
            tracker.see_muggins(action)
        before = tuple(game.scores)
        events = game.apply(action)
        if actor != CHANCE and isinstance(action, Count):
            tracker.judge_count(next(e for e in events if isinstance(e, HandCounted)))
        for event in events:
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
                points_lost=round(sum(d.loss for d in mine if not d.is_win), 3),
                win_lost=round(sum(d.loss for d in mine if d.is_win), 4),
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

    def __init__(self, game: Game, evaluator: Evaluator | None) -> None:
        self.game = game
        self.evaluator = evaluator
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
        self._over_claim: int | None = None
        """The index in `decisions` of an over-claim whose excess muggins may still take."""

    @property
    def number(self) -> int:
        """The current deal's number (1-based)."""
        return len(self.deals) + 1

    def judge_discard(self, seat: int, action: Discard) -> None:
        """Value the seat's discard against the best one."""
        obs = self.game.observation(seat)
        analysis = _discard_analysis(self.game, obs)
        if analysis is None:
            return
        chosen = analysis.option(action.cards)
        self.dealt_best[seat] = max(o.total for o in analysis)  # (luck is in points)
        self.expected[seat] = chosen.total
        if self.evaluator is not None:
            ranked: Sequence[tuple[Action, float, bool]] = self.evaluator(obs)
        else:
            ranked = sorted(
                (
                    (
                        Discard(tuple(sorted(o.throw))),
                        o.total if o.win is None else o.win,
                        o.win is not None,
                    )
                    for o in analysis
                ),
                key=lambda r: -r[1],
            )
        decision = _decision(
            ranked, action, "discard", seat, self.number, position=Position.of(obs)
        )
        if decision is not None:
            self.decisions.append(decision)

    def judge_count(self, counted: HandCounted) -> None:
        """A show total claimed by hand: what it cost. Points missed are lost (to the
        opponent too, with muggins); an over-claim is corrected, and costs its excess only
        when the opponent takes it by muggins (`see_muggins`)."""
        total, claimed = counted.total, counted.claimed
        over = claimed > total
        excess = claimed - total if self.game.rules.muggins else 0  # (corrected, no penalty)
        loss = excess if over else total - claimed
        self.decisions.append(
            Decision(
                deal=self.number,
                seat=counted.seat,
                kind="count",
                chosen=str(claimed),
                best=str(total),
                loss=float(loss),
                unit="points",
                options=((str(total), float(total)),),
            )
        )
        self._over_claim = len(self.decisions) - 1 if over and loss else None

    def see_muggins(self, action: Muggins) -> None:
        """An over-claim's excess left to its owner: the claim cost nothing after all."""
        index, self._over_claim = self._over_claim, None
        if index is not None and not action.take:
            self.decisions[index] = replace(self.decisions[index], loss=0.0)

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


def _discard_analysis(game: Game, obs: Observation) -> Any:
    """The exact discard analysis of the seat's six (or five) cards, with win probabilities
    where the equity table covers the game; None where the analysis does not apply."""
    rules = game.rules
    target = _equity_target(game)
    score = None
    if target is not None:
        score = (obs.scores[rules.side_of(obs.seat)], obs.scores[1 - rules.side_of(obs.seat)])
    try:
        return analyze_discard(
            obs.hand,
            dealer=obs.is_dealer,
            players=rules.players,
            opponent="sensible" if rules.players == 2 else "uniform",
            score=score,
            target=target or 121,
        )
    except FifteenTwoError:
        return None


def _rank_of(action: object) -> int:
    """Cards of one rank are the same choice in the play; go is its own."""
    return action.card.rank if isinstance(action, Play) else 0


def _decision(
    ranked: Sequence[tuple[Action, float, bool]],
    action: Action,
    kind: str,
    seat: int,
    deal: int,
    *,
    position: Position | None = None,
) -> Decision | None:
    verdict = judge(ranked, action)
    if verdict is None:
        return None
    chosen_value = next((v for a, v, _ in ranked if same_choice(a, action)), None)
    return Decision(
        deal=deal,
        seat=seat,
        kind=kind,
        chosen=choice_text(action),
        best=choice_text(verdict.best),
        loss=round(verdict.loss, 5),
        unit="win" if verdict.is_win else "points",
        options=tuple((choice_text(a), round(v, 4)) for a, v, _ in ranked[:5]),
        chosen_value=None if chosen_value is None else round(chosen_value, 4),
        best_value=round(ranked[0][1], 4),
        position=position,
    )
