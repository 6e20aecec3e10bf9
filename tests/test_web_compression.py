"""WebSocket compression is off unless ``cribbage serve --ws-compression`` asks for it: a
browser offers permessage-deflate, and the server accepts it only then (docs/web.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
httpx2 = pytest.importorskip("httpx2")
ws_client = pytest.importorskip("websockets.sync.client")

from test_web_restart import free_port, start_server  # noqa: E402


@pytest.mark.parametrize("compressed", [False, True], ids=["default", "ws-compression"])
def test_compression_only_when_asked(tmp_path: Path, compressed: bool) -> None:
    port = free_port()
    extra = ("--ws-compression",) if compressed else ()
    proc = start_server(tmp_path / "games.sqlite3", port, tmp_path, *extra)
    try:
        made = httpx2.post(
            f"http://127.0.0.1:{port}/api/games",
            json={"variant": "short", "level": "greedy"},
            headers={"origin": f"http://127.0.0.1:{port}"},
            timeout=10,
        ).json()
        # (the client offers permessage-deflate, as browsers do)
        with ws_client.connect(f"ws://127.0.0.1:{port}/ws", compression="deflate") as ws:
            assert ws.response is not None
            accepted = ws.response.headers.get("Sec-WebSocket-Extensions") or ""
            assert ("permessage-deflate" in accepted) is compressed, accepted
            ws.send(json.dumps({"type": "hello", "game": made["game"], "token": made["token"]}))
            state = json.loads(ws.recv(timeout=10))
            assert state["type"] == "state" and state["waiting"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
