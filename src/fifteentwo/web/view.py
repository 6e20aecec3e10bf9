"""What one seat is sent: its `Observation`, its redacted events, and words for both, as JSON.

This is the only place engine values become wire values, so the no-leak guarantee lives here:
everything comes from ``Game.observation(seat)`` and ``Game.events_for(seat, ...)`` (the engine's
own redaction), never from the game's private state. Scoring items and spoken counts come from
the engine (`HandCounted.score`, `Scored.items`); the client never scores anything.

Muggins, as at the terminal (docs/play.md, ``--manual-count``): while a seat decides whether to
call muggins on a claim short of its hand (`held_claim`), every message shows that hand by its
claim alone (`claim_json`, `log_lines`, `muggins_json`, ``pending_claim`` null): the miss must be
spotted, not read. The true count and what was missed come after the answer (`verdict_json`).
An over-claim is not held: the engine pegs the corrected total at once, in the open.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fifteentwo.actions import (
    Action,
    CardPlayed,
    Count,
    CountReset,
    Cut,
    DealDone,
    DealerChosen,
    Dealt,
    Discard,
    Discarded,
    Event,
    GameOver,
    Go,
    GoSaid,
    HandCounted,
    MatchOver,
    Muggins,
    Play,
    Scored,
    StarterTurned,
)
from fifteentwo.app.describe import Describer
from fifteentwo.cards import Card
from fifteentwo.game import Game, Observation
from fifteentwo.scoring import ScoreItem, number_word

__all__ = [
    "action_json",
    "card_json",
    "claim_json",
    "event_json",
    "events_json",
    "held_claim",
    "log_lines",
    "muggins_json",
    "observation_json",
    "verdict_json",
]


def card_json(card: Card) -> str:
    """A card on the wire: its short name (``5H``, ``TD``); the client names it in words."""
    return card.short


def _cards(cards: Sequence[Card] | None) -> list[str] | None:
    return None if cards is None else [c.short for c in cards]


def _items(items: Sequence[ScoreItem]) -> list[dict[str, Any]]:
    return [{"kind": i.kind, "cards": _cards(i.cards), "points": i.points} for i in items]


def action_json(action: Action) -> dict[str, Any]:
    """A legal action as the client sends it back (see docs/web.md)."""
    if isinstance(action, Discard):
        return {"kind": "discard", "cards": _cards(action.cards)}
    if isinstance(action, Play):
        return {"kind": "play", "card": action.card.short}
    if isinstance(action, Go):
        return {"kind": "go"}
    if isinstance(action, Cut):
        return {"kind": "cut", "depth": action.depth}
    if isinstance(action, Count):
        return {"kind": "count", "points": action.points}
    if isinstance(action, Muggins):
        return {"kind": "muggins", "take": action.take}
    raise TypeError(f"not an action: {action!r}")


def observation_json(obs: Observation, *, held: bool = False) -> dict[str, Any]:
    """The seat's view. Legal actions are summarised (discard combinations are implied by the
    hand and ``discard_count``) so a message stays small. ``held``: a short claim is being
    judged (`held_claim`), so ``pending_claim`` (the points it missed) is not sent."""
    rules = obs.rules
    legal: dict[str, Any] = {}
    for action in obs.legal:
        if isinstance(action, Discard):
            legal["discard"] = len(action.cards)
        elif isinstance(action, Play):
            legal.setdefault("play", []).append(action.card.short)
        elif isinstance(action, Go):
            legal["go"] = True
        elif isinstance(action, Cut):
            lo, hi = legal.get("cut", (action.depth, action.depth))
            legal["cut"] = [min(lo, action.depth), max(hi, action.depth)]
        elif isinstance(action, Count):
            legal.setdefault("count", []).append(action.points)
        elif isinstance(action, Muggins):
            legal["muggins"] = True
    if "count" in legal:
        legal["count"] = [min(legal["count"]), max(legal["count"])]
    return {
        "seat": obs.seat,
        "side": obs.side,
        "phase": obs.phase.value,
        "to_move": obs.to_move,
        "dealer": obs.dealer,
        "scores": list(obs.scores),
        "match_points": list(obs.match_points),
        "game_number": obs.game_number,
        "hand": _cards(obs.hand),
        "kept": _cards(obs.kept),
        "discards": _cards(obs.discards),
        "starter": None if obs.starter is None else obs.starter.short,
        "pile": _cards(obs.pile),
        "count": obs.count,
        "played": [[seat, card.short] for seat, card in obs.played],
        "passed": list(obs.passed),
        "hand_sizes": list(obs.hand_sizes),
        "shown": [[seat, crib, _cards(cards)] for seat, crib, cards in obs.shown],
        "legal": legal,
        "pending_claim": None if held else obs.pending_claim,
        "to_count": _cards(obs.to_count),
        "counting_crib": obs.counting_crib,
        "target": rules.target,
        "skunk": rules.skunk,
        "double_skunk": rules.double_skunk,
        "players": rules.players,
        "sides": rules.sides,
        "partnerships": rules.partnerships,
    }


def held_claim(game: Game) -> HandCounted | None:
    """The hand whose muggins question is pending, when its claim was short of the true count:
    until the question is answered, every seat and spectator sees it by its claim alone (as the
    terminal game shows it: `Describer.claim_only`). None when no question is pending, or it is
    about an over-claim (corrected in the open: the owner pegged the true total)."""
    if game.pending_muggins is None:
        return None
    for event in reversed(game.events):  # (the claim is the last event or the one before)
        if isinstance(event, HandCounted):
            return event if event.claimed < event.total else None
    return None


def muggins_json(
    obs: Observation,
    seen: Sequence[Event],
    describer: Describer,
    held: HandCounted | None = None,
) -> dict[str, Any] | None:
    """The pending muggins question of this seat, or None: the claim it is about (the last
    hand counted), whether it missed points or over-claimed, and the sentence to ask. A
    ``held`` claim (`held_claim`) is asked about by its claim alone: ``points``, ``total`` and
    ``over`` are null and the prompt names only the claim."""
    if obs.pending_claim is None:
        return None
    claim = next((e for e in reversed(seen) if isinstance(e, HandCounted)), None)
    if claim is None or claim.claimed == claim.total:
        return None
    if held is not None and claim == held:
        return {
            "points": None,
            "seat": claim.seat,
            "claimed": claim.claimed,
            "total": None,
            "over": None,
            "prompt": describer.muggins_call(claim),
        }
    return {
        "points": obs.pending_claim,
        "seat": claim.seat,
        "claimed": claim.claimed,
        "total": claim.total,
        "over": claim.claimed > claim.total,
        "prompt": describer.muggins_question(claim),
    }


def claim_json(event: HandCounted, describer: Describer) -> dict[str, Any]:
    """A held claim (`held_claim`) as it is shown while muggins is decided: the cards and the
    claim; the total, the items and the spoken count null, the sentence `Describer.claim_only`."""
    out = event_json(event, describer)
    out.update(text=describer.claim_only(event), total=None, items=None, say=None)
    return out


def verdict_json(event: HandCounted, describer: Describer) -> dict[str, Any]:
    """A held claim once its muggins question is answered (``claim_verdict``): the hand counted
    in full (as ``hand_counted``), said as `Describer.claim_verdict` (what was missed, and the
    true count)."""
    out = event_json(event, describer)
    out.update(type="claim_verdict", text=describer.claim_verdict(event))
    return out


def _held_at(events: Sequence[Event], held: HandCounted | None) -> int:
    """Where ``held`` is in ``events`` (only the last hand counted can be it), else -1."""
    if held is None:
        return -1
    for i in range(len(events) - 1, -1, -1):
        if isinstance(events[i], HandCounted):
            return i if events[i] == held else -1
    return -1


def events_json(
    events: Sequence[Event], describer: Describer, held: HandCounted | None = None
) -> list[dict[str, Any]]:
    """`event_json` of each event, the ``held`` claim (`held_claim`) by its claim alone."""
    at = _held_at(events, held)
    return [
        claim_json(e, describer)
        if i == at and isinstance(e, HandCounted)
        else event_json(e, describer)
        for i, e in enumerate(events)
    ]


def log_lines(
    events: Sequence[Event], describer: Describer, held: HandCounted | None = None
) -> list[str]:
    """`Describer.lines`, the ``held`` claim (`held_claim`) said by its claim alone."""
    return describer.lines(events, _held_at(events, held))


def event_json(event: Event, describer: Describer) -> dict[str, Any]:
    """One (already redacted) event with its sentence; counts carry their items and words."""
    out: dict[str, Any] = {"type": _EVENT_NAMES[type(event)], "text": describer.describe(event)}
    if isinstance(event, DealerChosen):
        out.update(cuts=[[s, c.short] for s, c in event.cuts], dealer=event.dealer)
    elif isinstance(event, Dealt):
        out.update(
            dealer=event.dealer,
            hands=[_cards(h) for h in event.hands],
            pack_to_crib=event.pack_to_crib,
        )
    elif isinstance(event, Discarded):
        out.update(seat=event.seat, cards=_cards(event.cards), count=event.count)
    elif isinstance(event, StarterTurned):
        out.update(card=event.card.short, cut_by=event.cut_by, depth=event.depth)
    elif isinstance(event, CardPlayed):
        out.update(seat=event.seat, card=event.card.short, count=event.count)
        out["said"] = number_word(event.count) if event.count < 100 else str(event.count)
    elif isinstance(event, GoSaid):
        out.update(seat=event.seat)
    elif isinstance(event, CountReset):
        out.update(leader=event.leader)
    elif isinstance(event, HandCounted):
        score = event.score()
        out.update(
            seat=event.seat,
            cards=_cards(event.cards),
            starter=event.starter.short,
            crib=event.crib,
            total=event.total,
            claimed=event.claimed,
            items=_items(score.items),
            say=score.say(),
        )
    elif isinstance(event, Scored):
        out.update(
            seat=event.seat,
            side=event.side,
            points=event.points,
            reason=event.reason.value,
            score=event.score,
            cards=_cards(event.cards),
            items=_items(event.items()),
        )
    elif isinstance(event, DealDone):
        out.update(scores=list(event.scores))
    elif isinstance(event, GameOver):
        out.update(
            winner=event.winner,
            scores=list(event.scores),
            skunk=event.skunk,
            game_points=event.game_points,
            match_points=list(event.match_points),
        )
    elif isinstance(event, MatchOver):
        out.update(winner=event.winner, match_points=list(event.match_points))
    return out


_EVENT_NAMES: dict[type, str] = {
    DealerChosen: "dealer_chosen",
    Dealt: "dealt",
    Discarded: "discarded",
    StarterTurned: "starter",
    CardPlayed: "card_played",
    GoSaid: "go",
    CountReset: "count_reset",
    HandCounted: "hand_counted",
    Scored: "scored",
    DealDone: "deal_done",
    GameOver: "game_over",
    MatchOver: "match_over",
}
