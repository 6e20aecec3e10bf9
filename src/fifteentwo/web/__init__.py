"""The browser game (front-end, layer 9): an ASGI server and the page it serves.

``cribbage serve`` runs `create_app` under uvicorn. The server drives each game through
`fifteentwo.app.session.Session`, keeps it in `fifteentwo.store` after every step, and sends each
client only its own seat's view (docs/web.md). Needs the ``web`` extra
(``pip install 'fifteentwo[web]'``).
"""

from __future__ import annotations

from fifteentwo.web.app import create_app

__all__ = ["create_app"]
