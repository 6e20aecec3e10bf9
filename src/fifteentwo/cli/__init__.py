"""The ``cribbage`` command: one argparse parser, one module per subcommand.

Each subcommand module in `COMMANDS` exposes ``register(subparsers)``, which adds its parser and
sets ``func`` (taking the parsed args, returning the exit code). Errors that fifteentwo raises on
purpose become one ``error: ...`` line on stderr and exit code 2, never a traceback; so do the
operating system's refusals (a file that cannot be read, a full disk) and hostile input that
exhausts memory or recursion. A closed pipe on stdout (``cribbage history | head -1``) ends the
program quietly; Ctrl-C exits 130. docs/reliability.md lists these promises and their tests.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from fifteentwo import __version__
from fifteentwo.errors import FifteenTwoError

COMMANDS = (
    "play",
    "practice",
    "score",
    "stats",
    "discard",
    "equity",
    "review",
    "rules",
    "history",
    "saved",
    "arena",
    "engine",
    "bot_check",
    "serve",
)
"""Subcommand modules under `fifteentwo.cli`, in the order ``--help`` lists them."""

DEFAULT_COMMAND = "play"
"""What plain ``cribbage`` (or ``cribbage --plain ...``) runs: the game."""


class UsageError(FifteenTwoError):
    """A bad command-line argument."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit 2 (argparse prints usage too)."""

    commands: Mapping[str, argparse.ArgumentParser]
    """The subcommands' parsers by name (the top-level parser's; see `build_parser`)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")

    def _print_message(self, message: str, file: Any = None) -> None:
        """Print help and version text, letting a failed write be seen (argparse hides it)."""
        if message:
            (file or sys.stderr).write(message)


def build_parser() -> Parser:
    """The full parser; each subcommand module adds itself."""
    parser = Parser(
        prog="cribbage",
        description="Cribbage: play, score hands, analyse discards, and review games.",
        epilog="Run 'cribbage COMMAND --help' for the options of one command.",
    )
    parser.add_argument("--version", action="version", version=f"fifteentwo {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMANDS:
        importlib.import_module(f"fifteentwo.cli.{name}").register(subparsers)
    parser.commands = subparsers.choices
    return parser


MAX_MESSAGE: int = 500
"""The longest error line printed: messages quote untrusted text (file names, record values)."""


def _printable(text: str) -> str:
    """One line of plain text: control characters (ANSI escapes, newlines) made visible."""
    text = text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "..."
    return (
        "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text if c != "\r")
        .encode("utf-8", "backslashreplace")
        .decode("utf-8")
    )


def fail(message: str) -> int:
    """Print one ``error:`` line to stderr and return the usage exit code."""
    _stderr_line(f"error: {_printable(message)}")
    return 2


def _stderr_line(text: str) -> None:
    """A line on stderr that cannot itself fail (stderr may be closed or full too)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(text, file=sys.stderr, flush=True)


def _silence_stdout() -> None:
    """Point stdout at /dev/null once it failed, so Python's flush at exit stays quiet.

    Without this, the interpreter's own last flush of a broken stdout prints "Exception ignored
    ... BrokenPipeError" after we have returned.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (tests capture stdout)
        pass


def _flush_stdout() -> int | None:
    """Flush stdout; on failure silence it and say why (None: it worked, or the pipe closed)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    except OSError as exc:
        _silence_stdout()
        return fail(f"cannot write the output: {exc.strerror or exc}")
    except ValueError:  # closed by the command itself
        pass
    return None


def ensure_std_streams() -> None:
    """Give closed stdin/stdout/stderr (``cribbage ... >&-``) a /dev/null instead.

    A closed descriptor 1 would otherwise be reused by the next file opened (a record file, the
    database), and output meant for the terminal would be written into it.
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                opened = os.open(os.devnull, os.O_RDWR)
            except OSError:
                continue
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 (for the process)
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (for the process)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    for stream in (sys.stdout, sys.stderr):
        # A terminal that cannot show a character (a Latin-1 locale and a card suit) gets an
        # escape, not a UnicodeEncodeError.
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]


def _os_message(exc: OSError) -> str:
    """An operating-system error as the user needs it: what failed, on which file."""
    what = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is not None:
        return f"{_printable(os.fsdecode(exc.filename))}: {what}"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO):
        return f"cannot write: {what}"
    return what


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cribbage`` console script."""
    ensure_std_streams()
    try:
        code = _run(argv)
    except SystemExit as exc:
        if isinstance(exc.__context__, BrokenPipeError):  # Rich's exit on a closed pipe
            _silence_stdout()
            return 0
        flushed = _flush_stdout()  # --help and --version print, then exit 0
        if flushed is not None:
            return flushed
        raise
    except KeyboardInterrupt:
        _stderr_line("")
        code = 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except FifteenTwoError as exc:
        code = fail(str(exc))
    except OSError as exc:
        if exc.errno == errno.EPIPE:
            _silence_stdout()
            return 0
        code = fail(_os_message(exc))
    except MemoryError:
        code = fail("out of memory (is an input file enormous?)")
    except RecursionError:
        code = fail("input nested too deeply")
    except Exception as exc:
        if os.environ.get("FIFTEENTWO_DEBUG"):
            raise
        code = fail(f"internal error ({type(exc).__name__}: {exc}); please report it")
    flushed = _flush_stdout()
    return code if flushed is None or code != 0 else flushed


def _run(argv: Sequence[str] | None) -> int:
    """Parse the arguments and run the subcommand."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    top_level = ("-h", "--help", "--version")
    if not args_list or (args_list[0].startswith("-") and args_list[0] not in top_level):
        args_list.insert(0, DEFAULT_COMMAND)
    args, extras = parser.parse_known_args(args_list)
    if extras:  # said by the subcommand's parser: "cribbage play: unrecognized arguments: ..."
        command = parser.commands.get(str(getattr(args, "command", "")), parser)
        command.error(f"unrecognized arguments: {' '.join(extras)}")
    code: int = args.func(args)
    return code
