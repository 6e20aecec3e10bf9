"""``cribbage stats``: the exact distribution of show scores over every hand and starter."""

from __future__ import annotations

import argparse
import json
import time
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from fifteentwo.app.statistics import bar

if TYPE_CHECKING:
    from fifteentwo.distribution import Distribution

BAR_WIDTH = 40
"""Characters of the longest bar."""


def register(subparsers: Any) -> None:
    """Add the ``stats`` subcommand."""
    parser = subparsers.add_parser(
        "stats",
        help="exact distribution of show scores",
        description=(
            "Score every 4-card hand with every starter (12,994,800 cases, none sampled) and "
            "show how often each score 0..29 occurs, the mean, and the scores no hand can make."
        ),
    )
    parser.add_argument(
        "--crib", action="store_true", help="count as cribs (a flush needs the starter too)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a chart")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Compute the distribution and print it as a chart or JSON."""
    # Imported here so that numpy is loaded only by the commands that need it.
    from fifteentwo.distribution import score_distribution

    start = time.perf_counter()
    dist = score_distribution(crib=args.crib)
    elapsed = time.perf_counter() - start
    if args.json:
        print(json.dumps(dist.to_json()))
    else:
        print_distribution(dist, Console(), elapsed)
    return 0


def print_distribution(dist: Distribution, console: Console, elapsed: float | None = None) -> None:
    """A table of counts and shares with a bar chart, then the summary figures."""
    what = "crib" if dist.crib else "hand"
    title = f"Show scores of a {dist.hand_size}-card {what} with the starter"
    table = Table(title=title, title_justify="left")
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("cases", justify="right", no_wrap=True)
    table.add_column("share", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    width = max(8, min(BAR_WIDTH, console.width - 40))  # the numbers take about 40 columns
    most = max(dist.counts)
    for score, n in enumerate(dist.counts):
        if n:
            share = f"{100 * n / dist.cases:.3f}%"
            table.add_row(str(score), f"{n:,}", share, bar(n, most, width))
        else:
            table.add_row(f"[dim]{score}[/]", "[dim]0[/]", "", "[dim]impossible[/]")
    console.print(table)
    timing = f" in {elapsed:.2f} s" if elapsed is not None else ""
    console.print(f"All {dist.cases:,} cases scored one by one{timing}.")
    console.print(f"mean {dist.mean:.4f} (exactly {dist.mean_exact})")
    console.print(f'zero ("nineteen") {dist.counts[0]:,} = {100 * dist.zero_share:.2f}%')
    console.print(f"impossible scores: {', '.join(map(str, dist.impossible))}")
