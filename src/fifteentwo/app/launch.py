"""How to tell the user a command they can type from where they are.

After ``make play`` the ``cribbage`` script lives in the project's ``.venv/bin``, which is not
on the PATH, so "resume with cribbage play --resume" would answer "command not found". Every
message naming a command asks `command_hint` for the form that works as typed:

* ``cribbage ...`` when ``cribbage`` on the PATH is this installation's script;
* ``make play ARGS='...'`` for ``play`` when the Makefile started the game (it sets
  ``FIFTEENTWO_LAUNCHER=make`` in the environment; the user is in the project's directory);
* else this installation's script by path (``.venv/bin/cribbage ...`` relative to the current
  directory when it is below it), or ``python -m fifteentwo ...`` with this interpreter.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Final

__all__ = ["LAUNCHER_ENV", "command_hint", "own_script"]

LAUNCHER_ENV: Final = "FIFTEENTWO_LAUNCHER"
"""Set to ``make`` by the Makefile's ``play`` target."""

_MAKE_TARGETS: Final = frozenset({"play", "serve"})
"""Subcommands the Makefile runs with ``ARGS=...``."""


def own_script() -> Path | None:
    """This installation's ``cribbage`` script (beside the running interpreter), if any."""
    bindir = Path(sys.executable).parent
    for name in ("cribbage", "cribbage.exe"):
        script = bindir / name
        if script.is_file():
            return script
    return None


def _same_file(a: str | Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def command_hint(args: str) -> str:
    """The command ``cribbage ARGS`` as the user can type it here (see the module's text).

    ``args`` is the rest of the command line (``play --resume abc``), already quoted."""
    subcommand, _, rest = args.partition(" ")
    if os.environ.get(LAUNCHER_ENV) == "make" and subcommand in _MAKE_TARGETS:
        return f"make {subcommand}" + (f" ARGS={shlex.quote(rest)}" if rest else "")
    script = own_script()
    on_path = shutil.which("cribbage")
    if on_path is not None and (script is None or _same_file(on_path, script)):
        return f"cribbage {args}"
    if script is None:
        return f"{shlex.quote(sys.executable)} -m fifteentwo {args}"
    try:
        shown = str(script.relative_to(Path.cwd()))
        if os.sep not in shown:
            shown = f".{os.sep}{shown}"
    except ValueError:
        shown = str(script)
    return f"{shlex.quote(shown)} {args}"
