"""Scripted deals for engine tests: exact hands, discards, starter and play, no RNG involved.

A test names the hands as dealt (in seat order), what each seat lays away, the starter, and
then plays card by card, so every point is one the test counted by hand. The helpers assert
that it is the expected seat's turn, so a script that drifts from the rules fails loudly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fifteentwo.actions import (
    GO,
    CardPlayed,
    Count,
    DealHands,
    Discard,
    Event,
    GameOver,
    GoSaid,
    HandCounted,
    Phase,
    Play,
    Reason,
    Scored,
    TurnStarter,
)
from fifteentwo.cards import Card, parse_cards
from fifteentwo.game import Game
from fifteentwo.rules import Rules, find_rules


def cards(text: str) -> tuple[Card, ...]:
    """Cards from text such as ``"5h 5c js"``."""
    return tuple(parse_cards(text))


def card(text: str) -> Card:
    """One card from text such as ``"5h"``."""
    (one,) = cards(text)
    return one


def new_game(
    rules: Rules | str = "standard",
    *,
    dealer: int = 1,
    manual_count: Iterable[int] = (),
    cut_seats: Iterable[int] = (),
    seed: int = 0,
) -> Game:
    """A game whose first dealer is fixed (no cut for deal); seat 0 is the pone by default."""
    if isinstance(rules, str):
        rules = find_rules(rules)
    return Game(
        rules, seed=seed, first_dealer=dealer, manual_count=manual_count, cut_seats=cut_seats
    )


def set_scores(game: Game, *scores: int) -> None:
    """Start from a position later in a game: set each side's score (before a deal)."""
    assert len(scores) == len(game.scores)
    game.scores[:] = scores


def deal(game: Game, *hands: str, pack: str = "") -> list[Event]:
    """Deal these hands (seat order) and pack cards to the crib."""
    assert game.phase is Phase.DEAL, game.phase
    return game.apply(DealHands(tuple(cards(h) for h in hands), cards(pack)))


def lay_away(game: Game, *discards: str) -> list[Event]:
    """Each seat's discard, in seat order (applied in the order the game asks for them)."""
    events: list[Event] = []
    while game.phase is Phase.DISCARD:
        seat = game.to_move
        assert seat is not None and seat >= 0
        events += game.apply(Discard(tuple(sorted(cards(discards[seat])))))
    return events


def turn_up(game: Game, starter: str) -> list[Event]:
    """Turn this card as the starter."""
    assert game.phase is Phase.STARTER, game.phase
    return game.apply(TurnStarter(card(starter)))


def setup(game: Game, hands: Sequence[str], discards: Sequence[str], starter: str) -> list[Event]:
    """Deal, lay away and turn the starter: the game is then in the play (or over)."""
    return deal(game, *hands) + lay_away(game, *discards) + turn_up(game, starter)


def play(game: Game, seat: int, text: str) -> list[Event]:
    """``seat`` plays a card (``"go"`` to say go); it must be that seat's turn."""
    assert game.to_move == seat, f"seat {game.to_move} is to play, not seat {seat}"
    if text == "go":
        return game.apply(GO)
    return game.apply(Play(card(text)))


def play_out(game: Game, moves: Sequence[tuple[int, str]]) -> list[Event]:
    """Several `play` calls; returns all their events."""
    events: list[Event] = []
    for seat, text in moves:
        events += play(game, seat, text)
    return events


def claim(game: Game, seat: int, points: int) -> list[Event]:
    """``seat`` (a manual counter) claims ``points`` for the hand or crib it is showing."""
    assert game.to_move == seat, f"seat {game.to_move} is to count, not seat {seat}"
    return game.apply(Count(points))


def scored(events: Iterable[Event]) -> list[tuple[int, int, Reason]]:
    """(seat, points, reason) of every score in ``events``."""
    return [(e.seat, e.points, e.reason) for e in events if isinstance(e, Scored)]


def pegged(events: Iterable[Event]) -> list[tuple[int, int, Reason]]:
    """(seat, points, reason) of the points pegged in the play (not the show)."""
    play = (Reason.PLAY, Reason.GO, Reason.LAST_CARD)
    return [s for s in scored(events) if s[2] in play]


def counts(events: Iterable[Event]) -> list[int]:
    """The running count after each card played in ``events``."""
    return [e.count for e in events if isinstance(e, CardPlayed)]


def goes(events: Iterable[Event]) -> list[int]:
    """Seats that said go (or could not come in) in ``events``."""
    return [e.seat for e in events if isinstance(e, GoSaid)]


def shown(events: Iterable[Event]) -> list[tuple[int, bool, int]]:
    """(seat, is crib, total) of every hand counted in ``events``."""
    return [(e.seat, e.crib, e.total) for e in events if isinstance(e, HandCounted)]


def game_over(events: Iterable[Event]) -> GameOver:
    """The one `GameOver` in ``events``."""
    (over,) = [e for e in events if isinstance(e, GameOver)]
    return over
