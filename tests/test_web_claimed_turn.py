"""A page that reaches a process while another process's claim on the computers' turn stands
(that process may have died thinking: a kill -9) is answered at once, and sent the turn when it
comes: found by an outside audit, where such a page waited the claim's whole 15 s for any answer
(a ping included)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest

from fifteentwo.players.simple import LEVELS, GreedyPlayer
from fifteentwo.store import open_store
from fifteentwo.web import games as web_games
from fifteentwo.web.bus import Bus
from fifteentwo.web.games import GameHub
from fifteentwo.web.protocol import NewGameRequest, parse_client_message
from test_web_inline import Page
from web_helpers import choose


class Stuck(GreedyPlayer):
    """A slow level whose next move once ``armed`` does not end until released (as in a process
    that died while its computer thought)."""

    quick = False
    armed: ClassVar[bool] = False
    stuck: ClassVar[bool] = False
    release: ClassVar[threading.Event] = threading.Event()

    def choose(self, obs: Any) -> Any:
        if Stuck.armed:
            Stuck.armed, Stuck.stuck = False, True
            Stuck.release.wait(30)
        return super().choose(obs)


def shared_hub(path: Path) -> GameHub:
    hub = GameHub(lambda: open_store(path))
    hub.share_games("a secret the processes share")
    hub.attach_bus(Bus())  # several processes: computers' turns are claimed
    return hub


def test_a_page_is_answered_at_once_while_another_process_holds_the_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(LEVELS, "stuck", Stuck)
    monkeypatch.setattr(Stuck, "armed", False)
    monkeypatch.setattr(Stuck, "stuck", False)
    monkeypatch.setattr(Stuck, "release", threading.Event())
    monkeypatch.setattr(web_games, "CLAIM_SECONDS", 4.0)
    path = tmp_path / "games.sqlite3"

    async def main() -> None:
        a, b = shared_hub(path), shared_hub(path)
        await a.start()
        await b.start()
        try:
            game_id, token = await a.create(
                NewGameRequest(variant="standard", level="stuck", player="p" * 16)
            )
            game = await a.open(game_id, token)
            page = Page(game.session.viewer)
            state = await a.join(game, page)
            for _ in range(20):  # decisions until one is answered by the computer's move
                while not state["waiting"]:
                    state = await page.inbox.get()
                decision = state["decision"]
                message = parse_client_message(
                    json.dumps({"type": "act", "decision": decision, "action": choose(state)})
                )
                Stuck.armed = True
                stuck = asyncio.create_task(a.act(game, page.seat, decision, message.action))
                while not (Stuck.stuck or stuck.done()):  # the decision stored, the turn claimed
                    await asyncio.sleep(0.02)
                if Stuck.stuck:
                    break
                Stuck.armed = False
                await stuck
                state = await page.inbox.get()
            assert Stuck.stuck

            started = time.monotonic()
            other = await b.open(game_id, token)
            seen = Page(other.session.viewer)
            opened = await b.join(other, seen)
            assert time.monotonic() - started < 2.0  # not the claim's 4 s (a loaded CI machine)
            assert opened["decision"] > decision and not opened["waiting"]  # the computer's turn

            turn = await asyncio.wait_for(seen.inbox.get(), 15)  # made by b once it lapsed
            assert turn["type"] == "state", turn
            assert turn["waiting"] or turn["over"]
            assert turn["decision"] > opened["decision"]
            Stuck.release.set()
            with contextlib.suppress(Exception):  # (a's copy was behind: its turn is refused)
                await asyncio.wait_for(stuck, 10)
            record = await b.store_call(b.store.load_game, game_id)
            assert record.version == other.session.version  # b's turn stored, a's not over it
        finally:
            Stuck.release.set()
            await a.close()
            await b.close()

    asyncio.run(main())
