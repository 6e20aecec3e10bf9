"""Two ways around "only games people played move a rating", found by an outside audit and
closed: one account on both seats of a rated table (a win and a loss for itself, its rating
farmed), and a person who never moves carried to a win by the turn timer (docs/web.md,
"Ratings: only games people played")."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fifteentwo.store import open_store
from fifteentwo.store.base import Store
from fifteentwo.store.sqlite import SQLiteStore
from fifteentwo.web.ratings import rate_table_game, rating_terms
from fifteentwo.web.tables import TableHub
from test_table_hub import Seat, hub, later, two_people
from test_web_ratings import client, other, register, store_path, two_accounts_named  # noqa: F401  (fixtures)
from test_web_tables import make_table


def test_one_account_on_two_seats_is_never_rated(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    (ann,) = two_accounts_named(store, "ann")
    seats = [ann, {**ann, "name": "ann again"}]
    assert not rating_terms(seats)["will_rate"]
    assert not rate_table_game(store, seats, winner=0, sides=2, game="t/1")
    account = store.account(str(ann["account"]))
    assert account is not None and (account.rating, account.rated_games) == (1500.0, 0)
    assert store.rating_history(account.account_id) == []
    bob = two_accounts_named(store, "bob")[0]
    assert rating_terms([ann, bob])["will_rate"]  # two people: rated as before


def test_a_browser_on_both_seats_of_a_rated_table_is_told_it_will_not_be_rated(
    client: Any,  # noqa: F811
) -> None:
    ann = other(client)
    register(ann, "ann")
    made = make_table(ann, "short", ["person", "person"])
    both = ann.post(f"/api/tables/{made['table']}/sit", json={"seat": None, "name": "me too"})
    assert both.status_code == 201  # one person may play both hands...
    info = ann.get(f"/api/tables/{made['table']}").json()
    assert info["ratable"] and not info["will_rate"]  # ...but it moves no rating


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "tables.sqlite3") as opened:
        yield opened


def test_a_decision_the_turn_timer_makes_marks_the_seat_as_left(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def main() -> None:
        a: TableHub = hub(store)
        made = await a.create(two_people(turn_seconds=5), "p0", "Ann")
        took = await a.sit(made["table"], None, "p1", "Bob")
        await a.join(made["table"], made["token"], Seat(0))
        await a.join(made["table"], took["token"], Seat(1))
        table = await a.load(made["table"])
        assert table.session is not None
        idle = table.session.waiting_for
        assert idle is not None
        assert not any(s.get("left") for s in store.load_table(made["table"]).data["seats"])
        later(monkeypatch, 6)  # the person's time runs out
        await a.sweep()
        seats = store.load_table(made["table"]).data["seats"]
        assert seats[idle].get("left") is True  # that side forfeits a rated game
        assert not seats[1 - idle].get("left")

    asyncio.run(main())
