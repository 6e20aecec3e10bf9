"""The standard level: table-driven discards and greedy pegging by the classic rules of thumb.

Discards: keep the cards with the best expected show over every starter, plus the expected crib
from a fixed table of two-card throws (our crib: the pone is assumed to baulk; theirs: the dealer
to feed it), counted for us when we deal and against us when we do not. The three- and
four-player games throw one card and use a one-card table.

Pegging: `fifteentwo.players.pegging.heuristic_plays`: points now, minus the reply we expose,
plus the chance of the go, with the lead and low-card rules of the sources. About the strength
of the BSD program, and fast: it decides from look-up tables, never from a search.
"""

from __future__ import annotations

from collections.abc import Sequence

from fifteentwo.actions import GO, PLAY_ACTIONS, Discard, Phase
from fifteentwo.cards import DECK, Card
from fifteentwo.game import Observation
from fifteentwo.players.base import Hint, Player
from fifteentwo.players.discarding import table_discards
from fifteentwo.players.knowledge import our_crib, seen_indices

__all__ = ["StandardPlayer", "discard_values", "discard_why", "play_values"]


def _cards(indices: Sequence[int]) -> str:
    return " ".join(DECK[i].short for i in indices)


def discard_values(obs: Observation) -> list[tuple[float, tuple[int, ...], float, float]]:
    """(value, throw, hand, crib) for every discard, best first: value is the hand's mean
    show plus the table crib value when the crib is ours, minus it when it is not."""
    rules = obs.rules
    game = "six-card" if rules.hand_size == 6 else "five-card"
    deal = [c.index for c in obs.hand]
    return table_discards(deal, rules.kept, ours=our_crib(obs), game=game)


def discard_why(obs: Observation, throw: Sequence[int], hand: float, crib: float) -> str:
    """The reason shown for a discard: what is kept and the two parts of its value."""
    keep = [c.index for c in obs.hand if c.index not in throw]
    sign = "+" if our_crib(obs) else "-"
    return f"keep {_cards(keep)}: hand {hand:.1f} {sign} crib {crib:.1f}"


def unseen_counts(obs: Observation) -> tuple[list[int], int]:
    """Unseen cards of each rank (list of 14, entry 0 unused) and how many there are, in the
    play (our kept cards include those we played; other seats' played cards are seen)."""
    counts = [4] * 14
    if obs.phase is not Phase.PLAY:
        indices = seen_indices(obs)
        for i in indices:
            counts[(i >> 2) + 1] -= 1
        return counts, 52 - len(indices)
    for c in obs.kept:
        counts[(c.index >> 2) + 1] -= 1
    for c in obs.discards:
        counts[(c.index >> 2) + 1] -= 1
    seen = len(obs.kept) + len(obs.discards)
    if obs.starter is not None:
        counts[(obs.starter.index >> 2) + 1] -= 1
        seen += 1
    me = obs.seat
    for s, c in obs.played:
        if s != me:
            counts[(c.index >> 2) + 1] -= 1
            seen += 1
    return counts, 52 - seen


def next_replier(obs: Observation) -> int | None:
    """The next seat after ours that can still reply in this series (has cards, no go)."""
    n = obs.rules.players
    for i in range(1, n):
        seat = (obs.seat + i) % n
        if obs.hand_sizes[seat] and not obs.passed[seat]:
            return seat
    return None


def play_values(obs: Observation, *, explain: bool = False) -> list[tuple[float, Card | None, str]]:
    """(value, card, why) for each legal play, best first (None: say go); reasons only when
    ``explain`` is set."""
    from fifteentwo.players.pegging import heuristic_plays

    limit = 31 - obs.count
    playable = [c for c in obs.hand if c.pips <= limit]
    if not playable:
        return [(0.0, None, "no card comes in")]
    counts, unseen = unseen_counts(obs)
    replier = next_replier(obs)
    k = 0 if replier is None else obs.hand_sizes[replier]
    pile = tuple([(c.index >> 2) + 1 for c in obs.pile])
    ranks = [(c.index >> 2) + 1 for c in obs.hand]
    out: list[tuple[float, Card | None, str]] = []
    plays = heuristic_plays(
        ranks, pile, obs.count, counts=counts, unseen=unseen, k=k, explain=explain
    )
    for rank, value, why in plays:
        card = next(c for c in playable if (c.index >> 2) + 1 == rank)
        out.append((value, card, why))
    return out


class StandardPlayer(Player):
    """Expected hand plus a fixed crib table; greedy pegging with the rules of thumb."""

    name = "standard"
    quick = True
    miscount_rate = 0.1
    """Counting by hand, it overlooks a combination this often (muggins for you)."""

    def choose_discard(self, obs: Observation) -> Sequence[Card]:
        return [DECK[i] for i in discard_values(obs)[0][1]]

    def choose_play(self, obs: Observation) -> Card | None:
        legal = obs.legal
        if len(legal) == 1:
            only = legal[0]
            return None if only is GO else only.card  # type: ignore[union-attr]
        if len(legal) == 2 and GO not in legal:
            a, b = legal
            if a.card.index >> 2 == b.card.index >> 2:  # type: ignore[union-attr]
                return a.card  # type: ignore[union-attr]  # two cards of one rank
        return play_values(obs)[0][1]

    def rank(self, obs: Observation) -> list[Hint]:
        if obs.phase is Phase.DISCARD:
            return [
                Hint(Discard(tuple(DECK[i] for i in throw)), value, discard_why(obs, throw, h, c))
                for value, throw, h, c in discard_values(obs)
            ]
        if obs.phase is Phase.PLAY:
            return [
                Hint(GO if card is None else PLAY_ACTIONS[card.index], value, why)
                for value, card, why in play_values(obs, explain=True)
            ]
        return super().rank(obs)
