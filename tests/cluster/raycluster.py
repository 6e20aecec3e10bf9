"""A real local Ray cluster for the cluster tests: a head on 127.0.0.1 started with ``ray start``
(the helpers; the fixtures are in conftest.py).

Ray's servers bind to the node's address; ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` keeps that
address the loopback one (single-machine mode), so nothing the tests start listens beyond
127.0.0.1 (checked after every cluster start). The dashboard is off, usage stats are off, and
every process of the cluster (found by its temporary directory) is ended when the tests finish.

The Ray tests run only when Ray is installed (``make test-cluster`` installs the extra) and not
under pytest-xdist (``make test``): one cluster at a time on a two-core machine.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

RAY_ENV = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # node address 127.0.0.1, bind to it
    "RAY_USAGE_STATS_ENABLED": "0",
}


def ray_available() -> bool:
    """Whether the Ray tests can run here."""
    # Not imported here: Ray reads RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER when it is first imported.
    if importlib.util.find_spec("ray") is None:
        return False
    return "PYTEST_XDIST_WORKER" not in os.environ


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ray_bin() -> str:
    return str(Path(sys.executable).with_name("ray"))


@dataclass
class RayHead:
    """A running head node: its address, CPU count and temporary directory."""

    address: str
    cpus: int
    tmp: str

    def pids(self) -> list[int]:
        """Every process of this cluster: the ones started with our temporary directory in
        their command line, and their children (the worker processes)."""
        mine: set[int] = set()
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            parents[pid] = int(stat.rsplit(")", 1)[1].split()[1])
            if self.tmp.encode() in cmd:
                mine.add(pid)
        grew = True
        while grew:
            grew = False
            for pid, parent in parents.items():
                if parent in mine and pid not in mine:
                    mine.add(pid)
                    grew = True
        return sorted(mine)

    def workers(self) -> list[int]:
        """The worker processes (titled ``ray::...``, children of the raylet), the ones busy
        with a chunk (titled after the task's function, ``ray::_call``) first."""
        busy, idle = [], []
        for pid in self.pids():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if cmd.startswith(b"ray::_call"):
                busy.append(pid)
            elif cmd.startswith(b"ray::IDLE"):
                idle.append(pid)
        return busy + idle

    def listening(self) -> list[str]:
        """Local addresses of the TCP sockets this cluster listens on (hex from /proc)."""
        inodes: set[str] = set()
        for pid in self.pids():
            with contextlib.suppress(OSError):
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    with contextlib.suppress(OSError):
                        target = os.readlink(f"/proc/{pid}/fd/{fd}")
                        if target.startswith("socket:["):
                            inodes.add(target[8:-1])
        out = []
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:  # LISTEN
                    out.append(fields[1])
        return out

    def stop(self) -> None:
        """End every process of this cluster (TERM, then KILL), and remove its directory."""
        for sig, grace in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
            pids = self.pids()
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + grace
            while self.pids() and time.monotonic() < deadline:
                time.sleep(0.1)
        shutil.rmtree(self.tmp, ignore_errors=True)


def is_loopback(hex_address: str) -> bool:
    host = hex_address.split(":", maxsplit=1)[0]
    if len(host) == 8:  # IPv4, little-endian bytes: 127.x.x.x ends with 7F
        return host.endswith("7F")
    ipv4_mapped_127 = host.startswith("0000000000000000FFFF0000") and host.endswith("7F")
    return ipv4_mapped_127 or host == "00000000000000000000000001000000"  # ::ffff:127.x, ::1


def start_head(cpus: int) -> RayHead:
    """``ray start --head`` on 127.0.0.1 with ``cpus`` CPUs (so that many worker processes)."""
    tmp = tempfile.mkdtemp(prefix="ft-ray-", dir="/tmp")  # short: Ray's socket paths are long
    port = _free_port()
    here = str(Path(__file__).parent)  # the workers import the tests' bots (badbots)
    path = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, **RAY_ENV, "RAY_TMPDIR": tmp, "PYTHONPATH": path}
    command = [
        _ray_bin(),
        "start",
        "--head",
        "--node-ip-address=127.0.0.1",
        f"--port={port}",
        f"--num-cpus={cpus}",
        "--num-gpus=0",
        "--include-dashboard=false",
        "--disable-usage-stats",
        f"--temp-dir={tmp}",
    ]
    head = RayHead(f"127.0.0.1:{port}", cpus, tmp)
    try:
        done = subprocess.run(
            command, check=False, env=env, capture_output=True, text=True, timeout=90
        )
    except subprocess.TimeoutExpired:
        head.stop()
        raise
    if done.returncode:
        head.stop()
        raise RuntimeError(f"ray start failed: {done.stderr[-2000:]}")
    return head
