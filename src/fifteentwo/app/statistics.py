"""Your statistics from the history: results per level and variant, points per deal by role,
best hand, streaks, and the recent games for a chart; and how they read (`statistics_renderable`,
the terminal app's statistics screen and ``cribbage history --stats``).

Read from the finished games the store keeps (each with the engine's record); nothing here
scores a hand: the counts and points are the ones the records hold. The terminal app's
statistics screen, ``cribbage history`` and the web's history page all use it, so they agree.

>>> stats = compute_statistics([])
>>> stats.games, stats.streaks.longest_wins
(0, 0)
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from fifteentwo.store.summary import PEGGING_REASONS

__all__ = [
    "HISTORY_GAMES",
    "ROLES",
    "LevelResults",
    "RolePoints",
    "Statistics",
    "Streaks",
    "bar",
    "compute_statistics",
    "margin_chart",
    "plain_text",
    "statistics_renderable",
]

ROLES: Final = ("dealer", "pone")
"""Dealer: the crib is yours. Pone: any other seat (the crib is someone else's)."""
RECENT: Final = 30
"""Games in the chart of recent results."""
HISTORY_GAMES: Final = 5000
"""The most recent games the statistics read (enough for any average or streak to settle)."""
_EIGHTHS: Final = " ▏▎▍▌▋▊▉"


def bar(n: float, most: float, width: int) -> str:
    """A horizontal bar of ``n / most`` of ``width`` cells, in eighths; a sliver for any n > 0.

    >>> bar(8, 8, 2), bar(1, 16, 2), bar(0, 8, 2), bar(1, 10**6, 2)
    ('██', '▏', '', '▏')
    """
    if n <= 0 or most <= 0:
        return ""
    eighths = max(1, round(n * width * 8 / most))
    full, part = divmod(eighths, 8)
    return "█" * full + _EIGHTHS[part].strip()


@dataclass(frozen=True, slots=True)
class LevelResults:
    """Games against one opponent level in one variant."""

    levels: str
    variant: str
    games: int
    wins: int
    losses: int
    skunks_given: int
    skunks_taken: int
    best_hand: int | None

    @property
    def win_rate(self) -> float | None:
        decided = self.wins + self.losses
        return self.wins / decided if decided else None


@dataclass(frozen=True, slots=True)
class RolePoints:
    """Your average points per deal in one role: from the hand, the crib and the play."""

    role: str
    deals: int
    hand: float
    crib: float
    pegging: float

    @property
    def total(self) -> float:
        return self.hand + self.crib + self.pegging


@dataclass(frozen=True, slots=True)
class Streaks:
    """Runs of wins and losses, oldest game first (a game without a winner side breaks none)."""

    current: int
    """Positive: that many wins in a row now; negative: losses; 0: no games."""
    longest_wins: int
    longest_losses: int


@dataclass(frozen=True, slots=True)
class Statistics:
    """Everything the statistics screen shows."""

    games: int
    wins: int
    losses: int
    by_level: tuple[LevelResults, ...]
    roles: tuple[RolePoints, ...]
    best_hand: int | None
    streaks: Streaks
    recent: tuple[int, ...] = field(default=())
    """Your margin in the most recent games, oldest first (your score minus the best other)."""
    takebacks: int = 0
    """Games in which you took a decision back."""

    @property
    def win_rate(self) -> float | None:
        decided = self.wins + self.losses
        return self.wins / decided if decided else None

    def role(self, name: str) -> RolePoints:
        return next(r for r in self.roles if r.role == name)

    def to_json(self) -> dict[str, Any]:
        """A plain dict (``cribbage history --json`` and the web's history page)."""
        return {
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "win_rate": _round(self.win_rate, 3),
            "best_hand": self.best_hand,
            "takebacks": self.takebacks,
            "streaks": {
                "current": self.streaks.current,
                "longest_wins": self.streaks.longest_wins,
                "longest_losses": self.streaks.longest_losses,
            },
            "by_level": [
                {
                    "levels": r.levels,
                    "variant": r.variant,
                    "games": r.games,
                    "wins": r.wins,
                    "losses": r.losses,
                    "win_rate": _round(r.win_rate, 3),
                    "skunks_given": r.skunks_given,
                    "skunks_taken": r.skunks_taken,
                    "best_hand": r.best_hand,
                }
                for r in self.by_level
            ],
            "roles": {
                r.role: {
                    "deals": r.deals,
                    "hand": round(r.hand, 2),
                    "crib": round(r.crib, 2),
                    "pegging": round(r.pegging, 2),
                    "total": round(r.total, 2),
                }
                for r in self.roles
            },
            "recent": list(self.recent),
        }


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def compute_statistics(rows: Iterable[dict[str, Any]]) -> Statistics:
    """Statistics over finished games as the store lists them (any order; rows without a
    person at the table are left out)."""
    played = sorted(
        (r for r in rows if r.get("human_seat") is not None),
        key=lambda r: (str(r.get("finished_at", "")), int(r.get("id") or 0)),
    )
    return Statistics(
        games=len(played),
        wins=sum(1 for r in played if r.get("won") is True),
        losses=sum(1 for r in played if r.get("won") is False),
        by_level=_by_level(played),
        roles=_roles(played),
        best_hand=max(
            (int(r["best_hand"]) for r in played if r.get("best_hand") is not None), default=None
        ),
        streaks=_streaks([r.get("won") for r in played]),
        recent=tuple(_margin(r) for r in played[-RECENT:]),
        takebacks=sum(1 for r in played if int(r.get("takebacks") or 0) > 0),
    )


def _by_level(rows: Sequence[dict[str, Any]]) -> tuple[LevelResults, ...]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((str(row.get("levels")), str(row.get("variant"))), []).append(row)
    out = []
    for (levels, variant), games in sorted(groups.items()):
        skunks_given = skunks_taken = 0
        for g in games:
            if int(g.get("skunk") or 0):
                if g.get("won") is True:
                    skunks_given += 1
                elif g.get("won") is False:
                    skunks_taken += 1
        out.append(
            LevelResults(
                levels=levels,
                variant=variant,
                games=len(games),
                wins=sum(1 for g in games if g.get("won") is True),
                losses=sum(1 for g in games if g.get("won") is False),
                skunks_given=skunks_given,
                skunks_taken=skunks_taken,
                best_hand=max(
                    (int(g["best_hand"]) for g in games if g.get("best_hand") is not None),
                    default=None,
                ),
            )
        )
    return tuple(out)


def _roles(rows: Sequence[dict[str, Any]]) -> tuple[RolePoints, ...]:
    """Points per deal as dealer and as pone, from each game's own deals in its record (a
    match's record holds its earlier games too: only this game's deals count)."""
    sums = {role: [0, 0, 0, 0] for role in ROLES}  # deals, hand, crib, pegging
    for row in rows:
        me, record = row.get("human_seat"), row.get("record")
        if not isinstance(record, dict):
            continue
        number = row.get("game_number")
        for deal in record.get("deals", ()):
            if number is not None and deal.get("game", number) != number:
                continue
            s = sums["dealer" if deal.get("dealer") == me else "pone"]
            s[0] += 1
            for count in deal.get("counts", ()):
                if count.get("seat") == me:
                    s[2 if count.get("crib") else 1] += int(count.get("claimed") or 0)
            s[3] += sum(
                int(p.get("points", 0))
                for p in deal.get("points", ())
                if p.get("seat") == me and p.get("reason") in PEGGING_REASONS
            )
    out = []
    for role in ROLES:
        deals, hand, crib, pegging = sums[role]
        n = deals or 1
        out.append(RolePoints(role, deals, hand / n, crib / n, pegging / n))
    return tuple(out)


def _streaks(results: Sequence[bool | None]) -> Streaks:
    """The streak now and the longest of each kind.

    >>> _streaks([True, True, False, True, True, True])
    Streaks(current=3, longest_wins=3, longest_losses=1)
    """
    run = longest_wins = longest_losses = 0
    for won in results:
        if won is None:
            run = 0
            continue
        if won:
            run = run + 1 if run > 0 else 1
            longest_wins = max(longest_wins, run)
        else:
            run = run - 1 if run < 0 else -1
            longest_losses = max(longest_losses, -run)
    return Streaks(run, longest_wins, longest_losses)


def _margin(row: dict[str, Any]) -> int:
    """Your side's score minus the best other side's (the record's final scores)."""
    scores = [int(s) for s in row.get("scores") or ()]
    me = int(row["human_seat"])
    record = row.get("record")
    partners = isinstance(record, dict) and bool(record.get("rules", {}).get("partnerships"))
    side = me % 2 if partners else me
    if not scores or side >= len(scores):
        return 0
    return scores[side] - max((s for i, s in enumerate(scores) if i != side), default=0)


def margin_chart(margins: Sequence[int], rows: int = 3) -> list[str]:
    """Recent games as columns: a win rises above the line by its margin, a loss falls below
    (``rows`` lines each way, in eighths), oldest on the left.

    >>> margin_chart([10, -5], rows=1)
    ['█ ', '──', ' ▀']
    """
    if not margins:
        return []
    most = max(abs(m) for m in margins) or 1
    up = [max(0, m) * rows * 8 // most for m in margins]
    down = [max(0, -m) * rows * 8 // most for m in margins]
    above = []
    for level in range(rows - 1, -1, -1):
        above.append("".join(_cell(h - level * 8, "▁▂▃▄▅▆▇█") for h in up))
    below = []
    for level in range(rows):
        below.append("".join(_cell(h - level * 8, "▔▔▀▀▀▀██") for h in down))
    return [*above, "─" * len(margins), *below]


def _cell(eighths: int, blocks: str) -> str:
    if eighths <= 0:
        return " "
    return blocks[min(eighths, 8) - 1]


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def statistics_renderable(stats: Statistics) -> RenderableType:
    """The statistics as rich renderables (also what a snapshot of the screen shows)."""
    title = Text("Statistics", style="bold")
    if stats.games == 0:
        return Group(title, Text("No finished games yet: play one and it is counted here."))
    streak = stats.streaks
    now = (
        f"{streak.current} won in a row"
        if streak.current > 0
        else f"{-streak.current} lost in a row"
        if streak.current < 0
        else "none"
    )
    summary = Text.assemble(
        (f"{stats.games} game{'' if stats.games == 1 else 's'}", "bold"),
        f"  won {stats.wins}, lost {stats.losses} ({_percent(stats.win_rate)})",
        f"  best hand {stats.best_hand if stats.best_hand is not None else '-'}",
        f"\nStreak now: {now}; longest: {streak.longest_wins} won, {streak.longest_losses} lost",
    )
    if stats.takebacks:
        summary.append(f"; {stats.takebacks} with take-backs")
    levels = Table(title="By opponent and game", title_justify="left", expand=False, box=None)
    for name, justify in (
        ("opponent", "left"),
        ("game", "left"),
        ("games", "right"),
        ("won", "right"),
        ("win rate", "right"),
        ("skunks +/-", "right"),
        ("best", "right"),
    ):
        levels.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for r in stats.by_level:
        levels.add_row(
            r.levels,
            r.variant,
            str(r.games),
            str(r.wins),
            _percent(r.win_rate),
            f"{r.skunks_given}/{r.skunks_taken}",
            "-" if r.best_hand is None else str(r.best_hand),
        )
    roles = Table(title="Points per deal", title_justify="left", expand=False, box=None)
    for name in ("as", "deals", "hand", "crib", "pegging", "total"):
        roles.add_column(name, justify="left" if name == "as" else "right", no_wrap=True)
    for role in stats.roles:
        roles.add_row(
            role.role,
            str(role.deals),
            f"{role.hand:.2f}",
            f"{role.crib:.2f}" if role.role == "dealer" else "-",
            f"{role.pegging:.2f}",
            f"{role.total:.2f}",
        )
    chart_lines = margin_chart(stats.recent)
    chart = Text(f"Your margin in the last {min(RECENT, len(stats.recent))} games", style="bold")
    for k, line in enumerate(chart_lines):
        style = "green" if k < len(chart_lines) // 2 else "dim" if "─" in line else "red"
        chart.append("\n" + line, style=style)
    return Group(title, summary, Text(), levels, Text(), roles, Text(), chart)


def plain_text(renderable: RenderableType, width: int = 100) -> str:
    """What ``renderable`` reads as, without colour (for ``cribbage history`` and tests)."""
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()
