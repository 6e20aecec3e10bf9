"""How a change to a table or a game reaches the other server processes: a message bus.

`LocalBus` is for one process (nothing to send). `RedisBus` publishes each changed table's (or
game against the computer's) id and new version on a Redis pub/sub channel and calls back for
those other processes published, so players of one table, or the pages of one game, may be
connected to different processes. Tables share one channel; each game against the computer has
a channel of its own (`GAME_CHANNEL` and its id), which a process subscribes to only while a
page of that game is connected to it (`Bus.watch_game`). Only ids and versions cross the bus;
every process reads the table or game itself from the shared store, so a lost message costs a
refresh, never a move.

A game's moves are announced only while another process may hear them: most games have their
one page on the process that plays them, and each announcement there was a Redis round trip,
and a message the process read back from its own subscription, for nobody. A process that
starts watching a game says so on the tables' channel (``{"watching": [ids]}``), and a
publish learns from Redis how many heard it; a game that nobody else heard is announced again
only when a process says it watches it, once in `PROBE_SECONDS` otherwise (for a notice
lost), and always in a process's first `OPEN_SECONDS` after it (re)connected (it has not heard
the notices given before). The notice goes out before the watcher reads the game from the
store, so only a move made in the moment before its maker reads the notice goes unannounced:
the page shows it at the next move, the next probe or its own next message.
Table talk (`web.talk`) crosses it too, on a channel of its own: a talk line is already stored
with its table when it is published, so a lost one shows at a reload.

Every Redis key and channel of the lobby and talk starts with `RedisBus.prefix` (the
``FIFTEENTWO_REDIS_PREFIX`` environment variable, default ``fifteentwo``): servers with the same
prefix share quick-match queues and talk; tests use a prefix of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Final

__all__ = ["CHANNEL", "Bus", "LocalBus", "RedisBus", "TalkHandler", "open_bus"]

CHANNEL: Final = "fifteentwo:tables"
GAME_CHANNEL: Final = "fifteentwo:game:"
"""A game against the computer's channel is this and its id: only processes with a page of the
game connected subscribe to it (`Bus.watch_game`)."""
PREFIX_ENV: Final = "FIFTEENTWO_REDIS_PREFIX"
_log = logging.getLogger("fifteentwo.web")

Handler = Callable[[str, int], Awaitable[None]]
"""Called with a table's id and the version another process wrote (it must return quickly:
messages are handled one after another)."""
TalkHandler = Callable[[str, dict[str, Any]], Awaitable[None]]
"""Called with a table's id and a talk message another process published."""


class Bus:
    """The interface: publish a table's (or game's) id and new version; `start` calls
    ``handler`` (``on_game``) for others'."""

    redis: Any = None
    """The Redis client shared with the lobby and talk (None for one process)."""
    prefix: str = "fifteentwo"

    async def start(
        self, handler: Handler, talk: TalkHandler | None = None, on_game: Handler | None = None
    ) -> None:
        """Begin listening (a no-op for one process)."""

    async def publish(self, table_id: str, version: int) -> None:
        """Tell the other processes that this table changed (it is now at ``version``)."""

    async def publish_talk(self, table_id: str, message: dict[str, Any]) -> None:
        """Hand a talk message to the other processes' connections to this table."""

    async def publish_game(self, game_id: str, version: int) -> None:
        """Tell the other processes that this game against the computer changed (-1: it left
        the store, finished or abandoned)."""

    def watch_game(self, game_id: str) -> None:
        """Hear this game's announcements from now on (a page of it is connected here)."""

    def unwatch_game(self, game_id: str) -> None:
        """Stop hearing this game's announcements (its last page here left)."""

    async def close(self) -> None:
        """Stop listening and close connections."""


class LocalBus(Bus):
    """One server process: every connection is local, there is nobody else to tell."""


PUBLISH_WAIT: Final = 1.0
"""Seconds a publish may take before it is given up."""
PROBE_SECONDS: Final = 30.0
"""A game nobody else heard is announced again at least this often: a notice is lost only
while a process is cut off from Redis, and both ends make up for that when they reconnect (the
watcher says again what it watches, the announcer announces everything for `OPEN_SECONDS`), so
this is a last resort."""
OPEN_SECONDS: Final = 10.0
"""After (re)connecting to Redis a process announces every game for this long, learning from
the publishes which games other processes watch."""
PROBE_BOOK: Final = 40_000
"""Games remembered (probed, or watched elsewhere) before those long quiet are dropped."""


class RedisBus(Bus):
    """Redis pub/sub (redis-py's asyncio client); reconnects with back-off if Redis restarts."""

    def __init__(self, url: str) -> None:
        import redis.asyncio as redis

        self.url = url
        self.me = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._redis: Any = redis.from_url(url, socket_connect_timeout=5)
        self.redis = self._redis
        self.prefix = os.environ.get(PREFIX_ENV) or "fifteentwo"
        self.talk_channel = f"{self.prefix}:talk"
        self._task: asyncio.Task[None] | None = None
        self._watched: set[str] = set()
        """The games whose pages are connected here (wanted on the game channels)."""
        self._subscribed: set[str] = set()
        """The games subscribed on the current connection (`_pubsub`)."""
        self._pubsub: Any = None
        self._wake: asyncio.Event | None = None
        self._syncer: asyncio.Task[None] | None = None
        self._on_game: Handler | None = None
        self._elsewhere: dict[str, float] = {}
        """Games another process watches, and when that was last heard (its notice, or a
        publish that it heard)."""
        self._probed: dict[str, float] = {}
        """When each game not watched elsewhere was last announced."""
        self._announce_all_until = 0.0
        """Until when every game is announced (`OPEN_SECONDS` after a connection)."""

    async def check(self) -> None:
        """Fail now, in one line, if Redis cannot be reached."""
        await self._redis.ping()

    async def start(
        self, handler: Handler, talk: TalkHandler | None = None, on_game: Handler | None = None
    ) -> None:
        self._on_game = on_game
        self._wake = asyncio.Event()
        self._task = asyncio.create_task(self._listen(handler, talk, on_game))
        self._syncer = asyncio.create_task(self._sync())

    def watch_game(self, game_id: str) -> None:
        self._watched.add(game_id)
        if self._wake is not None:
            self._wake.set()

    def unwatch_game(self, game_id: str) -> None:
        self._watched.discard(game_id)
        if self._wake is not None:
            self._wake.set()

    async def _sync(self) -> None:
        """Bring the game channels subscribed in line with the games watched, a batch at a
        time; a game newly subscribed is checked once against the store (``on_game`` with
        version -2), for a move announced before the subscription took."""
        assert self._wake is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            pubsub = self._pubsub
            if pubsub is None:  # (re)connecting: `_listen` subscribes every watched game
                continue
            add = self._watched - self._subscribed
            drop = self._subscribed - self._watched
            try:
                if drop:
                    self._subscribed -= drop
                    await pubsub.unsubscribe(*(GAME_CHANNEL + g for g in drop))
                if add:
                    self._subscribed |= add
                    await pubsub.subscribe(*(GAME_CHANNEL + g for g in add))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # `_listen` reconnects and subscribes them all again
                _log.warning("game bus: could not subscribe: %s", exc)
                continue
            if add:
                await self._say_watching(add)
            if self._on_game is not None:
                for game_id in add:
                    with contextlib.suppress(Exception):
                        await self._on_game(game_id, -2)

    async def _say_watching(self, games: set[str]) -> None:
        """Tell the other processes that pages of these games are connected here."""
        body = {"watching": sorted(games), "from": self.me}
        with contextlib.suppress(Exception):  # (their probes find the game soon anyway)
            await asyncio.wait_for(self._redis.publish(CHANNEL, json.dumps(body)), PUBLISH_WAIT)

    async def _listen(
        self, handler: Handler, talk: TalkHandler | None, on_game: Handler | None
    ) -> None:
        delay = 0.2
        while True:
            try:
                self._pubsub = None
                pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
                games = set(self._watched)
                await pubsub.subscribe(
                    CHANNEL, self.talk_channel, *(GAME_CHANNEL + g for g in games)
                )
                self._subscribed, self._pubsub = games, pubsub
                # notices given while this process was not listening were not heard
                self._announce_all_until = time.monotonic() + OPEN_SECONDS
                if games:
                    await self._say_watching(games)
                if self._wake is not None:
                    self._wake.set()  # games watched or left meanwhile
                delay = 0.2
                async for message in pubsub.listen():
                    try:
                        body = json.loads(message["data"])
                        if _text(message["channel"]) == self.talk_channel:
                            if talk is not None and body.get("from") != self.me:
                                said, where = body.get("message"), body.get("table")
                                if isinstance(said, dict) and isinstance(where, str):
                                    await talk(where, said)
                            continue
                        if body.get("from") == self.me:
                            continue
                        watching = body.get("watching")
                        if isinstance(watching, list):
                            self._heard_watching(w for w in watching if isinstance(w, str))
                            continue
                        table, version = body.get("table"), body.get("version")
                        game = body.get("game")
                        if type(version) is not int:
                            continue
                        if isinstance(table, str):
                            await handler(table, version)
                        elif isinstance(game, str) and on_game is not None:
                            await on_game(game, version)
                    except (ValueError, TypeError, KeyError, AttributeError):
                        continue
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                _log.warning("table bus: %s; reconnecting", exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    async def publish(self, table_id: str, version: int) -> None:
        body = {"table": table_id, "version": version, "from": self.me}
        # issue 35: a Redis that stops answering costs a second at most (the other processes
        # catch up at their next version check)
        await asyncio.wait_for(self._redis.publish(CHANNEL, json.dumps(body)), PUBLISH_WAIT)

    async def publish_talk(self, table_id: str, message: dict[str, Any]) -> None:
        body = {"table": table_id, "message": message, "from": self.me}
        await self._redis.publish(self.talk_channel, json.dumps(body))

    async def publish_game(self, game_id: str, version: int) -> None:
        now = time.monotonic()
        if not (
            version < 0
            or game_id in self._elsewhere
            or now < self._announce_all_until
            or now - self._probed.get(game_id, -PROBE_SECONDS) >= PROBE_SECONDS
        ):
            return  # nobody else heard the last one, and nobody said they watch since
        body = {"game": game_id, "version": version, "from": self.me}
        publish = self._redis.publish(GAME_CHANNEL + game_id, json.dumps(body))
        heard = await asyncio.wait_for(publish, PUBLISH_WAIT)
        if version < 0:  # the game left the store: nothing more to announce
            self._elsewhere.pop(game_id, None)
            self._probed.pop(game_id, None)
            return
        mine = 1 if game_id in self._subscribed else 0  # (this process's own page)
        if isinstance(heard, int) and heard <= mine:
            self._elsewhere.pop(game_id, None)
            if len(self._probed) > PROBE_BOOK:
                self._probed = {g: t for g, t in self._probed.items() if now - t < PROBE_SECONDS}
            self._probed[game_id] = now
        else:
            self._heard_watching((game_id,))
            self._probed.pop(game_id, None)

    def _heard_watching(self, games: Iterable[str]) -> None:
        """Note games another process watches. The book is bounded: a game not heard of for
        a minute is dropped when it is full, and if another process still watches it the next
        probe (at most `PROBE_SECONDS` later) finds it again."""
        now = time.monotonic()
        if len(self._elsewhere) > PROBE_BOOK:
            self._elsewhere = {g: t for g, t in self._elsewhere.items() if now - t < 60.0}
        for game_id in games:
            self._elsewhere[game_id] = now

    async def close(self) -> None:
        for task in (self._syncer, self._task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        with contextlib.suppress(Exception):
            await self._redis.aclose()


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def open_bus(url: str | None) -> Bus:
    """A `RedisBus` for a ``redis://`` URL, else the one-process bus."""
    if not url:
        return LocalBus()
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError(f"not a Redis URL: {url!r}"[:100])
    return RedisBus(url)
