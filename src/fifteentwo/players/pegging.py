"""Pegging: the rules-of-thumb evaluation of the standard level and the expert's search.

Pegging depends on ranks only (suits never score in the play), so everything here works on ranks
1..13 and their counting values.

*Heuristic* (`heuristic_plays`): each card is worth what it pegs now, minus what the next player
can expect to peg in reply (each rank's chance of being in their hand comes from the unseen
cards), plus a point times the chance they cannot come in (we may take the go), with the classic
adjustments of the sources: lead from a pair, keep low cards for the go and 31. With nobody left
to reply, the best order of our own remaining cards is searched exactly. That one look ahead
already encodes "avoid leaving 5 or 21" (sixteen tenth cards make 15 or 31), "a four is the
safest lead" and "do not make 11 with a four on a seven" (a paired four makes fifteen too).

*Search* (`PegSearch`): perfect-information minimax of the rest of the play for one guess of the
opponent's hand (a determinization). A node's value is the pegging difference, which depends on
nothing but the cards, so it is cached across decisions. The pegging tables (`pegtable`) are
built with it.

*Model search* (`ModelSearch`), the expert's: the same search for one guess, except that the
opponent replies as a sensible player who cannot see our hand (`heuristic_plays` from what it can
see) instead of as an all-knowing minimizer, so traps pay as they do against real players. The
expert averages it over guesses drawn from the unseen cards (`guess_hands`), weighted by how
likely a sensible player would have kept that hand and by how well the hand explains the cards
the opponent has played (`play_likelihood`). Near the end of the game (`target` set) a node's
value is the probability of winning instead: reaching the target in the play wins at once, and
the end of the play is valued by counting the hands in the show order and then the position's
equity.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from fifteentwo.players.discarding import hand_mean
from fifteentwo.players.knowledge import PIPS
from fifteentwo.scoring import peg_points_ranks

__all__ = [
    "Guess",
    "PegSearch",
    "expected_reply",
    "go_chance",
    "guess_hands",
    "heuristic_plays",
    "solo_best",
]

_REPLIES: dict[tuple[tuple[int, ...], int], tuple[tuple[int, int], ...]] = {}
_REPLIES_MAX: Final = 200_000


def scoring_replies(pile: tuple[int, ...], count: int) -> tuple[tuple[int, int], ...]:
    """(rank, points) of every next card that pegs on this pile, best first (cached)."""
    key = (pile, count)
    found = _REPLIES.get(key)
    if found is None:
        out = []
        limit = 31 - count
        for q in range(1, 14):
            p = PIPS[q]
            if p <= limit:
                pts = peg_points_ranks((*pile, q), count + p)
                if pts:
                    out.append((q, pts))
        out.sort(key=lambda x: -x[1])
        found = tuple(out)
        if len(_REPLIES) > _REPLIES_MAX:
            _REPLIES.clear()
        _REPLIES[key] = found
    return found


_HOLD_TABLES: dict[tuple[int, int], tuple[float, ...]] = {}


def _hold_table(unseen: int, k: int) -> tuple[float, ...]:
    """P(a hand of ``k`` cards from ``unseen`` holds one of ``u`` given cards), for u = 0..4."""
    key = (unseen, k)
    found = _HOLD_TABLES.get(key)
    if found is None:
        probs = []
        for u in range(5):
            miss = 1.0
            for i in range(k):
                miss *= max(0, unseen - u - i) / (unseen - i) if unseen - i > 0 else 0.0
            probs.append(1.0 - miss if u else 0.0)
        found = tuple(probs)
        _HOLD_TABLES[key] = found
    return found


def expected_reply(
    pile: tuple[int, ...], count: int, counts: Sequence[int], unseen: int, k: int
) -> float:
    """Expected points the next player pegs with their best reply to this pile, their ``k``
    cards being random among ``unseen`` cards with ``counts[rank]`` of each rank."""
    if k <= 0:
        return 0.0
    holds = _hold_table(unseen, k)
    none_better = 1.0
    total = 0.0
    for q, pts in scoring_replies(pile, count):
        p = holds[counts[q]]
        if p:
            total += none_better * p * pts
            none_better *= 1.0 - p
    return total


def go_chance(count: int, counts: Sequence[int], unseen: int, k: int) -> float:
    """P(none of the next player's ``k`` cards comes in at ``count``)."""
    if k <= 0:
        return 1.0
    limit = 31 - count
    if limit >= 10:
        return 0.0
    over = sum(counts[limit + 1 : 14])
    if over < k:
        return 0.0
    p = 1.0
    for i in range(k):
        p *= (over - i) / (unseen - i)
    return p


def solo_best(pile: tuple[int, ...], count: int, ranks: tuple[int, ...]) -> tuple[int, int]:
    """Best points from playing our own cards alone (the others have said go), and the rank to
    play first for them (0 if none comes in); the go or 31 is included."""
    best, first = -1, 0
    prev = 0
    for i, r in enumerate(ranks):
        if r == prev:
            continue
        prev = r
        c = count + PIPS[r]
        if c > 31:
            continue
        npile = (*pile, r)
        pts = peg_points_ranks(npile, c)
        if c < 31:
            pts += solo_best(npile, c, ranks[:i] + ranks[i + 1 :])[0]
        if pts > best:
            best, first = pts, r
    if first == 0:
        return (1 if pile and count < 31 else 0), 0
    return best, first


LEAD_FROM_PAIR: Final = 0.5
"""Share of a pair royal's 6 counted back when leading from a pair (the opponent who pairs may
be capped)."""
LOW_CARD_KEEP: Final = 0.3
"""Value of keeping an ace, two or three for the go and 31 while the count is low."""


def heuristic_plays(
    ranks: Sequence[int],
    pile: tuple[int, ...],
    count: int,
    *,
    counts: Sequence[int],
    unseen: int,
    k: int,
    explain: bool = False,
) -> list[tuple[int, float, str]]:
    """(rank, value, why) for each distinct rank of ``ranks`` that comes in, best first.

    ``k`` is the number of cards the next player to reply holds (0 when everyone else has said
    go or is out of cards); ``counts`` and ``unseen`` describe the cards we cannot see. The
    reasons are written only when ``explain`` is set (they cost more than the values).
    """
    hand = tuple(sorted(ranks))
    out: list[tuple[int, float, str]] = []
    prev = 0
    if k <= 0:
        for i, r in enumerate(hand):
            if r == prev or count + PIPS[r] > 31:
                continue
            prev = r
            npile = (*pile, r)
            c = count + PIPS[r]
            pts = peg_points_ranks(npile, c)
            if c < 31:
                pts += solo_best(npile, c, hand[:i] + hand[i + 1 :])[0]
            why = "the others have said go: my own cards in the best order" if explain else ""
            out.append((r, float(pts), why))
        out.sort(key=lambda x: -x[1])
        return out
    holds = _hold_table(unseen, k)
    for r in hand:
        if r == prev or count + PIPS[r] > 31:
            continue
        prev = r
        c = count + PIPS[r]
        npile = (*pile, r)
        gain = peg_points_ranks(npile, c)
        risk = expected_reply(npile, c, counts, unseen, k)
        go = go_chance(c, counts, unseen, k) if c > 21 else 0.0
        value = gain - risk + go
        pair_lead = not pile and r != 5 and hand.count(r) >= 2
        if pair_lead:  # if they pair it, we make a pair royal
            value += LEAD_FROM_PAIR * 6 * holds[counts[r]]
        low = r <= 3 and c < 21 and len(hand) > 1
        if low:
            value -= LOW_CARD_KEEP
        why = ""
        if explain:
            notes = []
            if gain:
                notes.append(f"pegs {gain}")
            if risk >= 0.05:
                notes.append(f"gives {risk:.1f} back on average")
            if go >= 0.05:
                notes.append(f"{go:.0%} they cannot come in")
            if pair_lead:
                notes.append("leads from a pair")
            if low:
                notes.append("spends a low card")
            if not pile and r < 5:
                notes.append("no fifteen can answer it")
            why = "; ".join(notes) or "nothing scores either way"
        out.append((r, value, why))
    out.sort(key=lambda x: -x[1])
    return out


# --- the search --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Guess:
    """One determinization: the opponent's remaining cards and its weight."""

    ranks: tuple[int, ...]
    cards: tuple[int, ...]
    """A representative set of card indices with these ranks (for the show)."""
    weight: float


def _resample(
    rng: random.Random, items: list[tuple[int, ...]], weights: list[float], n: int
) -> list[tuple[int, ...]]:
    """``n`` items drawn by systematic resampling (in proportion to ``weights``)."""
    total = sum(weights)
    if total <= 0.0:
        weights = [1.0] * len(items)
        total = float(len(items))
    step = total / n
    point = rng.random() * step
    acc = 0.0
    out: list[tuple[int, ...]] = []
    for item, w in zip(items, weights, strict=True):
        acc += w
        while point < acc and len(out) < n:
            out.append(item)
            point += step
    return out


def sensible_keep(beta: float) -> Callable[[Sequence[int]], float]:
    """A prior over a player's kept hand (card indices): ``exp(beta * its mean show)``, since
    a sensible player keeps good hands."""

    def prior(kept: Sequence[int]) -> float:
        return math.exp(beta * hand_mean(kept, kept)) if len(kept) >= 3 else 1.0

    return prior


def guess_hands(
    rng: random.Random,
    unseen: Sequence[int],
    k: int,
    *,
    known: Sequence[int],
    draws: int,
    prior: Callable[[Sequence[int]], float] | None = None,
    likelihood: Callable[[tuple[int, ...]], float] | None = None,
    proposals: int = 0,
) -> list[Guess]:
    """Weighted guesses at an opponent's ``k`` unknown cards, ``known`` being the cards they
    have already played from the same kept hand.

    Candidates are drawn uniformly from ``unseen`` (all of them when there are few), weighted
    by ``prior`` of the whole kept hand (what their discard reveals) times ``likelihood`` of
    the candidate (what else we know, such as how well it explains the plays they made).
    ``draws`` guesses are then drawn by systematic resampling and merged by ranks.
    ``proposals`` candidates are drawn (at least three per guess); with a likelihood, the prior
    first resamples them down to three per guess.
    """
    if k <= 0:
        return [Guess((), (), 1.0)]
    proposals = max(proposals, 3 * draws)
    pool = list(unseen)
    candidates: list[tuple[int, ...]]
    base = list(known)
    if math.comb(len(pool), k) <= proposals:
        from itertools import combinations

        candidates = list(combinations(pool, k))
    else:
        candidates = [tuple(sorted(rng.sample(pool, k))) for _ in range(proposals)]
    weights = [1.0 if prior is None else prior([*base, *cand]) for cand in candidates]
    if likelihood is not None and len(candidates) > 3 * draws:
        # Two stages: the cheap prior picks the candidates worth the likelihood's cost.
        candidates = _resample(rng, candidates, weights, 3 * draws)
        weights = [1.0] * len(candidates)
    if likelihood is not None:
        weights = [w * likelihood(cand) for cand, w in zip(candidates, weights, strict=True)]
    total = sum(weights)
    if total <= 0.0:  # nothing explains what we saw: fall back to uniform guesses
        weights = [1.0] * len(candidates)
        total = float(len(candidates))
    groups: dict[tuple[int, ...], list[object]] = {}
    if len(candidates) <= draws:
        picks = [(cand, w / total) for cand, w in zip(candidates, weights, strict=True)]
    else:
        picks = [(cand, 1.0 / draws) for cand in _resample(rng, candidates, weights, draws)]
    for cand, w in picks:
        key = tuple(sorted((c >> 2) + 1 for c in cand))
        entry = groups.get(key)
        if entry is None:
            groups[key] = [cand, w]
        else:
            entry[1] = float(entry[1]) + w  # type: ignore[arg-type]
    return [Guess(key, tuple(v[0]), float(v[1])) for key, v in groups.items()]  # type: ignore[arg-type]


Leaf = Callable[[int, int], float]
"""Win probability for player 0 from the scores at the end of the play (the show to come)."""

_POINT_MEMO_MAX: Final = 500_000
"""Positions kept per rules form before the points cache starts afresh (about 100 MB)."""

PointsSolver = Callable[
    [tuple[int, ...], tuple[int, ...], tuple[int, ...], int, int, int, int], int
]


@cache
def points_solver(second_series: bool, optional_go: bool) -> PointsSolver:
    """The pegging-difference minimax for one form of the rules, as a closure over its own
    cache (closures and local names: this is the expert's inner loop). See `PegSearch.points`
    for the arguments."""
    memo: dict[tuple[object, ...], int] = {}
    pips = PIPS
    peg = peg_points_ranks

    def end(h0: tuple[int, ...], h1: tuple[int, ...], last: int, count: int) -> int:
        # The series ends: the go (or last card) to `last`, then the next series, if any.
        v = 0 if count == 31 else (1 if last == 0 else -1)
        if not (h0 or h1) or not second_series:
            return v
        leader = (1 - last) if (h1 if last == 0 else h0) else last
        return v + solve(h0, h1, (), 0, leader, 0, -1)

    def solve(  # noqa: PLR0917 - positional: the search's hot path
        h0: tuple[int, ...],
        h1: tuple[int, ...],
        pile: tuple[int, ...],
        count: int,
        turn: int,
        passed: int,
        last: int,
    ) -> int:
        key = (h0, h1, pile, count, turn, passed, last)
        found = memo.get(key)
        if found is not None:
            return found
        hand = h1 if turn else h0
        limit = 31 - count
        best = -999 if turn == 0 else 999
        prev = 0
        for i in range(len(hand)):
            r = hand[i]
            if r == prev:
                continue
            prev = r
            p = pips[r]
            if p > limit:
                break
            rest = hand[:i] + hand[i + 1 :]
            npile = (*pile, r)
            c = count + p
            pts = peg(npile, c)
            a, b = (h0, rest) if turn else (rest, h1)
            if c == 31:
                v = end(a, b, turn, 31)
            else:
                # The engine's `_next_turn`: the other player if a card of theirs comes in,
                # else they say go and we play on, else the series ends.
                left = 31 - c
                o = 1 - turn
                ho = b if o else a
                nxt = -1
                np_ = passed
                if ho and not passed >> o & 1:
                    if pips[ho[0]] <= left:
                        nxt = o
                    else:
                        np_ = passed | (1 << o)
                if nxt < 0 and rest and pips[rest[0]] <= left:
                    nxt = turn
                v = solve(a, b, npile, c, nxt, np_, turn) if nxt >= 0 else end(a, b, turn, c)
            if turn:
                v -= pts
                best = min(best, v)
            else:
                v += pts
                best = max(best, v)
        if optional_go and passed:
            v = end(h0, h1, last, count)
            if (v < best) if turn else (v > best):
                best = v
        if len(memo) > _POINT_MEMO_MAX:
            memo.clear()
        memo[key] = best
        return best

    return solve


class PegSearch:
    """Perfect-information minimax of the rest of the play, two players: the pegging difference
    (player 0's points minus player 1's) with every card known to both.

    Player 0 is the searcher. ``second_series`` and ``optional_go`` follow the rules (False and
    True in five-card cribbage). Positions are cached across searches (`points_solver`); the
    pegging tables (`fifteentwo.players.pegtable`) are built with it.
    """

    def __init__(self, *, second_series: bool = True, optional_go: bool = False) -> None:
        self.second_series = second_series
        self.optional_go = optional_go
        self._solve = points_solver(second_series, optional_go)

    def points(  # noqa: PLR0917 - positional: the search's hot path
        self,
        h0: tuple[int, ...],
        h1: tuple[int, ...],
        pile: tuple[int, ...],
        count: int,
        turn: int,
        passed: int,
        last: int,
    ) -> int:
        """Pegging difference (player 0 minus player 1) from this node to the end of the play.

        ``h0``/``h1``: sorted ranks still held; ``pile``: ranks since the count was reset;
        ``turn``: who plays now (it has a card that comes in, or may decline); ``passed``: bit
        mask of who has said go this series; ``last``: who played the pile's last card (-1).
        """
        return self._solve(h0, h1, pile, count, turn, passed, last)

    def _next_points(  # noqa: PLR0917 - positional: the search's hot path
        self,
        h0: tuple[int, ...],
        h1: tuple[int, ...],
        pile: tuple[int, ...],
        count: int,
        t: int,
        passed: int,
    ) -> int:
        """After player ``t`` played (count below 31): the engine's `_next_turn`."""
        limit = 31 - count
        o = 1 - t
        ho = h1 if o else h0
        if ho and not passed >> o & 1:
            if PIPS[ho[0]] <= limit:
                return self._solve(h0, h1, pile, count, o, passed, t)
            passed |= 1 << o
        ht = h1 if t else h0
        if ht and PIPS[ht[0]] <= limit:
            return self._solve(h0, h1, pile, count, t, passed, t)
        return self._end_points(h0, h1, t, count)

    def _end_points(self, h0: tuple[int, ...], h1: tuple[int, ...], last: int, count: int) -> int:
        """The series ends: the go (or last card) to ``last``, then the next series if any."""
        v = 0 if count == 31 else (1 if last == 0 else -1)
        if not (h0 or h1) or not self.second_series:
            return v
        leader = (1 - last) if (h1 if last == 0 else h0) else last
        return v + self._solve(h0, h1, (), 0, leader, 0, -1)

    def root(  # noqa: PLR0917 - positional: the search's hot path
        self,
        h0: tuple[int, ...],
        h1: tuple[int, ...],
        pile: tuple[int, ...],
        count: int,
        passed: int,
        last: int,
    ) -> dict[int, int]:
        """Value of each choice of player 0 (to move): rank -> pegging difference, 0 for
        saying go where the rules allow it."""
        out: dict[int, int] = {}
        limit = 31 - count
        for i, r in enumerate(h0):
            if r in out or PIPS[r] > limit:
                continue
            rest = h0[:i] + h0[i + 1 :]
            npile = (*pile, r)
            c = count + PIPS[r]
            pts = peg_points_ranks(npile, c)
            if c == 31:
                out[r] = self._end_points(rest, h1, 0, c) + pts
            else:
                out[r] = self._next_points(rest, h1, npile, c, 0, passed) + pts
        if self.optional_go and passed:
            out[0] = self._end_points(h0, h1, last, count)
        return out


class ModelSearch:
    """The rest of the play searched against a model of the opponent, two players.

    Player 0 (the searcher) chooses the best card at each of its turns, knowing the guessed
    opponent hand; player 1 plays what a sensible player would (`heuristic_plays`, from what
    *it* can see: our cards are unknown to it, so it judges its replies by the unseen ranks).
    Unlike minimax, this does not credit the opponent with knowing our hand, so traps (leading
    from a pair, a run left open) pay as they do against real players. ``counts`` are the
    ranks the opponent cannot see at the root (our hand among them) and ``unseen`` their
    number.

    Without a ``target`` the value is player 0's pegging minus player 1's. With one it is
    player 0's win probability: reaching the target in the play wins at once, and ``leaf``
    values the scores at the end of the play.
    """

    def __init__(
        self,
        *,
        counts: Sequence[int],
        unseen: int,
        second_series: bool = True,
        optional_go: bool = False,
        target: int | None = None,
        leaf: Leaf | None = None,
        reply_temperature: float = 0.0,
        reply_model: PlayModel | None = None,
    ) -> None:
        self.counts = list(counts)
        self.reply_temperature = reply_temperature
        self.reply_model = reply_model
        self.unseen = unseen
        self.second_series = second_series
        self.optional_go = optional_go
        self.target = target if target is not None else 1 << 30
        self.leaf = leaf
        self.wins = target is not None
        self._memo: dict[tuple[object, ...], float] = {}
        self._root_h0: tuple[int, ...] = ()

    def _their_choices(
        self, h0: tuple[int, ...], h1: tuple[int, ...], pile: tuple[int, ...], count: int
    ) -> list[tuple[int, float]]:
        """The model's replies as (rank, probability), from what the opponent can see: the
        heuristic's best alone, or with a ``reply_temperature`` a softmax over its values, or
        a ``reply_model``'s (bench/expert_variants.py); replies below 2% dropped."""
        counts = self.counts
        gone = len(self._root_h0) - len(h0)
        if gone:
            # Cards we have played since the root are no longer unseen to them.
            counts = list(counts)
            for r in self._root_h0:
                counts[r] -= 1
            for r in h0:
                counts[r] += 1
        unseen, k = self.unseen - gone, len(h0)
        if self.reply_model is not None:
            return likely_replies(self.reply_model(h1, pile, count, counts, unseen, k))
        plays = heuristic_plays(h1, pile, count, counts=counts, unseen=unseen, k=k)
        temperature = self.reply_temperature
        if not temperature or len(plays) == 1:
            return [(plays[0][0], 1.0)]
        return likely_replies(_softmax({r: v for r, v, _ in plays}, temperature))

    def root(  # noqa: PLR0917 - the search's state, in its order
        self,
        h0: tuple[int, ...],
        h1: tuple[int, ...],
        pile: tuple[int, ...],
        count: int,
        passed: int,
        last: int,
        scores: tuple[int, int] = (0, 0),
    ) -> dict[int, float]:
        """Value of each choice of player 0 (to move): rank -> value, 0 for a legal go."""
        self._root_h0 = h0
        self._memo.clear()
        s0, s1 = scores
        out: dict[int, float] = {}
        limit = 31 - count
        for i, r in enumerate(h0):
            if r in out or PIPS[r] > limit:
                continue
            out[r] = self._after(h0[:i] + h0[i + 1 :], h1, pile, count, 0, passed, r, s0, s1)
        if self.optional_go and passed:
            out[0] = self._end(h0, h1, last, count, s0, s1)
        return out

    def _after(  # noqa: PLR0917 - the search's hot path
        self,
        a: tuple[int, ...],
        b: tuple[int, ...],
        pile: tuple[int, ...],
        count: int,
        turn: int,
        passed: int,
        r: int,
        s0: int,
        s1: int,
    ) -> float:
        """``turn`` plays rank ``r`` (already out of its hand): its points and what follows."""
        npile = (*pile, r)
        c = count + PIPS[r]
        pts = peg_points_ranks(npile, c)
        wins = self.wins
        if wins and pts:
            if turn:
                s1 += pts
                if s1 >= self.target:
                    return 0.0
            else:
                s0 += pts
                if s0 >= self.target:
                    return 1.0
        if c == 31:
            v = self._end(a, b, turn, 31, s0, s1)
        else:
            left = 31 - c
            o = 1 - turn
            ho = b if o else a
            ht = a if o else b
            nxt = -1
            np_ = passed
            if ho and not passed >> o & 1:
                if PIPS[ho[0]] <= left:
                    nxt = o
                else:
                    np_ = passed | (1 << o)
            if nxt < 0 and ht and PIPS[ht[0]] <= left:
                nxt = turn
            if nxt >= 0:
                v = self._node(a, b, npile, c, nxt, np_, turn, s0, s1)
            else:
                v = self._end(a, b, turn, c, s0, s1)
        if wins:
            return v
        return v - pts if turn else v + pts

    def _end(  # noqa: PLR0917 - the search's hot path
        self, h0: tuple[int, ...], h1: tuple[int, ...], last: int, count: int, s0: int, s1: int
    ) -> float:
        """The series ends: the go (or last card) to ``last``, then the next series if any."""
        go = 0 if count == 31 else 1
        if self.wins:
            if last == 0:
                s0 += go
                if s0 >= self.target:
                    return 1.0
            else:
                s1 += go
                if s1 >= self.target:
                    return 0.0
            if not (h0 or h1) or not self.second_series:
                assert self.leaf is not None
                return self.leaf(s0, s1)
            v = 0.0
        else:
            v = go if last == 0 else -go
            if not (h0 or h1) or not self.second_series:
                return v
        leader = (1 - last) if (h1 if last == 0 else h0) else last
        return v + self._node(h0, h1, (), 0, leader, 0, -1, s0, s1)

    def _node(  # noqa: PLR0917 - the search's hot path
        self,
        h0: tuple[int, ...],
        h1: tuple[int, ...],
        pile: tuple[int, ...],
        count: int,
        turn: int,
        passed: int,
        last: int,
        s0: int,
        s1: int,
    ) -> float:
        key = (h0, h1, pile, count, turn, passed, last, s0, s1)
        found = self._memo.get(key)
        if found is not None:
            return found
        if turn:
            # The model always plays on after our go where it may decline: it never costs.
            best = 0.0
            for r, p in self._their_choices(h0, h1, pile, count):
                i = h1.index(r)
                rest = h1[:i] + h1[i + 1 :]
                best += p * self._after(h0, rest, pile, count, 1, passed, r, s0, s1)
        else:
            best = -999.0
            limit = 31 - count
            prev = 0
            for i, r in enumerate(h0):
                if r == prev:
                    continue
                prev = r
                if PIPS[r] > limit:
                    break
                v = self._after(h0[:i] + h0[i + 1 :], h1, pile, count, 0, passed, r, s0, s1)
                best = max(best, v)
            if self.optional_go and passed:
                best = max(best, self._end(h0, h1, last, count, s0, s1))
        self._memo[key] = best
        return best


_REPLY_FLOOR: Final = 0.02
"""Soft replies less likely than this are left out of the search (and the rest rescaled)."""


def likely_replies(shares: dict[int, float]) -> list[tuple[int, float]]:
    """A model's replies as the search takes them: (rank, probability), those below
    `_REPLY_FLOOR` left out and the rest rescaled."""
    kept = {r: p for r, p in shares.items() if p >= _REPLY_FLOOR}
    z = sum(kept.values())
    return [(r, p / z) for r, p in kept.items()]


LeadValues = Callable[[tuple[int, ...]], dict[int, float] | None]
"""Opening-lead values of a hand (sorted ranks): rank -> value, or None where it has none."""

PlayModel = Callable[[tuple[int, ...], tuple[int, ...], int, list[int], int, int], dict[int, float]]
"""A model of how a player chooses its card: (hand ranks, pile, count, unseen counts by rank,
unseen, cards the next player holds) -> the probability of each distinct rank that comes in
(`heuristic_plays`' inputs). `play_likelihood` reads plays through the heuristic's softmax
unless given one."""


def play_likelihood(
    decisions: Sequence[tuple[tuple[int, ...], int, int, int, tuple[int, ...]]],
    starter: int,
    temperature: float,
    *,
    leads: LeadValues | None = None,
    lead_temperature: float = 0.15,
    lead_share: float = 1.0,
    model: PlayModel | None = None,
) -> Callable[[tuple[int, ...]], float]:
    """How well a guess at a player's unplayed cards explains their plays this deal.

    ``decisions`` come from `fifteentwo.players.knowledge.their_plays`; ``starter`` is the
    starter's rank. Each decision is replayed through the standard heuristic from the player's
    point of view (their hand then: the guess plus the cards they have played since; unseen to
    them: everything but their hand, the starter and our cards played before), and the card
    they chose gets its softmax probability at ``temperature`` (points). Their discards, which
    they saw and we did not, are left among their unseen cards.

    With ``leads``, the opening lead of the deal may also have come from a player who leads by
    that table (a softmax at ``lead_temperature``): with probability ``lead_share`` the lead is
    read that way, otherwise through the heuristic, so a player of either kind is understood.
    A ``model`` reads the plays in place of the heuristic's softmax (``temperature`` unused).
    """
    if not decisions:
        return lambda cards: 1.0
    played = [d[2] for d in decisions]
    known: dict[tuple[int, ...], float] = {}

    def likelihood(cards: tuple[int, ...]) -> float:
        guess = [(c >> 2) + 1 for c in cards]
        ranks = tuple(guess)
        found = known.get(ranks)
        if found is None:
            found = known[ranks] = ranks_likelihood(guess)
        return found

    def ranks_likelihood(guess: list[int]) -> float:
        """`likelihood` of a guess by its ranks, all it depends on (suits never matter in the
        play): the candidates of one decision share their ranks often, more so the more are
        drawn, and each is read once."""
        kept = guess + played
        p = 1.0
        for i, (pile, count, rank, k, ours) in enumerate(decisions):
            hand = guess + played[i:]
            row = None
            if leads is not None and not i and not pile and not ours:
                row = leads(tuple(sorted(hand)))
                if row is not None and rank not in row:
                    row = None
            if row is not None and lead_share >= 1.0:
                p *= _softmax_share(row, rank, lead_temperature)
                continue
            counts = [4] * 14
            for r in kept:
                counts[r] -= 1
            counts[starter] -= 1
            for r in ours:
                counts[r] -= 1
            unseen = 51 - len(kept) - len(ours)
            if model is not None:
                shares = model(tuple(hand), pile, count, counts, unseen, k)
                heuristic = shares.get(rank, 0.0) if len(shares) > 1 else 1.0
            else:
                options = heuristic_plays(hand, pile, count, counts=counts, unseen=unseen, k=k)
                if len(options) <= 1:
                    heuristic = 1.0
                else:
                    heuristic = _softmax_share({r: v for r, v, _ in options}, rank, temperature)
            if row is None:
                p *= heuristic
            else:
                table = _softmax_share(row, rank, lead_temperature)
                p *= lead_share * table + (1.0 - lead_share) * heuristic
        return p

    return likelihood


def _softmax(values: dict[int, float], temperature: float) -> dict[int, float]:
    """The softmax probabilities (at ``temperature``) of ``values``' keys."""
    top = max(values.values())
    weights = {r: math.exp((v - top) / temperature) for r, v in values.items()}
    z = sum(weights.values())
    return {r: w / z for r, w in weights.items()}


def _softmax_share(values: dict[int, float], chosen: int, temperature: float) -> float:
    """The softmax probability (at ``temperature``) of ``chosen`` among ``values``."""
    return _softmax(values, temperature).get(chosen, 0.0)
