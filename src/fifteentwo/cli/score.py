"""``cribbage score``: the itemized count of a hand or crib, or an interactive calculator."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from fifteentwo.cards import parse_card, parse_cards
from fifteentwo.errors import CardError
from fifteentwo.scoring import HandScore, score_hand


def register(subparsers: Any) -> None:
    """Add the ``score`` subcommand."""
    parser = subparsers.add_parser(
        "score",
        help="count a hand or crib with its starter",
        description=(
            "Count a hand (3 or 4 cards) or a crib with its starter, itemized. "
            "With no cards, open an interactive calculator."
        ),
    )
    parser.add_argument("cards", nargs="*", help="the hand, e.g. 5h 5c 5s jd (or 5 of hearts)")
    parser.add_argument("-s", "--starter", help="the starter (cut) card, e.g. 5d")
    parser.add_argument("--crib", action="store_true", help="count as a crib (flush needs 5)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Score the given hand, or start the prompt when none is given."""
    if not args.cards:
        if args.starter:
            raise CardError("give the hand's cards as well as --starter")
        return interactive(crib=args.crib)
    cards = parse_cards(" ".join(args.cards))
    if args.starter is None:
        if len(cards) == 5:  # the last card is the starter: `cribbage score 5h 5c 5s jd 5d`
            cards, starter = cards[:-1], cards[-1]
        else:
            raise CardError("missing starter: add --starter CARD (e.g. --starter 5d)")
    else:
        starter = parse_card(args.starter)
    result = score_hand(cards, starter, crib=args.crib)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print_score(result, Console())
    return 0


def print_score(result: HandScore, console: Console) -> None:
    """A rich table of the items, then the total and the spoken count."""
    hand = " ".join(c.unicode for c in result.hand)
    title = f"{'Crib' if result.crib else 'Hand'} {hand}  starter {result.starter.unicode}"
    table = Table(title=title, title_justify="left")
    table.add_column("combination")
    table.add_column("cards")
    table.add_column("points", justify="right")
    for item in result.items:
        table.add_row(item.kind, " ".join(c.unicode for c in item.cards), str(item.points))
    table.add_section()
    table.add_row("[bold]total[/bold]", "", f"[bold]{result.total}[/bold]")
    console.print(table)
    console.print(f"[italic]{result.say()}[/italic]")


MAX_LINE = 10_000
"""The longest line the calculator reads: a hand is a few words; /dev/zero is not a hand."""


def read_line(prompt: str) -> str:
    """One line of input, at most `MAX_LINE` characters (EOFError at the end of input).

    On a terminal this is `input` (with line editing); from a pipe or a file the line is read
    with a cap, so an endless line (``cribbage score < /dev/zero``) never fills memory.
    """
    if sys.stdin.isatty():
        return input(prompt)
    print(prompt, end="", flush=True)
    line = sys.stdin.readline(MAX_LINE + 1)
    if not line:
        raise EOFError
    if len(line) > MAX_LINE:
        raise CardError(f"an input line longer than {MAX_LINE} characters")
    return line


def interactive(*, crib: bool = False) -> int:
    """A small read-score loop: a hand then its starter, until Ctrl-D or ``q``."""
    console = Console()
    console.print("Enter a hand and its starter, the starter last (e.g. [bold]5h 5c 5s jd 5d[/]).")
    console.print("Prefix with [bold]crib[/] to count a crib. [bold]q[/] or Ctrl-D quits.")
    while True:
        try:
            line = read_line("hand> ").strip()
        except EOFError:
            print()
            return 0
        if line.lower() in ("q", "quit", "exit"):
            return 0
        if not line:
            continue
        is_crib = crib
        if line.lower().startswith("crib"):
            is_crib, line = True, line[4:]
        try:
            cards = parse_cards(line)
            if len(cards) not in (4, 5):
                raise CardError(f"give 3 or 4 cards and then the starter, got {len(cards)} cards")
            print_score(score_hand(cards[:-1], cards[-1], crib=is_crib), console)
        except CardError as exc:
            print(f"error: {exc}", file=sys.stderr)
