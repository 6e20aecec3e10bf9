"""Fuzz every HTTP route with random path parameters and bodies: nothing reaches a 500 and
nothing is logged as an error (issue 35, docs/web.md "Security")."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from urllib.parse import quote

import pytest

pytest.importorskip("starlette")
pytest.importorskip("argon2")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from fifteentwo.store import open_store
from fifteentwo.web import create_app
from fifteentwo.web.security import DEFAULT_LIMITS, Limit, SecurityConfig

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SITE = "http://testserver"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path = tmp_path_factory.mktemp("fuzz") / "games.sqlite3"
    many = {name: Limit(10**6, 60.0) for name in DEFAULT_LIMITS}  # fuzz the routes, not the limits
    app = create_app(lambda: open_store(path), workers=1, security=SecurityConfig(limits=many))
    with TestClient(app, headers={"origin": SITE}, raise_server_exceptions=False) as c:
        yield c


def routes(client: TestClient) -> list[tuple[str, str]]:
    """Every (method, path template) of the application, read from its routing table."""
    found = []
    for route in client.app.routes:  # type: ignore[attr-defined]
        if isinstance(route, Route):
            for method in sorted(route.methods or {"GET"}):
                if method != "HEAD":
                    found.append((method, route.path))
        elif isinstance(route, Mount):
            found.append(("GET", route.path + "/{path}"))
    return found


SEGMENTS = st.one_of(
    st.text(min_size=0, max_size=300),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.sampled_from(["1e3", "-1", "0", "NaN", "..", "%00", "9" * 30, "１２", "a/b", "🂡"]),
)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=50),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=20,
)
BODIES = st.one_of(
    st.binary(max_size=600),
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries(
        {},
        optional={
            "username": JSON_VALUES,
            "password": JSON_VALUES,
            "variant": st.sampled_from(["short", "standard", "x"]) | JSON_VALUES,
            "seats": JSON_VALUES,
            "seat": JSON_VALUES,
            "current": JSON_VALUES,
            "new": JSON_VALUES,
            "level": JSON_VALUES,
        },
    ).map(lambda v: json.dumps(v).encode()),
)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_route_answers_500(
    client: TestClient, data: st.DataObject, caplog: pytest.LogCaptureFixture
) -> None:
    method, template = data.draw(st.sampled_from(routes(client)))
    path = re.sub(
        r"\{[^}]+\}",
        lambda _: quote(data.draw(SEGMENTS), safe="") or "x",
        template,
    )
    kind = data.draw(st.sampled_from(["application/json", "application/json; charset=utf-8"]))
    body = data.draw(BODIES) if method != "GET" else b""
    caplog.clear()
    with caplog.at_level(logging.ERROR):
        response = client.request(method, path, content=body, headers={"content-type": kind})
    assert response.status_code < 500, (method, path, body[:80], response.text[:200])
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], (method, path)


def test_the_fuzzer_covers_every_route(client: TestClient) -> None:
    listed = routes(client)
    for needed in ("/api/history/{row}/review", "/api/tables/{table}/sit", "/api/password"):
        assert any(path == needed for _, path in listed)
    assert len(listed) >= 20


def test_every_route_answers_bad_json_with_4xx(client: TestClient) -> None:
    for method, template in routes(client):
        if method == "GET":
            continue
        path = template.replace("{table}", "x").replace("{row}", "1")
        for body in (b"{", b"[1,2", b'"text"', b"\x00\xff", b"1" * 9000):
            response = client.request(
                method, path, content=body, headers={"content-type": "application/json"}
            )
            assert 200 <= response.status_code < 500, (path, body[:10])
            assert response.headers["content-type"].startswith("application/json")


@settings(max_examples=500, deadline=None)
@given(text=st.text(max_size=80))
def test_option_parsers_answer_a_value_or_one_value_error(text: str) -> None:
    from fifteentwo.web.security import parse_limit, parse_origin, parse_proxy

    for parse in (parse_origin, parse_proxy, parse_limit):
        try:
            parse(text)
        except ValueError as exc:
            assert "\n" not in str(exc)


@settings(max_examples=500, deadline=None)
@given(
    peer=st.sampled_from(["10.0.0.1", "203.0.113.7", "::1", "testclient", ""]),
    hops=st.lists(st.one_of(st.ip_addresses().map(str), st.text(max_size=20)), max_size=6),
    host=st.text(max_size=40),
    origin=st.one_of(
        st.text(max_size=60),
        st.sampled_from(["http://[", "https://[::1", "http://a:99999", "null", "", "http://"]),
        st.text(max_size=30).map(lambda t: "http://" + t),
    ),
)
def test_request_headers_never_break_the_security_checks(
    peer: str, hops: list[str], host: str, origin: str
) -> None:
    from fifteentwo.web.security import (
        SecurityMiddleware,
        client_address,
        own_origin,
        parse_proxy,
    )

    proxies = (parse_proxy("10.0.0.0/8"), parse_proxy("::1"))
    headers = [
        (b"x-forwarded-for", ", ".join(hops).encode("utf-8", "replace")),
        (b"host", host.encode("utf-8", "replace")),
        (b"origin", origin.encode("utf-8", "replace")),
        (b"x-forwarded-proto", b"https"),
    ]
    scope = {"type": "http", "method": "POST", "client": (peer, 1), "headers": headers}
    address = client_address(scope, proxies)
    assert isinstance(address, str) and address
    assert own_origin(scope, proxies).startswith(("http://", "https://"))
    refusal = SecurityMiddleware(lambda *_: None).refusal(scope)  # type: ignore[arg-type]
    assert refusal is not None and refusal[0] in (403, 415)
