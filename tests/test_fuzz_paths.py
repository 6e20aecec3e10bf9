"""Output and input paths: checked before any work, and nothing but a regular file is replaced.

Every kind of path a user can name goes to `output_path` and `input_path` (cli/_paths.py), to the
writers (`write_atomically`, `records.write_records`) and to the commands that take a path
(``arena --record``, ``review --plot``, ``review FILE``): a directory, a FIFO, a device, a socket,
symlinks to each, a broken symlink, a missing or non-directory parent, an unwritable file. Each is
one ``error:`` line and exit 2 at once, and the thing named is left exactly as it was.
"""

from __future__ import annotations

import os
import socket
import stat
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from fifteentwo.cli import UsageError
from fifteentwo.cli._paths import input_path, output_path, write_atomically
from fifteentwo.errors import RecordError
from fifteentwo.players import GreedyPlayer, play_game
from fifteentwo.records import dumps, game_record, read_records, write_records
from fifteentwo.rules import find_rules
from test_fuzz_cli import check

ROOT = os.geteuid() == 0


def _special(tmp: Path) -> dict[str, tuple[Path, str]]:
    """Named paths that are never a writable regular file, with the message each gives."""
    (tmp / "dir").mkdir()
    os.mkfifo(tmp / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp / "sock"))
    sock.close()
    (tmp / "file").write_text("x")
    for name, target in (("to-dir", "dir"), ("to-fifo", "fifo"), ("dangling", "nothing")):
        (tmp / name).symlink_to(tmp / target)
    (tmp / "to-null").symlink_to("/dev/null")
    return {
        "dir": (tmp / "dir", "is a directory"),
        "fifo": (tmp / "fifo", "is a FIFO"),
        "socket": (tmp / "sock", "is a socket"),
        "device": (Path("/dev/null"), "is a device"),
        "full": (Path("/dev/full"), "is a device"),
        "link to dir": (tmp / "to-dir", "is a directory"),
        "link to fifo": (tmp / "to-fifo", "is a FIFO"),
        "link to device": (tmp / "to-null", "is a device"),
        "broken link": (tmp / "dangling", "a symbolic link to nothing"),
        "missing parent": (tmp / "no" / "x.png", "No such file or directory"),
        "parent is a file": (tmp / "file" / "x.png", "Not a directory"),
    }


def _snapshot(path: Path) -> tuple[int, int] | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return st.st_mode, st.st_ino


def test_output_path_refuses_what_is_not_a_writable_regular_file(tmp_path: Path) -> None:
    for kind, (path, message) in _special(tmp_path).items():
        with pytest.raises(UsageError, match=message):
            output_path(str(path), "--out")
        assert kind  # each kind tried
    for bad, message in (("", "needs a file name"), ("a\0b", "NUL")):
        with pytest.raises(UsageError, match=message):
            output_path(bad, "--out")
    assert output_path(str(tmp_path / "new.png"), "--plot") == tmp_path / "new.png"
    assert output_path(str(tmp_path / "file"), "--plot") == tmp_path / "file"


@pytest.mark.skipif(ROOT, reason="root may write anything on a writable file system")
def test_output_path_refuses_unwritable_files_and_directories(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "old.png").write_text("x")
    (locked / "old.png").chmod(0o444)
    locked.chmod(0o555)
    try:
        with pytest.raises(UsageError, match="cannot be written"):
            output_path(str(locked / "old.png"), "--plot")
        with pytest.raises(UsageError, match="cannot be written"):
            output_path(str(locked / "new.png"), "--plot")
    finally:
        locked.chmod(0o755)


def test_input_path_refuses_what_is_not_a_readable_regular_file(tmp_path: Path) -> None:
    special = _special(tmp_path)
    for kind in ("dir", "fifo", "socket", "device", "link to dir", "link to fifo"):
        path, message = special[kind]
        with pytest.raises(UsageError, match=message):
            input_path(str(path), "GAME")
    with pytest.raises(UsageError, match="No such file"):
        input_path(str(tmp_path / "nothing"), "GAME")


def _writers(tmp: Path) -> list[Callable[[Path], None]]:
    record = game_record(play_game(find_rules("short"), [GreedyPlayer(1), GreedyPlayer(2)], seed=1))
    return [
        lambda p: write_atomically(p, lambda fh: fh.write(b"data"), "--plot"),
        lambda p: write_records(p, [record]),
    ]


def test_writers_never_replace_what_is_not_a_regular_file(tmp_path: Path) -> None:
    special = _special(tmp_path)
    for write in _writers(tmp_path):
        for kind in ("dir", "fifo", "socket", "link to dir", "link to fifo"):
            path, _ = special[kind]
            before = _snapshot(path)
            started = time.monotonic()
            with pytest.raises((UsageError, RecordError)):
                write(path)
            assert time.monotonic() - started < 5  # never waits on the FIFO
            assert _snapshot(path) == before, kind  # left exactly as it was
    assert not list(tmp_path.rglob(".*.tmp"))  # no temporary file left behind


def test_writers_follow_a_link_to_a_regular_file_and_keep_its_mode(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    record = game_record(play_game(find_rules("short"), [GreedyPlayer(1), GreedyPlayer(2)], seed=1))
    write_records(link, [record])
    assert link.is_symlink() and read_records(link) == [record]
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    write_atomically(tmp_path / "new.svg", lambda fh: fh.write(b"<svg/>"), "--plot")
    mode = stat.S_IMODE((tmp_path / "new.svg").stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask  # not the temporary file's private 0600


def test_a_failed_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "keep.svg"
    target.write_bytes(b"old")

    def broken(fh: object) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(UsageError, match="No space left"):
        write_atomically(target, broken, "--plot")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old" and not list(tmp_path.glob(".*.tmp"))


def test_commands_check_their_paths_before_any_work(tmp_path: Path) -> None:
    special = _special(tmp_path)
    record = tmp_path / "game.jsonl"
    game = play_game(find_rules("short"), [GreedyPlayer(1), GreedyPlayer(2)], seed=1)
    record.write_text(dumps(game_record(game)) + "\n")
    tried = 0
    for _kind, (path, message) in special.items():
        runs = (
            # 10**6 games of experts: only an immediate refusal finishes in time.
            ["arena", "--games", "1000000", "--jobs", "1", "--record", str(path)],
            ["review", str(record), "--plot", str(path)],  # before the expert's review
        )
        for args in runs:
            started = time.monotonic()
            code, _, err = check(args)
            assert code == 2 and message in err, (args, err)
            assert time.monotonic() - started < 5
            tried += 1
    for kind in ("dir", "fifo", "socket", "device", "link to fifo"):
        code, _, err = check(["review", str(special[kind][0]), "--no-plays"])
        assert code == 2 and special[kind][1] in err
    assert tried == 2 * len(special)


def test_review_plot_is_written_atomically(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    record = tmp_path / "game.jsonl"
    game = play_game(find_rules("standard"), [GreedyPlayer(1), GreedyPlayer(2)], seed=1)
    names = ["$x^2$ \\frac{", "\u4e00😀\x1b[31m"]  # mathtext, a glyph the font lacks, control
    record.write_text(dumps(game_record(game, names)) + "\n")
    code, out, err = check(["review", str(record), "--no-plays", "--plot", str(tmp_path / "g.svg")])
    assert code == 0 and "graph saved" in out and not err  # no matplotlib warning either
    assert (tmp_path / "g.svg").read_bytes().lstrip().startswith(b"<?xml")
    code, _, err = check(["review", str(record), "--no-plays", "--plot", str(tmp_path / "g.txt")])
    assert code == 2 and "--plot saves .png or .svg" in err
