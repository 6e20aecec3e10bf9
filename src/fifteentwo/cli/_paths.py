"""File names the user gives: checked before any work starts, and written without harm.

A command that runs for minutes (an arena match, a review with the pegging search) must not fail
at the end because ``--record`` names a directory, so every path option is checked first
(`output_path`, `input_path`): one ``error:`` line and exit 2. Writing then goes through a
temporary file beside the target that replaces it only if the target is still a regular file or
missing (`write_atomically`): a device, a FIFO, a directory or a socket (or a symlink to one) is
never replaced, even when run as root, where every permission check passes.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from fifteentwo.cli import UsageError
from fifteentwo.records import file_kind, file_mode

__all__ = ["input_path", "output_path", "shown", "write_atomically"]


def shown(path: str | os.PathLike[str]) -> str:
    """A path for a message: control characters escaped, shortened."""
    text = os.fspath(path)
    escaped = repr(text[:200])[1:-1]
    return escaped if len(text) <= 200 else escaped + "..."


def _named(text: str, option: str) -> Path:
    if not text:
        raise UsageError(f"{option} needs a file name")
    if "\0" in text:
        raise UsageError(f"{option} {shown(text)}: a file name cannot hold a NUL character")
    return Path(text)


def output_path(text: str, option: str) -> Path:
    """Check that ``text`` can be written as a new or replaced regular file; return the path.

    Refused with `UsageError` (one line, exit 2): a directory, a device, a FIFO, a socket, a
    symlink to one of those or a broken symlink, an existing file that cannot be written, and a
    path whose directory is missing or cannot be written.
    """
    path = _named(text, option)
    where = f"{option} {shown(text)}"
    try:
        mode: int | None = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
        if os.path.lexists(path):
            raise UsageError(f"{where}: a symbolic link to nothing") from None
    except OSError as exc:
        raise UsageError(f"{where}: {exc.strerror}") from None
    if mode is not None:
        if not stat.S_ISREG(mode):
            raise UsageError(f"{where} is {file_kind(mode)}; give a file name")
        if not os.access(path, os.W_OK):
            raise UsageError(f"{where}: the file cannot be written (permission denied)")
    real = Path(os.path.realpath(path))
    parent = real.parent
    try:
        parent_mode = os.stat(parent).st_mode
    except OSError as exc:
        raise UsageError(f"{where}: its directory {shown(parent)}: {exc.strerror}") from None
    if not stat.S_ISDIR(parent_mode):
        raise UsageError(f"{where}: {shown(parent)} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{where}: the directory {shown(parent)} cannot be written")
    return path


def input_path(text: str, option: str) -> Path:
    """Check that ``text`` names a regular file that can be read (never waits on a FIFO)."""
    path = _named(text, option)
    where = f"{option} {shown(text)}"
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise UsageError(f"{where}: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise UsageError(f"{where} is {file_kind(mode)}; give a file")
    if not os.access(path, os.R_OK):
        raise UsageError(f"{where}: the file cannot be read (permission denied)")
    return path


def write_atomically(path: Path, write: Callable[[IO[bytes]], None], option: str) -> None:
    """Write a file through a temporary file in the same directory, then rename it into place.

    The rename happens only if the target is (still) a regular file or missing; a symlink to a
    regular file is followed, so the link stays and the file it names is replaced. A failure
    leaves the old file as it was and no temporary file behind.
    """
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise UsageError(f"{option} {shown(path)}: {exc.strerror}") from None
    try:
        os.fchmod(fd, file_mode(target))
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            mode: int | None = os.lstat(target).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            raise UsageError(f"{option} {shown(path)} is {file_kind(mode)}; it was not replaced")
        os.replace(tmp, target)
    except OSError as exc:
        raise UsageError(f"{option} {shown(path)}: {exc.strerror}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
