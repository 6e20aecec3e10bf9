"""The start screen and the new-game form: what a player sees before a game.

The start screen offers a new game, the saved game to continue (naming the opponent, the score
and when), statistics, practice, the rules and quit. The new-game form chooses the opponent's
level (each with one line saying how it plays), the variant, the target, counting your own
hands, muggins, the coach and the speed; the choices are remembered between runs (the store's
settings, `fifteentwo.app.options.remember_choices`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from fifteentwo.app.options import (
    LEVEL_DESCRIPTIONS,
    SPEEDS,
    VARIANT_DESCRIPTIONS,
    Choices,
)
from fifteentwo.tui.widgets import TickBox

__all__ = ["MenuEntry", "NewGameScreen", "StartScreen"]


@dataclass(frozen=True, slots=True)
class MenuEntry:
    """One line of the start screen: its key, its words and what choosing it dismisses with."""

    key: str
    label: str


class StartScreen(Screen[str]):
    """The first screen: choose with the arrows and enter, a letter, or the mouse.

    Dismisses with the entry's key: ``n`` new game, ``c`` continue, ``s`` statistics,
    ``p`` practice, ``r`` rules, ``q`` quit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "choose('n')", "New game"),
        Binding("c", "choose('c')", "Continue"),  # (in the footer only with a saved game)
        Binding("s", "choose('s')", "Statistics"),
        Binding("p", "choose('p')", "Practice"),
        Binding("r", "choose('r')", "Rules"),
        Binding("q,escape", "choose('q')", "Quit"),
    ]

    def __init__(self, saved: str | None, note: str | None = None) -> None:
        """``saved``: a line describing the saved game to continue, or None if there is none;
        ``note``: a line on what was just done (a practice's summary), or None."""
        super().__init__(id="start")
        self.note = note
        entries = [MenuEntry("n", "New game")]
        if saved is not None:
            entries.append(MenuEntry("c", f"Continue: {saved}"))
        entries += [
            MenuEntry("s", "Statistics"),
            MenuEntry("p", "Practice: count hands, choose discards"),
            MenuEntry("r", "Rules of cribbage"),
            MenuEntry("q", "Quit"),
        ]
        self.entries = entries
        self.saved = saved

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``c`` is offered (and shown in the footer) only when there is a game to continue."""
        if action == "choose" and parameters == ("c",):
            return self.saved is not None
        return True

    def compose(self) -> ComposeResult:
        with Vertical(id="start-box"):
            yield Static("[b]Cribbage[/b]  [dim]fifteentwo[/dim]", id="start-title")
            yield OptionList(
                *(Option(f"[b]{e.key}[/b]  {e.label}", id=e.key) for e in self.entries),
                id="start-menu",
            )
            yield Static("[dim]↑ ↓ and enter, or the letter[/dim]", id="start-help")
            if self.note is not None:
                yield Static(Text(self.note), id="start-note")
        yield Footer(compact=True, show_command_palette=False)

    def help_title(self) -> str:
        """The key help's heading here."""
        return "Keys of the start screen"

    def help_notes(self) -> list[str]:
        """Under the keys in the key help."""
        return ["↑ ↓ and ⏎ choose an entry too, as does a click."]

    def on_mount(self) -> None:
        menu = self.query_one(OptionList)
        menu.highlighted = 1 if any(e.key == "c" for e in self.entries) else 0
        menu.focus()

    def action_choose(self, key: str) -> None:
        """Choose an entry by its letter (``c`` only when there is a saved game)."""
        if any(e.key == key for e in self.entries):
            self.dismiss(key)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(event.option.id)


FORM_HELP = (
    "[dim]tab / shift+tab: next / previous field · enter: open a list, choose in it · "
    "space: tick a box · enter on Start (or ^s) begins · esc: back[/dim]"
)
"""The form's keys, under its fields."""


class NewGameScreen(Screen[Choices | None]):
    """The new game's choices, by keyboard alone: tab and shift+tab between the fields, enter to
    open a list and choose in it, space (or enter) to tick a box, enter on Start to begin (^s
    from anywhere); escape goes back. Enter never starts the game from another field.

    Dismisses with the `Choices`, or None for back."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+s", "start", "Start", key_display="^s"),
    ]

    def __init__(self, choices: Choices, levels: Sequence[str], variants: Sequence[str]) -> None:
        super().__init__(id="new-game")
        self._error_shown = False
        self.choices = choices
        self.levels = list(levels)
        self.variants = list(variants)

    def compose(self) -> ComposeResult:
        c = self.choices
        with VerticalScroll(id="new-game-box", can_focus=False):  # tab goes field to field
            yield Static("[b]New game[/b]", id="new-game-title")
            with Horizontal(classes="field"):
                yield Static("Opponent", classes="label")
                yield Select(
                    [(f"{lv:<9} {LEVEL_DESCRIPTIONS.get(lv, '')}", lv) for lv in self.levels],
                    value=c.level if c.level in self.levels else self.levels[-1],
                    allow_blank=False,
                    compact=True,
                    id="level",
                )
            with Horizontal(classes="field"):
                yield Static("Game", classes="label")
                yield Select(
                    [(f"{v:<12} {VARIANT_DESCRIPTIONS.get(v, '')}", v) for v in self.variants],
                    value=c.variant if c.variant in self.variants else self.variants[0],
                    allow_blank=False,
                    compact=True,
                    id="variant",
                )
            with Horizontal(classes="field"):
                yield Static("Target", classes="label")
                yield Input(
                    "" if c.target is None else str(c.target),
                    placeholder="the game's own (61 or 121)",
                    restrict=r"[0-9]*",
                    max_length=4,
                    compact=True,
                    id="target",
                )
            with Horizontal(classes="field"):
                yield Static("Speed", classes="label")
                yield Select(
                    [(name, name) for name in SPEEDS],
                    value=c.speed if c.speed in SPEEDS else "normal",
                    allow_blank=False,
                    compact=True,
                    id="speed",
                )
            yield TickBox("Count your own hands", c.manual_count, compact=True, id="manual")
            yield TickBox(
                "Muggins: take points the other side fails to count",
                c.muggins,
                compact=True,
                id="muggins",
            )
            yield TickBox(
                "Coach: say at once when a choice costs points", c.coach, compact=True, id="coach"
            )
            yield Static(FORM_HELP, id="new-game-help")
            yield Static("", id="new-game-error")
            with Horizontal(id="new-game-buttons"):
                yield Button("Start", id="start-game", variant="primary", compact=True)
                yield Button("Back", id="back", compact=True)
        yield Footer(compact=True, show_command_palette=False)

    def help_title(self) -> str:
        """The key help's heading here."""
        return "Keys of the new-game form"

    def help_notes(self) -> list[str]:
        """Under the keys in the key help: the form's own keys (Textual's fields')."""
        return [
            "Tab and Shift+Tab move between the fields; ⏎ opens a list and ⏎ again chooses "
            "in it (↑ ↓ between); Space (or ⏎) ticks a box; ⏎ on Start begins."
        ]

    def on_mount(self) -> None:
        self.query_one("#level", Select).focus()

    def chosen(self) -> Choices | None:
        """The form as `Choices`, or None (and a message) when the target is not a number
        the game can be played to."""
        text = self.query_one("#target", Input).value.strip()
        target = int(text) if text else None
        error = self.query_one("#new-game-error", Static)
        wrong = _target_error(target)
        error.update(wrong)
        self._error_shown = bool(wrong)
        if wrong:
            self.query_one("#target", Input).focus()
            return None
        return Choices(
            level=str(self.query_one("#level", Select).value),
            variant=str(self.query_one("#variant", Select).value),
            target=target,
            manual_count=self.query_one("#manual", TickBox).value,
            muggins=self.query_one("#muggins", TickBox).value,
            coach=self.query_one("#coach", TickBox).value,
            speed=str(self.query_one("#speed", Select).value),
        )

    def action_start(self) -> None:
        """Begin with what the form says."""
        choices = self.chosen()
        if choices is not None:
            self.dismiss(choices)

    def action_back(self) -> None:
        """Back to the start screen."""
        self.dismiss(None)

    @on(Button.Pressed, "#start-game")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#back")
    def _back_pressed(self) -> None:
        self.action_back()

    @on(Input.Changed, "#target")
    def _target_changed(self, event: Input.Changed) -> None:
        """A target error shown stays true to the field: gone once the target is one the game
        can be played to (or blank), else naming the number now typed. (No new error appears
        while typing: only Start checks.)"""
        if not self._error_shown:
            return
        text = event.value.strip()
        wrong = _target_error(int(text) if text else None)
        self.query_one("#new-game-error", Static).update(wrong)
        self._error_shown = bool(wrong)

    @on(Input.Submitted, "#target")
    def _target_entered(self) -> None:
        self.focus_next()  # enter in the target field moves on, as tab does: Start starts


def _target_error(target: int | None) -> str:
    """Why a target cannot be played to (markup), or "" (blank: the game's own)."""
    if target is None or 15 <= target <= 1000:
        return ""
    return f"[red]The target must be from 15 to 1000, not {target}.[/red]"
