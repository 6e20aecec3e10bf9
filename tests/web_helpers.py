"""Shared pieces of the web tests: a protocol client policy and the no-leak checker."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from fifteentwo.cards import Card
from fifteentwo.scoring import score_hand

CARD_CODE = re.compile(r"^(?:[2-9TJQKA])[SHDC]$")
CARD_TEXT = re.compile(r"(?<![0-9])(10|[2-9AJQK])([♠♥♦♣])")
_SUIT = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
FORBIDDEN_KEYS = {"seed", "rng", "stock", "deck", "players_rng", "decisions", "record"}


def choose(state: dict[str, Any], *, wrong_counts: bool = False) -> dict[str, Any]:
    """A simple legal answer to the pending decision (first card, a valid count, ...).

    With ``wrong_counts``, hand counts are claimed one short when possible (muggins)."""
    view = state["view"]
    legal = view["legal"]
    if "discard" in legal:
        return {"kind": "discard", "cards": view["hand"][: legal["discard"]]}
    if "play" in legal:
        return {"kind": "play", "card": legal["play"][-1]}
    if "go" in legal:
        return {"kind": "go"}
    if "cut" in legal:
        return {"kind": "cut", "depth": legal["cut"][0]}
    if "count" in legal:
        cards = [Card.parse(c) for c in view["to_count"]]
        total = score_hand(cards, Card.parse(view["starter"]), crib=view["counting_crib"]).total
        return {"kind": "count", "points": max(0, total - 1) if wrong_counts else total}
    if "muggins" in legal:
        return {"kind": "muggins", "take": True}
    raise AssertionError(f"no decision to make: {legal}")


def walk(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every (path, leaf) of a JSON value, keys included as leaves of their own."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key}#key", key
            yield from walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from walk(item, f"{path}[{i}]")
    else:
        yield path, value


def cards_in(value: Any) -> set[str]:
    """Card codes (``5H``) and card texts (``5♥``) anywhere in a JSON value."""
    found: set[str] = set()
    for _, leaf in walk(value):
        if not isinstance(leaf, str):
            continue
        if CARD_CODE.match(leaf):
            found.add(leaf)
        for rank, suit in CARD_TEXT.findall(leaf):
            found.add(("T" if rank == "10" else rank) + _SUIT[suit])
    return found


class LeakChecker:
    """Follows one seat's messages deal by deal and fails on any card it may not know yet.

    A seat may know: its own dealt hand, cards played, the starter once turned, hands and the
    crib once shown, and the cut-for-deal cards. Everything else (other hands, the crib, the
    stock) must never appear: not in an event, not in the view, not in any text.
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.known: set[str] = set()
        self.messages = 0

    def check(self, message: dict[str, Any]) -> None:
        """Check one message the seat received (events in order, then the view)."""
        self.messages += 1
        for path, leaf in walk(message):
            if path.endswith("#key"):
                assert leaf not in FORBIDDEN_KEYS, f"message carries {leaf!r}: {message}"
        if message.get("type") != "state":
            assert not cards_in(message) - self.known, message
            return
        for event in message.get("recent", ()):  # a (re)joining client's catch-up
            self._event(event)
        for event in message.get("events", ()):
            self._event(event)
        view = message["view"]
        if view["counting_crib"] and "count" in view["legal"]:
            # The crib is turned up for its owner to count it: only in the show, only the
            # dealer's own crib, only after the hands before it were shown.
            assert view["phase"] == "show" and view["dealer"] == self.seat, view
            assert len(view["shown"]) == view["players"], view
            self.known |= set(view["to_count"])
        leaked = cards_in(view) - self.known
        assert not leaked, f"view shows unknown cards {leaked}: {view}"
        for key in ("names", "levels", "pegs", "remark"):
            assert not cards_in(message.get(key)) - self.known

    def _event(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "dealt":
            hands = event["hands"]
            for seat, hand in enumerate(hands):
                if seat != self.seat:
                    assert hand is None, f"another seat's hand was sent: {event}"
            mine = hands[self.seat] if 0 <= self.seat < len(hands) else None
            self.known = set(mine or ())  # a spectator (seat -1) holds nothing
        elif kind == "dealer_chosen":
            self.known |= {card for _, card in event["cuts"]}
        elif kind == "discarded":
            if event["seat"] != self.seat:
                assert event["cards"] is None, f"another seat's discard was sent: {event}"
        elif kind in {"card_played", "starter"}:
            self.known.add(event["card"])
        elif kind == "hand_counted":
            self.known |= set(event["cards"]) | {event["starter"]}
        leaked = cards_in(event) - self.known
        assert not leaked, f"event shows unknown cards {leaked}: {event}"


def parse(code: str) -> Card:
    """A card from its wire code."""
    return Card.parse(code)
