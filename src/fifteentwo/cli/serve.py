"""``cribbage serve``: the browser game on this machine (127.0.0.1:8000 by default)."""

from __future__ import annotations

import argparse
import gc
import hashlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from types import FrameType
from typing import Any, Final

from fifteentwo.errors import FifteenTwoError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def register(subparsers: Any) -> None:
    """Add the ``serve`` subcommand."""
    parser = subparsers.add_parser(
        "serve",
        help="play in the browser: start the web server",
        description=(
            "Serve the browser game: play the computer at any level in every variant, with the "
            "coach, undo and the review. Games are kept in the game store (the same SQLite file "
            "as the terminal game unless --db says otherwise), so closing the tab or restarting "
            "the server loses nothing. Open the printed address in a browser."
        ),
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (8000)")
    parser.add_argument(
        "--db",
        metavar="PATH",
        help="the game store: a SQLite file, sqlite:///path or postgresql://... for hosting "
        "(default: the data directory's store)",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        default=os.environ.get("FIFTEENTWO_REDIS") or None,
        help="redis://host:port: several server processes share tables through Redis "
        "pub/sub (they must share --db too; default: $FIFTEENTWO_REDIS, else one process)",
    )
    parser.add_argument(
        "--secret",
        metavar="TEXT",
        default=os.environ.get("FIFTEENTWO_SECRET") or None,
        help="the key every process of one site shares, so each serves the others' games "
        "(default: $FIFTEENTWO_SECRET, else one made once and kept in the store); sessions "
        "do not use it",
    )
    parser.add_argument(
        "--workers", type=int, default=4, help="threads for computer players and analysis (4)"
    )
    parser.add_argument(
        "--allowed-origin",
        metavar="ORIGIN",
        action="append",
        default=_env_list("FIFTEENTWO_ALLOWED_ORIGINS"),
        help="https://host[:port] the page is served from, besides the request's own; "
        "repeatable (default: $FIFTEENTWO_ALLOWED_ORIGINS, space-separated)",
    )
    parser.add_argument(
        "--trusted-proxy",
        metavar="CIDR",
        action="append",
        default=_env_list("FIFTEENTWO_TRUSTED_PROXIES"),
        help="address or network (10.0.0.0/8) of a proxy whose X-Forwarded-For/-Proto/-Host "
        "are believed; repeatable (default: $FIFTEENTWO_TRUSTED_PROXIES; none)",
    )
    parser.add_argument(
        "--session-idle-days",
        type=float,
        default=14.0,
        help="a session unused this long ends (14)",
    )
    parser.add_argument(
        "--session-max-days", type=float, default=60.0, help="every session ends this old (60)"
    )
    parser.add_argument(
        "--rate-limit",
        metavar="NAME=COUNT/SECONDS",
        action="append",
        default=[],
        help="change a limit per client: login, register, accounts, tables or password "
        "(login=10/60); repeatable",
    )
    parser.add_argument(
        "--table-tick",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="how often away seats and turn timers of tables are looked at (1)",
    )
    parser.add_argument(
        "--shutdown-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="on SIGTERM, how long moves in progress may take to finish before the process "
        "exits anyway (10)",
    )
    parser.add_argument(
        "--drain",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="on SIGTERM, keep serving this long with /readyz answering 503 before closing, for "
        "balancers that poll /readyz (0: close at once; nginx retries another process)",
    )
    parser.add_argument(
        "--ws-compression",
        action="store_true",
        help="compress WebSocket messages (permessage-deflate): fewer bytes for about 7%% "
        "more CPU per move and 0.05 MB more memory per connection (off)",
    )
    parser.add_argument(
        "--gc-every",
        type=float,
        default=GC_EVERY,
        metavar="SECONDS",
        help="run Python's cyclic garbage collector once every this many seconds, not whenever "
        "Python decides: no pause of 60-100 ms every few seconds at 1,000 games, one longer "
        "pause per period (0: Python's own collector; %(default)g)",
    )
    parser.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        default="info",
        help="the JSON error log on stderr: info logs every refused request or message, "
        "warning only the server's own failures (info)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the options, open the store, and serve until interrupted."""
    if not 0 <= args.port <= 65535:
        raise FifteenTwoError(f"--port must be between 0 and 65535, not {args.port}")
    if not 1 <= args.workers <= 64:
        raise FifteenTwoError(f"--workers must be between 1 and 64, not {args.workers}")
    if not 0.01 <= args.table_tick <= 60:  # also refuses nan
        raise FifteenTwoError(
            f"--table-tick must be between 0.01 and 60 seconds, not {args.table_tick}"
        )
    for name in ("shutdown_timeout", "drain"):
        value = getattr(args, name)
        if not 0 <= value <= 3600:  # also refuses nan
            option = "--" + name.replace("_", "-")
            raise FifteenTwoError(f"{option} must be between 0 and 3600 seconds, not {value}")
    every = args.gc_every
    if not (every == 0 or 1 <= every <= 86400):  # also refuses nan
        raise FifteenTwoError(f"--gc-every must be 0 or between 1 and 86400 seconds, not {every}")
    security = security_config(args)
    try:
        import uvicorn

        from fifteentwo.web import create_app
    except ImportError as exc:
        raise FifteenTwoError(
            f"cribbage serve needs the web extra ({exc.name} is missing): "
            "pip install 'fifteentwo[web]'"
        ) from None
    from fifteentwo.store import open_store

    _check_address(args.host, args.port)

    where = args.db
    open_store(where).close()  # fail now, with one line, if the store cannot be opened
    if args.redis:
        _check_redis(args.redis)
    if args.secret is not None and len(args.secret) < 16:
        raise FifteenTwoError("--secret must be at least 16 characters")
    app = create_app(
        lambda: open_store(where),
        workers=args.workers,
        redis=args.redis,
        secret=args.secret,
        security=security,
        table_tick=args.table_tick,
    )
    _log_errors_as_json(args.log_level)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        # X-Forwarded-* are believed by the application from --trusted-proxy peers only
        # (web/security.py); uvicorn's own rewriting would believe any local peer.
        proxy_headers=False,
        ws_max_size=65536,
        # per-message deflate: about 7% more CPU per action and 0.05 MB more memory per
        # connection at 1,000 games (bench/bench_web.py): off unless asked for (docs/web.md),
        # as Socket.IO and Node's ws leave it
        ws_per_message_deflate=args.ws_compression,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        timeout_graceful_shutdown=args.shutdown_timeout,
    )
    _log_bad_http(app.state.ops.metrics)  # (after uvicorn.Config: it sets up its loggers)
    server = _GracefulServer(config, app.state.ops, drain=args.drain)
    print(f"fifteentwo: serving on http://{args.host}:{args.port}/ (Ctrl-C stops)", flush=True)
    _tune_gc(args.gc_every)
    try:
        server.run()
    except OSError as exc:
        raise FifteenTwoError(f"cannot serve on {args.host}:{args.port}: {exc.strerror}") from None
    return 0


def security_config(args: argparse.Namespace) -> Any:
    """The `SecurityConfig` the options describe; one `FifteenTwoError` line for a bad one."""
    from fifteentwo.web.security import (
        DAY,
        DEFAULT_LIMITS,
        SecurityConfig,
        parse_limit,
        parse_origin,
        parse_proxy,
    )

    # The processes sharing a store are one site: they share its counters, other sites do not.
    site = hashlib.sha256(str(getattr(args, "db", None)).encode()).hexdigest()[:16]
    idle, most = args.session_idle_days, args.session_max_days
    if not (0 < idle <= 3650 and 0 < most <= 3650):
        raise FifteenTwoError("--session-idle-days and --session-max-days are 0 to 3650 days")
    try:
        limits = dict(DEFAULT_LIMITS)
        limits.update(parse_limit(text) for text in args.rate_limit)
        return SecurityConfig(
            allowed_origins=tuple(parse_origin(o) for o in args.allowed_origin),
            trusted_proxies=tuple(parse_proxy(p) for p in args.trusted_proxy),
            session_idle=idle * DAY,
            session_absolute=most * DAY,
            limits=limits,
            rate_prefix=f"fifteentwo:rate:{site}:",
        )
    except ValueError as exc:
        raise FifteenTwoError(str(exc)) from None


def _env_list(name: str) -> list[str]:
    return os.environ.get(name, "").split()


class _GracefulServer:
    """uvicorn's server with the shutdown a balanced site needs (docs/web.md, Operations).

    On SIGTERM or Ctrl-C: ``/readyz`` answers 503 at once; after ``drain`` seconds uvicorn
    closes the listening socket, closes every WebSocket with code 1012 (service restart: the
    page reconnects at once, through the balancer, to another process), lets handlers finish
    the move in progress (up to --shutdown-timeout) and runs the app's shutdown, which
    releases leases and closes the store. A watchdog ends the process if all that hangs."""

    def __init__(self, config: Any, ops: Any, *, drain: float) -> None:
        import uvicorn

        outer = self

        class Server(uvicorn.Server):
            def handle_exit(self, sig: int, frame: FrameType | None) -> None:
                outer.on_signal(sig, frame, super().handle_exit)

        self.server = Server(config)
        self.ops = ops
        self.drain = drain
        self.limit = drain + config.timeout_graceful_shutdown + WATCHDOG_MARGIN

    def run(self) -> None:
        self.server.run()

    def on_signal(self, sig: int, frame: FrameType | None, stop: Any) -> None:
        """Mark the process not ready, then stop (at once, or after the drain)."""
        first = not self.ops.draining
        self.ops.draining = True
        if not first:
            stop(sig, frame)  # a second signal: uvicorn's own (a second Ctrl-C forces)
            return
        _watchdog(self.limit)
        if self.drain > 0 and sig == signal.SIGTERM:
            timer = threading.Timer(self.drain, stop, (sig, frame))
            timer.daemon = True
            timer.start()
        else:
            stop(sig, frame)


WATCHDOG_MARGIN: Final = 20.0
"""Seconds past the drain and --shutdown-timeout after which a process that has not exited
(a store or Redis call hanging in the shutdown) is ended: a rolling restart never waits on it."""


def _watchdog(seconds: float) -> None:
    def expire() -> None:
        print(f"error: shutdown took over {seconds:g} s; exiting now", file=sys.stderr, flush=True)
        os._exit(1)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()


def _log_errors_as_json(level: str) -> None:
    """The web server's error lines (already JSON, one per line) go to stderr as they are."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    errors = logging.getLogger("fifteentwo.web.errors")
    errors.addHandler(handler)
    errors.setLevel(level.upper())
    errors.propagate = False


def _log_bad_http(metrics: Any) -> None:
    """uvicorn's plain "Invalid HTTP request received." becomes one JSON error line, counted
    (`fifteentwo.web.metrics.BadHttpLog`)."""
    from fifteentwo.web.metrics import BadHttpLog

    logging.getLogger("uvicorn.error").addFilter(BadHttpLog(metrics))


GC_THRESHOLDS: Final = (50_000, 20, 100)
"""With ``--gc-every 0``, Python's own collector, run far less often than its default (700, 10,
10): a server holding hundreds of games has a million objects, and a full collection stops
every connection for 100 ms or more (bench/bench_web.py measured five a minute at 200 tables);
almost everything is freed by reference counting anyway."""

GC_EVERY: Final = 300.0
"""Seconds between the server's collections of cyclic garbage (``--gc-every``). Python's own
collector, even at `GC_THRESHOLDS`, stopped every connection for 60 to 100 ms every five seconds
at 1,000 games: a game's history lives as long as the game, so each young-generation collection
walked some 100,000 objects that were all still in use (docs/web.md, "Hosting at scale"). Almost
nothing a game does makes cycles: what does is uvicorn's HTTP protocol objects, a couple of
dozen per connection, which wait for the next collection."""


def _tune_gc(every: float = GC_EVERY) -> None:
    """Keep what is loaded at start-up out of every collection; then collect cyclic garbage
    once every ``every`` seconds on a thread of its own (0: Python's collector, collecting
    less often than its default)."""
    gc.collect()
    gc.freeze()
    if every <= 0:
        gc.set_threshold(*GC_THRESHOLDS)
        return
    gc.disable()
    collector = threading.Thread(
        target=_collect_every, args=(every,), name="fifteentwo-gc", daemon=True
    )
    collector.start()


def _collect_every(seconds: float) -> None:
    """Collect cyclic garbage every ``seconds`` (one pause, about 0.4 ms per game held)."""
    while True:
        time.sleep(seconds)
        gc.collect()


def _check_address(host: str, port: int) -> None:
    """Fail with one line now if the address cannot be listened on (taken, unknown host)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except (OSError, IndexError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise FifteenTwoError(f"cannot serve on {host}:{port}: {reason}") from None


def _check_redis(url: str) -> None:
    """Fail with one line now if the Redis server for the table bus cannot be reached."""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise FifteenTwoError(f"--redis takes a redis:// URL, not {url[:60]!r}")
    try:
        import redis
    except ImportError:
        raise FifteenTwoError(
            "--redis needs the hosting extra: pip install 'fifteentwo[hosting]'"
        ) from None
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        try:
            client.ping()
        finally:
            client.close()
    except (redis.RedisError, OSError, ValueError) as exc:
        shown = url.rsplit("@", maxsplit=1)[-1]  # never print a password in the URL
        raise FifteenTwoError(f"cannot reach Redis at {shown}: {str(exc)[:120]}") from None
