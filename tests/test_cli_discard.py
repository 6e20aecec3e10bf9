"""``cribbage discard``: tables, JSON, the crib table and one-line errors."""

from __future__ import annotations

import json

import pytest

from fifteentwo.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["discard", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_table_lists_every_discard_best_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "5h", "5c", "jd", "qs", "2h", "9c", "--dealer")
    assert code == 0 and err == ""
    assert "your crib" in out
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert len(rows) == 15
    assert "2♥ 9♣" in rows[0] and "17.06" in rows[0]


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "5h 5c jd qs 2h 9c", "--pone", "--json")
    assert code == 0
    options = json.loads(out)
    assert len(options) == 15
    first = options[0]
    assert set(first) >= {"keep", "throw", "hand", "crib", "total"}
    assert set(first["hand"]) >= {"mean", "min", "max"} and "mean" in first["crib"]
    assert first["keep"] == ["5C", "5H", "JD", "QS"]
    totals = [round(o["total"], 9) for o in options]  # equals (to 9 decimals) in card order
    assert totals == sorted(totals, reverse=True)
    for o in options:
        assert o["total"] == pytest.approx(o["hand"]["mean"] - o["crib"]["mean"])


def test_five_card_deals(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "5h 6h 7h jh kc", "--dealer", "--json")
    assert code == 0 and len(json.loads(out)) == 10
    for players in ("3", "4"):
        code, out, _ = run(capsys, "5h 6h 7h jh kc", "--pone", "--players", players, "--json")
        assert code == 0
        options = json.loads(out)
        assert len(options) == 5 and all(len(o["throw"]) == 1 for o in options)


def test_sensible_opponent(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "5h 5c jd qs 2h 9c", "--dealer", "--opponent", "sensible")
    assert code == 0 and "sensible opponent" in out


def test_score_adds_win_probabilities(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "5h 5c jd qs 2h 9c", "--dealer", "--score", "100,95", "--json")
    assert code == 0 and err == ""
    options = json.loads(out)
    assert len(options) == 15
    wins = [round(o["win"], 9) for o in options]
    assert wins == sorted(wins, reverse=True) and all(0 <= w <= 1 for w in wins)
    code, _, err = run(
        capsys, "5h 5c jd qs 2h 9c", "--dealer", "--score", "70,95", "--target", "61"
    )
    assert code == 2 and err.startswith("error: ")


def test_crib_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--table")
    assert code == 0
    assert "8.99" in out  # 5-5, opponent's throw uniform
    code, out, _ = run(capsys, "--table", "--opponent", "sensible", "--dealer")
    assert code == 0 and "8.51" in out
    code, out, _ = run(capsys, "--table", "--json")
    entries = json.loads(out)
    assert len(entries) == 169
    assert set(entries[0]) == {"ranks", "suited", "uniform", "dealer", "pone"}


@pytest.mark.parametrize(
    "args",
    [
        ["5h", "5c", "jd", "qs", "2h", "9c"],  # whose crib?
        ["5h", "5c", "jd", "qs", "2h", "9x", "--dealer"],  # bad card
        ["5h", "5c", "jd", "qs", "2h", "5h", "--dealer"],  # duplicate
        ["5h", "5c", "jd", "qs", "--dealer"],  # too few
        ["5h", "5c", "jd", "qs", "2h", "9c", "--dealer", "--players", "3"],  # six for three
        ["5h", "5c", "jd", "qs", "2h", "--pone", "--players", "3", "--opponent", "sensible"],
        ["5h", "5c", "jd", "qs", "2h", "9c", "--dealer", "--score", "100"],
        ["5h", "5c", "jd", "qs", "2h", "9c", "--dealer", "--score", "130,20"],
        ["5h", "5c", "jd", "qs", "2h", "9c", "--dealer", "--pone"],
        ["--table", "5h"],
        ["--table", "--opponent", "sensible"],
        [],
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1
