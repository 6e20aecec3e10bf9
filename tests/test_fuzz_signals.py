"""Faults around the process: a closed or full stdout, and Ctrl-C while the program starts.

Each case runs the installed ``cribbage`` console script in a subprocess (bounded by a timeout):

- stdout a pipe whose reader has gone (``cribbage ... | head -1``): quiet exit 0, nothing on
  stderr (no "Exception ignored ... BrokenPipeError" at interpreter exit);
- stdout closed (``>&-``): quiet exit 0, and the output never lands in a file opened later;
- stdout on a full disk (``> /dev/full``): one ``error:`` line, exit 2;
- SIGINT at several moments of the start (as soon as the interpreter maps its first extension
  module, once numpy is loaded, and at the calculator's prompt): exit 130, no traceback.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CRIBBAGE = shutil.which("cribbage", path=str(Path(sys.executable).parent)) or "cribbage"
TIMEOUT = 60

COMMANDS = [
    ["score", "5h", "5c", "5s", "jd", "5d"],
    ["rules"],
    ["discard", "--table", "--json"],
    ["--help"],
    ["equity", "90", "100"],
    ["practice", "--seed", "1"],
]
"""Commands that write to stdout (3 faults each: 18 runs)."""


def _run(args: list[str], stdout: int | None, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [CRIBBAGE, *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=TIMEOUT,
        check=False,
        **kwargs,
    )


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
def test_a_closed_pipe_ends_quietly(args: list[str]) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written: every write fails
    try:
        done = _run(args, write)
    finally:
        os.close(write)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
def test_a_closed_stdout_ends_quietly(args: list[str]) -> None:
    done = subprocess.run(
        ["sh", "-c", 'exec "$0" "$@" >&-', CRIBBAGE, *args],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
def test_a_full_disk_is_one_line(args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = _run(args, full.fileno())
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "No space left" in lines[0]


def test_output_never_lands_in_a_file_opened_on_the_closed_descriptor(tmp_path: Path) -> None:
    """With fd 1 closed, the next file opened would get it: the record file must not."""
    record = tmp_path / "games.jsonl"
    done = subprocess.run(
        [
            *("sh", "-c", 'exec "$0" "$@" >&-', CRIBBAGE, "arena", "--a", "novice", "--b"),
            *("novice", "--games", "2", "--jobs", "1", "--record", str(record)),
        ],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = record.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and all(line.startswith('{"format"') for line in lines)


def test_a_closed_stdin_is_the_end_of_input() -> None:
    done = subprocess.run(
        ["sh", "-c", 'exec "$0" "$@" <&-', CRIBBAGE, "score"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == ""


def _maps(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return ""


def _interrupt_when(marker: str, later: float = 0.0) -> subprocess.Popen[str]:
    """Start the calculator (it waits on stdin); send SIGINT ``later`` s after ``marker`` is mapped.

    The interpreter installs its SIGINT handler before it loads any extension module of its
    own library (lib-dynload), so from then on Ctrl-C is ours to handle. (Earlier, the signal
    kills the process as it would any program: the shell reports 130 too.)
    """
    proc = subprocess.Popen(
        [CRIBBAGE, "score"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + TIMEOUT
    while marker not in _maps(proc.pid) and time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        time.sleep(0.0005)
    time.sleep(later)
    proc.send_signal(signal.SIGINT)
    return proc


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
@pytest.mark.parametrize(
    ("marker", "later"),
    [("lib-dynload", 0.0), ("_multiarray_umath", 0.0), ("_multiarray_umath", 0.02), (".so", 2.0)],
    ids=["stdlib-loading", "numpy-loaded", "fifteentwo-loading", "at-the-prompt"],
)
def test_ctrl_c_while_starting_exits_130_quietly(marker: str, later: float) -> None:
    proc = _interrupt_when(marker, later)
    try:
        _, err = proc.communicate(timeout=TIMEOUT)
    finally:
        proc.kill()
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert proc.returncode == 130, (proc.returncode, err)
    assert err.strip() == ""


DROPPED_CTRL_C = """
import sys, weakref
import _fifteentwo_entry
import fifteentwo.cli

def dropped(_):
    raise KeyboardInterrupt  # what Ctrl-C does when it lands in a weak reference's callback

def command():
    class Thing:
        pass
    thing = Thing()
    ref = weakref.ref(thing, dropped)
    del thing  # the interpreter reports the callback's KeyboardInterrupt and drops it...
    sys.stdin.readline()  # ...so the command would wait here, as if no key had been pressed
    return 0

fifteentwo.cli.main = command
raise SystemExit(_fifteentwo_entry.main())
"""


def test_a_ctrl_c_the_interpreter_drops_in_a_callback_still_exits_130_quietly() -> None:
    """The stdlib-loading case above, made certain: a Ctrl-C that lands in a callback the
    interpreter runs for itself (importlib's module locks are weak references) is pressed
    again in the program, even one waiting for input."""
    proc = subprocess.Popen(
        [sys.executable, "-c", DROPPED_CTRL_C],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        proc.wait(timeout=TIMEOUT)  # (stdin stays open: only the Ctrl-C can end the wait)
        err = proc.stderr.read() if proc.stderr else ""
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 130, (proc.returncode, err)
    assert err.strip() == "", err
