"""Where the generated tables live: shipped inside the package, or built by the user.

The tables behind the analysis and the computer players (the win-probability table, the throw
tallies, the crib, pegging and keep tables) are data files under ``fifteentwo/data/``, each
with the command that built it recorded inside it (JSON tables) or in ``data/README.md``.
Rebuilding one (``cribbage equity --build``, ``python -m fifteentwo.selfplay.pegging`` ...)
never writes inside the installed package: a build goes to the user's data directory
(``$FIFTEENTWO_DATA_DIR`` or the platform's, in ``tables/``) or to an explicit ``--out`` path.

A table found in the data directory is the one used from then on (that is why one builds it);
`table_source` says which file is in use, and the commands that use a table print it. A user
table that cannot be read is skipped for the shipped one, and the source says so.

This module sits with `cards` at the bottom of the layers (docs: README's Project layout): it
knows files, not cribbage, so every layer may find its tables through it.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final, TypeVar

from fifteentwo.errors import FifteenTwoError

__all__ = [
    "DATA_DIR_ENV",
    "TABLE_FORMAT",
    "TableFileError",
    "TableSource",
    "check_table_path",
    "data_dir",
    "read_json_table",
    "shipped_path",
    "table_source",
    "user_table_path",
    "write_json_table",
    "write_table_bytes",
]

DATA_DIR_ENV: Final = "FIFTEENTWO_DATA_DIR"
TABLES_DIR: Final = "tables"
"""Sub-directory of the data directory for tables the user built."""
_T = TypeVar("_T")

TABLE_FORMAT: Final = "fifteentwo-table"
"""The ``format`` field of every JSON table file."""


class TableFileError(FifteenTwoError, ValueError):
    """A table file that cannot be read or a path a table cannot be written to."""


def data_dir() -> Path:
    """The user's data directory: ``$FIFTEENTWO_DATA_DIR`` or the platform's (as the saves)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("fifteentwo", appauthor=False))


def shipped_path(name: str) -> Path:
    """The table ``name`` as shipped inside the package (read-only to us)."""
    return Path(str(resources.files("fifteentwo").joinpath("data", name)))


def user_table_path(name: str) -> Path:
    """Where a build of ``name`` goes by default, and where a loader looks first."""
    return data_dir() / TABLES_DIR / name


@dataclass(frozen=True, slots=True)
class TableSource:
    """Which file a table was (or will be) read from."""

    name: str
    path: Path
    shipped: bool
    note: str = ""
    """Why a user table was passed over, when it was."""

    def describe(self) -> str:
        """One line for a command's output: ``table pegging.json: shipped`` or the path."""
        where = "shipped with fifteentwo" if self.shipped else f"built by you, {self.path}"
        return f"{self.name}: {where}{f' ({self.note})' if self.note else ''}"


def table_source(name: str) -> TableSource:
    """The file a loader reads for ``name``: the user's build if there is one, else shipped."""
    user = user_table_path(name)
    try:
        if stat.S_ISREG(user.stat().st_mode):
            return TableSource(name, user, shipped=False)
    except OSError:  # (absent, or a data dir we cannot read: the shipped table will do)
        pass
    return TableSource(name, shipped_path(name), shipped=True)


def read_json_table(
    name: str, kind: str, decode: Callable[[dict[str, Any]], _T]
) -> tuple[_T, TableSource]:
    """JSON table ``name`` (of ``kind``), turned into values by ``decode``, and its source.

    A user table that is unreadable, not JSON, not a ``kind`` table or that ``decode`` refuses
    (any `ValueError`, `KeyError`, `TypeError` or `AttributeError`) is passed over for the
    shipped one, and the returned source's note says why.
    """
    source = table_source(name)
    if not source.shipped:
        try:
            return decode(_read_json(source.path, kind)), source
        except (TableFileError, ValueError, KeyError, TypeError, AttributeError) as exc:
            note = f"yours at {source.path} is unusable: {exc}"
            source = TableSource(name, shipped_path(name), True, note)
    return decode(_read_json(source.path, kind)), source


def _read_json(path: Path, kind: str) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            document = json.loads(fh.read(64 << 20))  # (a table is well under a megabyte)
    except (OSError, ValueError, RecursionError) as exc:
        raise TableFileError(f"{path}: {exc}") from None
    if (
        not isinstance(document, dict)
        or document.get("format") != TABLE_FORMAT
        or document.get("table") != kind
        or not isinstance(document.get("data"), dict)
    ):
        raise TableFileError(f"{path} is not a {kind} table")
    data: dict[str, Any] = document["data"]
    return data


def write_json_table(
    path: Path, kind: str, data: dict[str, Any], *, built_by: str, params: dict[str, Any]
) -> Path:
    """Write a JSON table (one entry per line, the command that built it inside)."""
    document = {
        "format": TABLE_FORMAT,
        "table": kind,
        "built_by": built_by,
        "params": params,
        "data": data,
    }
    text = json.dumps(document, indent=0, separators=(",", ":"), allow_nan=False)
    return write_table_bytes(path, (text + "\n").encode())


def check_table_path(path: Path) -> Path:
    """Refuse a destination that is not (or would not be) a regular file of ours.

    The shipped tables are never a destination, nor a directory, a device, a FIFO or a link
    to one: a build replaces only a regular file (issue 15).
    """
    path = path.expanduser()
    package = shipped_path("x").parent.parent.resolve()
    if path.resolve().is_relative_to(package):
        raise TableFileError(
            f"{path} is inside the installed package: tables are built into the data dir "
            f"({data_dir() / TABLES_DIR}) or --out elsewhere"
        )
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise TableFileError(f"cannot write {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise TableFileError(f"{path} exists and is not a regular file")
    return path


def write_table_bytes(path: Path, content: bytes) -> Path:
    """Write ``content`` to ``path`` atomically (a temporary file renamed over it)."""
    path = check_table_path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    except OSError as exc:
        raise TableFileError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise TableFileError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
    return path
