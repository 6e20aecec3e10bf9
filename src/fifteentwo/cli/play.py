"""``cribbage play``: a game against the computer, in the Textual app or in plain line mode.

Plain mode is used with ``--plain`` or whenever stdin or stdout is not a terminal, so the game
can be piped, scripted and read by a screen reader. Both modes share the options and the game
store (``fifteentwo.sqlite3`` in the data directory): the game is saved after every step, several
games can be saved at once, and every finished game goes to the history.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Final

from fifteentwo.app.launch import command_hint
from fifteentwo.app.options import SPEEDS, PlayOptions, SessionFactory, parse_players
from fifteentwo.app.saves import TERMINAL, offer_saved, open_game_store, saved_game_line
from fifteentwo.app.session import SaveError, Session
from fifteentwo.errors import FifteenTwoError
from fifteentwo.players.guard import DEFAULT_MOVE_TIME, set_default_move_time
from fifteentwo.rules import find_rules, preset_names
from fifteentwo.store import Store, StoreError

LATEST = ""
"""``--resume`` without an id: the most recently played game."""
MAX_MATCH = 99
SEED_DIGITS = 1000
"""Seeds may be any size, stored as text; this only stops a megabyte of digits."""


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
        help="level of the computer players: a registered level, module:Class or exec:CMD "
        "(a program speaking the bot protocol; default: the strongest available)",
    )
    parser.add_argument(
        "--seed", type=_seed, metavar="N", help="seed of the first game (any whole number)"
    )
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
        "--speed",
        choices=tuple(SPEEDS),
        default="normal",
        help="how fast the full-screen game shows each card and score (normal)",
    )
    parser.add_argument(
        "--match",
        type=_match,
        default=1,
        metavar="N",
        help=f"play a best-of-N match (N odd, 1 to {MAX_MATCH})",
    )
    parser.add_argument(
        "--resume",
        nargs="?",
        const=LATEST,
        default=None,
        metavar="ID",
        help="continue the most recent saved game, or the one with this id ('cribbage saved')",
    )
    parser.add_argument(
        "--no-instructions", action="store_true", help="do not ask whether to show the rules"
    )
    parser.add_argument(
        "--move-time",
        type=float,
        default=DEFAULT_MOVE_TIME,
        metavar="SECONDS",
        help="time limit per decision of a module:Class or exec: bot "
        f"(default {DEFAULT_MOVE_TIME:g})",
    )
    parser.set_defaults(func=run)


def _seed(text: str) -> int:
    """A seed of any size (kept as text by the store), but not thousands of digits."""
    digits = text.strip().removeprefix("-").removeprefix("+")
    if not digits.isdigit() or not digits.isascii():
        raise argparse.ArgumentTypeError(f"--seed must be a whole number, not {text[:40]!r}")
    if len(digits) > SEED_DIGITS:
        raise argparse.ArgumentTypeError(f"--seed has more than {SEED_DIGITS} digits")
    return int(text)


def _match(text: str) -> int:
    """An odd number of games from 1 to `MAX_MATCH`."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--match must be a whole number, not {text[:40]!r}"
        ) from None
    if not 1 <= n <= MAX_MATCH or n % 2 == 0:
        raise argparse.ArgumentTypeError(
            f"--match must be an odd number from 1 to {MAX_MATCH}, not {text[:40]}"
        )
    return n


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
        speed=args.speed,
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


def open_store_for_play() -> Store | None:
    """The game store, or None (one warning line) when it cannot be used: the game goes on
    unsaved."""
    try:
        store = open_game_store()
    except StoreError as exc:
        print(
            f"warning: {exc}; the game goes on unsaved (quit with q if you would rather not)",
            file=sys.stderr,
        )
        return None
    print_notices(store)
    problem = store.write_problem()
    if problem is not None:
        print(
            f"warning: games cannot be saved in {store.location} ({problem}); "
            "the game goes on unsaved (quit with q if you would rather not)",
            file=sys.stderr,
        )
        store.close()
        return None
    return store


def print_notices(store: Store) -> None:
    """The store's one-line messages (imports, corrupt rows set aside, a journal stored)."""
    for line in store.take_notices():
        print(line, file=sys.stderr)


def resume_game(store: Store | None, game_id: str) -> Session:
    """The session for ``--resume [ID]``: one `error:` line when there is nothing to resume,
    the game is played elsewhere, or it cannot be read (it is then set aside, never deleted)."""
    if store is None:
        raise FifteenTwoError("there is no game store to resume from (see the warning above)")
    if game_id == LATEST:
        saved = next((g for g in store.list_games() if g.meta.kind == TERMINAL), None)
        print_notices(store)
        if saved is None:
            raise FifteenTwoError(
                f"there is no saved game to resume (none in {store.location}); "
                f"'{command_hint('play')}' starts one"
            )
        game_id = saved.game_id
    try:
        session = Session.resume(store, game_id)
    except SaveError as exc:
        raise FifteenTwoError(str(exc)) from None
    finally:
        print_notices(store)
    return session


def offer_game(store: Store | None) -> Session | None:
    """The most recent saved game no other session is playing, to offer; None if none."""
    if store is None:
        return None
    try:
        return offer_saved(store, lambda line: print(f"warning: {line}", file=sys.stderr))
    finally:
        print_notices(store)


def run(args: argparse.Namespace) -> int:
    """Start (or resume) a game in the chosen mode."""
    options = options_from_args(args)
    set_default_move_time(args.move_time)  # loaded bots get it (players/guard.py)
    store = open_store_for_play()
    factory = SessionFactory(options, store=store)
    resume: Session | None = None
    offer: Session | None = None
    if args.resume is not None:
        resume = resume_game(store, args.resume)
    else:
        offer = offer_game(store)
    if args.plain or not _stdio_is_terminal():
        from fifteentwo.app.plain import run_plain

        return run_plain(options, factory, resume=resume, offer=offer)
    try:
        from fifteentwo.tui import run_tui
    except ImportError as exc:  # pragma: no cover - the app ships with the package
        print(f"note: the full-screen game is unavailable ({exc}); plain mode", file=sys.stderr)
        from fifteentwo.app.plain import run_plain

        return run_plain(options, factory, resume=resume, offer=offer)
    if resume is None and menu_wanted(args):
        return run_tui(factory, options=options, menu=True, offer=offer, store=store)
    if offer is not None:
        if _ask_resume(offer):
            resume = offer
        else:
            offer.release()
    return run_tui(factory, options=options, resume=resume, store=store)


GAME_FLAGS: Final = ("variant", "length", "target", "players", "level", "seed")
"""Options that choose the game itself: with any of them the game starts at once, without
the start screen (whose new-game form chooses these)."""


def menu_wanted(args: argparse.Namespace) -> bool:
    """Whether the full-screen game opens on its start screen: when no option chose the game
    (``cribbage play``, ``make play``). Other options (``--coach``, ``--speed``, ...) only
    change the form's first values."""
    return all(getattr(args, name, None) is None for name in GAME_FLAGS)


def _ask_resume(session: Session) -> bool:
    """Before the app opens: continue the saved game? (Enter means yes.)"""
    answer = input(f"You have a saved game ({saved_game_line(session)}). Resume it? [Y/n] ")
    return answer.strip().lower() not in ("n", "no")


__all__ = ["options_from_args", "register", "run"]
