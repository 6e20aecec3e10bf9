"""Plain-English lines for engine events, from one seat's point of view.

Used by the plain line mode as its output and by the Textual app for its log, so both tell the
game the same way. ``quiet`` gives the short forms (BSD's ``-q``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from fifteentwo.actions import (
    CardPlayed,
    CountReset,
    DealDone,
    DealerChosen,
    Dealt,
    Discarded,
    Event,
    GameOver,
    GoSaid,
    HandCounted,
    MatchOver,
    Reason,
    Scored,
    StarterTurned,
)
from fifteentwo.cards import Card, parse_card
from fifteentwo.rules import Rules
from fifteentwo.scoring import number_word, peg_score

__all__ = [
    "NAME_LIMIT",
    "Describer",
    "cards_text",
    "choice_range",
    "game_name",
    "refusal_sentence",
    "rules_name",
    "safe_text",
]

SKUNK_WORDS = ("", "a skunk", "a double skunk")

NAME_LIMIT = 60
"""Characters of a player's name shown; a longer name (from a record file) is cut with "…"."""


def safe_text(text: object, limit: int = NAME_LIMIT) -> str:
    r"""Untrusted text (a player's name, anything read from a file) as plain, printable text.

    Control and format characters (ANSI escape sequences, newlines, bidirectional overrides) are
    shown as their escapes (``\x1b``) so they never reach the terminal raw, and the text is cut
    to ``limit`` characters, so a name of megabytes costs no more to show than a short one. Rich
    markup is *not* escaped here (this text also goes to plain output): a front-end printing
    through Rich passes it through `rich.markup.escape` or a `rich.text.Text`.

    >>> safe_text("Ann\x1b[31m"), safe_text("x" * 70, 5)
    ('Ann\\x1b[31m', 'xxxxx…')
    """
    value = text if isinstance(text, str) else str(text)
    head = value[:limit]
    shown = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in head)
    return shown + "…" if len(value) > limit else shown


def cards_text(cards: Iterable[Card], *, ascii_only: bool = False) -> str:
    """Cards for people: ``5♥ 10♦`` (or ``5H 10D`` with ``ascii_only``, as people type them)."""
    if ascii_only:
        return " ".join(c.rank.label + c.suit.letter for c in cards)
    return " ".join(c.unicode for c in cards)


def game_name(variant: str, target: int, match_games: int = 1) -> str:
    """The one name of a game, in every front-end and listing: the variant as the rules call it
    and the target (a standard game to 15 is ``standard to 15``, never a "short game").

    >>> game_name("short", 61), game_name("standard", 15), game_name("five-card", 61, 3)
    ('short to 61', 'standard to 15', 'five-card to 61, best of 3')
    """
    match = f", best of {match_games}" if match_games > 1 else ""
    return f"{variant} to {target}{match}"


def rules_name(rules: Rules) -> str:
    """`game_name` of a game's rules."""
    return game_name(rules.name, rules.target, rules.match_games)


_SHORT_CARD = re.compile(r"\b(?:10|[A2-9TJQK])[CDHS]\b")
"""A card as the engine's messages name it (`Card.short`: ``8S``, ``TH``)."""


def refusal_sentence(text: str) -> str:
    """The engine's refusal as a screen says it: each card as it is drawn (``8♠``, not ``8S``),
    a capital letter and a full stop.

    >>> refusal_sentence("8S would take the count past 31 (count is 29)")
    '8♠ would take the count past 31 (count is 29).'
    >>> refusal_sentence("the game is over."), refusal_sentence("TH is not in seat 0's hand")
    ('The game is over.', "10♥ is not in seat 0's hand.")
    """
    text = _SHORT_CARD.sub(lambda m: parse_card(m.group()).unicode, text.strip())
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else f"{text}."


def choice_range(lo: int, hi: int) -> str:
    """What a prompt offers: ``1-6``, or just ``1`` when there is one choice (not ``1-1``).

    >>> choice_range(1, 6), choice_range(1, 1), choice_range(4, 4)
    ('1-6', '1', '4')
    """
    return str(lo) if lo >= hi else f"{lo}-{hi}"


class Describer:
    """Turns events into sentences for one viewer."""

    def __init__(
        self,
        rules: Rules,
        names: Sequence[str],
        viewer: int | None,
        *,
        quiet: bool = False,
        ascii_only: bool = False,
    ) -> None:
        self.rules = rules
        self.names = [safe_text(name) for name in names]
        self.viewer = viewer
        self.quiet = quiet
        self.ascii_only = ascii_only

    def who(self, seat: int, *, capital: bool = True) -> str:
        """``You`` for the viewer, else the seat's name."""
        if seat == self.viewer:
            return "You" if capital else "you"
        return self.names[seat]

    def side_name(self, side: int) -> str:
        """A score's owner: a player, or a partnership."""
        if not self.rules.partnerships:
            return self.who(side)
        a, b = side, side + 2
        return f"{self.who(a)} and {self.who(b, capital=False)}"

    def verb(self, seat: int, you: str, other: str) -> str:
        """The verb form for the subject (``You play`` / ``Ann plays``)."""
        return you if seat == self.viewer else other

    def cards(self, cards: Iterable[Card]) -> str:
        """Cards as this describer prints them."""
        return cards_text(cards, ascii_only=self.ascii_only)

    def scores(self, scores: Sequence[int]) -> str:
        """``You 45, Computer 50``."""
        return ", ".join(f"{self.side_name(i)} {s}" for i, s in enumerate(scores))

    def lines(self, events: Iterable[Event], held_at: int = -1) -> list[str]:
        """All the sentences for some events (some events say nothing); the hand counted at
        index ``held_at`` said by its claim alone (`claim_only`: its muggins question is still
        to be answered)."""
        out = []
        for i, event in enumerate(events):
            if i == held_at and isinstance(event, HandCounted):
                text: str | None = self.claim_only(event)
            else:
                text = self.describe(event)
            if text:
                out.append(text)
        return out

    def describe(self, event: Event) -> str | None:
        """One sentence for one event, or None when there is nothing worth saying."""
        if isinstance(event, DealerChosen):
            cuts = "; ".join(
                f"{self.who(s)} {self.verb(s, 'cut', 'cuts')} {self.cards([c])}"
                for s, c in event.cuts
            )
            if event.dealer is None:
                return f"{cuts}: a tie, so cut again."
            dealer = event.dealer
            return f"{cuts}. {self.who(dealer)} {self.verb(dealer, 'deal', 'deals')} first."
        if isinstance(event, Dealt):
            crib = "your" if event.dealer == self.viewer else f"{self.names[event.dealer]}'s"
            deals = self.verb(event.dealer, "deal", "deals")
            text = f"{self.who(event.dealer)} {deals}; it is {crib} crib."
            if self.viewer is not None and event.hands[self.viewer] is not None:
                hand = sorted(event.hands[self.viewer] or ())
                text += f" Your hand: {self.cards(hand)}."
            return text
        if isinstance(event, Discarded):
            if event.cards is not None and event.seat == self.viewer:
                return f"You lay away {self.cards(event.cards)}."
            if self.quiet:
                return None
            n = number_word(event.count)
            noun = "card" if event.count == 1 else "cards"
            lays = self.verb(event.seat, "lay", "lays")
            return f"{self.who(event.seat)} {lays} away {n} {noun}."
        if isinstance(event, StarterTurned):
            return f"The starter is {self.cards([event.card])}."
        if isinstance(event, CardPlayed):
            return (
                f"{self.who(event.seat)} {self.verb(event.seat, 'play', 'plays')} "
                f"{self.cards([event.card])} for {event.count}."
            )
        if isinstance(event, GoSaid):
            return f"{self.who(event.seat)} {self.verb(event.seat, 'say', 'says')} go."
        if isinstance(event, CountReset):
            if self.quiet:
                return None
            return f"The count starts again; {self.who(event.leader, capital=False)} to lead."
        if isinstance(event, Scored):
            return self._scored(event)
        if isinstance(event, HandCounted):
            return self._counted(event)
        if isinstance(event, DealDone):
            return f"Scores: {self.scores(event.scores)}."
        if isinstance(event, GameOver):
            skunk = f", {SKUNK_WORDS[event.skunk]}" if event.skunk else ""
            score = "-".join(str(s) for s in sorted(event.scores, reverse=True))
            win = self.verb(event.winner, "win", "wins") if not self.rules.partnerships else "win"
            return f"{self.side_name(event.winner)} {win} the game {score}{skunk}."
        if isinstance(event, MatchOver):
            if self.rules.match_games == 1:
                return None
            points = "-".join(str(p) for p in event.match_points)
            win = self.verb(event.winner, "win", "wins")
            return f"{self.side_name(event.winner)} {win} the match ({points} in game points)."
        return None

    def _scored(self, event: Scored) -> str | None:
        if event.reason in (Reason.HAND, Reason.CRIB):
            return None  # said with the count itself
        who = self.who(event.seat)
        peg = self.verb(event.seat, "peg", "pegs")
        if event.reason is Reason.PLAY:
            what = peg_score(event.cards).say()
            return f"{who}: {what}." if self.quiet else f"{who} {peg} {event.points}: {what}."
        what = {
            Reason.GO: "for the go",
            Reason.LAST_CARD: "for last card",
            Reason.HIS_HEELS: "for his heels",
            Reason.THREE_FOR_LAST: "for three for last",
            Reason.MUGGINS: "by muggins",
        }[event.reason]
        return f"{who} {peg} {event.points} {what}."

    def _shown_subject(self, event: HandCounted) -> tuple[str, str]:
        """``Your hand`` / ``Ann's crib`` and its cards with the starter."""
        owner = self.who(event.seat)
        if event.crib:
            subject = (
                "Your crib" if event.seat == self.viewer else f"{self.names[event.seat]}'s crib"
            )
        else:
            subject = "Your hand" if event.seat == self.viewer else f"{owner}'s hand"
        return subject, f"{self.cards(sorted(event.cards))} with {self.cards([event.starter])}"

    def count_said(self, event: HandCounted) -> str:
        """The hand's count as spoken, with its total: ``fifteen two, ... is six (6)``, or
        ``nineteen: no score`` said once for a hand worth nothing."""
        if event.total == 0:
            return "nineteen: no score"
        if self.quiet:
            return str(event.total)
        return f"{event.score().say()} ({event.total})"

    def _counted(self, event: HandCounted) -> str:
        owner = self.who(event.seat)
        subject, cards = self._shown_subject(event)
        text = f"{subject} ({cards}): {self.count_said(event)}."
        if event.claimed != event.total:
            text += f" {self.verb(event.seat, 'You', owner)} claimed {event.claimed}."
        return text

    def claim_only(self, event: HandCounted) -> str:
        """A hand shown with only its owner's claim, not the true count: what an opponent
        who may call muggins sees before deciding (they must spot a miss themselves)."""
        subject, cards = self._shown_subject(event)
        claims = self.verb(event.seat, "claim", "claims")
        return f"{subject} ({cards}): {self.who(event.seat)} {claims} {event.claimed}."

    def muggins_call(self, event: HandCounted) -> str:
        """The muggins question about a claim short of its hand, asked by the claim alone (the
        full-screen game's words; the web's): ``Muggins: Computer claims 4. Call muggins on
        that count?``. The true count is said after the answer (`claim_verdict`)."""
        claims = self.verb(event.seat, "claim", "claims")
        return (
            f"Muggins: {self.who(event.seat)} {claims} {event.claimed}. Call muggins on that count?"
        )

    def muggins_question(self, event: HandCounted) -> str:
        """The muggins question about a claim that was wrong, for the seat that may take the
        difference: points the owner missed (too few claimed), or the excess of an over-claim
        (the owner pegged the true total; with muggins the opponent may take the excess too)."""
        whose = "your" if event.seat == self.viewer else "their"
        what = f"{whose} {'crib' if event.crib else 'hand'}"
        who = self.who(event.seat)
        n = abs(event.claimed - event.total)
        points = "point" if n == 1 else "points"
        if event.claimed < event.total:
            return (
                f"Muggins: {who} claimed {event.claimed}, {n} short of the {event.total} "
                f"{what} is worth. Take the {n} {points} missed?"
            )
        return (
            f"Muggins: {who} claimed {event.claimed}, corrected to {event.total}. "
            f"Take the {n} {points} over-claimed?"
        )

    def claim_verdict(self, event: HandCounted) -> str:
        """After the muggins question: what the claim missed (or over-claimed), with the
        true count."""
        whose = "your" if event.seat == self.viewer else "their"
        what = f"{whose} {'crib' if event.crib else 'hand'}"
        who = self.who(event.seat)
        if event.claimed < event.total:
            missed = event.total - event.claimed
            verb = self.verb(event.seat, "missed", "missed")
            return (
                f"{who} {verb} {missed}: {what} was worth {event.total}, {self.count_said(event)}."
            )
        over = event.claimed - event.total
        return (
            f"{who} claimed {over} too many: {what} was worth {event.total}, "
            f"{self.count_said(event)}."
        )
