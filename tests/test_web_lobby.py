"""The lobby, quick match and table talk in one server process (docs/web.md, "Finding a game"
and "Table talk"); tests/test_web_processes.py has them across two processes."""

from __future__ import annotations

import asyncio
import json
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
pytest.importorskip("argon2")

from starlette.testclient import TestClient

from fifteentwo.store import open_store
from fifteentwo.web import create_app
from fifteentwo.web.matchmaking import LocalMatchmaker
from fifteentwo.web.talk import LIMIT, MAX_CHARS, LocalRate, clean_text
from test_web_tables import join, make_table, sit

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
MARKUP = "<img src=x onerror=alert(1)>"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(lambda: open_store(tmp_path / "games.sqlite3"), workers=2, table_tick=0.05)
    with TestClient(app, headers={"origin": "http://testserver"}) as c:
        yield c


class Person:
    """One browser: its own cookie (an anonymous player of its own) on the shared client."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.jar: dict[str, str] = {}

    def post(self, path: str, body: dict[str, Any]) -> Any:
        self.client.cookies.clear()
        for key, value in self.jar.items():
            self.client.cookies.set(key, value)
        response = self.client.post(path, json=body)
        self.jar.update(dict(response.cookies))
        return response


def lobby(client: TestClient) -> list[dict[str, Any]]:
    response = client.get("/api/lobby")
    assert response.status_code == 200
    tables: list[dict[str, Any]] = response.json()["tables"]
    return tables


# --- the lobby -----------------------------------------------------------------------------------


def test_the_lobby_lists_open_tables_until_they_fill(client: TestClient) -> None:
    listed = make_table(client, "short", ["person", "person"])
    casual = make_table(client, "three-player", ["person", "person", "expert"], rated=False)
    hidden = make_table(client, "short", ["person", "person"], lobby=False)
    full = make_table(client, "short", ["person", "expert"])
    by_id = {t["id"]: t for t in lobby(client)}
    assert hidden["table"] not in by_id and full["table"] not in by_id
    assert by_id[listed["table"]] | {"created_at": None} == {
        "id": listed["table"],
        "variant": "short",
        "seats": 2,
        "filled": 1,
        "rated": True,
        "people": ["Ann"],
        "computers": [],
        "created_at": None,
    }
    three = by_id[casual["table"]]
    assert (three["seats"], three["filled"], three["rated"]) == (3, 2, False)
    assert three["computers"] == ["expert"]
    assert "token" not in json.dumps(by_id) and "watch" not in json.dumps(by_id)
    sit(client, listed["table"], "Bob")
    assert listed["table"] not in {t["id"] for t in lobby(client)}
    info = client.get(f"/api/tables/{casual['table']}").json()
    assert info["rated_table"] is False and info["lobby"] is True


def test_a_bad_lobby_request_is_one_clear_error(client: TestClient) -> None:
    for path, body in [
        ("/api/quick", {"variant": "chess"}),
        ("/api/quick", {"variant": "short", "extra": 1}),
        ("/api/quick/poll", {"ticket": "../../etc"}),
        ("/api/quick/cancel", {}),
        ("/api/tables", {"variant": "short", "seats": [{"kind": "person"}] * 2, "lobby": "yes"}),
    ]:
        response = client.post(path, json=body)
        assert response.status_code == 400, (path, response.text)
        assert response.json()["type"] == "error"
    response = client.post(
        "/api/quick", content=b"x" * 10_000, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413


@given(
    path=st.sampled_from(["/api/quick", "/api/quick/poll", "/api/quick/cancel"]),
    body=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=60),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
        ),
        max_leaves=8,
    )
    | st.fixed_dictionaries(
        {"variant": st.sampled_from(["short", "standard", "x"]), "ticket": st.text(max_size=140)}
    ),
)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_quick_match_body_is_answered_never_a_crash(
    client: TestClient, path: str, body: Any
) -> None:
    response = client.post(
        path, content=json.dumps(body), headers={"content-type": "application/json"}
    )
    assert response.status_code in (200, 202, 400, 403), response.text
    assert isinstance(response.json(), dict)
    if response.status_code >= 400:
        assert response.json()["type"] == "error"


# --- quick match ---------------------------------------------------------------------------------


def test_quick_match_seats_two_people_together(client: TestClient) -> None:
    ann, bob = Person(client), Person(client)
    first = ann.post("/api/quick", {"variant": "short", "name": "Ann"})
    assert first.status_code == 202 and first.json()["status"] == "waiting"
    ticket = first.json()["ticket"]
    assert ann.post("/api/quick/poll", {"ticket": ticket}).json() == {"status": "waiting"}
    second = bob.post("/api/quick", {"variant": "short", "name": "Bob"}).json()
    assert second["status"] == "matched"
    mine = ann.post("/api/quick/poll", {"ticket": ticket}).json()
    assert mine["status"] == "matched" and mine["table"] == second["table"]
    assert {mine["seat"], second["seat"]} == {0, 1}
    info = client.get(f"/api/tables/{mine['table']}").json()
    assert info["status"] == "playing" and info["quick"] and not info["lobby"]
    assert [s["name"] for s in info["seats"]] == ["Ann", "Bob"]
    with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
        sa = join(a, mine["table"], mine["token"])
        sb = join(b, second["table"], second["token"])
        assert sa["view"] is not None and sb["view"] is not None
        assert (sa["you"], sb["you"]) == (mine["seat"], second["seat"])
    assert mine["table"] not in {t["id"] for t in lobby(client)}


def test_quick_match_keeps_variants_and_rated_apart_and_never_pairs_you_with_yourself(
    client: TestClient,
) -> None:
    ann, bob = Person(client), Person(client)
    assert ann.post("/api/quick", {"variant": "short"}).json()["status"] == "waiting"
    assert ann.post("/api/quick", {"variant": "short"}).json()["status"] == "waiting"
    assert bob.post("/api/quick", {"variant": "standard"}).json()["status"] == "waiting"
    refused = bob.post("/api/quick", {"variant": "short", "rated": True})
    assert refused.status_code == 403 and refused.json()["code"] == "sign_in"
    assert bob.post("/api/quick", {"variant": "short"}).json()["status"] == "matched"


def test_cancelling_leaves_the_queue(client: TestClient) -> None:
    ann, bob = Person(client), Person(client)
    ticket = ann.post("/api/quick", {"variant": "short"}).json()["ticket"]
    assert ann.post("/api/quick/cancel", {"ticket": ticket}).json() == {"status": "cancelled"}
    assert ann.post("/api/quick/poll", {"ticket": ticket}).json() == {"status": "expired"}
    assert bob.post("/api/quick", {"variant": "short"}).json()["status"] == "waiting"


def test_three_people_wait_for_a_three_player_table(client: TestClient) -> None:
    people = [Person(client) for _ in range(3)]
    answers = [p.post("/api/quick", {"variant": "three-player"}).json() for p in people]
    assert [a["status"] for a in answers] == ["waiting", "waiting", "matched"]
    seats = [
        p.post("/api/quick/poll", {"ticket": a["ticket"]}).json()
        for p, a in zip(people, answers, strict=True)
    ]
    assert {s["table"] for s in seats} == {answers[2]["table"]}
    assert sorted(s["seat"] for s in seats) == [0, 1, 2]


def test_matching_is_atomic_under_concurrent_asks() -> None:
    """Many people asking at once: everyone is matched exactly once or still waiting."""

    async def scenario() -> None:
        mm = LocalMatchmaker()
        entries = [{"ticket": f"ticket-{i:04d}", "person": f"p{i}"} for i in range(41)]
        results = await asyncio.gather(*(mm.ask("short:casual", e, 1) for e in entries))
        taken = [e["ticket"] for found in results for e in found]
        askers = [e["ticket"] for e, found in zip(entries, results, strict=True) if found]
        assert len(taken) == len(set(taken)) == len(askers) == 20
        assert not set(taken) & set(askers)
        waiting = [
            e["ticket"] for e in entries if e["ticket"] not in taken and e["ticket"] not in askers
        ]
        assert len(waiting) == 1
        assert await mm.cancel(taken[0]) is False  # matched: too late to cancel
        assert await mm.cancel(waiting[0]) is True

    asyncio.run(scenario())


# --- table talk ----------------------------------------------------------------------------------


def talk(ws: Any, **body: Any) -> None:
    ws.send_text(json.dumps({"type": "talk", **body}))


def next_of(ws: Any, kind: str) -> dict[str, Any]:
    for _ in range(20):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind} message")


def test_talk_reaches_the_table_as_text_and_stays_for_a_reload(client: TestClient) -> None:
    seats = [{"kind": "person"}, {"kind": "person"}]
    made = Person(client).post("/api/tables", {"variant": "short", "seats": seats, "name": "Ann"})
    made = made.json()
    bob = Person(client).post(f"/api/tables/{made['table']}/sit", {"name": "Bob"}).json()
    with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
        join(a, made["table"], made["token"])
        join(b, made["table"], bob["token"])
        next_of(a, "state")  # Bob's arrival
        talk(a, text=f"  {MARKUP}\x00\u202e\n ")
        heard = next_of(b, "talk")["message"]
        assert heard["text"] == MARKUP and heard["name"] == "Ann" and heard["seat"] == 0
        assert next_of(a, "talk")["message"]["id"] == heard["id"]
        talk(b, phrase="gl")
        assert next_of(a, "talk")["message"]["text"] == "good luck"
        talk(b, text="x" * 1900)
        assert len(next_of(a, "talk")["message"]["text"]) == MAX_CHARS
        talk(b, text=" \t\x07 ")
        assert next_of(b, "error")["code"] == "bad_message"
        talk(b, phrase="rude")
        assert next_of(b, "error")["code"] == "bad_message"
    with client.websocket_connect("/ws") as again:
        state = join(again, made["table"], bob["token"])
        assert [m["text"] for m in state["talk"]] == [MARKUP, "good luck", "x" * MAX_CHARS]
        assert state["talk"][0]["speaker"] != state["talk"][1]["speaker"]


def test_talk_is_rate_limited_per_person(client: TestClient) -> None:
    made = make_table(client, "short", ["person", "expert"])
    with client.websocket_connect("/ws") as a:
        join(a, made["table"], made["token"])
        for i in range(LIMIT):
            talk(a, text=f"line {i}")
            assert next_of(a, "talk")["message"]["text"] == f"line {i}"
        talk(a, text="one too many")
        assert next_of(a, "error")["code"] == "slow_down"
        state = join_state(a)
        assert len(state["talk"]) == LIMIT


def join_state(ws: Any) -> dict[str, Any]:
    ws.send_text(json.dumps({"type": "state"}))
    return next_of(ws, "state")


def test_spectators_read_the_table_and_speak_only_among_themselves(client: TestClient) -> None:
    made = make_table(client, "short", ["person", "expert"])
    with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as w:
        join(a, made["table"], made["token"])
        join(w, made["table"], made["watch"])
        talk(w, text="I would keep the fives")
        said = next_of(w, "talk")["message"]
        assert said["channel"] == "spectators" and said["seat"] == -1
        talk(a, phrase="gg")
        assert next_of(a, "talk")["message"]["text"] == "good game"  # not the spectator's line
        assert next_of(w, "talk")["message"]["text"] == "good game"
        assert [m["text"] for m in join_state(a)["talk"]] == ["good game"]
        assert [m["text"] for m in join_state(w)["talk"]] == ["I would keep the fives", "good game"]


def test_the_rate_window_slides() -> None:
    async def scenario() -> None:
        rate = LocalRate(limit=2, window=0.2)
        assert [await rate.allow("p") for _ in range(3)] == [True, True, False]
        assert await rate.allow("q")
        await asyncio.sleep(0.25)
        assert await rate.allow("p")

    asyncio.run(scenario())


@given(st.text(max_size=400))
def test_clean_text_keeps_only_readable_text(text: str) -> None:
    cleaned = clean_text(text)
    assert len(cleaned) <= MAX_CHARS
    assert cleaned == cleaned.strip() and "  " not in cleaned
    assert not any(unicodedata.category(ch)[0] == "C" for ch in cleaned)
    assert clean_text(cleaned) == cleaned


def test_rated_quick_match_seats_accounts(client: TestClient) -> None:
    ann, bob = Person(client), Person(client)
    for person, name in ((ann, "annie"), (bob, "bobby")):
        made = person.post("/api/register", {"username": name, "password": "long enough 1"})
        assert made.status_code == 201, made.text
    ticket = ann.post("/api/quick", {"variant": "short", "rated": True}).json()["ticket"]
    assert bob.post("/api/quick", {"variant": "short"}).json()["status"] == "waiting"  # casual
    seat = bob.post("/api/quick", {"variant": "short", "rated": True}).json()
    assert seat["status"] == "matched"
    assert ann.post("/api/quick/poll", {"ticket": ticket}).json()["table"] == seat["table"]
    info = client.get(f"/api/tables/{seat['table']}").json()
    assert [s["account"] for s in info["seats"]] == ["annie", "bobby"]
    assert info["rated_table"] is True
    assert [s["name"] for s in info["seats"]] == ["annie", "bobby"]  # their names by default
