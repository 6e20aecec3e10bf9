"""Cards, ranks, suits and the deck, with their parse/print pairs.

A card is a number 0..51 underneath (``index = (rank - 1) * 4 + suit``), so inner loops can work
on ints, while `Card` is the typed public face. The 52 `Card` objects are interned: ``Card(rank,
suit)`` always returns the same object, which makes comparisons and hashing cheap.

>>> Card.parse("10s")
Card.parse('TS')
>>> str(Card.parse("king of diamonds")), Card.parse("K♦").unicode, Card.parse("5h").long
('KD', 'K♦', 'five of hearts')
>>> [str(c) for c in parse_cards("5h, 5c 5s jd")]
['5H', '5C', '5S', 'JD']
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import Final

from fifteentwo.errors import CardError

__all__ = [
    "DECK",
    "Card",
    "CardLike",
    "Rank",
    "Suit",
    "card_in_hand",
    "new_deck",
    "parse_card",
    "parse_cards",
    "parse_rank",
    "shuffled_deck",
    "to_cards",
]


class Rank(IntEnum):
    """Card ranks, ace low (1) to king high (13); aces never go round the corner."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def pips(self) -> int:
        """Counting value: ace 1, number cards their face, tenth cards (10, J, Q, K) 10."""
        return min(int(self), 10)

    @property
    def letter(self) -> str:
        """One-character symbol: A 2 3 4 5 6 7 8 9 T J Q K."""
        return "A23456789TJQK"[self - 1]

    @property
    def label(self) -> str:
        """What a player reads on the card: A 2 ... 10 J Q K."""
        return "10" if self == Rank.TEN else self.letter

    @property
    def word(self) -> str:
        """Spoken name: ``ace``, ``two`` ... ``king``."""
        return _RANK_WORDS[self - 1]


class Suit(IntEnum):
    """Suits in bridge order (clubs lowest); suits only matter for flushes and nobs."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """One upper-case letter: C D H S."""
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        """Unicode suit symbol: ♣ ♦ ♥ ♠."""
        return "♣♦♥♠"[self]

    @property
    def word(self) -> str:
        """Plural name as in ``king of diamonds``."""
        return ("clubs", "diamonds", "hearts", "spades")[self]

    @property
    def is_red(self) -> bool:
        """Diamonds and hearts, for colouring cards."""
        return self in (Suit.DIAMONDS, Suit.HEARTS)


_RANK_WORDS: Final = (
    "ace",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
)

_RANK_ALIASES: Final[dict[str, Rank]] = {}
for _r in Rank:
    for _alias in (_r.letter.lower(), str(int(_r)), _r.word, _r.word + "s"):
        _RANK_ALIASES[_alias] = _r
_RANK_ALIASES.update({"knave": Rank.JACK, "knaves": Rank.JACK, "1": Rank.ACE, "aces": Rank.ACE})
_RANK_ALIASES.update({"11": Rank.JACK, "12": Rank.QUEEN, "13": Rank.KING, "sixes": Rank.SIX})

_SUIT_ALIASES: Final[dict[str, Suit]] = {}
for _s in Suit:
    for _alias in (_s.letter.lower(), _s.symbol, _s.word, _s.word[:-1]):
        _SUIT_ALIASES[_alias] = _s
_SUIT_ALIASES.update({"♧": Suit.CLUBS, "♢": Suit.DIAMONDS, "♡": Suit.HEARTS, "♤": Suit.SPADES})
# Variation selectors that some terminals append to suit symbols (e.g. "♥️").
_VARIATION_SELECTORS: Final = str.maketrans("", "", "\ufe0e\ufe0f")

_RANK_PATTERN: Final = "|".join(sorted(map(re.escape, _RANK_ALIASES), key=len, reverse=True))
_SUIT_PATTERN: Final = "|".join(sorted(map(re.escape, _SUIT_ALIASES), key=len, reverse=True))
_CARD_RE: Final = re.compile(rf"({_RANK_PATTERN})(?:\s+of\s+|-of-|\s*)({_SUIT_PATTERN})")
_COMPACT_RE: Final = re.compile(r"(?:10|[a2-9tjqk])[cdhs♣♦♥♠♧♢♡♤]")
_COMPACT_ALL_RE: Final = re.compile(f"(?:{_COMPACT_RE.pattern})+")

_CARDS: Final[list[Card]] = []
"""The 52 interned cards in index order, filled once below."""


class Card:
    """A playing card: immutable, hashable, ordered by rank then suit, and interned.

    >>> Card(Rank.JACK, Suit.HEARTS) is Card.parse("jh")
    True
    >>> sorted([Card.parse("ks"), Card.parse("ac"), Card.parse("kc")])
    [Card.parse('AC'), Card.parse('KC'), Card.parse('KS')]
    """

    __slots__ = ("index", "pips", "rank", "short", "suit")
    index: int
    rank: Rank
    suit: Suit
    pips: int
    short: str
    """Two-character form used in records and JSON: ``5H``, ``TS``, ``KD`` (made once: the web
    server writes a few dozen card names per move)."""

    def __new__(cls, rank: Rank | int, suit: Suit | int) -> Card:
        if not (1 <= rank <= 13 and 0 <= suit <= 3):
            raise CardError(f"no such card: rank {rank!r}, suit {suit!r}")
        index = (int(rank) - 1) * 4 + int(suit)
        if len(_CARDS) == 52:
            return _CARDS[index]
        # Only while this module loads: the 52 cards are made once, in index order. (Made here
        # rather than by ``object.__new__``, which a compiled class refuses; docs/speed.md.)
        card = super().__new__(cls)
        rank = Rank(rank)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", Suit(suit))
        object.__setattr__(card, "index", index)
        object.__setattr__(card, "pips", rank.pips)
        object.__setattr__(card, "short", rank.letter + card.suit.letter)
        return card

    @staticmethod
    def from_index(index: int) -> Card:
        """The card with number ``index`` (0..51), the inverse of `Card.index`."""
        if not 0 <= index < 52:
            raise CardError(f"card index out of range: {index!r}")
        return DECK[index]

    @staticmethod
    def parse(text: str) -> Card:
        """Read one card: ``5h``, ``10s``, ``ts``, ``Kd``, ``K♦``, ``king of diamonds``."""
        return parse_card(text)

    @property
    def unicode(self) -> str:
        """Form for people: ``5♥``, ``10♠``."""
        return self.rank.label + self.suit.symbol

    @property
    def long(self) -> str:
        """Spoken form: ``five of hearts``."""
        return f"{self.rank.word} of {self.suit.word}"

    @property
    def is_red(self) -> bool:
        """Hearts and diamonds."""
        return self.suit.is_red

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (Card.from_index, (self.index,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    def __hash__(self) -> int:
        return self.index

    # Equality is identity (object.__eq__): the 52 cards are interned, and copy and pickle
    # keep them so, which makes `card in hand` and `hand.remove(card)` run at C speed.

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __le__(self, other: Card) -> bool:
        return self.index <= other.index

    def __gt__(self, other: Card) -> bool:
        return self.index > other.index

    def __ge__(self, other: Card) -> bool:
        return self.index >= other.index

    def __str__(self) -> str:
        return self.short

    def __repr__(self) -> str:
        return f"Card.parse({self.short!r})"


for _i in range(52):
    _CARDS.append(Card(_i // 4 + 1, _i % 4))

DECK: Final[tuple[Card, ...]] = tuple(_CARDS)
"""The 52 cards in index order (ace of clubs first, king of spades last)."""

_BY_SHORT: Final[dict[str, Card]] = {}
"""Each card by its short name in either case (``5H``, ``5h``, ``10h``): what records and the
web's messages send, read without the pattern (`parse_card`'s fast path)."""
for _card in DECK:
    for _name in (_card.short, _card.short.replace("T", "10")):
        _BY_SHORT[_name] = _BY_SHORT[_name.lower()] = _card

CardLike = Card | str
"""Anything a public function accepts where a card is wanted: a `Card` or a string to parse."""


def new_deck() -> list[Card]:
    """A fresh, ordered 52-card deck as a list the caller may shuffle."""
    return list(DECK)


def shuffled_deck(rng: random.Random) -> list[Card]:
    """A deck shuffled by the caller's seeded RNG (fifteentwo never uses global randomness)."""
    deck = list(DECK)
    rng.shuffle(deck)
    return deck


def _normal(text: str) -> str:
    return text.strip().lower().translate(_VARIATION_SELECTORS)


def parse_rank(text: str) -> Rank:
    """Read a rank alone: ``k``, ``king``, ``10``, ``t``, ``ace``, ``a``, ``1``.

    >>> parse_rank("Queen"), parse_rank("1")
    (<Rank.QUEEN: 12>, <Rank.ACE: 1>)
    """
    rank = _RANK_ALIASES.get(_normal(text))
    if rank is None:
        raise CardError(f"not a rank: {text!r}")
    return rank


def parse_card(text: object) -> Card:
    """Read exactly one card; raise `CardError` naming the token if it is not one.

    A `Card` is returned as it is, so callers may pass either; anything but a `Card` or a
    string (a number read from a corrupt file, say) raises `CardError` too. (Typed `object`,
    not `CardLike`, so that the compiled module checks it here rather than raising TypeError.)

    >>> parse_card("Q♥"), parse_card("queen of hearts") is parse_card("qh")
    (Card.parse('QH'), True)
    """
    if isinstance(text, Card):
        return text
    if not isinstance(text, str):
        raise CardError(f"not a card: {text!r}")
    known = _BY_SHORT.get(text)
    if known is not None:
        return known
    norm = _normal(text)
    match = _CARD_RE.fullmatch(norm)
    if match is None:
        hint = " (a rank alone is not a card here; add a suit)" if norm in _RANK_ALIASES else ""
        raise CardError(f"not a card: {text!r}{hint}")
    return Card(_RANK_ALIASES[match[1]], _SUIT_ALIASES[match[2]])


def _tokens(text: str) -> list[str]:
    """Split on commas and spaces, joining ``king of diamonds`` into one token.

    Tokens keep the user's spelling, so that an error names what was typed.
    """
    words = [w for w in re.split(r"[\s,;]+", text.strip()) if w]
    tokens: list[str] = []
    i = 0
    while i < len(words):
        if i + 2 < len(words) and words[i + 1].lower() == "of":
            tokens.append(f"{words[i]} of {words[i + 2]}")
            i += 3
        else:
            tokens.append(words[i])
            i += 1
    return tokens


def _parse_token(token: str) -> list[Card]:
    try:
        return [parse_card(token)]
    except CardError:
        # Compact forms such as "5h5c5sjd" hold several cards in one token.
        norm = _normal(token)
        if len(norm) >= 4 and _COMPACT_ALL_RE.fullmatch(norm):
            return [parse_card(t) for t in _COMPACT_RE.findall(norm)]
        raise


def to_cards(cards: str | Iterable[CardLike], *, count: int | None = None) -> list[Card]:
    """Cards from a string or an iterable of Cards/strings; no duplicates; optional exact count."""
    if isinstance(cards, str):
        result = [c for token in _tokens(cards) for c in _parse_token(token)]
    else:
        result = [c if isinstance(c, Card) else parse_card(c) for c in cards]
    seen: set[Card] = set()
    for card in result:
        if card in seen:
            raise CardError(f"duplicate card: {card.short}")
        seen.add(card)
    if count is not None and len(result) != count:
        raise CardError(f"expected {count} cards, got {len(result)}")
    return result


def parse_cards(text: str | Iterable[CardLike], *, count: int | None = None) -> list[Card]:
    """Read a list of distinct cards: ``"5h 5c 5s jd"``, ``"5h,5c"``, ``"ace of spades, 10d"``.

    >>> parse_cards("ace of spades, 10d ts")
    [Card.parse('AS'), Card.parse('TD'), Card.parse('TS')]
    """
    return to_cards(text, count=count)


def card_in_hand(text: str, hand: Sequence[Card]) -> Card:
    """Resolve what a player typed against their hand, as the BSD program does.

    A full card must be in the hand; a rank alone (``k``, ``king``, ``5``) is accepted when exactly
    one card of that rank is held.

    >>> hand = parse_cards("5h kd ks 2c")
    >>> card_in_hand("5", hand), card_in_hand("2 of clubs", hand)
    (Card.parse('5H'), Card.parse('2C'))
    """
    norm = _normal(text)
    if norm in _RANK_ALIASES:
        rank = _RANK_ALIASES[norm]
        matches = [c for c in hand if c.rank == rank]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise CardError(f"no {rank.word} in your hand: {text!r}")
        listed = " ".join(c.short for c in matches)
        raise CardError(f"{text!r} is ambiguous ({listed}); give the suit too")
    card = parse_card(text)
    if card not in hand:
        raise CardError(f"{card.short} is not in your hand")
    return card
