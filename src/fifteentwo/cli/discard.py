"""``cribbage discard``: every way to discard from a deal, valued exactly; or the crib tables."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from fifteentwo.analysis import OPPONENT_MODELS, DiscardAnalysis, analyze_discard
from fifteentwo.cards import parse_cards
from fifteentwo.cli import UsageError

RANK_LABELS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def register(subparsers: Any) -> None:
    """Add the ``discard`` subcommand."""
    parser = subparsers.add_parser(
        "discard",
        help="rank every discard of a deal by exact expected points",
        description=(
            "Value every way to lay away cards from a deal: the hand over every starter and the "
            "crib over every starter and opponent throw, exactly. With --table, print the "
            "expected crib for every two-card throw instead."
        ),
    )
    parser.add_argument("cards", nargs="*", help="the deal, e.g. 5h 5c jd qs 2h 9c")
    role = parser.add_mutually_exclusive_group()
    role.add_argument("--dealer", action="store_true", help="the crib is yours")
    role.add_argument("--pone", action="store_true", help="the crib is your opponent's")
    parser.add_argument(
        "--players",
        type=int,
        choices=(2, 3, 4),
        default=2,
        help="2 (six cards, or five in the five-card game), 3 or 4 (five cards, throw one)",
    )
    parser.add_argument(
        "--opponent",
        choices=OPPONENT_MODELS,
        default="uniform",
        help="what the other crib cards are: uniform (default) or what a sensible player throws",
    )
    parser.add_argument(
        "--score", metavar="ME,OPP", help="the score before the deal (for win probabilities)"
    )
    parser.add_argument(
        "--target", type=int, choices=(121, 61), default=121, help="game length for --score"
    )
    parser.add_argument("--table", action="store_true", help="print the crib table instead")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run)


def parse_score(text: str, target: int = 121) -> tuple[int, int]:
    """``ME,OPP`` -> two scores, each below the target."""
    parts = text.replace(" ", "").split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        me, opp = int(parts[0]), int(parts[1])
    except ValueError:
        raise UsageError(f"--score takes two numbers as ME,OPP, e.g. 90,85; got {text!r}") from None
    if not (0 <= me < target and 0 <= opp < target):
        raise UsageError(f"scores must be between 0 and {target - 1}, got {me},{opp}")
    return me, opp


def run(args: argparse.Namespace) -> int:
    """Analyse the given deal, or print the crib table."""
    console = Console()
    if args.table:
        if args.cards:
            raise UsageError("--table takes no cards")
        print_crib_table(args, console)
        return 0
    if not args.cards:
        raise UsageError(
            "give the cards of the deal, e.g. cribbage discard 5h 5c jd qs 2h 9c --dealer"
        )
    if not (args.dealer or args.pone):
        raise UsageError("say whose crib it is: --dealer (yours) or --pone (your opponent's)")
    score = parse_score(args.score, args.target) if args.score is not None else None
    analysis = analyze_discard(
        parse_cards(" ".join(args.cards)),
        dealer=args.dealer,
        players=args.players,
        opponent=args.opponent,
        score=score,
        target=args.target,
    )
    if args.json:
        print(json.dumps([option.to_json() for option in analysis]))
    else:
        print_analysis(analysis, console)
    return 0


def print_analysis(analysis: DiscardAnalysis, console: Console) -> None:
    """One row per discard, best first."""
    whose = "your crib" if analysis.dealer else "opponent's crib"
    deal = " ".join(c.unicode for c in analysis.cards)
    table = Table(
        title=f"{deal}  ({whose}, {analysis.opponent} opponent)",
        title_justify="left",
        caption=(
            f"hand over {analysis.best.hand.starters} starters; crib includes his heels "
            f"({analysis.best.crib.heels:.2f}); total = hand {'+' if analysis.dealer else '-'} crib"
        ),
        caption_justify="left",
    )
    for name in ("keep", "throw"):
        table.add_column(name)
    for name in ("hand avg", "min", "max", "crib avg", "total"):
        table.add_column(name, justify="right")
    if analysis.score is not None:
        table.add_column("win", justify="right")
    for i, option in enumerate(analysis):
        style = "bold" if i == 0 else None
        table.add_row(
            " ".join(c.unicode for c in option.keep),
            " ".join(c.unicode for c in option.throw),
            f"{option.hand.mean:.2f}",
            str(option.hand.min),
            str(option.hand.max),
            f"{option.crib.mean:.2f}",
            f"{option.total:.2f}",
            *([f"{option.win:.1%}"] if option.win is not None else []),
            style=style,
        )
    console.print(table)


def print_crib_table(args: argparse.Namespace, console: Console) -> None:
    """The 13 x 13 grid of expected crib points by thrown ranks (or all of it as JSON)."""
    from fifteentwo.analysis.crib import crib_table  # numpy and package data: only here

    entries = crib_table()
    if args.json:
        print(json.dumps([e.to_json() for e in entries]))
        return
    if args.opponent == "uniform":
        column, title = "uniform", "Expected crib for each throw, opponent's throw uniform"
    elif args.dealer or args.pone:
        column = "dealer" if args.dealer else "pone"
        title = (
            "Expected crib when you deal (the pone baulks)"
            if args.dealer
            else "Expected crib when you are pone (the dealer feeds his crib)"
        )
    else:
        raise UsageError("with --opponent sensible, say whose crib: --dealer or --pone")
    grid: dict[tuple[int, int], float] = {}
    for entry in entries:
        value = getattr(entry, column)
        if entry.suited:
            grid[(entry.high, entry.low)] = value
        else:
            grid[(entry.low, entry.high)] = value
    table = Table(
        title=title,
        title_justify="left",
        caption=(
            "Above the diagonal: different suits; below: same suit; diagonal: pairs. "
            "Crib show points only (no his heels)."
        ),
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 0),
        show_edge=False,
    )
    table.add_column("", style="bold")
    for label in RANK_LABELS:
        table.add_column(label, justify="right")
    for row in range(1, 14):
        cells = [_cell(grid[(row, col)], row == col) for col in range(1, 14)]
        table.add_row(RANK_LABELS[row - 1], *cells)
    console.print(table)


def _cell(value: float, pair: bool) -> str:
    text = f"{value:.2f}"
    if value >= 6:
        text = f"[bold green]{text}[/]"
    elif value < 4:
        text = f"[dim]{text}[/]"
    return f"[u]{text}[/u]" if pair else text


__all__ = ["parse_score", "print_analysis", "print_crib_table", "register", "run"]
