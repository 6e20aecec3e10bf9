"""``cribbage review``: a finished game, deal by deal, against the best choices."""

from __future__ import annotations

import argparse
import json
import os
import warnings
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fifteentwo.actions import Phase
from fifteentwo.analysis.review import (
    UNIT_NOTE,
    Evaluator,
    GameReview,
    for_people,
    loss_text,
    review_record,
    value_text,
)
from fifteentwo.app.coach import Coach
from fifteentwo.app.describe import safe_text
from fifteentwo.cli import UsageError
from fifteentwo.cli._paths import input_path, output_path, write_atomically
from fifteentwo.errors import FifteenTwoError, RecordError
from fifteentwo.records import check_record, pick_record

BLOCKS = " ▁▂▃▄▅▆▇█"

MAX_INDEX = 1_000_000
"""The largest ``--index`` (either way): far more games than any record file holds."""

PLOT_FORMATS = (".png", ".svg")


def register(subparsers: Any) -> None:
    """Add the ``review`` subcommand."""
    parser = subparsers.add_parser(
        "review",
        help="review a finished game: mistakes, luck, win probability",
        description=(
            "Walk a game deal by deal: each discard (and play, with the expert's pegging "
            "values) next to the best choice, the points and win probability each mistake "
            "cost, each player's luck, and a win-probability graph. GAME is a record file "
            "(JSON Lines, as written by the arena's --record or the history); without it, "
            "the last game you played."
        ),
    )
    parser.add_argument("game", nargs="?", help="a record file, or a history id")
    parser.add_argument("--index", type=int, default=-1, help="which game of a record file")
    parser.add_argument("--json", action="store_true", help="print the review as JSON")
    parser.add_argument("--plot", metavar="FILE", help="save the win-probability graph (PNG/SVG)")
    parser.add_argument("--deals", action="store_true", help="list every decision of every deal")
    parser.add_argument(
        "--no-plays", action="store_true", help="judge discards only (faster: no pegging search)"
    )
    parser.set_defaults(func=run)


def load_record(args: argparse.Namespace) -> dict[str, Any]:
    """The record to review: from a file, or (when the history module exists) the history.

    A file is read a line at a time (`pick_record`): a huge file, a FIFO or a device never
    fills memory or waits forever; what it holds is checked before anything is shown.
    """
    index = args.index
    if not -MAX_INDEX <= index <= MAX_INDEX:
        raise UsageError(f"--index must be between {-MAX_INDEX} and {MAX_INDEX}, not {index}")
    if args.game is not None and os.path.lexists(args.game):
        path = input_path(args.game, "GAME")
        record, count = pick_record(path, index)
        if count == 0:
            raise RecordError(f"{safe_text(args.game, 200)} holds no games")
        if record is None:
            raise UsageError(
                f"{safe_text(args.game, 200)} has {count} games; --index {index} is out of range"
            )
        return record
    return _record_from_history(args.game)


def _record_from_history(game: str | None) -> dict[str, Any]:
    """The newest game in the history, or the one with this id (``cribbage history``)."""
    from fifteentwo.app.history import History

    if game is not None and not game.isdigit():
        raise UsageError(f"no such record file or history id: {safe_text(game, 200)!r}")
    games = History().games()
    if not games:
        raise UsageError("no games in the history yet; give a record file to review")
    if game is None:
        record = games[0]["record"]
    else:
        found = [g for g in games if g["id"] == int(game)]
        if not found:
            raise UsageError(f"no game with id {game} in the history")
        record = found[0]["record"]
    if not isinstance(record, dict):
        raise RecordError("the history's record of that game is damaged")
    try:
        return check_record(record)
    except RecordError as exc:
        raise RecordError(f"the history's record of that game is damaged: {exc}") from None


def run(args: argparse.Namespace) -> int:
    """Review one game and print it; every file name is checked before the (long) review."""
    plot = None
    if args.plot:
        plot = output_path(args.plot, "--plot")
        if plot.suffix.lower() not in PLOT_FORMATS:
            raise UsageError(f"--plot saves .png or .svg files, not {safe_text(plot.name)!r}")
    record = load_record(args)
    review = review_record(record, evaluator=expert_evaluator(plays=not args.no_plays))
    if plot is not None:
        save_plot(review, plot)
    if args.json:
        print(json.dumps(review.to_json()))
        return 0
    console = Console(highlight=False)
    print_review(review, console, every_decision=args.deals)
    if plot is not None:
        console.print(f"graph saved to {escape(safe_text(args.plot, 200))}")
    return 0


def expert_evaluator(level: str = "expert", *, plays: bool = True) -> Evaluator:
    """Judge decisions by the coach's ranking (the expert's: the same values and the same
    rule as ``hint`` and ``--coach``); without ``plays``, discards only (faster)."""
    coach = Coach(level)
    if plays:
        return coach.evaluate
    return lambda obs: coach.evaluate(obs) if obs.phase is Phase.DISCARD else []


def print_review(review: GameReview, console: Console, *, every_decision: bool = False) -> None:
    """The summary table, the worst mistakes, and the win-probability curve."""
    # Names come from the record file: plain text, never markup or terminal control.
    names = [escape(safe_text(name)) for name in review.players]
    scores = "-".join(map(str, review.final_scores))
    winner = names[review.winner] if review.winner is not None else "nobody yet"
    rules = escape(safe_text(review.rules_name))
    console.print(f"[bold]{' vs '.join(names)}[/] ({rules}): {scores}, won by {winner}")
    table = Table(title="Per player", title_justify="left")
    for name in ("player", "decisions", "mistakes", "points lost", "win % lost", "luck"):
        table.add_column(name, justify="left" if name == "player" else "right")
    for seat in review.seats:
        table.add_row(
            escape(safe_text(seat.name)),
            str(seat.decisions),
            str(seat.mistakes),
            f"{seat.points_lost:.2f}",
            f"{100 * seat.win_lost:.1f}",
            f"{seat.luck:+.1f}",
        )
    console.print(table)
    mistakes = review.mistakes()
    if mistakes:
        worst = Table(title="Costliest decisions", title_justify="left")
        for name in ("deal", "player", "kind", "chosen", "best", "cost"):
            worst.add_column(name)
        for d in mistakes[:10]:
            worst.add_row(
                str(d.deal),
                names[d.seat],
                d.kind,
                for_people(d.chosen),
                for_people(d.best),
                loss_text(d.loss, d.is_win),
            )
        console.print(worst)
    if every_decision:
        for deal in review.deals:
            console.print(
                f"[bold]deal {deal.number}[/] (dealer {names[deal.dealer]}, "
                f"{'-'.join(map(str, deal.scores_before))} → "
                f"{'-'.join(map(str, deal.scores_after))})"
            )
            for d in deal.decisions:
                mark = "✗" if d.is_mistake else "✓"
                cost = "" if d.loss == 0 else f", cost {loss_text(d.loss, d.is_win)}"
                chosen, best = for_people(d.chosen), for_people(d.best)
                if d.kind == "count":
                    console.print(f"  {mark} {names[d.seat]} claimed {chosen} (worth {best}{cost})")
                    continue
                alts = ", ".join(
                    f"{for_people(c)} {value_text(v, d.is_win)}" for c, v in d.options[:3]
                )
                console.print(
                    f"  {mark} {names[d.seat]} {d.kind} {chosen} (best {best}{cost}; {alts})"
                )
    if review.win_curve:
        console.print(f"Win probability of {names[0]}, before each deal:")
        console.print("  " + sparkline([p.p_seat0 for p in review.win_curve]))
        console.print("  " + " ".join(f"{100 * p.p_seat0:.0f}" for p in review.win_curve))
    for note in (*review.notes, UNIT_NOTE):
        console.print(f"[dim]note: {escape(note)}[/]")


def sparkline(values: list[float]) -> str:
    """One block character per value in 0..1."""
    return "".join(BLOCKS[min(len(BLOCKS) - 1, round(v * (len(BLOCKS) - 1)))] for v in values)


def save_plot(review: GameReview, path: Path) -> None:
    """The win-probability graph as PNG or SVG (needs matplotlib: pip install fifteentwo[plot]).

    Written through a temporary file (`write_atomically`): a failure leaves no half a picture,
    and only a regular file (or nothing) is ever replaced.
    """
    if path.suffix.lower() not in PLOT_FORMATS:
        raise UsageError(f"--plot saves .png or .svg files, not {safe_text(path.name)!r}")
    if not review.win_curve:
        raise FifteenTwoError("this game has no win-probability curve to plot")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise FifteenTwoError("--plot needs matplotlib: pip install 'fifteentwo[plot]'") from None
    # Names are drawn as text, not mathtext: a "$" in a name must not be parsed. A character the
    # font lacks (from a name) is drawn as a box, without matplotlib's warning on stderr.
    names = [safe_text(name).replace("$", r"\$") for name in review.players]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig, ax = plt.subplots(figsize=(8, 3.5))
        try:
            xs = list(range(len(review.win_curve)))
            ax.plot(xs, [100 * p.p_seat0 for p in review.win_curve], marker="o")
            ax.axhline(50, color="grey", linewidth=0.5)
            ax.set_ylim(0, 100)
            labels = [p.label for p in review.win_curve]
            ax.set_xticks(xs, labels, rotation=45, ha="right", fontsize=7)
            # "You" is a name too: "chance You win" would read badly, so no verb.
            ax.set_ylabel(f"{names[0]}: chance to win (%)")
            ax.set_title(" vs ".join(names))
            fig.tight_layout()
            suffix = path.suffix.lower()[1:]
            write_atomically(path, lambda fh: fig.savefig(fh, format=suffix), "--plot")
        finally:
            plt.close(fig)
