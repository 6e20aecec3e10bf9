"""Issue 35: faults end in an answer, with real faults (docs/web.md, "Faults end in an answer").

- PostgreSQL down: a PostgreSQL instance of this test's own (initdb + pg_ctl in a temp dir, a
  free port; never the machine's shared server) serves ``cribbage serve``; it is stopped
  mid-game: every move gets an error reply and HTTP a 503 JSON answer within 2 s; it is started
  again: the same move is taken, nothing restarted, and the game finishes and is stored.
- Disk full (SQLite): the store lives on a real 8 MB tmpfs that is filled up mid-game and freed;
  the game goes on, is stored once, and later writes work.

Both need root (mount; PostgreSQL's server refuses to run as root, so it runs as ``postgres``)
and are skipped with the reason otherwise. They take about 20 s together.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
httpx2 = pytest.importorskip("httpx2")
ws_client = pytest.importorskip("websockets.sync.client")

from starlette.testclient import TestClient  # noqa: E402

from fifteentwo.store import open_store  # noqa: E402
from fifteentwo.web import create_app  # noqa: E402
from test_web_restart import free_port, kill, start_server  # noqa: E402
from web_helpers import choose  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def need_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root (to mount a small file system / run a PostgreSQL instance)")


# --- PostgreSQL down -----------------------------------------------------------------------------


class OwnPostgres:
    """A throwaway PostgreSQL server run as the ``postgres`` user in a temp dir."""

    def __init__(self) -> None:
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
        if not bins or shutil.which("runuser") is None:
            pytest.skip("PostgreSQL's server binaries (initdb, pg_ctl) or runuser are missing")
        self.bin = Path(bins[-1]).parent
        self.dir = Path(tempfile.mkdtemp(prefix="ft-pg-"))
        shutil.chown(self.dir, "postgres")
        self.data = self.dir / "data"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._as_postgres(
            [str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres"]
        )

    def _as_postgres(self, cmd: list[str]) -> None:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", *cmd],
            check=True,
            capture_output=True,
            timeout=120,
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._as_postgres(
            [str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-w", "start",
             "-l", str(self.dir / "log")]
        )  # fmt: skip

    def stop(self) -> None:
        self._as_postgres([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop"])

    def remove(self) -> None:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def own_postgres() -> Iterator[OwnPostgres]:
    need_root()
    pg = OwnPostgres()
    try:
        pg.start()
        yield pg
    finally:
        pg.remove()


def receive_state(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=15))
        if message["type"] in ("state", "error"):
            return message


def test_postgres_down_answers_at_once_and_play_resumes_when_it_returns(
    tmp_path: Path, own_postgres: OwnPostgres
) -> None:
    port = free_port()
    server = start_server(own_postgres.url, port, tmp_path)
    try:
        with httpx2.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"origin": f"http://127.0.0.1:{port}"},
            timeout=10,
        ) as ann:
            made = ann.post(
                "/api/tables",
                json={
                    "variant": "short",
                    "seats": [{"kind": "person"}, {"kind": "computer", "level": "greedy"}],
                },
            ).json()
            ws = ws_client.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10)
            ws.send(json.dumps({"type": "join", "table": made["table"], "token": made["token"]}))
            state = receive_state(ws)
            for _ in range(4):  # a few moves with the database up
                ws.send(json.dumps(move(state)))
                state = receive_state(ws)
                assert state["type"] == "state"
            # and a game against the computer, on the same server
            game = ann.post("/api/games", json={"variant": "short", "level": "greedy"}).json()
            solo = ws_client.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10)
            solo.send(json.dumps({"type": "hello", **game}))
            solo_state = receive_state(solo)
            solo.send(json.dumps(move(solo_state)))
            solo_state = receive_state(solo)
            assert solo_state["type"] == "state"

            own_postgres.stop()
            took_solo = []
            for _ in range(2):  # a move against the computer: refused too, nothing applied
                began = time.monotonic()
                solo.send(json.dumps(move(solo_state)))
                reply = receive_state(solo)
                took_solo.append(time.monotonic() - began)
                assert reply["type"] == "error" and reply["code"] == "unavailable", reply
            assert max(took_solo) < 2.0, took_solo
            took = []
            for _ in range(3):  # every move: an error reply within 2 s; nothing applied
                began = time.monotonic()
                ws.send(json.dumps(move(state)))
                reply = receive_state(ws)
                took.append(time.monotonic() - began)
                assert reply["type"] == "error" and reply["code"] == "unavailable", reply
            began = time.monotonic()
            page = ann.get(f"/api/tables/{made['table']}")
            took.append(time.monotonic() - began)
            assert page.status_code == 503 and page.json()["code"] == "unavailable"
            history = ann.get("/api/me/history")
            assert history.status_code == 503 and history.json()["type"] == "error"
            new = ann.post("/api/games", json={"variant": "short", "level": "greedy"})
            assert new.status_code == 503 and new.json()["code"] == "unavailable"
            print("answer times while PostgreSQL is down:", [round(t, 2) for t in took])
            assert max(took) < 2.0, took

            own_postgres.start()  # the same server process, the same move: taken now
            back = time.monotonic()
            deadline = time.monotonic() + 20
            while True:
                ws.send(json.dumps(move(state)))
                reply = receive_state(ws)
                if reply["type"] == "state":
                    break
                assert time.monotonic() < deadline, reply
                time.sleep(0.3)
            print("move taken again", round(time.monotonic() - back, 2), "s after the restart")
            solo.send(json.dumps(move(solo_state)))  # the refused move, sent again: taken now
            again = receive_state(solo)
            assert again["type"] == "state" and again["decision"] > solo_state["decision"], again
            solo.close()
            assert reply["decision"] > state["decision"]
            state = reply
            for _ in range(3000):
                if state["over"]:
                    break
                if state["waiting"]:
                    ws.send(json.dumps(move(state)))
                state = receive_state(ws)
                assert state["type"] == "state", state
            assert state["over"]
            ws.close()
        deadline = time.monotonic() + 20
        while not (rows := stored(own_postgres.url)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(rows) == 1
    finally:
        kill(server)


def move(state: dict[str, Any]) -> dict[str, Any]:
    return {"type": "act", "decision": state["decision"], "action": choose(state)}


def stored(url: str) -> list[dict[str, Any]]:
    with open_store(url) as store:
        return store.finished_games()


# --- disk full (SQLite) --------------------------------------------------------------------------


@pytest.fixture
def small_disk() -> Iterator[Path]:
    need_root()
    where = Path(tempfile.mkdtemp(prefix="ft-full-"))
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(where)],
        check=False,
        capture_output=True,
    )
    if done.returncode != 0:
        where.rmdir()
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)
        shutil.rmtree(where, ignore_errors=True)


def fill(disk: Path) -> Path:
    filler = disk / "filler"
    with contextlib.suppress(OSError), filler.open("wb") as fh:
        while True:
            fh.write(b"\0" * 65536)
            fh.flush()
    return filler


def test_a_full_disk_recovers_by_itself_and_the_game_is_stored_once(small_disk: Path) -> None:
    path = small_disk / "games.sqlite3"
    app = create_app(lambda: open_store(path), workers=2)
    player = "full-disk-player-1"
    with TestClient(app, headers={"origin": "http://testserver"}) as client:
        game = client.post(
            "/api/games", json={"variant": "short", "level": "greedy", "player": player}
        ).json()
        with client.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "hello", **game}))
            state = ws.receive_json()
            for _ in range(3):
                ws.send_text(json.dumps(move(state)))
                state = ws.receive_json()
            filler = fill(small_disk)
            for _ in range(6):  # the store is full: the game goes on, in memory
                if state["over"]:
                    break
                ws.send_text(json.dumps(move(state)))
                state = ws.receive_json()
                assert state["type"] == "state", state
            filler.unlink()  # space returns: the next move saves the whole game
            for _ in range(3000):
                if state["over"]:
                    break
                ws.send_text(json.dumps(move(state)))
                state = ws.receive_json()
                assert state["type"] == "state", state
            assert state["over"]
        history = client.get("/api/history", headers={"x-player": player}).json()
        assert len(history["games"]) == 1  # stored once
        again = client.post(
            "/api/games", json={"variant": "short", "level": "greedy", "player": player}
        )
        assert again.status_code == 201  # later writes work


def test_a_full_disk_refuses_table_moves_until_space_returns_then_stores_once(
    small_disk: Path,
) -> None:
    """At a table the state lives in the store: a move that cannot be written is refused
    (``unavailable``, nothing applied); once space returns the same move is taken, and the
    finished game is stored once for its person."""
    path = small_disk / "games.sqlite3"
    app = create_app(lambda: open_store(path), workers=2, table_tick=0.05)
    with TestClient(app, headers={"origin": "http://testserver"}) as client:
        made = client.post(
            "/api/tables",
            json={
                "variant": "short",
                "seats": [{"kind": "person"}, {"kind": "computer", "level": "greedy"}],
            },
        ).json()
        with client.websocket_connect("/ws") as ws:
            ws.send_text(
                json.dumps({"type": "join", "table": made["table"], "token": made["token"]})
            )
            state = ws.receive_json()
            for _ in range(2):
                ws.send_text(json.dumps(move(state)))
                state = ws.receive_json()
            filler = fill(small_disk)
            refused = 0
            for _ in range(3):
                ws.send_text(json.dumps(move(state)))
                reply = ws.receive_json()
                if reply["type"] == "error":
                    assert reply["code"] == "unavailable", reply
                    refused += 1
                else:
                    state = reply
            assert refused
            filler.unlink()
            for _ in range(3000):
                if state["over"]:
                    break
                if not state["waiting"]:
                    state = ws.receive_json()
                    continue
                ws.send_text(json.dumps(move(state)))
                reply = ws.receive_json()
                assert reply["type"] == "state", reply
                state = reply
            assert state["over"]
        deadline = time.monotonic() + 20
        while not client.get("/api/me/history").json()["games"]:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        time.sleep(0.5)
        assert len(client.get("/api/me/history").json()["games"]) == 1  # once
