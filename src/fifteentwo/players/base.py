"""The player protocol: a player sees one seat's `Observation` and returns an action.

Subclass `Player` and implement `choose_discard` and `choose_play`; the other decisions have
sensible defaults (count correctly, always take muggins, cut at random). A player never sees the
`Game`, only observations, so it cannot peek at hidden cards.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Sequence

from fifteentwo.actions import (
    CHANCE,
    GO,
    PLAY_ACTIONS,
    Action,
    Count,
    Cut,
    Discard,
    Muggins,
    Phase,
)
from fifteentwo.cards import Card
from fifteentwo.errors import FifteenTwoError, IllegalActionError
from fifteentwo.game import Game, Observation
from fifteentwo.rules import Rules
from fifteentwo.scoring import hand_total


class Player:
    """Base class of computer players; deterministic given its seed."""

    name = "player"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, obs: Observation) -> Action:
        """The action for the decision in ``obs`` (dispatches on the phase)."""
        phase = obs.phase
        if phase is Phase.PLAY:
            card = self.choose_play(obs)
            return GO if card is None else PLAY_ACTIONS[card.index]
        if phase is Phase.DISCARD:
            return Discard(tuple(sorted(self.choose_discard(obs))))
        if phase is Phase.SHOW:
            if obs.pending_claim is not None:
                return Muggins(self.choose_muggins(obs))
            return Count(self.choose_count(obs))
        return Cut(self.choose_cut(obs))

    def choose_discard(self, obs: Observation) -> Sequence[Card]:
        """The cards to lay away to the crib (``obs.rules.discard`` of them)."""
        raise NotImplementedError

    def choose_play(self, obs: Observation) -> Card | None:
        """The card to play, or None to say go (only legal when no card comes in, or when
        the rules let a player decline after an opponent's go)."""
        raise NotImplementedError

    def choose_count(self, obs: Observation) -> int:
        """The show total to claim when counting by hand: the true total by default."""
        assert obs.starter is not None
        cards = [c.index for c in obs.to_count]
        return hand_total(cards, obs.starter.index, obs.counting_crib)

    def choose_muggins(self, obs: Observation) -> bool:
        """Whether to take points an opponent failed to claim: always, by default."""
        return True

    def choose_cut(self, obs: Observation) -> int:
        """How deep to cut the pack."""
        depths = [a.depth for a in obs.legal if isinstance(a, Cut)]
        return self.rng.choice(depths)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


def play_game(
    rules: Rules,
    players: Sequence[Player],
    seed: int,
    *,
    on_step: Callable[[Game], None] | None = None,
) -> Game:
    """Play one game (or match) between computer players and return the finished `Game`."""
    if len(players) != rules.players:
        raise IllegalActionError(f"{len(players)} players for a {rules.players}-seat game")
    game = Game(rules, seed=seed)
    # Bound methods fetched once: this loop runs a few hundred times a game.
    apply, sample, observe = game.apply, game.sample_chance, game.observation
    choose = [player.choose for player in players]
    seat = game.to_move
    while seat is not None:
        if seat == CHANCE:
            apply(sample())
        else:
            apply(choose[seat](observe(seat)))
        if on_step is not None:
            on_step(game)
        seat = game._to_move  # `to_move` without the property call

    return game


def load_player(spec: str, seed: int = 0) -> Player:
    """A player from a level name (``random``, ``greedy``, ...) or ``package.module:Class``."""
    from fifteentwo.players.simple import LEVELS

    if ":" not in spec:
        factory = LEVELS.get(spec.lower())
        if factory is None:
            raise FifteenTwoError(
                f"unknown player {spec!r}; choose from {', '.join(LEVELS)} or give module:Class"
            )
        return factory(seed)
    module_name, _, class_name = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, class_name)
    except (ImportError, AttributeError) as exc:
        raise FifteenTwoError(f"cannot load player {spec!r}: {exc}") from None
    player = cls(seed) if isinstance(cls, type) else cls
    if not callable(getattr(player, "choose", None)):
        raise FifteenTwoError(f"{spec!r} has no choose(observation) method")
    return player  # type: ignore[no-any-return]
