"""``cribbage play``: a game against the computer, in the Textual app or in plain line mode.

Plain mode is used with ``--plain`` or whenever stdin or stdout is not a terminal, so the game
can be piped, scripted and read by a screen reader. Both modes share the options, the save
file (``save.json`` in the data directory, written after every step) and the results history.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fifteentwo.app.describe import Describer
from fifteentwo.app.history import History, HistoryError
from fifteentwo.app.options import (
    PlayOptions,
    SessionFactory,
    default_save_path,
    game_logger,
    parse_players,
)
from fifteentwo.app.session import SaveError, Session
from fifteentwo.errors import FifteenTwoError
from fifteentwo.rules import find_rules, preset_names


def register(subparsers: Any) -> None:
    """Add the ``play`` subcommand (also what plain ``cribbage`` runs)."""
    parser = subparsers.add_parser(
        "play",
        help="play cribbage against the computer (the default command)",
        description=(
            "Play cribbage against the computer: a full-screen game in a terminal, or plain "
            "line mode with --plain (or when input or output is not a terminal). The game is "
            "saved after every move; every finished game goes to 'cribbage history'."
        ),
    )
    parser.add_argument(
        "--plain", action="store_true", help="plain line mode: text in, text out, no screen"
    )
    length = parser.add_mutually_exclusive_group()
    length.add_argument(
        "--variant",
        metavar="NAME",
        help=f"the game to play: {', '.join(preset_names())} (default: ask short or long)",
    )
    length.add_argument(
        "--short", dest="length", action="store_const", const="short", help="a game to 61"
    )
    length.add_argument(
        "--long", dest="length", action="store_const", const="standard", help="a game to 121"
    )
    parser.add_argument(
        "--target", type=int, metavar="N", help="play to N points (skunk lines move with it)"
    )
    parser.add_argument(
        "--players",
        metavar="SPEC",
        help="seats in order, e.g. human,expert or human,standard,standard; in the "
        "four-player game the first and third seats are partners",
    )
    parser.add_argument(
        "--level",
        help="level of the computer players: a registered level or module:Class "
        "(default: the strongest available)",
    )
    parser.add_argument("--seed", type=int, metavar="N", help="seed of the first game")
    parser.add_argument(
        "--muggins",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="let the opponent take points you fail to count (you then count your own hands)",
    )
    count = parser.add_mutually_exclusive_group()
    count.add_argument(
        "--auto-count",
        dest="auto_count",
        action="store_const",
        const=True,
        help="count your hands for you (the default without muggins)",
    )
    count.add_argument(
        "--manual-count",
        dest="auto_count",
        action="store_const",
        const=False,
        help="you count your hands and crib yourself",
    )
    parser.add_argument(
        "-r", "--random-cut", action="store_true", help="cut the pack for you at random"
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="shorter messages")
    parser.add_argument(
        "-e", "--explain", action="store_true", help="explain the right count after a mistake"
    )
    parser.add_argument(
        "--coach",
        action="store_true",
        help="after each discard or play that costs points, name the better choice",
    )
    parser.add_argument(
        "--match", type=int, default=1, metavar="N", help="play a best-of-N match (N odd)"
    )
    parser.add_argument("--resume", action="store_true", help="continue the saved game")
    parser.add_argument(
        "--no-instructions", action="store_true", help="do not ask whether to show the rules"
    )
    parser.set_defaults(func=run)


def options_from_args(args: argparse.Namespace) -> PlayOptions:
    """The `PlayOptions` a command line asks for, checked so a bad one fails before play."""
    if args.variant is not None:
        find_rules(args.variant)  # a clear error for an unknown name
    variant = args.variant if args.variant is not None else args.length
    if args.target is not None and not 15 <= args.target <= 1000:
        raise FifteenTwoError(f"--target must be between 15 and 1000, not {args.target}")
    auto_count = args.auto_count
    if auto_count is None:
        auto_count = not args.muggins
    options = PlayOptions(
        variant=variant,
        target=args.target,
        players=parse_players(args.players) if args.players else None,
        level=args.level,
        seed=args.seed,
        muggins=args.muggins,
        auto_count=auto_count,
        random_cut=args.random_cut,
        quiet=args.quiet,
        explain=args.explain,
        coach=args.coach,
        match_games=args.match,
        instructions=False if args.no_instructions else None,
    )
    options.check()
    return options


def _stdio_is_terminal() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def run(args: argparse.Namespace) -> int:
    """Start (or resume) a game in the chosen mode."""
    options = options_from_args(args)
    history: History | None = None
    try:
        history = History()
        history.check()
    except HistoryError as exc:
        print(f"warning: {exc}; games will not be recorded", file=sys.stderr)
        history = None
    save_path = default_save_path()
    factory = SessionFactory(options, save_path=save_path, history=history)
    hook = None if history is None else game_logger(history)
    resume: Session | None = None
    offer: Session | None = None
    if args.resume:
        if not save_path.exists():
            raise FifteenTwoError(f"there is no saved game to resume (looked for {save_path})")
        resume = Session.load(save_path, on_game_over=hook)
    elif save_path.exists():
        try:
            offer = Session.load(save_path, on_game_over=hook)
        except SaveError as exc:
            print(f"warning: {exc}; starting a new game", file=sys.stderr)
    if args.plain or not _stdio_is_terminal():
        from fifteentwo.app.plain import run_plain

        return run_plain(options, factory, resume=resume, offer=offer)
    try:
        from fifteentwo.tui import run_tui
    except ImportError as exc:  # pragma: no cover - the app ships with the package
        print(f"note: the full-screen game is unavailable ({exc}); plain mode", file=sys.stderr)
        from fifteentwo.app.plain import run_plain

        return run_plain(options, factory, resume=resume, offer=offer)
    if offer is not None:
        resume = offer if _ask_resume(offer) else None
    return run_tui(factory, options=options, resume=resume)


def _ask_resume(session: Session) -> bool:
    """Before the app opens: continue the saved game? (Enter means yes.)"""
    describer = Describer(session.rules, session.names(), session.viewer)
    scores = describer.scores(session.observation().scores)
    answer = input(f"You have a saved game ({session.rules.name}: {scores}). Resume it? [Y/n] ")
    return answer.strip().lower() not in ("n", "no")


__all__ = ["options_from_args", "register", "run"]
