"""The after-game pages' data: the history with its statistics, and a game's review, as JSON.

Nothing here scores a hand or judges a move: the totals come from the store, points per deal
from the game records the engine wrote, and the review from `analysis.review` (discards by the
exact discard analysis, plays by the expert's own ranking, as ``cribbage review`` does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fifteentwo.actions import Play
from fifteentwo.analysis.review import PlayEvaluator, review_record
from fifteentwo.cards import Card
from fifteentwo.game import Observation
from fifteentwo.players import load_player
from fifteentwo.store import Totals

__all__ = ["history_json", "review_json", "role_points"]


def role_points(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """The human's points per deal as dealer and as pone (any non-dealer), pegged and counted,
    from the finished games' records."""
    sums = {role: {"deals": 0, "pegged": 0, "counted": 0} for role in ("dealer", "pone")}
    for row in rows:
        me = row.get("human_seat")
        record = row.get("record")
        if me is None or not isinstance(record, dict):
            continue
        for deal in record.get("deals", ()):
            role = "dealer" if deal.get("dealer") == me else "pone"
            sums[role]["deals"] += 1
            for p in deal.get("points", ()):
                if p.get("seat") != me:
                    continue
                key = "counted" if p.get("reason") in ("hand", "crib") else "pegged"
                sums[role][key] += int(p.get("points", 0))
    out: dict[str, dict[str, float]] = {}
    for role, s in sums.items():
        n = s["deals"]
        out[role] = {
            "deals": n,
            "pegged": round(s["pegged"] / n, 2) if n else 0.0,
            "counted": round(s["counted"] / n, 2) if n else 0.0,
            "total": round((s["pegged"] + s["counted"]) / n, 2) if n else 0.0,
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
    return {"games": games, "totals": table, "roles": role_points(rows)}


def expert_evaluator() -> PlayEvaluator:
    """Plays judged by the expert's own ranking (its pegging search), as ``cribbage review``."""
    player = load_player("expert", seed=0)

    def evaluate(obs: Observation) -> list[tuple[Card | None, float, bool]]:
        out: list[tuple[Card | None, float, bool]] = []
        for hint in player.rank(obs):
            card = hint.action.card if isinstance(hint.action, Play) else None
            out.append((card, hint.value, hint.is_win))
        return out

    return evaluate


def review_json(row: dict[str, Any]) -> dict[str, Any]:
    """The review of a finished game: per-player totals, mistakes worst first, luck per deal,
    the win-probability curve (drawn by the page), and the human's seat."""
    review = review_record(row["record"], play_evaluator=expert_evaluator())
    data = review.to_json()
    data["mistakes"] = [
        {
            "deal": d.deal,
            "seat": d.seat,
            "player": review.players[d.seat],
            "kind": d.kind,
            "chosen": d.chosen,
            "best": d.best,
            "loss": round(d.loss, 3),
            "win_loss": None if d.win_loss is None else round(d.win_loss, 4),
        }
        for d in review.mistakes()
    ]
    data["human_seat"] = row.get("human_seat")
    data["id"] = row.get("id")
    data["variant"] = row.get("variant")
    return data
