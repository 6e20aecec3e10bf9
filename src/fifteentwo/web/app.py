"""The ASGI application: the page, a small JSON API, and the game's WebSocket (docs/web.md).

One connection plays one seat of one game: its first message is ``hello`` with the game's id and
token; after that it may act, ask for a hint, take back or toggle the coach. Every message is
parsed by `protocol` first; anything malformed, oversized, out of turn or replayed is answered
with an ``error`` message and changes nothing. The connection is never closed for a bad message
(a buggy client recovers by asking for the state again), except after too many of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any, Final

import orjson
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from fifteentwo import __version__
from fifteentwo.app.options import default_level, known_levels
from fifteentwo.errors import FifteenTwoError
from fifteentwo.rules import find_rules
from fifteentwo.store import Store, StoreError, open_store
from fifteentwo.web.accounts import COOKIE, SECURE_COOKIE, Accounts, Identity, server_secret
from fifteentwo.web.bus import Bus, open_bus
from fifteentwo.web.games import GameHub, Refused, WebGame
from fifteentwo.web.lobby import lobby_routes
from fifteentwo.web.metrics import Metrics, Operations, RequestLog, exception_text, log_error
from fifteentwo.web.protocol import (
    MAX_MESSAGE_BYTES,
    VARIANTS,
    ActMessage,
    CoachMessage,
    HelloMessage,
    HintMessage,
    JoinMessage,
    NewGameRequest,
    PingMessage,
    RematchMessage,
    StateMessage,
    TalkMessage,
    UndoMessage,
    first_error,
    parse_client_message,
)
from fifteentwo.web.replies import bad, error, read_body, refused
from fifteentwo.web.security import (
    RateLimits,
    SecurityConfig,
    SecurityMiddleware,
    allowed_methods,
)
from fifteentwo.web.social import social_routes
from fifteentwo.web.tables import TableHub
from fifteentwo.web.visitors import Visitors

__all__ = ["create_app"]

_log = logging.getLogger("fifteentwo.web")

MAX_BAD_MESSAGES: Final = 50
"""Bad messages a connection may send before it is closed (a client that will not stop)."""
DRAIN_SECONDS: Final = 10.0
"""At shutdown, how long detached table work may take before the store closes anyway."""
RATE: Final = 100.0
"""Messages per second a connection is served on average, after a burst of `BURST`; faster
senders are slowed down (the server waits before reading on), not refused."""
BURST: Final = 200.0
MAX_BODY_BYTES: Final = 4096
STATIC = resources.files("fifteentwo.web") / "static"

_VARIANT_LABELS: Final = {
    "standard": "Two players, 121 up",
    "short": "Two players, 61 up",
    "five-card": "Five-card cribbage (61)",
    "three-player": "Three players (61)",
    "four-player": "Four players, partners (121)",
}


class RateLimit:
    """A token bucket per connection: past the rate, the connection waits its turn."""

    def __init__(self, rate: float = RATE, burst: float = BURST) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = burst, time.monotonic()

    def delay(self) -> float:
        """Seconds to wait before handling one more message (0 within the rate)."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        self.tokens -= 1
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate


class Connection:
    """One WebSocket as a game listener: sends never raise, and are serialized."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self.seat = -1
        self.table: str | None = None
        self.person = ""
        """Who is at the other end, for talk's rate limit (the cookie's player, else the
        address)."""
        self._lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        """Send JSON; a closed socket drops it quietly."""
        async with self._lock:
            if self.websocket.application_state != WebSocketState.CONNECTED:
                return
            with contextlib.suppress(Exception):
                await self.websocket.send_text(encode(message))


def encode(message: dict[str, Any]) -> str:
    """A message as compact JSON text (orjson: a state message is encoded several times
    faster than by `json.dumps`; the same JSON)."""
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode("utf-8")


def create_app(
    store: Callable[[], Store] | Store | str | Path | None = None,
    *,
    workers: int = 4,
    redis: str | None = None,
    secret: str | None = None,
    table_tick: float = 1.0,
    security: SecurityConfig | None = None,
) -> Starlette:
    """The application. ``store`` is where games are kept: None for the default store, a path
    or URL for `fifteentwo.store.open_store`, an open `Store` (closed when the application
    stops), or a function that opens one (called when the application starts). ``redis``
    (a ``redis://`` URL) lets several processes serve the same tables and share rate limits;
    ``secret`` lets every process that shares it serve every game against the computer
    (default: one kept in the store); ``security`` holds the allowed origins, trusted proxies,
    session lifetimes and rate limits (docs/web.md, "Security"); ``table_tick`` is how often
    away seats and turn
    timers are looked at, in seconds."""
    metrics = Metrics()
    ops = Operations(metrics)
    opener = _store_opener(store)
    hub = GameHub(lambda: metrics.instrument(opener()), workers=workers)
    parts: dict[str, Any] = {}
    metrics.games.set_function(lambda: len(hub.games))
    metrics.tables.set_function(lambda: len(parts["tables"].tables) if "tables" in parts else 0)
    config = security or SecurityConfig()

    def tables() -> TableHub:
        found: TableHub = parts["tables"]
        return found

    def accounts() -> Accounts:
        found: Accounts = parts["accounts"]
        return found

    def limits() -> RateLimits:
        found: RateLimits = parts["limits"]
        return found

    visitors = Visitors(accounts, hub.compute, config)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await hub.start()
        bus: Bus = open_bus(redis)
        check = getattr(bus, "check", None)
        if check is not None:
            await check()
        key = await hub.store_call(server_secret, hub.store, secret)
        hub.share_games(key)  # every process with this secret serves every game
        parts["accounts"] = Accounts(
            hub.store, idle=config.session_idle, absolute=config.session_absolute
        )
        parts["limits"] = rate_limits = RateLimits(config, redis)
        parts["tables"] = table_hub = TableHub(
            lambda: hub.store,
            bus,
            run=hub.compute,
            store_call=hub.store_call,
            tick=table_tick,
        )
        hub.attach_bus(bus)  # games against the computer announce their writes too
        await bus.start(table_hub.on_bus, table_hub.on_talk, hub.on_bus)
        ops.checks["store"] = lambda: hub.store_call(hub.store.get_setting, "readyz")
        if check is not None:
            ops.checks["redis"] = check
        sweeper = asyncio.create_task(hub.run_sweeper())
        table_sweeper = asyncio.create_task(table_hub.run_sweeper())
        try:
            yield
        finally:
            sweeper.cancel()
            table_sweeper.cancel()
            try:  # detached table work (results, away seats) gets a bounded time to finish
                await asyncio.wait_for(table_hub.drain(), DRAIN_SECONDS)
            except TimeoutError:
                _log.warning("table work still running after %s s at shutdown", DRAIN_SECONDS)
            await bus.close()
            await rate_limits.close()
            await hub.close()

    async def index(request: Request) -> Response:
        return FileResponse(str(STATIC / "index.html"), headers={"Cache-Control": "no-cache"})

    async def options(request: Request) -> Response:
        levels = list(known_levels())
        return JSONResponse(
            {
                "version": __version__,
                "variants": [
                    {"name": v, "label": _VARIANT_LABELS[v], "players": find_rules(v).players}
                    for v in VARIANTS
                ],
                "levels": levels,
                "default_level": default_level(),
            }
        )

    async def new_game(request: Request) -> Response:
        try:
            req = NewGameRequest.model_validate_json(await read_body(request, MAX_BODY_BYTES))
            game_id, token = await hub.create(req, account=await _account_hint(request))
        except ValidationError as exc:
            return bad("bad_request", first_error(exc))
        except Refused as exc:
            return refused(exc)
        except StoreError:
            raise  # 503 (`_store_down`)
        except FifteenTwoError as exc:
            return bad("bad_request", str(exc))
        return JSONResponse({"game": game_id, "token": token}, status_code=201)

    async def _identity(request: Request) -> Identity | None:
        """The request's live session (`web.visitors`), or None."""
        me = await visitors.who(request)
        return me if me.key else None

    async def _account_hint(request: Request) -> str | None:
        """Issue 35: the owner hint of the account logged in (its games follow it)."""
        me = await _identity(request)
        return me.owner_hint if me is not None and me.account_id else None

    async def list_games(request: Request) -> Response:
        return JSONResponse(
            {"games": await hub.in_progress(_player(request), await _account_hint(request))}
        )

    async def history(request: Request) -> Response:
        return JSONResponse(await hub.history(_player(request), await _account_hint(request)))

    async def review(request: Request) -> Response:
        row = str(request.path_params["row"])
        if not (row.isascii() and row.isdigit() and len(row) < 19):
            return bad("no_game", "no such finished game", status=404)
        me = await _identity(request)
        try:
            return JSONResponse(
                await hub.review(int(row), _player(request), me.owner_hint if me else None)
            )
        except Refused as exc:
            return bad(exc.code, str(exc), status=404)

    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        metrics.connections.inc()
        conn = Connection(websocket)
        conn.person = _browser(websocket)
        game: WebGame | None = None
        bad = 0
        limit = RateLimit()
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                wait = limit.delay()
                if wait:
                    await asyncio.sleep(wait)
                text = message.get("text")
                started = time.perf_counter()
                if text is None:
                    reply: dict[str, Any] | None = error("bad_message", "send JSON text frames")
                else:
                    try:
                        if conn.table is not None or '"join"' in text:
                            reply = await _handle_table(tables(), conn, text)
                            kind = "table"
                        else:
                            reply, game = await _handle(hub, conn, game, text)
                            kind = "game"
                        if reply is None and '"act"' in text:  # a move, answered by broadcast
                            metrics.action(kind, started)
                    except Refused as exc:
                        reply = error(exc.code, str(exc))
                    except StoreError as exc:  # issue 35: the database is down: say so now
                        reply = store_trouble()
                        reply["cause"] = str(exc)  # (for the log line only)
                    except FifteenTwoError as exc:
                        reply = error("refused", str(exc))
                    except Exception as exc:  # a bug must cost one reply, never the server
                        reply = error("server", "the server could not do that; nothing changed")
                        reply["exc"] = exception_text(exc)
                if reply is not None:
                    if reply.get("type") == "error":
                        bad += 1
                        _message_error(
                            metrics,
                            websocket=websocket,
                            conn=conn,
                            game=game,
                            reply=reply,
                            started=started,
                        )
                    await conn.send(reply)
                if bad > MAX_BAD_MESSAGES:
                    await websocket.close(code=1008)
                    break
        except WebSocketDisconnect:
            pass
        finally:
            metrics.connections.dec()
            if game is not None:
                hub.leave(game, conn)
            if conn.table is not None:
                tables().detach(tables().leave(conn.table, conn))

    routes: list[BaseRoute] = [
        *social_routes(tables, accounts, hub.compute, config, limits),
        *lobby_routes(tables, visitors),
        Route("/t/{table}", index),
        Route("/t/{table}/watch/{token}", index),
        Route("/leaderboard", index),
        Route("/", index),
        Route("/history", index),
        Route("/review/{row:int}", index),
        Route("/healthz", ops.healthz),
        Route("/readyz", ops.readyz),
        Route("/metrics", ops.metrics_page),
        Route("/api/options", options),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games", list_games, methods=["GET"]),
        Route("/api/history", history),
        Route("/api/history/{row}/review", review),
        WebSocketRoute("/ws", socket),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    middleware = [
        Middleware(RequestLog, metrics=metrics),
        Middleware(SecurityMiddleware, config=config, routes=routes),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=middleware,
        exception_handlers={
            StoreError: _store_down,  # issue 35: 503 with JSON, never a hang
            404: _not_found,
            405: partial(_method_not_allowed, routes),
        },
    )
    app.state.hub = hub
    app.state.ops = ops
    return app


def _message_error(
    metrics: Metrics,
    *,
    websocket: WebSocket,
    conn: Connection,
    game: WebGame | None,
    reply: dict[str, Any],
    started: float,
) -> None:
    """Count an error reply and log it as one JSON line (a traceback stays in the log)."""
    code = str(reply.get("code"))
    metrics.errors.labels("ws", code).inc()
    client = websocket.client
    fields: dict[str, Any] = {
        "kind": code,
        "message": reply.get("message"),
        "game": game.game_id if game is not None else None,
        "table": conn.table,
        "seat": conn.seat,
        "client": client.host if client else None,
        "ms": round((time.perf_counter() - started) * 1000, 2),
    }
    cause = reply.pop("cause", None)
    if cause is not None:
        fields["cause"] = cause
    exc = reply.pop("exc", None)
    if exc is not None:
        fields["exc"] = exc
    log_error("message_error", **fields)


def _store_opener(store: Callable[[], Store] | Store | str | Path | None) -> Callable[[], Store]:
    if isinstance(store, Store):
        return lambda: store
    if callable(store):
        return store
    return lambda: open_store(store)


async def _handle(
    hub: GameHub, conn: Connection, game: WebGame | None, text: str
) -> tuple[dict[str, Any] | None, WebGame | None]:
    """One client message: its reply (or None when the reply is the broadcast) and the game."""
    try:
        msg = parse_client_message(text)
    except ValidationError as exc:
        return error("bad_message", first_error(exc)), game
    except ValueError as exc:
        return error("too_large" if "longer" in str(exc) else "bad_message", str(exc)), game
    if isinstance(msg, HelloMessage):
        if game is not None:
            return error("bad_message", "this connection has joined a game already"), game
        found = await hub.open(msg.game, msg.token)
        conn.seat = found.session.viewer
        return await hub.join(found, conn), found
    if isinstance(msg, PingMessage):
        return {"type": "pong"}, game
    if game is None:
        return error("not_joined", "say hello with a game id and token first"), game
    if isinstance(msg, ActMessage):
        await hub.act(game, conn.seat, msg.decision, msg.action)
        return None, game
    if isinstance(msg, HintMessage):
        return await hub.hint(game, conn.seat), game
    if isinstance(msg, UndoMessage):
        await hub.undo(game, conn.seat, msg.decision)
        return None, game
    if isinstance(msg, CoachMessage):
        await hub.set_coach(game, msg.on)
        return None, game
    if isinstance(msg, StateMessage):
        return await hub.state(game, conn.seat), game
    return error("bad_message", "unknown message"), game


async def _handle_table(tables: TableHub, conn: Connection, text: str) -> dict[str, Any] | None:
    """One message of a table's connection: join first, then act, rematch, state, ping."""
    try:
        msg = parse_client_message(text)
    except ValidationError as exc:
        return error("bad_message", first_error(exc))
    except ValueError as exc:
        return error("too_large" if "longer" in str(exc) else "bad_message", str(exc))
    if isinstance(msg, JoinMessage):
        if conn.table is not None:
            return error("bad_message", "this connection has joined a table already")
        state = await tables.join(msg.table, msg.token, conn)
        conn.table = msg.table
        return state
    if isinstance(msg, PingMessage):
        return {"type": "pong"}
    if conn.table is None:
        return error("not_joined", "join a table with its id and a token first")
    if isinstance(msg, ActMessage):
        if conn.seat < 0:
            return error("not_your_turn", "spectators watch; they do not play")
        await tables.act(conn.table, conn.seat, msg.decision, msg.action)
        return None
    if isinstance(msg, RematchMessage):
        if conn.seat < 0:
            return error("not_your_turn", "spectators watch; they do not play")
        await tables.rematch(conn.table, conn.seat)
        return None
    if isinstance(msg, StateMessage):
        return tables.state(await tables.load(conn.table), conn.seat, log=True)
    if isinstance(msg, TalkMessage):
        await tables.talk(conn.table, conn.seat, _talker(tables, conn), msg.text, msg.phrase)
        return None
    return error("bad_message", "at a table: act, rematch, state, talk or ping")


def _browser(websocket: WebSocket) -> str:
    """Who a spectator is, for talk's rate limit: a hash of their cookie (the same in every
    tab of the browser, and nothing usable), else their address."""
    cookie = websocket.cookies.get(SECURE_COOKIE) or websocket.cookies.get(COOKIE)
    if cookie:
        return "b:" + hashlib.sha256(cookie.encode("utf-8", "replace")).hexdigest()[:32]
    return "ip:" + (websocket.client.host if websocket.client else "?")


def _talker(tables: TableHub, conn: Connection) -> str:
    """The person a table connection speaks for: the seat's player (one rate limit for all
    their tabs and processes), or the spectator's cookie or address."""
    table = tables.tables.get(conn.table or "")
    if conn.seat >= 0 and table is not None and table.seats[conn.seat].get("player"):
        return str(table.seats[conn.seat]["player"])
    return conn.person


def _player(request: Request) -> str | None:
    key = request.headers.get("x-player", "")
    if not 8 <= len(key) <= 128 or not key.replace("-", "").replace("_", "").isalnum():
        return None
    return key


STORE_TROUBLE: Final = (
    "the server is having trouble with its game store: that was not saved; try again"
)


def store_trouble() -> dict[str, Any]:
    """Issue 35: the answer to a move or request the game store could not keep just now (the
    page shows its trouble banner and sends the move again; nothing was changed)."""
    return error("unavailable", STORE_TROUBLE)


async def _method_not_allowed(
    routes: list[BaseRoute], request: Request, exc: Exception
) -> Response:
    """A method no route takes at the path: 405 with ``Allow`` (every method some route takes
    there, as Starlette's own names only the first route's) and the JSON error."""
    allowed = allowed_methods(routes, request.scope)
    if not allowed:  # (a 405 raised by other code: its own Allow header)
        given = getattr(exc, "headers", None) or {}
        allowed = frozenset(m.strip() for m in given.get("Allow", "").split(",") if m.strip())
    allow = ", ".join(sorted(allowed))
    message = f"{request.method} is not allowed here" + (f": use {allow}" if allow else "")
    return bad("method_not_allowed", message, 405, {"Allow": allow} if allow else None)


async def _not_found(request: Request, exc: Exception) -> Response:
    """No route at the path: under ``/api/`` the JSON error every other refusal there is (a
    bot or a page parses it), elsewhere Starlette's plain ``Not Found``."""
    if request.url.path.startswith("/api/"):
        return bad("not_found", "there is nothing at this address", 404)
    return PlainTextResponse("Not Found", status_code=404)


async def _store_down(request: Request, exc: Exception) -> Response:
    request.state.cause = str(exc)  # the request's one log line says why (`RequestLog`)
    return bad("unavailable", STORE_TROUBLE, 503)


assert MAX_MESSAGE_BYTES < 65536  # uvicorn's ws_max_size is set above it in cli/serve.py
