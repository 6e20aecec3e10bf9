"""Table talk: short text messages and quick phrases at a table (docs/web.md, "Table talk").

A message is plain text: trimmed, control and formatting characters removed, at most
`MAX_CHARS` characters; the page shows it with ``textContent``, so markup stays text. The
people in the seats talk in the table's channel, which everyone there reads; spectators read it
too but speak only in the spectators' channel, which the seats never see (no kibitzing). Each
person may send `LIMIT` messages per `WINDOW` seconds, counted across every server process
(Redis) when there are several. The newest `HISTORY` messages are kept with the table in the
store, so a reload shows them. Muting is the reader's: the page hides a muted speaker.
"""

from __future__ import annotations

import hashlib
import time
import unicodedata
import uuid
from collections import deque
from typing import Any, Final

__all__ = [
    "HISTORY",
    "LIMIT",
    "MAX_CHARS",
    "PHRASES",
    "WINDOW",
    "LocalRate",
    "RedisRate",
    "clean_text",
    "make_message",
    "speaker_id",
    "visible_to",
]

MAX_CHARS: Final = 200
HISTORY: Final = 50
LIMIT: Final = 5
WINDOW: Final = 10.0
PHRASES: Final = {
    "gg": "good game",
    "nice": "nice hand",
    "gl": "good luck",
    "wp": "well played",
    "thanks": "thanks",
}
"""The quick phrases, by the key a client sends."""
SEATS: Final = "table"
SPECTATORS: Final = "spectators"


def clean_text(text: str) -> str:
    """The text as it is shown: control, format and private-use characters removed (bidi
    overrides and zero-width tricks too), whitespace runs made one space, trimmed, cut to
    `MAX_CHARS` characters. Empty when nothing readable is left."""
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if ch.isspace():
            kept.append(" ")
        elif category[0] == "C":  # Cc control, Cf format, Cs surrogate, Co private, Cn unassigned
            continue
        else:
            kept.append(ch)
    return " ".join("".join(kept).split())[:MAX_CHARS].strip()


def speaker_id(person: str) -> str:
    """A stable id for a person that reveals nothing of their key (what a mute list keeps)."""
    return hashlib.sha256(("talk:" + person).encode("utf-8")).hexdigest()[:16]


def make_message(
    person: str, name: str, seat: int, text: str, *, phrase: str | None = None
) -> dict[str, Any]:
    """One message as it is stored and sent (``seat`` -1 for a spectator)."""
    return {
        "id": uuid.uuid4().hex[:16],
        "at": round(time.time(), 3),
        "speaker": speaker_id(person),
        "name": name,
        "seat": seat,
        "channel": SPECTATORS if seat < 0 else SEATS,
        "text": text,
        "phrase": phrase,
    }


def visible_to(message: dict[str, Any], seat: int) -> bool:
    """Whether a seat (or a spectator, seat < 0) reads this message."""
    return message.get("channel") == SEATS or seat < 0


class LocalRate:
    """`LIMIT` per `WINDOW` per person, in one process (a sliding log of times)."""

    def __init__(self, limit: int = LIMIT, window: float = WINDOW) -> None:
        self.limit, self.window = limit, window
        self._sent: dict[str, deque[float]] = {}

    async def allow(self, person: str) -> bool:
        """Count one message; False (and nothing counted) when past the limit."""
        now = time.monotonic()
        times = self._sent.setdefault(person, deque())
        while times and now - times[0] >= self.window:
            times.popleft()
        if len(times) >= self.limit:
            return False
        times.append(now)
        if len(self._sent) > 10_000:  # forget people who stopped talking
            for key in [k for k, v in self._sent.items() if not v or now - v[-1] >= self.window]:
                del self._sent[key]
        return True


_SLIDING: Final = """
local key, now, window, limit, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]),
  tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if redis.call('ZCARD', key) >= limit then return 0 end
redis.call('ZADD', key, now, member)
redis.call('PEXPIRE', key, math.ceil(window * 1000))
return 1
"""


class RedisRate:
    """The same limit counted in Redis, so every process sees every message (a sorted set of
    send times per person, trimmed and checked in one atomic script)."""

    def __init__(
        self, client: Any, prefix: str, limit: int = LIMIT, window: float = WINDOW
    ) -> None:
        self.client, self.prefix = client, prefix
        self.limit, self.window = limit, window
        self._script = client.register_script(_SLIDING)

    async def allow(self, person: str) -> bool:
        """Count one message; False (and nothing counted) when past the limit."""
        key = f"{self.prefix}:talk-rate:{speaker_id(person)}"
        now = time.time()
        done = await self._script(
            keys=[key], args=[now, self.window, self.limit, f"{now}:{uuid.uuid4().hex[:8]}"]
        )
        return bool(int(done))
