"""The Textual cribbage app (``cribbage play`` without ``--plain``).

`run_tui` is what the CLI calls; `make_app` builds the same app for tests and other callers.
The app draws the table and asks the player; every rule is the engine's.
"""

from __future__ import annotations

from collections.abc import Callable

from fifteentwo.app.options import PlayOptions
from fifteentwo.app.session import Session
from fifteentwo.rules import Rules
from fifteentwo.store import Store
from fifteentwo.tui.app import CribbageApp, Settings
from fifteentwo.tui.state import saved_message

__all__ = ["CribbageApp", "Settings", "make_app", "run_tui", "saved_message"]


def make_app(
    make_session: Callable[[Rules], Session],
    options: PlayOptions,
    resume: Session | None = None,
    *,
    menu: bool = False,
    offer: Session | None = None,
    store: Store | None = None,
) -> CribbageApp:
    """The app, ready to run: new games come from ``make_session``; ``resume`` continues one.
    With ``menu`` it opens on the start screen, which offers ``offer`` to continue and reads
    and remembers its choices in ``store``."""
    return CribbageApp(make_session, options, resume, menu=menu, offer=offer, store=store)


def run_tui(
    make_session: Callable[[Rules], Session],
    *,
    options: PlayOptions,
    resume: Session | None = None,
    menu: bool = False,
    offer: Session | None = None,
    store: Store | None = None,
) -> int:
    """Play in the terminal until the player quits; returns the exit code."""
    app = make_app(make_session, options, resume, menu=menu, offer=offer, store=store)
    result = app.run()
    if app.return_code not in (None, 0):
        return app.return_code
    return 0 if result is None else result
