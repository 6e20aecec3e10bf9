"""Exact discard analysis: every way to lay away cards, valued over every starter and crib.

>>> a = analyze_discard("5h 5c jd qs 2h 9c", dealer=True)
>>> len(a), a.best.keep_text, a.best.throw_text
(15, '5C 5H JD QS', '2H 9C')
>>> round(a.best.hand.mean, 3), a.best.hand.min, a.best.hand.max, round(a.best.total, 3)
(12.696, 10, 21, 17.059)

Hand values are averaged over the 46 possible starters. Crib values are exact expectations over
the starter and the other crib cards under an opponent model (see `fifteentwo.analysis.crib`),
and include his heels (2 points to the dealer when the starter is a jack), because the crib and
the cut go to the same player. ``total`` is hand + crib for the dealer and hand - crib for the
pone; it ranks the options, best first.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import TYPE_CHECKING, Final, Literal, overload

from fifteentwo.cards import Card, CardLike, to_cards
from fifteentwo.errors import CardError, FifteenTwoError
from fifteentwo.scoring import HIS_HEELS_POINTS, hand_total, hand_total4

if TYPE_CHECKING:
    from fifteentwo.analysis.crib import RandomCards

__all__ = [
    "OPPONENT_MODELS",
    "AnalysisError",
    "CribStats",
    "DiscardAnalysis",
    "DiscardOption",
    "HandStats",
    "analyze_discard",
    "crib_rank_distributions",
    "deal_shape",
]

OpponentModel = Literal["uniform", "sensible"]
OPPONENT_MODELS: Final[tuple[str, ...]] = ("uniform", "sensible")
"""``uniform``: every set of other crib cards equally likely. ``sensible`` (two-player only):
the opponent's pair weighted by how often a sensible player throws such a pair."""


class AnalysisError(FifteenTwoError, ValueError):
    """Analysis options that do not fit together (players, opponent model)."""


@dataclass(frozen=True, slots=True)
class HandStats:
    """Show points of the kept cards over every possible starter."""

    mean: float
    min: int
    max: int
    distribution: Mapping[int, int] = field(hash=False)
    """Points -> number of starters giving them (the starters are equally likely), in order of
    points; a plain dict (so options pickle), not to be modified."""

    @property
    def starters(self) -> int:
        """How many starters were counted (46 in a six-card deal)."""
        return sum(self.distribution.values())

    def probability(self, points: int) -> float:
        """P(the hand shows exactly ``points``)."""
        return self.distribution.get(points, 0) / self.starters

    def to_json(self) -> dict[str, object]:
        """``{"mean", "min", "max", "distribution": {"points": starters}}``."""
        return {
            "mean": self.mean,
            "min": self.min,
            "max": self.max,
            "distribution": {str(k): v for k, v in self.distribution.items()},
        }


@dataclass(frozen=True, slots=True)
class CribStats:
    """Expected points the crib's owner (the dealer) gets from the crib and the cut."""

    mean: float
    """``show + heels``: what the discard is worth to the dealer (ours if ``mine``)."""
    show: float
    """Expected crib count: fifteens, pairs, runs, a five-card flush, nobs."""
    heels: float
    """Expected his heels: 2 x P(the starter is a jack); the same for every discard."""
    mine: bool
    """Whether the crib is ours (we deal; in four-player, our side deals)."""

    def to_json(self) -> dict[str, object]:
        """``{"mean", "show", "heels", "mine"}``."""
        return {"mean": self.mean, "show": self.show, "heels": self.heels, "mine": self.mine}


@dataclass(frozen=True, slots=True)
class DiscardOption:
    """One way to discard: what is kept and thrown and what it is worth."""

    keep: tuple[Card, ...]
    throw: tuple[Card, ...]
    hand: HandStats
    crib: CribStats
    total: float
    """hand.mean + crib.mean if the crib is ours, else hand.mean - crib.mean."""
    win: float | None = None
    """P(winning the game) from a given score; None until the equity tables exist."""

    @property
    def keep_text(self) -> str:
        """The kept cards, e.g. ``5C 5H JD QS``."""
        return " ".join(c.short for c in self.keep)

    @property
    def throw_text(self) -> str:
        """The thrown cards, e.g. ``2H 9C``."""
        return " ".join(c.short for c in self.throw)

    def to_json(self) -> dict[str, object]:
        """The shape ``cribbage discard --json`` prints for each option."""
        data: dict[str, object] = {
            "keep": [c.short for c in self.keep],
            "throw": [c.short for c in self.throw],
            "hand": self.hand.to_json(),
            "crib": self.crib.to_json(),
            "total": self.total,
        }
        if self.win is not None:
            data["win"] = self.win
        return data


@dataclass(frozen=True, slots=True)
class DiscardAnalysis:
    """All discards of one deal, best first; iterable and indexable like a tuple."""

    cards: tuple[Card, ...]
    dealer: bool
    players: int
    opponent: str
    options: tuple[DiscardOption, ...]
    score: tuple[int, int] | None = None
    """(ours, theirs) when win probabilities rank the options; None: expected points rank."""

    @property
    def best(self) -> DiscardOption:
        """The top-ranked option."""
        return self.options[0]

    def __len__(self) -> int:
        return len(self.options)

    def __iter__(self) -> Iterator[DiscardOption]:
        return iter(self.options)

    @overload
    def __getitem__(self, i: int) -> DiscardOption: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[DiscardOption, ...]: ...
    def __getitem__(self, i: int | slice) -> DiscardOption | tuple[DiscardOption, ...]:
        return self.options[i]

    def option(self, throw: str | Iterable[CardLike]) -> DiscardOption:
        """The option that throws these cards (in any order)."""
        wanted = set(to_cards(throw))
        for opt in self.options:
            if set(opt.throw) == wanted:
                return opt
        raise CardError(f"no discard throws {' '.join(sorted(c.short for c in wanted))}")

    def to_json(self) -> dict[str, object]:
        """The deal, the model and the ranked options."""
        return {
            "cards": [c.short for c in self.cards],
            "dealer": self.dealer,
            "players": self.players,
            "opponent": self.opponent,
            "score": list(self.score) if self.score else None,
            "options": [o.to_json() for o in self.options],
        }


def deal_shape(cards: int, players: int) -> tuple[int, str | None]:
    """Cards each player throws for a deal of ``cards`` to each of ``players``, and the game
    whose throw frequencies the ``sensible`` model uses (None where it has none)."""
    if players not in (2, 3, 4):
        raise AnalysisError(f"players must be 2, 3 or 4, not {players}")
    if players == 2:
        if cards == 6:
            return 2, "six-card"
        if cards == 5:
            return 2, "five-card"
        raise CardError(f"a two-player deal has 6 cards (or 5 in five-card cribbage), got {cards}")
    if cards != 5:
        raise CardError(f"a {players}-player deal has 5 cards, got {cards}")
    return 1, None


def _hand_stats(keep: tuple[int, ...], unseen: list[int]) -> HandStats:
    counts: dict[int, int] = {}
    if len(keep) == 4:
        a, b, c, d = keep
        for s in unseen:
            points = hand_total4(a, b, c, d, s)
            counts[points] = counts.get(points, 0) + 1
    else:
        for s in unseen:
            points = hand_total(keep, s)
            counts[points] = counts.get(points, 0) + 1
    total = sum(p * n for p, n in counts.items())
    dist = dict(sorted(counts.items()))
    return HandStats(total / len(unseen), min(dist), max(dist), dist)


def _random_cards(
    unseen: list[int], thrown: int, game: str | None, dealer: bool, opponent: str
) -> RandomCards:
    from fifteentwo.analysis.crib import uniform_cards, weighted_pair  # numpy: on first use

    if opponent == "uniform":
        return uniform_cards(unseen, 5 - thrown)
    if opponent != "sensible":
        raise AnalysisError(f"unknown opponent model {opponent!r}: choose uniform or sensible")
    if game is None:
        raise AnalysisError("the sensible opponent model covers two-player games only")
    from fifteentwo.analysis.throws import throw_weights  # loads package data: only when used

    # The opponent throws as the other role: to our crib as pone, or to his own as dealer.
    return weighted_pair(unseen, throw_weights(game, "pone" if dealer else "dealer"))


def analyze_discard(
    cards: str | Iterable[CardLike],
    *,
    dealer: bool,
    players: int = 2,
    opponent: OpponentModel | str = "uniform",
    score: tuple[int, int] | None = None,
    target: int = 121,
) -> DiscardAnalysis:
    """Every discard of a deal, valued exactly and ranked best first.

    ``cards``: six cards (two-player), or five (the five-card game with ``players=2``, throwing
    two; three- or four-player games, throwing one). ``dealer``: whether the crib is ours (in
    four-player, whether our side deals). ``opponent``: ``uniform`` or ``sensible``; see
    docs/analysis.md for the exact models. ``score``: (ours, theirs) before the deal, in a
    two-player game to ``target`` (121 or 61): each option then gets a win probability from
    the equity table (`fifteentwo.analysis.equity.discard_win`), which ranks the options.
    """
    from fifteentwo.analysis.crib import crib_show_means  # numpy: imported on first use

    hand = sorted(to_cards(cards))  # checks the cards and that none is repeated
    thrown, game = deal_shape(len(hand), players)
    indices = [c.index for c in hand]
    held = set(indices)
    unseen = [c for c in range(52) if c not in held]
    throws = list(combinations(indices, thrown))
    draw = _random_cards(unseen, thrown, game, dealer, opponent)
    shows = crib_show_means(throws, draw)
    heels = HIS_HEELS_POINTS * draw.starter_jack
    options = []
    for throw, show in zip(throws, shows, strict=True):
        keep = tuple(c for c in indices if c not in throw)
        stats = _hand_stats(keep, unseen)
        crib = CribStats(float(show) + heels, float(show), heels, dealer)
        total = stats.mean + crib.mean if dealer else stats.mean - crib.mean
        options.append(
            DiscardOption(
                keep=tuple(Card.from_index(c) for c in keep),
                throw=tuple(Card.from_index(c) for c in throw),
                hand=stats,
                crib=crib,
                total=total,
            )
        )
    if score is not None:
        if players != 2:
            raise AnalysisError("win probabilities cover two-player games only")
        from fifteentwo.analysis.equity import discard_win

        options = [
            replace(
                o,
                win=discard_win(
                    score[0],
                    score[1],
                    dealer=dealer,
                    hand_distribution=dict(o.hand.distribution),
                    crib_mean=o.crib.mean,
                    target=target,
                ),
            )
            for o in options
        ]
    options.sort(key=_rank_key)
    return DiscardAnalysis(
        cards=tuple(hand),
        dealer=dealer,
        players=players,
        opponent=opponent,
        options=tuple(options),
        score=score,
    )


def crib_rank_distributions(
    cards: str | Iterable[CardLike],
    *,
    dealer: bool,
    opponent: OpponentModel | str = "sensible",
) -> dict[tuple[Card, ...], list[float]]:
    """For each two-card throw of a six-card two-player deal, P(points) of the crib's
    fifteens, pairs and runs (index = points), the other cards drawn by the ``opponent`` model
    as in `analyze_discard`. Flushes and nobs, left out, add a little to the mean; the
    win-probability discard (`fifteentwo.analysis.equity.discard_win`) moves the distribution
    to the crib's exact mean.
    """
    import numpy as np

    from fifteentwo.analysis.tables import crib_rank_table, multiset_index

    hand = sorted(to_cards(cards))
    thrown, game = deal_shape(len(hand), 2)
    if thrown != 2 or len(hand) != 6:
        raise AnalysisError("crib distributions cover the six-card two-player game")
    indices = [c.index for c in hand]
    held = set(indices)
    draw = _random_cards([c for c in range(52) if c not in held], thrown, game, dealer, opponent)
    points = crib_rank_table(2)
    out: dict[tuple[Card, ...], list[float]] = {}
    for throw in combinations(indices, thrown):
        row = int(multiset_index(2, [c // 4 + 1 for c in throw]))
        dist = np.bincount(points[row], weights=draw.ranks)
        out[tuple(Card.from_index(c) for c in throw)] = [float(p) for p in dist / dist.sum()]
    return out


def _rank_key(option: DiscardOption) -> tuple[float, float, tuple[int, ...]]:
    """Best first: by win probability once it exists, else total; then hand; then card order
    (a stable order for exact ties). Values are compared to 9 decimals: equal options (the same
    ranks in other suits, say) come out of the matrix products a few units in the last place
    apart, differently on different CPUs (BLAS picks its kernels by CPU), and the order of
    equals must not depend on the machine."""
    first = option.win if option.win is not None else option.total
    return (-round(first, 9), -round(option.hand.mean, 9), tuple(c.index for c in option.throw))
