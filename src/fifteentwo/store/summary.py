"""`finished_from_record`: the `FinishedGame` for the last finished game in a game record.

Everything is read from the engine's record (docs/records.md); nothing here scores anything. The
terminal and web front-ends both call this, so the history reads the same whoever played.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from fifteentwo.store.base import FinishedGame, StoreError

__all__ = ["PEGGING_REASONS", "finished_from_record"]

PEGGING_REASONS: Final = frozenset({"play", "go", "last card"})
"""Points that count as "pegged in the play" (not his heels, muggins or three for last)."""


def finished_from_record(
    record: dict[str, Any],
    seats: Sequence[dict[str, Any]],
    seed: int,
    *,
    takebacks: int = 0,
    kind: str = "terminal",
    owner_hint: str = "",
) -> FinishedGame:
    """The last finished game in ``record`` as the history stores it (``seats`` as dicts with
    ``name``, ``human`` and ``level``)."""
    try:
        return _summarize(record, seats, seed, takebacks, kind, owner_hint)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise StoreError(f"the game record cannot be summarised: {exc!r}"[:200]) from None


def _summarize(  # noqa: PLR0917 - private helper of finished_from_record
    record: dict[str, Any],
    seats: Sequence[dict[str, Any]],
    seed: int,
    takebacks: int,
    kind: str,
    owner_hint: str,
) -> FinishedGame:
    result = record["games"][-1]
    number = result["game"]
    humans = [i for i, s in enumerate(seats) if s.get("human")]
    me = humans[0] if humans else None
    partnerships = bool(record["rules"].get("partnerships"))
    my_side = None if me is None else (me % 2 if partnerships else me)
    deals = [d for d in record["deals"] if d["game"] == number]
    hands: list[dict[str, Any]] = []
    pegged = counted = 0
    best: int | None = None
    for k, deal in enumerate(deals, 1):
        hand: int | None = None
        crib: int | None = None
        for count in deal["counts"]:
            if count["seat"] != me:
                continue
            if count["crib"]:
                crib = count["claimed"]
            else:
                hand = count["claimed"]
                best = count["total"] if best is None else max(best, count["total"])
        counted += (hand or 0) + (crib or 0)
        pegged += sum(
            p["points"]
            for p in deal["points"]
            if p["seat"] == me and p["reason"] in PEGGING_REASONS
        )
        if me is not None:
            hands.append({"deal": k, "hand": hand, "crib": crib})
    levels = ",".join(str(s["level"]) for s in seats if not s.get("human"))
    return FinishedGame(
        variant=record["rules"]["name"],
        target=record["rules"]["target"],
        levels=levels or "none",
        seats=tuple(dict(s) for s in seats),
        human_seat=me,
        seed=seed,
        game_number=number,
        scores=tuple(result["scores"]),
        winner=result["winner"],
        won=None if my_side is None else result["winner"] == my_side,
        skunk=result["skunk"],
        game_points=result["game_points"],
        deals=len(deals),
        hands=tuple(hands),
        counted=counted,
        pegged=pegged,
        best_hand=best,
        record=record,
        takebacks=takebacks,
        kind=kind,
        owner_hint=owner_hint,
    )
