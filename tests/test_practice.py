"""``cribbage practice``: the drills judge with the library, keep score, and read any input."""

from __future__ import annotations

import io
from itertools import combinations

import pytest

from fifteentwo.app.practice import CountDrill, DiscardDrill
from fifteentwo.cli import main
from fifteentwo.scoring import score_hand


def test_the_count_drill_marks_the_true_total_nineteen_and_the_clock() -> None:
    drill = CountDrill(seed=5)
    tasks = [drill.next() for _ in range(200)]
    assert any(t.crib for t in tasks) and not all(t.crib for t in tasks)
    assert len({(t.cards, t.starter) for t in tasks}) == 200  # dealt afresh each time
    for task in tasks[:50]:
        total = score_hand(task.cards, task.starter, crib=task.crib).total
        assert task.score.total == total and task.starter not in task.cards
        assert drill.answer(task, total, 1.0, None)
        assert not drill.answer(task, total + 1, 1.0, None)
        assert not drill.answer(task, total, 9.0, 5.0)  # right, but too slow
        if total == 0:
            assert drill.answer(task, 19, 1.0, None)  # "nineteen": nothing
    assert drill.tally.asked >= 150 and 0 < drill.tally.accuracy < 1
    assert CountDrill(seed=5).next() == tasks[0]  # a seed deals the same drill again
    assert not any(t.crib for t in (CountDrill(1, cribs=False).next() for _ in range(50)))


def test_the_discard_drill_is_judged_by_the_exact_analysis() -> None:
    drill = DiscardDrill(seed=2)
    task = drill.next()
    analysis = task.analysis
    ranked = sorted(analysis, key=lambda o: -o.total)
    assert drill.answer(task, ranked[0].throw, 2.0) == 0.0
    worst = drill.answer(task, ranked[-1].throw, 2.0)
    assert worst == pytest.approx(ranked[0].total - ranked[-1].total, abs=1e-3) and worst > 0
    assert {frozenset(o.throw) for o in analysis} == {
        frozenset(pair) for pair in combinations(task.cards, 2)
    }
    assert drill.tally.asked == 2 and drill.tally.right == 1
    assert "1 of 2 right (50%)" in drill.tally.line() and "points given away" in drill.tally.line()


def run_practice(
    args: list[str], typed: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    code = main(["practice", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_counting_session_with_a_summary(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    drill = CountDrill(seed=7)
    first, second = drill.next(), drill.next()
    right, wrong = first.score.total, (second.score.total + 1) % 20  # (never 19 for 0)
    typed = f"{right}\nmany\n30\n²\n{'9' * 5000}\n{wrong}\n"
    code, out, _ = run_practice(["--seed", "7", "--rounds", "2"], typed, monkeypatch, capsys)
    assert code == 0
    assert out.count("Count this ") == 2 and "Right." in out
    assert "Type the number of points, 0 to 29" in out  # "many", then 30: asked again
    assert "Practice over: " in out and "1 of 2 right (50%)" in out
    assert "No: " in out and "  " in out  # a wrong answer gets the itemized count


def test_a_discard_session_and_quitting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_practice(
        ["--discard", "--seed", "3"], "1 2\nzz\n1\n1 2\nq\n", monkeypatch, capsys
    )
    assert code == 0 and out.count("Lay away two (") == 3
    assert "throw " in out and "points" in out
    assert "Lay away two cards, not 1." in out  # a single card: asked again
    assert "Practice over: 2 of" in out or "Practice over: 1 of 2" in out or "of 2 right" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rounds", "-1"], "--rounds must be between 0 and 10000"),
        (["--time", "0"], "--time must be between 1 and 600 seconds"),
        (["--rounds", "x"], "invalid int value"),
    ],
)
def test_bad_options_are_one_error_line(
    args: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_practice(args, "", monkeypatch, capsys)
    assert code == 2 and err.startswith("error: ") and message in err
    assert "Traceback" not in err and err.count("\n") == 1
