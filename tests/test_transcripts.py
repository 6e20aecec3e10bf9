"""Plain-mode transcripts of the flows the full-screen game's snapshots show: a whole game, a
hint at the first discard, counting by hand with muggins (an over-claim corrected and its
excess taken, an under-claim taken by muggins and explained), undo, the statistics after a
few games, and practice.

Each is compared line for line with tests/transcripts/NAME.txt (fixed seeds; the seconds an
answer took, saved games' random ids and the data directory are masked). After a change meant
to be read, ``UPDATE_TRANSCRIPTS=1 pytest tests/test_transcripts.py`` writes them again: read
the diff.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from fifteentwo.app.launch import LAUNCHER_ENV
from fifteentwo.app.options import PlayOptions
from fifteentwo.cli import main
from plain_driver import Answerer, play_in_process

TRANSCRIPTS = Path(__file__).parent / "transcripts"
UPDATE = os.environ.get("UPDATE_TRANSCRIPTS") == "1"
GREEDY = {"level": "greedy", "instructions": False}


def check(name: str, text: str, data_dir: Path | None = None) -> None:
    """``text`` (masked) must read as the recorded transcript ``name``."""
    if data_dir is not None:
        text = text.replace(str(data_dir), "DATA")
    text = re.sub(r"\d+\.\d s", "N.N s", text)  # how long an answer took
    text = re.sub(r"\(id [A-Za-z0-9]{12}\)", "(id ID)", text)  # a saved game's random id
    path = TRANSCRIPTS / f"{name}.txt"
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no transcript {path.name}: run with UPDATE_TRANSCRIPTS=1"
    expected = path.read_text(encoding="utf-8")
    assert text.splitlines() == expected.splitlines()


def test_a_whole_game_with_a_hint(fifteentwo_data_dir: Path) -> None:
    asked = []

    def discard(prompt: str, refusals: int) -> str:
        asked.append(prompt)
        if len(asked) == 1:
            return "hint"
        n = int(prompt.split()[2])
        return " ".join(f"#{i + 1}" for i in range(n))

    options = PlayOptions(variant="short", seed=9, **GREEDY)
    played = play_in_process(options, fifteentwo_data_dir, Answerer({"Lay away": discard}))
    assert played.code == 0
    check("whole_game", played.transcript, fifteentwo_data_dir)


def test_counting_by_hand_with_muggins(fifteentwo_data_dir: Path) -> None:
    claims: list[str] = []

    def count(prompt: str, refusals: int) -> str:
        claims.append(prompt)  # too many (corrected, the excess mugged), then nothing, in turn
        return "29" if len(claims) % 2 else "0"

    options = PlayOptions(
        variant="short", seed=5, muggins=True, auto_count=False, explain=True, **GREEDY
    )
    answerer = Answerer({"Count your": count}, stop_after=40)
    played = play_in_process(options, fifteentwo_data_dir, answerer)
    check("manual_count", played.transcript, fifteentwo_data_dir)


def test_statistics_after_some_games(
    fifteentwo_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for seed in (1, 2, 3):
        options = PlayOptions(variant="short", seed=seed, **GREEDY)
        play_in_process(options, fifteentwo_data_dir).store.close()
    capsys.readouterr()
    assert main(["history", "--stats"]) == 0
    check("statistics", capsys.readouterr().out, fifteentwo_data_dir)


def test_practice(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    answers = io.StringIO("7\n19\n4\nq\n")
    monkeypatch.setattr("sys.stdin", answers)
    assert main(["practice", "--seed", "3"]) == 0
    check("practice", capsys.readouterr().out)


def test_undo(fifteentwo_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """'undo' at the first play takes back the discard; the game notes the take-back. (As
    started by `make play`: the resume hint is the Makefile's form, the same on any machine.)"""
    monkeypatch.setenv(LAUNCHER_ENV, "make")
    said: list[str] = []

    def play(prompt: str, refusals: int) -> str | None:
        said.append(prompt)
        if len(said) == 1:
            return "undo"
        if len(said) > 3:
            return None  # (enough: input ends, the game is saved)
        return f"#{refusals + 1}"

    options = PlayOptions(variant="short", seed=9, **GREEDY)
    answerer = Answerer({"Play a card": play, "Another game": "n"})
    played = play_in_process(options, fifteentwo_data_dir, answerer)
    assert "You took back your last decision." in played.transcript
    assert played.transcript.count("Lay away 2 cards:") == 2
    check("undo", played.transcript, fifteentwo_data_dir)
