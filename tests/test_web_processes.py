"""Two ``cribbage serve`` processes on different ports serve one table (the hosting set-up of
docs/web.md: PostgreSQL as the store, Redis pub/sub between the processes). The two players
are connected to different processes and play; then one process is killed with SIGKILL, its
player reconnects to the other, and the game is played to the end there.

Needs the PostgreSQL and Redis servers of the project's machines: skipped without them, unless
``FIFTEENTWO_REQUIRE_REDIS`` is set (``make test`` sets it, so CI fails loudly instead).
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
httpx2 = pytest.importorskip("httpx2")
ws_client = pytest.importorskip("websockets.sync.client")

from store_backends import make_backend  # noqa: E402
from test_web_restart import free_port, kill, start_server  # noqa: E402
from web_helpers import LeakChecker, choose  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")

REDIS_URL = os.environ.get("FIFTEENTWO_TEST_REDIS", "redis://127.0.0.1:6379/0")


def need_redis() -> None:
    problem = None
    try:
        import redis

        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except ImportError:
        problem = "redis (the client library) is not installed"
    except Exception as exc:
        problem = f"no Redis server at {REDIS_URL}: {exc}"
    if problem is None:
        return
    if os.environ.get("FIFTEENTWO_REQUIRE_REDIS"):
        pytest.fail(f"FIFTEENTWO_REQUIRE_REDIS is set but {problem}")
    pytest.skip(problem)


@pytest.fixture
def pg_url(tmp_path: Path) -> Iterator[str]:
    need_redis()
    for backend in make_backend("postgres", tmp_path):
        yield backend.url


class Player:
    """One seat's browser, reduced to its socket: it keeps the newest state it was sent."""

    def __init__(self, seat: int, port: int, table: str, token: str) -> None:
        self.seat, self.table, self.token = seat, table, token
        self.checker = LeakChecker(seat)
        self.connect(port)

    def connect(self, port: int) -> None:
        self.port = port
        self.ws = ws_client.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10)
        self.ws.send(json.dumps({"type": "join", "table": self.table, "token": self.token}))
        self.state = self.receive()

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=15))
        assert message["type"] == "state", message
        self.checker.check(message)
        return message

    def catch_up(self, decision: int) -> None:
        """Read until a state past ``decision`` (or the end) came: across processes a change
        may arrive as more than one message, never as none."""
        while not (self.state["over"] or self.state["decision"] > decision):
            message = self.receive()
            if message["decision"] >= self.state["decision"]:
                self.state = message

    def act(self) -> None:
        state = self.state
        self.ws.send(
            json.dumps({"type": "act", "decision": state["decision"], "action": choose(state)})
        )


def play(players: list[Player], moves: int) -> int:
    """Up to ``moves`` decisions (whoever is waiting); how many were made."""
    for made in range(moves):
        if all(p.state["over"] for p in players):
            return made
        waiting = [p for p in players if p.state["waiting"]]
        assert len(waiting) == 1, [(p.seat, p.state["decision"]) for p in players]
        decision = waiting[0].state["decision"]
        waiting[0].act()
        for p in players:
            p.catch_up(decision)
    return moves


def test_two_processes_serve_one_table_and_survive_losing_one(tmp_path: Path, pg_url: str) -> None:
    # A urlsafe token may begin with '-': given as its own word argparse would read it as an
    # option, so it goes in the '--secret=...' form a user would need too (docs/web.md).
    secret = secrets.token_urlsafe(24)
    ports = [free_port(), free_port()]
    procs = [
        start_server(pg_url, port, tmp_path, "--redis", REDIS_URL, f"--secret={secret}")
        for port in ports
    ]
    try:
        with (
            httpx2.Client(
                base_url=f"http://127.0.0.1:{ports[0]}",
                headers={"origin": f"http://127.0.0.1:{ports[0]}"},
                timeout=10,
            ) as ann,
            httpx2.Client(
                base_url=f"http://127.0.0.1:{ports[1]}",
                headers={"origin": f"http://127.0.0.1:{ports[1]}"},
                timeout=10,
            ) as bob,
        ):
            made = ann.post(
                "/api/tables",
                json={
                    "variant": "standard",
                    "seats": [{"kind": "person"}, {"kind": "person"}],
                    "name": "Ann",
                },
            )
            assert made.status_code == 201, made.text
            table = made.json()
            sat = bob.post(f"/api/tables/{table['table']}/sit", json={"name": "Bob"})
            assert sat.status_code == 201, sat.text
            a = Player(0, ports[0], table["table"], table["token"])
            b = Player(1, ports[1], table["table"], sat.json()["token"])
            assert a.state["table"]["status"] == "playing"
            # 30 decisions, about three deals: after 60 (five or six) a fast game had ended once
            played = play([a, b], 30)
            assert played == 30 and not a.state["over"]
            assert a.state["decision"] == b.state["decision"]

            kill(procs[0])  # Ann's process dies mid-game; she reconnects to Bob's
            a.ws.close()
            a.connect(ports[1])
            assert a.state["decision"] == b.state["decision"]
            play([a, b], 5000)
            assert a.state["over"] and b.state["over"]
            assert a.state["view"]["scores"] == b.state["view"]["scores"]
            assert max(a.state["view"]["scores"]) >= 121
            for p in (a, b):
                p.ws.close()
            # each person's history has the game (stored by the surviving process)
            deadline = time.monotonic() + 20
            while len(rows := finished(pg_url)) < 2 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert sorted(r["human_seat"] for r in rows) == [0, 1]
    finally:
        for proc in procs:
            if proc.poll() is None:
                kill(proc)


def finished(url: str) -> list[dict[str, Any]]:
    from fifteentwo.store import open_store

    with open_store(url) as store:
        return store.finished_games()


# --- issue 35: the rating rule across processes, and Redis going down ---------------------------


def signed_in(port: int, name: str) -> Any:
    client = httpx2.Client(
        base_url=f"http://127.0.0.1:{port}",
        headers={"origin": f"http://127.0.0.1:{port}"},
        timeout=10,
    )
    made = client.post("/api/register", json={"username": name, "password": "a long passphrase 35"})
    assert made.status_code == 201, made.text
    return client


def rated_table(ann: Any, bob: Any) -> tuple[str, str, str]:
    made = ann.post(
        "/api/tables",
        json={
            "variant": "short",
            "seats": [{"kind": "person"}, {"kind": "person"}],
            "away_seconds": 1,
        },
    )
    assert made.status_code == 201, made.text
    table = made.json()
    info = ann.get(f"/api/tables/{table['table']}").json()
    assert info["ratable"] and "forfeits" in info["rating_rule"]
    sat = bob.post(f"/api/tables/{table['table']}/sit", json={})
    assert sat.status_code == 201, sat.text
    return table["table"], table["token"], sat.json()["token"]


def wait_finished(client: Any, table: str) -> dict[str, Any]:
    deadline = time.monotonic() + 90
    while (info := client.get(f"/api/tables/{table}").json())["status"] != "finished":
        assert time.monotonic() < deadline, info["status"]
        time.sleep(0.2)
    return dict(info)


def settled(client: Any, games: int) -> dict[str, Any]:
    """``/api/me`` once the account's history holds ``games`` games (results are stored, and
    rated or not, in the moment after the last move)."""
    deadline = time.monotonic() + 30
    while len(client.get("/api/me/history").json()["games"]) < games:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    time.sleep(1.0)  # (the rating is written just after the results)
    return dict(client.get("/api/me").json())


def test_ratings_move_only_for_games_people_played_on_any_process(
    tmp_path: Path, pg_url: str
) -> None:
    secret = secrets.token_urlsafe(24)
    ports = [free_port(), free_port()]
    procs = [
        start_server(pg_url, port, tmp_path, "--redis", REDIS_URL, f"--secret={secret}")
        for port in ports
    ]
    ann, bob = signed_in(ports[0], "ann"), signed_in(ports[1], "bob")
    try:
        # 1. a few cards, then both tabs closed: the computers finish it; nobody is rated
        table, ann_token, bob_token = rated_table(ann, bob)
        a = Player(0, ports[0], table, ann_token)
        b = Player(1, ports[1], table, bob_token)
        play([a, b], 8)
        a.ws.close()
        b.ws.close()
        info = wait_finished(bob, table)
        assert info["results"][-1]["left"] == [0, 1]
        for who in (settled(ann, 1), settled(bob, 1)):
            assert (who["rating"], who["rated_games"]) == (1500, 0)

        # 2. bob leaves, ann plays on (on the other process): bob forfeits, ann wins
        table, ann_token, bob_token = rated_table(ann, bob)
        a = Player(0, ports[0], table, ann_token)
        b = Player(1, ports[1], table, bob_token)
        play([a, b], 8)
        b.ws.close()
        acted = -1
        for _ in range(5000):  # a computer plays bob's seat once he has been away a second
            if a.state["over"]:
                break
            if a.state["waiting"] and a.state["decision"] != acted:
                acted = a.state["decision"]
                a.act()
            message = json.loads(a.ws.recv(timeout=15))
            if message["type"] == "error":
                assert message["code"] == "stale", message  # a computer moved meanwhile
                acted = -1
                continue
            a.checker.check(message)
            if message["type"] == "state" and message["decision"] >= a.state["decision"]:
                a.state = message
        assert a.state["over"]
        a.ws.close()
        info = wait_finished(ann, table)
        assert info["results"][-1]["left"] == [1]
        ann_now, bob_now = settled(ann, 2), settled(bob, 2)
        assert ann_now["rated_games"] == bob_now["rated_games"] == 1
        assert ann_now["rating"] > 1500 > bob_now["rating"]
        (change,) = bob.get("/api/me/ratings").json()["changes"]
        assert change["outcome"] == "forfeit" and change["game"] == f"{table}/1"
    finally:
        ann.close()
        bob.close()
        for proc in procs:
            if proc.poll() is None:
                kill(proc)


def test_redis_going_down_costs_about_a_second(tmp_path: Path, pg_url: str) -> None:
    """A Redis of the test's own, stopped mid-game: the other process learns of each move at
    its next version check (about a second), with no error."""
    import shutil
    import subprocess

    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed")
    redis_port = free_port()
    redis_proc = subprocess.Popen(
        [server, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{redis_port}/0"
    ports = [free_port(), free_port()]
    procs: list[Any] = []
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                import redis

                redis.Redis.from_url(url, socket_connect_timeout=1).ping()
                break
            except Exception:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.1)
        procs = [start_server(pg_url, port, tmp_path, "--redis", url) for port in ports]
        with (
            httpx2.Client(
                base_url=f"http://127.0.0.1:{ports[0]}",
                headers={"origin": f"http://127.0.0.1:{ports[0]}"},
                timeout=10,
            ) as ann,
            httpx2.Client(
                base_url=f"http://127.0.0.1:{ports[1]}",
                headers={"origin": f"http://127.0.0.1:{ports[1]}"},
                timeout=10,
            ) as bob,
        ):
            table = ann.post(
                "/api/tables",
                json={"variant": "standard", "seats": [{"kind": "person"}, {"kind": "person"}]},
            ).json()
            sat = bob.post(f"/api/tables/{table['table']}/sit", json={}).json()
            a = Player(0, ports[0], table["table"], table["token"])
            b = Player(1, ports[1], table["table"], sat["token"])
            play([a, b], 6)
            redis_proc.terminate()
            redis_proc.wait(timeout=10)
            took = []
            for _ in range(8):
                began = time.monotonic()
                assert play([a, b], 1) == 1
                took.append(time.monotonic() - began)
            print("move seen by the other process with Redis down:", [round(t, 2) for t in took])
            assert max(took) < 3.0, took
            assert a.state["decision"] == b.state["decision"]
            a.ws.close()
            b.ws.close()
    finally:
        for proc in procs:
            if proc.poll() is None:
                kill(proc)
        if redis_proc.poll() is None:
            redis_proc.kill()
            redis_proc.wait(timeout=10)
