"""``cribbage engine``: a computer level speaking the bot protocol on stdin and stdout.

The reverse of ``exec:`` players: any program, in any language, can start ``cribbage engine
--level expert`` and use fifteentwo's expert as its opponent or its oracle through the protocol
of docs/protocol.md (a JSON object per line).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fifteentwo import __version__
from fifteentwo.errors import FifteenTwoError
from fifteentwo.players import load_player
from fifteentwo.players.protocol import serve
from fifteentwo.rules import preset_names


def register(subparsers: Any) -> None:
    """Add the ``engine`` subcommand."""
    parser = subparsers.add_parser(
        "engine",
        help="make a computer level speak the bot protocol on stdin/stdout",
        description=(
            "Speak the fifteentwo bot protocol (docs/protocol.md) on stdin and stdout, "
            "answering every decision with a computer level, so programs in any language can "
            "play against it or ask it. Example: cribbage engine --level expert"
        ),
    )
    parser.add_argument(
        "--level",
        default="expert",
        help="the level that decides: a level name or module:Class (default expert)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until ``quit`` or the end of input."""
    spec = args.level
    if spec.startswith("exec:"):
        raise FifteenTwoError("cribbage engine serves a level or module:Class, not exec:")
    load_player(spec, 0)  # a bad level is one error line before the handshake
    return serve(
        lambda seed: load_player(spec, seed),
        sys.stdin,
        sys.stdout,
        name=f"fifteentwo {spec}",
        version=__version__,
        variants=preset_names(),
    )
