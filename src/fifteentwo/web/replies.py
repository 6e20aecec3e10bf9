"""The HTTP routes' common answers (docs/web.md, "Errors"): every refusal is one JSON ``error``
(``type``, ``code``, ``message``) with its status, and a request body is read up to a limit.

Used by the app's own routes (`web.app`), the lobby's (`web.lobby`), the tables' and accounts'
(`web.social`) and the security middleware (`web.security`), so that all answer alike.
"""

from __future__ import annotations

from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from fifteentwo.web.games import Refused

__all__ = ["RETRY_AFTER", "bad", "error", "read_body", "refused"]

RETRY_AFTER: Final = "2"
"""Seconds a client is told to wait (``Retry-After``) after a 503: the store or Redis was down
for a moment, or this process is shutting down (the balancer sends the retry elsewhere)."""


def error(code: str, message: str) -> dict[str, Any]:
    """An ``error`` message: the body of every refusal, over HTTP and over a WebSocket."""
    return {"type": "error", "code": code, "message": message}


def bad(
    code: str, message: str, status: int = 400, headers: dict[str, str] | None = None
) -> Response:
    """An HTTP refusal: the `error` body with ``status``, and ``Retry-After`` on a 503."""
    sent = dict(headers or {})
    if status == 503:
        sent.setdefault("Retry-After", RETRY_AFTER)
    return JSONResponse(error(code, message), status_code=status, headers=sent or None)


STATUS_OF_REFUSAL: Final = {
    "too_large": 413,
    "unavailable": 503,
    "no_table": 404,
    "bad_request": 400,
}
"""The HTTP status of a `Refused` whose code says it, whatever the route."""


def refused(exc: Refused, default: int = 400) -> Response:
    """A route's answer to `Refused`: its code and message with the status its code says
    (`STATUS_OF_REFUSAL`), else the route's ``default`` (400; 409 where a table moved on)."""
    return bad(exc.code, str(exc), STATUS_OF_REFUSAL.get(exc.code, default))


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body (``{}`` when empty); `Refused` ``too_large`` past ``limit`` bytes,
    said by its ``Content-Length`` or found while reading (nothing more is read then)."""
    too_large = Refused("too_large", f"request bodies are at most {limit} bytes")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise too_large
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise too_large
    return data or b"{}"
