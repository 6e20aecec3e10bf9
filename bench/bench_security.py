"""What issue 35's defences cost, and whether login timing tells names apart.

Reported (in-process ASGI client, one SQLite store; figures vary with the machine):

- login with an unknown username vs. a known one with a wrong password: median time of each and
  their ratio (should be near 1.0: both do one argon2 verification, the unknown one against a
  dummy hash, so timing does not reveal which names exist);
- ``GET /api/options`` (no session) vs. ``GET /api/me`` (reads the session from the store):
  the median cost of a request and of the session lookup that every identified request pays.

    python bench/bench_security.py [--rounds 40]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from starlette.testclient import TestClient

from fifteentwo.store import open_store
from fifteentwo.web import create_app
from fifteentwo.web.security import DEFAULT_LIMITS, Limit, SecurityConfig

SITE = "http://testserver"


def median_ms(rounds: int, call: Callable[[], object]) -> float:
    """Median wall time of ``call`` in milliseconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    many = {name: Limit(10**6, 60.0) for name in DEFAULT_LIMITS}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "games.sqlite3"
        app = create_app(lambda: open_store(path), workers=2, security=SecurityConfig(limits=many))
        with TestClient(app, headers={"origin": SITE}) as client:
            made = client.post(
                "/api/register", json={"username": "ann", "password": "a long pass phrase"}
            )
            assert made.status_code == 201
            # Interleaved, so a change in the machine's load touches both alike.
            unknown_times: list[float] = []
            wrong_times: list[float] = []
            for _ in range(args.rounds):
                for name, into in (("nobody", unknown_times), ("ann", wrong_times)):
                    body = {"username": name, "password": "x" * 12}
                    into.append(
                        median_ms(1, lambda body=body: client.post("/api/login", json=body))
                    )
            unknown, wrong = statistics.median(unknown_times), statistics.median(wrong_times)
            plain = median_ms(args.rounds * 5, lambda: client.get("/api/options"))
            session = median_ms(args.rounds * 5, lambda: client.get("/api/me"))
    print(f"login, unknown username:  {unknown:7.1f} ms (median of {args.rounds})")
    print(f"login, wrong password:    {wrong:7.1f} ms")
    print(f"ratio unknown / wrong:    {unknown / wrong:7.3f}")
    print(f"GET /api/options:         {plain:7.2f} ms (no session read)")
    print(f"GET /api/me:              {session:7.2f} ms (session read from the store)")


if __name__ == "__main__":
    main()
