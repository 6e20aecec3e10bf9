"""The coach: hints rank the expert's choices; remarks name a costly choice and the better one."""

from __future__ import annotations

from fifteentwo.actions import GO, Discard, Play
from fifteentwo.app.coach import Coach, action_label, reason
from fifteentwo.cards import parse_cards
from fifteentwo.game import Game
from fifteentwo.players.base import Hint
from fifteentwo.rules import find_rules


def discard_position() -> Game:
    game = Game(find_rules("standard"), seed=4)
    game.advance()
    return game


def test_remark_names_the_better_discard_only_when_it_costs() -> None:
    game = discard_position()
    seat = game.to_move
    assert seat is not None
    obs = game.observation(seat)
    coach = Coach(ascii_only=True)
    ranked = coach.ranking(obs)
    assert len(ranked) == 15 and {h.action for h in ranked} == set(obs.legal)
    best, worst = ranked[0], ranked[-1]
    assert coach.remark(obs, best.action) is None
    remark = coach.remark(obs, worst.action)
    assert remark is not None
    assert remark.startswith(f"Coach: {action_label(best.action, ascii_only=True)} was better")
    loss = best.value - worst.value
    assert f"yours cost {loss:.2f} points" in remark
    (line,) = coach.hint_lines(obs)  # short by default: the best and why
    assert line.startswith(f"Best: {action_label(best.action, ascii_only=True)} (")
    assert f"({best.value:+.2f} points)" in line
    lines = coach.hint_lines(obs, top=3)
    assert len(lines) == 3 and lines[0].startswith(
        f"1. {action_label(best.action, ascii_only=True)}"
    )


def test_small_losses_pass_without_remark() -> None:
    game = discard_position()
    seat = game.to_move
    assert seat is not None
    obs = game.observation(seat)
    coach = Coach(points_threshold=1000.0)
    assert all(coach.remark(obs, h.action) is None for h in coach.ranking(obs))


def test_labels_and_reasons() -> None:
    cards = parse_cards("5h 9c")
    assert action_label(Discard(tuple(cards))) == "throw 5♥ 9♣"
    assert action_label(Play(cards[0]), ascii_only=True) == "play 5H"
    assert action_label(GO) == "go"
    assert Hint(GO, 0.6, "wins 60.0% (10 guesses at their hand)", "win").is_win
    assert not Hint(GO, 1.2, "+1.20 expected net pegging").is_win
    assert reason(Hint(GO, 1.2, "play 7S: +1.20 expected")) == "+1.20 expected"
    assert reason(Hint(GO, 0.0, "say go: nothing comes in")) == "nothing comes in"
