"""The lobby's HTTP routes (docs/web.md, "Finding a game"): the open tables, and quick match.

``GET /api/lobby`` lists the open tables waiting for people (read from the store, so every
process lists the same; the page asks again every few seconds). ``POST /api/quick`` seats the
asker with the next person who wants the same variant, rated or not (`web.matchmaking`), or
queues them; ``/api/quick/poll`` keeps their place and brings their seat once someone came;
``/api/quick/cancel`` leaves the queue. Every state-changing request is a JSON POST.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Final

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fifteentwo.rules import find_rules
from fifteentwo.store import StoreError
from fifteentwo.web.games import Refused
from fifteentwo.web.protocol import QuickMatchRequest, TicketRequest, first_error
from fifteentwo.web.replies import bad, read_body, refused
from fifteentwo.web.tables import TableHub
from fifteentwo.web.visitors import Visitors

__all__ = ["lobby_routes"]

MAX_BODY: Final = 4096


def lobby_routes(tables: Callable[[], TableHub], visitors: Visitors) -> list[Route]:
    """The routes; ``tables`` gives the hub made when the app starts, ``visitors`` who asks."""

    who, reply = visitors.who, visitors.reply

    async def lobby(request: Request) -> Response:
        listed = await tables().lobby()
        return JSONResponse({"tables": listed}, headers={"Cache-Control": "no-store"})

    async def quick(request: Request) -> Response:
        me = await who(request)
        try:
            req = QuickMatchRequest.model_validate_json(await read_body(request, MAX_BODY))
        except ValidationError as exc:
            return bad("bad_request", first_error(exc, "invalid request"))
        except Refused as exc:
            return refused(exc)
        if req.rated and not me.account_id:
            return bad("sign_in", "rated games are between accounts: sign in first", 403)
        ticket = secrets.token_urlsafe(18)
        entry = {
            "ticket": ticket,
            "person": me.owner_hint,
            "name": req.name.strip()[:40] or (me.username or ""),
            "account": me.account_id,
            "username": me.username,
        }
        queue = f"{req.variant}:{'rated' if req.rated else 'casual'}"
        hub = tables()
        need = find_rules(req.variant).players - 1
        try:
            others = await hub.matchmaker.ask(queue, entry, need)
            if not others:
                return await reply(request, {"status": "waiting", "ticket": ticket}, me, 202)
            seats = await hub.create_matched(req.variant, req.rated, [*others, entry])
            for person, seat in zip([*others, entry], seats, strict=True):
                await hub.matchmaker.deliver(person["ticket"], seat)  # (a poll brings it)
        except StoreError:
            raise  # 503 (`app._store_down`: Retry-After, the cause logged, not shown)
        except Exception as exc:  # Redis down: one clear answer, nothing half done is shown
            if type(exc).__module__.startswith("redis"):
                return bad("unavailable", f"the match queue is unavailable: {exc}"[:200], 503)
            raise
        mine = seats[-1]
        matched = {"status": "matched", "ticket": ticket, **mine, "variant": req.variant}
        return await reply(request, matched, me)

    async def ticket_call(request: Request, poll: bool) -> Response:
        try:
            req = TicketRequest.model_validate_json(await read_body(request, MAX_BODY))
        except ValidationError as exc:
            return bad("bad_request", first_error(exc, "invalid request"))
        except Refused as exc:
            return refused(exc)
        hub = tables()
        try:
            if poll:
                return JSONResponse(await hub.matchmaker.poll(req.ticket))
            left = await hub.matchmaker.cancel(req.ticket)
            if left:
                return JSONResponse({"status": "cancelled"})
            return JSONResponse(await hub.matchmaker.poll(req.ticket))
        except Exception as exc:
            if type(exc).__module__.startswith("redis"):
                return bad("unavailable", f"the match queue is unavailable: {exc}"[:200], 503)
            raise

    async def poll(request: Request) -> Response:
        return await ticket_call(request, poll=True)

    async def cancel(request: Request) -> Response:
        return await ticket_call(request, poll=False)

    return [
        Route("/api/lobby", lobby),
        Route("/api/quick", quick, methods=["POST"]),
        Route("/api/quick/poll", poll, methods=["POST"]),
        Route("/api/quick/cancel", cancel, methods=["POST"]),
    ]
