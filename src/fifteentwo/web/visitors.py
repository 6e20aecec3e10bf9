"""Who is asking, for every HTTP route that needs it (`web.social`, `web.lobby`): one place.

A browser is known by its session cookie (`web.accounts`): an account after a login, else an
anonymous player whose id must last (its games are filed under it), so a browser without a
session is given one with its first answer. Over TLS (or behind a trusted TLS proxy) the
cookie is the ``__Host-`` one and ``Secure``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from fifteentwo.web.accounts import COOKIE, SECURE_COOKIE, Accounts, Identity
from fifteentwo.web.security import SecurityConfig, is_tls

__all__ = ["Visitors"]


class Visitors:
    """Reads a request's session and answers with a new session's cookie when one started.

    ``run`` runs a blocking call (the store) off the event loop."""

    def __init__(
        self, accounts: Callable[[], Accounts], run: Callable[..., Any], config: SecurityConfig
    ) -> None:
        self.accounts = accounts
        self.run = run
        self.config = config

    def tls(self, request: Request) -> bool:
        return is_tls(request.scope, self.config.trusted_proxies)

    def cookie_name(self, request: Request) -> str:
        return SECURE_COOKIE if self.tls(request) else COOKIE

    async def who(self, request: Request) -> Identity:
        """This browser's live session; a new anonymous identity (no session yet) if none."""
        found = await self.run(
            self.accounts().identity, request.cookies.get(self.cookie_name(request))
        )
        return found if found is not None else Identity(secrets.token_urlsafe(16))

    def answer(
        self, request: Request, data: Any, status: int = 200, session_id: str | None = None
    ) -> Response:
        """JSON; with a new session's cookie when one was started."""
        response = JSONResponse(data, status_code=status)
        if session_id is not None:
            response.set_cookie(
                self.cookie_name(request),
                session_id,
                max_age=int(self.accounts().absolute),
                path="/",
                secure=self.tls(request),
                httponly=True,
                samesite="lax",
            )
        return response

    async def reply(self, request: Request, data: Any, me: Identity, status: int = 200) -> Response:
        """JSON for a browser; one without a session gets one."""
        if me.key:
            return self.answer(request, data, status)
        session_id, _ = await self.run(self.accounts().start, me.player)
        return self.answer(request, data, status, session_id)
