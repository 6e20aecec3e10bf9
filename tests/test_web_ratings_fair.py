"""Two ways around "only games people played move a rating", found by an outside audit and
closed (docs/web.md, "Ratings: only games people played"):

- one account on both seats of a rated table (a win and a loss for itself, its rating farmed):
  the table refuses the account a second seat, and a game one account holds two seats of is
  never rated nor said to be;
- a person who never moves, carried to a win by the turn timer: a decision the timer makes for
  a seat marks it left, so that side forfeits a rated game (from the first such decision), and
  the result says how many decisions the timer made for each seat (``out_of_time``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from fifteentwo.store import open_store
from fifteentwo.store.base import Store
from fifteentwo.store.sqlite import SQLiteStore
from fifteentwo.web.games import Refused
from fifteentwo.web.ratings import rate_table_game, rating_terms
from fifteentwo.web.tables import TableHub
from test_table_hub import Seat, action, hub, two_people
from test_web_ratings import client, login, other, register, store_path, two_accounts_named  # noqa: F401  (fixtures)
from test_web_tables import make_table, sit

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "tables.sqlite3") as opened:
        yield opened


class Clock:
    """The tables' clock (``time.time`` and the sweeper's ``utc_now``), moved on by hand: a
    turn timer runs out without a real wait."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import fifteentwo.web.tables as tables_module

        self.now = time.time()
        monkeypatch.setattr(tables_module, "utc_now", lambda: datetime.fromtimestamp(self.now, UTC))
        monkeypatch.setattr(tables_module.time, "time", lambda: self.now)

    def advance(self, seconds: float) -> None:
        self.now += seconds


async def rated_table(a: TableHub, store: Store, **settings: Any) -> tuple[str, list[str]]:
    """A rated two-person short table, ann on seat 0 and bob on seat 1, both connected (seat
    accounts noted as the web routes note them); returns its id and the two account ids."""
    ann, bob = two_accounts_named(store, "ann", "bob")
    made = await a.create(
        two_people(**settings), f"a:{ann['account']}", "Ann", account=ann["account"], username="ann"
    )
    took = await a.sit(
        made["table"], None, f"a:{bob['account']}", "Bob", account=bob["account"], username="bob"
    )
    await a.join(made["table"], made["token"], Seat(0))
    await a.join(made["table"], took["token"], Seat(1))
    return made["table"], [str(ann["account"]), str(bob["account"])]


async def play_out(
    a: TableHub, table_id: str, clock: Clock, idle: Callable[[int, int], bool]
) -> dict[str, Any]:
    """Play the game to its end: a seat answers with the tests' policy, unless ``idle(seat,
    turn)`` (``turn``: how many of its decisions came before), when it lets its time run out
    and the sweeper's turn timer decides. Returns the table's stored data (results stored)."""
    turns = [0, 0]
    for _ in range(2000):
        table = await a.load(table_id)
        if table.status == "finished":
            await a.drain()  # (storing and rating the result, detached by the last move)
            return (await a.load(table_id)).data
        assert table.session is not None
        seat = table.session.waiting_for
        assert seat is not None
        turn, turns[seat] = turns[seat], turns[seat] + 1
        if idle(seat, turn):
            clock.advance(6)  # the table's 5 seconds run out
            await a.sweep()
        else:
            view = a.state(table, seat)
            await a.act(table_id, seat, view["decision"], action(view))
    raise AssertionError("the game did not finish")


def changes(store: Store, account: str) -> list[Any]:
    return list(store.rating_history(account))


# --- one account, one seat -----------------------------------------------------------------------


def test_an_account_is_refused_a_second_seat_at_a_rated_table(
    client: Any,  # noqa: F811
) -> None:
    """The audit's repro: one cookie creates a rated table and sits again. Refused (409
    ``already_seated``); the seat stays free for someone else, whose game is rated."""
    ann = other(client)
    register(ann, "ann")
    made = make_table(ann, "short", ["person", "person"])
    again = ann.post(f"/api/tables/{made['table']}/sit", json={"seat": None, "name": "me too"})
    assert again.status_code == 409, again.text
    assert again.json()["code"] == "already_seated"
    assert "different accounts" in again.json()["message"]
    info = ann.get(f"/api/tables/{made['table']}").json()
    assert info["status"] == "open" and not info["seats"][1]["taken"]
    assert not info["will_rate"]
    bob = other(client)
    register(bob, "bob")
    sit(bob, made["table"], "")
    info = bob.get(f"/api/tables/{made['table']}").json()
    assert info["status"] == "playing" and info["will_rate"]
    assert [s["account"] for s in info["seats"]] == ["ann", "bob"]


def test_the_same_account_on_another_device_is_refused_the_second_seat(
    client: Any,  # noqa: F811
) -> None:
    ann = other(client)
    register(ann, "ann")
    made = make_table(ann, "short", ["person", "person"])
    phone = other(client)
    login(phone, "ann")
    again = phone.post(f"/api/tables/{made['table']}/sit", json={"seat": 1, "name": "Ann"})
    assert again.status_code == 409 and again.json()["code"] == "already_seated"


def test_one_person_may_still_play_both_hands_where_no_rating_is_at_stake(
    client: Any,  # noqa: F811
) -> None:
    """An unrated table, or a browser without an account: both hands, as before (unrated)."""
    ann = other(client)
    register(ann, "ann")
    casual = make_table(ann, "short", ["person", "person"], rated=False)
    sit(ann, casual["table"], "me too")
    info = ann.get(f"/api/tables/{casual['table']}").json()
    assert info["status"] == "playing" and not info["ratable"] and not info["will_rate"]
    anonymous = other(client)
    table = make_table(anonymous, "short", ["person", "person"])
    sit(anonymous, table["table"], "me too")
    info = anonymous.get(f"/api/tables/{table['table']}").json()
    assert info["status"] == "playing" and not info["will_rate"]


def test_a_table_made_signed_in_is_stored_with_the_creators_account_on_its_seat(
    client: Any,  # noqa: F811
    store_path: Path,  # noqa: F811
) -> None:
    """The creator's seat is noted with their account in the write that makes the table: the
    row as first written (version 1) has it, with no second write to tag it."""
    ann = other(client)
    register(ann, "ann")
    made = make_table(ann, "short", ["person", "person"])
    with open_store(store_path) as store:
        row = store.load_table(made["table"])
        account = store.account_by_name("ann")
    assert account is not None
    seat = row.data["seats"][made["seat"]]
    assert (row.version, seat["account"], seat["username"]) == (1, account.account_id, "ann")


def test_the_hub_notes_the_creators_account_when_it_makes_the_table(store: Store) -> None:
    async def main() -> None:
        a = hub(store)
        made = await a.create(two_people(), "a:acct-1", "Ann", account="acct-1", username="ann")
        row = store.load_table(made["table"])
        seat = row.data["seats"][made["seat"]]
        assert (row.version, seat["account"], seat["username"]) == (1, "acct-1", "ann")
        with pytest.raises(Refused) as refused:  # a second seat for the account: refused
            await a.sit(made["table"], None, "a:other-device", "Ann", account="acct-1")
        assert refused.value.code == "already_seated"

    asyncio.run(main())


def test_the_hub_refuses_an_account_whose_first_seat_is_not_noted(store: Store) -> None:
    """A seat taken without its account noted (a table made before accounts were noted with
    the seat): the owner id (the same on every device of the account) still refuses the
    second seat."""

    async def main() -> None:
        a = hub(store)
        made = await a.create(two_people(), "a:acct-1", "Ann")
        with pytest.raises(Refused) as refused:
            await a.sit(made["table"], None, "a:acct-1", "Ann", account="acct-1", username="ann")
        assert refused.value.code == "already_seated"
        took = await a.sit(made["table"], None, "a:acct-2", "Bob", account="acct-2", username="bob")
        seat = store.load_table(made["table"]).data["seats"][took["seat"]]
        assert (seat["account"], seat["username"]) == ("acct-2", "bob")  # noted with the seat

    asyncio.run(main())


def test_one_account_on_two_seats_is_never_rated(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    (ann,) = two_accounts_named(store, "ann")
    seats = [ann, {**ann, "name": "ann again"}]
    assert rating_terms(seats) == {"ratable": False, "will_rate": False, "rating_rule": None}
    assert not rate_table_game(store, seats, winner=0, sides=2, game="t/1")
    account = store.account(str(ann["account"]))
    assert account is not None and (account.rating, account.rated_games) == (1500.0, 0)
    assert store.rating_history(account.account_id) == []
    bob = two_accounts_named(store, "bob")[0]
    assert rating_terms([ann, bob])["will_rate"]  # two people: rated as before


def test_a_game_one_account_held_both_seats_of_is_played_but_not_rated(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defence in depth: a table row with one account on both seats (made before the refusal,
    or by any way round it) plays to its end, is kept, and moves no rating."""

    async def main() -> None:
        a = hub(store)
        table_id, (ann, _) = await rated_table(a, store)

        def same(table: Any) -> None:
            table.seats[1].update(account=ann, username="ann", player=f"a:{ann}")

        await a.mutate(table_id, same)
        info = (await a.load(table_id)).public()
        assert not info["ratable"] and not info["will_rate"] and info["rating_rule"] is None
        data = await play_out(a, table_id, Clock(monkeypatch), lambda seat, turn: False)
        assert data["results"][-1]["left"] == [] and not data["results"][-1].get("rated")
        account = store.account(ann)
        assert account is not None and (account.rating, account.rated_games) == (1500.0, 0)
        assert changes(store, ann) == []

    asyncio.run(main())


# --- the turn timer ------------------------------------------------------------------------------


Idle = Callable[[int, int], bool]
"""Whether a seat lets its time run out at a decision (`play_out`)."""


@pytest.fixture
def timed_game(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> Callable[[Idle], tuple[dict[str, Any], str, str]]:
    """Plays a rated table with a 5-second turn timer to its end, each seat idle as the given
    policy says (`play_out`); returns the game's result and ann's and bob's account ids."""

    def play(idle: Idle) -> tuple[dict[str, Any], str, str]:
        async def main() -> tuple[dict[str, Any], str, str]:
            a = hub(store)
            table_id, (ann, bob) = await rated_table(a, store, turn_seconds=5)
            data = await play_out(a, table_id, Clock(monkeypatch), idle)
            return data["results"][-1], ann, bob

        return asyncio.run(main())

    return play


def test_a_person_who_never_moves_is_not_carried_to_a_win_by_the_timer(
    store: Store, timed_game: Callable[[Idle], tuple[dict[str, Any], str, str]]
) -> None:
    """The audit's repro: bob stays connected and never acts; the timer plays his every
    decision. His side left: he forfeits (whatever the board says), ann wins."""
    result, ann, bob = timed_game(lambda seat, turn: seat == 1)
    assert result["left"] == [1] and result["rated"]
    assert result["out_of_time"][0] == 0 and result["out_of_time"][1] > 10
    (bob_change,) = changes(store, bob)
    assert bob_change.outcome == "forfeit" and bob_change.after < bob_change.before == 1500
    (ann_change,) = changes(store, ann)
    assert ann_change.outcome == "won" and ann_change.after > 1500


def test_one_decision_the_timer_makes_forfeits_the_game(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rule has no allowance: bob lets his time run out once and plays every other
    decision himself; the computer played part of his game, so he forfeits it. The seat
    shows the count while the game goes on."""

    async def main() -> None:
        a = hub(store)
        table_id, (ann, bob) = await rated_table(a, store, turn_seconds=5)
        clock = Clock(monkeypatch)
        table = await a.load(table_id)
        assert table.session is not None
        slow = table.session.waiting_for
        assert slow is not None
        clock.advance(6)
        await a.sweep()
        seat = (await a.load(table_id)).public()["seats"][slow]
        assert seat["left"] and seat["out_of_time"] == 1 and not seat["played_by_computer"]
        data = await play_out(a, table_id, clock, lambda seat, turn: False)
        result = data["results"][-1]
        assert result["left"] == [slow] and result["out_of_time"][slow] == 1
        assert result["out_of_time"][1 - slow] == 0
        (slow_change,) = changes(store, [ann, bob][slow])
        assert slow_change.outcome == "forfeit" and slow_change.after <= 1500
        (other_change,) = changes(store, [ann, bob][1 - slow])
        assert other_change.outcome == "won"

    asyncio.run(main())


def test_a_game_the_timer_played_for_everyone_is_not_rated(
    store: Store, timed_game: Callable[[Idle], tuple[dict[str, Any], str, str]]
) -> None:
    result, ann, bob = timed_game(lambda seat, turn: True)
    assert result["left"] == [0, 1] and min(result["out_of_time"]) > 10
    assert not result.get("rated")
    assert changes(store, ann) == changes(store, bob) == []


def test_a_game_played_within_the_timer_is_rated_by_the_board(
    store: Store, timed_game: Callable[[Idle], tuple[dict[str, Any], str, str]]
) -> None:
    result, ann, bob = timed_game(lambda seat, turn: False)
    assert result["left"] == [] and result["out_of_time"] == [0, 0] and result["rated"]
    outcomes = {c.outcome for account in (ann, bob) for c in changes(store, account)}
    assert outcomes == {"won", "lost"}
    winner = [ann, bob][result["winner"]]
    assert changes(store, winner)[0].outcome == "won"
