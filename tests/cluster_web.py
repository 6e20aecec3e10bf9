"""A deployed web site for tests: ``cribbage serve`` processes behind Debian's nginx.

`Site` starts N server processes on one store (PostgreSQL in a fresh schema, or SQLite for a
single process) sharing Redis and a secret, and, for two or more, an nginx of its own (temp
prefix, ``daemon off``, a free 127.0.0.1 port) balancing them round robin without stickiness,
WebSockets passed through: the set-up of docs/web.md, Deployment. `RemoteClient` gives the
web tests the surface of Starlette's TestClient over real HTTP and WebSockets, so the same test
functions run in-process and against the deployment (tests/test_web_cluster.py).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from test_web_restart import free_port

NGINX = os.environ.get("FIFTEENTWO_NGINX", "/usr/sbin/nginx")
REDIS_URL = os.environ.get("FIFTEENTWO_TEST_REDIS", "redis://127.0.0.1:6379/0")

NGINX_CONF = """\
worker_processes 1;
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    upstream fifteentwo {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://fifteentwo;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;  # with the port: the origin the browser sees
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_read_timeout 1h;
            proxy_connect_timeout 2s;
            proxy_next_upstream error timeout;
        }}
    }}
}}
"""


def nginx_problem() -> str | None:
    """Why nginx cannot be used here, or None."""
    if not Path(NGINX).exists():
        return f"no nginx at {NGINX} (apt-get install nginx)"
    return None


class Site:
    """Server processes on one store, behind nginx when there are several."""

    def __init__(
        self, db: str, work: Path, processes: int = 2, *, redis: str | None = REDIS_URL
    ) -> None:
        self.db, self.work = db, work
        self.secret = secrets.token_urlsafe(24)
        self.redis = redis if processes > 1 else None
        self.ports = [free_port() for _ in range(processes)]
        self.procs: list[subprocess.Popen[bytes] | None] = [None] * processes
        self.nginx: subprocess.Popen[bytes] | None = None
        self.port = self.ports[0]
        self.extra: list[str] = []

    # --- life cycle ------------------------------------------------------------------------

    def start(self, *extra: str) -> Site:
        """Every process (ready), then nginx in front when there are several."""
        self.extra = list(extra)
        for i in range(len(self.ports)):
            self.spawn(i)
        for i in range(len(self.ports)):
            self.wait_ready(i)
        if len(self.ports) > 1:
            self.start_nginx()
        return self

    def command(self, i: int) -> list[str]:
        cmd = [sys.executable, "-m", "fifteentwo", "serve", "--port", str(self.ports[i])]
        cmd += ["--db", self.db, f"--secret={self.secret}", "--workers", "2", *self.extra]
        if self.redis:
            cmd += ["--redis", self.redis]
        if len(self.ports) > 1:  # behind this site's nginx: its X-Forwarded-For names the client
            cmd += ["--trusted-proxy", "127.0.0.1"]
        return cmd

    def spawn(self, i: int) -> None:
        """Start process ``i`` (on its own port) without waiting for it."""
        env = {**os.environ, "FIFTEENTWO_DATA_DIR": str(self.work)}
        log = (self.work / f"serve-{i}.log").open("ab")
        self.procs[i] = subprocess.Popen(
            self.command(i), env=env, stdout=log, stderr=subprocess.STDOUT
        )
        log.close()

    def wait_ready(self, i: int, limit: float = 30.0) -> None:
        """Until process ``i`` answers 200 on /readyz."""
        deadline = time.monotonic() + limit
        proc = self.procs[i]
        assert proc is not None
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(f"server {i} exited: {self.log(i)[-2000:]}")
            try:
                url = f"http://127.0.0.1:{self.ports[i]}/readyz"
                if httpx2.get(url, timeout=2).status_code == 200:
                    return
            except httpx2.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"server {i} not ready: {self.log(i)[-2000:]}")

    def log(self, i: int) -> str:
        path = self.work / f"serve-{i}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def start_nginx(self) -> None:
        prefix = self.work / "nginx"
        prefix.mkdir(exist_ok=True)
        self.port = free_port()
        servers = "\n".join(
            f"        server 127.0.0.1:{p} max_fails=0;" for p in self.ports
        )  # max_fails=0: a restarted process is used again at once
        conf = prefix / "nginx.conf"
        conf.write_text(NGINX_CONF.format(prefix=prefix, servers=servers, port=self.port))
        err = (prefix / "stderr.log").open("ab")
        self.nginx = subprocess.Popen(
            [NGINX, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log")],
            stdout=err,
            stderr=subprocess.STDOUT,
        )
        err.close()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.nginx.poll() is not None:
                raise AssertionError((prefix / "error.log").read_text(errors="replace"))
            try:
                if httpx2.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx2.HTTPError:
                time.sleep(0.1)
        raise AssertionError("nginx did not start")

    def terminate(self, i: int, timeout: float = 30.0) -> int:
        """SIGTERM process ``i`` and wait for it: its exit status."""
        proc = self.procs[i]
        assert proc is not None
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=timeout)
        self.procs[i] = None
        return code

    def kill(self, i: int) -> None:
        proc = self.procs[i]
        assert proc is not None
        proc.kill()
        proc.wait(timeout=10)
        self.procs[i] = None

    def restart(self, i: int) -> None:
        self.spawn(i)
        self.wait_ready(i)

    def stop(self) -> None:
        """Everything this site started: nginx, then every process. nginx is stopped at once
        (SIGTERM), not gracefully (SIGQUIT waits for open WebSockets: ten seconds a test)."""
        if self.nginx is not None:
            self.nginx.send_signal(signal.SIGTERM)
            try:
                self.nginx.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.nginx.kill()
                self.nginx.wait()
            self.nginx = None
        for i, proc in enumerate(self.procs):
            if proc is not None:
                proc.kill()
                proc.wait(timeout=10)
                self.procs[i] = None
        shutil.rmtree(self.work / "nginx", ignore_errors=True)

    # --- addresses ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def client(self) -> RemoteClient:
        return RemoteClient(self)


class WebSocketDisconnected(Exception):
    """The server closed the socket (TestClient raises starlette's WebSocketDisconnect)."""

    def __init__(self, code: int | None) -> None:
        super().__init__(code)
        self.code = code


class RemoteSocket:
    """A real WebSocket with the methods the web tests use on TestClient's sockets."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    def __enter__(self) -> RemoteSocket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.ws.close()

    def send_text(self, text: str) -> None:
        self.ws.send(text)

    def send_bytes(self, data: bytes) -> None:
        self.ws.send(data)

    def send_json(self, data: Any) -> None:
        self.ws.send(json.dumps(data))

    def receive_text(self) -> str:
        try:
            message = self.ws.recv(timeout=30)
        except ConnectionClosed as exc:
            raise WebSocketDisconnected(exc.rcvd.code if exc.rcvd else None) from None
        return message if isinstance(message, str) else message.decode()

    def receive_json(self) -> Any:
        return json.loads(self.receive_text())

    def close(self, code: int = 1000) -> None:
        self.ws.close(code)


class RemoteClient(httpx2.Client):
    """An HTTP client on the site with TestClient's ``websocket_connect``."""

    def __init__(self, site: Site) -> None:
        super().__init__(base_url=site.url, headers={"origin": site.url}, timeout=30)
        self.site = self.app = site

    def websocket_connect(self, path: str, **kwargs: Any) -> RemoteSocket:
        return RemoteSocket(connect(self.site.ws_url + path, open_timeout=10, max_size=2**20))
