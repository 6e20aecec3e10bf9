"""Tables at the protocol level: people and computers in any seats, spectators who never see a
hidden card, seat tokens, reconnecting, away seats, adjourning, rematches, accounts, ratings
(docs/web.md, "Tables")."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("argon2")

from starlette.testclient import TestClient

from fifteentwo.store import open_store
from fifteentwo.web import create_app
from web_helpers import LeakChecker, choose

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def client(store_path: Path) -> Iterator[TestClient]:
    app = create_app(lambda: open_store(store_path), workers=2, table_tick=0.05)
    with TestClient(app, headers={"origin": "http://testserver"}) as c:
        yield c


def make_table(client: TestClient, variant: str, kinds: list[str], **extra: Any) -> dict[str, Any]:
    seats = [
        {"kind": "person"} if k == "person" else {"kind": "computer", "level": k} for k in kinds
    ]
    response = client.post(
        "/api/tables", json={"variant": variant, "seats": seats, "name": "Ann", **extra}
    )
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


def sit(client: TestClient, table: str, name: str, seat: int | None = None) -> dict[str, Any]:
    response = client.post(f"/api/tables/{table}/sit", json={"seat": seat, "name": name})
    assert response.status_code == 201, response.text
    took: dict[str, Any] = response.json()
    return took


def join(ws: Any, table: str, token: str) -> dict[str, Any]:
    ws.send_text(json.dumps({"type": "join", "table": table, "token": token}))
    state: dict[str, Any] = ws.receive_json()
    assert state["type"] == "state", state
    return state


def join_all(
    table: str, joiners: list[tuple[int, Any, str]], checkers: dict[int, LeakChecker] | None = None
) -> dict[int, dict[str, Any]]:
    """Join in order; a seat's first connection ends its "away" mark, which every connection
    already there is told of (one more state each, read here through the leak checkers)."""
    states: dict[int, dict[str, Any]] = {}
    sockets: dict[int, Any] = {}
    for seat, ws, token in joiners:
        states[seat] = join(ws, table, token)
        if checkers is not None:
            checkers[seat].check(states[seat])
        if seat >= 0:
            for who, earlier in sockets.items():
                states[who] = earlier.receive_json()
                assert states[who]["type"] == "state", states[who]
                assert not states[who]["table"]["seats"][seat]["away"]
                if checkers is not None:
                    checkers[who].check(states[who])
        sockets[seat] = ws
    return states


def play_table(
    sockets: dict[int, Any], states: dict[int, dict[str, Any]], checkers: dict[int, LeakChecker]
) -> dict[int, dict[str, Any]]:
    """Whoever is waiting acts; then every connection reads the one state it is sent. Every
    message (the first ones too) goes through its connection's leak checker."""
    for seat, state in states.items():
        if checkers[seat].messages == 0:
            checkers[seat].check(state)
    for _ in range(2000):
        if all(s["over"] for s in states.values()):
            return states
        waiting = [seat for seat, s in states.items() if s["waiting"]]
        assert len(waiting) == 1, {k: (v["waiting"], v["decision"]) for k, v in states.items()}
        seat = waiting[0]
        state = states[seat]
        sockets[seat].send_text(
            json.dumps({"type": "act", "decision": state["decision"], "action": choose(state)})
        )
        for who, ws in sockets.items():
            message = ws.receive_json()
            assert message["type"] == "state", message
            checkers[who].check(message)
            states[who] = message
    raise AssertionError("the table's game did not finish")


def stored_games(store_path: Path, count: int) -> list[Any]:
    """The finished games once ``count`` are stored (the server stores them beside the last
    reply, so a test that reads at once may be a moment early), or what is there after 10 s."""
    deadline = time.monotonic() + 10.0
    while True:
        with open_store(store_path) as store:
            rows = store.finished_games()
        if len(rows) >= count or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)


def test_two_people_play_to_the_end_with_a_spectator(client: TestClient, store_path: Path) -> None:
    made = make_table(client, "short", ["person", "person"])
    assert made["seat"] == 0 and made["links"]["watch"].startswith(f"/t/{made['table']}/watch/")
    info = client.get(f"/api/tables/{made['table']}").json()
    assert info["status"] == "open" and [s["taken"] for s in info["seats"]] == [True, False]
    assert "token" not in json.dumps(info)
    other = sit(client, made["table"], "Bob")
    assert other["seat"] == 1
    with (
        client.websocket_connect("/ws") as a,
        client.websocket_connect("/ws") as b,
        client.websocket_connect("/ws") as w,
    ):
        checkers = {seat: LeakChecker(seat) for seat in (0, 1, -1)}
        joiners = [(0, a, made["token"]), (1, b, other["token"]), (-1, w, made["watch"])]
        states = join_all(made["table"], joiners, checkers)
        assert states[-1]["you"] == -1 and not states[-1]["waiting"]
        assert states[-1]["view"]["hand"] == []
        states = play_table({0: a, 1: b, -1: w}, states, checkers)
    assert states[0]["table"]["status"] == "finished"
    assert states[0]["table"]["seats"][1]["name"] == "Bob"
    # the spectator was sent every state the players were after it joined (joins push a state to
    # those already there, so the first to join has one or two more); a short game can be quick
    assert states[-1]["over"] and checkers[-1].messages > 10
    assert checkers[0].messages - 2 <= checkers[-1].messages <= checkers[0].messages
    # each person's history has the game, filed under their own cookie identity
    rows = stored_games(store_path, 2)
    assert len(rows) == 2 and {r["human_seat"] for r in rows} == {0, 1}


def test_three_seats_two_people_and_a_computer(client: TestClient) -> None:
    made = make_table(client, "three-player", ["person", "greedy", "person"])
    other = sit(client, made["table"], "Cy")
    assert other["seat"] == 2
    with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as c:
        checkers = {0: LeakChecker(0), 2: LeakChecker(2)}
        states = join_all(made["table"], [(0, a, made["token"]), (2, c, other["token"])], checkers)
        assert states[0]["levels"] == ["human", "greedy", "human"]
        play_table({0: a, 2: c}, states, checkers)


def test_partners_a_person_and_a_computer_each(client: TestClient) -> None:
    made = make_table(client, "four-player", ["person", "greedy", "person", "random"])
    other = sit(client, made["table"], "Di", seat=2)
    with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as c:
        checkers = {0: LeakChecker(0), 2: LeakChecker(2)}
        states = join_all(made["table"], [(0, a, made["token"]), (2, c, other["token"])], checkers)
        final = play_table({0: a, 2: c}, states, checkers)
    assert final[0]["over"]


def test_a_token_acts_only_for_its_own_seat(client: TestClient) -> None:
    made = make_table(client, "short", ["person", "person"])
    other = sit(client, made["table"], "Bob")
    with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
        joined = join_all(made["table"], [(0, a, made["token"]), (1, b, other["token"])])
        sa, sb = joined[0], joined[1]
        idle, idle_state = (b, sb) if sa["waiting"] else (a, sa)
        busy_state = sa if sa["waiting"] else sb
        idle.send_text(
            json.dumps(
                {"type": "act", "decision": idle_state["decision"], "action": choose(busy_state)}
            )
        )
        assert idle.receive_json()["code"] == "not_your_turn"
    with client.websocket_connect("/ws") as x:
        x.send_text(json.dumps({"type": "join", "table": made["table"], "token": "x" * 24}))
        assert x.receive_json()["code"] == "no_table"
        x.send_text(json.dumps({"type": "join", "table": "nosuchtable0", "token": made["token"]}))
        assert x.receive_json()["code"] == "no_table"
    with client.websocket_connect("/ws") as w:
        sw = join(w, made["table"], made["watch"])
        w.send_text(
            json.dumps({"type": "act", "decision": sw["decision"], "action": {"kind": "go"}})
        )
        assert w.receive_json()["code"] == "not_your_turn"
    # a full table has no seat for a third person
    response = client.post(f"/api/tables/{made['table']}/sit", json={})
    assert response.status_code == 409


def test_reconnecting_returns_to_the_same_decision(client: TestClient) -> None:
    made = make_table(client, "short", ["person", "greedy"])
    with client.websocket_connect("/ws") as a:
        first = join(a, made["table"], made["token"])
        a.send_text(
            json.dumps({"type": "act", "decision": first["decision"], "action": choose(first)})
        )
        after = a.receive_json()
    with client.websocket_connect("/ws") as again:
        back = join(again, made["table"], made["token"])
    assert back["decision"] == after["decision"] and back["view"] == after["view"]
    assert back["log"] and back["table"]["seats"][0]["away"] is False


def wait_for(ws: Any, predicate: Any, limit: int = 200) -> dict[str, Any]:
    for _ in range(limit):
        message: dict[str, Any] = ws.receive_json()
        if message.get("type") == "state" and predicate(message):
            return message
    raise AssertionError("the expected state never came")


def test_an_away_person_is_covered_by_a_computer_until_back(client: TestClient) -> None:
    made = make_table(client, "short", ["person", "person"], away_seconds=1)
    other = sit(client, made["table"], "Bob")
    with client.websocket_connect("/ws") as a:
        join(a, made["table"], made["token"])
        # Bob never comes: after a second a computer plays his seat, the game goes on
        state = wait_for(a, lambda m: m["table"]["seats"][1]["played_by_computer"])
        assert state["table"]["seats"][1]["away"]
        with client.websocket_connect("/ws") as b:
            back = join(b, made["table"], other["token"])
        assert not back["table"]["seats"][1]["played_by_computer"]
        assert back["levels"][1] == "human"


def test_an_adjourned_table_resumes_when_its_seat_returns(client: TestClient) -> None:
    made = make_table(client, "short", ["person", "greedy"], away_seconds=1, away_action="adjourn")
    with client.websocket_connect("/ws") as a:
        join(a, made["table"], made["token"])
    deadline = time.monotonic() + 20
    while client.get(f"/api/tables/{made['table']}").json()["status"] != "adjourned":
        assert time.monotonic() < deadline, "the table was never adjourned"
        time.sleep(0.05)
    with client.websocket_connect("/ws") as a:
        state = join(a, made["table"], made["token"])
    assert state["table"]["status"] == "playing" and state["waiting"]


def test_a_turn_timer_lets_a_computer_decide(client: TestClient) -> None:
    made = make_table(client, "short", ["person", "greedy"], turn_seconds=5)
    with client.websocket_connect("/ws") as a:
        first = join(a, made["table"], made["token"])
        later = wait_for(a, lambda m: m["decision"] > first["decision"], limit=50)
    assert later["decision"] > first["decision"]


def test_rematch_the_loser_deals_first(client: TestClient) -> None:
    made = make_table(client, "short", ["person", "greedy"])
    with client.websocket_connect("/ws") as a:
        state = join(a, made["table"], made["token"])
        checkers = {0: LeakChecker(0)}
        final = play_table({0: a}, {0: state}, checkers)[0]
        scores = final["view"]["scores"]
        loser = 0 if scores[0] < scores[1] else 1
        a.send_text(json.dumps({"type": "rematch"}))
        again = a.receive_json()
    assert again["table"]["status"] == "playing" and not again["over"]
    assert again["view"]["dealer"] == loser
    assert len(again["table"]["results"]) == 1


def test_accounts_ratings_and_the_leaderboard(client: TestClient, store_path: Path) -> None:
    ann = client
    with TestClient(ann.app, headers={"origin": "http://testserver"}) as bob:
        assert (
            ann.post("/api/register", json={"username": "ann", "password": "pw"}).status_code == 400
        )
        assert (
            ann.post(
                "/api/register", json={"username": "ann", "password": "long enough"}
            ).status_code
            == 201
        )
        assert (
            bob.post(
                "/api/register", json={"username": "ANN", "password": "long enough"}
            ).status_code
            == 400
        )
        assert (
            bob.post(
                "/api/register", json={"username": "bob", "password": "s3cret-pass"}
            ).status_code
            == 201
        )
        assert bob.post("/api/logout", json={}).status_code == 200
        assert bob.get("/api/me").json()["username"] is None
        assert (
            bob.post("/api/login", json={"username": "bob", "password": "wrong!!!"}).status_code
            == 401
        )
        assert (
            bob.post("/api/login", json={"username": "bob", "password": "s3cret-pass"}).status_code
            == 200
        )
        assert bob.get("/api/me").json()["username"] == "bob"
        made = make_table(ann, "short", ["person", "person"])
        other = sit(bob, made["table"], "")
        with ann.websocket_connect("/ws") as a, bob.websocket_connect("/ws") as b:
            checkers = {0: LeakChecker(0), 1: LeakChecker(1)}
            joiners = [(0, a, made["token"]), (1, b, other["token"])]
            states = join_all(made["table"], joiners, checkers)
            assert states[0]["table"]["seats"][1]["account"] == "bob"
            play_table({0: a, 1: b}, states, checkers)
        deadline = time.monotonic() + 20
        while bob.get("/api/me").json()["rated_games"] < 1:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        mine = [ann.get("/api/me").json(), bob.get("/api/me").json()]
        assert sorted(m["rating"] > 1500 for m in mine) == [False, True]
        assert all(m["rated_games"] == 1 and not m["on_leaderboard"] for m in mine)
        # issue 35: one rated game is not enough for the leaderboard; the change is kept
        board = ann.get("/api/leaderboard").json()
        assert board["players"] == [] and board["min_games"] == 5
        for who, me in ((ann, mine[0]), (bob, mine[1])):
            (change,) = who.get("/api/me/ratings").json()["changes"]
            assert change["before"] == 1500 and change["after"] == me["rating"]
            assert change["outcome"] == ("won" if me["rating"] > 1500 else "lost")
            assert change["game"] == f"{made['table']}/1"
        history = bob.get("/api/me/history").json()
        assert len(history["games"]) == 1
    with open_store(store_path) as store:
        account = store.account_by_name("ann")
    assert account is not None and account.password_hash.startswith("$argon2id$")
    assert "long enough" not in account.password_hash


def test_logins_are_rate_limited(client: TestClient) -> None:
    """Ten tries a minute per client and per username. On the cluster (tests/test_web_cluster.py)
    the twelve requests go round robin to two processes that count together in Redis, and the
    client is the address nginx reports in X-Forwarded-For (the processes trust it): a client
    and a username of this test's own, so logins of earlier tests (the same nginx address, the
    same minute) are not counted against it. In-process the header is ignored (no trusted
    proxy) and the app is this test's own."""
    import secrets

    name = f"nobody{secrets.token_hex(6)}"
    address = {"x-forwarded-for": f"198.51.{secrets.randbelow(256)}.{secrets.randbelow(254) + 1}"}
    codes = [
        client.post(
            "/api/login", json={"username": name, "password": "guessing"}, headers=address
        ).status_code
        for _ in range(12)
    ]
    assert codes == [401] * 10 + [429] * 2


def test_bad_table_requests_are_one_error(client: TestClient) -> None:
    for body in (
        {"variant": "short", "seats": [{"kind": "person"}]},
        {"variant": "short", "seats": [{"kind": "computer"}, {"kind": "computer"}]},
        {"variant": "short", "seats": [{"kind": "person"}, {"kind": "computer", "level": "zzz"}]},
        {"variant": "nope", "seats": [{"kind": "person"}, {"kind": "person"}]},
        {"variant": "short", "seats": [{"kind": "person"}, {"kind": "person"}], "away_seconds": 0},
    ):
        response = client.post("/api/tables", json=body)
        assert response.status_code == 400 and response.json()["type"] == "error", body
    assert client.get("/api/tables/nosuchtable0").status_code == 404
