"""Optional compiled build: ``FIFTEENTWO_COMPILE=1`` compiles the game engine with mypyc.

Everything is configured in pyproject.toml; this file only adds the compiled modules when asked.
An ordinary install (``make play``, ``make test``, ``pip install .``) is pure Python and needs no
C compiler. ``make compiled`` builds the compiled engine into its own virtual environment; see
docs/speed.md for why, what it gains and how it is tested.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup

COMPILED = [
    "src/fifteentwo/actions.py",
    "src/fifteentwo/app/describe.py",
    "src/fifteentwo/app/session.py",
    "src/fifteentwo/cards.py",
    "src/fifteentwo/engine/deal.py",
    "src/fifteentwo/engine/play.py",
    "src/fifteentwo/engine/show.py",
    "src/fifteentwo/engine/state.py",
    "src/fifteentwo/game.py",
    "src/fifteentwo/observation.py",
    "src/fifteentwo/scoring.py",
    "src/fifteentwo/web/session.py",
    "src/fifteentwo/web/view.py",
]
"""The modules mypyc compiles: the state machine (`game` and its parts in `engine`), the scoring
it calls, the cards, actions, events and observations it reads and builds on every step, the
session that plays and stores a game (`app.session`, and the web server's `web.session`, its
subclass: a compiled class may be subclassed only in its own group), and the web server's event
sentences and state messages (`app.describe`, `web.view`; docs/speed.md). They are compiled
together, as one group, so calls between them are C calls."""


def compiled_modules() -> list[object]:
    if os.environ.get("FIFTEENTWO_COMPILE") != "1":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        sys.exit(
            "FIFTEENTWO_COMPILE=1 needs mypy (which brings mypyc) in the build environment: "
            "pip install . mypy setuptools wheel, then FIFTEENTWO_COMPILE=1 pip install "
            "--no-build-isolation --no-deps --force-reinstall . (or: make compiled)"
        )
    return list(mypycify(COMPILED, opt_level="3"))


setup(ext_modules=compiled_modules())
