"""The Redis bus between server processes (issue 32): a game against the computer is announced
on a channel of its own, heard only by processes that watch it (a page of it is connected
there), from the moment they watch it until its last page leaves; tables still reach every
process. Needs the project's Redis server (skipped without it unless FIFTEENTWO_REQUIRE_REDIS).
"""

from __future__ import annotations

import asyncio
import json
import secrets

import pytest

pytest.importorskip("redis")

from fifteentwo.web import bus
from fifteentwo.web.bus import GAME_CHANNEL, RedisBus
from test_web_processes import REDIS_URL, need_redis


async def _heard(
    got: list[tuple[str, str, int]], want: int, wait: float = 2.0
) -> list[tuple[str, str, int]]:
    """``got`` once it holds ``want`` messages (or after ``wait`` seconds)."""
    for _ in range(int(wait / 0.02)):
        if len(got) >= want:
            break
        await asyncio.sleep(0.02)
    return got


async def _subscribers(game_id: str, want: int) -> None:
    """Wait (up to 5 s) until Redis counts ``want`` subscribers of the game's channel: the
    bus sends SUBSCRIBE without waiting for it to take, so a publish on another connection
    right after could come first on a loaded machine."""
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(REDIS_URL)
    try:
        for _ in range(250):
            ((_, count),) = await client.pubsub_numsub(GAME_CHANNEL + game_id)
            if count == want:
                return
            await asyncio.sleep(0.02)
    finally:
        await client.aclose()


async def _bus_pair() -> None:
    got: list[tuple[str, str, int]] = []
    tag = secrets.token_hex(4)

    # (only this test's: the tables' channel is shared with every other test on this Redis,
    # which may be announcing tables of its own while this one runs)
    async def on_table(table_id: str, version: int) -> None:
        if tag in table_id:
            got.append(("table", table_id, version))

    async def on_game(game_id: str, version: int) -> None:
        if tag in game_id:
            got.append(("game", game_id, version))

    async def nothing(table_id: str, version: int) -> None:
        return None

    watched, other = f"g-{tag}-watched", f"g-{tag}-other"
    listener, sender = RedisBus(REDIS_URL), RedisBus(REDIS_URL)
    try:
        await listener.start(on_table, None, on_game)
        await sender.start(nothing, None, nothing)
        await asyncio.sleep(0.3)  # both connected
        listener.watch_game(watched)
        # a newly watched game is checked once (-2: read it from the store)
        assert await _heard(got, 1) == [("game", watched, -2)]
        await _subscribers(watched, 1)
        got.clear()
        await sender.publish_game(other, 5)  # nobody watches it here
        await sender.publish_game(watched, 7)
        await sender.publish(f"t-{tag}", 3)  # tables reach every process
        heard = await _heard(got, 2)
        await asyncio.sleep(0.2)  # time for a stray announcement of `other` to arrive
        assert sorted(heard) == [("game", watched, 7), ("table", f"t-{tag}", 3)]
        got.clear()
        listener.unwatch_game(watched)
        await _subscribers(watched, 0)
        await sender.publish_game(watched, 8)
        await sender.publish(f"t-{tag}", 4)
        heard = await _heard(got, 1)
        await asyncio.sleep(0.2)
        assert heard == [("table", f"t-{tag}", 4)]
    finally:
        await listener.close()
        await sender.close()


def test_a_game_is_heard_only_where_it_is_watched() -> None:
    need_redis()
    asyncio.run(_bus_pair())


async def _announced_only_while_heard() -> None:
    got: list[tuple[str, int]] = []

    async def on_game(game_id: str, version: int) -> None:
        got.append((game_id, version))

    async def nothing(table_id: str, version: int) -> None:
        return None

    game = f"g-{secrets.token_hex(4)}"
    listener, sender = RedisBus(REDIS_URL), RedisBus(REDIS_URL)
    sent: list[str] = []
    publish = sender._redis.publish

    async def counted(channel: str, data: str) -> object:
        if channel == GAME_CHANNEL + game:
            sent.append(data)
        return await publish(channel, data)

    sender._redis.publish = counted
    try:
        await listener.start(nothing, None, on_game)
        await sender.start(nothing, None, nothing)
        await asyncio.sleep(0.3)
        sender._announce_all_until = 0.0  # past the first seconds after connecting
        await sender.publish_game(game, 1)  # the first announcement: nobody hears it
        await sender.publish_game(game, 2)  # so the next is not sent
        assert len(sent) == 1
        listener.watch_game(game)  # a page of it opens on the other process
        assert await _heard(got, 1) == [(game, -2)]
        await _subscribers(game, 1)
        for _ in range(100):  # the notice reaches the sender
            if game in sender._elsewhere:
                break
            await asyncio.sleep(0.02)
        got.clear()
        await sender.publish_game(game, 3)
        assert await _heard(got, 1) == [(game, 3)] and len(sent) == 2
        got.clear()
        listener.unwatch_game(game)
        await _subscribers(game, 0)
        await sender.publish_game(game, 4)  # sent, and nobody heard it
        await sender.publish_game(game, 5)  # not sent
        assert len(sent) == 3
        sender._probed[game] -= bus.PROBE_SECONDS  # a probe is due
        await sender.publish_game(game, 6)
        await sender.publish_game(game, -1)  # the game's end is always announced
        assert [json.loads(s)["version"] for s in sent] == [1, 3, 4, 6, -1]
        await asyncio.sleep(0.2)
        assert got == []  # (unwatched: nothing reaches the other process)
    finally:
        await listener.close()
        await sender.close()


def test_a_game_is_announced_only_while_another_process_may_hear_it() -> None:
    need_redis()
    asyncio.run(_announced_only_while_heard())
