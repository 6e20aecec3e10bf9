"""Ratings for games between people: Glicko-2 (the ``glicko2`` library), one game a period.

A game is rated only when every seat is a person with an account. Each account is updated
against every seat on another side, with the other seats' ratings from before the game, so the
order of updates does not matter; a partnership game counts each opponent once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fifteentwo.store import Store
from fifteentwo.store.base import RatingUpdate

__all__ = ["rate_table_game"]


def rate_table_game(store: Store, seats: Sequence[dict[str, Any]], winner: int, sides: int) -> bool:
    """Rate a finished table game (``winner``: the winning side) if every seat holds an
    account; True if it was rated."""
    import glicko2  # type: ignore[import-untyped]

    ids = [s.get("account") for s in seats]
    if len(ids) < 2 or any(s["kind"] != "person" or not s.get("account") for s in seats):
        return False
    accounts = [store.account(str(i)) for i in ids]
    if any(a is None for a in accounts):
        return False
    updates = []
    for i, account in enumerate(accounts):
        assert account is not None
        player = glicko2.Player(account.rating, account.rd, account.volatility)
        others = [j for j in range(len(seats)) if j % sides != i % sides]
        ratings = [accounts[j].rating for j in others]  # type: ignore[union-attr]
        rds = [accounts[j].rd for j in others]  # type: ignore[union-attr]
        outcomes = [1 if i % sides == winner else 0 for _ in others]
        player.update_player(ratings, rds, outcomes)
        updates.append(
            RatingUpdate(account.account_id, float(player.rating), float(player.rd), player.vol)
        )
    store.save_ratings(updates)
    return True
