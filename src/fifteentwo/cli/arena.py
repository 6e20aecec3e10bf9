"""``cribbage arena``: computer-vs-computer matches with confidence intervals."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from fifteentwo.arena import MAX_GAMES, MAX_JOBS, Interval, MatchResult, run_match
from fifteentwo.cli import UsageError
from fifteentwo.cli._paths import output_path
from fifteentwo.cluster import add_cluster_arguments
from fifteentwo.players.guard import DEFAULT_MOVE_TIME, check_move_time
from fifteentwo.rules import find_rules


def register(subparsers: Any) -> None:
    """Add the ``arena`` subcommand."""
    parser = subparsers.add_parser(
        "arena",
        help="play computer players against each other and compare them",
        description=(
            "Play a match between two computer players (levels such as novice, standard, "
            "expert, or module:Class for your own bot) and report wins with a 95% confidence "
            "interval, points, skunks, game points and the first dealer's win rate. "
            "Example: cribbage arena --a expert --b standard --games 2000 --duplicate --jobs 2"
        ),
    )
    parser.add_argument("--a", default="expert", help="player A: level or module:Class")
    parser.add_argument("--b", default="standard", help="player B: level or module:Class")
    parser.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    parser.add_argument("--variant", default="standard", help="rules preset (default standard)")
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="play every deal sequence with the seats swapped and report paired differences",
    )
    parser.add_argument("--jobs", type=int, default=0, help="processes to use (default: all cores)")
    parser.add_argument("--seed", type=int, default=0, help="match seed (default 0)")
    parser.add_argument("--record", metavar="FILE", help="write game records (JSON Lines)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--move-time",
        type=float,
        default=DEFAULT_MOVE_TIME,
        metavar="SECONDS",
        help="time limit per decision of a module:Class or exec: bot "
        f"(default {DEFAULT_MOVE_TIME:g}); a bot that misbehaves stops the match with one line",
    )
    add_cluster_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Play the match with a progress bar, then print the summary."""
    if not 1 <= args.games <= MAX_GAMES:
        raise UsageError(f"--games must be between 1 and {MAX_GAMES:,}")
    if not 0 <= args.jobs <= MAX_JOBS:
        raise UsageError(f"--jobs must be between 0 (all cores) and {MAX_JOBS}")
    if not -(2**63) <= args.seed < 2**64:
        raise UsageError("--seed must be an integer of at most 64 bits")
    check_move_time(args.move_time)
    if args.record is not None:  # checked before the match, not after it (docs/reliability.md)
        output_path(args.record, "--record")
    rules = find_rules(args.variant)
    jobs = args.jobs or os.cpu_count() or 1
    jobs = min(jobs, args.games)
    console = Console(stderr=args.json)
    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=args.json) as progress:
        task = progress.add_task(f"{args.a} v {args.b}", total=args.games)
        result = run_match(
            args.a,
            args.b,
            rules,
            args.games,
            seed=args.seed,
            duplicate=args.duplicate,
            jobs=jobs,
            record=args.record is not None,
            progress=lambda n: progress.advance(task, n),
            move_time=args.move_time,
            cluster=args.cluster,
            checkpoint=args.checkpoint,
        )
    if args.record is not None:
        from fifteentwo.records import write_records

        write_records(args.record, result.records())
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print_result(result, console)
    return 0


def _ci(i: Interval, percent: bool = False, digits: int = 2) -> str:
    if percent:
        return f"{i.value:.1%} [{i.low:.1%}, {i.high:.1%}]"
    return f"{i.value:+.{digits}f} [{i.low:+.{digits}f}, {i.high:+.{digits}f}]"


def _times(t: dict[str, float | int]) -> str:
    if not t.get("decisions"):
        return "-"
    return f"{t['median']:.2f} / {t['p99']:.1f}"


def print_result(r: MatchResult, console: Console) -> None:
    """A table of the match's figures."""
    mode = f", duplicate ({r.sets} sets)" if r.duplicate else ""
    table = Table(
        title=f"A = {r.a} v B = {r.b}: {r.games} games of {r.variant}{mode}",
        title_justify="left",
    )
    table.add_column("", no_wrap=True)
    table.add_column("A", justify="right")
    table.add_column("B", justify="right")
    table.add_row("wins", str(r.a_wins), str(r.b_wins))
    table.add_row("points per game", f"{r.points_per_game[0]:.1f}", f"{r.points_per_game[1]:.1f}")
    table.add_row("game points", str(r.game_points[0]), str(r.game_points[1]))
    table.add_row(
        "skunks (double)",
        f"{r.skunks['a']} ({r.skunks['a_double']})",
        f"{r.skunks['b']} ({r.skunks['b_double']})",
    )
    ta, tb = r.decision_ms["a"], r.decision_ms["b"]
    table.add_row("decision ms, median / p99", _times(ta), _times(tb))
    console.print(table)
    console.print(f"A wins {_ci(r.win_rate, percent=True)} (95% CI)")
    console.print(f"score margin A - B per game {_ci(r.margin)}")
    if r.paired is not None:
        console.print(
            f"paired, per set of {r.games // max(r.sets, 1)} games: wins A - B "
            f"{_ci(r.paired['wins'])}, score margin {_ci(r.paired['margin'])}, "
            f"game points {_ci(r.paired['game_points'])}"
        )
    console.print(f"first dealer wins {_ci(r.first_dealer_rate, percent=True)}")
    rate = r.games / r.seconds if r.seconds else 0.0
    console.print(
        f"{r.deals_per_game:.1f} deals per game; {r.seconds:.1f} s with {r.jobs} "
        f"process(es), {rate:.1f} games/s"
    )
