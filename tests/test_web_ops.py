"""Operations endpoints of the web server: /healthz, /readyz, /metrics and the JSON error log
(docs/web.md, Operations). In-process, on SQLite; the deployed set-up is tests/test_web_cluster.py.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("prometheus_client")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from fifteentwo.store import open_store
from fifteentwo.store.base import StoreUnavailable
from fifteentwo.web import create_app
from fifteentwo.web import metrics as metrics_module
from web_helpers import choose

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
PLAYER = "ops-test-player-01"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(lambda: open_store(tmp_path / "games.sqlite3"), workers=2)
    with TestClient(app, headers={"origin": "http://testserver"}) as c:
        yield c


def samples(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics by name and labels."""
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    found = {}
    for family in text_string_to_metric_families(response.text):
        for s in family.samples:
            found[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return found


def value(found: dict[Any, float], name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def test_healthz_and_readyz_answer_200_when_all_is_up(client: TestClient) -> None:
    health = client.get("/healthz")
    assert health.status_code == 200 and health.json() == {"ok": True}
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.text
    assert ready.json() == {"ready": True, "down": {}}


def test_readyz_names_what_is_down_and_never_hangs(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    ops = client.app.state.ops  # type: ignore[attr-defined]
    monkeypatch.setattr(metrics_module, "READY_TIMEOUT", 0.2)
    never = threading.Event()

    async def hangs() -> None:
        import asyncio

        while not never.is_set():
            await asyncio.sleep(0.05)

    async def fails() -> None:
        raise ConnectionError("refused")

    ops.checks["redis"] = hangs
    ops.checks["store"] = fails
    ready = client.get("/readyz")
    never.set()
    assert ready.status_code == 503
    body = ready.json()
    assert body["ready"] is False
    assert set(body["down"]) == {"redis", "store"}
    assert "refused" in body["down"]["store"]


def test_readyz_is_503_while_draining_and_healthz_stays_200(client: TestClient) -> None:
    client.app.state.ops.draining = True  # type: ignore[attr-defined]
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert "process" in ready.json()["down"]
    assert client.get("/healthz").status_code == 200


def test_metrics_count_connections_games_actions_and_errors(client: TestClient) -> None:
    before = samples(client)
    assert value(before, "fifteentwo_connections_open") == 0
    made = client.post("/api/games", json={"variant": "short", "level": "greedy", "player": PLAYER})
    assert made.status_code == 201
    game = made.json()
    moves = 0
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "game": game["game"], "token": game["token"]}))
        state = ws.receive_json()
        during = samples(client)
        assert value(during, "fifteentwo_connections_open") == 1
        assert value(during, "fifteentwo_games_live") >= 1
        for _ in range(3):
            action = choose(state)
            ws.send_text(
                json.dumps({"type": "act", "decision": state["decision"], "action": action})
            )
            state = ws.receive_json()
            assert state["type"] == "state"
            moves += 1
        ws.send_text(json.dumps({"type": "act", "decision": 10_000, "action": {"kind": "go"}}))
        assert ws.receive_json()["type"] == "error"
        ws.send_text("not json")
        assert ws.receive_json()["code"] == "bad_message"
    client.get("/api/history/x/review")
    after = samples(client)
    assert value(after, "fifteentwo_connections_open") == 0
    assert value(after, "fifteentwo_actions_total", kind="game") == moves
    assert value(after, "fifteentwo_action_seconds_count", kind="game") == moves
    assert value(after, "fifteentwo_errors_total", where="ws", kind="bad_message") == 1
    assert sum(v for (n, lab), v in after.items() if n == "fifteentwo_errors_total") >= 3
    assert value(after, "fifteentwo_store_seconds_count", op="create_game") >= 1
    assert value(after, "fifteentwo_http_requests_total", status="201") == 1
    assert value(after, "process_resident_memory_bytes") > 0


def test_a_store_call_is_timed_once_not_again_for_the_calls_it_makes_to_itself(
    tmp_path: Path,
) -> None:
    """`Metrics.instrument` times the calls made to the store: `create_game` saves the new game
    by its own `save_game`, which is its caller's time, not a second call (the sums of the ops
    would add up to more than the store's time). Another thread's call meanwhile is its own."""
    from fifteentwo.store import GameMeta, new_owner

    metrics = metrics_module.Metrics()
    store = metrics.instrument(open_store(tmp_path / "games.sqlite3"))
    meta = GameMeta("short", 61, ("You", "C"), ("human", "greedy"), (0, 0))
    owner = new_owner()

    def count(op: str) -> float:
        sample = metrics.registry.get_sample_value("fifteentwo_store_seconds_count", {"op": op})
        return sample or 0.0

    try:
        game = store.create_game({"n": 0}, meta, owner=owner)
        assert (count("create_game"), count("save_game")) == (1, 0)
        store.save_game(game, {"n": 1}, meta, owner=owner)
        assert count("save_game") == 1
        # a call on another thread while this one is inside the store is counted as its own
        seen: list[int | None] = []
        original = store.game_version

        def while_inside(game_id: str) -> int | None:
            other = threading.Thread(target=lambda: seen.append(original(game_id)))
            other.start()
            other.join()
            return original(game_id)

        store.game_version = metrics._timed("game_version", while_inside)  # type: ignore[method-assign]
        assert store.game_version(game) is not None and seen and seen[0] is not None
        assert count("game_version") == 2  # the outer call and the other thread's
        store.create_game({"n": 0}, meta, owner=owner)  # still counted once, after all that
        assert (count("create_game"), count("save_game")) == (2, 1)
    finally:
        store.close()


def test_each_error_is_one_json_log_line(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="fifteentwo.web.errors")
    with client.websocket_connect("/ws") as ws:
        ws.send_text('{"type": "act"}')
        assert ws.receive_json()["type"] == "error"
        ws.send_text(json.dumps({"type": "hello", "game": "nope", "token": "x" * 20}))
        reply = ws.receive_json()
    assert reply["type"] == "error" and "exc" not in reply
    client.post("/api/games", content=b"{", headers={"content-type": "application/json"})
    lines = [r.getMessage() for r in caplog.records if r.name == "fifteentwo.web.errors"]
    events = [json.loads(line) for line in lines]
    assert [e["event"] for e in events] == ["message_error", "message_error", "request_error"]
    assert events[0]["kind"] == "bad_message" and events[1]["kind"] == reply["code"]
    assert events[2]["status"] == 400 and events[2]["path"] == "/api/games"
    assert all("\n" not in line for line in lines)


def test_a_bug_is_one_reply_without_traceback_and_one_logged_traceback(
    client: TestClient, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.INFO, logger="fifteentwo.web.errors")
    hub = client.app.state.hub  # type: ignore[attr-defined]

    async def broken(*args: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(hub, "open", broken)
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "game": "g" * 10, "token": "t" * 20}))
        reply = ws.receive_json()
    assert reply["code"] == "server" and "Traceback" not in json.dumps(reply)
    logged = [json.loads(r.getMessage()) for r in caplog.records if r.levelno == logging.ERROR]
    assert len(logged) == 1 and "RuntimeError: a bug" in logged[0]["exc"]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(path=st.sampled_from(["/healthz", "/readyz", "/metrics"]), junk=st.text(max_size=40))
def test_ops_endpoints_ignore_query_junk(client: TestClient, path: str, junk: str) -> None:
    response = client.get(path, params={"q": junk})
    assert response.status_code == 200


def test_a_store_that_is_down_is_one_warning_line_not_a_bug(
    client: TestClient, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.INFO, logger="fifteentwo")
    made = client.post("/api/games", json={"variant": "short", "level": "greedy", "player": PLAYER})
    game = made.json()
    hub = client.app.state.hub  # type: ignore[attr-defined]

    async def down(*args: Any, **kwargs: Any) -> Any:
        raise StoreUnavailable("cannot reach the game store: the database is down")

    caplog.clear()
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "game": game["game"], "token": game["token"]}))
        state = ws.receive_json()
        monkeypatch.setattr(hub, "act", down)
        ws.send_text(
            json.dumps({"type": "act", "decision": state["decision"], "action": choose(state)})
        )
        reply = ws.receive_json()
    assert reply["code"] == "unavailable" and "cause" not in reply
    monkeypatch.setattr(hub, "create", down)
    answer = client.post(
        "/api/games", json={"variant": "short", "level": "greedy", "player": PLAYER}
    )
    assert answer.status_code == 503 and "cause" not in answer.json()
    records = [r for r in caplog.records if r.name.startswith("fifteentwo.web")]
    events = [json.loads(r.getMessage()) for r in records]
    assert [(e["event"], e["kind"]) for e in events] == [
        ("message_error", "unavailable"),
        ("request_error", "http_503"),
    ]
    assert all(r.levelno == logging.WARNING for r in records)
    assert all("the database is down" in e["cause"] for e in events)
    found = samples(client)
    assert value(found, "fifteentwo_errors_total", where="http", kind="http_503") == 1
    assert value(found, "fifteentwo_errors_total", where="http", kind="server") == 0


def test_an_outage_is_said_once_when_it_starts_and_once_when_it_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="fifteentwo.test")
    outage = metrics_module.Outage("bus: could not publish", logging.getLogger("fifteentwo.test"))
    outage.worked()
    for _ in range(50):
        outage.failed(ConnectionError("refused"))
    outage.worked()
    outage.worked()
    outage.failed("again")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 3
    assert "refused" in lines[0] and "works again" in lines[1] and "again" in lines[2]


def test_opening_a_game_while_the_store_is_down_is_unavailable_not_no_game(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page told `no_game` forgets the game's token for good: a store that cannot be read for
    a moment (a failover, a restart) must say `unavailable`, and the game opens once it is back."""
    made = client.post("/api/games", json={"variant": "short", "level": "greedy", "player": PLAYER})
    game = made.json()
    hub = client.app.state.hub  # type: ignore[attr-defined]
    hub.games.clear()  # as on a process that never held it

    def down(*args: Any, **kwargs: Any) -> Any:
        raise StoreUnavailable("cannot read the game store: the database is down")

    hello = json.dumps({"type": "hello", "game": game["game"], "token": game["token"]})
    for method in ("load_game", "claim"):  # reading the game, then taking it over
        with monkeypatch.context() as patch:
            patch.setattr(hub.store, method, down)
            with client.websocket_connect("/ws") as ws:
                ws.send_text(hello)
                reply = ws.receive_json()
            assert reply["type"] == "error" and reply["code"] == "unavailable", (method, reply)
    with client.websocket_connect("/ws") as ws:
        ws.send_text(hello)
        assert ws.receive_json()["type"] == "state"
