"""Graceful shutdown and rolling restarts of ``cribbage serve`` (docs/web.md, Operations).

SIGTERM: /readyz answers 503 at once, WebSockets are closed with 1012 (service restart, which
the page answers by reconnecting at once), the process exits 0 in bounded time. A rolling
restart of every process behind nginx, while tables and games against the computer are played,
loses no move and no game.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("websockets.sync.client")

from websockets.exceptions import ConnectionClosed  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from cluster_web import Site, nginx_problem  # noqa: E402
from store_backends import make_backend  # noqa: E402
from test_web_processes import need_redis  # noqa: E402
from web_helpers import LeakChecker, choose  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
CLEAN_EXIT = (0, -signal.SIGTERM)
"""uvicorn shuts down, then re-raises the signal it caught (supervisors see a SIGTERM stop); the
watchdog's forced exit is 1."""
SHUTDOWN_LIMIT = 20.0
"""Seconds a SIGTERMed process may take to exit (its --shutdown-timeout is 5)."""


class Seat:
    """One player's socket through the site: joins, keeps the newest state, reconnects."""

    def __init__(self, site: Site, hello: dict[str, Any]) -> None:
        self.site, self.hello = site, hello
        self.state: dict[str, Any] = {}
        self.closes: list[int | None] = []
        self.checker: LeakChecker | None = None
        self.connect()

    def connect(self) -> None:
        for _ in range(50):  # a game still held by a process that is stopping: busy
            self.ws = connect(f"{self.site.ws_url}/ws", open_timeout=10)
            self.ws.send(json.dumps(self.hello))
            message = json.loads(self.ws.recv(timeout=30))
            if message["type"] == "state":
                break
            assert message.get("code") == "busy", message
            self.ws.close()
            time.sleep(0.2)
        else:
            raise AssertionError("still busy after 50 tries")
        if self.checker is None:
            self.checker = LeakChecker(message["view"]["seat"] if message.get("view") else -1)
        self.take(message, rejoined=True)

    def take(self, message: dict[str, Any], *, rejoined: bool = False) -> None:
        assert message["type"] == "state", message
        assert self.checker is not None
        self.checker.check(message)
        if rejoined and self.state:
            assert message["decision"] >= self.state["decision"], "a move was lost"
        if rejoined or message["decision"] >= self.state.get("decision", -1):
            self.state = message

    def receive(self, timeout: float = 30) -> None:
        """The next message; a socket closed by a stopping server is reopened (and counted)."""
        try:
            self.take(json.loads(self.ws.recv(timeout=timeout)))
        except ConnectionClosed as exc:
            self.closes.append(exc.rcvd.code if exc.rcvd else None)
            self.connect()

    def check_closed(self) -> None:
        """After a process stopped: if this socket was on it, the close code, and reconnect."""
        try:
            while True:
                self.take(json.loads(self.ws.recv(timeout=0.3)))
        except TimeoutError:
            return
        except ConnectionClosed as exc:
            self.closes.append(exc.rcvd.code if exc.rcvd else None)
            self.connect()

    def send(self, message: dict[str, Any]) -> None:
        """Send; a socket closed by a stopping server is reopened first."""
        try:
            self.ws.send(json.dumps(message))
        except ConnectionClosed as exc:
            self.closes.append(exc.rcvd.code if exc.rcvd else None)
            self.connect()
            self.ws.send(json.dumps(message))

    def act(self) -> None:
        self.send({"type": "act", "decision": self.state["decision"], "action": choose(self.state)})


def play(seats: list[Seat], moves: int) -> None:
    """Up to ``moves`` decisions of one game (whoever is waiting), every seat caught up."""
    for _ in range(moves):
        if all(s.state["over"] for s in seats):
            return
        waiting = [s for s in seats if s.state["waiting"]]
        assert len(waiting) == 1, [(s.state["decision"], s.state["waiting"]) for s in seats]
        decision = waiting[0].state["decision"]
        waiting[0].act()
        for s in seats:
            while not (s.state["over"] or s.state["decision"] > decision):
                s.receive()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    problem = nginx_problem()
    if problem:
        if os.environ.get("FIFTEENTWO_REQUIRE_REDIS"):
            pytest.fail(problem)
        pytest.skip(problem)
    need_redis()
    for backend in make_backend("postgres", tmp_path):
        deployed = Site(backend.url, tmp_path, processes=2)
        try:
            yield deployed.start("--shutdown-timeout", "5")
        finally:
            deployed.stop()


def new_table(site: Site) -> list[Seat]:
    with (
        httpx2.Client(base_url=site.url, headers={"origin": site.url}, timeout=10) as ann,
        httpx2.Client(base_url=site.url, headers={"origin": site.url}, timeout=10) as bob,
    ):
        made = ann.post(
            "/api/tables",
            json={"variant": "short", "seats": [{"kind": "person"}] * 2, "name": "Ann"},
        )
        assert made.status_code == 201, made.text
        table = made.json()
        sat = bob.post(f"/api/tables/{table['table']}/sit", json={"name": "Bob"})
        assert sat.status_code == 201, sat.text
    hellos = [table["token"], sat.json()["token"]]
    return [Seat(site, {"type": "join", "table": table["table"], "token": t}) for t in hellos]


def new_computer_game(site: Site) -> Seat:
    made = httpx2.post(
        headers={"origin": site.url},
        url=f"{site.url}/api/games",
        json={"variant": "short", "level": "greedy", "player": "rolling-restart-01"},
        timeout=10,
    )
    assert made.status_code == 201, made.text
    game = made.json()
    return Seat(site, {"type": "hello", "game": game["game"], "token": game["token"]})


def rolling_restart(site: Site, games: list[list[Seat]]) -> list[int | None]:
    """Each process in turn: a move in flight, SIGTERM, exit 0 in time, restart; every game
    continues from where it was. Returns the close codes the sockets saw."""
    for i in range(len(site.ports)):
        for seats in games:
            play(seats, 6)
        before = [[s.state["decision"] for s in seats] for seats in games]
        for seats in games:  # a move in flight as the signal arrives
            waiting = [s for s in seats if s.state["waiting"]]
            if waiting:
                waiting[0].act()
        started = time.monotonic()
        assert site.terminate(i, timeout=SHUTDOWN_LIMIT) in CLEAN_EXIT, site.log(i)[-2000:]
        assert time.monotonic() - started < SHUTDOWN_LIMIT
        for seats in games:
            for s in seats:
                s.check_closed()
        site.restart(i)
        for seats, was in zip(games, before, strict=True):
            for s, decision in zip(seats, was, strict=True):
                s.send({"type": "state"})
                s.receive()
                assert s.state["decision"] >= decision, "a move was lost"
    return [code for seats in games for s in seats for code in s.closes]


def finish(seats: list[Seat]) -> None:
    play(seats, 3000)
    assert all(s.state["over"] for s in seats)
    scores = {tuple(s.state["view"]["scores"]) for s in seats}
    assert len(scores) == 1 and max(next(iter(scores))) >= 61


def test_sigterm_drains_readyz_closes_sockets_with_1012_and_exits(tmp_path: Path) -> None:
    site = Site(str(tmp_path / "games.sqlite3"), tmp_path, processes=1)
    try:
        site.start("--drain", "1.5", "--shutdown-timeout", "5")
        seat = new_table_of_one_person_and_a_computer(site)
        proc = site.procs[0]
        assert proc is not None
        proc.send_signal(15)
        time.sleep(0.3)  # within the drain: alive, not ready, still serving its players
        assert httpx2.get(f"{site.url}/healthz", timeout=5).status_code == 200
        ready = httpx2.get(f"{site.url}/readyz", timeout=5)
        assert ready.status_code == 503 and "process" in ready.json()["down"]
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                seat.ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        assert proc.wait(timeout=SHUTDOWN_LIMIT) in CLEAN_EXIT
        site.procs[0] = None
        site.restart(0)
        seat.connect()  # the same table, the same decision, on the new process
        assert not seat.state["over"]
    finally:
        site.stop()


def new_table_of_one_person_and_a_computer(site: Site) -> Seat:
    made = httpx2.post(
        headers={"origin": site.url},
        url=f"{site.url}/api/tables",
        json={
            "variant": "short",
            "seats": [{"kind": "person"}, {"kind": "computer", "level": "greedy"}],
            "name": "Ann",
        },
        timeout=10,
    )
    assert made.status_code == 201, made.text
    table = made.json()
    return Seat(site, {"type": "join", "table": table["table"], "token": table["token"]})


def test_a_rolling_restart_loses_no_table_move(site: Site) -> None:
    tables = [new_table(site) for _ in range(3)]
    codes = rolling_restart(site, tables)
    assert codes and set(codes) <= {1012}, codes  # told to reconnect, never dropped silently
    for seats in tables:
        finish(seats)


def test_a_rolling_restart_loses_no_move_of_games_against_the_computer(site: Site) -> None:
    # Any process serves any game: a seat closed with 1012 reconnects through nginx to the
    # process that is up, which reads the game from the store (version-checked writes, the
    # computer's move claimed by one process), so the first hello succeeds.
    games = [[new_computer_game(site)] for _ in range(3)]
    rolling_restart(site, games)
    for seats in games:
        finish(seats)


def test_kill_9_costs_games_against_the_computer_one_reconnect(site: Site) -> None:
    games = [[new_computer_game(site)] for _ in range(4)]
    for seats in games:
        play(seats, 8)
    before = [seats[0].state["decision"] for seats in games]
    site.kill(0)  # no shutdown at all: its leases are left behind
    started = time.monotonic()
    for seats in games:
        seats[0].check_closed()
        seats[0].send({"type": "state"})
        seats[0].receive()
    # Every game is back within seconds (Seat.connect asks again while a process says 'busy'),
    # with the other process still the only one up: a dead process's game is taken over.
    assert time.monotonic() - started < 15
    assert [seats[0].state["decision"] for seats in games] == before
    site.restart(0)
    for seats in games:
        finish(seats)
