"""The statistics screen: your results from the history, as `app.statistics` computes them.

Games and win rate per opponent level and variant, skunks, average points per deal by role
(hand, crib, pegging), best hand, streaks, and a chart of the recent games' margins.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from fifteentwo.app.history import History, HistoryError
from fifteentwo.app.statistics import HISTORY_GAMES, compute_statistics, statistics_renderable
from fifteentwo.store import Store

__all__ = ["StatisticsScreen"]


class StatisticsScreen(Screen[None]):
    """Your statistics; escape (or q, s, enter) returns."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,s,enter", "close", "Back"),
    ]

    def __init__(self, store: Store | None) -> None:
        super().__init__(id="statistics")
        self.store = store
        self.content: RenderableType = self._content()

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="statistics-box"):
            yield Static(self.content, id="statistics-text")
        yield Footer(compact=True, show_command_palette=False)

    def help_title(self) -> str:
        """The key help's heading here."""
        return "Keys of the statistics"

    def help_notes(self) -> list[str]:
        """Under the keys in the key help."""
        return ["↑ ↓ (page up/down) scroll."]

    def on_mount(self) -> None:
        self.query_one("#statistics-box").focus()

    def _content(self) -> RenderableType:
        if self.store is None:
            return Text("No history: games are not being saved (see the warning at start-up).")
        try:
            rows = History(store=self.store).games(HISTORY_GAMES)
        except HistoryError as exc:
            return Text(f"The history cannot be read: {exc}")
        return statistics_renderable(compute_statistics(rows))

    def action_close(self) -> None:
        """Back to the start screen."""
        self.dismiss(None)
