"""Two baseline players: uniformly random legal moves, and greedy immediate points."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

from fifteentwo.actions import Discard, Play
from fifteentwo.cards import DECK, Card
from fifteentwo.game import Observation
from fifteentwo.players.base import Player
from fifteentwo.scoring import hand_total, peg_points_ranks


class RandomPlayer(Player):
    """Picks uniformly among the legal actions; the floor of every strength ladder."""

    name = "random"

    def choose_discard(self, obs: Observation) -> Sequence[Card]:
        options = [a for a in obs.legal if isinstance(a, Discard)]
        return self.rng.choice(options).cards

    def choose_play(self, obs: Observation) -> Card | None:
        options = [a.card for a in obs.legal if isinstance(a, Play)]
        if not options or (len(options) < len(obs.legal) and self.rng.random() < 0.5):
            return None  # say go, or decline to play on where the rules allow it
        return self.rng.choice(options)


class GreedyPlayer(Player):
    """Keeps the hand with the best average show over the possible starters (ignoring the
    crib) and plays the card that pegs the most right now (ties: the highest card)."""

    name = "greedy"

    def choose_discard(self, obs: Observation) -> Sequence[Card]:
        hand = obs.hand
        seen = {c.index for c in hand}
        starters = [c.index for c in DECK if c.index not in seen]
        best: tuple[int, tuple[Card, ...]] | None = None
        for keep in combinations(hand, obs.rules.kept):
            idx = [c.index for c in keep]
            value = sum(hand_total(idx, s) for s in starters)
            if best is None or value > best[0]:
                best = (value, keep)
        assert best is not None
        return [c for c in hand if c not in best[1]]

    def choose_play(self, obs: Observation) -> Card | None:
        options = [a.card for a in obs.legal if isinstance(a, Play)]
        if not options:
            return None
        ranks = [c.rank for c in obs.pile]
        return max(
            options,
            key=lambda c: (peg_points_ranks([*ranks, c.rank], obs.count + c.pips), c.pips),
        )


LEVELS: dict[str, Callable[[int], Player]] = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
}
"""Player levels by name; later levels register themselves here."""
