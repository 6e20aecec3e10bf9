"""``cribbage score``: table, JSON, the interactive calculator, errors, and the installed entry
points (the console script and ``python -m fifteentwo``)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fifteentwo.cli import main

Capture = pytest.CaptureFixture[str]


def run(capsys: Capture, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_table_output(capsys: Capture) -> None:
    code, out, err = run(capsys, "score", "5h", "5c", "5s", "jd", "--starter", "5d")
    assert code == 0 and err == ""
    assert "Hand 5♥ 5♣ 5♠ J♦" in out and "starter 5♦" in out
    assert out.count("fifteen ") >= 8  # eight fifteen rows, then the spoken count
    assert "double pair royal" in out and "nobs" in out
    assert "29" in out
    assert "twenty-nine" in out


def test_last_card_is_the_starter_without_option(capsys: Capture) -> None:
    code, out, _ = run(capsys, "score", "5h 5c 5s jd 5d", "--json")
    assert code == 0
    assert json.loads(out)["total"] == 29


def test_json_shape(capsys: Capture) -> None:
    code, out, _ = run(capsys, "score", "5h", "5c", "5s", "jd", "-s", "5d", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["total"] == 29
    assert data["items"][0] == {"kind": "fifteen", "cards": ["5H", "JD"], "points": 2}
    assert {item["kind"] for item in data["items"]} == {"fifteen", "double pair royal", "nobs"}
    assert sum(item["points"] for item in data["items"]) == 29
    assert data["say"].endswith("and one for his nobs is twenty-nine")
    assert data["hand"] == ["5H", "5C", "5S", "JD"] and data["starter"] == "5D"
    assert data["crib"] is False


def test_crib_flag(capsys: Capture) -> None:
    # A 4-card flush is worth 4 in hand, nothing in the crib.
    _, out, _ = run(capsys, "score", "ah 3h 8h qh", "--starter", "kc", "--json")
    assert json.loads(out)["total"] == 4
    _, out, _ = run(capsys, "score", "ah 3h 8h qh", "--starter", "kc", "--crib", "--json")
    data = json.loads(out)
    assert data["total"] == 0 and data["items"] == [] and data["crib"] is True


def test_three_card_hand_and_long_names(capsys: Capture) -> None:
    argv = ["score", "4 of hearts", "5h", "six of hearts", "--starter", "five of clubs"]
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 0 and json.loads(out)["total"] == 15  # Britannica's example


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["score", "5h", "5x", "--starter", "5d"], "not a card: '5x'"),
        (["score", "5h 5h 5s jd", "--starter", "5d"], "duplicate card: 5H"),
        (["score", "5h 5c 5s jd", "--starter", "5h"], "duplicate card: 5H"),
        (["score", "5h 5c", "--starter", "5d"], "3 or 4 cards, got 2"),
        (["score", "5h 5c 5s jd"], "missing starter"),
        (["score", "--starter", "5d"], "give the hand's cards"),
        (["score", "5h 5c 5s jd", "--starter", "5"], "a rank alone is not a card"),
        (["score", "--bogus"], "unrecognized arguments: --bogus"),
        (["nonsense"], "invalid choice"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(
    capsys: Capture, argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1
    assert message in err


def test_help(capsys: Capture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["score", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "--starter" in out and "--crib" in out and "--json" in out
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "score" in capsys.readouterr().out


def test_interactive_prompt(capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = "5h 5c 5s jd 5d\ncrib ah 3h 8h qh kh\nzz\n5h 5c\n\nq\nnever read\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    code, out, err = run(capsys, "score")
    assert code == 0
    assert "twenty-nine" in out
    assert "Crib A♥ 3♥ 8♥ Q♥" in out and "a flush of five is five" in out
    assert err.splitlines() == [
        "error: not a card: 'zz'",
        "error: give 3 or 4 cards and then the starter, got 2 cards",
    ]


def test_interactive_crib_option_and_end_of_input(
    capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("ah 3h 8h qh kc\n"))
    code, out, err = run(capsys, "score", "--crib")
    assert code == 0 and err == ""
    assert "Crib A♥" in out and "nineteen (no score)" in out  # ends at end of input


def _console_script() -> str:
    found = shutil.which("cribbage", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("the cribbage console script is not installed next to this Python")
    return found


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "100"}
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)


def test_installed_console_script() -> None:
    done = _run([_console_script(), "score", "5h", "5c", "5s", "jd", "5d", "--json"])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["total"] == 29
    bad = _run([_console_script(), "score", "5h", "5c", "5s", "jd", "5q"])
    assert bad.returncode == 2
    assert bad.stderr == "error: not a card: '5q'\n" and bad.stdout == ""


def test_python_dash_m_fifteentwo() -> None:
    done = _run([sys.executable, "-m", "fifteentwo", "score", "qc qd 6h 5s", "-s", "4c"])
    assert done.returncode == 0, done.stderr
    assert "and a run of three is eleven" in done.stdout
