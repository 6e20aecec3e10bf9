"""Issue 35: ratings only from games people played, the leaderboard's threshold, rating history,
and an account's games (against the computer and at tables) on any device (docs/web.md,
"Ratings" and "Accounts")."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("starlette")
pytest.importorskip("argon2")
pytest.importorskip("glicko2")

from starlette.testclient import TestClient

from fifteentwo.store import open_store
from fifteentwo.store.sqlite import SQLiteStore
from fifteentwo.web import create_app
from fifteentwo.web.ratings import MIN_LEADERBOARD_GAMES, outcomes, rate_table_game
from test_web import new_game, play_out
from test_web_tables import join, make_table, sit
from web_helpers import choose

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PASSWORD = "a long passphrase 35"


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def client(store_path: Path) -> Iterator[TestClient]:
    app = create_app(lambda: open_store(store_path), workers=2, table_tick=0.05)
    with TestClient(app, headers={"origin": "http://testserver"}) as c:
        yield c


class As:
    """One person's browser on the shared test client: its own session cookie (a second
    TestClient would start the app a second time)."""

    def __init__(self, client: TestClient) -> None:
        self.client, self.cookies = client, list(client.cookies.jar)

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.client, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            self.client.cookies.clear()
            for cookie in self.cookies:
                self.client.cookies.jar.set_cookie(cookie)
            response = method(*args, **kwargs)
            self.cookies = list(self.client.cookies.jar)
            return response

        return call


def other(client: TestClient) -> As:
    """A fresh browser (no cookie yet) on the same app."""
    client.cookies.clear()
    return As(client)


def register(client: Any, name: str) -> None:
    response = client.post("/api/register", json={"username": name, "password": PASSWORD})
    assert response.status_code == 201, response.text


def login(client: Any, name: str) -> None:
    response = client.post("/api/login", json={"username": name, "password": PASSWORD})
    assert response.status_code == 200, response.text


# --- the rule ------------------------------------------------------------------------------------


@given(
    sides=st.integers(2, 3),
    winner=st.integers(0, 2),
    left=st.sets(st.integers(0, 2)),
)
def test_a_side_that_left_never_scores_and_all_left_is_unrated(
    sides: int, winner: int, left: set[int]
) -> None:
    winner %= sides
    left = {s % sides for s in left}
    table = outcomes(sides, winner, left)
    if left == set(range(sides)):
        assert table is None
        return
    assert table is not None
    for a in range(sides):
        for b in range(sides):
            if a == b:
                continue
            if a in left and b not in left:
                assert table[a][b] == 0.0 and table[b][a] == 1.0
            if a not in left and b not in left:
                assert table[a][b] == (1.0 if a == winner else 0.0)


def two_accounts(store: SQLiteStore) -> list[dict[str, Any]]:
    return two_accounts_named(store, "ann", "bob")


def test_the_side_that_left_forfeits_even_when_the_computer_won_for_it(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    seats = two_accounts(store)
    # bob (seat 1) left; the computer playing his seat won on the board: he still forfeits
    assert rate_table_game(store, seats, winner=1, sides=2, left=[1], game="t/1")
    ann, bob = (store.account(str(s["account"])) for s in seats)
    assert ann is not None and bob is not None
    assert ann.rating > 1500 > bob.rating
    (change,) = store.rating_history(bob.account_id)
    assert (change.outcome, change.game, change.before) == ("forfeit", "t/1", 1500.0)
    assert change.after == bob.rating
    (won,) = store.rating_history(ann.account_id)
    assert won.outcome == "won" and won.after == ann.rating


def test_a_game_everyone_left_is_not_rated(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    seats = two_accounts(store)
    assert not rate_table_game(store, seats, winner=0, sides=2, left=[0, 1], game="t/1")
    for s in seats:
        account = store.account(str(s["account"]))
        assert account is not None and (account.rating, account.rated_games) == (1500.0, 0)
        assert store.rating_history(account.account_id) == []


def test_the_leaderboard_lists_accounts_with_enough_rated_games(
    client: TestClient, store_path: Path
) -> None:
    register(client, "ann")
    with open_store(store_path) as store:
        assert isinstance(store, SQLiteStore)
        seats = two_accounts_named(store, "cat", "dan")
        for n in range(MIN_LEADERBOARD_GAMES - 1):
            assert rate_table_game(store, seats, winner=0, sides=2, game=f"t/{n}")
    assert client.get("/api/leaderboard").json()["players"] == []
    with open_store(store_path) as store:
        assert rate_table_game(store, seats, winner=1, sides=2, game="t/last")
    board = client.get("/api/leaderboard").json()
    assert [p["username"] for p in board["players"]] == ["cat", "dan"]
    assert all(
        p["rated_games"] == MIN_LEADERBOARD_GAMES and p["rd"] < 350 for p in board["players"]
    )
    assert board["min_games"] == MIN_LEADERBOARD_GAMES


def two_accounts_named(store: Any, *names: str) -> list[dict[str, Any]]:
    seats = []
    for name in names:
        account = store.create_account(name, "$argon2id$not-a-real-hash")
        seats.append({"kind": "person", "account": account.account_id, "name": name})
    return seats


# --- at a table ----------------------------------------------------------------------------------


def finished_table(client: TestClient, table: str, limit: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while (info := client.get(f"/api/tables/{table}").json())["status"] != "finished":
        assert time.monotonic() < deadline, info["status"]
        time.sleep(0.05)
    return info


def ratings_of(client: TestClient, count: int) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while (me := client.get("/api/me").json())["rated_games"] < count:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    changes = client.get("/api/me/ratings").json()["changes"]
    return {"me": me, "changes": changes}


def test_the_table_states_the_rule_before_the_game(client: TestClient) -> None:
    ann = other(client)
    register(ann, "ann")
    made = make_table(ann, "short", ["person", "person"])
    info = ann.get(f"/api/tables/{made['table']}").json()
    assert info["ratable"] and not info["will_rate"]  # bob's seat is empty
    assert "forfeits" in info["rating_rule"]
    if (bob := other(client)) is not None:
        register(bob, "bob")
        sit(bob, made["table"], "")
        info = ann.get(f"/api/tables/{made['table']}").json()
        assert info["will_rate"] and info["status"] == "playing"
        versus = make_table(ann, "short", ["person", "greedy"])
        info = ann.get(f"/api/tables/{versus['table']}").json()
        assert not info["ratable"] and info["rating_rule"] is None


def test_a_person_who_leaves_a_rated_game_forfeits_it(client: TestClient) -> None:
    ann = other(client)
    register(ann, "ann")
    made = make_table(ann, "short", ["person", "person"], away_seconds=1)
    if (bob := other(client)) is not None:
        register(bob, "bob")
        sit(bob, made["table"], "")  # ... and never comes: a computer plays his seat
        with ann.websocket_connect("/ws") as a:
            state = join(a, made["table"], made["token"])
            for _ in range(3000):
                if state["over"]:
                    break
                if state["waiting"]:
                    a.send_text(
                        json.dumps(
                            {"type": "act", "decision": state["decision"], "action": choose(state)}
                        )
                    )
                message = a.receive_json()
                if message.get("type") == "state":
                    state = message
            assert state["over"]
        info = finished_table(ann, made["table"])
        assert info["results"][-1]["left"] == [1]
        ann, bob_now = ratings_of(ann, 1), ratings_of(bob, 1)
    assert ann["changes"][0]["outcome"] == "won" and ann["me"]["rating"] > 1500
    assert bob_now["changes"][0]["outcome"] == "forfeit"
    deadline = time.monotonic() + 10  # (the table notes it just after the ratings are saved)
    while not client.get(f"/api/tables/{made['table']}").json()["results"][-1].get("rated"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert bob_now["me"]["rating"] < 1500


def test_when_everyone_leaves_the_computers_finish_an_unrated_game(client: TestClient) -> None:
    ann = other(client)
    register(ann, "ann")
    made = make_table(ann, "short", ["person", "person"], away_seconds=1)
    if (bob := other(client)) is not None:
        register(bob, "bob")
        sit(bob, made["table"], "")
        info = finished_table(ann, made["table"])  # nobody ever plays: computers finish it
        assert info["results"][-1]["left"] == [0, 1]
        time.sleep(0.5)  # (results are stored beside the last move)
        assert not ann.get(f"/api/tables/{made['table']}").json()["results"][-1].get("rated")
        for who in (ann, bob):
            me = who.get("/api/me").json()
            assert (me["rating"], me["rated_games"]) == (1500, 0)
            assert who.get("/api/me/ratings").json()["changes"] == []
            assert len(who.get("/api/me/history").json()["games"]) == 1  # still in the history


def test_ratings_need_a_login(client: TestClient) -> None:
    response = client.get("/api/me/ratings")
    assert response.status_code == 401 and response.json()["code"] == "not_logged_in"


# --- an account's games on any device ------------------------------------------------------------


def test_a_game_against_the_computer_follows_the_account_to_another_device(
    client: TestClient,
) -> None:
    ann = other(client)
    register(ann, "bob")
    game = new_game(ann)
    final, _, _ = play_out(ann, game)
    row = final["finished"][0]
    if (other_device := other(client)) is not None:
        anonymous = other_device.get("/api/history", headers={"x-player": "other-device-1"})
        assert anonymous.json()["games"] == []
        login(other_device, "bob")
        for path in ("/api/history", "/api/me/history"):
            history = other_device.get(path, headers={"x-player": "other-device-1"}).json()
            assert [g["id"] for g in history["games"]] == [row]
            assert history["totals"][0]["games"] == 1
            assert history["statistics"]
        review = other_device.get(
            f"/api/history/{row}/review", headers={"x-player": "other-device-1"}
        )
        assert review.status_code == 200 and review.json()["id"] == row
        assert other_device.post("/api/logout", json={}).status_code == 200
        gone = other_device.get(f"/api/history/{row}/review", headers={"x-player": "x-device-2"})
        assert gone.status_code == 404


def test_a_table_games_review_opens_on_its_players_other_devices(client: TestClient) -> None:
    ann = other(client)
    register(ann, "ann")
    made = make_table(ann, "short", ["person", "greedy"])
    with ann.websocket_connect("/ws") as a:
        state = join(a, made["table"], made["token"])
        for _ in range(3000):
            if state["over"]:
                break
            if state["waiting"]:
                a.send_text(
                    json.dumps(
                        {"type": "act", "decision": state["decision"], "action": choose(state)}
                    )
                )
            message = a.receive_json()
            if message.get("type") == "state":
                state = message
    deadline = time.monotonic() + 20
    while not (games := ann.get("/api/me/history").json()["games"]):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    row = games[0]["id"]
    if (phone := other(client)) is not None:
        assert phone.get(f"/api/history/{row}/review").status_code == 404
        login(phone, "ann")
        assert phone.get(f"/api/history/{row}/review").status_code == 200


@pytest.mark.parametrize("bad", ["abc", "1e3", "-1", "99999999999999999999", "١٢"])
def test_bad_review_ids_answer_404(client: TestClient, bad: str) -> None:
    response = client.get(f"/api/history/{bad}/review")
    assert response.status_code == 404 and response.json()["type"] == "error"
