"""Fuzz: card strings. Whatever a user types or a file holds, parsing raises only `CardError`.

Generated text (any Unicode, control characters, surrogates, enormous tokens, near-misses built
from real card spellings) goes through every public card parser; each either returns cards or
raises `CardError` with a one-line message. docs/reliability.md counts the inputs tried.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fifteentwo.cards import DECK, Card, card_in_hand, parse_card, parse_cards, parse_rank
from fifteentwo.errors import CardError

EXAMPLES = 400
"""Generated inputs per test (4 tests: 1,600 strings, plus the fixed hostile ones)."""

SPELLINGS = [c.short for c in DECK] + [c.unicode for c in DECK] + ["10h", "king of spades", "ace"]
PIECES = st.sampled_from(
    [*SPELLINGS, " ", ",", "of", "\x00", "\x1b[31m", "\ud800", "[/]", "🂡", "\n", "1" * 5000]
)
TEXT = st.one_of(
    st.text(max_size=60),
    st.text(st.characters(codec="utf-8"), max_size=30),
    st.lists(PIECES, max_size=8).map("".join),
    st.lists(PIECES, max_size=8).map(" ".join),
)

HOSTILE = ["", " ", "\x00", "5h\x00", "\ud800", "1" * 10_000, "5h " * 10_000, "[red]5h[/]", "1e999"]


def _only_card_error(parse: Callable[[Any], Any], text: Any) -> None:
    try:
        parse(text)
    except CardError as exc:
        assert str(exc) and "\n" not in str(exc)  # one line, whatever the text held


@settings(max_examples=EXAMPLES, deadline=None)
@given(TEXT)
def test_parse_card_raises_only_card_error(text: str) -> None:
    _only_card_error(parse_card, text)
    _only_card_error(Card.parse, text)


@settings(max_examples=EXAMPLES, deadline=None)
@given(TEXT)
def test_parse_cards_raises_only_card_error(text: str) -> None:
    _only_card_error(parse_cards, text)
    _only_card_error(lambda t: parse_cards(t, count=4), text)


@settings(max_examples=EXAMPLES, deadline=None)
@given(TEXT)
def test_parse_rank_and_card_in_hand_raise_only_card_error(text: str) -> None:
    _only_card_error(parse_rank, text)
    _only_card_error(lambda t: card_in_hand(t, DECK[:6]), text)


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),
        st.lists(st.text(max_size=3), max_size=3),
        st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    )
)
def test_values_that_are_not_strings_are_card_errors(value: object) -> None:
    """A number or list read from a corrupt file where a card belongs."""
    _only_card_error(parse_card, value)


def test_hostile_strings() -> None:
    for text in HOSTILE:
        for parse in (parse_card, parse_cards, parse_rank):
            _only_card_error(parse, text)
