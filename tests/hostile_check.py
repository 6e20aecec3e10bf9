"""The hostile re-check of issue 35 against real `cribbage serve` processes (httpx2, websockets).

Not a pytest module (each finding it made is a test in tests/test_web_security.py); a script to
run again after a change to the web server's defences (docs/web.md, "The hostile re-check"):

    python tests/hostile_check.py [--no-lifetimes]

It starts three servers on free ports with SQLite stores in a temporary ``XDG_DATA_HOME`` (one
with ``--trusted-proxy 127.0.0.2``, reached from 127.0.0.1 and 127.0.0.2 as an untrusted and a
trusted peer; one with lifetimes of seconds), prints one line per attack, stops them, and exits
1 if any attack got through.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from web_helpers import choose

RESULTS: list[tuple[bool, str, str]] = []
PASSWORD = "correct horse battery staple again"


def check(ok: bool, attack: str, detail: str = "") -> None:
    RESULTS.append((ok, attack, detail))
    print(("ok    " if ok else "FAIL  ") + attack + (f"  [{detail}]" if detail else ""), flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, work: Path, *extra: str) -> None:
        self.port = free_port()
        self.work = work
        env = {**os.environ, "XDG_DATA_HOME": str(work / "xdg")}
        env.pop("FIFTEENTWO_DATA_DIR", None)
        self.log = (work / f"serve-{self.port}.log").open("wb")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "fifteentwo",
                "serve",
                "--port",
                str(self.port),
                "--table-tick",
                "0.05",
                "--log-level",
                "info",
                *extra,
            ],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx2.get(self.url + "/readyz", timeout=2).status_code == 200:
                    return
            except httpx2.HTTPError:
                time.sleep(0.1)
        raise SystemExit("server did not start: " + (work / f"serve-{self.port}.log").read_text())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return self.url.replace("http", "ws") + "/ws"

    def ws(self, origin: str | None = None, *, bot: bool = False, **kw: Any) -> ClientConnection:
        """A WebSocket from the page's origin, from another ``origin``, or (``bot``) from none."""
        sent = None if bot else origin or self.url
        return connect(self.ws_url, origin=sent, open_timeout=5, **kw)

    def client(self, source: str | None = None, **kw: Any) -> httpx2.Client:
        transport = httpx2.HTTPTransport(local_address=source) if source else None
        headers = kw.pop("headers", {"origin": self.url})
        return httpx2.Client(
            base_url=self.url, headers=headers, timeout=30, transport=transport, **kw
        )

    def logtext(self) -> str:
        self.log.flush()
        return (self.work / f"serve-{self.port}.log").read_text(errors="replace")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def register(c: httpx2.Client, name: str) -> httpx2.Response:
    return c.post("/api/register", json={"username": name, "password": PASSWORD})


def me(c: httpx2.Client) -> Any:
    return c.get("/api/me").json().get("username")


def session_cookie(c: httpx2.Client) -> str:
    return str(c.cookies.get("ft_session"))


def copied(srv: Server, sid: str) -> httpx2.Client:
    return srv.client(cookies={"ft_session": sid})


def whose(srv: Server, sid: str) -> Any:
    """The account a copied session cookie signs in as (None: it gives nothing)."""
    return me(copied(srv, sid))


def fresh(prefix: str, nbytes: int = 3) -> str:
    """A name of its own (every step's accounts share one server's store)."""
    return prefix + secrets.token_hex(nbytes)


def login(c: httpx2.Client, name: str, password: str = PASSWORD) -> httpx2.Response:
    return c.post("/api/login", json={"username": name, "password": password})


def players(srv: Server, *prefixes: str) -> list[tuple[httpx2.Client, str]]:
    """A registered account per prefix, each on a client of its own."""
    out = []
    for prefix in prefixes:
        c, name = srv.client(), fresh(prefix)
        register(c, name)
        out.append((c, name))
    return out


def new_table(c: httpx2.Client, **settings: Any) -> Any:
    """A short game's table for two people, made by ``c`` (the answer: table id, token)."""
    seats = [{"kind": "person"}, {"kind": "person"}]
    return c.post("/api/tables", json={"variant": "short", **settings, "seats": seats}).json()


def sit_and_leave(c: httpx2.Client, table: str) -> None:
    """``c`` takes the free seat and never plays (an away person)."""
    c.post(f"/api/tables/{table}/sit", json={"seat": None, "name": ""})


def join(table: str, token: str) -> str:
    return json.dumps({"type": "join", "table": table, "token": token})


def first_reply(srv: Server, message: str) -> str:
    """The server's first answer to ``message`` on a new WebSocket from the page."""
    with srv.ws() as ws:
        ws.send(message)
        return str(ws.recv(timeout=5))


def forged_requests(srv: Server) -> None:
    evil = "https://evil.example"
    bodies = {
        "/api/login": json.dumps({"username": "mallory", "password": PASSWORD}),
        "/api/register": json.dumps({"username": fresh("forged"), "password": PASSWORD}),
        "/api/tables": json.dumps(
            {"variant": "short", "seats": [{"kind": "person"}, {"kind": "computer"}]}
        ),
        "/api/games": json.dumps({"variant": "short"}),
        "/api/logout": "{}",
        "/api/logout/everywhere": "{}",
        "/api/password": json.dumps({"current": PASSWORD, "new": PASSWORD + "x"}),
        "/api/quick": json.dumps({"variant": "short"}),
    }
    mallory = srv.client()
    register(mallory, "mallory")
    cases = [
        ("text/plain + foreign Origin", {"origin": evil, "content-type": "text/plain"}),
        ("JSON + foreign Origin", {"origin": evil, "content-type": "application/json"}),
        ("JSON + Origin null", {"origin": "null", "content-type": "application/json"}),
        (
            "no Origin + foreign Referer",
            {"referer": evil + "/x", "content-type": "application/json"},
        ),
        ("no Origin, no Referer", {"content-type": "application/json"}),
        ("text/plain + same Origin", {"origin": srv.url, "content-type": "text/plain"}),
        (
            "form + same Origin",
            {"origin": srv.url, "content-type": "application/x-www-form-urlencoded"},
        ),
        (
            "same-origin look-alike",
            {"origin": srv.url + ".evil.example", "content-type": "application/json"},
        ),
    ]
    for path, body in bodies.items():
        for label, headers in cases:
            victim = srv.client(headers={})
            victim.get("/api/me")  # an anonymous session, as a visiting browser has
            sid = session_cookie(victim)
            r = victim.post(path, content=body, headers=headers)
            after = whose(srv, sid)
            ok = r.status_code in (403, 415) and r.json().get("type") == "error" and after is None
            check(ok, f"cross-site POST {path}: {label}", f"{r.status_code} {r.json().get('code')}")
    logged = srv.client()
    register(logged, fresh("victim"))
    r = logged.post(
        "/api/logout", content="{}", headers={"origin": evil, "content-type": "application/json"}
    )
    check(
        r.status_code == 403 and me(logged) is not None,
        "cross-site logout of a signed-in victim",
        str(r.status_code),
    )


def websockets_(srv: Server) -> None:
    ((ann, _),) = players(srv, "wsann")
    sid = session_cookie(ann)
    made = new_table(ann)
    joining = join(made["table"], made["token"])
    cookie = {"cookie": f"ft_session={sid}"}
    for origin in ("https://evil.example", "null", srv.url + ".evil.example"):
        try:
            with srv.ws(origin, additional_headers=cookie) as ws:
                ws.send(joining)
                got = ws.recv(timeout=5)
            check(False, f"WebSocket with Origin {origin}", f"served: {got[:80]!r}")
        except InvalidStatus as exc:
            check(
                exc.response.status_code == 403,
                f"WebSocket with Origin {origin} refused",
                str(exc.response.status_code),
            )
    with srv.ws(bot=True, additional_headers=cookie) as ws:
        ws.send(json.dumps({"type": "state"}))
        first = json.loads(ws.recv(timeout=5))
        ws.send(joining)
        joined = json.loads(ws.recv(timeout=5))
    check(
        first.get("code") == "not_joined" and joined.get("type") == "state",
        "WebSocket without Origin (bot): served, the cookie gives nothing, the token joins",
        f"{first.get('code')}, {joined.get('type')}",
    )
    pong = json.loads(first_reply(srv, json.dumps({"type": "ping"})))
    check(pong.get("type") == "pong", "WebSocket from the page's origin")


def sessions(srv: Server) -> None:
    ((a, name),) = players(srv, "sess")
    sid = session_cookie(a)
    check(whose(srv, sid) == name, "a copied cookie works while the session lives")
    a.post("/api/logout", json={})
    check(whose(srv, sid) is None, "copied cookie after logout")
    devices = [srv.client() for _ in range(3)]
    sids = []
    for d in devices:
        login(d, name)
        sids.append(session_cookie(d))
    devices[0].post("/api/logout/everywhere", json={})
    check(all(whose(srv, s) is None for s in sids), "copied cookies after sign out everywhere")
    d1, d2 = srv.client(), srv.client()
    for d in (d1, d2):
        login(d, name)
    old1, old2 = session_cookie(d1), session_cookie(d2)
    r = d1.post("/api/password", json={"current": PASSWORD, "new": PASSWORD + " two"})
    check(
        r.status_code == 200
        and whose(srv, old2) is None
        and whose(srv, old1) is None
        and me(d1) == name,
        "copied cookies after a password change (this device renewed)",
        str(r.status_code),
    )
    r = login(d1, name)
    check(r.status_code == 401, "old password after a change", str(r.status_code))
    forged = copied(srv, "A" * 43)
    check(me(forged) is None, "a made-up session id")
    fixed = srv.client()
    fixed.get("/api/me")
    planted = session_cookie(fixed)
    login(fixed, name, PASSWORD + " two")
    check(
        session_cookie(fixed) != planted and whose(srv, planted) is None,
        "session fixation: a planted id is replaced at login",
    )


def cookie_flags(srv: Server, proxied: Server) -> None:
    c = srv.client()
    r = c.get("/api/me")
    raw = r.headers.get("set-cookie", "")
    check(
        raw.startswith("ft_session=")
        and "httponly" in raw.lower()
        and "samesite=lax" in raw.lower()
        and "secure" not in raw.lower()
        and "path=/" in raw.lower(),
        "cookie over plain HTTP: HttpOnly, SameSite=Lax, no Secure",
        raw[:120],
    )
    spoof = srv.client(headers={"x-forwarded-proto": "https"})
    raw = spoof.get("/api/me").headers.get("set-cookie", "")
    check(
        raw.startswith("ft_session=") and "secure" not in raw.lower(),
        "X-Forwarded-Proto: https from an untrusted peer is ignored",
        raw[:60],
    )
    for source, trusted in (("127.0.0.2", True), ("127.0.0.1", False)):
        cl = proxied.client(
            source=source,
            headers={"x-forwarded-proto": "https", "x-forwarded-for": "198.51.100.77"},
        )
        raw = cl.get("/api/me").headers.get("set-cookie", "")
        hsts = cl.get("/").headers.get("strict-transport-security")
        if trusted:
            ok = raw.startswith("__Host-ft_session=") and "secure" in raw.lower() and bool(hsts)
        else:
            ok = raw.startswith("ft_session=") and "secure" not in raw.lower() and not hsts
        check(
            ok,
            f"X-Forwarded-Proto https from {'trusted' if trusted else 'untrusted'} peer {source}",
            raw[:70],
        )


def lifetimes(work: Path) -> None:
    # 0.00005 days = 4.3 s idle; 0.00012 days = 10.4 s absolute
    short = Server(work, "--session-idle-days", "0.00005", "--session-max-days", "0.00012")
    try:
        ((c, name),) = players(short, "life")
        sid = session_cookie(c)
        alive = []
        start = time.monotonic()
        while time.monotonic() - start < 7.5:  # used every second: the idle time never passes
            alive.append(whose(short, sid) == name)
            time.sleep(1.0)
        check(
            all(alive),
            "an active session outlives its idle time (4.3 s) while used",
            f"{alive.count(True)}/{len(alive)} alive",
        )
        time.sleep(max(0.0, 11.0 - (time.monotonic() - start)))
        check(whose(short, sid) is None, "absolute lifetime (10.4 s) ends a busy session")
        c2 = short.client()
        login(c2, name)
        sid2 = session_cookie(c2)
        time.sleep(5.0)
        check(whose(short, sid2) is None, "idle lifetime (4.3 s) ends an unused session")
    finally:
        short.stop()


def answers(srv: Server) -> None:
    c = srv.client()
    made = new_table(c)
    alike(srv, "join", "table", (made["table"], made["token"]), "nosuchtable1")
    r1 = c.post(f"/api/tables/{made['table']}/sit", json={"seat": 0, "name": "x"})
    r2 = c.post("/api/tables/nosuchtable1/sit", json={"seat": 0, "name": "x"})
    check(
        r1.status_code != 500 and r2.status_code == 404,
        "sit on taken seat vs unknown table",
        f"{r1.status_code} {r1.json().get('code')} / {r2.status_code}",
    )
    game = c.post("/api/games", json={"variant": "short"}).json()
    alike(srv, "hello", "game", (game["game"], game["token"]), "nosuchgame12")


def alike(srv: Server, kind: str, key: str, real: tuple[str, str], unknown: str) -> None:
    """A wrong token for a real id (``real``: id and token) and any token for an ``unknown``
    id get the same answer to a ``kind`` message naming a ``key`` (table or game)."""
    wrong = "wrong-token-123456"
    got = [
        first_reply(srv, json.dumps({"type": kind, key: ident, "token": token}))
        for ident, token in ((real[0], wrong), (unknown, real[1]), (unknown, wrong))
    ]
    check(
        len(set(got)) == 1 and '"error"' in got[0],
        f"wrong {key} token vs unknown {key} (WS {kind})",
        got[0][:90],
    )


BAD_IDS = [
    "abc",
    "1e3",
    "-1",
    "0",
    "1.5",
    "99999999999999999999999999",
    "9223372036854775808",
    "%EF%BC%91",
    "%D9%A3",
    "%F0%9F%82%A1",
    "%00",
    "%0A",
    "..%2F..%2Fetc%2Fpasswd",
    "x" * 5000,
    "1" * 500,
    "%25",
    "'or'1'='1",
    "%22%3E%3Cscript%3E",
]


def routes(srv: Server) -> None:
    from fifteentwo.web import create_app

    app = create_app(":memory:")
    templates = sorted(
        {getattr(r, "path", "") for r in app.routes if "{" in getattr(r, "path", "")}
        | {"/static/{path}"}
    )
    c = srv.client()
    worst: list[str] = []
    count = 0
    for template in templates:
        for bad in BAD_IDS:
            path = re.sub(r"\{[^}]+\}", bad, template)
            for method in ("GET", "POST"):
                r = c.request(method, path, json={})
                count += 1
                if r.status_code >= 500:
                    worst.append(f"{method} {path[:60]} {r.status_code}")
    check(
        not worst,
        f"bad route ids: {len(templates)} routes x {len(BAD_IDS)} ids x GET/POST "
        f"({count} requests) never 5xx",
        "; ".join(worst[:5]) or ", ".join(templates),
    )
    log = srv.logtext()
    check("Traceback" not in log, "no traceback in the server's log after the bad ids")


PAGES = [
    "/",
    "/t/abc",
    "/t/abc/watch/def",
    "/leaderboard",
    "/history",
    "/review/1",
    "/static/app.js",
    "/static/style.css",
    "/api/options",
    "/api/me",
    "/api/lobby",
    "/api/leaderboard",
    "/api/history",
    "/api/games",
    "/api/me/history",
    "/api/me/ratings",
    "/api/tables/nosuch",
    "/api/history/1/review",
    "/nowhere",
    "/healthz",
    "/readyz",
    "/metrics",
]


def headers_(srv: Server) -> None:
    c = srv.client()
    missing = []
    requests = [("GET", p) for p in PAGES] + [
        ("POST", p)
        for p in ("/api/login", "/api/register", "/api/tables", "/api/games", "/api/logout")
    ]
    for method, path in requests:
        for origin in (srv.url, "https://evil.example"):
            r = c.request(method, path, json={}, headers={"origin": origin})
            h = r.headers
            csp = h.get("content-security-policy", "")
            if not (
                "frame-ancestors 'none'" in csp
                and "script-src 'self'" in csp
                and "unsafe-inline" not in csp
                and h.get("referrer-policy") == "same-origin"
                and h.get("x-content-type-options") == "nosniff"
            ):
                missing.append(f"{method} {path} {r.status_code}")
    check(
        not missing,
        f"CSP (no inline script, frame-ancestors 'none'), Referrer-Policy, "
        f"nosniff on {len(requests) * 2} answers",
        "; ".join(missing[:5]),
    )
    page = c.get("/").text
    inline = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", page) + re.findall(r"\son\w+=", page)
    check(not inline and "<style" not in page, "the page has no inline script, handler or style")


def limits(proxied: Server) -> None:
    # proxied: --trusted-proxy 127.0.0.2, defaults: login 10/60, register 10/60, tables 20/60,
    # accounts 3/3600
    lb = proxied.client(source="127.0.0.2")
    tag = secrets.randbelow(250) + 1

    def codes(path: str, n: int, xff: str, body: Any) -> list[int]:
        return [
            forwarded(lb, path, xff, body() if callable(body) else body).status_code
            for _ in range(n)
        ]

    guess = guessing()
    a = codes("/api/login", 11, f"203.0.113.{tag}", guess)
    b = codes("/api/login", 1, f"203.0.114.{tag}", guessing())
    check(
        a[:10] == [401] * 10 and a[10] == 429 and b == [401],
        "login limit per client behind a trusted proxy (10/min), others unaffected",
        f"{a[-2:]} {b}",
    )
    c = codes(
        "/api/login",
        11,
        f"203.0.115.{tag}",
        lambda: {"username": guess["username"], "password": "x" * 9},
    )
    check(c[0] == 429, "login limit per username across client addresses", str(c[:2]))
    direct = proxied.client(source="127.0.0.1")
    spoof = [
        forwarded(direct, "/api/login", f"198.18.{i}.1", guessing()).status_code for i in range(11)
    ]
    check(
        spoof[:10] == [401] * 10 and spoof[10] == 429,
        "X-Forwarded-For from an untrusted peer is ignored (no escape from the limit)",
        str(spoof[-2:]),
    )
    table = {"variant": "short", "seats": [{"kind": "person"}, {"kind": "computer"}]}
    t = codes("/api/tables", 21, f"203.0.116.{tag}", table)
    check(
        t[:20] == [201] * 20 and t[20] == 429,
        "table creation limit per client (20/min)",
        str(t[-2:]),
    )
    reg = codes(
        "/api/register",
        4,
        f"203.0.117.{tag}",
        lambda: {"username": fresh("new", 4), "password": PASSWORD},
    )
    check(reg == [201, 201, 201, 429], "accounts per address per hour (3)", str(reg))
    probe = codes(
        "/api/register", 11, f"203.0.118.{tag}", {"username": "mallory", "password": PASSWORD}
    )
    check(
        probe[:10] == [400] * 10 and probe[10] == 429,
        "registration attempts per client (10/min), taken-name probes included",
        str(probe[-2:]),
    )
    r = forwarded(
        lb, "/api/register", f"203.0.119.{tag}", {"username": "mallory", "password": PASSWORD}
    )
    check("taken" not in r.text, "registration of a name in use", r.json().get("message", ""))
    names = [(fresh("nobody"), PASSWORD), ("mallory", "wrong password here")]
    got = [
        forwarded(lb, "/api/login", f"203.0.120.{tag + i}", {"username": u, "password": p})
        for i, (u, p) in enumerate(names)
    ]
    check(
        got[0].status_code == got[1].status_code == 401 and got[0].json() == got[1].json(),
        "login: unknown user and wrong password answer alike",
        got[0].text,
    )


def forwarded(cl: httpx2.Client, path: str, xff: str, body: Any) -> httpx2.Response:
    """A POST of ``body`` that says it was forwarded for client address ``xff``."""
    return cl.post(path, json=body, headers={"x-forwarded-for": xff})


def guessing() -> dict[str, str]:
    """A login guess for a name nobody has."""
    return {"username": fresh("nobody"), "password": "guess guess"}


def passwords(srv: Server) -> None:
    c = srv.client()
    refused = []
    for pw in (
        "password",
        "Password1",
        "12345678",
        "iloveyou",
        "qwertyuiop",
        "football",
        "baseball",
        "trustno1",
        "sunshine",
        "  password  ",
    ):
        r = c.post("/api/register", json={"username": fresh("pw"), "password": pw})
        refused.append(r.status_code == 400)
    check(all(refused), "the most common passwords are refused", f"{sum(refused)}/{len(refused)}")
    long = ("the quick brown fox jumps over the lazy dog while the cribbage board waits " * 3)[:200]
    name = fresh("long")
    r = c.post("/api/register", json={"username": name, "password": long})
    r2 = login(srv.client(), name, long)
    check(
        r.status_code == 201 and r2.status_code == 200,
        "a 200-character passphrase",
        f"{r.status_code} {r2.status_code}",
    )
    r = c.post("/api/register", json={"username": fresh("huge"), "password": "ü" * 600})
    check(
        r.status_code == 400,
        "a 600-character password is refused with the rule",
        str(r.status_code),
    )


def play_table(c: httpx2.Client, srv: Server, table: str, token: str) -> dict[str, Any]:
    return play_out(srv, join(table, token), 5000)


def play_out(srv: Server, hello: str, turns: int) -> dict[str, Any]:
    """Play a game or a table to its end (or ``turns`` messages) with the tests' policy, from
    the page: ``hello`` is the join or hello message; the last state."""
    with srv.ws(max_size=2**20) as ws:
        ws.send(hello)
        state: dict[str, Any] = json.loads(ws.recv(timeout=30))
        for _ in range(turns):
            if state.get("over"):
                break
            if state.get("waiting"):
                ws.send(
                    json.dumps(
                        {"type": "act", "decision": state["decision"], "action": choose(state)}
                    )
                )
            msg = json.loads(ws.recv(timeout=30))
            if msg.get("type") == "state":
                state = msg
    return state


def ratings(srv: Server) -> None:
    (ann, an), (bob, _bn) = players(srv, "rann", "rbob")
    made = new_table(ann, away_seconds=1)
    info = ann.get(f"/api/tables/{made['table']}").json()
    check(
        info.get("ratable") and "forfeit" in (info.get("rating_rule") or ""),
        "the rating rule is shown at the table before the game starts",
        (info.get("rating_rule") or "")[:70],
    )
    sit_and_leave(bob, made["table"])
    state = play_table(ann, srv, made["table"], made["token"])
    deadline = time.monotonic() + 30
    while (
        (b := bob.get("/api/me").json())["rated_games"] < 1
        or ann.get("/api/me").json()["rated_games"] < 1
    ) and time.monotonic() < deadline:
        time.sleep(0.2)
    a = ann.get("/api/me").json()
    bchanges = bob.get("/api/me/ratings").json()["changes"]
    achanges = ann.get("/api/me/ratings").json()["changes"]
    check(
        state.get("over")
        and b["rating"] < 1500
        and bchanges[0]["outcome"] == "forfeit"
        and bchanges[0]["after"] <= bchanges[0]["before"],
        "a side that leaves a rated game cannot gain (forfeit)",
        f"bob {bchanges[0]['before']:.0f}->{bchanges[0]['after']:.0f} {bchanges[0]['outcome']}",
    )
    check(
        len(achanges) == 1 and set(achanges[0]) >= {"before", "after", "game"},
        "rating history on the account page (/api/me/ratings)",
        json.dumps(achanges[0])[:90],
    )
    board = ann.get("/api/leaderboard").json()
    names = [p["username"] for p in board["players"]]
    check(
        board["min_games"] == 5
        and an not in names
        and not a["on_leaderboard"]
        and all(p["rated_games"] >= 5 and "rd" in p for p in board["players"]),
        "leaderboard: at least 5 rated games, with RD",
        f"min_games={board['min_games']}",
    )


def devices(srv: Server) -> None:
    ((one, name),) = players(srv, "dev")
    game = one.post("/api/games", json={"variant": "short", "level": "greedy"}).json()
    hello = json.dumps({"type": "hello", "game": game["game"], "token": game["token"]})
    state = play_out(srv, hello, 3000)
    row = state["finished"][0] if state.get("finished") else None
    two = srv.client()  # another device: its own cookie jar
    login(two, name)
    hist = two.get("/api/history").json()
    mine = two.get("/api/me/history").json()
    rows = [g.get("row", g.get("id")) for g in hist.get("games", [])]
    review = two.get(f"/api/history/{row}/review")
    stranger = srv.client().get(f"/api/history/{row}/review")
    check(
        state.get("over")
        and row in rows
        and review.status_code == 200
        and bool(hist.get("totals") or hist.get("stats"))
        and len(mine.get("games", [])) >= 1,
        "a computer game played logged in: history, statistics, review on another device",
        f"row {row}; review {review.status_code}; keys {sorted(hist)}",
    )
    check(
        stranger.status_code == 404,
        "... and not for a stranger's browser",
        str(stranger.status_code),
    )
    # a table game: review from each player's other device
    (ann, an), (bob, bn) = players(srv, "tann", "tbob")
    made = new_table(ann, away_seconds=1, rated=False)
    sit_and_leave(bob, made["table"])
    play_table(ann, srv, made["table"], made["token"])
    time.sleep(1.0)
    ok = []
    for pw_name in (an, bn):
        other = srv.client()
        login(other, pw_name)
        games = other.get("/api/me/history").json().get("games", [])
        if not games:
            ok.append("no games")
            continue
        g = games[0]
        row = g.get("row", g.get("id"))
        ok.append(str(other.get(f"/api/history/{row}/review").status_code))
    check(
        ok == ["200", "200"], "a table game's review opens from each player's other device", str(ok)
    )


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="hostile-"))
    roomy = [
        "--rate-limit",
        "accounts=10000/3600",
        "--rate-limit",
        "register=10000/60",
        "--rate-limit",
        "login=10000/60",
        "--rate-limit",
        "tables=10000/60",
    ]
    srv = Server(work, *roomy)
    proxied = Server(work, "--trusted-proxy", "127.0.0.2")
    alone = (forged_requests, websockets_, sessions, answers, routes, headers_, passwords)
    steps: list[tuple[Callable[..., None], tuple[Server, ...]]] = [
        *((step, (srv,)) for step in (*alone, ratings, devices)),
        (cookie_flags, (srv, proxied)),  # (the steps' order is the check's order of old)
        (limits, (proxied,)),
    ]
    try:
        for step, servers in steps:
            try:
                step(*servers)
            except Exception as exc:
                check(False, f"{step.__name__} crashed", repr(exc)[:200])
        if "--no-lifetimes" not in sys.argv:
            lifetimes(work)
    finally:
        srv.stop()
        proxied.stop()
    bad = [r for r in RESULTS if not r[0]]
    print(f"\n{len(RESULTS) - len(bad)}/{len(RESULTS)} attacks refused or answered right")
    print("logs in", work)
    if bad:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
