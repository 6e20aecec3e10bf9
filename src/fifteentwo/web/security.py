"""What a public server needs against forged requests (docs/web.md, "Security").

`SecurityMiddleware` refuses a state-changing request unless it comes from an allowed origin
(``Origin``, else ``Referer``; neither: refused) and says ``application/json`` — a form on
another site can send neither — refuses WebSocket upgrades from foreign origins, serves a
WebSocket without ``Origin`` (a program, never a browser) without its cookies, and adds the
headers a public page needs to every answer. `client_address` finds the client behind trusted
proxies only (``X-Forwarded-For``, right-most untrusted address), and `RateLimits` counts
attempts per client in Redis (shared by every process) or in this process's memory.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fifteentwo.web.replies import bad

__all__ = [
    "DEFAULT_LIMITS",
    "Limit",
    "RateLimits",
    "SecurityConfig",
    "SecurityMiddleware",
    "allowed_methods",
    "client_address",
    "is_tls",
    "own_origin",
    "parse_limit",
    "parse_origin",
    "parse_proxy",
    "without_cookies",
]

_log = logging.getLogger("fifteentwo.web")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
UNSAFE_METHODS: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DAY: Final = 24 * 3600.0


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``count`` events per ``window`` seconds per client."""

    count: int
    window: float


DEFAULT_LIMITS: Final[dict[str, Limit]] = {
    "login": Limit(10, 60.0),  # attempts per client, and per username
    "register": Limit(10, 60.0),  # attempts per client
    "accounts": Limit(3, 3600.0),  # accounts made per client address
    "tables": Limit(20, 60.0),  # tables made per client
    "password": Limit(10, 60.0),  # password changes tried per client
}


@dataclass(frozen=True, slots=True)
class SecurityConfig:
    """The deployment's choices: origins besides the request's own, proxies whose
    ``X-Forwarded-*`` headers are believed, session lifetimes and rate limits."""

    allowed_origins: tuple[str, ...] = ()
    trusted_proxies: tuple[Network, ...] = ()
    session_idle: float = 14 * DAY
    session_absolute: float = 60 * DAY
    limits: dict[str, Limit] = field(default_factory=lambda: dict(DEFAULT_LIMITS))
    rate_prefix: str = "fifteentwo:rate:"


def parse_origin(text: str) -> str:
    """``scheme://host[:port]`` normalized (lower case, default port dropped); `ValueError`."""
    try:
        parts = urlsplit(text.strip())
        hostname = parts.hostname
    except ValueError:
        raise ValueError(f"not an origin (https://host[:port]): {text[:80]!r}") from None
    if parts.scheme not in ("http", "https") or not hostname:
        raise ValueError(f"not an origin (https://host[:port]): {text[:80]!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise ValueError(f"an origin has no path, query or user: {text[:80]!r}")
    return _origin(parts.scheme, parts.netloc)


def parse_proxy(text: str) -> Network:
    """A trusted proxy's address or network (CIDR); `ValueError`."""
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise ValueError(f"not an address or network (10.0.0.0/8): {text[:80]!r}") from None


def parse_limit(text: str) -> tuple[str, Limit]:
    """``NAME=COUNT/SECONDS`` (``login=10/60``); `ValueError` naming what is wrong."""
    name, _, rest = text.partition("=")
    count, _, window = rest.partition("/")
    if name not in DEFAULT_LIMITS:
        raise ValueError(f"--rate-limit names one of {', '.join(DEFAULT_LIMITS)}, not {name!r}")
    if not (count.isdigit() and window.isdigit() and 0 < int(count) <= 10**6):
        raise ValueError(f"--rate-limit is NAME=COUNT/SECONDS (login=10/60), not {text[:60]!r}")
    if not 0 < int(window) <= 7 * 24 * 3600:
        raise ValueError("--rate-limit's window is 1 second to 7 days")
    return name, Limit(int(count), float(int(window)))


def _origin(scheme: str, netloc: str) -> str:
    scheme, netloc = scheme.lower(), netloc.lower().rsplit("@", 1)[-1]
    default = {"http": ":80", "https": ":443", "ws": ":80", "wss": ":443"}.get(scheme, "")
    if default and netloc.endswith(default):
        netloc = netloc[: -len(default)]
    return f"{scheme}://{netloc}"


def _headers(scope: Scope) -> dict[str, str]:
    """Header values by lower-case name; repeated headers joined with commas."""
    found: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        found[name] = f"{found[name]},{value}" if name in found else value
    return found


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None


def _trusted(text: str, proxies: Sequence[Network]) -> bool:
    ip = _ip(text)
    return ip is not None and any(ip in net for net in proxies)


def _peer(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else ""


def client_address(scope: Scope, proxies: Sequence[Network]) -> str:
    """The client: the peer, or, when the peer is a trusted proxy, the right-most address in
    ``X-Forwarded-For`` that is not a trusted proxy (the left part is the client's to forge)."""
    peer = _peer(scope)
    if not proxies or not _trusted(peer, proxies):
        return peer or "unknown"
    hops = [h.strip() for h in _headers(scope).get("x-forwarded-for", "").split(",") if h.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, proxies):
            ip = _ip(hop)
            return str(ip) if ip is not None else hop[:64]
    return hops[0][:64] if hops else peer


def _forwarded(scope: Scope, proxies: Sequence[Network], name: str) -> str | None:
    """The last value of an ``X-Forwarded-*`` header, believed only from a trusted proxy."""
    if not proxies or not _trusted(_peer(scope), proxies):
        return None
    value = _headers(scope).get(name, "").split(",")[-1].strip()
    return value or None


def is_tls(scope: Scope, proxies: Sequence[Network]) -> bool:
    """Served over TLS: directly, or behind a trusted proxy that says so."""
    if scope.get("scheme") in ("https", "wss"):
        return True
    return (_forwarded(scope, proxies, "x-forwarded-proto") or "").lower() == "https"


def own_origin(scope: Scope, proxies: Sequence[Network]) -> str:
    """The origin the browser sees for this request (scheme and ``Host``, or what a trusted
    proxy forwards)."""
    scheme = "https" if is_tls(scope, proxies) else "http"
    host = _forwarded(scope, proxies, "x-forwarded-host") or _headers(scope).get("host", "")
    return _origin(scheme, host.split(",")[0].strip())


def request_origin(scope: Scope) -> str | None:
    """Where the request says it comes from: ``Origin``, else the ``Referer``'s origin; None
    if it says neither, ``"null"`` for anything that is not a web origin."""
    headers = _headers(scope)
    text = headers.get("origin")
    if text is None:
        text = headers.get("referer") or None
    if text is None:
        return None
    try:
        parts = urlsplit(text.strip())
    except ValueError:  # a malformed URL ("http://[") is no origin at all
        return "null"
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return "null"
    return _origin(parts.scheme, parts.netloc)


def without_cookies(scope: Scope) -> Scope:
    """The scope without its ``Cookie`` headers (a WebSocket that did not say where it comes
    from is never anyone's session)."""
    headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"cookie"]
    return {**scope, "headers": headers}


def _content_type(scope: Scope) -> str:
    return _headers(scope).get("content-type", "").split(";")[0].strip().lower()


def page_headers(tls: bool, origin: str) -> list[tuple[bytes, bytes]]:
    """The headers every answer carries (the CSP lets the page load and run only its own files,
    and talk only to its own server over HTTP and WebSocket)."""
    host = origin.split("://", 1)[-1]
    socket = f"{'wss' if tls else 'ws'}://{host}"
    csp = (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"font-src 'self'; connect-src 'self' {socket}; frame-ancestors 'none'; "
        "base-uri 'none'; form-action 'self'; object-src 'none'"
    )
    headers = [
        (b"content-security-policy", csp.encode("latin-1")),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
        (b"x-frame-options", b"DENY"),
        (b"cross-origin-opener-policy", b"same-origin"),
        (b"cross-origin-resource-policy", b"same-origin"),
        (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=(), usb=()"),
    ]
    if tls:
        headers.append((b"strict-transport-security", b"max-age=31536000"))
    return headers


def allowed_methods(routes: Sequence[BaseRoute], scope: Scope) -> frozenset[str] | None:
    """The HTTP methods the routes answer at the request's path (``HEAD`` wherever ``GET``
    is): none when no route has that path (the app answers 404), None when one there takes
    any method."""
    found: set[str] = set()
    for route in routes:
        if route.matches(scope)[0] is Match.NONE:
            continue
        if isinstance(route, Route) and route.methods:
            found |= route.methods
        elif isinstance(route, Mount) and isinstance(route.app, StaticFiles):
            found |= {"GET", "HEAD"}
        else:
            return None
    return frozenset(found)


class SecurityMiddleware:
    """ASGI middleware: same-origin JSON for every state change, same-origin WebSockets, and
    the page's security headers on every answer. ``routes`` are the app's: a method no route
    takes at the path goes on, from an allowed origin, to the app's 405 (whatever its
    content type: nothing is changed)."""

    def __init__(
        self,
        app: ASGIApp,
        config: SecurityConfig | None = None,
        routes: Sequence[BaseRoute] = (),
    ) -> None:
        self.app = app
        self.config = config or SecurityConfig()
        self.allowed = frozenset(self.config.allowed_origins)
        self.routes = routes
        """The app's routes (none given: every change is checked as JSON, whatever its path)."""

    def origin_allowed(self, scope: Scope, origin: str) -> bool:
        """An origin is this server's own or one configured with ``--allowed-origin``."""
        return origin in self.allowed or origin == own_origin(scope, self.config.trusted_proxies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        proxies = self.config.trusted_proxies
        if scope["type"] == "websocket":
            origin = _headers(scope).get("origin")
            if origin is None:
                # Browsers always send Origin on a WebSocket; programs (bots) may send none.
                # Such a socket is served, but as a stranger: its cookies are taken away, so
                # only the game and table tokens it sends can ever let it act.
                await self.app(without_cookies(scope), receive, send)
                return
            if not self.origin_allowed(scope, request_origin(scope) or "null"):
                await send({"type": "websocket.close", "code": 1008})
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        tls = is_tls(scope, proxies)
        extra = page_headers(tls, own_origin(scope, proxies))

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        if scope["method"] in UNSAFE_METHODS:
            refusal = self.refusal(scope)
            if refusal is not None:
                status, code, text = refusal
                await bad(code, text, status)(scope, receive, with_headers)
                return
        await self.app(scope, receive, with_headers)

    def refusal(self, scope: Scope) -> tuple[int, str, str] | None:
        """Why a state-changing request is refused (status, code, message), or None."""
        origin = request_origin(scope)
        if origin is None:
            return 403, "forbidden", "a change needs an Origin or Referer header from this site"
        if not self.origin_allowed(scope, origin):
            return 403, "forbidden", "requests from other sites may not change anything here"
        allowed = allowed_methods(self.routes, scope) if self.routes else None
        if allowed is not None and scope["method"] not in allowed:
            return None  # the app answers 405, or 404 where nothing is (no route's code runs)
        if _content_type(scope) != "application/json":
            return 415, "unsupported_media_type", "send the request as application/json"
        return None


class RateLimits:
    """Fixed-window counters per (limit, key): in Redis (``INCR`` + ``EXPIRE``, shared by every
    process) when a URL is given, else in this process's memory. If Redis cannot be reached
    the count falls back to memory for that call (a second's wait at most, never an error)."""

    def __init__(self, config: SecurityConfig, redis_url: str | None = None) -> None:
        self.limits = config.limits
        self.prefix = config.rate_prefix
        self._memory: dict[str, tuple[int, float]] = {}
        self._redis: Any = None
        if redis_url:
            import redis.asyncio as redis

            self._redis = redis.from_url(redis_url, socket_connect_timeout=1, socket_timeout=1)

    async def hit(self, name: str, keys: Iterable[str]) -> float | None:
        """Count one event for each key under the named limit; None if all are within it,
        else the seconds until the caller may try again."""
        limit = self.limits[name]
        wait: float | None = None
        for key in keys:
            count, left = await self._count(f"{self.prefix}{name}:{key}", limit.window)
            if count > limit.count:
                wait = max(wait or 0.0, left)
        return wait

    async def peek(self, name: str, key: str) -> bool:
        """Whether the key has used up the named limit already (counts nothing)."""
        limit = self.limits[name]
        full = f"{self.prefix}{name}:{key}"
        if self._redis is not None:
            try:
                found = await self._redis.get(full)
                return found is not None and int(found) >= limit.count
            except Exception as exc:  # Redis down: look here rather than fail the request
                _log.warning("rate limits: Redis unavailable (%s); counting in memory", exc)
        count, until = self._memory.get(full, (0, 0.0))
        return until > time.monotonic() and count >= limit.count

    async def _count(self, key: str, window: float) -> tuple[int, float]:
        if self._redis is not None:
            try:
                async with self._redis.pipeline(transaction=True) as pipe:
                    pipe.incr(key)
                    pipe.expire(key, max(1, round(window)), nx=True)
                    pipe.ttl(key)
                    count, _, ttl = await pipe.execute()
                return int(count), float(ttl if ttl and ttl > 0 else window)
            except Exception as exc:  # Redis down: count here rather than fail the request
                _log.warning("rate limits: Redis unavailable (%s); counting in memory", exc)
        return self._local(key, window)

    def _local(self, key: str, window: float) -> tuple[int, float]:
        now = time.monotonic()
        count, until = self._memory.get(key, (0, 0.0))
        if until <= now:
            count, until = 0, now + window
        self._memory[key] = (count + 1, until)
        if len(self._memory) > 100_000:
            self._memory = {k: v for k, v in self._memory.items() if v[1] > now}
        return count + 1, until - now

    async def close(self) -> None:
        """Close the Redis connection, if any."""
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.aclose()
