"""One verdict per decision: the hint, the coach and the review judge every decision of whole
games with the same evaluation, in the same unit, and agree on the best choice and on which
choices are mistakes."""

from __future__ import annotations

import random

import pytest

from fifteentwo.actions import Phase, Play
from fifteentwo.analysis.review import choice_text, review_record
from fifteentwo.app.coach import Coach
from fifteentwo.app.session import SeatConfig, Session
from fifteentwo.rules import find_rules


def judged_by_the_review(obs: object) -> bool:
    """The decisions a review judges: every discard; a play with a real choice of ranks."""
    assert hasattr(obs, "phase") and hasattr(obs, "legal")
    if obs.phase is Phase.DISCARD:
        return True
    ranks = {a.card.rank if isinstance(a, Play) else 0 for a in obs.legal}
    return obs.phase is Phase.PLAY and len(obs.legal) > 1 and len(ranks) > 1


@pytest.mark.parametrize(("variant", "seed"), [("short", 4), ("standard", 9)])
def test_hint_coach_and_review_agree_at_every_decision(variant: str, seed: int) -> None:
    rules = find_rules(variant)
    session = Session(
        rules, [SeatConfig("You", human=True), SeatConfig("Bot", level="greedy")], seed
    )
    session.run()
    coach = Coach()
    rng = random.Random(seed)  # the person: sometimes the best, often anything legal
    seen: list[tuple[str, str, bool, bool, str]] = []
    while not session.is_over:
        obs = session.observation(0)
        action = rng.choice(obs.legal)
        if judged_by_the_review(obs):
            ranked = coach.ranking(obs)
            if rng.random() < 0.3:
                action = ranked[0].action
            (line,) = coach.hint_lines(obs)[:1]
            unit = "win" if ranked[0].is_win else "points"
            assert (" to win)" in line) == (unit == "win") or len(ranked) == 1
            remark = coach.remark(obs, action)
            seen.append(
                (
                    choice_text(ranked[0].action),
                    choice_text(action),
                    remark is not None,
                    ranked[0].is_win,
                    line,
                )
            )
        session.act(action)
    review = review_record(session.record(), evaluator=Coach().evaluate)
    mine = [d for deal in review.deals for d in deal.decisions if d.seat == 0]
    assert len(mine) == len(seen) > 10
    mistakes = 0
    for decision, (best, chosen, remarked, is_win, _line) in zip(mine, seen, strict=True):
        assert decision.chosen == chosen
        assert decision.best == best  # the hint's best is the review's best
        assert decision.is_win == is_win  # in the same unit
        assert decision.is_mistake == remarked  # the coach remarks exactly on the mistakes
        if decision.chosen == decision.best:
            assert decision.loss == 0.0 and not decision.is_mistake
        values = [v for _, v in decision.options]
        assert values == sorted(values, reverse=True) and decision.options[0][0] == best
        mistakes += decision.is_mistake
    assert mistakes > 0  # (the random person made some)
    assert any(d.is_win for deal in review.deals for d in deal.decisions)  # (near the end)
