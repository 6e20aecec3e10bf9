"""The player protocol: a player sees one seat's `Observation` and returns an action.

Subclass `Player` and implement `choose_discard` and `choose_play`; the other decisions have
sensible defaults (count correctly, always take muggins, cut at random). A player never sees the
`Game`, only observations, so it cannot peek at hidden cards. docs/players.md has an example bot.

Players that can explain themselves also implement `rank` (their top choices as `Hint` values),
which `hints` exposes to the coach.
"""

from __future__ import annotations

import hashlib
import importlib
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

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
from fifteentwo.cards import Card, Rank
from fifteentwo.errors import FifteenTwoError, IllegalActionError
from fifteentwo.game import Game, Observation
from fifteentwo.rules import Rules
from fifteentwo.scoring import hand_total, score_hand


@dataclass(frozen=True, slots=True)
class Hint:
    """One candidate action with its value to the player and a short reason, for the coach.

    ``value`` is in the unit the level decides by, named by ``unit``: ``"points"`` (expected
    points for discards and most plays) or ``"win"`` (a win probability, where the score
    decides); compare values of one `hints` call only.
    """

    action: Action
    value: float
    why: str
    unit: str = "points"

    @property
    def is_win(self) -> bool:
        """Whether ``value`` is a probability of winning rather than points."""
        return self.unit == "win"


_PLAY, _DISCARD, _SHOW = Phase.PLAY, Phase.DISCARD, Phase.SHOW  # (enum attributes are slow)


class Player:
    """Base class of computer players; deterministic given its seed."""

    name = "player"
    quick = False
    """Whether this level answers within a millisecond or so, always (no search, no program
    behind it): a server then stores a person's decision together with its reply."""
    miscount_rate: float = 0.0
    """How often this level, counting its own hand by hand, overlooks one combination."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def decision_rng(self, obs: Observation) -> random.Random:
        """A fresh RNG for this decision, seeded by the player's seed and the observation.

        Levels that sample use it rather than `rng`, so a decision depends only on the seed and
        what the seat sees: asking for hints first, or resuming a saved game, cannot change it.
        """
        played = [c.index * 4 + s for s, c in obs.played]
        key = (
            self.seed,
            obs.seat,
            obs.phase.value,
            obs.dealer,
            obs.scores,
            obs.game_number,
            [c.index for c in obs.hand],
            [c.index for c in obs.kept],
            -1 if obs.starter is None else obs.starter.index,
            played,
            obs.count,
        )
        digest = hashlib.blake2b(repr(key).encode(), digest_size=8).digest()
        return random.Random(int.from_bytes(digest, "big"))

    def hints(self, obs: Observation, top: int = 3) -> list[Hint]:
        """What this player would do here and why: its ``top`` best choices, best first.

        Never changes the player's state, so asking does not change later decisions.
        """
        if not obs.legal:
            return []
        return self.rank(obs)[:top]

    def rank(self, obs: Observation) -> list[Hint]:
        """Every choice this player considers for the decision in ``obs``, best first.

        The default knows no values: it offers the legal actions in order with value 0. Levels
        override it with their own evaluation.
        """
        return [Hint(action, 0.0, "no evaluation at this level") for action in obs.legal]

    def choose(self, obs: Observation) -> Action:
        """The action for the decision in ``obs`` (dispatches on the phase)."""
        phase = obs.phase
        if phase is _PLAY:
            card = self.choose_play(obs)
            return GO if card is None else PLAY_ACTIONS[card.index]
        if phase is _DISCARD:
            return Discard(tuple(sorted(self.choose_discard(obs))))
        if phase is _SHOW:
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
        """The show total to claim when counting by hand: the true total, except that a level
        with a `miscount_rate` sometimes overlooks one combination (so the other side can
        call muggins, as against a person); the expert never does."""
        starter = obs.starter
        assert starter is not None
        total = hand_total([c.index for c in obs.to_count], starter.index, obs.counting_crib)
        jack = Card(Rank.JACK, starter.suit)
        if obs.counting_crib and not obs.rules.nobs_in_crib and jack in obs.to_count:
            total -= 1  # these rules give no nobs in the crib
        if total and self.miscount_rate > 0:
            rng = self.decision_rng(obs)
            draws = (rng.random(), rng.random())  # (the hand's, the crib's)
            if draws[obs.counting_crib] < self.miscount_rate:
                items = score_hand(obs.to_count, starter, crib=obs.counting_crib).items
                if items:
                    missed = items[rng.randrange(len(items))]
                    return max(0, total - missed.points)
        return total

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
    listeners = [(i, p) for i, p in enumerate(players) if getattr(p, "wants_events", False)]
    if listeners:
        return _play_telling(game, players, listeners, on_step)
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


def _play_telling(
    game: Game,
    players: Sequence[Player],
    listeners: list[tuple[int, Any]],
    on_step: Callable[[Game], None] | None,
) -> Game:
    """`play_game`'s loop for tables with a player that wants its seat's events (a protocol
    bot: it tells its program what each deal revealed)."""
    while not game.is_over:
        seat = game.to_move
        assert seat is not None
        if seat == CHANCE:
            events = game.apply(game.sample_chance())
        else:
            events = game.apply(players[seat].choose(game.observation(seat)))
        for listener_seat, listener in listeners:
            listener.events(game.events_for(listener_seat, events))
        if on_step is not None:
            on_step(game)
    return game


LEVELS: dict[str, Callable[[int], Player]] = {}
"""Player levels by name, filled by the level modules as they load (`fifteentwo.players`
imports them all first): this module, which they all build on, imports none of them."""


RETIRED_LEVELS: dict[str, str] = {"champion": "expert"}
"""Levels taken out, and the level that plays in their place, so saved games and scripts that
name them keep working. ``champion`` (the expert with twice the guesses) was never measurably
stronger than the expert (docs/players.md), and no level may claim more than it measures."""

_SPEC = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")
"""``package.module:Class``: dotted identifiers, a colon, an identifier."""


def check_player(spec: str) -> None:
    """A `FifteenTwoError` now if `load_player` could not make a player of ``spec``.

    A level or ``module:Class`` is loaded to see; an ``exec:`` program is only looked for, not
    started (a check must not start a bot that is then started again to play; what the program
    answers is for the game to judge).
    """
    if isinstance(spec, str) and spec.startswith("exec:"):
        from fifteentwo.players.protocol import check_command

        check_command(spec[5:])
        return
    player = load_player(spec, 0)
    close = getattr(player, "close", None)
    if callable(close):
        close()


def load_player(spec: str, seed: int = 0, *, move_time: float | None = None) -> Player:
    """A player from a level name (``random``, ``greedy``, ...), ``package.module:Class``, or
    ``exec:CMD ARGS`` (a program speaking the bot protocol, players/protocol.py).

    Built-in levels are trusted and play as they are. A ``module:Class`` bot is somebody else's
    code: it comes wrapped in a `GuardedPlayer`, which checks and times every decision
    (``move_time`` seconds each, by default `guard.DEFAULT_MOVE_TIME`) and turns any misdeed
    into one `BotError`.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise FifteenTwoError("a player must be a level name or module:Class, not empty")
    if spec.startswith("exec:"):
        from fifteentwo.players.protocol import ProtocolPlayer

        return ProtocolPlayer(spec[5:], seed, move_time=move_time)  # type: ignore[return-value]
    if ":" not in spec:
        name = spec.lower()
        factory = LEVELS.get(RETIRED_LEVELS.get(name, name))
        if factory is None:
            raise FifteenTwoError(
                f"unknown player {_quote(spec)}; choose from {', '.join(LEVELS)} "
                "or give module:Class"
            )
        return factory(seed)
    if not _SPEC.fullmatch(spec):
        raise FifteenTwoError(
            f"bad player {_quote(spec)}: give a level name or package.module:Class"
        )
    module_name, _, class_name = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except BaseException as exc:  # importing runs the bot's code: anything may come out
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise FifteenTwoError(
            f"cannot load player {_quote(spec)}: {type(exc).__name__}: {_line(exc)}"
        ) from None
    cls = getattr(module, class_name, None)
    if cls is None:
        raise FifteenTwoError(f"cannot load player {_quote(spec)}: no {class_name} in it")
    if not isinstance(cls, type) or not callable(getattr(cls, "choose", None)):
        raise FifteenTwoError(
            f"{_quote(spec)} is not a player class (it needs a choose(observation) method)"
        )
    try:
        player = cls(seed)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise FifteenTwoError(
            f"cannot start player {_quote(spec)}: {type(exc).__name__}: {_line(exc)}"
        ) from None
    from fifteentwo.players.guard import GuardedPlayer

    return GuardedPlayer(player, spec, move_time=move_time)  # type: ignore[return-value]


def _quote(text: str, limit: int = 80) -> str:
    clean = "".join(c if c.isprintable() else "?" for c in text)
    return repr(clean if len(clean) <= limit else clean[: limit - 1] + "…")


def _line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:120] if lines else "(no message)"
