"""Show scoring and pegging scoring: itemized results, the spoken count, and fast totals.

Two layers live here. `score_hand` and `peg_score` return every scoring combination with its
cards, for people and explanations. `hand_total` and `peg_points_ranks` return only the number and
run on card indices (0..51) and ranks (1..13) with precomputed tables, for analysis and search;
`hand_totals` scores one hand with every starter at once. The layers are tested against each
other and against a brute-force reference, and the fast one over all 12,994,800 (hand,
starter) cases through the exact distribution (docs/scoring.md).

>>> score_hand("5h 5c 5s jd", "5d").total
29
>>> score_hand("qc qd 6h 5s", "4c").say()
'fifteen two, fifteen four, fifteen six, a pair is eight, and a run of three is eleven'
>>> peg_points("7h 8c")
2
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, product
from operator import add
from typing import Final, TypeVar

from fifteentwo.cards import Card, CardLike, Rank, parse_card, to_cards
from fifteentwo.errors import CardError

__all__ = [
    "GO_POINTS",
    "HIS_HEELS_POINTS",
    "LAST_CARD_POINTS",
    "RANK_KEY",
    "RANK_TABLE",
    "HandScore",
    "PegScore",
    "ScoreItem",
    "hand_total",
    "hand_total4",
    "hand_totals",
    "his_heels",
    "number_word",
    "peg_points",
    "peg_points_ranks",
    "peg_score",
    "rank_points",
    "score_hand",
]

GO_POINTS: Final = 1
"""A go: the last player to lay a card in a series that ends below 31."""
LAST_CARD_POINTS: Final = 1
"""The last card of the play (when it does not make 31) counts as a go."""
HIS_HEELS_POINTS: Final = 2
"""Two for his heels: the dealer's points when the starter is a jack."""
PAIR_POINTS: Final = (0, 0, 2, 6, 12)
"""Points for 0..4 cards of one rank: a pair 2, pair royal 6, double pair royal 12."""
PAIR_NAMES: Final = ("", "", "pair", "pair royal", "double pair royal")

_T = TypeVar("_T")


def his_heels(starter: CardLike) -> int:
    """Points the dealer pegs when the starter is turned: 2 for a jack, else 0."""
    return HIS_HEELS_POINTS if parse_card(starter).rank == Rank.JACK else 0


@dataclass(frozen=True, slots=True)
class ScoreItem:
    """One scoring combination: its kind, the cards that make it, and its points."""

    kind: str
    """``fifteen``, ``pair``, ``pair royal``, ``double pair royal``, ``run``, ``flush``,
    ``nobs`` in the show; ``fifteen``, ``thirty-one`` and the pair and run kinds in the play."""
    cards: tuple[Card, ...]
    points: int

    def to_json(self) -> dict[str, object]:
        """The JSON shape used by the CLI and game records."""
        return {"kind": self.kind, "cards": [c.short for c in self.cards], "points": self.points}

    def __reduce__(self) -> tuple[type[ScoreItem], tuple[str, tuple[Card, ...], int]]:
        # Pickled by calling the class again: compiled by mypyc (docs/speed.md), a frozen
        # slots dataclass cannot be unpickled through its fields.
        return (ScoreItem, (self.kind, self.cards, self.points))


_NUMBER_WORDS: Final = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
_TENS_WORDS: Final = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty")


def number_word(n: int) -> str:
    """English words for 0..99, as a count is spoken (``twenty-nine``)."""
    if n < 20:
        return _NUMBER_WORDS[n]
    tens, ones = divmod(n, 10)
    return _TENS_WORDS[tens] + ("" if ones == 0 else "-" + _NUMBER_WORDS[ones])


class HandScore:
    """The show score of a hand or crib with its starter, itemized.

    Immutable and compared by value, as the frozen dataclass it replaced. `score_hand` fills
    only the total, from the table path (`hand_total`): the items, which cost some fifty times
    more to list, are worked out the first time they are asked for (``items``, ``say()``,
    ``points_by_kind()``, ``to_json()``, equality). Built with its items given, as
    ``HandScore(hand, starter, crib, items)``, its total is their sum. (A plain class with
    an ``__init__`` written out, not a dataclass, so that mypyc compiles it; docs/speed.md.)
    """

    __slots__ = ("_crib", "_hand", "_items", "_said", "_starter", "_total")
    _hand: tuple[Card, ...]
    _starter: Card
    _crib: bool
    _items: tuple[ScoreItem, ...] | None
    _total: int
    _said: str | None

    def __init__(
        self,
        hand: tuple[Card, ...],
        starter: Card,
        crib: bool,
        items: tuple[ScoreItem, ...] | None = None,
        total: int = -1,
    ) -> None:
        # ``items=None`` with a ``total`` is score_hand's lazy form; the total must be right.
        self._hand = hand
        self._starter = starter
        self._crib = crib
        self._items = items
        self._said = None
        if items is not None:
            total = 0
            for item in items:
                total += item.points
        elif total < 0:
            total = hand_total([c.index for c in hand], starter.index, crib)
        self._total = total

    @property
    def hand(self) -> tuple[Card, ...]:
        """The 3 or 4 cards shown, in the order given."""
        return self._hand

    @property
    def starter(self) -> Card:
        """The card cut from the pack, shared by every hand and the crib."""
        return self._starter

    @property
    def crib(self) -> bool:
        """Whether this is the crib, where only a five-card flush counts."""
        return self._crib

    @property
    def items(self) -> tuple[ScoreItem, ...]:
        """Every scoring combination with its cards, listed on first use."""
        items = self._items
        if items is None:
            items = tuple(_hand_items(self._hand, self._starter, self._crib))
            self._items = items
        return items

    @property
    def total(self) -> int:
        """Sum of the items' points (known without listing them)."""
        return self._total

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandScore):
            return NotImplemented
        return (self._hand, self._starter, self._crib, self.items) == (
            other._hand,
            other._starter,
            other._crib,
            other.items,
        )

    def __hash__(self) -> int:
        return hash((self._hand, self._starter, self._crib, self.items))

    def __repr__(self) -> str:
        return (
            f"HandScore(hand={self._hand!r}, starter={self._starter!r}, crib={self._crib!r},"
            f" items={self.items!r})"
        )

    def __reduce__(self) -> tuple[type[HandScore], tuple[object, ...]]:
        return (HandScore, (self._hand, self._starter, self._crib, self.items))

    def points_by_kind(self) -> dict[str, int]:
        """Points per kind, e.g. ``{"fifteen": 8, "pair": 2}``; runs of all lengths as ``run``."""
        out: dict[str, int] = {}
        for item in self.items:
            out[item.kind] = out.get(item.kind, 0) + item.points
        return out

    def say(self) -> str:
        """The count spoken in the traditional cadence: fifteens one by one, then the rest
        (kept: a web message says a count in its sentence and again beside its items)."""
        said = self._said
        if said is None:
            said = self._said = _say(self.items)
        return said

    def steps(self) -> list[tuple[str, tuple[Card, ...]]]:
        """`say` phrase by phrase, each with the cards it names (the show lights them in
        turn); empty for a hand worth nothing.

        >>> [p for p, _ in score_hand("5H 5S JC QC", "4D").steps()]
        ['fifteen two', 'fifteen four', 'fifteen six', 'fifteen eight', 'and a pair is ten']
        """
        return _said_steps(self.items)

    def to_json(self) -> dict[str, object]:
        """``{"total": .., "items": [..], "say": ..}`` as printed by ``cribbage score --json``."""
        return {
            "hand": [c.short for c in self.hand],
            "starter": self.starter.short,
            "crib": self.crib,
            "total": self.total,
            "items": [item.to_json() for item in self.items],
            "say": self.say(),
        }


def _run_phrase(
    runs: list[ScoreItem], pairs: list[ScoreItem]
) -> tuple[str, int, tuple[Card, ...]] | None:
    """Name runs together with the pairs inside them, as players do (``a double run of three``)."""
    if not runs:
        return None
    length = len(runs[0].cards)
    run_ranks = {c.rank for c in runs[0].cards}
    inner = [p for p in pairs if p.cards[0].rank in run_ranks]
    points = sum(r.points for r in runs) + sum(p.points for p in inner)
    size = _NUMBER_WORDS[length]
    names = {1: f"a run of {size}", 2: f"a double run of {size}", 3: f"a triple run of {size}"}
    name = f"a double double run of {size}" if len(runs) == 4 else names[len(runs)]
    for p in inner:
        pairs.remove(p)
    return name, points, _cards_of(runs)


def _cards_of(items: Sequence[ScoreItem]) -> tuple[Card, ...]:
    """Every card of ``items``, once each, in order."""
    out: list[Card] = []
    for item in items:
        for card in item.cards:
            if card not in out:
                out.append(card)
    return tuple(out)


def _said_steps(items: Sequence[ScoreItem]) -> list[tuple[str, tuple[Card, ...]]]:
    """The count as it is spoken, phrase by phrase, each with the cards it names."""
    steps: list[tuple[str, tuple[Card, ...]]] = []
    total = 0
    for item in items:
        if item.kind == "fifteen":
            total += item.points
            steps.append((f"fifteen {number_word(total)}", item.cards))
    pairs = [i for i in items if i.kind in PAIR_NAMES[2:]]
    runs = [i for i in items if i.kind == "run"]
    rest: list[tuple[str, int, tuple[Card, ...]]] = []
    run_phrase = _run_phrase(runs, pairs)  # removes the pairs it names
    pair_items = [p for p in pairs if p.kind == "pair"]
    if len(pair_items) == 2:
        rest.append(("two pairs", 4, _cards_of(pair_items)))
    for p in pairs:
        if p.kind != "pair" or len(pair_items) == 1:
            rest.append((f"a {p.kind}", p.points, p.cards))
    if run_phrase:
        rest.append(run_phrase)
    for item in items:
        if item.kind == "flush":
            rest.append((f"a flush of {_NUMBER_WORDS[len(item.cards)]}", item.points, item.cards))
        elif item.kind == "nobs":
            rest.append(("one for his nobs", item.points, item.cards))
    for i, (name, points, cards) in enumerate(rest):
        total += points
        joiner = "and " if i == len(rest) - 1 and steps else ""
        steps.append((f"{joiner}{name} is {number_word(total)}", cards))
    return steps


def _say(items: tuple[ScoreItem, ...]) -> str:
    """`HandScore.say`."""
    steps = _said_steps(items)
    if not steps:
        return "nineteen (no score)"
    return ", ".join(phrase for phrase, _ in steps)


def _hand_items(hand: Sequence[Card], starter: Card, crib: bool) -> list[ScoreItem]:
    five = [*hand, starter]
    items: list[ScoreItem] = []
    for size in range(2, len(five) + 1):
        for combo in combinations(five, size):
            if sum(c.pips for c in combo) == 15:
                items.append(ScoreItem("fifteen", combo, 2))
    by_rank: dict[int, list[Card]] = {}
    for card in sorted(five):
        by_rank.setdefault(card.rank, []).append(card)
    for cards in by_rank.values():
        if len(cards) >= 2:
            items.append(ScoreItem(PAIR_NAMES[len(cards)], tuple(cards), PAIR_POINTS[len(cards)]))
    ranks = sorted(by_rank)
    start = 0
    for i in range(1, len(ranks) + 1):
        if i == len(ranks) or ranks[i] != ranks[i - 1] + 1:
            span = ranks[start:i]
            if len(span) >= 3:
                for combo in product(*(by_rank[r] for r in span)):
                    items.append(ScoreItem("run", combo, len(span)))
            start = i
    suit = hand[0].suit
    if all(c.suit == suit for c in hand):
        if starter.suit == suit:
            items.append(ScoreItem("flush", (*hand, starter), len(hand) + 1))
        elif not crib:
            items.append(ScoreItem("flush", tuple(hand), len(hand)))
    for card in hand:
        if card.rank == Rank.JACK and card.suit == starter.suit:
            items.append(ScoreItem("nobs", (card,), 1))
    return items


def score_hand(
    hand: str | Iterable[CardLike], starter: CardLike, *, crib: bool = False
) -> HandScore:
    """Score a hand (or, with ``crib=True``, a crib) of 3 or 4 cards with its starter.

    The total comes from the table path at once; the items and the spoken count are listed
    when first asked for (`HandScore`). Strings are parsed once and remembered.

    >>> s = score_hand("4s 5h 6h 4c", "9d")
    >>> s.total, s.say()
    (14, 'fifteen two, fifteen four, fifteen six, and a double run of three is fourteen')
    """
    if isinstance(hand, str):
        known = _PARSED_LISTS.get(hand)
        cards = (
            known if known is not None else _remember(_PARSED_LISTS, hand, tuple(to_cards(hand)))
        )
    else:
        given = tuple(hand)
        for card in given:
            if not isinstance(card, Card):
                cards = tuple(to_cards(given))
                break
        else:
            cards = given  # type: ignore[assignment]  # (all Cards: checked just above)
    if isinstance(starter, Card):
        start = starter
    else:
        parsed = _PARSED_CARDS.get(starter) if isinstance(starter, str) else None
        if parsed is None:
            return _checked_score_hand(cards, starter, crib)
        start = parsed
    n = len(cards)
    if n == 4:
        a, b, c, d = cards
        i, j, k, m, s = a.index, b.index, c.index, d.index, start.index
        if len({i, j, k, m, s}) == 5:  # four distinct cards, and the starter none of them
            total = RANK_TABLE[RANK_KEY[i] + RANK_KEY[j] + RANK_KEY[k] + RANK_KEY[m] + RANK_KEY[s]]
            suit = i & 3
            if j & 3 == suit and k & 3 == suit and m & 3 == suit:
                if s & 3 == suit:
                    total += 5
                elif not crib:
                    total += 4
            nobs = _NOBS_JACK[s]
            if nobs == i or nobs == j or nobs == k or nobs == m:  # noqa: PLR1714, SIM109 (faster)
                total += 1
            return HandScore(cards, start, crib, None, total)
    elif n == 3:
        a, b, c = cards
        i, j, k, s = a.index, b.index, c.index, start.index
        if len({i, j, k, s}) == 4:
            total = hand_total((i, j, k), s, crib)
            return HandScore(cards, start, crib, None, total)
    return _checked_score_hand(cards, start, crib)


def _checked_score_hand(cards: Sequence[Card], starter: CardLike, crib: bool) -> HandScore:
    """The careful road: a starter not seen before, or bad input, raising the error a user
    should read in the usual order (the hand's duplicates, its size, then the starter)."""
    cards = to_cards(cards)
    if not 3 <= len(cards) <= 4:
        raise CardError(f"a hand to show has 3 or 4 cards, got {len(cards)}")
    start = parse_card(starter)
    if isinstance(starter, str):
        _remember(_PARSED_CARDS, starter, start)
    if start in cards:
        raise CardError(f"duplicate card: {start.short} is the starter and in the hand")
    return HandScore(tuple(cards), start, crib)


_PARSED_LIMIT: Final = 4096
"""Strings remembered per cache: enough for a session's worth of hands, cleared when full."""
_PARSED_LISTS: Final[dict[str, tuple[Card, ...]]] = {}
_PARSED_CARDS: Final[dict[str, Card]] = {}


def _remember(cache: dict[str, _T], text: str, value: _T) -> _T:
    """Keep a parse result (only good ones reach here: errors raise before)."""
    if len(cache) >= _PARSED_LIMIT:
        cache.clear()
    cache[text] = value
    return value


# ---------------------------------------------------------------------------------------------
# Fast totals. The fifteens, pairs and runs of a hand depend only on the multiset of its ranks,
# so they come from one table keyed by a base-5 sum (each rank occurs at most four times).

RANK_KEY: Final[tuple[int, ...]] = tuple(5 ** (i // 4) for i in range(52))
"""Per card index: 5 ** (rank - 1). Summing these over cards keys the rank multiset."""
_PIPS_OF_RANK: Final = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
_NOBS_JACK: Final[tuple[int, ...]] = tuple(40 + (i & 3) for i in range(52))
"""Per starter index: the index of the jack of the starter's suit."""
_RANK_STEPS: Final[tuple[int, ...]] = tuple(5**r for r in range(13))
"""Per starter rank (0-based): what a starter of that rank adds to a hand's key."""


def rank_points(ranks: Sequence[int]) -> int:
    """Fifteens, pairs and runs of a multiset of ranks (1..13); the suit-blind part of a show.

    This is the slow, obviously correct definition that `RANK_TABLE` is checked against.

    >>> rank_points([5, 5, 5, 11, 5])  # eight fifteens and a double pair royal
    28
    """
    counts = [0] * 15
    ways = [1] + [0] * 15  # ways[s]: number of sub-multisets (as card subsets) summing to s
    for r in ranks:
        counts[r] += 1
        pips = _PIPS_OF_RANK[r]
        for s in range(15, pips - 1, -1):
            ways[s] += ways[s - pips]
    points = 2 * ways[15]
    for c in counts:
        points += PAIR_POINTS[c]
    run_len, run_ways = 0, 1
    for r in range(1, 15):
        if counts[r]:
            run_len += 1
            run_ways *= counts[r]
        else:
            if run_len >= 3:
                points += run_len * run_ways
            run_len, run_ways = 0, 1
    return points


def _build_rank_table() -> dict[int, int]:
    """All 4- and 5-card rank multisets in one depth-first walk (about 5 ms at import).

    Ranks are added in non-decreasing order, so each step updates the previous multiset's
    fifteens (subset-sum counts), pairs (copies of the last rank) and runs (the open block of
    consecutive ranks) instead of recounting: calling `rank_points` 7,995 times took ~70 ms.
    """
    table: dict[int, int] = {}
    pips_of = _PIPS_OF_RANK
    # A node: (size, key, ways, last rank, copies of it, pair points, run length, run product,
    # closed-run points). ways[s] counts the card subsets summing to s (s <= 15).
    stack: list[tuple[int, int, tuple[int, ...], int, int, int, int, int, int]]
    stack = [(0, 0, (1,) + (0,) * 15, 0, 0, 0, 0, 1, 0)]
    while stack:
        size, key, ways, last, same, pairs, run_len, run_prod, closed = stack.pop()
        for r in range(max(last, 1), 14):
            if r == last:
                if same == 4:
                    continue
                n_same, n_pairs = same + 1, pairs + 2 * same
                n_len, n_prod, n_closed = run_len, run_prod // same * (same + 1), closed
            else:
                n_same, n_pairs = 1, pairs
                if r == last + 1:
                    n_len, n_prod, n_closed = run_len + 1, run_prod, closed
                else:
                    n_len, n_prod = 1, 1
                    n_closed = closed + run_len * run_prod if run_len >= 3 else closed
            n_key = key + _RANK_STEPS[r - 1]
            pips = pips_of[r]
            if size >= 3:
                points = 2 * (ways[15] + ways[15 - pips]) + n_pairs + n_closed
                table[n_key] = points + n_len * n_prod if n_len >= 3 else points
            if size < 4:
                n_ways = ways[:pips] + tuple(map(add, ways[pips:], ways))
                stack.append((size + 1, n_key, n_ways, r, n_same, n_pairs, n_len, n_prod, n_closed))
    return table


RANK_TABLE: Final[dict[int, int]] = _build_rank_table()
"""Rank-multiset key (sum of `RANK_KEY`) -> fifteens + pairs + runs, for 4 and 5 cards."""


def hand_total(hand: Sequence[int], starter: int, crib: bool = False) -> int:
    """Show total of a 3- or 4-card hand given as card indices, with a starter index.

    This is the fast path (a table look-up plus the flush and nobs checks); it does not check
    its input. `score_hand` is the checked, itemized form.

    >>> hand_total([Card.parse(c).index for c in "5h 5c 5s jd".split()], Card.parse("5d").index)
    29
    """
    key = RANK_KEY[starter]
    suit = hand[0] & 3
    flush = True
    nobs = _NOBS_JACK[starter]
    total = 0
    for c in hand:
        key += RANK_KEY[c]
        if c & 3 != suit:
            flush = False
        if c == nobs:
            total = 1
    total += RANK_TABLE[key]
    if flush:
        if starter & 3 == suit:
            total += len(hand) + 1
        elif not crib:
            total += len(hand)
    return total


def hand_total4(a: int, b: int, c: int, d: int, s: int, crib: bool = False) -> int:  # noqa: PLR0917
    """`hand_total` unrolled for the common 4-card case: hand ``a b c d``, starter ``s``.

    A Python call costs about as much as this whole body, so to score many starters for one
    hand, `hand_totals` is several times faster per hand.

    >>> hand_total4(16, 18, 19, 41, 17)  # 5C 5H 5S JD, starter 5D
    29
    """
    total = RANK_TABLE[RANK_KEY[a] + RANK_KEY[b] + RANK_KEY[c] + RANK_KEY[d] + RANK_KEY[s]]
    suit = a & 3
    if b & 3 == suit and c & 3 == suit and d & 3 == suit:
        if s & 3 == suit:
            total += 5
        elif not crib:
            total += 4
    j = _NOBS_JACK[s]
    if j == a or j == b or j == c or j == d:  # noqa: PLR1714, SIM109 (no tuple: faster)
        total += 1
    return total


def hand_totals(hand: Sequence[int], crib: bool = False) -> list[int]:
    """Show totals of one 3- or 4-card hand (card indices) with each of the 52 starters.

    Entry ``s`` is the total with starter ``s``, and -1 where ``s`` is in the hand. The
    suit-blind part is looked up once per starter rank (13 look-ups for up to 49 starters), so
    this is the fast way to average a hand over the cut.

    >>> t = hand_totals([16, 18, 19, 41])  # 5C 5H 5S JD
    >>> t[17], t[0], t[16], t[43]  # starter 5D, AC, 5C (held), JS
    (29, 14, -1, 22)
    """
    key = 0
    for c in hand:
        key += RANK_KEY[c]
    get = RANK_TABLE.get
    row = [get(key + step, 0) for step in _RANK_STEPS]  # absent only with all four held
    totals = row * 4
    totals[0::4] = row
    totals[1::4] = row
    totals[2::4] = row
    totals[3::4] = row
    suit = hand[0] & 3
    n = len(hand)
    for c in hand:
        if c & 3 != suit:
            break
    else:  # a flush: n + 1 with a starter of the suit; n otherwise, except in the crib
        if crib:
            totals[suit::4] = [t + n + 1 for t in row]
        else:
            totals = [t + n for t in totals]
            totals[suit::4] = [t + n + 1 for t in row]
    for c in hand:
        if 40 <= c < 44:  # a jack: one for his nobs with any starter of its suit
            j = c & 3
            totals[j::4] = [t + 1 for t in totals[j::4]]
    for c in hand:
        totals[c] = -1
    return totals


# ---------------------------------------------------------------------------------------------
# Pegging.


@dataclass(frozen=True, slots=True)
class PegScore:
    """What the last card laid on a pile scores in the play, itemized."""

    pile: tuple[Card, ...]
    count: int
    items: tuple[ScoreItem, ...]

    @property
    def total(self) -> int:
        """Sum of the items' points."""
        return sum(item.points for item in self.items)

    def say(self) -> str:
        """Spoken as in play: ``fifteen for two``, ``thirty-one and a pair for four``."""
        if not self.items:
            return number_word(self.count)
        names = []
        for item in self.items:
            if item.kind == "run":
                names.append(f"a run of {number_word(len(item.cards))}")
            elif item.kind in PAIR_NAMES:
                names.append(f"a {item.kind}")
            else:
                names.append(item.kind)
        return f"{' and '.join(names)} for {number_word(self.total)}"


def _tail3_table() -> tuple[int, ...]:
    """Per last three ranks played (index ``(last * 14 + prev) * 14 + third``): their bit mask
    if they are distinct and within a span of 6, as the end of a run of at most 7 is; else 0."""
    table = [0] * (14 * 14 * 14)
    for a in range(1, 14):
        for b in range(1, 14):
            for c in range(1, 14):
                if len({a, b, c}) == 3 and max(a, b, c) - min(a, b, c) <= 6:
                    table[(a * 14 + b) * 14 + c] = (1 << a) | (1 << b) | (1 << c)
    return tuple(table)


RUN_TAIL3: Final = _tail3_table()
"""Zero where no pegging run can end with these last three ranks: a quick test before
`peg_points_ranks` (the play never passes 31, so runs longer than 7 cannot occur)."""


def peg_points_ranks(ranks: Sequence[int], count: int | None = None) -> int:
    """Points for the last of ``ranks`` (1..13) played since the count was reset.

    ``count`` is the running count including the last card; pass it when known to save a sum.
    Pairs need unbroken same-rank cards at the end; a run is the longest tail of n >= 3 distinct
    ranks that are consecutive in any order. Go and last card are not included.

    >>> peg_points_ranks([5, 2, 4, 3])
    4
    >>> peg_points_ranks([4, 2, 5, 3, 5, 6])  # the second five breaks the run
    0
    """
    if count is None:
        count = sum(map(_PIPS_OF_RANK.__getitem__, ranks))
    points = 2 if count == 15 or count == 31 else 0  # noqa: PLR1714
    n = len(ranks)
    if n < 2:
        return points
    last = ranks[-1]
    prev = ranks[-2]
    if prev == last:  # a pair; a pair of pairs cannot also be a run
        if n > 2 and ranks[-3] == last:
            if n > 3 and ranks[-4] == last:
                return points + 12
            return points + 6
        return points + 2
    if n == 2:
        return points
    # Any run ending here holds the last three cards; most piles fail this one look-up.
    third = ranks[-3]
    seen = RUN_TAIL3[(last * 14 + prev) * 14 + third]
    if not seen:
        if count <= 31 or third in (last, prev):
            return points
        # Past 31 (never in play, where 8 distinct ranks count at least 36) runs may be longer.
        seen = (1 << last) | (1 << prev) | (1 << third)
    # A set of ranks is a run when its bits are contiguous: adding the lowest bit carries
    # through all of them and leaves none of the old bits set.
    run = 3 if (seen + (seen & -seen)) & seen == 0 else 0
    i = n - 4
    while i >= 0:
        bit = 1 << ranks[i]
        if seen & bit:
            break
        seen |= bit
        if (seen + (seen & -seen)) & seen == 0:
            run = n - i
        i -= 1
    return points + run


def peg_score(pile: str | Iterable[CardLike]) -> PegScore:
    """Itemized points for the last card of ``pile`` (the cards since the count was reset).

    >>> peg_score("5h 5c 5s").say()  # three fives count 15
    'fifteen and a pair royal for eight'
    >>> peg_score("tc 5h 6d 4s 6c").total  # 31, and no run: the second six breaks it
    2
    """
    cards = tuple(to_cards(pile))
    if not cards:
        raise CardError("the pile is empty: no card was played")
    count = sum(c.pips for c in cards)
    if count > 31:
        raise CardError(f"the count would be {count}, over 31")
    items: list[ScoreItem] = []
    if count == 15:
        items.append(ScoreItem("fifteen", cards, 2))
    elif count == 31:
        items.append(ScoreItem("thirty-one", cards, 2))
    ranks = [c.rank for c in cards]
    last = ranks[-1]
    same = 1
    while same < len(ranks) and ranks[-same - 1] == last:
        same += 1
    if same >= 2:
        items.append(ScoreItem(PAIR_NAMES[same], cards[-same:], PAIR_POINTS[same]))
    else:
        run_points = peg_points_ranks(ranks, 0)
        if run_points:
            items.append(ScoreItem("run", cards[-run_points:], run_points))
    return PegScore(cards, count, tuple(items))


def peg_points(pile: str | Iterable[CardLike]) -> int:
    """Points for the last card of ``pile`` (Cards or strings) in the play.

    The number `peg_score` itemizes, from the table path (`peg_points_ranks`); bad input takes
    `peg_score`'s road to raise the same errors.
    """
    if isinstance(pile, str):
        known = _PARSED_LISTS.get(pile)
        cards = (
            known if known is not None else _remember(_PARSED_LISTS, pile, tuple(to_cards(pile)))
        )
    else:
        given = tuple(pile)
        for card in given:
            if not isinstance(card, Card):
                cards = tuple(to_cards(given))
                break
        else:
            cards = given  # type: ignore[assignment]  # (all Cards: checked just above)
    if cards and len(set(cards)) == len(cards):
        count = 0
        ranks = []
        for card in cards:
            count += card.pips
            ranks.append((card.index >> 2) + 1)
        if count <= 31:
            return peg_points_ranks(ranks, count)
    return peg_score(cards).total
