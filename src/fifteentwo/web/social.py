"""The HTTP routes of tables, accounts and the leaderboard (docs/web.md, "Tables").

Every route answers JSON; a bad body is one ``error`` with a code. Who is asking comes from the
session cookie (`web.accounts`): anonymous by default, an account after a login.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fifteentwo.web.accounts import MAX_PASSWORD, Accounts
from fifteentwo.web.games import Refused
from fifteentwo.web.protocol import NewTableRequest, SitRequest, first_error
from fifteentwo.web.ratings import MIN_LEADERBOARD_GAMES
from fifteentwo.web.replies import bad, read_body, refused
from fifteentwo.web.security import RateLimits, SecurityConfig, client_address
from fifteentwo.web.tables import TableHub
from fifteentwo.web.visitors import Visitors

__all__ = ["social_routes"]

MAX_BODY: Final = 8192
TABLE_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")


class Credentials(BaseModel):
    """``POST /api/register`` and ``/api/login``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    username: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    password: Annotated[str, StringConstraints(min_length=1, max_length=MAX_PASSWORD)]


class PasswordChange(BaseModel):
    """``POST /api/password``: the current password and the new one."""

    model_config = ConfigDict(extra="forbid", strict=True)
    current: Annotated[str, StringConstraints(min_length=1, max_length=MAX_PASSWORD)]
    new: Annotated[str, StringConstraints(min_length=1, max_length=MAX_PASSWORD)]


def social_routes(
    tables: Callable[[], TableHub],
    accounts: Callable[[], Accounts],
    run: Callable[..., Any],
    security: SecurityConfig | None = None,
    limits: Callable[[], RateLimits] | None = None,
) -> list[Route]:
    """The routes; ``tables``/``accounts`` give the objects made when the app starts and
    ``run`` runs a blocking call (store, password hashing) off the event loop; ``security``
    says which proxies to believe and ``limits`` counts attempts per client."""
    config = security or SecurityConfig()
    fallback = RateLimits(config)

    def limiter() -> RateLimits:
        return limits() if limits is not None else fallback

    visitors = Visitors(accounts, run, config)
    who = visitors.who
    answer, reply = visitors.answer, visitors.reply

    async def limited(request: Request, name: str, *keys: str) -> Response | None:
        """A 429 answer (with Retry-After) if this client is over the named limit."""
        client = "ip:" + client_address(request.scope, config.trusted_proxies)
        wait = await limiter().hit(name, [client, *keys])
        if wait is None:
            return None
        seconds = max(1, math.ceil(wait))
        message = f"too many attempts: try again in {seconds} s"
        return bad("slow_down", message, 429, {"Retry-After": str(seconds)})

    async def create_table(request: Request) -> Response:
        me = await who(request)
        try:
            req = NewTableRequest.model_validate_json(await read_body(request, MAX_BODY))
            slow = await limited(request, "tables")
            if slow is not None:
                return slow
            made = await tables().create(
                req,
                me.owner_hint,
                req.name or (me.username or ""),
                account=me.account_id,  # noted with the creator's seat, in the same write
                username=me.username,
            )
        except ValidationError as exc:
            return bad("bad_request", _first(exc))
        except Refused as exc:
            return refused(exc)
        made["links"] = {
            "table": f"/t/{made['table']}",
            "watch": f"/t/{made['table']}/watch/{made['watch']}",
        }
        return await reply(request, made, me, 201)

    async def table_info(request: Request) -> Response:
        table_id = str(request.path_params["table"])
        try:
            if not TABLE_ID.fullmatch(table_id):
                raise Refused("no_table", "no table with that id")
            table = await tables().load(table_id)
        except Refused as exc:
            return bad(exc.code, str(exc), 404)
        return JSONResponse(table.public())

    async def sit(request: Request) -> Response:
        me = await who(request)
        table_id = str(request.path_params["table"])
        try:
            req = SitRequest.model_validate_json(await read_body(request, MAX_BODY))
            if not TABLE_ID.fullmatch(table_id):
                raise Refused("no_table", "no table with that id")
            took = await tables().sit(
                table_id,
                req.seat,
                me.owner_hint,
                req.name or (me.username or ""),
                account=me.account_id,  # noted with the seat (a rated table: one seat each)
                username=me.username,
            )
        except ValidationError as exc:
            return bad("bad_request", _first(exc))
        except Refused as exc:
            return refused(exc, default=409)
        return await reply(request, took, me, 201)

    async def register(request: Request) -> Response:
        me = await who(request)
        try:
            creds = Credentials.model_validate_json(await read_body(request, MAX_BODY))
            slow = await limited(request, "register")
            if slow is not None:
                return slow
            account = await run(accounts().register, creds.username, creds.password)
        except ValidationError as exc:
            return bad("bad_request", _first(exc))
        except (ValueError, Refused) as exc:
            return bad("refused", str(exc))
        # Counted once made: this many accounts per address per hour, then 429 (kept).
        await limited(request, "accounts")
        session_id, _ = await run(partial(accounts().start, me.player, account, ending=me.key))
        return answer(request, {"username": account.username}, 201, session_id)

    async def register_gate(request: Request) -> Response:
        client = "ip:" + client_address(request.scope, config.trusted_proxies)
        if await limiter().peek("accounts", client):
            message = "too many new accounts from this address: try later"
            wait = str(int(config.limits["accounts"].window))
            return bad("slow_down", message, 429, {"Retry-After": wait})
        return await register(request)

    async def login(request: Request) -> Response:
        me = await who(request)
        try:
            creds = Credentials.model_validate_json(await read_body(request, MAX_BODY))
            slow = await limited(request, "login", "u:" + creds.username.casefold())
            if slow is not None:
                return slow
            account = await run(accounts().login, creds.username, creds.password)
        except ValidationError as exc:
            return bad("bad_request", _first(exc))
        except (ValueError, Refused) as exc:
            return bad("refused", str(exc), 401)
        # A new session id at every login: one planted before it (fixation) is worth nothing.
        session_id, _ = await run(partial(accounts().start, me.player, account, ending=me.key))
        return answer(request, {"username": account.username}, 200, session_id)

    async def logout(request: Request) -> Response:
        me = await who(request)
        await run(accounts().end, me)
        session_id, _ = await run(accounts().start, me.player)
        return answer(request, {"username": None}, 200, session_id)

    async def logout_everywhere(request: Request) -> Response:
        me = await who(request)
        if not me.account_id:
            return bad("not_signed_in", "sign in first", 401)
        ended = await run(accounts().end_everywhere, me)
        session_id, _ = await run(accounts().start, me.player)
        return answer(request, {"username": None, "ended": ended}, 200, session_id)

    async def change_password(request: Request) -> Response:
        me = await who(request)
        try:
            req = PasswordChange.model_validate_json(await read_body(request, MAX_BODY))
            if not me.account_id:
                return bad("not_signed_in", "sign in first", 401)
            slow = await limited(request, "password", "a:" + me.account_id)
            if slow is not None:
                return slow
            account = await run(accounts().change_password, me, req.current, req.new)
        except ValidationError as exc:
            return bad("bad_request", _first(exc))
        except PermissionError as exc:
            return bad("not_signed_in", str(exc), 401)
        except ValueError as exc:
            wrong = "wrong username or password" in str(exc)
            return bad("refused", "the current password is wrong" if wrong else str(exc),
                        401 if wrong else 400)  # fmt: skip
        except Refused as exc:
            return refused(exc)
        # Every other session ended; this one goes on under a new id.
        session_id, _ = await run(partial(accounts().start, me.player, account, ending=me.key))
        return answer(request, {"username": account.username}, 200, session_id)

    async def whoami(request: Request) -> Response:
        me = await who(request)
        data: dict[str, Any] = {"username": me.username}
        if me.account_id:
            account = await run(accounts().store.account, me.account_id)
            if account is not None:
                data.update(account.to_json())
                data["on_leaderboard"] = account.rated_games >= MIN_LEADERBOARD_GAMES
        return await reply(request, data, me)

    async def leaderboard(request: Request) -> Response:
        # issue 35: only accounts with enough rated games, with their rating deviation
        board = await run(
            partial(accounts().store.leaderboard, 100, min_games=MIN_LEADERBOARD_GAMES)
        )
        return JSONResponse(
            {
                "players": [dict(a.to_json(), rank=i + 1) for i, a in enumerate(board)],
                "min_games": MIN_LEADERBOARD_GAMES,
            }
        )

    async def my_ratings(request: Request) -> Response:
        """Issue 35: the account's rating changes (game, before, after, when), newest first."""
        me = await who(request)
        if not me.account_id:
            return bad("not_logged_in", "log in to see your ratings", 401)
        changes = await run(accounts().store.rating_history, me.account_id, 200)
        return await reply(request, {"changes": [c.to_json() for c in changes]}, me)

    async def my_history(request: Request) -> Response:
        from fifteentwo.web.stats import history_json

        me = await who(request)
        store = accounts().store
        rows = await run(partial(store.finished_games, 200, owner_hint=me.owner_hint))
        totals = await run(partial(store.totals, owner_hint=me.owner_hint))
        return await reply(request, history_json(rows, totals), me)

    return [
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/tables/{table}", table_info),
        Route("/api/tables/{table}/sit", sit, methods=["POST"]),
        Route("/api/register", register_gate, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/logout/everywhere", logout_everywhere, methods=["POST"]),
        Route("/api/password", change_password, methods=["POST"]),
        Route("/api/me", whoami),
        Route("/api/me/history", my_history),
        Route("/api/me/ratings", my_ratings),
        Route("/api/leaderboard", leaderboard),
    ]


def _first(exc: ValidationError) -> str:
    return first_error(exc, "invalid request")
