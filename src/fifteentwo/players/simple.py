"""Two baseline players: uniformly random legal moves, and greedy immediate points."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from fifteentwo.actions import GO, Action, Discard, Phase, Play
from fifteentwo.cards import DECK, Card
from fifteentwo.game import Observation, randbelow
from fifteentwo.players.base import LEVELS as LEVELS  # noqa: PLC0414 (re-exported)
from fifteentwo.players.base import Player
from fifteentwo.scoring import hand_totals, peg_points_ranks

_PLAY = Phase.PLAY  # (reading an enum member off its class is slow)
_DISCARD = Phase.DISCARD


class RandomPlayer(Player):
    """Picks uniformly among the legal actions; the floor of every strength ladder."""

    name = "random"
    quick = True
    miscount_rate = 0.3
    """Counting by hand, it overlooks a combination this often (muggins for you)."""
    _plain_play = True
    _plain_discard = True

    def __init_subclass__(cls, **kwargs: object) -> None:
        """A subclass that overrides a pick gets the general path for it."""
        super().__init_subclass__(**kwargs)
        cls._plain_play = cls.choose_play is RandomPlayer.choose_play
        cls._plain_discard = cls.choose_discard is RandomPlayer.choose_discard

    def choose(self, obs: Observation) -> Action:
        """`Player.choose` with the play and discard picks inlined (self-play speed).

        It draws from the RNG exactly as `choose_play` and `choose_discard` do, so games are the
        same either way; a subclass that overrides either method gets the general path.
        """
        phase = obs.phase
        if phase is _PLAY and self._plain_play:
            legal = obs.legal  # the playable cards in hand order, then go if it is legal
            n = len(legal)
            if n == 0 or legal[n - 1] is GO:
                if n <= 1 or self.rng.random() < 0.5:
                    return GO
                n -= 1
        elif phase is _DISCARD and self._plain_discard:
            legal = obs.legal  # all discards, each already in card order
            n = len(legal)
        else:
            return super().choose(obs)
        return legal[randbelow(self.rng, n)]  # what `rng.choice` draws

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
    quick = True
    miscount_rate = 0.15
    """Counting by hand, it overlooks a combination this often (muggins for you)."""

    def choose_discard(self, obs: Observation) -> Sequence[Card]:
        hand = obs.hand
        seen = {c.index for c in hand}
        starters = [c.index for c in DECK if c.index not in seen]
        best: tuple[int, tuple[Card, ...]] | None = None
        for keep in combinations(hand, obs.rules.kept):
            totals = hand_totals([c.index for c in keep])  # the total with each starter
            value = sum([totals[s] for s in starters])
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


LEVELS.update(random=RandomPlayer, greedy=GreedyPlayer)  # (the registry lives in `base`)
