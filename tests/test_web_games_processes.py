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
httpx = pytest.importorskip("httpx")
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
        made = httpx.post(
            f"http://127.0.0.1:{ports[0]}/api/games",
            json={"variant": "standard", "level": "greedy", "player": "p" * 16},
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
