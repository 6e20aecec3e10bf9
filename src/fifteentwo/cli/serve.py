"""``cribbage serve``: the browser game on this machine (127.0.0.1:8000 by default)."""

from __future__ import annotations

import argparse
import socket
from typing import Any

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
        help="the game store: a SQLite file or sqlite:///path (default: "
        "the data directory's store)",
    )
    parser.add_argument(
        "--workers", type=int, default=4, help="threads for computer players and analysis (4)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the options, open the store, and serve until interrupted."""
    if not 0 <= args.port <= 65535:
        raise FifteenTwoError(f"--port must be between 0 and 65535, not {args.port}")
    if not 1 <= args.workers <= 64:
        raise FifteenTwoError(f"--workers must be between 1 and 64, not {args.workers}")
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
    app = create_app(lambda: open_store(where), workers=args.workers)
    print(f"fifteentwo: serving on http://{args.host}:{args.port}/ (Ctrl-C stops)", flush=True)
    try:
        uvicorn.run(
            app,
            host=args.host,
            port=args.port,
            log_level="warning",
            ws_max_size=65536,
            ws_ping_interval=20,
            ws_ping_timeout=20,
        )
    except OSError as exc:
        raise FifteenTwoError(f"cannot serve on {args.host}:{args.port}: {exc.strerror}") from None
    return 0


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
