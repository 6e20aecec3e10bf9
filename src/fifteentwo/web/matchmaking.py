"""Quick match: a queue per variant (and rated or not) that seats people together.

A person asks; if enough others of the same kind are waiting, they are taken off the queue and
the asker's process makes their table; otherwise the asker joins the queue and asks again every
few seconds (`poll`), which keeps their place and brings the table once another process made
it. Taking people off the queue, joining it and cancelling are each one atomic step (a Lua
script in Redis when several processes serve; a lock in one process), so two people asking at
once on different processes are paired exactly once, and a cancelled person is never seated.

Each waiting ticket has a state: ``waiting`` (kept alive by polls: a page that stops asking
drops out after `ALIVE`), ``matched`` (taken off the queue, its table being made) and then its
seat (`deliver`), kept for `KEEP` seconds for the poll that fetches it.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Final

__all__ = ["ALIVE", "KEEP", "LocalMatchmaker", "Matchmaker", "RedisMatchmaker"]

ALIVE: Final = 20.0
"""Seconds a waiting ticket stays in the queue without a poll."""
MATCHED: Final = 60.0
"""Seconds a matched ticket waits for its seat before it counts as lost (then asked again)."""
KEEP: Final = 600.0
"""Seconds a seat waits for its ticket's poll."""


class Matchmaker:
    """The interface. Entries are dicts with at least ``ticket`` and ``person``."""

    async def ask(self, queue: str, entry: dict[str, Any], need: int) -> list[dict[str, Any]]:
        """Take ``need`` waiting entries of other people off ``queue`` (returned, oldest
        first), or, when there are not enough, put ``entry`` on it (returns [])."""
        raise NotImplementedError

    async def poll(self, ticket: str) -> dict[str, Any]:
        """``{"status": "waiting"}`` (and the place is kept), ``{"status": "matched", ...}``
        with the seat once delivered, or ``{"status": "expired"}``."""
        raise NotImplementedError

    async def cancel(self, ticket: str) -> bool:
        """Leave the queue: True if the ticket was waiting (it will never be seated); False
        if it was matched already (its seat comes with the next poll) or is unknown."""
        raise NotImplementedError

    async def deliver(self, ticket: str, seat: dict[str, Any]) -> None:
        """Hand a matched ticket its seat (the table, seat number and token)."""
        raise NotImplementedError


class LocalMatchmaker(Matchmaker):
    """One server process: the queues in memory, one step at a time under a lock."""

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._queues: dict[str, list[dict[str, Any]]] = {}
        self._state: dict[str, tuple[str, float]] = {}  # ticket -> (waiting|matched, expires)
        self._done: dict[str, tuple[dict[str, Any], float]] = {}

    def _alive(self, ticket: str, now: float) -> str | None:
        found = self._state.get(ticket)
        if found is None or found[1] <= now:
            self._state.pop(ticket, None)
            return None
        return found[0]

    async def ask(self, queue: str, entry: dict[str, Any], need: int) -> list[dict[str, Any]]:
        async with self._lock:
            now = time.monotonic()
            waiting = [e for e in self._queues.get(queue, []) if self._alive(e["ticket"], now)]
            chosen: list[dict[str, Any]] = []
            people = {entry["person"]}
            for e in waiting:
                if e["person"] not in people and self._alive(e["ticket"], now) == "waiting":
                    people.add(e["person"])
                    chosen.append(e)
                    if len(chosen) == need:
                        break
            if len(chosen) == need:
                for e in chosen:
                    waiting.remove(e)
                    self._state[e["ticket"]] = ("matched", now + MATCHED)
                self._queues[queue] = waiting
                return chosen
            waiting.append(entry)
            self._queues[queue] = waiting
            self._state[entry["ticket"]] = ("waiting", now + ALIVE)
            return []

    async def poll(self, ticket: str) -> dict[str, Any]:
        async with self._lock:
            now = time.monotonic()
            for key, (_, until) in list(self._done.items()):
                if until <= now:
                    del self._done[key]
            if ticket in self._done:
                return {"status": "matched", **self._done[ticket][0]}
            state = self._alive(ticket, now)
            if state is None:
                return {"status": "expired"}
            if state == "waiting":
                self._state[ticket] = ("waiting", now + ALIVE)
            return {"status": "waiting"}

    async def cancel(self, ticket: str) -> bool:
        async with self._lock:
            if self._alive(ticket, time.monotonic()) != "waiting":
                return False
            del self._state[ticket]
            for queue in self._queues.values():
                queue[:] = [e for e in queue if e["ticket"] != ticket]
            return True

    async def deliver(self, ticket: str, seat: dict[str, Any]) -> None:
        async with self._lock:
            self._state.pop(ticket, None)
            self._done[ticket] = (seat, time.monotonic() + KEEP)


_ASK: Final = """
local queue, ticket, person, entry = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
local need, state_prefix = tonumber(ARGV[4]), ARGV[5]
local alive_ms, matched_ms = tonumber(ARGV[6]), tonumber(ARGV[7])
local found, people = {}, {}
people[person] = true
for _, raw in ipairs(redis.call('LRANGE', queue, 0, -1)) do
  local e = cjson.decode(raw)
  if redis.call('GET', state_prefix .. e.ticket) ~= 'waiting' then
    redis.call('LREM', queue, 1, raw)
  elseif not people[e.person] and #found < need then
    people[e.person] = true
    table.insert(found, raw)
  end
end
if #found == need then
  for _, raw in ipairs(found) do
    redis.call('LREM', queue, 1, raw)
    redis.call('SET', state_prefix .. cjson.decode(raw).ticket, 'matched', 'PX', matched_ms)
  end
  return found
end
redis.call('RPUSH', queue, entry)
redis.call('PEXPIRE', queue, alive_ms * 10)
redis.call('SET', state_prefix .. ticket, 'waiting', 'PX', alive_ms)
return {}
"""

_CANCEL: Final = """
if redis.call('GET', KEYS[1]) == 'waiting' then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""

_POLL: Final = """
local done = redis.call('GET', KEYS[2])
if done then return {'done', done} end
local state = redis.call('GET', KEYS[1])
if state == 'waiting' then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1])) end
if state then return {'state', state} end
return {'state', 'expired'}
"""


class RedisMatchmaker(Matchmaker):
    """Several processes: the queues, states and seats in Redis, each step one script."""

    def __init__(self, client: Any, prefix: str) -> None:
        self.client, self.prefix = client, prefix
        self._ask = client.register_script(_ASK)
        self._cancel = client.register_script(_CANCEL)
        self._poll = client.register_script(_POLL)

    def _state_key(self, ticket: str) -> str:
        return f"{self.prefix}:quick:state:{ticket}"

    def _done_key(self, ticket: str) -> str:
        return f"{self.prefix}:quick:seat:{ticket}"

    async def ask(self, queue: str, entry: dict[str, Any], need: int) -> list[dict[str, Any]]:
        found = await self._ask(
            keys=[f"{self.prefix}:quick:queue:{queue}"],
            args=[
                entry["ticket"],
                entry["person"],
                json.dumps(entry),
                need,
                f"{self.prefix}:quick:state:",
                int(ALIVE * 1000),
                int(MATCHED * 1000),
            ],
        )
        return [json.loads(raw) for raw in found]

    async def poll(self, ticket: str) -> dict[str, Any]:
        kind, value = await self._poll(
            keys=[self._state_key(ticket), self._done_key(ticket)], args=[int(ALIVE * 1000)]
        )
        kind = kind.decode() if isinstance(kind, bytes) else str(kind)
        if kind == "done":
            seat: dict[str, Any] = json.loads(value)
            return {"status": "matched", **seat}
        state = value.decode() if isinstance(value, bytes) else str(value)
        return {"status": "expired" if state == "expired" else "waiting"}

    async def cancel(self, ticket: str) -> bool:
        return bool(int(await self._cancel(keys=[self._state_key(ticket)], args=[])))

    async def deliver(self, ticket: str, seat: dict[str, Any]) -> None:
        pipe = self.client.pipeline(transaction=True)
        pipe.set(self._done_key(ticket), json.dumps(seat), px=int(KEEP * 1000))
        pipe.delete(self._state_key(ticket))
        await pipe.execute()
