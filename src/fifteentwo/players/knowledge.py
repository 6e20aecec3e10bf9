"""What a seat knows about the cards it cannot see, from its observation alone.

Every level reasons from these: the unseen cards (the other hands, the other discards and the
stock, all alike to us), how many cards the next player still holds, and what each seat has
played this deal. Nothing here touches a `Game`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from fifteentwo.cards import Card
from fifteentwo.game import Observation

PIPS: Final = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
"""Count value of each rank 1..13 (index 0 unused)."""

RANK_OF: Final = tuple(i // 4 + 1 for i in range(52))
"""Rank 1..13 of each card index."""


def seen_indices(obs: Observation) -> set[int]:
    """Indices of every card this seat has seen: its own, the starter, played and shown."""
    seen = {c.index for c in obs.hand}
    seen.update(c.index for c in obs.kept)
    seen.update(c.index for c in obs.discards)
    if obs.starter is not None:
        seen.add(obs.starter.index)
    seen.update(c.index for _, c in obs.played)
    for _, _, cards in obs.shown:
        seen.update(c.index for c in cards)
    return seen


def unseen_indices(obs: Observation) -> list[int]:
    """Indices of the cards this seat cannot see, in index order."""
    seen = seen_indices(obs)
    return [i for i in range(52) if i not in seen]


def rank_counts(indices: Sequence[int]) -> list[int]:
    """How many of ``indices`` have each rank (list of 14; entry 0 unused)."""
    counts = [0] * 14
    for i in indices:
        counts[(i >> 2) + 1] += 1
    return counts


def played_by(obs: Observation, seat: int) -> list[Card]:
    """The cards ``seat`` has played this deal, in order."""
    return [c for s, c in obs.played if s == seat]


def next_seat(obs: Observation, seat: int) -> int:
    """The seat after ``seat`` in turn order."""
    return (seat + 1) % obs.rules.players


def opponents(obs: Observation) -> list[int]:
    """Seats not on this seat's side."""
    rules = obs.rules
    side = rules.side_of(obs.seat)
    return [s for s in range(rules.players) if rules.side_of(s) != side]


def our_crib(obs: Observation) -> bool:
    """Whether the crib scores for our side (we or our partner deal)."""
    rules = obs.rules
    return rules.side_of(obs.dealer) == rules.side_of(obs.seat)


def pips_floor(obs: Observation, other: int) -> int:
    """The least counting value ``other``'s unplayed cards can have, from their goes.

    Two-player play only. A seat that could not come in at count c holds no card of c's
    complement or less, and keeps those cards to the end of the deal. A go is seen when we
    play twice running in a series, when a series ends short of 31 (the next card would not
    have come in, which is how a new series shows in ``played``), and when it is our turn
    again right after our own card. Returns 1 when nothing is known.
    """
    floor = 1
    held = obs.rules.kept
    count = 0
    prev: int | None = None
    me = obs.seat
    for seat, card in obs.played:
        pips = card.pips
        if count + pips > 31:  # a new series: nobody could come in at `count`
            if held:
                floor = max(floor, 32 - count)
            count, prev = 0, None
        elif prev == me and seat == me and held:
            floor = max(floor, 32 - count)
        count += pips
        if seat == other:
            held -= 1
        prev = seat
        if count == 31:
            count, prev = 0, None
    # Our turn at a new series (the last ended short of 31), or right after our own card.
    if held and count and obs.to_move == me and (obs.count == 0 or prev == me):
        floor = max(floor, 32 - count)
    return floor


Decision = tuple[tuple[int, ...], int, int, int, tuple[int, ...]]
"""One of another seat's plays: (pile ranks before the card, count before it, rank played,
cards the other side held then (0 if it had said go), ranks we had played before it)."""


def their_plays(obs: Observation, other: int) -> list[Decision]:
    """``other``'s plays so far this deal, as the decisions they were (two-player play).

    With a guess at their unplayed cards, each decision can be replayed through a model of
    how they choose, and guesses that explain their play get more weight.
    """
    out = []
    held = obs.rules.kept  # our cards in hand
    ours: list[int] = []
    count = 0
    pile: list[int] = []
    prev: int | None = None
    for seat, card in obs.played:
        pips = card.pips
        if count + pips > 31:
            count, pile, prev = 0, [], None
        rank = RANK_OF[card.index]
        if seat == other:
            we_went = prev == other  # they played twice running: we could not come in
            out.append((tuple(pile), count, rank, 0 if we_went else held, tuple(ours)))
        else:
            held -= 1
            ours.append(rank)
        count += pips
        pile.append(rank)
        prev = seat
        if count == 31:
            count, pile, prev = 0, [], None
    return out
