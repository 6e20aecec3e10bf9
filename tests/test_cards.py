"""Cards: parsing every accepted spelling, errors, printing, ordering, identity and pickling."""

from __future__ import annotations

import copy
import pickle
import random

import pytest

from fifteentwo.cards import (
    DECK,
    Card,
    Rank,
    Suit,
    card_in_hand,
    new_deck,
    parse_card,
    parse_cards,
    parse_rank,
    shuffled_deck,
    to_cards,
)
from fifteentwo.errors import CardError, FifteenTwoError


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("5h", Rank.FIVE, Suit.HEARTS),
        ("5H", Rank.FIVE, Suit.HEARTS),
        ("10s", Rank.TEN, Suit.SPADES),
        ("ts", Rank.TEN, Suit.SPADES),
        ("TS", Rank.TEN, Suit.SPADES),
        ("Kd", Rank.KING, Suit.DIAMONDS),
        ("K♦", Rank.KING, Suit.DIAMONDS),
        ("K♦\ufe0f", Rank.KING, Suit.DIAMONDS),  # emoji variation selector
        ("k♢", Rank.KING, Suit.DIAMONDS),
        ("A♠", Rank.ACE, Suit.SPADES),
        ("ac", Rank.ACE, Suit.CLUBS),
        ("1c", Rank.ACE, Suit.CLUBS),
        ("jc", Rank.JACK, Suit.CLUBS),
        ("Q♥", Rank.QUEEN, Suit.HEARTS),
        ("5 of hearts", Rank.FIVE, Suit.HEARTS),
        ("king of diamonds", Rank.KING, Suit.DIAMONDS),
        ("King Of Diamonds", Rank.KING, Suit.DIAMONDS),
        ("knave of clubs", Rank.JACK, Suit.CLUBS),
        ("ten of spades", Rank.TEN, Suit.SPADES),
        ("  7d  ", Rank.SEVEN, Suit.DIAMONDS),
    ],
)
def test_parse_card_spellings(text: str, rank: Rank, suit: Suit) -> None:
    card = parse_card(text)
    assert (card.rank, card.suit) == (rank, suit)
    assert Card.parse(text) is card


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5h 5c 5s jd", ["5H", "5C", "5S", "JD"]),
        ("5h,5c, 5s;jd", ["5H", "5C", "5S", "JD"]),
        ("5h5c", ["5H", "5C"]),
        ("5h5c5sjd", ["5H", "5C", "5S", "JD"]),
        ("10h10cKS", ["TH", "TC", "KS"]),
        ("5♥5♣", ["5H", "5C"]),
        ("ace of spades, 10d ts", ["AS", "TD", "TS"]),
        ("5 of hearts 6 of clubs king of diamonds", ["5H", "6C", "KD"]),
        ("", []),
    ],
)
def test_parse_cards(text: str, expected: list[str]) -> None:
    assert [c.short for c in parse_cards(text)] == expected


def test_to_cards_accepts_cards_and_strings() -> None:
    five = Card.parse("5h")
    assert to_cards([five, "jd"]) == [five, Card.parse("jd")]
    assert parse_card(five) is five
    assert to_cards("5h 5c", count=2)[1] is Card(Rank.FIVE, Suit.CLUBS)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("5h zz 5s", "not a card: 'zz'"),
        ("5h ZZ", "not a card: 'ZZ'"),  # the token as typed
        ("5x", "not a card: '5x'"),
        ("14h 5c", "not a card: '14h'"),
        ("5h5x", "not a card: '5h5x'"),
        ("q", "a rank alone is not a card here"),
        ("5h 5h", "duplicate card: 5H"),
        ("5h five of hearts", "duplicate card: 5H"),
    ],
)
def test_parse_errors_name_the_token(text: str, message: str) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(text)
    assert message in str(info.value)


def test_wrong_count() -> None:
    with pytest.raises(CardError, match="expected 4 cards, got 3"):
        parse_cards("5h 5c 5s", count=4)


def test_card_errors_are_value_errors_and_fifteentwo_errors() -> None:
    with pytest.raises(ValueError):
        parse_card("xx")
    with pytest.raises(FifteenTwoError):
        parse_card(12)


def test_bad_constructor_arguments() -> None:
    with pytest.raises(CardError):
        Card(14, 0)
    with pytest.raises(CardError):
        Card(1, 4)
    with pytest.raises(CardError):
        Card.from_index(52)
    with pytest.raises(CardError):
        Card.from_index(-1)


def test_parse_rank() -> None:
    assert parse_rank("Queen") is Rank.QUEEN
    assert parse_rank("1") is parse_rank("a") is parse_rank("aces") is Rank.ACE
    assert parse_rank("t") is parse_rank("10") is Rank.TEN
    with pytest.raises(CardError, match="not a rank"):
        parse_rank("14")


def test_card_in_hand_rank_only_when_unambiguous() -> None:
    hand = parse_cards("5h kd ks 2c")
    assert card_in_hand("5", hand) is Card.parse("5h")
    assert card_in_hand("five", hand) is Card.parse("5h")
    assert card_in_hand("2 of clubs", hand) is Card.parse("2c")
    assert card_in_hand("KS", hand) is Card.parse("ks")
    with pytest.raises(CardError, match="ambiguous"):
        card_in_hand("k", hand)
    with pytest.raises(CardError, match="no seven"):
        card_in_hand("7", hand)
    with pytest.raises(CardError, match="not in your hand"):
        card_in_hand("7h", hand)
    with pytest.raises(CardError, match="not a card"):
        card_in_hand("7x", hand)


def test_printing() -> None:
    card = Card.parse("10h")
    assert str(card) == card.short == "TH"
    assert card.unicode == "10♥"
    assert card.long == "ten of hearts"
    assert repr(card) == "Card.parse('TH')"
    assert Card.parse("kd").unicode == "K♦" and Card.parse("as").long == "ace of spades"
    assert Card.parse("qc").is_red is False and Card.parse("qd").is_red is True
    for c in DECK:  # every printed form parses back to the same card
        assert parse_card(c.short) is c
        assert parse_card(c.unicode) is c
        assert parse_card(c.long) is c
        assert eval(repr(c)) is c


def test_rank_and_suit_properties() -> None:
    assert [r.pips for r in Rank] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert "".join(r.letter for r in Rank) == "A23456789TJQK"
    assert Rank.TEN.label == "10" and Rank.JACK.label == "J"
    assert Rank.KING.word == "king"
    assert [s.symbol for s in Suit] == ["♣", "♦", "♥", "♠"]
    assert Suit.HEARTS.word == "hearts" and Suit.HEARTS.letter == "H"


def test_index_layout() -> None:
    assert [c.index for c in DECK] == list(range(52))
    card = Card(Rank.JACK, Suit.SPADES)
    assert card.index == (11 - 1) * 4 + 3 == 43
    assert Card.from_index(43) is card
    assert card.pips == 10


def test_ordering_rank_then_suit() -> None:
    cards = parse_cards("ks ac kc 2d 2c")
    assert [c.short for c in sorted(cards)] == ["AC", "2C", "2D", "KC", "KS"]
    ac, kc = Card.parse("ac"), Card.parse("kc")
    assert ac < kc
    assert ac <= kc
    assert kc > ac
    assert kc >= ac
    assert not ac < Card.parse("ac")


def test_hashing_and_equality() -> None:
    assert len(set(DECK)) == 52
    assert hash(Card.parse("5h")) == Card.parse("5h").index
    assert Card.parse("5h") == Card.parse("five of hearts")
    assert Card.parse("5h") != Card.parse("5c")
    assert Card.parse("5h") != "5h"
    assert {Card.parse("5h"): 1}[Card(5, 2)] == 1


def test_interning() -> None:
    assert Card(5, 2) is Card(Rank.FIVE, Suit.HEARTS) is Card.parse("5h") is DECK[18]


def test_immutable() -> None:
    card = Card.parse("5h")
    with pytest.raises(AttributeError):
        card.rank = Rank.SIX  # type: ignore[misc]


def test_pickle_and_copy_keep_identity() -> None:
    for card in DECK:
        assert pickle.loads(pickle.dumps(card)) is card
        assert copy.copy(card) is card
        assert copy.deepcopy(card) is card
    hand = parse_cards("5h 5c 5s jd")
    assert pickle.loads(pickle.dumps(hand, protocol=0)) == hand


def test_decks() -> None:
    assert new_deck() == list(DECK) and new_deck() is not new_deck()
    a = shuffled_deck(random.Random(7))
    b = shuffled_deck(random.Random(7))
    assert a == b and sorted(a) == list(DECK) and a != list(DECK)


def test_every_short_name_reads_as_the_pattern_reads_it() -> None:
    """`parse_card` reads short names (``5H``, ``5h``, ``10h``) by a table first: every name
    in it, in every spelling, must be the card the general pattern reads, and the short name
    (made once per card) is the rank's letter and the suit's."""
    for card in DECK:
        assert card.short == card.rank.letter + card.suit.letter
        names = {card.short, card.short.lower()}
        names |= {n.replace("T", "10").replace("t", "10") for n in names}
        for name in names:
            assert parse_card(name) is card
            assert parse_card(f" {name} ") is card  # (not in the table: the pattern's path)
            assert parse_card(name.swapcase()) is card
