"""Hostile browser tests (issue 35, docs/web.md "Security"): a page on another origin (a second
local server on another port) submits forms with enctype=text/plain and credentialed fetches to
the game server while the victim is signed in, and the page plays under its CSP with no
violation reported."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from fifteentwo.store import open_store

pytestmark = pytest.mark.browser

VICTIM = ("victim", "a phrase only she knows")
ATTACKER = ("mallory", "secret phrase of mine=x")


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """This module's own game server and its store (nothing else writes to it)."""
    from test_web_restart import free_port, kill, start_server

    data = tmp_path_factory.mktemp("web-security")
    port = free_port()
    proc = start_server(data / "games.sqlite3", port, data)
    try:
        yield f"http://127.0.0.1:{port}", data / "games.sqlite3"
    finally:
        if proc.poll() is None:
            kill(proc)


def attack_page(target: str) -> str:
    """What the attacker's site serves: forms and fetches aimed at the game server."""
    name, password = ATTACKER
    left, right = password.split("=", 1)
    # A text/plain form sends "name=value": here exactly the attacker's login as JSON.
    field = f'{{"username":"{name}","password":"{left}'
    return f"""<!doctype html><meta charset="utf-8"><title>free chips</title>
<iframe name="sink"></iframe><iframe name="sink2"></iframe><iframe name="sink3"></iframe>
<form id="login" method="post" enctype="text/plain" target="sink" action="{target}/api/login">
  <input name="{field.replace('"', "&quot;")}" value='{right}"}}'></form>
<form id="table" method="post" enctype="text/plain" target="sink2" action="{target}/api/tables">
  <input name='{{"variant":"short","seats":[{{"kind":"person"}},{{"kind":"person"}}],"name":"a'
         value='b"}}'></form>
<form id="out" method="post" target="sink3" action="{target}/api/logout/everywhere">
  <input name="a" value="b"></form>
<script>
window.results = [];
async function shoot(path, options) {{
  try {{
    const init = {{ method: "POST", credentials: "include", ...options }};
    const r = await fetch("{target}" + path, init);
    window.results.push([path, r.type, r.status]);
  }} catch (e) {{ window.results.push([path, "blocked", String(e)]); }}
}}
window.attack = async () => {{
  document.getElementById("login").submit();
  document.getElementById("table").submit();
  document.getElementById("out").submit();
  const body = JSON.stringify({{ username: "{name}", password: "{password}" }});
  const plain = {{ "content-type": "text/plain" }};
  await shoot("/api/login", {{ mode: "no-cors", headers: plain, body }});
  await shoot("/api/login", {{ headers: {{ "content-type": "application/json" }}, body }});
  await shoot("/api/logout", {{ mode: "no-cors", body: "{{}}" }});
  await shoot("/api/password", {{ mode: "no-cors", headers: {{ "content-type": "text/plain" }},
    body: JSON.stringify({{ current: "x", new: "pwned pwned pwned" }}) }});
  const socket = await new Promise((done) => {{
    const ws = new WebSocket("{target.replace("http", "ws", 1)}/ws");
    ws.onopen = () => {{ ws.close(); done("open"); }};
    ws.onerror = () => done("refused");
  }});
  window.results.push(["/ws", socket]);
  await new Promise((done) => setTimeout(done, 1500));
  return window.results;
}};
</script>"""


@pytest.fixture(scope="module")
def evil(game: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The attacker's site: a plain static server on another port (another origin)."""
    root = tmp_path_factory.mktemp("evil")
    (root / "index.html").write_text(attack_page(game[0]))
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def api(page: Any, path: str, body: Any = None) -> Any:
    """A request made by the game's own page, as its scripts make them (same origin, JSON)."""
    return page.evaluate(
        """async ([path, body]) => {
            const options = body === null ? {} : { method: "POST",
                headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
            const r = await fetch(path, options);
            return { status: r.status, data: await r.json() };
        }""",
        [path, body],
    )


def test_another_site_cannot_log_the_victim_in_or_change_anything(
    browser: Any, game: tuple[str, Path], evil: str
) -> None:
    site, store_path = game
    with httpx2.Client(base_url=site, headers={"origin": site}) as attacker:
        made = attacker.post(
            "/api/register", json={"username": ATTACKER[0], "password": ATTACKER[1]}
        )
        assert made.status_code == 201, made.text
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(site + "/")
        assert (
            api(page, "/api/register", {"username": VICTIM[0], "password": VICTIM[1]})["status"]
            == 201
        )
        assert api(page, "/api/me")["data"]["username"] == "victim"
        with open_store(store_path) as store:
            tables_before = len(store.list_tables())

        bad = context.new_page()
        bad.goto(evil + "/")
        results = bad.evaluate("window.attack()")
        # Every simple (no-cors) request reached the server and was refused there; the JSON
        # one was stopped by the browser's CORS preflight, which the server never grants.
        assert [results[1][0], results[1][1]] == ["/api/login", "blocked"]

        assert api(page, "/api/me")["data"]["username"] == "victim"  # not mallory, not out
        with open_store(store_path) as store:
            assert len(store.list_tables()) == tables_before
        again = api(page, "/api/login", {"username": VICTIM[0], "password": VICTIM[1]})
        assert again["status"] == 200  # the password was not changed either
    finally:
        context.close()


def test_the_page_works_under_its_csp(browser: Any, game: tuple[str, Path]) -> None:
    site, _ = game
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    try:
        page = context.new_page()
        page.add_init_script(
            "window.__csp = []; document.addEventListener('securitypolicyviolation',"
            " (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
        )
        console: list[str] = []
        page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        response = page.goto(site + "/")
        assert response is not None
        headers = response.headers
        assert "script-src 'self'" in headers["content-security-policy"]
        assert headers["x-frame-options"] == "DENY"
        page.wait_for_selector("#opt-level option", state="attached")
        page.select_option("#speed", "instant")
        page.select_option("#opt-variant", "short")
        page.select_option("#opt-level", "greedy")
        page.click("#start")
        page.wait_for_selector("#page-game:not([hidden])")
        page.wait_for_function(
            "() => { const p = document.getElementById('page-game');"
            " return p.dataset.ready === '1' || p.dataset.over === '1'; }"
        )
        assert page.locator("svg").count() >= 1  # the pegboard, drawn as inline SVG
        for route in ("#/account", "#/leaderboard", "#/history"):
            page.goto(site + "/" + route)
            page.wait_for_timeout(500)
        violations = page.evaluate("window.__csp")
        assert violations == []
        assert not [m for m in console if "Content Security Policy" in m or "Refused to" in m]
        assert errors == []
    finally:
        context.close()
