"""``cribbage history``: your results against each computer level, from the game store.

``--games N`` lists the last N finished games with the ids ``cribbage review ID`` accepts. The
commands it suggests are written as they can be typed here (`fifteentwo.app.launch`).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fifteentwo.app.history import History, Totals
from fifteentwo.app.launch import command_hint
from fifteentwo.app.statistics import HISTORY_GAMES, compute_statistics, statistics_renderable
from fifteentwo.errors import FifteenTwoError

MAX_GAMES = 10_000
"""The most games ``--games`` lists at once."""


def register(subparsers: Any) -> None:
    """Add the ``history`` subcommand."""
    parser = subparsers.add_parser(
        "history",
        help="your results: wins, losses and skunks per level and variant",
        description=(
            "Totals over every finished game, per computer level and variant: wins, losses, "
            "skunks given and taken, average points pegged and counted per deal, best hand."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print a JSON list instead")
    parser.add_argument(
        "--games",
        type=_games,
        metavar="N",
        help=f"list the last N games (1 to {MAX_GAMES}) with their ids, instead of totals",
    )
    parser.add_argument(
        "--stats",
        action="store_true",
        help="your statistics: win rates, points per deal as dealer and pone (hand, crib, "
        "pegging), best hand, streaks and a chart of recent games (as the game's screen)",
    )
    parser.set_defaults(func=run)


def _games(text: str) -> int:
    """A count of games from 1 to `MAX_GAMES`."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--games must be a whole number, not {text[:40]!r}"
        ) from None
    if not 1 <= n <= MAX_GAMES:
        raise argparse.ArgumentTypeError(f"--games must be from 1 to {MAX_GAMES}, not {text[:40]}")
    return n


def run(args: argparse.Namespace) -> int:
    """Print the totals (or recent games) as a table or JSON."""
    history = History()
    try:
        history.check()
    except FifteenTwoError as exc:
        raise FifteenTwoError(str(exc)) from None
    for line in history.store.take_notices():
        print(line, file=sys.stderr)
    if args.stats:
        stats = compute_statistics(history.games(HISTORY_GAMES))
        if args.json:
            print(json.dumps(stats.to_json()))
        else:
            Console().print(statistics_renderable(stats))
        return 0
    if args.games is not None:
        games = history.games(args.games)
        if args.json:
            print(json.dumps([{k: v for k, v in g.items() if k != "record"} for g in games]))
        else:
            print_games(games, Console())
        return 0
    totals = history.totals()
    if args.json:
        print(json.dumps([t.to_json() for t in totals]))
    else:
        print_totals(totals, Console(), history)
    return 0


def print_totals(totals: list[Totals], console: Console, history: History) -> None:
    """One row per level and variant (narrow enough for 80 columns)."""
    if not totals:
        console.print(
            f"No games recorded yet ({escape(str(history.path))}). "
            f"Play one: {escape(command_hint('play'))}"
        )
        return
    table = Table(
        title="Your results",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_edge=False,
        collapse_padding=True,
    )
    for name, justify in (
        ("level", "left"),
        ("variant", "left"),
        ("won", "right"),
        ("lost", "right"),
        ("skunks\ngiven", "right"),
        ("skunks\ntaken", "right"),
        ("pegged\na deal", "right"),
        ("counted\na deal", "right"),
        ("best\nhand", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for t in totals:
        table.add_row(
            short_levels(t.levels),
            t.variant,
            str(t.wins),
            str(t.losses),
            str(t.skunks_given),
            str(t.skunks_taken),
            f"{t.pegged_per_deal:.2f}",
            f"{t.counted_per_deal:.2f}",
            "-" if t.best_hand is None else str(t.best_hand),
        )
    console.print(table)


def short_levels(levels: str) -> str:
    """``expert x3`` for ``expert,expert,expert``; mixed levels stay listed.

    >>> short_levels("expert,expert,expert"), short_levels("greedy"), short_levels("a,b")
    ('expert x3', 'greedy', 'a,b')
    """
    names = levels.split(",")
    if len(names) > 1 and len(set(names)) == 1:
        return f"{names[0]} x{len(names)}"
    return levels


def _local_time(stamp: object) -> str:
    """A stored ISO time as local ``YYYY-MM-DD HH:MM`` (the text itself if it is not one)."""
    try:
        return f"{datetime.fromisoformat(str(stamp)).astimezone():%Y-%m-%d %H:%M}"
    except ValueError:
        return escape(str(stamp))


def print_games(games: list[dict[str, Any]], console: Console) -> None:
    """The most recent games, newest first."""
    if not games:
        console.print("No games recorded yet.")
        return
    table = Table(title="Recent games", title_justify="left")
    for name in ("id", "date", "variant", "level", "scores", "result"):
        table.add_column(name)
    for g in games:
        won = g["won"]
        result = "-" if won is None else "won" if won else "lost"
        if g["skunk"]:
            result += (" (skunk)", " (double skunk)")[min(g["skunk"], 2) - 1]
        if g.get("takebacks"):
            result += f", {g['takebacks']} take-back{'s' if g['takebacks'] > 1 else ''}"
        scores = "-".join(map(str, g["scores"]))
        table.add_row(
            str(g["id"]),
            _local_time(g["finished_at"]),
            escape(str(g["variant"])),
            escape(str(g["levels"])),
            scores,
            result,
        )
    console.print(table)
    console.print(f"Review one with: {command_hint('review ID')}", markup=False)
