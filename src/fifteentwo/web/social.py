"""The HTTP routes of tables, accounts and the leaderboard (docs/web.md, "Tables").

Every route answers JSON; a bad body is one ``error`` with a code. Who is asking comes from the
signed cookie (`web.accounts`): anonymous by default, an account after a login.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fifteentwo.errors import FifteenTwoError
from fifteentwo.store import StoreError
from fifteentwo.web.accounts import COOKIE, Accounts, Identity, LoginLimiter
from fifteentwo.web.games import Refused
from fifteentwo.web.protocol import NewTableRequest, SitRequest, first_error
from fifteentwo.web.ratings import MIN_LEADERBOARD_GAMES
from fifteentwo.web.tables import TableHub

__all__ = ["social_routes"]

MAX_BODY: Final = 4096
COOKIE_AGE: Final = 400 * 24 * 3600


class Credentials(BaseModel):
    """``POST /api/register`` and ``/api/login``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    username: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    password: Annotated[str, StringConstraints(min_length=1, max_length=256)]


def social_routes(
    tables: Callable[[], TableHub], accounts: Callable[[], Accounts], run: Callable[..., Any]
) -> list[Route]:
    """The routes; ``tables``/``accounts`` give the objects made when the app starts and
    ``run`` runs a blocking call (store, password hashing) off the event loop."""
    limiter = LoginLimiter()

    def who(request: Request) -> Identity:
        found = accounts().identity(request.cookies.get(COOKIE))
        return found if found is not None else accounts().anonymous()

    def reply(data: Any, identity: Identity, status: int = 200) -> Response:
        response = JSONResponse(data, status_code=status)
        response.set_cookie(
            COOKIE,
            accounts().cookie(identity),
            max_age=COOKIE_AGE,
            httponly=True,
            samesite="lax",
        )
        return response

    async def body(request: Request) -> bytes:
        data = b""
        async for chunk in request.stream():
            data += chunk
            if len(data) > MAX_BODY:
                raise Refused("too_large", f"request bodies are at most {MAX_BODY} bytes")
        return data or b"{}"

    async def create_table(request: Request) -> Response:
        me = who(request)
        try:
            req = NewTableRequest.model_validate_json(await body(request))
            made = await tables().create(req, me.owner_hint, req.name or (me.username or ""))
        except ValidationError as exc:
            return _bad("bad_request", _first(exc))
        except Refused as exc:
            return _bad(exc.code, str(exc))
        await _tag_account(tables(), made["table"], made["seat"], me)
        made["links"] = {
            "table": f"/t/{made['table']}",
            "watch": f"/t/{made['table']}/watch/{made['watch']}",
        }
        return reply(made, me, 201)

    async def table_info(request: Request) -> Response:
        try:
            table = await tables().load(str(request.path_params["table"]))
        except Refused as exc:
            return _bad(exc.code, str(exc), 404)
        return reply(table.public(), who(request))

    async def sit(request: Request) -> Response:
        me = who(request)
        table_id = str(request.path_params["table"])
        try:
            req = SitRequest.model_validate_json(await body(request))
            took = await tables().sit(
                table_id, req.seat, me.owner_hint, req.name or (me.username or "")
            )
        except ValidationError as exc:
            return _bad("bad_request", _first(exc))
        except Refused as exc:
            return _bad(exc.code, str(exc), 404 if exc.code == "no_table" else 409)
        await _tag_account(tables(), table_id, took["seat"], me)
        return reply(took, me, 201)

    async def register(request: Request) -> Response:
        me = who(request)
        try:
            creds = Credentials.model_validate_json(await body(request))
            if not limiter.allow(_address(request)):
                return _bad("slow_down", "too many attempts: wait a minute", 429)
            account = await run(accounts().register, creds.username, creds.password)
        except ValidationError as exc:
            return _bad("bad_request", _first(exc))
        except (ValueError, Refused) as exc:
            return _bad("refused", str(exc))
        except StoreError as exc:
            return _bad("unavailable", str(exc), 503)
        me = Identity(me.player, account.account_id, account.username)
        return reply({"username": account.username}, me, 201)

    async def login(request: Request) -> Response:
        me = who(request)
        try:
            creds = Credentials.model_validate_json(await body(request))
            if not limiter.allow(_address(request), "u:" + creds.username.casefold()):
                return _bad("slow_down", "too many attempts: wait a minute", 429)
            account = await run(accounts().login, creds.username, creds.password)
        except ValidationError as exc:
            return _bad("bad_request", _first(exc))
        except (ValueError, Refused) as exc:
            return _bad("refused", str(exc), 401)
        except StoreError as exc:
            return _bad("unavailable", str(exc), 503)
        me = Identity(me.player, account.account_id, account.username)
        return reply({"username": account.username}, me)

    async def logout(request: Request) -> Response:
        me = who(request)
        return reply({"username": None}, Identity(me.player))

    async def whoami(request: Request) -> Response:
        me = who(request)
        data: dict[str, Any] = {"username": me.username}
        if me.account_id:
            try:
                account = await run(accounts().store.account, me.account_id)
            except StoreError as exc:
                return _bad("unavailable", str(exc), 503)
            if account is not None:
                data.update(account.to_json())
                data["on_leaderboard"] = account.rated_games >= MIN_LEADERBOARD_GAMES
        return reply(data, me)

    async def leaderboard(request: Request) -> Response:
        # issue 35: only accounts with enough rated games, with their rating deviation
        try:
            board = await run(
                partial(accounts().store.leaderboard, 100, min_games=MIN_LEADERBOARD_GAMES)
            )
        except StoreError as exc:
            return _bad("unavailable", str(exc), 503)
        return JSONResponse(
            {
                "players": [dict(a.to_json(), rank=i + 1) for i, a in enumerate(board)],
                "min_games": MIN_LEADERBOARD_GAMES,
            }
        )

    async def my_ratings(request: Request) -> Response:
        """Issue 35: the account's rating changes (game, before, after, when), newest first."""
        me = who(request)
        if not me.account_id:
            return _bad("not_logged_in", "log in to see your ratings", 401)
        try:
            changes = await run(accounts().store.rating_history, me.account_id, 200)
        except StoreError as exc:
            return _bad("unavailable", str(exc), 503)
        return reply({"changes": [c.to_json() for c in changes]}, me)

    async def my_history(request: Request) -> Response:
        from fifteentwo.web.stats import history_json

        me = who(request)
        store = accounts().store
        try:
            rows = await run(partial(store.finished_games, 200, owner_hint=me.owner_hint))
            totals = await run(partial(store.totals, owner_hint=me.owner_hint))
        except StoreError as exc:
            return _bad("unavailable", str(exc), 503)
        return reply(history_json(rows, totals), me)

    return [
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/tables/{table}", table_info),
        Route("/api/tables/{table}/sit", sit, methods=["POST"]),
        Route("/api/register", register, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/me", whoami),
        Route("/api/me/history", my_history),
        Route("/api/me/ratings", my_ratings),
        Route("/api/leaderboard", leaderboard),
    ]


async def _tag_account(hub: TableHub, table_id: str, seat: int, me: Identity) -> None:
    """Note the seat's account (for ratings) once the person sits."""
    if not me.account_id:
        return

    def change(table: Any) -> None:
        table.seats[seat]["account"] = me.account_id
        table.seats[seat]["username"] = me.username

    with contextlib.suppress(Refused, FifteenTwoError):
        await hub.mutate(table_id, change)


def _address(request: Request) -> str:
    return "ip:" + (request.client.host if request.client else "?")


def _bad(code: str, message: str, status: int = 400) -> Response:
    return JSONResponse({"type": "error", "code": code, "message": message}, status_code=status)


def _first(exc: ValidationError) -> str:
    return first_error(exc, "invalid request")
