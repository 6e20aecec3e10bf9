"""A real ``cribbage serve`` process killed with SIGKILL mid-game and started again on the same
store loses nothing: the client reconnects and continues from the same decision."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
httpx2 = pytest.importorskip("httpx2")
ws_client = pytest.importorskip("websockets.sync.client")

from web_helpers import LeakChecker, choose  # noqa: E402

PLAYER = "restart-test-player"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(db: Path | str, port: int, data: Path, *extra: str) -> subprocess.Popen[bytes]:
    """``cribbage serve`` on ``port`` with store ``db`` (and ``extra`` options), once it answers."""
    env = {**os.environ, "FIFTEENTWO_DATA_DIR": str(data)}
    cmd = [sys.executable, "-m", "fifteentwo", "serve", "--port", str(port), "--db", str(db)]
    cmd += extra
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stderr.read() if proc.stderr else ''!r}")
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/api/options", timeout=1).status_code == 200:
                return proc
        except httpx2.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("server did not start")


def kill(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)  # reaped: a dead server's lease is seen as stale


def exchange(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps(message))
    reply: dict[str, Any] = json.loads(ws.recv(timeout=10))
    return reply


def test_sigkill_mid_game_loses_nothing(tmp_path: Path) -> None:
    db, port = tmp_path / "games.sqlite3", free_port()
    proc = start_server(db, port, tmp_path)
    try:
        made = httpx2.post(
            f"http://127.0.0.1:{port}/api/games",
            json={"variant": "short", "level": "greedy", "player": PLAYER},
            headers={"origin": f"http://127.0.0.1:{port}"},
            timeout=10,
        ).json()
        hello = {"type": "hello", "game": made["game"], "token": made["token"]}
        with ws_client.connect(f"ws://127.0.0.1:{port}/ws") as ws:
            state = exchange(ws, hello)
            for _ in range(5):
                action = choose(state)
                state = exchange(
                    ws, {"type": "act", "decision": state["decision"], "action": action}
                )
                assert state["type"] == "state", state
        kill(proc)
        proc = start_server(db, port, tmp_path)
        with ws_client.connect(f"ws://127.0.0.1:{port}/ws") as ws:
            again = exchange(ws, hello)
            assert again["type"] == "state", again
            assert again["decision"] == state["decision"]
            assert again["view"] == state["view"]
            checker = LeakChecker(again["view"]["seat"])
            checker.check(again)
            # kill it again between a move and the next, then finish the game
            state = exchange(
                ws, {"type": "act", "decision": again["decision"], "action": choose(again)}
            )
        kill(proc)
        proc = start_server(db, port, tmp_path)
        with ws_client.connect(f"ws://127.0.0.1:{port}/ws") as ws:
            state = exchange(ws, hello)
            checker = LeakChecker(state["view"]["seat"])
            checker.check(state)
            for _ in range(400):
                if state["over"]:
                    break
                state = exchange(
                    ws, {"type": "act", "decision": state["decision"], "action": choose(state)}
                )
                checker.check(state)
            assert state["over"] and state["finished"]
        history = httpx2.get(
            f"http://127.0.0.1:{port}/api/history", headers={"x-player": PLAYER}, timeout=10
        ).json()
        assert [g["id"] for g in history["games"]] == state["finished"]
    finally:
        if proc.poll() is None:
            kill(proc)
