"""``cribbage serve``'s own errors: one ``error:`` line and exit status 2, never a traceback."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

from fifteentwo.cli import main


def test_bad_port_and_workers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "70000"]) == 2
    assert main(["serve", "--workers", "0"]) == 2
    assert main(["serve", "--port", "eighty"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("error: ") for line in err)


def test_a_taken_port(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = main(["serve", "--port", str(port), "--db", str(tmp_path / "g.sqlite3")])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot serve on 127.0.0.1") and "Traceback" not in err


def test_a_store_that_cannot_open(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert main(["serve", "--port", "0", "--db", str(blocker / "games.sqlite3")]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert main(["serve", "--db", "postgresql://nowhere/x", "--port", "0"]) == 2


@pytest.mark.parametrize(
    "option",
    [
        ["--shutdown-timeout", "-1"],
        ["--shutdown-timeout", "nan"],
        ["--shutdown-timeout", "soon"],
        ["--drain", "1e9"],
        ["--drain", "inf"],
        ["--table-tick", "0"],
        ["--log-level", "loud"],
    ],
)
def test_bad_life_cycle_options(capsys: pytest.CaptureFixture[str], option: list[str]) -> None:
    assert main(["serve", "--port", "0", *option]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")
