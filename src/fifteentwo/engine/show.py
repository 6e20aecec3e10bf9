"""The show: hands and the crib counted in order, by the engine or claimed by hand (muggins).

`ShowSteps` adds the show to `GameState`; `fifteentwo.game.Game` is built on it.
"""

from __future__ import annotations

from typing import Final

from fifteentwo.actions import DealDone, HandCounted, Phase, Reason, fast_constructor
from fifteentwo.cards import Card, Rank
from fifteentwo.engine.state import GameState
from fifteentwo.scoring import hand_total, hand_total4

__all__ = ["ShowSteps"]

# Phases, reasons and the jack as this module's own constants: reading an enum member off its
# class costs ten times a global load, and a compiled module keeps its Final ones in C
# variables (an imported name would be a dictionary look-up).
_DEAL: Final = Phase.DEAL
_SHOW: Final = Phase.SHOW
_HAND: Final = Reason.HAND
_CRIB: Final = Reason.CRIB
_MUGGINS_REASON: Final = Reason.MUGGINS

_new_deal_done = fast_constructor(DealDone)
_new_hand_counted = fast_constructor(HandCounted)


class ShowSteps(GameState):
    """The show's steps (the play ends in `_begin_show`)."""

    __slots__ = ()

    def _begin_show(self) -> None:
        n = self._n
        self.phase = _SHOW
        self._show = [((self.dealer + i) % n, False) for i in range(1, n + 1)]
        self._show.append((self.dealer, True))
        self._run_show()

    def _show_cards(self, seat: int, crib: bool) -> tuple[Card, ...]:
        return tuple(self.crib) if crib else self.kept[seat]

    def _show_total(self, seat: int, crib: bool) -> int:
        return self._total(self._show_cards(seat, crib), crib)

    def _total(self, cards: tuple[Card, ...], crib: bool) -> int:
        starter = self.starter
        assert starter is not None
        if len(cards) == 4:
            a, b, c, d = cards
            total = hand_total4(a.index, b.index, c.index, d.index, starter.index, crib)
        else:
            total = hand_total([card.index for card in cards], starter.index, crib)
        if crib and not self._nobs_in_crib:
            jack = Card(Rank.JACK, starter.suit)
            if jack in cards:
                total -= 1
        return total

    def _run_show(self) -> None:
        """Count automatic hands in order until a manual count is due or the deal is done."""
        show = self._show
        manual = self.manual_count
        while show:
            seat, crib = show[0]
            if seat in manual:
                return
            cards = tuple(self.crib) if crib else self.kept[seat]
            total = self._total(cards, crib)
            self._count_hand(seat, crib, total, total, cards)
            del show[0]
        self._end_deal()

    def _count_hand(
        self, seat: int, crib: bool, total: int, claimed: int, cards: tuple[Card, ...] = ()
    ) -> None:
        cards = cards or self._show_cards(seat, crib)
        starter = self.starter
        assert starter is not None
        self.shown += ((seat, crib, cards),)
        self._out.append(
            _new_hand_counted(seat, cards, starter, crib, total, claimed, self._nobs_in_crib)
        )
        pegged = claimed if claimed <= total else total  # an over-claim is corrected
        if pegged:
            self._score(seat, pegged, _CRIB if crib else _HAND, cards)

    def _claim(self, points: int) -> None:
        """A claim is final, as at a real table (no counting again until the total is found).
        Too few: with muggins the next seat (an opponent) may take the points missed. Too
        many: the owner pegs the true total, and with muggins the opponent may take the
        excess too (Britannica law 19, ACC practice; docs/rules.md)."""
        seat, crib = self._show[0]
        total = self._show_total(seat, crib)
        self._count_hand(seat, crib, total, points)
        if points != total and self.rules.muggins:
            self._muggins = ((seat + 1) % self._n, abs(total - points))
            return
        self._show.pop(0)
        self._run_show()

    def _resolve_muggins(self, take: bool) -> None:
        assert self._muggins is not None
        opponent, missed = self._muggins
        self._muggins = None
        self._show.pop(0)
        if take:
            self._score(opponent, missed, _MUGGINS_REASON)
        self._run_show()

    @property
    def pending_muggins(self) -> int | None:
        """Points an opponent may take by muggins now, if that decision is pending."""
        return None if self._muggins is None else self._muggins[1]

    def _end_deal(self) -> None:
        self._out.append(_new_deal_done(tuple(self.scores)))
        self.dealer = self.pone
        self.phase = _DEAL
