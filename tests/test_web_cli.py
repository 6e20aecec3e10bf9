"""``cribbage serve``'s own errors (one ``error:`` line and exit status 2, never a traceback), and
its process settings."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
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
        ["--gc-every", "-1"],
        ["--gc-every", "nan"],
        ["--gc-every", "1e6"],
        ["--gc-every", "0.01"],
        ["--log-level", "loud"],
    ],
)
def test_bad_life_cycle_options(capsys: pytest.CaptureFixture[str], option: list[str]) -> None:
    assert main(["serve", "--port", "0", *option]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")


_GC_PROBE = textwrap.dedent(
    """
    import gc, json, sys, threading, time, weakref
    from fifteentwo.cli.serve import GC_THRESHOLDS, _tune_gc

    class Node:
        pass

    _tune_gc(float(sys.argv[1]))
    node = Node()
    node.me = node  # a cycle: only the cyclic collector frees it
    gone = weakref.ref(node)
    del node
    deadline = time.monotonic() + (10 if float(sys.argv[1]) > 0 else 0.3)
    while gone() is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    print(json.dumps({
        "automatic": gc.isenabled(),
        "thresholds": list(gc.get_threshold()),
        "expected_thresholds": list(GC_THRESHOLDS),
        "frozen": gc.get_freeze_count(),
        "collector": any(t.name == "fifteentwo-gc" for t in threading.enumerate()),
        "cycle_freed": gone() is None,
    }))
    """
)


def _gc_state(every: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _GC_PROBE, every],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    state: dict[str, object] = json.loads(done.stdout)
    return state


def test_the_server_collects_cyclic_garbage_on_its_own_schedule() -> None:
    """``--gc-every``: Python's automatic collector is off (its young-generation pauses walked
    every live game's history), what start-up loaded is frozen, and a thread of the server's
    frees cycles once a period; 0 keeps Python's collector at the server's thresholds."""
    scheduled = _gc_state("0.05")
    assert scheduled["automatic"] is False
    assert scheduled["collector"] is True
    assert scheduled["cycle_freed"] is True
    assert isinstance(scheduled["frozen"], int) and scheduled["frozen"] > 0
    python_own = _gc_state("0")
    assert python_own["automatic"] is True and python_own["collector"] is False
    assert python_own["thresholds"] == python_own["expected_thresholds"]
    assert python_own["cycle_freed"] is False  # (50,000 allocations had not come yet)
