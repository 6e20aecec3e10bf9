"""Operations: ``/healthz``, ``/readyz``, Prometheus ``/metrics`` and structured error logs.

A load balancer asks ``/readyz`` before it sends players to a process, and an operator's
Prometheus scrapes ``/metrics`` from every process (each process counts only itself: see
docs/web.md, Operations). Every request or message that ends in an error is one JSON log line
on the ``fifteentwo.web.errors`` logger, so a log pipeline can count and search them; clients
only ever see the short error message, never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
import traceback
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any, Final

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    ProcessCollector,
    generate_latest,
)
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fifteentwo import __version__
from fifteentwo.store import Store

__all__ = ["BadHttpLog", "Metrics", "Operations", "RequestLog", "log_error"]

error_log = logging.getLogger("fifteentwo.web.errors")
CLIENT_GONE: Final = 499
"""The status logged for a request whose client hung up before it could be answered (nginx's
code for it): the client's doing, not the server's, so never `server`."""

READY_TIMEOUT: Final = 2.0
"""Seconds ``/readyz`` waits for the store and Redis before it calls them down: a balancer's
probe is answered promptly even when a dependency hangs."""
LATENCY_BUCKETS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
STORE_BUCKETS: Final = (0.0002, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5)


def log_error(event: str, **fields: Any) -> None:
    """One JSON line: what went wrong and where (``exc`` carries a server-side traceback)."""
    kind = str(fields.get("kind"))
    if kind == "server":
        level = logging.ERROR  # a bug
    elif kind in ("unavailable", "http_503"):
        level = logging.WARNING  # a part that is down (the store, Redis), or shutting down
    else:
        level = logging.INFO  # a refusal the client caused
    record = {"event": event, "at": round(time.time(), 3), **fields}
    error_log.log(level, json.dumps(record, separators=(",", ":"), default=str))


BAD_HTTP: Final = "Invalid HTTP request received."
"""What uvicorn's ``uvicorn.error`` logger says (as a plain WARNING) when bytes that are not an
HTTP request arrive; it answers them 400 itself, before the application sees anything."""


class BadHttpLog(logging.Filter):
    """A filter for uvicorn's ``uvicorn.error`` logger: its `BAD_HTTP` warning becomes one
    `log_error` line (``request_error``, kind ``bad_http``, status 400, INFO, no traceback)
    counted in ``fifteentwo_errors_total{where="http",kind="bad_http"}``, and its own plain
    line is dropped. uvicorn offers no hook for a request that does not parse; its other lines
    pass as they are."""

    def __init__(self, metrics: Metrics) -> None:
        super().__init__()
        self.metrics = metrics

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage() != BAD_HTTP:
            return True
        self.metrics.errors.labels("http", "bad_http").inc()
        log_error("request_error", kind="bad_http", status=400, message=BAD_HTTP)
        return False


class Outage:
    """Says once that a part stopped working and once that it works again, not at every call
    while it is down (a line per move would bury the log when Redis or the store is gone)."""

    def __init__(self, what: str, logger: logging.Logger) -> None:
        self.what = what
        self.logger = logger
        self.since: float | None = None
        """When the current outage began (None: working)."""

    def failed(self, exc: BaseException | str) -> None:
        """A call failed: said at the first failure of an outage only."""
        if self.since is None:
            self.since = time.monotonic()
            self.logger.warning("%s: %s (said once until it works again)", self.what, exc)

    def worked(self) -> None:
        """A call worked: said when it ends an outage."""
        if self.since is not None:
            down = time.monotonic() - self.since
            self.since = None
            self.logger.warning("%s: works again after %.1f s", self.what, down)


def exception_text(exc: BaseException) -> str:
    """A traceback as one string, for the log line only."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


class Metrics:
    """This process's figures, in a registry of its own (several apps may share a process)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        reg = self.registry
        ProcessCollector(registry=reg)  # resident memory and CPU seconds of this process
        Info("fifteentwo_server", "This server process", registry=reg).info(
            {"version": __version__, "pid": str(os.getpid())}
        )
        self.connections = Gauge(
            "fifteentwo_connections_open", "WebSocket connections open", registry=reg
        )
        self.games = Gauge(
            "fifteentwo_games_live", "Games against the computer held in memory", registry=reg
        )
        self.tables = Gauge("fifteentwo_tables_live", "Tables held in memory", registry=reg)
        self.actions = Counter(
            "fifteentwo_actions", "Moves played by clients", ["kind"], registry=reg
        )
        self.action_seconds = Histogram(
            "fifteentwo_action_seconds",
            "From a move's message to its reply (the computer's answer included)",
            ["kind"],
            buckets=LATENCY_BUCKETS,
            registry=reg,
        )
        self.store_seconds = Histogram(
            "fifteentwo_store_seconds",
            "Store operations, by method",
            ["op"],
            buckets=STORE_BUCKETS,
            registry=reg,
        )
        self.errors = Counter(
            "fifteentwo_errors",
            "Errors answered, by where and kind",
            ["where", "kind"],
            registry=reg,
        )
        self.requests = Counter(
            "fifteentwo_http_requests", "HTTP requests answered", ["status"], registry=reg
        )
        self._by_kind: dict[str, tuple[Counter, Histogram]] = {}
        self._in_store = threading.local()
        """Per thread: whether a timed store call is under way (`instrument`)."""

    def action(self, kind: str, started: float) -> None:
        """A move of ``kind`` (``game`` or ``table``) answered, begun at ``started``."""
        found = self._by_kind.get(kind)
        if found is None:  # (a label's child looked up once: ``labels`` at every move cost)
            found = self._by_kind[kind] = (
                self.actions.labels(kind),
                self.action_seconds.labels(kind),
            )
        count, seconds = found
        count.inc()
        seconds.observe(time.perf_counter() - started)

    def instrument(self, store: Store) -> Store:
        """Time every store method of this store object (from any thread), by method name: the
        calls made to it, not those it makes to itself (`create_game` saves the new game by
        its own `save_game`; counted twice, the two would add up to more than the store's
        time)."""
        for name, member in vars(Store).items():
            if name.startswith("_") or name == "close" or not callable(member):
                continue
            bound = getattr(store, name, None)
            if callable(bound):
                setattr(store, name, self._timed(name, bound))
        return store

    def _timed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        observe = self.store_seconds.labels(name).observe
        inside = self._in_store

        @wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if getattr(inside, "call", False):  # (the store calling itself: its caller's time)
                return fn(*args, **kwargs)
            inside.call = True
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                observe(time.perf_counter() - started)
                inside.call = False

        return timed

    def scrape(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)


class Operations:
    """Health, readiness and metrics of one process, and whether it is shutting down."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self.draining = False
        """Set on SIGTERM: ``/readyz`` answers 503 so the balancer sends new players elsewhere."""
        self.checks: dict[str, Callable[[], Awaitable[object]]] = {}
        """What must answer for this process to be ready, by name (``store``, ``redis``)."""

    async def healthz(self, request: Request) -> Response:
        """Alive: the event loop answers. Touches nothing else."""
        return JSONResponse({"ok": True})

    async def readyz(self, request: Request) -> Response:
        """Ready when not draining and every dependency answers within `READY_TIMEOUT`."""
        names = list(self.checks)
        results = await asyncio.gather(
            *(_answers(self.checks[n]) for n in names), return_exceptions=False
        )
        down = {name: why for name, why in zip(names, results, strict=True) if why is not None}
        if self.draining:
            down["process"] = "shutting down"
        status = 503 if down else 200
        return JSONResponse({"ready": not down, "down": down}, status_code=status)

    async def metrics_page(self, request: Request) -> Response:
        return Response(self.metrics.scrape(), media_type=CONTENT_TYPE_LATEST)


async def _answers(check: Callable[[], Awaitable[object]]) -> str | None:
    """None when ``check`` succeeds in time; otherwise a short reason."""
    try:
        await asyncio.wait_for(check(), READY_TIMEOUT)
    except TimeoutError:
        return f"no answer within {READY_TIMEOUT:g} s"
    except Exception as exc:  # any failure of a dependency is "down", with its reason
        return f"{type(exc).__name__}: {str(exc)[:160]}"
    return None


class RequestLog:
    """ASGI middleware: count HTTP answers by status, and log each error answer as JSON."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = [500]
        started = time.perf_counter()

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except ClientDisconnect:  # the client hung up before its body was read: no one to answer
            self._done(scope, CLIENT_GONE, started, None)
        except Exception as exc:
            self._done(scope, 500, started, exception_text(exc))
            raise  # Starlette answers a plain 500; the traceback stays in the log
        else:
            self._done(scope, status[0], started, None)

    def _done(self, scope: Scope, status: int, started: float, exc: str | None) -> None:
        self.metrics.requests.labels(str(status)).inc()
        if status < 400:
            return
        # a 500 is the server's own failure (a bug: its traceback is logged); a 503 is a store
        # or Redis that is down or a process shutting down, answered as designed
        if status == CLIENT_GONE:
            kind = "client_gone"
        else:
            kind = "server" if status == 500 or exc is not None else f"http_{status}"
        self.metrics.errors.labels("http", kind).inc()
        client = scope.get("client")
        fields: dict[str, Any] = {
            "kind": kind,
            "status": status,
            "method": scope.get("method"),
            "path": scope.get("path"),
            "client": client[0] if client else None,
            "ms": round((time.perf_counter() - started) * 1000, 2),
        }
        cause = (scope.get("state") or {}).get("cause")
        if cause is not None:
            fields["cause"] = cause
        if exc is not None:
            fields["exc"] = exc
        log_error("request_error", **fields)
