"""The state of a game, and the scoring all its phases share.

`GameState` holds every attribute of a game; `_score` pegs points and stops the step the moment
a side reaches the target (`_GameEnded`). The helpers here find cards in a hand by identity
(cards are interned), many times faster than ``==``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Final

from fifteentwo.actions import (
    CHANCE,
    Action,
    ChanceAction,
    Count,
    Cut,
    DealHands,
    Discard,
    DrawForDeal,
    Event,
    GameOver,
    Go,
    MatchOver,
    Muggins,
    Phase,
    Play,
    Reason,
    Scored,
    TurnStarter,
    fast_constructor,
)
from fifteentwo.cards import Card
from fifteentwo.errors import IllegalActionError
from fifteentwo.rules import Rules

__all__ = ["GameState"]

# Phases, reasons and the jack as this module's own constants: reading an enum member off its
# class costs ten times a global load, and a compiled module keeps its Final ones in C
# variables (an imported name would be a dictionary look-up).
_CUT_FOR_DEAL: Final = Phase.CUT_FOR_DEAL
_GAME_OVER: Final = Phase.GAME_OVER

_new_scored = fast_constructor(Scored)
_ACTION_TYPES: Final = (Discard, Play, Go, Cut, Count, Muggins, DealHands, TurnStarter, DrawForDeal)


def _describe(value: object) -> str:
    """``value`` for an error message: its text if it is short, else its type (never raises)."""
    try:
        text = str(value) if isinstance(value, _ACTION_TYPES) else repr(value)
    except Exception:  # (a malformed action's __str__ may raise anything)
        try:
            text = repr(value)
        except Exception:  # (so may a hostile object's __repr__)
            text = ""
    return text if 0 < len(text) <= 60 else f"a {type(value).__name__}"


def _find(cards: list[Card], card: object) -> int:
    """Where ``card`` is in ``cards`` (-1 if absent), by identity: cards are interned.

    ``in``, `list.index` and `list.remove` compare with ``==``, which for `Card` goes through
    its Python-level comparison methods: this loop is many times cheaper.
    """
    for i, c in enumerate(cards):
        if c is card:
            return i
    return -1


def _take(cards: list[Card], card: Card) -> None:
    """Remove ``card`` (known to be there) from ``cards``; see `_find`."""
    for i, c in enumerate(cards):
        if c is card:
            del cards[i]
            return
    raise AssertionError(f"{card} is not there")  # pragma: no cover - checked before


def _without(hand: list[Card], cards: Sequence[object]) -> list[Card] | None:
    """``hand`` less ``cards``, or None unless they are different cards all in ``hand``.

    (Typed `object`: the compiled engine would refuse a malformed discard with `TypeError`
    here, before `apply` could refuse it properly.)"""
    rest = list(hand)
    for card in cards:
        i = _find(rest, card)
        if i < 0:
            return None
        del rest[i]
    return rest


class _GameEnded(Exception):
    """Raised inside a step when a side reaches the target, to stop all later scoring."""


_GAME_SLOTS: Final = (
    "_cut_deck",
    "_cuts",
    "_discard_size",
    "_muggins",
    "_n",
    "_next_dealer",
    "_nobs_in_crib",
    "_optional_go",
    "_out",
    "_pile_ranks",
    "_plays",
    "_sampled",
    "_second_series",
    "_show",
    "_sides",
    "_starter_at",
    "_target",
    "_to_move",
    "count",
    "crib",
    "cut_seats",
    "deal_number",
    "dealer",
    "dealt",
    "discards",
    "events",
    "game_number",
    "hands",
    "kept",
    "last_player",
    "log",
    "manual_count",
    "match_points",
    "passed",
    "phase",
    "pile",
    "played",
    "rng",
    "rules",
    "scores",
    "seed",
    "shown",
    "starter",
    "stock",
    "turn",
    "winner",
)
"""`Game`'s attributes, named here because a compiled class has no ``__slots__`` to read."""


class GameState:
    """Everything a game is: the rules, the scores, the cards where they lie, whose turn it is.

    Only the data, and the scoring every phase shares (`_score`, which ends the game the
    instant a side reaches the target). The steps of each phase are in the classes built on
    this one (`fifteentwo.engine.show`, `.play`, `.deal`), and `fifteentwo.game.Game` adds
    the public interface: legal actions, `apply`, observations.
    """

    # Slots: a game has more attributes than CPython's shared-key instance dicts hold, and every
    # step reads a dozen of them. (The classes built on this one add none.)
    __slots__ = _GAME_SLOTS

    def __init__(
        self, rules: Rules, seed: int, manual_count: Iterable[int], cut_seats: Iterable[int]
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.rng = random.Random(seed)
        n = rules.players
        self.manual_count = frozenset(manual_count)
        self.cut_seats = frozenset(cut_seats)
        for seat in self.manual_count | self.cut_seats:
            if type(seat) is not int or not 0 <= seat < n:
                raise IllegalActionError(f"no seat {seat} in a {n}-player game")
        # Per-game constants read on every step.
        self._n = n
        self._sides = tuple(rules.side_of(s) for s in range(n))
        self._target = rules.target
        self._discard_size = rules.discard
        self._second_series = rules.second_series
        self._optional_go = rules.optional_play_after_go
        self._nobs_in_crib = rules.nobs_in_crib
        self.phase = _CUT_FOR_DEAL
        self.scores = [0] * rules.sides
        # Tuples, replaced when they change: observations share them instead of copying.
        self.match_points = (0,) * rules.sides
        self.game_number = 1
        self.dealer = 0
        self.winner: int | None = None
        """Side that won the match, once it is over."""
        self.log: list[tuple[int, Action | ChanceAction]] = []
        """Every action applied, with its actor (`CHANCE` for chance outcomes)."""
        self.events: list[Event] = []
        self._out: list[Event] = []
        self.deal_number = 0
        # cut for deal
        self._cut_deck: list[Card] = []
        self._cuts: list[tuple[int, Card]] = []
        # deal state
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        """Cards each seat holds, kept in index (rank, then suit) order."""
        self._plays: list[tuple[Play, ...]] = [()] * n
        """In the play, the `Play` of each card in ``hands``, in the same order: the legal plays
        are always a prefix of it (the hand is in rank order), so legal-move lists are slices."""
        self.dealt: list[tuple[Card, ...]] = [() for _ in range(n)]
        self.kept: list[tuple[Card, ...]] = [() for _ in range(n)]
        self.discards: list[tuple[Card, ...] | None] = [None] * n
        self.crib: list[Card] = []
        self.stock: list[Card] = []
        self.starter: Card | None = None
        self.pile: list[Card] = []
        self._pile_ranks: list[int] = []
        self.count = 0
        self.played: list[tuple[int, Card]] = []
        self.passed = (False,) * n
        self.turn = 0
        self.last_player: int | None = None
        self._show: list[tuple[int, bool]] = []
        self.shown: tuple[tuple[int, bool, tuple[Card, ...]], ...] = ()
        self._muggins: tuple[int, int] | None = None  # (opponent seat, missed points)
        self._next_dealer = 0
        self._starter_at = 0
        """Where in the stock `sample_chance` last drew a starter (saves a search)."""
        self._sampled: tuple[ChanceAction | None, int] = (None, 0)
        """The outcome `sample_chance` last drew, and when (the length of the log then): if
        nothing was applied since, it is known to be legal."""
        self._out = self.events
        self._to_move: int | None = CHANCE
        """Set by `Game` after every step (`Game.to_move`)."""

    @property
    def pone(self) -> int:
        """The seat to the dealer's left: cuts the starter and leads the play."""
        return (self.dealer + 1) % self._n

    # --- scoring and the end of a game ---------------------------------------------------------

    def _score(self, seat: int, points: int, reason: Reason, cards: tuple[Card, ...] = ()) -> None:
        side = self._sides[seat]
        target = self._target
        score = self.scores[side] + points
        if score > target:  # noqa: PLR1730 (no call: this runs for every point pegged)
            score = target
        self.scores[side] = score
        self._out.append(_new_scored(seat, side, points, reason, score, cards))
        if score == target:
            self._game_over(side)
            raise _GameEnded

    def _game_over(self, winner: int) -> None:
        rules = self.rules
        losers = [s for s in range(rules.sides) if s != winner]
        best_loser = max(self.scores[s] for s in losers)
        skunk = rules.skunk_level(best_loser)
        points = rules.game_points[skunk]
        match_points = list(self.match_points)
        match_points[winner] += points
        self.match_points = tuple(match_points)
        self._out.append(GameOver(winner, tuple(self.scores), skunk, points, self.match_points))
        if self.match_points[winner] >= rules.match_games // 2 + 1:
            self.winner = winner
            self._out.append(MatchOver(winner, self.match_points))
            self.phase = _GAME_OVER
            return
        self._next_dealer = self.loser_to_deal()

    def loser_to_deal(self) -> int:
        """The seat that deals the next game (of a match, or "another game?" after this one):
        the loser's, the lowest score, nearest the last dealer's left (the BSD program's rule
        and the ACC's)."""
        n = self._n
        low = min(self.scores)
        seats = [(self.dealer + i) % n for i in range(1, n + 1)]
        return next(s for s in seats if self.scores[self._sides[s]] == low)
