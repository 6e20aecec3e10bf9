"""``cribbage bot-check CMD``: the conformance kit for protocol bots.

It starts the program, reads the variants its ``hello`` claims, and plays it through each of
them against the standard level, on fixed seeds, until every edge case of the variant has come
up in the bot's own decisions or a cap is reached: a go with cards still held, a card that makes
31, the last card, the five-card game's optional go, four-player partners, a game that ends in
the middle of the play. Anything the bot gets wrong (a crash, garbage, an illegal action, a
timeout, a bad handshake) is reported with the variant and the seed that shows it; the exit
status is 1 when anything failed.

A bot that misses its time limit is killed and reported, and the rest of that variant is
skipped: every later game would only wait out another whole limit. So a hang costs one time
limit per variant, and the other variants are still checked.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table

from fifteentwo.actions import (
    GO,
    Action,
    CardPlayed,
    Event,
    GameOver,
    Phase,
    Play,
    Reason,
    Scored,
)
from fifteentwo.cli import UsageError
from fifteentwo.game import Game
from fifteentwo.observation import Observation
from fifteentwo.players import load_player, play_game
from fifteentwo.players.guard import DEFAULT_MOVE_TIME, BotError, BotTimeout, check_move_time
from fifteentwo.players.protocol import ProtocolPlayer
from fifteentwo.rules import find_rules, preset_names

MAX_GAMES = 30
"""Games per variant at most while looking for edge cases not yet seen."""

GO_HOLDING = "go with cards still held"
THIRTY_ONE = "31"
LAST_CARD = "the last card"
OPTIONAL_GO = "optional go (five-card)"
PARTNERS = "four-player partners"
ENDS_IN_PLAY = "game ends in the play"


def edge_cases(rules_name: str) -> list[str]:
    """The edge cases a variant can show."""
    rules = find_rules(rules_name)
    cases = [GO_HOLDING, THIRTY_ONE, LAST_CARD, ENDS_IN_PLAY]
    if rules.optional_play_after_go:
        cases.append(OPTIONAL_GO)
    if rules.partnerships:
        cases.append(PARTNERS)
    return cases


def register(subparsers: Any) -> None:
    """Add the ``bot-check`` subcommand."""
    parser = subparsers.add_parser(
        "bot-check",
        help="check that a protocol bot plays every variant it claims correctly",
        description=(
            "Play a bot program (docs/protocol.md) through every variant its hello claims, "
            "with the edge cases of each, and report what it got wrong. "
            "Example: cribbage bot-check './mybot --level 3'"
        ),
    )
    parser.add_argument("command", metavar="CMD", help="the bot's command line")
    parser.add_argument(
        "--games", type=int, default=4, help="games per variant at least (default 4)"
    )
    parser.add_argument(
        "--move-time",
        type=float,
        default=DEFAULT_MOVE_TIME,
        metavar="SECONDS",
        help=f"time limit per decision (default {DEFAULT_MOVE_TIME:g})",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the report as JSON instead of a table"
    )
    parser.set_defaults(func=run)


@dataclass
class VariantReport:
    """What playing one variant showed."""

    variant: str
    games: int = 0
    seen: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    timed_out: bool = False
    """The bot missed its time limit, and the rest of the variant was skipped."""


class _Watched:
    """Stands in the bot's seat, noting which edge cases its decisions met."""

    def __init__(self, player: ProtocolPlayer, seen: dict[str, int]) -> None:
        self.player = player
        self.seen = seen
        self.rng = player.rng
        self.wants_events = True

    def choose(self, obs: Observation) -> Action:
        action = self.player.choose(obs)
        if obs.phase is Phase.PLAY:
            others_said_go = any(go for seat, go in enumerate(obs.passed) if seat != obs.seat)
            if others_said_go and obs.hand:
                self._saw(GO_HOLDING)  # to play on after a go, cards still in hand
            if GO in obs.legal and any(isinstance(a, Play) for a in obs.legal):
                self._saw(OPTIONAL_GO)  # may play on or decline (five-card rules)
            if obs.rules.partnerships:
                self._saw(PARTNERS)
        return action

    def events(self, events: list[Event]) -> None:
        self.player.events(events)

    def _saw(self, case: str) -> None:
        self.seen[case] = self.seen.get(case, 0) + 1


def _note_table_events(game: Game, seen: dict[str, int]) -> None:
    for event in game.events:
        if isinstance(event, CardPlayed) and event.count == 31:
            seen[THIRTY_ONE] = seen.get(THIRTY_ONE, 0) + 1
        elif isinstance(event, Scored) and event.reason is Reason.LAST_CARD:
            seen[LAST_CARD] = seen.get(LAST_CARD, 0) + 1
        elif isinstance(event, GameOver) and _ended_in_play(game):
            seen[ENDS_IN_PLAY] = seen.get(ENDS_IN_PLAY, 0) + 1


def _ended_in_play(game: Game) -> bool:
    """Whether the game's last points came in the play (pegging out), not in the show."""
    for event in reversed(game.events):
        if isinstance(event, Scored):
            return event.reason in (Reason.PLAY, Reason.GO, Reason.LAST_CARD)
    return False


def play_variant(command: str, variant: str, games: int, move_time: float) -> VariantReport:
    """Play ``variant`` until its edge cases are seen (at least ``games`` games)."""
    report = VariantReport(variant)
    rules = find_rules(variant)
    wanted = edge_cases(variant)
    bot_seats = (0, 2) if rules.partnerships else (0,)
    for seed in range(MAX_GAMES):
        if seed >= games and all(report.seen.get(case) for case in wanted):
            break
        bots: list[ProtocolPlayer] = []
        try:
            seats: list[Any] = []
            for seat in range(rules.players):
                if seat in bot_seats:
                    bot = ProtocolPlayer(command, seed * 10 + seat, move_time=move_time)
                    bots.append(bot)
                    seats.append(_Watched(bot, report.seen))
                else:
                    seats.append(load_player("standard", seed * 10 + seat))
            game = play_game(rules, seats, seed)  # tells the bots their seats' events
        except BotTimeout as exc:  # asked again, it would cost another whole time limit
            report.failures.append(
                f"seed {seed}: {exc} (the rest of {variant} is skipped: "
                "a bot that misses its time limit is not waited for again)"
            )
            report.games += 1
            report.timed_out = True
            break
        except BotError as exc:
            report.failures.append(f"seed {seed}: {exc}")
            report.games += 1
            if len(report.failures) >= 3:
                break
            continue
        finally:
            for bot in bots:
                bot.close()
        report.games += 1
        _note_table_events(game, report.seen)
    return report


def run(args: argparse.Namespace) -> int:
    """Check the bot and print the report; exit 1 when anything failed."""
    if not 1 <= args.games <= MAX_GAMES:
        raise UsageError(f"--games must be between 1 and {MAX_GAMES}")
    move_time = check_move_time(args.move_time)
    result = check_bot(args.command, args.games, move_time)
    if getattr(args, "json", False):
        print(json.dumps(result))
    else:
        _print_report(result)
    return 0 if result["passed"] else 1


def check_bot(command: str, games: int, move_time: float) -> dict[str, Any]:
    """The whole check as data: the bot's hello, each variant's report, every problem.
    ``command`` may be given as the player spec ``exec:CMD`` too (as `cribbage play` takes it)."""
    command = command.removeprefix("exec:")
    try:
        probe = ProtocolPlayer(command, 0, move_time=move_time)
    except BotError as exc:
        return {"bot": None, "variants": [], "problems": [f"handshake: {exc}"], "passed": False}
    info = probe.info
    probe.close()
    claimed = info.get("variants")
    problems: list[str] = []
    if not isinstance(claimed, list) or not claimed or not all(isinstance(v, str) for v in claimed):
        problems.append("its hello names no variants (a list of names such as 'standard')")
        claimed = []
    known = [v for v in claimed if v in preset_names()]
    problems += [f"claims an unknown variant {v!r}" for v in claimed if v not in preset_names()]
    variants: list[dict[str, Any]] = []
    for variant in known:
        report = play_variant(command, variant, games, move_time)
        wanted = edge_cases(variant)
        variants.append(
            {
                "variant": variant,
                "games": report.games,
                "seen": {c: report.seen[c] for c in wanted if report.seen.get(c)},
                "not_reached": [c for c in wanted if not report.seen.get(c)],
                "failures": list(report.failures),
                "timed_out": report.timed_out,
            }
        )
        problems += [f"{variant}, {failure}" for failure in report.failures]
    bot = {
        "name": info.get("name"),
        "version": info.get("version"),
        "author": info.get("author"),
        "variants": claimed,
    }
    return {"bot": bot, "variants": variants, "problems": problems, "passed": not problems}


def _print_report(result: dict[str, Any]) -> None:
    console = Console(highlight=False)
    bot = result["bot"]
    if bot is None:
        for problem in result["problems"]:
            console.print(f"FAIL {problem}", markup=False, soft_wrap=True)
        return
    console.print(
        f"{' '.join(filter(None, (bot['name'], bot['version'])))} by {bot['author'] or '?'}: "
        f"claims {', '.join(bot['variants']) or 'nothing'}",
        markup=False,
    )
    table = Table("variant", "games", "edge cases seen", "failures", title_justify="left")
    for report in result["variants"]:
        seen = ", ".join(f"{case} x{count}" for case, count in report["seen"].items())
        if report["not_reached"] and not report["failures"]:
            seen += f" (not reached: {', '.join(report['not_reached'])})"
        table.add_row(
            report["variant"], str(report["games"]), seen or "-", str(len(report["failures"]))
        )
    console.print(table)
    for problem in result["problems"]:  # one line each, however wide the terminal
        console.print(f"FAIL {problem}", markup=False, soft_wrap=True)
    if result["passed"]:
        console.print("PASS: no mistakes found")
