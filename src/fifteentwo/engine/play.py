"""The play of the cards: the count, goes, the series, and the points pegged on the way.

`PlaySteps` adds the play to the state and the show it leads into.
"""

from __future__ import annotations

from typing import Final

from fifteentwo.actions import (
    GO,
    Action,
    CardPlayed,
    CountReset,
    GoSaid,
    Reason,
    fast_constructor,
)
from fifteentwo.cards import DECK, Card
from fifteentwo.engine.show import ShowSteps
from fifteentwo.scoring import GO_POINTS, LAST_CARD_POINTS, RUN_TAIL3, peg_points_ranks

__all__ = ["PlaySteps"]

# Phases, reasons and the jack as this module's own constants: reading an enum member off its
# class costs ten times a global load, and a compiled module keeps its Final ones in C
# variables (an imported name would be a dictionary look-up).
_PLAY_REASON: Final = Reason.PLAY
_GO_REASON: Final = Reason.GO
_LAST_CARD: Final = Reason.LAST_CARD

_RANK_OF: Final = tuple(i // 4 + 1 for i in range(52))
"""Rank (1..13) of each card index, as a plain int for `peg_points_ranks`."""

# Events are immutable values, so the engine shares one object per value where there are few.
_GO_SAID: Final = tuple(GoSaid(seat) for seat in range(4))
_COUNT_RESET: Final = tuple(CountReset(seat) for seat in range(4))
_SEAT_CARD: Final = tuple(tuple((seat, card) for card in DECK) for seat in range(4))
"""``(seat, card)`` pairs for `Game.played`, shared rather than built per play."""
_CARD_PLAYED: Final[dict[int, CardPlayed]] = {}
"""Each `CardPlayed` made so far, by count, card and seat (at most 32 * 52 * 4 of them)."""
_new_card_played = fast_constructor(CardPlayed)


class PlaySteps(ShowSteps):
    """The play's steps and the legal plays."""

    __slots__ = ()

    def _legal_plays(self, seat: int) -> tuple[Action, ...]:
        """The cards ``seat`` may play (a prefix of its hand: pips rise along it), then go if
        nothing comes in or (five-card) another seat has said go."""
        hand = self.hands[seat]
        k = len(hand)
        limit = 31 - self.count
        while k and hand[k - 1].pips > limit:
            k -= 1
        legal: tuple[Action, ...] = self._plays[seat][:k]
        if not k or (self._optional_go and any(self.passed)):
            legal += (GO,)
        return legal

    def _may_pass(self, seat: int) -> bool:
        """Go is legal when no card comes in, or after an opponent's go in five-card play."""
        hand = self.hands[seat]
        if not hand or hand[0].pips > 31 - self.count:  # the hand is in rank order
            return True
        return self._optional_go and any(self.passed)

    def _play(self, seat: int, card: Card, at: int) -> None:
        """``seat`` plays ``card``, which is ``hands[seat][at]``."""
        del self.hands[seat][at]
        plays = self._plays[seat]
        self._plays[seat] = plays[:at] + plays[at + 1 :]
        pile = self.pile
        pile.append(card)
        ranks = self._pile_ranks
        ranks.append(_RANK_OF[card.index])
        count = self.count + card.pips
        self.count = count
        self.played.append(_SEAT_CARD[seat][card.index])
        self.last_player = seat
        key = (count * 52 + card.index) * 4 + seat
        event = _CARD_PLAYED.get(key)
        if event is None:
            event = _CARD_PLAYED[key] = _new_card_played(seat, card, count)
        self._out.append(event)
        n = len(ranks)
        # A lone card cannot score (it counts at most 10). Most plays score nothing: fifteen,
        # thirty-one, a pair and a run of the last three are checked here before the full count.
        if n > 1 and (
            count == 15  # noqa: PLR1714
            or count == 31
            or ranks[-2] == ranks[-1]
            or (n > 2 and RUN_TAIL3[(ranks[-1] * 14 + ranks[-2]) * 14 + ranks[-3]])
        ):
            points = peg_points_ranks(ranks, count)
            if points:
                self._score(seat, points, _PLAY_REASON, tuple(pile))
        if count == 31:
            self._end_series()
            return
        # Usually the next seat simply plays on; `_next_turn` handles goes and empty hands.
        nxt = seat + 1
        if nxt == self._n:
            nxt = 0
        hand = self.hands[nxt]
        if hand and hand[0].pips <= 31 - count and not self.passed[nxt]:
            self.turn = nxt
        else:
            self._next_turn(seat)

    def _say_go(self, seat: int) -> None:
        passed = self.passed
        self.passed = (*passed[:seat], True, *passed[seat + 1 :])
        self._out.append(_GO_SAID[seat])

    def _next_turn(self, after: int) -> None:
        """Find the next seat that can come in; seats that cannot say go, with no cards skip."""
        n = self._n
        limit = 31 - self.count
        hands = self.hands
        passed = self.passed
        seat = after
        for _ in range(n):
            seat += 1
            if seat == n:
                seat = 0
            hand = hands[seat]
            if not hand or passed[seat]:
                continue
            if hand[0].pips <= limit:  # the hand is in rank order: its lowest card is first
                self.turn = seat
                return
            self._say_go(seat)
        self._end_series()

    def _end_series(self) -> None:
        last = self.last_player
        assert last is not None
        hands = self.hands
        cards_left = any(hands)
        if self.count != 31:
            if cards_left:
                self._score(last, GO_POINTS, _GO_REASON)
            else:
                self._score(last, LAST_CARD_POINTS, _LAST_CARD)
        if not cards_left or not self._second_series:
            self._begin_show()
            return
        n = self._n
        leader = next((last + i) % n for i in range(1, n + 1) if hands[(last + i) % n])
        self.pile, self._pile_ranks, self.count = [], [], 0
        self.passed = (False,) * n
        self.turn = leader
        self._out.append(_COUNT_RESET[leader])
