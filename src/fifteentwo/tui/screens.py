"""Screens over the table: a question with keyed answers, the keys help (of the screen it is
asked on, from that screen's bindings), and the rules pager."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text
from textual import events, on
from textual.actions import parse as parse_action
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, MarkdownViewer, Static

__all__ = [
    "HelpScreen",
    "KeyHelp",
    "QuestionScreen",
    "RulesScreen",
    "help_notes",
    "keys_help",
]


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


@dataclass(frozen=True, slots=True)
class KeyHelp:
    """One line of the key help: the keys (as the key bar shows them) and what they do."""

    keys: str
    what: str


def _textual_defaults() -> frozenset[tuple[str, str]]:
    """Textual's own bindings (focus moves, copying, its ctrl+q): not this program's keys."""
    return frozenset(
        (b.key, b.action)
        for cls in (App, Screen, ModalScreen)
        for b in Binding.make_bindings(cls.__dict__.get("BINDINGS", []))
    )


def _described(node: DOMNode) -> list[Binding]:
    """A screen's (or the app's) own bindings that say what they do, in their order."""
    defaults = _textual_defaults()
    return [
        binding
        for bindings in node._bindings.key_to_bindings.values()
        for binding in bindings
        if binding.description and (binding.key, binding.action) not in defaults
    ]


def _live(node: DOMNode, binding: Binding) -> bool:
    """Whether the node lets the binding act where help was asked (a ``c Continue`` without a
    saved game does not)."""
    _, name, parameters = parse_action(binding.action)
    return node.check_action(name, parameters) is not False


def keys_help(app: App[Any], screen: Screen[Any]) -> list[KeyHelp]:
    """The keys of ``screen`` (the screen help was asked on), from its bindings: the game's
    table lists every key of the game (the app's bindings, whatever the moment); another screen
    lists its own keys that can act, then the app's keys that act over it (``?``, ``q``).

    Keys bound to the same action with the same words share a line (``← →``), and so do the
    actions of the same keys (``␣ ⏎  Play · Continue``); a binding's tooltip says more."""
    if screen is app.screen_stack[0]:
        bindings = _described(app)
    else:
        own = [b for b in _described(screen) if _live(screen, b)]
        taken = {b.key for b in own}
        over = [b for b in _described(app) if b.key not in taken and _live(app, b)]
        bindings = own + [replace(b, tooltip="") for b in over]  # (their tooltips are the game's)
    by_action: dict[tuple[str, str], tuple[list[str], list[str]]] = {}
    for binding in bindings:
        name = binding.action.split("(", 1)[0]
        keys, tips = by_action.setdefault((name, binding.description), ([], []))
        shown = binding.key_display or app.get_key_display(binding)
        if shown not in keys:
            keys.append(shown)
        if binding.tooltip and binding.tooltip not in tips:
            tips.append(binding.tooltip)
    by_keys: dict[str, list[str]] = {}
    for (_, description), (keys, tips) in by_action.items():
        said = f"{description}: {'; '.join(tips)}" if tips else description
        by_keys.setdefault(" ".join(keys), []).append(said)
    return [KeyHelp(keys, " · ".join(said)) for keys, said in by_keys.items()]


def help_notes(source: object) -> list[str]:
    """What a screen (or the app, for the table) says under its keys: ``help_notes()``."""
    notes = getattr(source, "help_notes", None)
    return list(notes()) if callable(notes) else []


class HelpScreen(ModalScreen[None]):
    """The keys of the screen it was opened on, over it; scrolls when the window is short."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q,enter,space", "close", "Close"),
    ]

    def __init__(self, title: str, keys: Sequence[KeyHelp], notes: Sequence[str] = ()) -> None:
        super().__init__()
        self.title_text = title
        self.keys = list(keys)
        """The lines of keys shown (as data, for tests)."""
        self.notes = list(notes)

    def compose(self) -> ComposeResult:
        table = RichTable.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column(ratio=1)
        for line in self.keys:
            table.add_row(line.keys, line.what)
        notes = (Text(), *(Text(note) for note in self.notes)) if self.notes else ()
        box = VerticalScroll(id="help-box")
        box.border_title = self.title_text
        box.border_subtitle = "esc, ? or ⏎ to close"
        with box:
            yield Static(Group(table, *notes), id="help-text")

    def action_close(self) -> None:
        """Back to where help was asked."""
        self.dismiss(None)

    def on_click(self, event: events.Click) -> None:
        if event.widget is self:
            self.dismiss(None)


class RulesScreen(Screen[None]):
    """The rules of cribbage in a scrollable pager; escape (or q, or r) goes back to where they
    were opened, as the key bar says (``back``: "Back to the game", "Back to the menu")."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "page_down", "Page down", show=False),
        Binding("b", "page_up", "Page up", show=False),
    ]

    def __init__(self, markdown: str, back: str = "Back to the game") -> None:
        super().__init__()
        self.markdown = markdown
        self.back = back
        self._bindings.bind("escape,q,r", "close", back)

    def help_title(self) -> str:
        """The key help's heading here."""
        return "Keys of the rules"

    def help_notes(self) -> list[str]:
        """Under the keys in the key help."""
        return ["↑ ↓ and page up/down scroll too."]

    def compose(self) -> ComposeResult:
        yield Static(
            f"[b]Rules of cribbage[/b]  [dim]↑ ↓ page up/down to read; esc: {self.back.lower()}[/]",
            id="rules-title",
        )
        yield MarkdownViewer(self.markdown, show_table_of_contents=False, id="rules-viewer")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one(MarkdownViewer).focus()

    def action_close(self) -> None:
        """Back to where the rules were opened."""
        self.dismiss(None)

    def action_page_down(self) -> None:
        """Scroll a page on."""
        self.query_one(MarkdownViewer).scroll_page_down()

    def action_page_up(self) -> None:
        """Scroll a page back."""
        self.query_one(MarkdownViewer).scroll_page_up()
