"""Quick match, the lobby and table talk across two ``cribbage serve`` processes sharing
PostgreSQL and Redis (docs/web.md, "Finding a game"): two people asking at once on different
processes are paired exactly once; talk and its rate limit cross processes.

Needs the PostgreSQL and Redis servers (skipped without them unless FIFTEENTWO_REQUIRE_REDIS).
Each test's Redis keys and channels start with a prefix of its own."""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
httpx2 = pytest.importorskip("httpx2")
ws_client = pytest.importorskip("websockets.sync.client")

from test_web_processes import REDIS_URL, pg_url  # noqa: E402, F401
from test_web_restart import free_port, kill, start_server  # noqa: E402
from web_helpers import choose  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")


@pytest.fixture
def ports(tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:  # noqa: F811
    monkeypatch.setenv("FIFTEENTWO_REDIS_PREFIX", f"test-{secrets.token_hex(6)}")
    secret = secrets.token_urlsafe(24)
    chosen = [free_port(), free_port()]
    procs = [
        start_server(pg_url, port, tmp_path, "--redis", REDIS_URL, f"--secret={secret}")
        for port in chosen
    ]
    try:
        yield chosen
    finally:
        for proc in procs:
            if proc.poll() is None:
                kill(proc)


def post(port: int, path: str, body: dict[str, Any]) -> Any:
    """A request from a new anonymous person (no cookie: a player of their own)."""
    origin = f"http://127.0.0.1:{port}"
    return httpx2.post(f"{origin}{path}", json=body, headers={"origin": origin}, timeout=15)


def ask_together(ports: list[int], variant: str) -> list[dict[str, Any]]:
    """One person on each port asks for a quick match at the same moment."""
    barrier = threading.Barrier(len(ports))
    answers: list[Any] = [None] * len(ports)

    def ask(i: int) -> None:
        barrier.wait()
        answers[i] = post(ports[i], "/api/quick", {"variant": variant, "name": f"P{i}"})

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(ports))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [a.json() for a in answers]


def test_two_people_asking_at_once_on_two_processes_are_paired_exactly_once(
    ports: list[int],
) -> None:
    tables: set[str] = set()
    for _ in range(8):
        answers = ask_together(ports, "short")
        assert sorted(a["status"] for a in answers) == ["matched", "waiting"], answers
        seats = [
            post(port, "/api/quick/poll", {"ticket": a["ticket"]}).json()
            for port, a in zip(ports[::-1], answers, strict=True)  # each polls the other process
        ]
        assert [s["status"] for s in seats] == ["matched", "matched"]
        assert len({s["table"] for s in seats}) == 1 and {s["seat"] for s in seats} == {0, 1}
        tables.add(seats[0]["table"])
    assert len(tables) == 8
    # three at once, two processes: one pair and one left waiting, who can cancel
    answers = ask_together([ports[0], ports[1], ports[0]], "standard")
    assert sorted(a["status"] for a in answers) == ["matched", "waiting", "waiting"]
    polls = [post(ports[1], "/api/quick/poll", {"ticket": a["ticket"]}).json() for a in answers]
    assert sorted(p["status"] for p in polls) == ["matched", "matched", "waiting"]
    alone = next(a for a, p in zip(answers, polls, strict=True) if p["status"] == "waiting")
    assert post(ports[0], "/api/quick/cancel", {"ticket": alone["ticket"]}).json() == {
        "status": "cancelled"
    }


def test_a_quick_match_is_played_and_talked_across_processes(ports: list[int]) -> None:
    seats = [{"kind": "person"}, {"kind": "person"}]
    made = post(ports[0], "/api/tables", {"variant": "short", "seats": seats, "name": "Cy"})
    listed = httpx2.get(f"http://127.0.0.1:{ports[1]}/api/lobby", timeout=15).json()["tables"]
    assert made.json()["table"] in {t["id"] for t in listed}  # the other process lists it
    first = post(ports[0], "/api/quick", {"variant": "standard", "name": "Ann"}).json()
    second = post(ports[1], "/api/quick", {"variant": "standard", "name": "Bob"}).json()
    ann = post(ports[0], "/api/quick/poll", {"ticket": first["ticket"]}).json()
    assert second["status"] == ann["status"] == "matched" and ann["table"] == second["table"]
    table = ann["table"]
    a = ws_client.connect(f"ws://127.0.0.1:{ports[0]}/ws", open_timeout=10)
    b = ws_client.connect(f"ws://127.0.0.1:{ports[1]}/ws", open_timeout=10)
    try:
        a.send(json.dumps({"type": "join", "table": table, "token": ann["token"]}))
        b.send(json.dumps({"type": "join", "table": table, "token": second["token"]}))
        sb = until(b, "state")
        sa = until(a, "state", lambda m: not m["table"]["seats"][second["seat"]]["away"])
        assert sa["view"] is not None and sb["view"] is not None
        mover, other, state = (a, b, sa) if sa["waiting"] else (b, a, sb)
        assert state["waiting"]
        mover.send(
            json.dumps({"type": "act", "decision": state["decision"], "action": choose(state)})
        )
        assert until(other, "state", lambda m: m["decision"] > state["decision"])
        a.send(json.dumps({"type": "talk", "text": "<b>hello</b>"}))
        heard = until(b, "talk")["message"]
        assert heard["text"] == "<b>hello</b>" and heard["name"] == "Ann"
        for i in range(4):  # five from Ann in all, the next refused on the other process too
            a.send(json.dumps({"type": "talk", "text": f"line {i}"}))
            until(b, "talk")
        c = ws_client.connect(f"ws://127.0.0.1:{ports[1]}/ws", open_timeout=10)
        try:
            c.send(json.dumps({"type": "join", "table": table, "token": ann["token"]}))
            assert len(until(c, "state")["talk"]) == 5  # the history, from the store
            c.send(json.dumps({"type": "talk", "phrase": "gg"}))
            assert until(c, "error")["code"] == "slow_down"
        finally:
            c.close()
    finally:
        a.close()
        b.close()


def until(ws: Any, kind: str, test: Any = None) -> dict[str, Any]:
    for _ in range(50):
        message: dict[str, Any] = json.loads(ws.recv(timeout=15))
        if message["type"] == kind and (test is None or test(message)):
            return message
    raise AssertionError(f"no {kind} message")
