"""A game against the computer is served by whichever process its player reaches (issue 32):
two ``cribbage serve`` processes on PostgreSQL and Redis, no stickiness: the player's
connections alternate between them move by move and are never answered ``busy``; one process
is killed with SIGKILL mid-game and the game goes on at once on the other, to its end.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
httpx2 = pytest.importorskip("httpx2")
ws_client = pytest.importorskip("websockets.sync.client")

from test_web_processes import REDIS_URL, pg_url  # noqa: E402, F401  (the fixture)
from test_web_restart import free_port, kill, start_server  # noqa: E402
from web_helpers import LeakChecker, choose  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")


def exchange(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps(message))
    reply: dict[str, Any] = json.loads(ws.recv(timeout=15))
    return reply


def one_move(port: int, hello: dict[str, Any]) -> dict[str, Any]:
    """Connect to ``port``, take up the game, make one move; the state after it."""
    with ws_client.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10) as ws:
        state = exchange(ws, hello)
        assert state["type"] == "state", state  # never "busy"
        LeakChecker(state["view"]["seat"]).check(state)
        if state["over"]:
            return state
        after = exchange(
            ws, {"type": "act", "decision": state["decision"], "action": choose(state)}
        )
        assert after["type"] == "state", after
        assert after["decision"] > state["decision"] or after["over"]
        return after


def test_a_game_moves_between_processes_and_survives_losing_one(
    tmp_path: Path,
    pg_url: str,  # noqa: F811
) -> None:
    secret = secrets.token_urlsafe(24)
    ports = [free_port(), free_port()]
    procs = [
        start_server(pg_url, port, tmp_path, "--redis", REDIS_URL, f"--secret={secret}")
        for port in ports
    ]
    try:
        made = httpx2.post(
            f"http://127.0.0.1:{ports[0]}/api/games",
            json={"variant": "standard", "level": "greedy", "player": "p" * 16},
            headers={"origin": f"http://127.0.0.1:{ports[0]}"},
            timeout=10,
        ).json()
        hello = {"type": "hello", "game": made["game"], "token": made["token"]}
        last: dict[str, Any] = {}
        for move in range(12):  # round robin, no stickiness, both processes alive
            last = one_move(ports[move % 2], hello)
        assert not last["over"]
        # each process answered with the same game: the other one's moves included
        with ws_client.connect(f"ws://127.0.0.1:{ports[0]}/ws") as ws:
            seen = exchange(ws, hello)
        assert (seen["decision"], seen["view"]) == (last["decision"], last["view"])

        kill(procs[0])  # mid-game, with its copy of the game in memory
        state = one_move(ports[1], hello)  # at once, on the other process
        assert state["decision"] > last["decision"]
        with ws_client.connect(f"ws://127.0.0.1:{ports[1]}/ws") as ws:
            state = exchange(ws, hello)
            for _ in range(600):
                if state["over"]:
                    break
                state = exchange(
                    ws, {"type": "act", "decision": state["decision"], "action": choose(state)}
                )
                assert state["type"] == "state", state
        assert state["over"] and state["finished"]
        assert max(state["view"]["scores"]) >= 121
    finally:
        for proc in procs:
            if proc.poll() is None:
                kill(proc)


def test_a_page_on_one_process_is_sent_moves_made_through_another(
    tmp_path: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """The game's new version is announced over Redis: a page connected to the other process
    is sent the new state without asking, and told when the game left the store."""
    secret = secrets.token_urlsafe(24)
    ports = [free_port(), free_port()]
    procs = [
        start_server(pg_url, port, tmp_path, "--redis", REDIS_URL, f"--secret={secret}")
        for port in ports
    ]
    try:
        made = httpx2.post(
            f"http://127.0.0.1:{ports[0]}/api/games",
            json={"variant": "short", "level": "greedy", "player": "q" * 16},
            headers={"origin": f"http://127.0.0.1:{ports[0]}"},
            timeout=10,
        ).json()
        hello = {"type": "hello", "game": made["game"], "token": made["token"]}
        with ws_client.connect(f"ws://127.0.0.1:{ports[0]}/ws", open_timeout=10) as page:
            first = exchange(page, hello)
            assert first["type"] == "state"
            for _ in range(3):
                moved = one_move(ports[1], hello)  # another window, on the other process
                pushed = json.loads(page.recv(timeout=15))  # unasked
                LeakChecker(first["view"]["seat"]).check(pushed)
                assert pushed["type"] == "state", pushed
                assert (pushed["decision"], pushed["view"]) == (moved["decision"], moved["view"])
            # the page acts on what it was sent, at once (not answered 'stale')
            after = exchange(
                page, {"type": "act", "decision": pushed["decision"], "action": choose(pushed)}
            )
            assert after["type"] == "state" and after["decision"] > pushed["decision"], after
            with ws_client.connect(f"ws://127.0.0.1:{ports[1]}/ws", open_timeout=10) as other:
                state = exchange(other, hello)
                assert state["decision"] == after["decision"]
                for _ in range(600):
                    if state["over"]:
                        break
                    state = exchange(
                        other,
                        {"type": "act", "decision": state["decision"], "action": choose(state)},
                    )
                    assert state["type"] == "state", state
            assert state["over"]
            told: dict[str, Any] = {}
            for _ in range(700):  # the states pushed meanwhile, then: no longer in progress
                told = json.loads(page.recv(timeout=15))
                if told["type"] != "state":
                    break
            assert told == {"type": "error", "code": "no_game", "message": told["message"]}
        # a finished game answers the same on both processes
        for port in ports:
            with ws_client.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10) as ws:
                assert exchange(ws, hello)["code"] == "no_game"
    finally:
        for proc in procs:
            if proc.poll() is None:
                kill(proc)
