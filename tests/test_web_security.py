"""Hostile tests of the web server (issue 35, docs/web.md "Security"): forged cross-site
requests, sessions that must end, answers that must not help a guesser, headers, rate limits
and password rules. The browser's side is in tests/browser/test_security_browser.py."""

from __future__ import annotations

import html.parser
import json
import logging
import re
import time
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("argon2")

from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from fifteentwo.store import open_store
from fifteentwo.web import accounts as accounts_module
from fifteentwo.web import create_app
from fifteentwo.web.accounts import session_key
from fifteentwo.web.security import (
    DEFAULT_LIMITS,
    Limit,
    SecurityConfig,
    client_address,
    parse_proxy,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SITE = "http://testserver"
EVIL = "https://evil.example"
GOOD_PASSWORD = "a pretty long pass phrase"
CHANGES = [
    "/api/login",
    "/api/register",
    "/api/logout",
    "/api/logout/everywhere",
    "/api/password",
    "/api/tables",
    "/api/tables/abc/sit",
    "/api/games",
]


def make_app(store_path: Path, **config: Any) -> Any:
    return create_app(
        lambda: open_store(store_path),
        workers=2,
        table_tick=0.05,
        security=SecurityConfig(**config),
    )


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def app(store_path: Path) -> Any:
    return make_app(store_path)


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app, headers={"origin": SITE}) as c:
        yield c


def browser(app: Any, **options: Any) -> TestClient:
    """Another browser on a running app: a client that does not run the app's lifespan again
    (the test's `client`, or another entered client, keeps the app running)."""
    options.setdefault("headers", {"origin": SITE})
    return TestClient(app, **options)


def register(client: TestClient, name: str = "ann", password: str = GOOD_PASSWORD) -> None:
    response = client.post("/api/register", json={"username": name, "password": password})
    assert response.status_code == 201, response.text


def me(client: TestClient) -> Any:
    return client.get("/api/me").json()["username"]


def cookie(client: TestClient) -> str:
    found = client.cookies.get("ft_session")
    assert found
    return str(found)


# --- 1. login CSRF --------------------------------------------------------------------------


def test_cross_site_text_plain_login_is_refused_and_logs_nobody_in(client: TestClient) -> None:
    """A form with enctype=text/plain on another site posting the attacker's credentials."""
    register(client, "mallory")
    client.post("/api/logout", json={})
    body = json.dumps({"username": "mallory", "password": GOOD_PASSWORD})
    for headers in (
        {"origin": EVIL, "content-type": "text/plain"},
        {"origin": EVIL, "content-type": "application/json"},
        {"origin": "null", "content-type": "application/json"},
        {"origin": SITE, "content-type": "text/plain"},
    ):
        response = client.post("/api/login", content=body, headers=headers)
        assert response.status_code in (403, 415), headers
        assert response.json()["type"] == "error"
        assert "set-cookie" not in response.headers
    assert me(client) is None


@pytest.mark.parametrize("path", CHANGES)
@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_every_change_needs_same_origin_json(app: Any, path: str, method: str) -> None:
    with TestClient(app) as c:
        body = b'{"username": "x", "password": "y"}'
        as_json = {"content-type": "application/json"}
        assert c.request(method, path, content=body, headers=as_json).status_code == 403
        foreign = {**as_json, "origin": EVIL}
        assert c.request(method, path, content=body, headers=foreign).status_code == 403
        sibling = {**as_json, "origin": "http://testserver.evil.example"}
        assert c.request(method, path, content=body, headers=sibling).status_code == 403
        for bad in ("http://[", "http://testserver@evil.example", "file:///x", ""):
            odd = {**as_json, "origin": bad}
            assert c.request(method, path, content=body, headers=odd).status_code == 403
        referer = {**as_json, "referer": "https://evil.example/page"}
        assert c.request(method, path, content=body, headers=referer).status_code == 403
        wrong_type = 415 if method == "POST" else 405  # (these routes take POST only)
        for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
            headers = {"origin": SITE, "content-type": kind}
            assert c.request(method, path, content=body, headers=headers).status_code == wrong_type
        same = {**as_json, "referer": f"{SITE}/#/account"}
        assert c.request(method, path, content=body, headers=same).status_code not in (403, 415)


def http_paths(app: Any) -> dict[str, set[str]]:
    """Every path of the app's route table that answers HTTP (a sample of each: path
    parameters filled in), with every method some route takes there."""
    paths: dict[str, set[str]] = {}
    for route in app.routes:
        if isinstance(route, Route):
            path = re.sub(r"\{[^}]*\}", "1", route.path_format)
            paths.setdefault(path, set()).update(route.methods or ())
        elif isinstance(route, Mount):
            assert isinstance(route.app, StaticFiles), f"what does {route.path} take?"
            paths[route.path + "/app.js"] = {"GET", "HEAD"}
        else:
            assert isinstance(route, WebSocketRoute), route
    return paths


def test_a_wrong_method_is_405_with_allow_and_json_on_every_route(client: TestClient) -> None:
    """A method no route takes at a path is 405 with ``Allow`` and the JSON error, whatever
    its content type; 415 is for a method the path takes, sent as something else than JSON."""
    answers: dict[tuple[str, str], Any] = {}
    for path, allowed in http_paths(client.app).items():
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
            response = client.request(
                method, path, content=b"x=1", headers={"content-type": "text/plain"}
            )
            if method in allowed and method != "POST":
                continue  # (served: a page or a read)
            body = response.json()
            allow = set(response.headers.get("allow", "").split(", ")) - {""}
            answers[method, path] = (response.status_code, body["type"], body["code"], allow)
    expected = {
        (method, path): (
            (415, "error", "unsupported_media_type", set())
            if method in allowed
            else (405, "error", "method_not_allowed", allowed)
        )
        for path, allowed in http_paths(client.app).items()
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE")
        if method not in allowed or method == "POST"
    }
    assert answers == expected
    assert ("POST", "/api/tables") in expected and ("GET", "/api/tables") in expected
    assert expected["PUT", "/api/games"][3] == {"GET", "HEAD", "POST"}  # both routes there


def test_an_address_with_nothing_there_is_404_json_under_api_and_plain_elsewhere(
    client: TestClient,
) -> None:
    """A bot or the page reads every refusal under /api/ as the JSON error; a page address
    that does not exist stays Starlette's plain Not Found."""
    for method, path in (("GET", "/api/nothing"), ("GET", "/api/games/x/y"), ("DELETE", "/api/x")):
        response = client.request(method, path)
        assert response.status_code == 404
        assert response.json() == {
            "type": "error",
            "code": "not_found",
            "message": "there is nothing at this address",
        }
    page = client.get("/no-such-page")
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/plain")


def test_allowed_origins_and_trusted_proxy_hosts(store_path: Path) -> None:
    app = make_app(
        store_path,
        allowed_origins=("https://cribbage.example",),
        trusted_proxies=(parse_proxy("10.0.0.0/8"),),
    )
    body = {"username": "nobody", "password": "whatever123"}
    with TestClient(app) as c:
        listed = c.post("/api/login", json=body, headers={"origin": "https://cribbage.example"})
        assert listed.status_code == 401
        proxied = {"x-forwarded-host": "play.example", "x-forwarded-proto": "https"}
        lb = browser(app, headers={}, client=("10.1.2.3", 4000))
        ok = lb.post("/api/login", json=body, headers={**proxied, "origin": "https://play.example"})
        assert ok.status_code == 401
        stranger = browser(app, headers={}, client=("203.0.113.9", 4000))  # not trusted
        forged = stranger.post(
            "/api/login", json=body, headers={**proxied, "origin": "https://play.example"}
        )
        assert forged.status_code == 403


def test_websocket_from_another_origin_is_refused(client: TestClient) -> None:
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect("/ws", headers={"origin": EVIL}) as ws,
    ):
        ws.send_text(json.dumps({"type": "ping"}))
        ws.receive_json()
    with client.websocket_connect("/ws", headers={"origin": SITE}) as ws:
        ws.send_text(json.dumps({"type": "ping"}))
        assert ws.receive_json()["type"] == "pong"


def test_the_page_sends_every_change_as_json() -> None:
    """Every request of the page goes through api(), which sends JSON for every change."""
    static = resources.files("fifteentwo.web") / "static"
    calls = []
    for item in static.iterdir():
        if item.name.endswith(".js"):
            calls += [(item.name, m.start()) for m in re.finditer(r"\bfetch\(", item.read_text())]
    assert [name for name, _ in calls] == ["app.js"]
    source = (static / "app.js").read_text()
    api = source[source.index("export async function api") :]
    api = api[: api.index("\n}\n")]
    assert '"content-type": "application/json"' in api
    assert 'options.method !== "GET"' in api


# --- 2. sessions ----------------------------------------------------------------------------


def test_cookie_attributes_over_http_and_tls(client: TestClient) -> None:
    set_cookie = client.get("/api/me").headers["set-cookie"].lower()
    assert set_cookie.startswith("ft_session=")
    assert "httponly" in set_cookie and "samesite=lax" in set_cookie and "path=/" in set_cookie
    assert "secure" not in set_cookie
    tls = browser(client.app, base_url="https://testserver")
    set_cookie = tls.get("/api/me").headers["set-cookie"].lower()
    assert set_cookie.startswith("__host-ft_session=")
    assert "secure" in set_cookie and "domain" not in set_cookie and "path=/" in set_cookie


def test_secure_cookie_behind_a_trusted_tls_proxy_only(store_path: Path) -> None:
    app = make_app(store_path, trusted_proxies=(parse_proxy("127.0.0.1"),))
    tls = {"x-forwarded-proto": "https"}
    with TestClient(app, client=("127.0.0.1", 5000)) as c:
        response = c.get("/api/me", headers=tls)
        assert "secure" in response.headers["set-cookie"].lower()
        assert "strict-transport-security" in response.headers
        response = browser(app, client=("192.0.2.1", 5000)).get("/api/me", headers=tls)
        assert "secure" not in response.headers["set-cookie"].lower()
        assert "strict-transport-security" not in response.headers


def test_logout_ends_the_session_for_a_copied_cookie(app: Any, store_path: Path) -> None:
    with TestClient(app, headers={"origin": SITE}) as c:
        register(c)
        stolen = cookie(c)
        thief = browser(app, cookies={"ft_session": stolen})
        assert thief.get("/api/me").json()["username"] == "ann"
        c.post("/api/logout", json={})
        assert me(c) is None
        thief = browser(app, cookies={"ft_session": stolen})
        assert thief.get("/api/me").json()["username"] is None
        with open_store(store_path) as store:
            assert store.web_session(session_key(stolen)) is None
            assert store.web_session(stolen) is None


def test_the_store_keeps_only_a_hash_of_the_session_id(
    client: TestClient, store_path: Path
) -> None:
    register(client)
    sid = cookie(client)
    assert len(sid) >= 43
    with open_store(store_path) as store:
        assert store.web_session(sid) is None
        kept = store.web_session(session_key(sid))
        assert kept is not None and kept.username == "ann"


def test_login_rotates_the_session_id(client: TestClient) -> None:
    register(client)
    client.post("/api/logout", json={})
    planted = cookie(client)  # an anonymous session an attacker could have planted
    response = client.post("/api/login", json={"username": "ann", "password": GOOD_PASSWORD})
    assert response.status_code == 200
    assert cookie(client) != planted
    fixer = browser(client.app, cookies={"ft_session": planted})
    assert me(fixer) is None


def test_sign_out_everywhere_ends_every_device(app: Any) -> None:
    with TestClient(app, headers={"origin": SITE}) as phone:
        laptop = browser(app)
        register(phone)
        laptop.post("/api/login", json={"username": "ann", "password": GOOD_PASSWORD})
        assert me(phone) == me(laptop) == "ann"
        response = phone.post("/api/logout/everywhere", json={})
        assert response.status_code == 200
        assert response.json()["ended"] == 2  # two devices, each counted once
        assert me(phone) is None and me(laptop) is None
        assert phone.post("/api/logout/everywhere", json={}).status_code == 401


def test_password_change_ends_other_sessions_and_renews_this_one(app: Any) -> None:
    with TestClient(app, headers={"origin": SITE}) as here:
        there = browser(app)
        register(here)
        there.post("/api/login", json={"username": "ann", "password": GOOD_PASSWORD})
        before = cookie(here)
        wrong = here.post("/api/password", json={"current": "not it at all", "new": "x" * 20})
        assert wrong.status_code == 401 and me(there) == "ann"
        weak = here.post("/api/password", json={"current": GOOD_PASSWORD, "new": "password1"})
        assert weak.status_code == 400 and "common" in weak.json()["message"]
        new = "another quite long phrase"
        changed = here.post("/api/password", json={"current": GOOD_PASSWORD, "new": new})
        assert changed.status_code == 200
        assert cookie(here) != before and me(here) == "ann"
        assert me(there) is None
        assert me(browser(app, cookies={"ft_session": before})) is None
        login = {"username": "ann", "password": GOOD_PASSWORD}
        assert there.post("/api/login", json=login).status_code == 401
        login["password"] = new
        assert there.post("/api/login", json=login).status_code == 200


def test_idle_and_absolute_lifetimes_end_sessions(store_path: Path) -> None:
    app = make_app(store_path, session_idle=3600.0, session_absolute=7200.0)
    with TestClient(app, headers={"origin": SITE}) as c:
        register(c)
        key = session_key(cookie(c))
        with open_store(store_path) as store:
            store.touch_web_session(key, time.time() - 3601)
        assert me(c) is None  # idle too long
        c.post("/api/login", json={"username": "ann", "password": GOOD_PASSWORD})
        assert me(c) == "ann"
        key = session_key(cookie(c))
        with open_store(store_path) as store:
            kept = store.web_session(key)
            assert kept is not None
            store.end_web_sessions(key=key)
            store.create_web_session(
                type(kept)(
                    key,
                    kept.player,
                    kept.account_id,
                    kept.username,
                    time.time() - 7201,
                    time.time(),
                )
            )
        assert me(c) is None  # too old, however busy


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_logout_on_one_process_ends_the_session_on_another(kind: str, tmp_path: Path) -> None:
    """Two applications sharing one store (as two server processes do): nothing is cached."""
    from store_backends import make_backend

    for backend in make_backend(kind, tmp_path):
        first = create_app(backend.open, workers=1)
        second = create_app(backend.open, workers=1)
        with (
            TestClient(first, headers={"origin": SITE}) as a,
            TestClient(second, headers={"origin": SITE}),
        ):
            register(a)
            sid = cookie(a)
            assert me(browser(second, cookies={"ft_session": sid})) == "ann"
            a.post("/api/logout", json={})
            assert me(browser(second, cookies={"ft_session": sid})) is None


def test_an_old_signed_cookie_no_longer_works(client: TestClient) -> None:
    old = "eyJwIjoiYWJjZGVmZ2hpamtsbW5vcCIsImEiOiJ4IiwidSI6ImFubiJ9.c2lnbmF0dXJl"
    response = browser(client.app, cookies={"ft_session": old}).get("/api/me")
    assert response.json()["username"] is None
    assert response.cookies["ft_session"] != old


# --- 3. answers that help an attacker -------------------------------------------------------


def test_unknown_table_and_wrong_token_answer_alike(client: TestClient) -> None:
    made = client.post(
        "/api/tables", json={"variant": "short", "seats": [{"kind": "person"}, {"kind": "person"}]}
    ).json()
    answers = []
    for table, token in ((made["table"], "wrong-token-123"), ("nosuchtable1", made["token"])):
        with client.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "join", "table": table, "token": token}))
            answers.append(ws.receive_json())
    assert answers[0] == answers[1]
    assert answers[0]["type"] == "error"


def test_unknown_user_and_wrong_password_answer_alike_with_the_same_work(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    register(client)
    client.post("/api/logout", json={})
    calls: list[str] = []
    real = accounts_module._verify

    def counting(password_hash: str, password: str) -> bool:
        calls.append(password_hash)
        return real(password_hash, password)

    monkeypatch.setattr(accounts_module, "_verify", counting)
    unknown = client.post("/api/login", json={"username": "nobody", "password": GOOD_PASSWORD})
    wrong = client.post("/api/login", json={"username": "ann", "password": "not the password"})
    bad_name = client.post("/api/login", json={"username": "no way!", "password": "whatever12"})
    assert unknown.status_code == wrong.status_code == bad_name.status_code == 401
    assert unknown.json() == wrong.json() == bad_name.json()
    assert len(calls) == 3  # an argon2 verification every time (a dummy hash when unknown)


BAD_PATHS = [
    "/api/history/abc/review",
    "/api/history/1e3/review",
    "/api/history/-1/review",
    "/api/history/99999999999999999999999999/review",
    "/api/history/9223372036854775808/review",
    "/api/history/%EF%BC%91/review",  # a full-width digit
    "/api/history/" + "1" * 500 + "/review",
    "/api/tables/" + "x" * 5000,
    "/api/tables/%00",
    "/api/tables/%F0%9F%82%A1",
    "/review/99999999999999999999999",
]


@pytest.mark.parametrize("path", BAD_PATHS)
def test_bad_route_parameters_answer_4xx_without_a_traceback(
    client: TestClient, path: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        response = client.get(path)
    assert response.status_code < 500
    if path.startswith("/api/"):
        assert 400 <= response.status_code < 500
        assert response.json()["type"] == "error"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize(
    "body",
    [
        b"{",
        b"[]",
        b"null",
        b'{"username": 5, "password": []}',
        b'{"username": "ann", "password": "x", "extra": 1}',
        b"\xff\xfe",
        b'{"variant": "short", "seats": "all"}',
        b'{"seat": 1e300}',
        b'{"current": null, "new": {}}',
        b"x" * 20_000,
    ],
    ids=lambda body: repr(body[:24]),
)
@pytest.mark.parametrize("path", CHANGES)
def test_bad_bodies_answer_4xx(client: TestClient, path: str, body: bytes) -> None:
    response = client.post(path, content=body, headers={"content-type": "application/json"})
    assert 400 <= response.status_code < 500 or response.status_code in (200, 201)
    assert response.status_code < 300 or response.json()["type"] == "error"


# --- 4. headers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "method,path", [("GET", "/"), ("GET", "/static/app.js"), ("GET", "/api/options"),
                    ("GET", "/nowhere"), ("POST", "/api/login")]
)  # fmt: skip
def test_every_answer_carries_the_security_headers(app: Any, method: str, path: str) -> None:
    with TestClient(app, headers={"origin": EVIL}) as c:
        headers = c.request(method, path, json={}).headers
    csp = {
        part.split()[0]: part.split()[1:]
        for part in headers["content-security-policy"].split(";")
        if part.strip()
    }
    assert csp["script-src"] == ["'self'"] and csp["style-src"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"] and csp["object-src"] == ["'none'"]
    assert csp["base-uri"] == ["'none'"] and csp["default-src"] == ["'self'"]
    assert "'unsafe-inline'" not in headers["content-security-policy"]
    assert "ws://testserver" in csp["connect-src"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "same-origin"
    assert headers["cross-origin-opener-policy"] == "same-origin"
    assert "camera=()" in headers["permissions-policy"]
    assert "strict-transport-security" not in headers


def test_hsts_over_tls(app: Any) -> None:
    with TestClient(app, base_url="https://testserver") as c:
        headers = c.get("/").headers
    assert headers["strict-transport-security"].startswith("max-age=")
    assert "wss://testserver" in headers["content-security-policy"]


class _Inline(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        if tag == "style" or (tag == "script" and "src" not in names):
            self.found.append(tag)
        self.found += [n for n in names if n == "style" or n.startswith("on")]
        if any(v and v.strip().lower().startswith("javascript:") for _, v in attrs):
            self.found.append("javascript: url")


def test_the_page_has_no_inline_script_or_style() -> None:
    page = (resources.files("fifteentwo.web") / "static" / "index.html").read_text()
    parser = _Inline()
    parser.feed(page)
    assert parser.found == []


# --- 5. rate limits -------------------------------------------------------------------------


def test_logins_are_limited_per_client_with_retry_after(store_path: Path) -> None:
    app = make_app(store_path, limits={**DEFAULT_LIMITS, "login": Limit(3, 60.0)})
    with TestClient(app, headers={"origin": SITE}) as c:
        tries = [
            c.post("/api/login", json={"username": f"u{i}xx", "password": "whatever12"})
            for i in range(4)
        ]
    assert [t.status_code for t in tries] == [401, 401, 401, 429]
    assert int(tries[-1].headers["retry-after"]) >= 1
    assert tries[-1].json()["code"] == "slow_down"


def test_logins_are_limited_per_username_across_clients(store_path: Path) -> None:
    app = make_app(store_path, limits={**DEFAULT_LIMITS, "login": Limit(2, 60.0)})
    codes = []
    with TestClient(app):
        for i in range(3):
            c = browser(app, client=(f"192.0.2.{i + 1}", 1))
            codes.append(
                c.post("/api/login", json={"username": "Ann", "password": "whatever12"}).status_code
            )
    assert codes == [401, 401, 429]


def test_behind_a_trusted_proxy_each_client_has_its_own_limit(store_path: Path) -> None:
    app = make_app(
        store_path,
        trusted_proxies=(parse_proxy("10.0.0.0/8"),),
        limits={**DEFAULT_LIMITS, "tables": Limit(2, 60.0)},
    )
    body = {
        "variant": "short",
        "seats": [{"kind": "person"}, {"kind": "computer", "level": "greedy"}],
    }
    with TestClient(app, headers={"origin": SITE}, client=("10.0.0.2", 1)) as lb:
        for client in ("198.51.100.1", "198.51.100.2"):
            forwarded = {"x-forwarded-for": f"6.6.6.6, {client}, 10.0.0.3"}
            codes = [
                lb.post("/api/tables", json=body, headers=forwarded).status_code for _ in "abc"
            ]
            assert codes == [201, 201, 429], client
        direct = browser(app, client=("203.0.113.5", 1))
        spoofed = [
            direct.post(
                "/api/tables", json=body, headers={"x-forwarded-for": f"198.51.100.{i}"}
            ).status_code
            for i in range(10, 13)
        ]
    assert spoofed == [201, 201, 429]  # X-Forwarded-For from an untrusted peer is ignored


def test_client_address_takes_the_right_most_untrusted_hop() -> None:
    proxies = (parse_proxy("10.0.0.0/8"), parse_proxy("::1"))

    def scope(peer: str, xff: str) -> dict[str, Any]:
        return {"client": (peer, 1), "headers": [(b"x-forwarded-for", xff.encode())]}

    assert client_address(scope("10.1.1.1", "1.2.3.4, 5.6.7.8, 10.2.2.2"), proxies) == "5.6.7.8"
    assert client_address(scope("203.0.113.1", "1.2.3.4"), proxies) == "203.0.113.1"
    assert client_address(scope("::1", "2001:db8::1"), proxies) == "2001:db8::1"
    assert client_address(scope("10.1.1.1", "10.3.3.3"), proxies) == "10.3.3.3"
    assert client_address(scope("10.1.1.1", "1.2.3.4, garbage"), proxies) == "garbage"


def test_accounts_per_address_per_hour(store_path: Path) -> None:
    app = make_app(store_path, limits={**DEFAULT_LIMITS, "accounts": Limit(2, 3600.0)})
    with TestClient(app, headers={"origin": SITE}) as c:
        codes = [
            c.post(
                "/api/register", json={"username": f"user{i}", "password": GOOD_PASSWORD}
            ).status_code
            for i in range(3)
        ]
        assert codes == [201, 201, 429]
        assert (
            c.post("/api/login", json={"username": "user2", "password": GOOD_PASSWORD}).status_code
            == 401
        )


def test_redis_counts_are_shared_by_every_process(store_path: Path, tmp_path: Path) -> None:
    pytest.importorskip("redis")
    import redis

    from test_web_processes import REDIS_URL

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.skip(f"no Redis: {exc}")
    prefix = f"test:{tmp_path.name}:{time.time_ns()}:"
    config = {"limits": {**DEFAULT_LIMITS, "login": Limit(3, 60.0)}, "rate_prefix": prefix}
    apps = [
        create_app(
            lambda: open_store(store_path),
            workers=1,
            redis=REDIS_URL,
            security=SecurityConfig(**config),  # type: ignore[arg-type]
        )
        for _ in range(2)
    ]
    codes = []
    with (
        TestClient(apps[0], headers={"origin": SITE}) as one,
        TestClient(apps[1], headers={"origin": SITE}) as two,
    ):
        for i in range(4):
            c = one if i % 2 else two
            codes.append(
                c.post(
                    "/api/login", json={"username": f"x{i}yz", "password": "whatever1"}
                ).status_code
            )
    assert codes == [401, 401, 401, 429]
    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(prefix + "*"):
        client.delete(key)


# --- 6. passwords ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "password,words",
    [
        ("short", "8 to 512"),
        ("password1", "common"),
        ("Iloveyou", "common"),
        ("annabelle-lee", "username"),
        ("x" * 513, "512"),
    ],
)
def test_weak_passwords_are_refused_with_the_rule(
    client: TestClient, password: str, words: str
) -> None:
    response = client.post("/api/register", json={"username": "annabelle", "password": password})
    assert response.status_code == 400
    assert words in response.json()["message"]


def test_long_unicode_passphrases_are_welcome_and_normalized(client: TestClient) -> None:
    phrase = "ｃｏｒｒｅｃｔ　ｈｏｒｓｅ ☃ " + "Ünïcödé wörds and spaces " * 11
    assert len(phrase) >= 256
    register(client, "carol", phrase)
    client.post("/api/logout", json={})
    import unicodedata

    ascii_form = unicodedata.normalize("NFKC", phrase)
    assert ascii_form != phrase
    ok = client.post("/api/login", json={"username": "carol", "password": ascii_form})
    assert ok.status_code == 200


def test_old_argon2_parameters_are_rehashed_at_login(client: TestClient, store_path: Path) -> None:
    from argon2 import PasswordHasher

    register(client)
    weak = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1).hash(GOOD_PASSWORD)
    with open_store(store_path) as store:
        account = store.account_by_name("ann")
        assert account is not None
        store.set_password_hash(account.account_id, weak)
    ok = client.post("/api/login", json={"username": "ann", "password": GOOD_PASSWORD})
    assert ok.status_code == 200
    with open_store(store_path) as store:
        account = store.account_by_name("ann")
        assert account is not None and account.password_hash != weak
        assert not PasswordHasher().check_needs_rehash(account.password_hash)


# --- serve options --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "option",
    [
        ["--allowed-origin", "ftp://x.example"],
        ["--allowed-origin", "https://x.example/path"],
        ["--trusted-proxy", "10.0.0.0/33"],
        ["--trusted-proxy", "load-balancer"],
        ["--rate-limit", "login=ten/60"],
        ["--rate-limit", "logins=10/60"],
        ["--rate-limit", "login=10/0"],
        ["--session-idle-days", "0"],
        ["--session-max-days", "nan"],
        ["--session-max-days", "inf"],
    ],
)
def test_bad_security_options_are_one_error_line(
    option: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from fifteentwo.cli import main

    assert main(["serve", "--port", "0", *option]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) >= 1 and err[-1].startswith(("error:", "cribbage serve: error:"))
    assert "Traceback" not in "\n".join(err)


def test_security_options_make_the_config() -> None:
    import argparse

    from fifteentwo.cli.serve import security_config

    args = argparse.Namespace(
        allowed_origin=["https://Cribbage.Example:443"],
        trusted_proxy=["10.0.0.0/8", "::1"],
        session_idle_days=1.0,
        session_max_days=2.0,
        rate_limit=["login=5/30"],
    )
    config = security_config(args)
    assert config.allowed_origins == ("https://cribbage.example",)
    assert [str(p) for p in config.trusted_proxies] == ["10.0.0.0/8", "::1/128"]
    assert (config.session_idle, config.session_absolute) == (86400.0, 172800.0)
    assert config.limits["login"] == Limit(5, 30.0)
    assert config.limits["tables"] == DEFAULT_LIMITS["tables"]


def test_a_store_that_cannot_answer_is_a_503_not_a_traceback(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from fifteentwo.store import StoreUnavailable

    register(client)

    def down(*_: Any, **__: Any) -> None:
        raise StoreUnavailable("cannot read the game store: disk I/O error")

    monkeypatch.setattr(client.app.state.hub.store, "web_session", down)  # type: ignore[attr-defined]
    with caplog.at_level(logging.WARNING):
        response = client.get("/api/me")
    assert response.status_code == 503
    assert response.json()["code"] == "unavailable"
    assert not [r for r in caplog.records if r.exc_info]


# --- 1b. WebSockets without Origin ----------------------------------------------------------


def _recorded_scope(headers: list[tuple[bytes, bytes]]) -> Any:
    """The scope a WebSocket upgrade with these headers reaches the application with (None if
    the middleware closed it first)."""
    import asyncio

    from fifteentwo.web.security import SecurityMiddleware

    seen: list[Any] = []
    sent: list[Any] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope)

    async def receive() -> Any:
        return {"type": "websocket.connect"}

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "websocket",
        "scheme": "ws",
        "path": "/ws",
        "headers": [(b"host", b"testserver"), *headers],
        "client": ("198.51.100.7", 5000),
    }
    asyncio.run(SecurityMiddleware(inner)(scope, receive, send))
    if not seen:
        assert sent == [{"type": "websocket.close", "code": 1008}]
        return None
    return seen[0]


def test_a_websocket_without_origin_never_carries_the_session_cookie() -> None:
    """A program (no Origin) is served as a stranger: its cookies never reach the application,
    so a session cookie cannot ride along; a browser's own page keeps them; others are refused."""
    jar = (b"cookie", b"ft_session=" + b"s" * 43)
    bare = _recorded_scope([jar, (b"referer", b"http://testserver/")])
    assert bare is not None
    assert [k for k, _ in bare["headers"]] == [b"host", b"referer"]
    same = _recorded_scope([jar, (b"origin", b"http://testserver")])
    assert same is not None and jar in same["headers"]
    assert _recorded_scope([jar, (b"origin", EVIL.encode())]) is None
    assert _recorded_scope([jar, (b"origin", b"null")]) is None
    assert _recorded_scope([jar, (b"origin", b"http://testserver.evil.example")]) is None


def test_a_bot_without_origin_plays_with_its_token_and_a_foreign_page_cannot(
    client: TestClient,
) -> None:
    register(client)
    made = client.post(
        "/api/tables", json={"variant": "short", "seats": [{"kind": "person"}, {"kind": "person"}]}
    ).json()
    join = json.dumps({"type": "join", "table": made["table"], "token": made["token"]})
    bot = browser(client.app, headers={}, cookies={"ft_session": cookie(client)})
    assert "origin" not in bot.headers
    with bot.websocket_connect("/ws") as ws:  # no Origin: served, with the token only
        ws.send_text(join)
        assert ws.receive_json()["type"] != "error"
    with bot.websocket_connect("/ws") as ws:  # no Origin, no token: nothing but ping
        ws.send_text(json.dumps({"type": "state"}))
        assert ws.receive_json()["code"] == "not_joined"
    for origin in (EVIL, "null"):
        with (
            pytest.raises(WebSocketDisconnect),
            bot.websocket_connect("/ws", headers={"origin": origin}) as ws,
        ):
            ws.send_text(join)
            ws.receive_json()


# --- 3b. what registration tells ------------------------------------------------------------


def test_registration_of_a_name_in_use_is_limited_and_costs_the_same_work(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Usernames are public, so registration may say a name cannot be used; it says so with
    the status of every other refusal, after the argon2 work a new account costs, and only
    `register` times per client per window (the accounts made are limited apart)."""
    hashed: list[str] = []
    real = accounts_module._HASHER

    class Counting:
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        def hash(self, password: str) -> str:
            hashed.append(password)
            return real.hash(password)

    monkeypatch.setattr(accounts_module, "_HASHER", Counting())
    app = make_app(store_path, limits={**DEFAULT_LIMITS, "register": Limit(3, 60.0)})
    with TestClient(app, headers={"origin": SITE}, client=("198.51.100.20", 1)) as c:
        register(c, "ann")
        assert len(hashed) == 1
        probe = c.post("/api/register", json={"username": "ANN", "password": GOOD_PASSWORD})
        assert len(hashed) == 2  # the same work as a new account
        weak = c.post("/api/register", json={"username": "zed", "password": "password"})
        assert probe.status_code == weak.status_code == 400
        assert probe.json() == {
            "type": "error",
            "code": "refused",
            "message": accounts_module.NAME_IN_USE,
        }
        assert "taken" not in probe.text
        slowed = c.post("/api/register", json={"username": "bob", "password": GOOD_PASSWORD})
        assert slowed.status_code == 429 and int(slowed.headers["retry-after"]) >= 1
        other = browser(app, client=("198.51.100.21", 1))
        assert (
            other.post("/api/register", json={"username": "ann", "password": GOOD_PASSWORD}).json()
            == probe.json()
        )


# --- 4b. a real server process: only --trusted-proxy peers are believed ---------------------


def test_a_served_process_believes_forwarded_headers_from_trusted_proxies_only(
    tmp_path: Path,
) -> None:
    """``cribbage serve`` itself (uvicorn): its own proxy-header rewriting is off, so a local
    peer that is not a ``--trusted-proxy`` cannot claim TLS or another client address. Found
    by the hostile re-check: uvicorn believed X-Forwarded-* from any 127.0.0.1 peer."""
    import httpx2

    from test_web_restart import free_port, kill, start_server

    port = free_port()
    proc = start_server(
        tmp_path / "games.sqlite3", port, tmp_path, "--trusted-proxy", "127.0.0.2",
        "--rate-limit", "login=2/60",
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:

        def client(source: str) -> httpx2.Client:
            transport = httpx2.HTTPTransport(local_address=source)
            return httpx2.Client(base_url=url, headers={"origin": url}, transport=transport)

        forged = {"x-forwarded-proto": "https", "x-forwarded-for": "198.51.100.1"}
        with client("127.0.0.1") as stranger, client("127.0.0.2") as proxy:
            plain = stranger.get("/api/me", headers=forged)
            assert plain.cookies.get("ft_session") and "__Host-ft_session" not in plain.cookies
            assert "secure" not in plain.headers["set-cookie"].lower()
            assert "strict-transport-security" not in plain.headers
            tls = proxy.get("/api/me", headers=forged)
            assert tls.cookies.get("__Host-ft_session")
            assert "secure" in tls.headers["set-cookie"].lower()

            def logins(who: httpx2.Client) -> list[int]:
                return [
                    who.post(
                        "/api/login",
                        json={"username": f"nobody{i}{id(who)}", "password": "guessing1"},
                        headers={"x-forwarded-for": f"198.51.100.{i + 10}"},
                    ).status_code
                    for i in range(3)
                ]

            assert logins(stranger) == [401, 401, 429]  # one client, whatever it forwards
            assert logins(proxy) == [401, 401, 401]  # three clients behind the proxy
    finally:
        kill(proc)


def test_a_session_in_use_is_touched_before_its_idle_time_passes(store_path: Path) -> None:
    """Its last use is written at least every quarter of the idle lifetime (found with a
    server run with --session-idle-days 0.00005: a busy session ended after 4 s)."""
    app = make_app(store_path, session_idle=100.0, session_absolute=7200.0)
    with TestClient(app, headers={"origin": SITE}) as c:
        register(c)
        key = session_key(cookie(c))
        with open_store(store_path) as store:
            store.touch_web_session(key, time.time() - 30)  # < a minute, > a quarter of 100 s
        assert me(c) == "ann"
        with open_store(store_path) as store:
            kept = store.web_session(key)
        assert kept is not None and time.time() - kept.seen_at < 5


def test_a_client_that_hangs_up_mid_body_is_not_a_server_error(tmp_path: Path) -> None:
    """Found by an outside audit: a request that promised 100 bytes, sent 7 and hung up was
    logged as a 500 with a traceback and counted as a server bug: anyone could fill the error
    log and trip the bug alerts that way."""
    import socket

    from test_web_restart import free_port, kill, start_server

    port = free_port()
    proc = start_server(tmp_path / "games.sqlite3", port, tmp_path)
    try:
        for path in ("/api/login", "/api/games"):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                sock.sendall(
                    f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                    f"Origin: http://127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                    'Content-Length: 100\r\n\r\n{"user'.encode()
                )
                time.sleep(0.2)
        time.sleep(0.5)
        import httpx2

        scraped = httpx2.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    finally:
        kill(proc)
    assert proc.stderr is not None
    log = proc.stderr.read().decode("utf-8", "replace")
    assert "Traceback" not in log and '"kind":"server"' not in log, log
    gone = [json.loads(line) for line in log.splitlines() if "client_gone" in line]
    assert len(gone) == 2 and {g["path"] for g in gone} == {"/api/login", "/api/games"}
    assert 'kind="server"' not in scraped


def test_a_request_that_does_not_parse_is_one_json_line_and_counted(tmp_path: Path) -> None:
    """uvicorn answers bytes that are not HTTP with a 400 of its own and said so in a plain
    line of its own, counted by no metric: now that line is the JSON error line every other
    refusal is (kind ``bad_http``), without a traceback, and counted in the errors metric."""
    import socket

    import httpx2
    from prometheus_client.parser import text_string_to_metric_families

    from test_web_restart import free_port, kill, start_server

    port = free_port()
    proc = start_server(tmp_path / "games.sqlite3", port, tmp_path)
    try:
        answers = []
        for garbage in (
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\r\n\r\n",
            b"GET /\x00 HTTP/9\r\n\r\n",
        ):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                sock.sendall(garbage)
                answers.append(sock.recv(100).split(b" ")[1])  # the status of the answer
        scraped = httpx2.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    finally:
        kill(proc)
    assert proc.stderr is not None
    lines = proc.stderr.read().decode("utf-8", "replace").splitlines()
    assert answers == [b"400", b"400"]
    assert [line for line in lines if not line.startswith("{")] == []  # no plain line
    logged = [json.loads(line) for line in lines]
    bad = [(e["event"], e["kind"], e["status"], "exc" in e) for e in logged]
    assert bad == [("request_error", "bad_http", 400, False)] * 2
    errors = {
        (sample.labels["where"], sample.labels["kind"]): sample.value
        for family in text_string_to_metric_families(scraped)
        if family.name == "fifteentwo_errors"
        for sample in family.samples
        if sample.name == "fifteentwo_errors_total"
    }
    assert errors == {("http", "bad_http"): 2.0}


@pytest.mark.parametrize(
    ("given", "shown"),
    [("B\u202eob\u200b", "Bob"), ("  Ann\t\nLee ", "Ann Lee"), ("\u2066x\u2069\x07", "x")],
)
def test_seat_names_are_cleaned_as_talk_is(given: str, shown: str) -> None:
    """Found by an outside audit: talk was cleaned, names were served raw."""
    from fifteentwo.web.protocol import NewTableRequest, QuickMatchRequest, SitRequest

    assert SitRequest(name=given).name == shown
    assert QuickMatchRequest(name=given).name == shown
    seats = [{"kind": "person"}, {"kind": "person"}]
    assert NewTableRequest.model_validate({"seats": seats, "name": given}).name == shown
