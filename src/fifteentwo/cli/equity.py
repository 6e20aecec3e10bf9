"""``cribbage equity``: the win probability of a position, or ``--build`` the tables."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress

from fifteentwo.analysis.equity import DATA_FILE, TARGETS, load_table, table_in_use
from fifteentwo.cli import UsageError
from fifteentwo.cluster import add_cluster_arguments
from fifteentwo.tablefiles import TableFileError, check_table_path, user_table_path


def register(subparsers: Any) -> None:
    """Add the ``equity`` subcommand."""
    parser = subparsers.add_parser(
        "equity",
        help="win probability of a position (two players)",
        description=(
            "Win probability before the next deal, from a table solved over self-played deals "
            "(timing of pegging and the show included). Example: cribbage equity 90 100 "
            "--dealer me"
        ),
    )
    parser.add_argument("me", type=int, nargs="?", help="my score")
    parser.add_argument("opponent", type=int, nargs="?", help="the opponent's score")
    parser.add_argument(
        "--dealer",
        choices=("me", "opponent", "opp"),
        default="me",
        help="who deals the next hand (default: me)",
    )
    parser.add_argument("--target", type=int, choices=TARGETS, default=121, help="game length")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--build", action="store_true", help="rebuild the tables by self-play")
    parser.add_argument("--deals", type=int, default=20000, help="deals to sample for --build")
    parser.add_argument(
        "--player", default="expert", help="computer level for --build (default expert)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for --build")
    parser.add_argument(
        "--out",
        type=Path,
        help="file --build writes (default: tables/equity.npz in the data dir, which is then "
        "used instead of the shipped table; the shipped table is never overwritten)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=0,
        help="processes for --build (default: all cores; the result does not depend on it)",
    )
    add_cluster_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print a position's equity, or rebuild the tables."""
    console = Console()
    if args.build:
        if not 100 <= args.deals <= 100_000_000:
            raise UsageError("--deals must be between 100 and 100,000,000")
        if not 0 <= args.jobs <= 256:
            raise UsageError("--jobs must be between 0 (all cores) and 256")
        from fifteentwo.selfplay.equity import build_tables  # (self-play: the players load)

        try:  # checked before any deal is played
            out = check_table_path(args.out or user_table_path(DATA_FILE))
        except TableFileError as exc:
            raise UsageError(str(exc)) from None
        with Progress(console=console) as progress:
            task = progress.add_task("self-play deals", total=args.deals)
            tables = build_tables(
                args.deals,
                player=args.player,
                seed=args.seed,
                path=out,
                progress=lambda n: progress.advance(task, n),
                jobs=args.jobs,
                cluster=args.cluster,
                checkpoint=args.checkpoint,
            )
        t = tables[121]
        console.print(
            f"built from {t.deals} deals by {t.source}: first dealer wins "
            f"{t.win_probability(0, 0, True):.1%} of games to 121, "
            f"{tables[61].win_probability(0, 0, True):.1%} to 61",
            highlight=False,
        )
        console.print(f"wrote {out}", highlight=False, markup=False)
        if args.out is None:
            console.print(
                "the equity commands and the players use it from now on "
                "(delete it to go back to the shipped table)",
                highlight=False,
            )
        return 0
    if args.me is None or args.opponent is None:
        raise UsageError("give both scores, e.g. cribbage equity 90 100 --dealer me")
    for label, score in (("my score", args.me), ("the opponent's score", args.opponent)):
        if not 0 <= score < args.target:
            raise UsageError(f"{label} must be between 0 and {args.target - 1}, not {score}")
    table = load_table(args.target)
    my_deal = args.dealer == "me"
    win = table.win_probability(args.me, args.opponent, my_deal)
    points = table.expected_points(args.me, args.opponent, my_deal)
    source = table_in_use()
    if args.json:
        print(
            json.dumps(
                {
                    "me": args.me,
                    "opponent": args.opponent,
                    "my_deal": my_deal,
                    "target": args.target,
                    "win": win,
                    "expected_game_points": points,
                    "table": {
                        "path": str(source.path),
                        "shipped": source.shipped,
                        "deals": table.deals,
                    },
                }
            )
        )
        return 0
    who = "you deal" if my_deal else "the opponent deals"
    console.print(
        f"{args.me}-{args.opponent} to {args.target}, {who} next: "
        f"[bold]{win:.1%}[/bold] to win; expected game points {points:+.2f} (skunks count 2, 4)"
    )
    console.print(
        f"table {source.describe()}; {table.deals} deals",
        highlight=False,
        markup=False,
        style="dim",
    )
    return 0
