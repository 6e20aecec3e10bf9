"""The post-game review against the analysis engine, on small seeded games."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from fifteentwo.analysis import analyze_discard
from fifteentwo.analysis.equity import win_probability
from fifteentwo.analysis.review import review_record
from fifteentwo.cards import Card
from fifteentwo.cli import main
from fifteentwo.game import Observation
from fifteentwo.players import GreedyPlayer, play_game
from fifteentwo.records import game_record, write_records
from fifteentwo.rules import find_rules


class WorstFirstDiscard(GreedyPlayer):
    """Greedy, except that its first discard is the worst one by exact expected points."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.first: tuple[tuple[Card, ...], bool, tuple[int, int]] | None = None

    def choose_discard(self, obs: Observation) -> Sequence[Card]:
        if self.first is not None:
            return super().choose_discard(obs)
        analysis = analyze_discard(obs.hand, dealer=obs.is_dealer, opponent="sensible")
        worst = min(analysis, key=lambda o: o.total)
        score = (obs.scores[obs.seat], obs.scores[1 - obs.seat])
        self.first = (obs.hand, obs.is_dealer, score)
        return worst.throw


@pytest.fixture(scope="module")
def bad_game() -> tuple[dict[str, object], WorstFirstDiscard]:
    bad = WorstFirstDiscard(1)
    game = play_game(find_rules("standard"), [bad, GreedyPlayer(2)], seed=11)
    return game_record(game, ["Bad", "Greedy"]), bad


def test_bad_discard_is_flagged_with_the_right_loss(
    bad_game: tuple[dict[str, object], WorstFirstDiscard],
) -> None:
    record, bad = bad_game
    assert bad.first is not None
    hand, dealer, score = bad.first
    review = review_record(record)  # (no evaluator: the discard analysis judges)
    first = next(d for d in review.deals[0].decisions if d.seat == 0)
    direct = analyze_discard(hand, dealer=dealer, opponent="sensible", score=score)
    worst = min(direct, key=lambda o: o.total)

    def text(cards: Sequence[Card]) -> str:
        return " ".join(c.short for c in sorted(cards))

    assert first.chosen == text(worst.throw)
    # one unit for the verdict: the game's score is covered, so the chance to win decides
    assert first.unit == "win" and first.best == text(direct.best.throw)
    assert direct.best.win is not None and worst.win is not None
    assert first.loss == pytest.approx(direct.best.win - worst.win, abs=1e-4)
    assert first.options[0][0] == first.best
    assert first.is_mistake
    assert review.mistakes(0)[0] == first or first in review.mistakes(0)


def test_review_numbers_match_the_game(
    bad_game: tuple[dict[str, object], WorstFirstDiscard],
) -> None:
    record, _ = bad_game
    review = review_record(record)
    deals = record["deals"]
    assert isinstance(deals, list)
    assert len(review.deals) == len(deals)
    for deal, recorded in zip(review.deals, deals, strict=True):
        assert list(deal.scores_after) == recorded["scores_after"]
        assert deal.dealer == recorded["dealer"]
        assert len([d for d in deal.decisions if d.kind == "discard"]) == 2
    first = review.win_curve[0]
    assert first.scores == (0, 0)
    assert first.p_seat0 == pytest.approx(
        win_probability(0, 0, my_deal=review.deals[0].dealer == 0)
    )
    final = review.win_curve[-1]
    assert final.label == "end" and final.p_seat0 == (1.0 if review.winner == 0 else 0.0)
    assert sum(s.decisions for s in review.seats) == 2 * len(deals)


def test_review_of_other_variants_has_no_win_curve() -> None:
    game = play_game(find_rules("three-player"), [GreedyPlayer(i) for i in range(3)], seed=2)
    review = review_record(game_record(game))
    assert review.win_curve == ()
    assert any("win probabilities" in note for note in review.notes)
    assert all(d.unit == "points" for deal in review.deals for d in deal.decisions)


def test_cli_review(
    bad_game: tuple[dict[str, object], WorstFirstDiscard],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    record, _ = bad_game
    path = tmp_path / "games.jsonl"
    write_records(path, [record])
    assert main(["review", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["players"] == ["Bad", "Greedy"] and data["deals"]
    plot = tmp_path / "curve.png"
    assert main(["review", str(path), "--plot", str(plot), "--deals"]) == 0
    out = capsys.readouterr().out
    assert "Costliest decisions" in out and plot.stat().st_size > 1000
    assert main(["review", str(path), "--plot", str(tmp_path / "x.gif")]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    assert main(["review", str(tmp_path / "bad.jsonl")]) == 2
    assert "line 1" in capsys.readouterr().err


def test_plays_are_judged_with_the_experts_values(
    bad_game: tuple[dict[str, object], WorstFirstDiscard],
) -> None:
    from fifteentwo.cli.review import expert_evaluator

    record, _ = bad_game
    review = review_record(record, evaluator=expert_evaluator())
    plays = [d for deal in review.deals for d in deal.decisions if d.kind == "play"]
    assert plays, "a whole game has real choices in the play"
    for d in plays:
        values = dict(d.options)
        assert d.options[0][0] == d.best
        if d.chosen == d.best:
            assert d.loss == 0.0
        elif d.chosen in values:  # (in the same unit as the best's value)
            assert d.loss == pytest.approx(max(0.0, values[d.best] - values[d.chosen]), abs=2e-3)
        assert d.is_mistake == (d.loss > (0.02 if d.is_win else 0.5))
    assert not any("plays were not judged" in n for n in review.notes)


def test_review_defaults_to_the_last_game_in_the_history(
    fifteentwo_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fifteentwo.app.options import PlayOptions
    from plain_driver import Answerer, play_in_process

    assert main(["review"]) == 2
    assert "no games in the history" in capsys.readouterr().err
    options = PlayOptions(variant="short", seed=3, level="greedy", random_cut=True)
    played = play_in_process(options, fifteentwo_data_dir, Answerer())
    (row,) = played.history.games()
    assert main(["review", "--json", "--no-plays"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["players"] == row["record"]["players"]
    assert list(data["final_scores"]) == row["scores"]
    assert main(["review", str(row["id"]), "--no-plays"]) == 0
    assert main(["review", "12345"]) == 2
    assert "no game with id 12345" in capsys.readouterr().err


def test_counting_mistakes_are_points_lost(fifteentwo_data_dir: Path) -> None:
    """Claims made by hand are decisions too: points missed, and an over-claim's excess taken
    by muggins, are in the seat's points lost (computed from the record alone)."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from fifteentwo.app.options import PlayOptions
    from plain_driver import Answerer, play_in_process

    claims: list[str] = []

    def count(prompt: str, refusals: int) -> str:
        claims.append(prompt)
        return "29" if len(claims) % 2 else "0"  # over, then under, in turn

    options = PlayOptions(
        variant="short", seed=5, muggins=True, auto_count=False, level="greedy",
        instructions=False,
    )  # fmt: skip
    played = play_in_process(options, fifteentwo_data_dir, Answerer({"Count your": count}))
    (row,) = played.history.games()
    record = row["record"]
    review = review_record(record)
    counts = [c for d in record["deals"] for c in d["counts"] if c["seat"] == 0]
    decisions = [d for deal in review.deals for d in deal.decisions if d.kind == "count"]
    assert [(int(d.chosen), int(d.best)) for d in decisions if d.seat == 0] == [
        (c["claimed"], c["total"]) for c in counts
    ]
    lost = sum(abs(c["claimed"] - c["total"]) for c in counts)
    assert lost > 0
    mine = review.seats[0]
    judged = [d for deal in review.deals for d in deal.decisions if d.seat == 0]
    in_points = sum(d.loss for d in judged if not d.is_win)
    assert mine.points_lost == pytest.approx(in_points, abs=1e-3) and in_points >= lost
    assert sum(d.loss for d in decisions if d.seat == 0) == lost
    assert all(d.is_mistake for d in decisions if d.seat == 0 and d.loss)
    assert review.to_json()["deals"][0]["decisions"]  # (the JSON form has them too)


def test_review_shows_cards_as_the_game_does_and_json_keeps_the_machine_form(
    bad_game: tuple[dict[str, object], WorstFirstDiscard],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import io

    from rich.console import Console

    from fifteentwo.analysis.review import for_people
    from fifteentwo.cli.review import print_review

    record, _ = bad_game
    review = review_record(record)
    out = io.StringIO()
    print_review(review, Console(file=out, width=300, highlight=False), every_decision=True)
    text = out.getvalue()
    discards = [d for deal in review.deals for d in deal.decisions if d.kind == "discard"]
    assert discards
    for d in discards:
        people = for_people(d.chosen)
        assert people != d.chosen and f" {people} (best {for_people(d.best)}" in text
        assert f" {d.chosen} (best" not in text  # no TC/7C form for people
        assert all(c in "A23456789TJQKCDHS " for c in d.chosen)  # the machine form kept
    path = tmp_path / "games.jsonl"
    write_records(path, [record])
    assert main(["review", str(path), "--json", "--no-plays"]) == 0
    data = json.loads(capsys.readouterr().out)
    chosen = [d["chosen"] for deal in data["deals"] for d in deal["decisions"]]
    assert chosen and all("♣" not in c and "10" not in c for c in chosen)
