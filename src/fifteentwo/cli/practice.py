"""``cribbage practice``: count hands and cribs against the clock, or choose discards against
the exact analysis, with a running score (fifteentwo.app.practice)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from fifteentwo.app.plain import read_cards
from fifteentwo.app.practice import CountDrill, DiscardDrill, Tally
from fifteentwo.cards import Card
from fifteentwo.cli.score import read_line
from fifteentwo.errors import CardError, FifteenTwoError

QUIT = frozenset({"q", "quit", "exit"})
_T = TypeVar("_T")


def register(subparsers: Any) -> None:
    """Add the ``practice`` subcommand."""
    parser = subparsers.add_parser(
        "practice",
        help="drills: count hands against the clock, or choose discards",
        description=(
            "Count hands and cribs as they are dealt (each answer timed, with the itemized "
            "count after it), or, with --discard, choose which two cards to lay away and see "
            "how your choice compares with the exact analysis. A running score is kept; "
            "q or the end of input stops with a summary."
        ),
    )
    parser.add_argument(
        "--discard", action="store_true", help="the discard drill instead of counting"
    )
    parser.add_argument(
        "--rounds", type=int, default=10, metavar="N", help="how many to ask (10; 0: no end)"
    )
    parser.add_argument(
        "--time",
        type=float,
        default=None,
        metavar="SECONDS",
        help="counting: an answer slower than this counts as wrong",
    )
    parser.add_argument("--no-cribs", action="store_true", help="counting: hands only")
    parser.add_argument("--seed", type=int, default=None, help="deal the same drill again")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.rounds < 0 or args.rounds > 10_000:
        raise FifteenTwoError(f"--rounds must be between 0 and 10000, not {args.rounds}")
    if args.time is not None and not 1 <= args.time <= 600:
        raise FifteenTwoError(f"--time must be between 1 and 600 seconds, not {args.time}")
    tally = _discards(args) if args.discard else _counts(args)
    print(f"Practice over: {tally.line()}.")
    return 0


def _ask(prompt: str) -> tuple[str, float] | None:
    """An answer and how long it took; None to stop (q, or the end of input)."""
    started = time.monotonic()
    try:
        answer = read_line(prompt).strip()
    except EOFError:
        print()
        return None
    seconds = time.monotonic() - started
    if not sys.stdin.isatty():
        print(answer)  # (a transcript reads like a session at the keyboard)
    if answer.lower() in QUIT:
        return None
    return answer, seconds


def _ask_until(prompt: str, read: Callable[[str], _T]) -> tuple[_T, float] | None:
    """Ask until ``read`` accepts the answer (it raises `ValueError` with what to type);
    the answer and how long the player took; None to stop."""
    while True:
        got = _ask(prompt)
        if got is None:
            return None
        text, seconds = got
        try:
            return read(text), seconds
        except ValueError as exc:
            print(f"{str(exc)[:1].upper()}{str(exc)[1:]}.")


def _points(text: str) -> int:
    if not (len(text) <= 2 and text.isdecimal() and int(text) <= 29):
        raise ValueError("type the number of points, 0 to 29 (19 also means nothing)")
    return int(text)


def _two_cards(text: str, *, hand: tuple[Card, ...]) -> tuple[Card, ...]:
    try:
        throw = tuple(read_cards(text, hand, ascii_only=False))  # (the drill shows 10♥)
    except CardError as exc:
        raise ValueError(str(exc)) from None
    if len(throw) != 2:
        raise ValueError(f"lay away two cards, not {len(throw)}")
    return throw


def _rounds(args: argparse.Namespace) -> range:
    return range(args.rounds) if args.rounds else range(10**9)


def _counts(args: argparse.Namespace) -> Tally:
    drill = CountDrill(args.seed, cribs=not args.no_cribs)
    print("Count each hand with its starter (19 means nothing). q stops.")
    for _ in _rounds(args):
        task = drill.next()
        print(task.question())
        got = _ask_until("Points: ", _points)
        if got is None:
            return drill.tally
        claimed, seconds = got
        right = drill.answer(task, claimed, seconds, args.time)
        score = task.score
        if right:
            verdict = "Right"
        elif (0 if claimed == 19 else claimed) == score.total:
            verdict = f"Right, but too slow (the limit is {args.time:g} s)"
        else:
            verdict = f"No: {score.total}"
        said = score.say()
        print(f"{verdict}. {said[:1].upper()}{said[1:]}. ({seconds:.1f} s)")
        if not right:
            for item in score.items:
                cards = " ".join(c.unicode for c in item.cards)
                print(f"  {item.kind} {cards}: {item.points}")
        print(f"Score: {drill.tally.line()}.")
    return drill.tally


def _discards(args: argparse.Namespace) -> Tally:
    drill = DiscardDrill(args.seed)
    print("Choose two cards to lay away: cards (5h jd) or positions (1 4). q stops.")
    for _ in _rounds(args):
        task = drill.next()
        print(task.question())
        got = _ask_until("Lay away: ", partial(_two_cards, hand=task.cards))
        if got is None:
            return drill.tally
        throw, seconds = got
        lost = drill.answer(task, throw, seconds)
        options = sorted(task.analysis, key=lambda o: -o.total)
        yours = options[0].total - lost
        rank = 1 + sum(1 for o in options if o.total > yours + 1e-9)
        if lost <= 1e-9:
            print(f"Best. ({seconds:.1f} s)")
        else:
            print(f"{lost:.2f} points below the best (yours is number {rank} of {len(options)}).")
        for o in options[:3]:
            sign = "+" if task.dealer else "-"
            throw_cards = " ".join(c.unicode for c in o.throw)
            print(
                f"  throw {throw_cards}: {o.total:+.2f} points "
                f"(hand {o.hand.mean:.2f} {sign} crib {o.crib.mean:.2f})"
            )
        print(f"Score: {drill.tally.line()}.")
    return drill.tally
