"""The web server at the protocol level: whole games in every variant with every message checked
for hidden cards, bad and replayed messages, tokens, and the HTTP API (docs/web.md)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient

from fifteentwo.players.simple import LEVELS, GreedyPlayer
from fifteentwo.store import open_store
from fifteentwo.web import create_app
from fifteentwo.web.protocol import MAX_MESSAGE_BYTES
from web_helpers import LeakChecker, choose

PLAYER = "test-player-key-0001"
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(lambda: open_store(tmp_path / "games.sqlite3"), workers=2)
    with TestClient(app, headers={"origin": "http://testserver"}) as c:
        yield c


def new_game(client: TestClient, **options: Any) -> dict[str, str]:
    body = {"variant": "short", "level": "greedy", "player": PLAYER, **options}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    data: dict[str, str] = response.json()
    return data


def hello(ws: Any, game: dict[str, str]) -> dict[str, Any]:
    ws.send_text(json.dumps({"type": "hello", "game": game["game"], "token": game["token"]}))
    state: dict[str, Any] = ws.receive_json()
    assert state["type"] == "state", state
    return state


def act(ws: Any, state: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    ws.send_text(json.dumps({"type": "act", "decision": state["decision"], "action": action}))
    reply: dict[str, Any] = ws.receive_json()
    return reply


def play_out(
    client: TestClient, game: dict[str, str], *, wrong_counts: bool = False, limit: int = 600
) -> tuple[dict[str, Any], LeakChecker, list[dict[str, Any]]]:
    """Play a game to its end through the WebSocket, checking every message for leaks."""
    seen: list[dict[str, Any]] = []
    with client.websocket_connect("/ws") as ws:
        state = hello(ws, game)
        checker = LeakChecker(state["view"]["seat"])
        checker.check(state)
        seen.append(state)
        for _ in range(limit):
            if state["over"]:
                break
            assert state["waiting"], state
            state = act(ws, state, choose(state, wrong_counts=wrong_counts))
            assert state["type"] == "state", state
            checker.check(state)
            seen.append(state)
        assert state["over"], "the game did not finish"
    return state, checker, seen


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("standard", {}),
        ("short", {}),
        ("five-card", {}),
        ("three-player", {}),
        ("four-player", {}),
        ("standard", {"cut": True, "manual_count": True}),
        ("three-player", {"manual_count": True}),
        ("four-player", {"cut": True, "manual_count": True}),
    ],
)
def test_whole_games_never_leak_a_hidden_card(
    client: TestClient, variant: str, options: dict[str, Any]
) -> None:
    game = new_game(client, variant=variant, **options)
    final, checker, seen = play_out(client, game)
    assert checker.messages > 10
    assert final["finished"], "the finished game was stored"
    view = final["view"]
    assert max(view["scores"]) >= view["target"]
    assert any(e["type"] == "hand_counted" for m in seen for e in m["events"])


def test_manual_counting_with_muggins(client: TestClient) -> None:
    game = new_game(client, variant="short", manual_count=True)
    final, _, seen = play_out(client, game, wrong_counts=True)
    events = [e for m in seen for e in m["events"]]
    counts = [e for e in events if e["type"] == "hand_counted" and e["seat"] == 0]
    assert counts and all("items" in e and "say" in e for e in counts)
    short = [e for e in counts if e["claimed"] < e["total"]]
    assert short, "some claims were short"
    muggins = [e for e in events if e["type"] == "scored" and e["reason"] == "muggins"]
    assert any(e["seat"] != 0 for e in muggins)  # the computer took what you missed
    # and you take what a lower level missed (it counts by hand too, and sometimes errs): its
    # short claim is shown by the claim alone (total null) until you answer, then counted in
    # full (claim_verdict; tests/test_web_muggins_claim.py)
    theirs = [e for e in events if e["type"] == "hand_counted" and e["seat"] != 0]
    held = [e for e in theirs if e["total"] is None]
    verdicts = [e for e in events if e["type"] == "claim_verdict"]
    assert [(v["cards"], v["claimed"]) for v in verdicts] == [
        (e["cards"], e["claimed"]) for e in held
    ]
    assert all(v["claimed"] < v["total"] for v in verdicts)
    assert len([e for e in muggins if e["seat"] == 0]) == len(verdicts)  # (choose takes them)
    assert final["over"]


def test_counts_come_itemised_and_spoken(client: TestClient) -> None:
    game = new_game(client, variant="standard")
    _, _, seen = play_out(client, game)
    counted = [e for m in seen for e in m["events"] if e["type"] == "hand_counted"]
    for event in counted:
        assert sum(item["points"] for item in event["items"]) == event["total"]
        if event["total"]:
            assert event["say"].endswith(str(event["total"])) or event["say"]
    plays = [
        e for m in seen for e in m["events"] if e["type"] == "scored" and e["reason"] == "play"
    ]
    assert all(e["items"] for e in plays)


def test_resume_on_a_new_connection_continues_from_the_same_decision(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect("/ws") as ws:
        state = hello(ws, game)
        state = act(ws, state, choose(state))
    with client.websocket_connect("/ws") as ws:
        again = hello(ws, game)
    assert again["decision"] == state["decision"]
    assert again["view"] == state["view"]
    assert again["log"] and again["recent"]
    checker = LeakChecker(0)
    checker.check(again)


def errors_after(ws: Any, messages: list[Any]) -> list[dict[str, Any]]:
    out = []
    for message in messages:
        if isinstance(message, bytes):
            ws.send_bytes(message)
        else:
            ws.send_text(message if isinstance(message, str) else json.dumps(message))
        out.append(ws.receive_json())
    return out


def test_bad_messages_are_refused_and_change_nothing(client: TestClient) -> None:
    game = new_game(client)
    other = new_game(client)
    with client.websocket_connect("/ws") as ws:
        before_hello = errors_after(
            ws,
            [
                {"type": "act", "decision": 0, "action": {"kind": "go"}},
                {"type": "hello", "game": game["game"], "token": other["token"]},
                {"type": "hello", "game": "x" * 20, "token": game["token"]},
            ],
        )
        assert [e["code"] for e in before_hello] == ["not_joined", "no_game", "no_game"]
        state = hello(ws, game)
        hand = state["view"]["hand"]
        n = state["view"]["legal"]["discard"]
        bad: list[Any] = [
            "not json",
            "[]",
            "{}",
            {"type": "fly"},
            {"type": "act", "decision": state["decision"]},
            {"type": "act", "decision": "0", "action": {"kind": "go"}},
            {"type": "act", "decision": state["decision"], "action": {"kind": "go"}, "x": 1},
            {"type": "act", "decision": state["decision"], "action": {"kind": "go"}},
            {
                "type": "act",
                "decision": state["decision"],
                "action": {"kind": "play", "card": hand[0]},
            },
            {
                "type": "act",
                "decision": state["decision"],
                "action": {"kind": "discard", "cards": ["ZZ"]},
            },
            {
                "type": "act",
                "decision": state["decision"],
                "action": {"kind": "discard", "cards": [hand[0]] * n},
            },
            {"type": "act", "decision": state["decision"] + 5, "action": {"kind": "go"}},
            {"type": "hello", "game": game["game"], "token": game["token"]},
            {"type": "undo", "decision": state["decision"]},
            "x" * (MAX_MESSAGE_BYTES + 1),
            json.dumps(
                {"type": "act", "decision": 0, "action": {"kind": "discard", "cards": ["AS"] * 500}}
            ),
            b"\x00\x01binary",
        ]
        replies = errors_after(ws, bad)
        assert all(r["type"] == "error" for r in replies), replies
        codes = {r["code"] for r in replies}
        assert {"bad_message", "illegal", "stale", "too_large", "cannot_undo"} <= codes
        ws.send_text(json.dumps({"type": "state"}))
        after = ws.receive_json()
        assert after["decision"] == state["decision"] and after["view"] == state["view"]
        # a real move works after all that, and replaying it is refused
        move = {"type": "act", "decision": state["decision"], "action": choose(state)}
        ws.send_text(json.dumps(move))
        moved = ws.receive_json()
        assert moved["type"] == "state" and moved["decision"] > state["decision"]
        ws.send_text(json.dumps(move))
        replay = ws.receive_json()
        assert replay["type"] == "error" and replay["code"] == "stale"
        ws.send_text(json.dumps({"type": "ping"}))
        assert ws.receive_json() == {"type": "pong"}


def test_a_token_acts_only_in_its_own_game(client: TestClient) -> None:
    first, second = new_game(client), new_game(client)
    assert first["game"] != second["game"] and first["token"] != second["token"]
    assert len(first["token"]) >= 32
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "game": second["game"], "token": first["token"]}))
        assert ws.receive_json()["code"] == "no_game"


def test_finished_game_is_over_for_the_protocol(client: TestClient) -> None:
    game = new_game(client)
    final, _, _ = play_out(client, game)
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "game": game["game"], "token": game["token"]}))
        reply = ws.receive_json()
        if reply["type"] == "state":  # still in this server's memory
            assert reply["over"]
            ws.send_text(
                json.dumps({"type": "act", "decision": reply["decision"], "action": {"kind": "go"}})
            )
            assert ws.receive_json()["code"] == "game_over"
        else:
            assert reply["code"] == "no_game"
    assert final["finished"]


def test_http_api_validates_and_lists(client: TestClient) -> None:
    options = client.get("/api/options").json()
    assert {v["name"] for v in options["variants"]} >= {"standard", "short", "five-card"}
    assert "greedy" in options["levels"]
    # Every level the menu offers can be started, the frozen experts' hyphenated names too.
    assert {"expert-1", "expert-2"} <= set(options["levels"])
    for level in ("expert-1", "expert-2"):
        assert new_game(client, level=level, player="frozen-expert-key-02")["game"]
    assert client.post("/api/games", json={"variant": "pinochle"}).status_code == 400
    assert client.post("/api/games", json={"level": "grandmaster"}).status_code == 400
    as_json = {"content-type": "application/json"}
    assert client.post("/api/games", content=b"{" * 10, headers=as_json).status_code == 400
    assert client.post("/api/games", content=b"x" * 10_000, headers=as_json).status_code == 413
    assert client.post("/api/games", json={"variant": "short", "seed": 5}).status_code == 400
    game = new_game(client)
    listed = client.get("/api/games", headers={"x-player": PLAYER}).json()["games"]
    assert [g["id"] for g in listed] == [game["game"]]
    assert "token" not in json.dumps(listed)
    assert client.get("/api/games", headers={"x-player": "someone-else-000"}).json()["games"] == []
    assert client.get("/").status_code == 200
    assert client.get("/static/app.js").status_code == 200


def test_history_and_review_belong_to_their_browser(client: TestClient) -> None:
    game = new_game(client)
    final, _, _ = play_out(client, game)
    row = final["finished"][0]
    history = client.get("/api/history", headers={"x-player": PLAYER}).json()
    assert [g["id"] for g in history["games"]] == [row]
    assert history["totals"][0]["games"] == 1
    assert history["roles"]["dealer"]["deals"] + history["roles"]["pone"]["deals"] > 0
    other = client.get("/api/history", headers={"x-player": "someone-else-000"}).json()
    assert other["games"] == []
    stranger = client.get(f"/api/history/{row}/review", headers={"x-player": "someone-else-000"})
    assert stranger.status_code == 404
    review = client.get(f"/api/history/{row}/review", headers={"x-player": PLAYER}).json()
    assert review["players"] == ["You", "Computer"]
    assert review["win_curve"] and review["seats"][0]["decisions"] > 0
    assert isinstance(review["mistakes"], list)


def test_the_review_link_is_the_row_the_finish_stored(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game-over message names the finished row its own finish returned: the server does
    not search the owner's last games (parsing their records) to find it."""
    first, _, _ = play_out(client, new_game(client))
    store = client.app.state.hub.store  # type: ignore[attr-defined]

    def searched(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("searched the finished games")

    monkeypatch.setattr(store, "finished_games", searched)
    second, _, _ = play_out(client, new_game(client))
    monkeypatch.undo()
    history = client.get("/api/history", headers={"x-player": PLAYER}).json()
    assert [g["id"] for g in history["games"]] == second["finished"] + first["finished"]
    assert len(second["finished"]) == 1 and second["finished"] != first["finished"]


def test_hint_and_coach(client: TestClient) -> None:
    game = new_game(client, coach=True)
    with client.websocket_connect("/ws") as ws:
        state = hello(ws, game)
        assert state["coach"]
        ws.send_text(json.dumps({"type": "hint"}))
        hint = ws.receive_json()
        assert hint["type"] == "hint" and hint["lines"] and hint["best"]["kind"] == "discard"
        worst = {"kind": "discard", "cards": state["view"]["hand"][:2]}
        reply = act(ws, state, worst)
        assert reply["type"] == "state"
        assert reply["remark"] is None or reply["remark"].startswith("Coach:")
        ws.send_text(json.dumps({"type": "coach", "on": False}))
        assert ws.receive_json()["coach"] is False


def test_the_leak_checker_catches_leaks() -> None:
    checker = LeakChecker(0)
    dealt = {"type": "dealt", "text": None, "dealer": 1, "hands": [["AS", "2S"], None]}
    view = {"hand": ["AS", "2S"], "counting_crib": False, "legal": {}}
    checker.check({"type": "state", "events": [dealt], "view": view})
    with pytest.raises(AssertionError):
        checker.check({"type": "state", "events": [], "view": {**view, "hand": ["AS", "3S"]}})
    with pytest.raises(AssertionError):
        checker.check({"type": "state", "events": [], "view": view, "remark": "play 3♠"})
    with pytest.raises(AssertionError):
        checker.check({"type": "state", "events": [], "view": {**view, "seed": 5}})
    other = {**dealt, "hands": [["AS", "2S"], ["3S", "4S"]]}
    with pytest.raises(AssertionError):
        LeakChecker(0).check({"type": "state", "events": [other], "view": view})


def test_undo_takes_back_to_the_same_decision(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect("/ws") as ws:
        start = hello(ws, game)
        assert not start["can_undo"]
        moved = act(ws, start, choose(start))
        assert moved["can_undo"]
        ws.send_text(json.dumps({"type": "undo", "decision": moved["decision"] - 1}))
        assert ws.receive_json()["code"] == "stale"
        ws.send_text(json.dumps({"type": "undo", "decision": moved["decision"]}))
        back = ws.receive_json()
        assert back["type"] == "state", back
        assert back["decision"] == start["decision"] and back["view"] == start["view"]
    listed = client.get("/api/games", headers={"x-player": PLAYER}).json()["games"]
    assert listed[0]["takebacks"] == 1


def test_no_undo_when_counting_with_muggins(client: TestClient) -> None:
    game = new_game(client, manual_count=True)
    with client.websocket_connect("/ws") as ws:
        start = hello(ws, game)
        moved = act(ws, start, choose(start))
        assert not moved["can_undo"]
        ws.send_text(json.dumps({"type": "undo", "decision": moved["decision"]}))
        reply = ws.receive_json()
        assert reply["code"] == "cannot_undo" and "muggins" in reply["message"]


class SleepyPlayer(GreedyPlayer):
    """A computer that takes its time over every decision (and says so: not quick)."""

    quick = False
    thinking = threading.Event()
    """Set when a decision starts (the server has taken the move in hand)."""
    seconds = 1.2
    """How long each decision takes: long enough that a reply stalled behind it is told
    apart from a prompt one on a loaded machine (CI's replies took up to 0.4 s)."""

    def choose(self, obs: Any) -> Any:
        SleepyPlayer.thinking.set()
        time.sleep(SleepyPlayer.seconds)
        return super().choose(obs)


class LyingPlayer(SleepyPlayer):
    """A computer that says it answers at once and takes its time."""

    quick = True


@pytest.mark.parametrize(
    ("player", "pause", "rounds"),
    [
        pytest.param(SleepyPlayer, 0.0, 1, id="a-slow-level-on-the-pool"),
        # Quick levels' moves share one thread (web/games.py, `GameHub.compute_move`): one
        # held up there sends the other games' moves to the pool, and its game goes there
        pytest.param(LyingPlayer, 0.15, 2, id="a-quick-level-slower-than-it-says"),
    ],
)
def test_a_slow_computer_never_stalls_the_server(
    client: TestClient,
    monkeypatch: pytest.MonkeyPatch,
    player: type[GreedyPlayer],
    pause: float,
    rounds: int,
) -> None:
    monkeypatch.setitem(LEVELS, "slow", player)
    slow = new_game(client, level="slow")
    fast = new_game(client)
    with client.websocket_connect("/ws") as ws_slow, client.websocket_connect("/ws") as ws_fast:
        state = hello(ws_slow, slow)
        other = hello(ws_fast, fast)
        for _ in range(rounds):
            SleepyPlayer.thinking.clear()
            ws_slow.send_text(
                json.dumps({"type": "act", "decision": state["decision"], "action": choose(state)})
            )
            # the slow computer is thinking (on a loaded machine the server may take the move
            # in hand late: the other game's move must come while it thinks, not with it)
            assert SleepyPlayer.thinking.wait(10)
            time.sleep(pause)
            sent = time.monotonic()
            other = act(ws_fast, other, choose(other))  # answered while the slow one thinks
            fast_at = time.monotonic()
            state = ws_slow.receive_json()
            slow_at = time.monotonic()
            assert other["type"] == "state" and state["type"] == "state"
            assert state["think_ms"] >= 1000 * SleepyPlayer.seconds - 100
            fast_reply = fast_at - sent
            # a reply stalled behind the slow one would take the rest of its thinking
            stalled = SleepyPlayer.seconds - pause
            assert fast_at < slow_at and fast_reply < stalled - 0.35, (fast_reply, slow_at - sent)
            while not state["waiting"]:  # (a state without a decision: the next one follows)
                state = ws_slow.receive_json()


def test_floods_are_slowed_and_the_page_is_locked_down(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        started = time.monotonic()
        for _ in range(300):
            ws.send_text(json.dumps({"type": "ping"}))
        replies = [ws.receive_json() for _ in range(300)]
        elapsed = time.monotonic() - started
    assert replies == [{"type": "pong"}] * 300
    assert elapsed >= 0.8, "past the burst, a connection is served at its rate"
    page = client.get("/")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"


def test_create_app_takes_a_path_or_a_store(tmp_path: Path) -> None:
    for where in (tmp_path / "a.sqlite3", open_store(tmp_path / "b.sqlite3")):
        with TestClient(create_app(where), headers={"origin": "http://testserver"}) as c:
            game = new_game(c)
            with c.websocket_connect("/ws") as ws:
                assert hello(ws, game)["waiting"]


def test_a_copy_left_behind_on_one_sqlite_file_reads_on_before_it_moves(tmp_path: Path) -> None:
    """Two servers on one SQLite file, no Redis: a move made through one leaves the other's
    copy behind. SQLite moves are made without reading the stored version first (the write
    refuses a stale copy), so the copy behind must still read on: a page that answers the
    current decision is taken, one that answers the old decision is told ``stale``, and the
    stored game has every move once (no move of the copy behind was stored)."""
    path = tmp_path / "games.sqlite3"
    apps = [create_app(lambda: open_store(path), workers=2) for _ in range(2)]
    headers = {"origin": "http://testserver"}
    with TestClient(apps[0], headers=headers) as one, TestClient(apps[1], headers=headers) as two:
        game = new_game(one)
        with one.websocket_connect("/ws") as old, two.websocket_connect("/ws") as new:
            behind = hello(old, game)  # the first server holds the game at this decision
            state = hello(new, game)
            for _ in range(3):  # moved on through the second server only
                state = act(new, state, choose(state))
                assert state["type"] == "state", state
            refused = act(old, behind, choose(behind))  # the old page's old decision
            assert refused["type"] == "error" and refused["code"] == "stale", refused
            taken = act(old, state, choose(state))  # the current one, on the copy behind
            assert taken["type"] == "state", taken
            assert taken["decision"] > state["decision"]
        with two.websocket_connect("/ws") as page:
            state = hello(page, game)  # the second server reads the first one's move
            assert (state["decision"], state["view"]) == (taken["decision"], taken["view"])
            for _ in range(400):  # and plays the game to its end
                if state["over"]:
                    break
                state = act(page, state, choose(state))
                assert state["type"] == "state", state
            assert state["over"]
