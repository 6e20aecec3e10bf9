"""The after-game pages' data: the history with its statistics, and a game's review, as JSON.

Nothing here scores a hand or judges a move: the totals come from the store, points per deal
from the game records the engine wrote, and the review from `analysis.review` (discards by the
coach's ranking, the expert's, for discards and plays alike, as ``cribbage review`` and the
hints do: one verdict per decision).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fifteentwo.analysis.review import UNIT_NOTE, loss_text, review_record
from fifteentwo.app.coach import Coach
from fifteentwo.app.statistics import Statistics, compute_statistics
from fifteentwo.store import Totals

__all__ = ["history_json", "review_json", "role_points"]


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
            "cost": loss_text(d.loss, d.is_win),
        }
        for d in review.mistakes()
    ]
    data["unit_note"] = UNIT_NOTE
    data["human_seat"] = row.get("human_seat")
    data["id"] = row.get("id")
    data["variant"] = row.get("variant")
    return data
