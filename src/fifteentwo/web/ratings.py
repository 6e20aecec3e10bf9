"""Ratings for games between people: Glicko-2 (the ``glicko2`` library), one game a period.

A game is rated only when every seat is a person with an account, and no account holds two
seats (the table refuses an account a second seat; this module never rates such a game
either, nor lets the table say it will: one account on both seats would rate a win and a loss
for itself, farming its rating, as an outside audit found). Each account is updated
against every seat on another side, with the other seats' ratings from before the game, so the
order of updates does not matter; a partnership game counts each opponent once.

Only games people played move a rating (issue 35; docs/web.md, "Ratings"). A side whose seat a
computer had to play (its person was away longer than the table's away time, or ran out of
time on the table's turn timer, even once) *left* the game:
it forfeits, whatever the board said; a side that left cannot gain. If every side left, nobody
played it and the game is unrated. The sides that left are read from the table's stored state
(``left`` marks on its seats, kept with the finished game), so any server process decides alike.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, Final

from fifteentwo.store import Store
from fifteentwo.store.base import RatingUpdate

__all__ = [
    "MIN_LEADERBOARD_GAMES",
    "RATING_RULE",
    "one_seat_each",
    "outcomes",
    "rate_table_game",
    "rating_terms",
]

MIN_LEADERBOARD_GAMES: Final = 5
"""Rated games an account needs before the leaderboard lists it (a new rating is too unsure)."""

RATING_RULE: Final = (
    "Rated: leaving the game forfeits it. A seat the computer has to play for its person (away, "
    "or out of time on the turn timer, even once) loses the game for that side. If every side "
    "leaves, the game is not rated. An account takes one seat: a game against oneself is never "
    "rated."
)
"""What the table shows before a rated game starts."""


def outcomes(sides: int, winner: int, left: Collection[int]) -> list[list[float]] | None:
    """``result[a][b]``: side a's score against side b (1 win, 0 loss), or None when the game
    is unrated because every side left. A side that left loses to every side that stayed; two
    sides that both stayed (or both left) count the board (the winner beats the others)."""
    if sides < 2 or all(side in left for side in range(sides)):
        return None
    table: list[list[float]] = []
    for a in range(sides):
        row = []
        for b in range(sides):
            if (a in left) != (b in left):
                row.append(0.0 if a in left else 1.0)
            else:
                row.append(1.0 if a == winner else 0.0)
        table.append(row)
    return table


def rate_table_game(
    store: Store,
    seats: Sequence[dict[str, Any]],
    winner: int,
    sides: int,
    *,
    left: Collection[int] = (),
    game: str = "",
) -> bool:
    """Rate a finished table game (``winner``: the winning side on the board; ``left``: the
    seats a computer played for, their person away or out of time) if every seat holds an
    account, no account holds two, and someone stayed; True if it was rated. Each change is
    kept with ``game`` (`Store.rating_history`)."""
    import glicko2  # type: ignore[import-untyped]

    ids = [s.get("account") for s in seats]
    if len(ids) < 2 or any(s["kind"] != "person" or not s.get("account") for s in seats):
        return False
    if not one_seat_each(seats):
        return False  # one account on two seats: a game against oneself moves no rating
    left_sides = {int(i) % sides for i in left}
    results = outcomes(sides, winner, left_sides)
    if results is None:
        return False
    accounts = [store.account(str(i)) for i in ids]
    if any(a is None for a in accounts):
        return False
    updates = []
    for i, account in enumerate(accounts):
        assert account is not None
        side = i % sides
        player = glicko2.Player(account.rating, account.rd, account.volatility)
        others = [j for j in range(len(seats)) if j % sides != side]
        ratings = [accounts[j].rating for j in others]  # type: ignore[union-attr]
        rds = [accounts[j].rd for j in others]  # type: ignore[union-attr]
        scores = [results[side][j % sides] for j in others]
        player.update_player(ratings, rds, scores)
        after = float(player.rating)
        if side in left_sides:
            after = min(after, account.rating)  # a side that left cannot gain
            outcome = "forfeit"
        else:
            beat_all = all(results[side][o] == 1.0 for o in range(sides) if o != side)
            outcome = "won" if beat_all else "lost"
        updates.append(
            RatingUpdate(
                account.account_id,
                after,
                float(player.rd),
                player.vol,
                game=game,
                before=account.rating,
                outcome=outcome,
            )
        )
    store.save_ratings(updates)
    return True


def one_seat_each(seats: Sequence[dict[str, Any]]) -> bool:
    """Whether no account holds two seats (one person playing both sides could farm a rating:
    found by an outside audit, which rated such a game as a win and a loss for one account)."""
    accounts = [s["account"] for s in seats if s.get("account")]
    return len(accounts) == len(set(accounts))


def rating_terms(seats: Sequence[dict[str, Any]], *, casual: bool = False) -> dict[str, Any]:
    """What a table tells its people before a game: whether a game here can be rated (not a
    casual table, every seat a person, no account on two seats), whether it will be (every
    seat taken by an account), and the rule."""
    ratable = (
        not casual
        and len(seats) >= 2
        and all(s["kind"] == "person" for s in seats)
        and one_seat_each(seats)
    )
    return {
        "ratable": ratable,
        "will_rate": ratable and all(s.get("account") for s in seats),
        "rating_rule": RATING_RULE if ratable else None,
    }
