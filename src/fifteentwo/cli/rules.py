"""``cribbage rules``: this program's rules of cribbage, in a pager when on a terminal."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fifteentwo.app.rules_text import rules_markdown, rules_plain


def register(subparsers: Any) -> None:
    """Add the ``rules`` subcommand."""
    parser = subparsers.add_parser(
        "rules",
        help="the rules of cribbage and how to play this program",
        description="Show the rules of cribbage and this program's controls.",
    )
    parser.add_argument("--markdown", action="store_true", help="print the Markdown source instead")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Page the rules on a terminal; print them plainly otherwise (pipes, screen readers)."""
    if args.markdown:
        sys.stdout.write(rules_markdown())
        return 0
    if not sys.stdout.isatty():
        sys.stdout.write(rules_plain("both"))
        return 0
    from rich.console import Console
    from rich.markdown import Markdown

    console = Console()
    with console.pager(styles=False):
        console.print(Markdown(rules_markdown()))
    return 0
