"""bench/paired.py: a change measured on common random numbers plays the arena's own games."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fifteentwo.arena import run_match
from fifteentwo.rules import find_rules

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import paired


def _jobs(candidate: str, base: str, games: int, verify: int = 0) -> list[paired.Job]:
    rules = find_rules("standard")
    return [
        paired.Job(candidate, base, "random", rules, 7, i, None, i < verify) for i in range(games)
    ]


def test_the_candidates_games_are_the_arenas() -> None:
    results = paired.run(_jobs("greedy", "novice", 6), 1)
    arena = run_match("greedy", "random", find_rules("standard"), 6, duplicate=True, seed=7)
    assert sum(r.candidate[0] for r in results) == arena.a_wins
    base = run_match("novice", "random", find_rules("standard"), 6, duplicate=True, seed=7)
    assert sum(r.base[0] for r in results) == base.a_wins
    assert all(r.diverged for r in results)  # greedy and novice discard differently


def test_a_player_against_itself_never_diverges() -> None:
    results = paired.run(_jobs("standard", "standard", 4, verify=4), 1)
    assert not any(r.diverged for r in results)
    assert all(r.candidate == r.base for r in results)
    text = paired.report(results, 1.0)
    assert "4 games, 0 diverged" in text
    assert "candidate - base, wins per pair: +0.000" in text


def test_only_two_player_games(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--candidate", "standard", "--base", "standard", "--opponent", "random"]
    assert paired.main([*args, "--variant", "three-player"]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_a_logged_run_reports_the_same_from_its_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "run.jsonl"
    argv = ["--candidate", "greedy", "--base", "novice", "--opponent", "random", "--games", "6"]
    assert paired.main([*argv, "--jobs", "1", "--seed", "7", "--log", str(log)]) == 0
    played = capsys.readouterr().out.splitlines()
    assert len(log.read_text(encoding="utf-8").splitlines()) == 6
    assert paired.main(["--from-log", str(log)]) == 0
    reported = capsys.readouterr().out.splitlines()
    assert reported[1:] == played[1:]  # all but the timing line
    # A run stopped in the middle of a pair: only complete pairs count.
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text("\n".join(lines[:5]) + "\n", encoding="utf-8")
    assert paired.main(["--from-log", str(log)]) == 0
    assert capsys.readouterr().out.startswith("4 games")


def test_a_stopped_run_goes_on_from_where_it_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--start`` plays the rest of the same games into the same log: the report is the
    whole run's."""
    whole, split = tmp_path / "whole.jsonl", tmp_path / "split.jsonl"
    argv = ["--candidate", "greedy", "--base", "novice", "--opponent", "random", "--games", "6"]
    argv += ["--jobs", "1", "--seed", "7", "--move-time", "30"]
    assert paired.main([*argv, "--log", str(whole)]) == 0
    assert paired.main([*argv[:-6], "--games", "4", *argv[-6:], "--log", str(split)]) == 0
    assert paired.main([*argv, "--start", "4", "--log", str(split)]) == 0
    capsys.readouterr()
    assert whole.read_text(encoding="utf-8") == split.read_text(encoding="utf-8")


def test_logs_of_several_seeds_are_reported_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--candidate", "greedy", "--base", "novice", "--opponent", "random", "--jobs", "1"]
    logs = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    for seed, log in zip(("7", "8"), logs, strict=True):
        assert paired.main([*argv, "--games", "4", "--seed", seed, "--log", str(log)]) == 0
    capsys.readouterr()
    assert paired.main(["--from-log", *map(str, logs)]) == 0
    assert capsys.readouterr().out.startswith("8 games")  # the same game numbers, not merged


def test_a_bad_log_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text("not json\n", encoding="utf-8")
    assert paired.main(["--from-log", str(log)]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert paired.main(["--games", "2"]) == 2
    assert paired.main(["--start", "-2", "--games", "2"]) == 2
    assert paired.main(["--move-time", "0", "--games", "2"]) == 2
    assert capsys.readouterr().err.startswith("error: ")
