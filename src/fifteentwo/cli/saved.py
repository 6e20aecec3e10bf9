"""``cribbage saved``: the games in progress in the store, most recently played first.

Each line names a game (id, opponent, variant, score, when) so ``cribbage play --resume ID``
can continue it; ``--json`` prints the same as a list.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fifteentwo.app.describe import game_name
from fifteentwo.app.launch import command_hint
from fifteentwo.app.saves import open_game_store, scores_text, when_text
from fifteentwo.errors import FifteenTwoError
from fifteentwo.store import SavedGame, StoreError


def register(subparsers: Any) -> None:
    """Add the ``saved`` subcommand."""
    parser = subparsers.add_parser(
        "saved",
        help="list your saved games (continue one with: cribbage play --resume ID)",
        description=(
            "The games in progress, most recently played first: id, opponent, variant, score "
            "and when last played. 'cribbage play --resume' continues the first; "
            "'cribbage play --resume ID' any of them."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print a JSON list instead")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the saved games as a table or JSON."""
    try:
        store = open_game_store()
        games = store.list_games()
    except StoreError as exc:
        raise FifteenTwoError(str(exc)) from None
    for line in store.take_notices():
        print(line, file=sys.stderr)
    if args.json:
        print(json.dumps([_json(g) for g in games]))
        return 0
    print_saved(games, Console(highlight=False))
    return 0


def _json(game: SavedGame) -> dict[str, Any]:
    """The store's fields plus the two the table shows as text (``score``, ``when``)."""
    return {**game.to_json(), "score": scores_text(game.meta), "when": when_text(game.updated_at)}


def print_saved(games: list[SavedGame], console: Console) -> None:
    """One row per saved game (text from the store is shown literally, never as markup)."""
    if not games:
        console.print(f"No saved games. Start one: {command_hint('play')}", markup=False)
        return
    table = Table(title="Saved games", title_justify="left", box=box.SIMPLE_HEAD)
    for name in ("id", "opponent", "variant", "score", "last played"):
        table.add_column(name)
    for g in games:
        meta = g.meta
        table.add_row(
            escape(g.game_id),
            escape(meta.opponent),
            escape(game_name(meta.variant, meta.target)),
            escape(scores_text(meta)),
            when_text(g.updated_at),
        )
    console.print(table)
    console.print(f"Continue one with: {command_hint('play --resume ID')}", markup=False)
