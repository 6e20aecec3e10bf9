"""Screens over the table: a question with keyed answers, the keys help, and the rules pager."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.markup import escape
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, MarkdownViewer, Static

from fifteentwo.app.launch import command_hint

__all__ = ["HELP_TEXT", "HelpScreen", "QuestionScreen", "RulesScreen"]


class QuestionScreen(ModalScreen[str]):
    """Ask one question; answer with a key (``y``/``n``, ``s``/``l``) or by clicking a button.

    Dismisses with the chosen key.
    """

    def __init__(self, question: str, answers: Sequence[tuple[str, str]]) -> None:
        super().__init__(classes="question")
        self.question = question
        self.answers = list(answers)

    def compose(self) -> ComposeResult:
        with Vertical(id="question-box"):
            yield Static(self.question, id="question-text")
            with Horizontal(id="question-buttons"):
                for key, label in self.answers:
                    yield Button(label, id=f"answer-{key}", compact=True)

    def on_key(self, event: events.Key) -> None:
        keys = [key for key, _ in self.answers]
        if event.key in keys:
            event.stop()
            self.dismiss(event.key)
        elif event.key == "enter" and self.focused is None:
            event.stop()
            self.dismiss(keys[0])

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        assert event.button.id is not None
        self.dismiss(event.button.id.removeprefix("answer-"))


HELP_TEXT = """\
[b]Keys[/b]

  [b]1[/b]-[b]6[/b]          pick a card (discard: choose; play: lay it)
  [b]←[/b] [b]→[/b]          move between cards
  [b]space[/b]        choose / play the card under the cursor
  [b]enter[/b]        lay away the chosen cards; play; continue
                 (the show: on to the next hand)
  [b]g[/b]            say go (five-card: decline to play on)
  [b]y[/b] / [b]n[/b]        answer a question (another game? muggins?)
  [b]?[/b]            this help
  [b]r[/b]            the rules of cribbage
  [b]h[/b]            a hint: the best choice here and why
  [b]u[/b]            take back your last decision (not when counting
                 by hand with muggins; the game notes take-backs;
                 shown in the key bar only when it can act)
  [b]q[/b]            quit; the game is saved
                 (resume with [b]{resume}[/b])

[b]Mouse[/b]: click a card to choose or play it; click the keys below.
[b]Cutting[/b]: ← → (page up/down by 5) choose how deep, enter cuts.
[b]Counting by hand[/b]: type your total and press enter.
"""


class HelpScreen(ModalScreen[None]):
    """The keys, over the table."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q,enter,space", "close", "Close"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(
                HELP_TEXT.format(resume=escape(command_hint("play --resume"))), id="help-text"
            )
            yield Static("[dim]esc, ? or enter to close[/dim]", id="help-close")

    def action_close(self) -> None:
        """Back to the table."""
        self.dismiss(None)

    def on_click(self, event: events.Click) -> None:
        if event.widget is self:
            self.dismiss(None)


class RulesScreen(Screen[None]):
    """The rules of cribbage in a scrollable pager."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,r", "close", "Back to the game"),
        Binding("space", "page_down", "Page down", show=False),
        Binding("b", "page_up", "Page up", show=False),
    ]

    def __init__(self, markdown: str) -> None:
        super().__init__()
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        yield Static(
            "[b]Rules of cribbage[/b]  [dim]↑ ↓ page up/down to read; esc to return[/]",
            id="rules-title",
        )
        yield MarkdownViewer(self.markdown, show_table_of_contents=False, id="rules-viewer")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one(MarkdownViewer).focus()

    def action_close(self) -> None:
        """Back to the game."""
        self.dismiss(None)

    def action_page_down(self) -> None:
        """Scroll a page on."""
        self.query_one(MarkdownViewer).scroll_page_down()

    def action_page_up(self) -> None:
        """Scroll a page back."""
        self.query_one(MarkdownViewer).scroll_page_up()
