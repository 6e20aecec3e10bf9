"""The novice level: legal, sensible cards with the mistakes beginners make.

It values a discard by its own hand only (the crib is forgotten, so it neither baulks nor
feeds), likes to keep pairs, and now and then keeps a worse hand than it could. In the play it
takes the points it sees most of the time, leads from the middle of its hand, and otherwise
plays a card without thinking about the reply. Mistakes are drawn from `Player.decision_rng`,
so it stays deterministic given its seed.
"""

from __future__ import annotations

from collections.abc import Sequence

from fifteentwo.actions import GO, PLAY_ACTIONS, Discard, Phase
from fifteentwo.cards import DECK, Card
from fifteentwo.game import Observation
from fifteentwo.players.base import Hint, Player
from fifteentwo.players.discarding import hand_mean, keep_options
from fifteentwo.scoring import peg_points_ranks

__all__ = ["NovicePlayer"]

PAIR_LOVE = 1.5
"""Extra value a beginner sees in each pair it keeps."""
DISCARD_NOISE = 1.5
"""Spread (points) of its misjudgement of each hand."""
MISS_THROW = 0.25
"""Chance it keeps one of its top few hands at random instead of its best."""
MISS_POINTS = 0.2
"""Chance it overlooks points it could peg."""


def _pairs(keep: Sequence[int]) -> int:
    ranks = [c >> 2 for c in keep]
    return sum(1 for i, r in enumerate(ranks) for s in ranks[i + 1 :] if r == s)


class NovicePlayer(Player):
    """A beginner: hand-only discards with a soft spot for pairs, points when it sees them."""

    name = "novice"
    quick = True
    miscount_rate = 0.25
    """Counting by hand, it overlooks a combination this often (muggins for you)."""

    def _discards(self, obs: Observation) -> list[tuple[float, tuple[int, ...], str]]:
        deal = [c.index for c in obs.hand]
        out = []
        for keep, throw in keep_options(deal, obs.rules.kept):
            value = hand_mean(keep, deal) + PAIR_LOVE * _pairs(keep)
            why = "keeps a pair" if _pairs(keep) else "a good-looking hand"
            out.append((value, throw, why))
        out.sort(key=lambda x: (-x[0], x[1]))
        return out

    def choose_discard(self, obs: Observation) -> Sequence[Card]:
        rng = self.decision_rng(obs)
        options = self._discards(obs)
        if rng.random() < MISS_THROW:
            pick = options[rng.randrange(min(4, len(options)))]
        else:
            noisy = [(v + rng.gauss(0.0, DISCARD_NOISE), t) for v, t, _ in options]
            pick = max(noisy, key=lambda x: x[0])  # type: ignore[assignment]
        return [DECK[i] for i in pick[1]]

    def _plays(self, obs: Observation) -> list[tuple[float, Card, str]]:
        limit = 31 - obs.count
        playable = [c for c in obs.hand if c.pips <= limit]
        pile = [(c.index >> 2) + 1 for c in obs.pile]
        out = []
        for card in playable:
            pts = peg_points_ranks([*pile, (card.index >> 2) + 1], obs.count + card.pips)
            out.append((float(pts), card, f"pegs {pts}" if pts else "no points"))
        out.sort(key=lambda x: -x[0])
        return out

    def choose_play(self, obs: Observation) -> Card | None:
        plays = self._plays(obs)
        if not plays:
            return None
        rng = self.decision_rng(obs)
        if plays[0][0] > 0 and rng.random() >= MISS_POINTS:
            return plays[0][1]
        cards = sorted(p[1] for p in plays)
        if not obs.pile:
            return cards[len(cards) // 2]  # leads from the middle of the hand
        if rng.random() < 0.5:
            return cards[-1]  # gets rid of a big card
        return rng.choice(cards)

    def rank(self, obs: Observation) -> list[Hint]:
        if obs.phase is Phase.DISCARD:
            return [
                Hint(Discard(tuple(DECK[i] for i in throw)), value, why)
                for value, throw, why in self._discards(obs)
            ]
        if obs.phase is Phase.PLAY:
            plays = self._plays(obs)
            if not plays:
                return [Hint(GO, 0.0, "no card comes in")]
            return [Hint(PLAY_ACTIONS[c.index], v, why) for v, c, why in plays]
        return super().rank(obs)
