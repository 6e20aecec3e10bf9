"""The web server's `Session`: the terminal game's session with the web settings (the token's
hash, the coach) kept in its save, and its store time told apart from the computers' thinking.

A module of its own so that the compiled build (``make compiled``, setup.py) compiles it with
`fifteentwo.app.session`: mypyc lets a class compiled in one group be subclassed only by
another compiled in it (docs/speed.md).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from fifteentwo.actions import Action, Event
from fifteentwo.app.session import Session

__all__ = ["WebSession"]


@dataclass
class WebSession(Session):
    """A `Session` that keeps the web settings (the token's hash, the coach) in its save."""

    web: dict[str, Any] = field(default_factory=dict)
    save_seconds: float = 0.0
    """Time spent writing to the store (so a reply's ``think_ms`` counts computers only)."""

    def save(self) -> None:
        """`Session.save`, timed."""
        started = time.perf_counter()
        try:
            super().save()
        finally:
            self.save_seconds += time.perf_counter() - started

    def timed_act(self, action: Action) -> tuple[list[Event], float]:
        """`Session.act` and the seconds it spent outside the store (the engine and the
        computers: the reply's ``think_ms``; waiting for a worker is not counted)."""
        started, saving = time.perf_counter(), self.save_seconds
        events = self.act(action)
        return events, time.perf_counter() - started - (self.save_seconds - saving)

    def decision_first(self) -> bool:
        """Store a person's decision before the computers think only when one of them is a
        slow level (the expert searches for up to a second); the quick levels' reply is
        stored with the decision in one transaction, which halves the store's work per
        action. A process killed in that millisecond loses the decision as it would one
        killed while reading the message: the page is answered by no state, reconnects and
        shows the decision still to make."""
        return not all(getattr(p, "quick", False) for p in self.players.values())

    def extra_json(self) -> dict[str, Any]:
        """The web settings, beside the save and in every step."""
        return {"web": dict(self.web)}

    def load_extra(self, data: dict[str, Any]) -> None:
        """The web settings, from the save being resumed."""
        web = data.get("web")
        self.web = dict(web) if isinstance(web, dict) else {}
