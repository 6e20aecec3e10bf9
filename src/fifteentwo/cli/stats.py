"""``cribbage stats``: placeholder registered so the parser is complete; see issue 3."""

from __future__ import annotations

from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``stats`` subcommand."""
    parser = subparsers.add_parser("stats", help="exact distribution of show scores")
    parser.add_argument("--crib", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=lambda args: 0)
