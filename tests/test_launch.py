"""Every command the program tells the user to type works as typed from where they are
(issue 31): `command_hint` picks the reachable form, and the form it picks runs."""

from __future__ import annotations

import io
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from fifteentwo.app import launch
from fifteentwo.app.launch import LAUNCHER_ENV, command_hint


@pytest.fixture
def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in installation: a ``cribbage`` script beside a fake interpreter."""
    bindir = tmp_path / "venv" / "bin"
    bindir.mkdir(parents=True)
    path = bindir / "cribbage"
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(bindir / "python"))
    monkeypatch.delenv(LAUNCHER_ENV, raising=False)
    return path


def test_the_makefile_form_when_make_started_the_game(
    script: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LAUNCHER_ENV, "make")
    assert command_hint("play --resume abc123") == "make play ARGS='--resume abc123'"
    assert command_hint("play") == "make play"
    # No make target for it: the script itself.
    monkeypatch.setenv("PATH", "/nonexistent")
    assert command_hint("saved") == f"{script} saved"


def test_cribbage_when_it_is_this_installation_on_the_path(
    script: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(script.parent))
    assert command_hint("play --resume") == "cribbage play --resume"


def test_the_scripts_path_when_cribbage_on_the_path_is_another(
    script: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "cribbage").write_text("#!/bin/sh\n", encoding="utf-8")
    (other / "cribbage").chmod(0o755)
    monkeypatch.setenv("PATH", str(other))
    monkeypatch.chdir(tmp_path)
    assert command_hint("play --resume") == f"venv{os.sep}bin{os.sep}cribbage play --resume"
    monkeypatch.chdir(other)  # not below: the absolute path
    assert command_hint("play --resume") == f"{script} play --resume"


def test_python_m_when_there_is_no_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "my python" / "python3"))
    monkeypatch.setattr(launch, "own_script", lambda: None)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv(LAUNCHER_ENV, raising=False)
    hint = command_hint("saved")
    assert shlex.split(hint) == [
        str(tmp_path / "my python" / "python3"),
        "-m",
        "fifteentwo",
        "saved",
    ]


def test_the_hint_printed_here_runs(tmp_path: Path) -> None:
    """The real installation: the hint for ``saved --json`` runs as a shell command."""
    env = {k: v for k, v in os.environ.items() if k != LAUNCHER_ENV}
    env["FIFTEENTWO_DATA_DIR"] = str(tmp_path)
    hint = command_hint("saved --json")
    run = subprocess.run(
        hint, shell=True, capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert run.returncode == 0, (hint, run.stderr)
    assert run.stdout.strip() == "[]"


def test_the_terminal_game_names_a_resume_command_that_works(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fifteentwo.tui import saved_message

    monkeypatch.setenv(LAUNCHER_ENV, "make")
    assert saved_message() == "Game saved; resume with make play ARGS=--resume"
    monkeypatch.delenv(LAUNCHER_ENV)
    assert saved_message().endswith(command_hint("play --resume"))


def test_history_names_commands_that_work_here(
    script: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cribbage history`` once said "Review one with: cribbage review ID" (and "Play one:
    cribbage play") with no ``cribbage`` on the PATH: it asks `command_hint`, as ``saved`` does."""
    from rich.console import Console

    from fifteentwo.cli.history import print_games, print_totals

    monkeypatch.setenv("PATH", "/nonexistent")
    game = {
        "id": 7,
        "finished_at": "2026-01-02T03:04:05+00:00",
        "variant": "short",
        "levels": "greedy",
        "scores": [61, 40],
        "won": True,
        "skunk": 0,
    }
    out = Console(file=io.StringIO(), width=500)  # (wide: no line is wrapped)
    print_games([game], out)
    text = out.file.getvalue()  # type: ignore[attr-defined]
    assert f"Review one with: {script} review ID\n" in text
    assert "cribbage review" not in text.replace(str(script), "")

    class Empty:
        path = tmp_path / "history.sqlite3"

    out = Console(file=io.StringIO(), width=500)
    print_totals([], out, Empty())  # type: ignore[arg-type]
    assert out.file.getvalue().rstrip().endswith(f"Play one: {script} play")  # type: ignore[attr-defined]
