"""The ``cribbage`` command: one argparse parser, one module per subcommand.

Each subcommand module in `COMMANDS` exposes ``register(subparsers)``, which adds its parser and
sets ``func`` (taking the parsed args, returning the exit code). Errors that fifteentwo raises on
purpose become one ``error: ...`` line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from fifteentwo import __version__
from fifteentwo.errors import FifteenTwoError

COMMANDS = (
    "play",
    "score",
    "stats",
    "discard",
    "equity",
    "review",
    "rules",
    "history",
    "saved",
    "arena",
    "serve",
)
"""Subcommand modules under `fifteentwo.cli`, in the order ``--help`` lists them."""

DEFAULT_COMMAND = "play"
"""What plain ``cribbage`` (or ``cribbage --plain ...``) runs: the game."""


class UsageError(FifteenTwoError):
    """A bad command-line argument."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit 2 (argparse prints usage too)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


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
    return parser


def fail(message: str) -> int:
    """Print one ``error:`` line to stderr and return the usage exit code."""
    print(f"error: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cribbage`` console script."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    top_level = ("-h", "--help", "--version")
    if not args_list or (args_list[0].startswith("-") and args_list[0] not in top_level):
        args_list.insert(0, DEFAULT_COMMAND)
    try:
        args = parser.parse_args(args_list)
        code: int = args.func(args)
    except FifteenTwoError as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return code
