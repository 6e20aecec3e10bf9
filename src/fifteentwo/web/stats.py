"""The after-game pages' data: the history with its statistics, and a game's review, as JSON.

Nothing here scores a hand or judges a move: the totals come from the store, points per deal
from the game records the engine wrote, and the review from `analysis.review` (discards by the
coach's ranking, the expert's, for discards and plays alike, as ``cribbage review`` and the
hints do: one verdict per decision).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fifteentwo.analysis.review import UNIT_NOTE, Position, review_record
from fifteentwo.app.coach import Coach
from fifteentwo.app.statistics import Statistics, compute_statistics
from fifteentwo.store import Totals

__all__ = [
    "cost_text",
    "history_json",
    "percentage_points",
    "review_json",
    "role_points",
    "value_text",
]

WIN_NOTE = (
    "a change in the chance to win is given in percentage points: −3.1 points of win chance "
    "means a choice left 3.1% less chance to win than the best one (the analysis gives "
    "probabilities from 0 to 1; the page is sent them once converted, here)"
)


def percentage_points(probability: float) -> float:
    """A change of probability (0.031, the analysis's unit) in percentage points (3.1): the one
    place the review's win chances are converted for the page."""
    return round(100 * probability, 1)


def cost_text(loss: float, is_win: bool) -> str:
    """What a choice cost, as a player reads it: ``−3.1 points of win chance`` or
    ``−0.54 expected points``."""
    if is_win:
        return f"−{percentage_points(loss):.1f} points of win chance"
    return f"−{loss:.2f} expected points"


def value_text(value: float | None, is_win: bool) -> str | None:
    """What an option was worth: ``61.3% to win`` or ``+7.25 points`` (expected)."""
    if value is None:
        return None
    return f"{percentage_points(value):.1f}% to win" if is_win else f"{value:+.2f} points"


def role_points(stats: Statistics) -> dict[str, dict[str, float]]:
    """The human's points per deal as dealer and as pone (any non-dealer), pegged and counted
    (hand and crib), from `fifteentwo.app.statistics` (which reads the games' records)."""
    out: dict[str, dict[str, float]] = {}
    for role in stats.roles:
        out[role.role] = {
            "deals": role.deals,
            "pegged": round(role.pegging, 2),
            "counted": round(role.hand + role.crib, 2),
            "total": round(role.total, 2),
        }
    return out


def history_json(rows: Sequence[dict[str, Any]], totals: Sequence[Totals]) -> dict[str, Any]:
    """Games (newest first, without their records) and statistics per level and variant."""
    games = []
    for row in rows:
        finished: Any = row.get("finished_at")
        games.append(
            {
                "id": row.get("id"),
                "variant": row.get("variant"),
                "kind": row.get("kind"),
                "levels": row.get("levels"),
                "scores": list(row.get("scores") or ()),
                "won": row.get("won"),
                "skunk": row.get("skunk"),
                "deals": row.get("deals"),
                "human_seat": row.get("human_seat"),
                "takebacks": row.get("takebacks", 0),
                "players": [s.get("name") for s in row.get("seats") or ()],
                "finished_at": finished.isoformat() if hasattr(finished, "isoformat") else finished,
            }
        )
    table = []
    for t in totals:
        data = t.to_json()
        decided = t.wins + t.losses
        data["win_rate"] = round(t.wins / decided, 3) if decided else None
        table.append(data)
    stats = compute_statistics(rows)
    return {
        "games": games,
        "totals": table,
        "roles": role_points(stats),
        "statistics": stats.to_json(),
    }


def review_json(row: dict[str, Any]) -> dict[str, Any]:
    """The review of a finished game: per-player totals, mistakes worst first, luck per deal,
    the win-probability curve (drawn by the page), and the human's seat."""
    review = review_record(row["record"], evaluator=Coach().evaluate)
    data = review.to_json()
    data["mistakes"] = [
        {
            "deal": d.deal,
            "seat": d.seat,
            "player": review.players[d.seat],
            "kind": d.kind,
            "chosen": d.chosen,
            "best": d.best,
            "loss": round(d.loss, 4),
            "unit": d.unit,
            "cost": cost_text(d.loss, d.is_win),
            "loss_points": percentage_points(d.loss) if d.is_win else round(d.loss, 2),
            "chosen_value": value_text(d.chosen_value, d.is_win),
            "best_value": value_text(d.best_value, d.is_win),
            "position": None if d.position is None else data_position(d.position),
        }
        for d in review.mistakes()
    ]
    for seat in data["seats"]:
        seat["win_points_lost"] = percentage_points(seat["win_lost"])
    data["unit_note"] = UNIT_NOTE
    data["win_note"] = WIN_NOTE
    data["human_seat"] = row.get("human_seat")
    data["id"] = row.get("id")
    data["variant"] = row.get("variant")
    return data


def data_position(position: Position) -> dict[str, Any]:
    """A decision's position as the page draws it (cards by short name, as on the wire)."""
    return {
        "hand": list(position.hand),
        "pile": list(position.pile),
        "count": position.count,
        "starter": position.starter,
        "scores": list(position.scores),
        "dealer": position.dealer,
        "target": position.target,
        "skunk": position.skunk,
        "double_skunk": position.double_skunk,
    }
