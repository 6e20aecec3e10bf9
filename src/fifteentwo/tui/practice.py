"""Practice from the start screen: the counting drill and the discard drill of
``cribbage practice``, with cards on the table.

The drills (`fifteentwo.app.practice`) deal, judge and keep the score; this screen lays out the
cards, reads the answer and shows the itemized count or the best throws.
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from fifteentwo.app.practice import (
    CountDrill,
    CountTask,
    DiscardDrill,
    DiscardTask,
    practice_summary,
)
from fifteentwo.tui.render import CardSpec
from fifteentwo.tui.widgets import CardRow, HandView

__all__ = ["PracticeScreen"]


class PracticeScreen(Screen[str | None]):
    """``c`` counting drill (type the total, enter), ``d`` discard drill (1-6 to choose two,
    enter to lay them away); ``q`` or escape ends the practice, back to the start screen
    (dismissed with the summary, `practice_summary`, for it to show). The keys go to the
    screen itself (no text field), so a letter always switches drills."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "close", "End practice"),  # (not the program's q Quit)
        Binding("escape", "close", "Back", show=False),
        Binding("c", "drill('count')", "Count hands"),
        Binding("d", "drill('discard')", "Discards"),
        *(Binding(str(n), f"digit({n})", show=False) for n in range(10)),
        Binding("backspace", "erase", show=False),
        Binding("enter", "answer", "Answer", key_display="⏎"),
    ]

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(id="practice")
        self.seed = seed
        self.counting = CountDrill(seed)
        self.discarding = DiscardDrill(seed)
        self.drill = "count"
        self.count_task: CountTask | None = None
        self.discard_task: DiscardTask | None = None
        self.chosen: set[int] = set()
        self.asked_at = 0.0
        self.typed = ""
        """The points typed so far (counting drill)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="practice-box"):
            yield Static(id="practice-title")
            with Horizontal(id="practice-cards"):
                yield HandView(id="practice-hand")
                yield CardRow(id="practice-starter")
            yield Static(id="practice-entry")
            yield Static(id="practice-feedback")
            yield Static(id="practice-score")
        yield Footer(compact=True, show_command_palette=False)

    def help_title(self) -> str:
        """The key help's heading here."""
        return "Keys of practice"

    def help_notes(self) -> list[str]:
        """Under the keys in the key help: the digits, which the key bar does not show."""
        return [
            "Counting: type the points with 0-9 (backspace erases), then ⏎.",
            "Discards: 1-6 choose two cards (again: unchoose), then ⏎.",
        ]

    def on_mount(self) -> None:
        self._next()

    # --- the drills ----------------------------------------------------------------------------

    def action_drill(self, name: str) -> None:
        """Switch drills (each keeps its own score)."""
        if name != self.drill:
            self.drill = name
            self.query_one("#practice-feedback", Static).update("")
            self._next()

    def _next(self) -> None:
        """Deal the next hand of the current drill."""
        hand = self.query_one("#practice-hand", HandView)
        starter = self.query_one("#practice-starter", CardRow)
        title = self.query_one("#practice-title", Static)
        entry = self.query_one("#practice-entry", Static)
        self.chosen.clear()
        if self.drill == "count":
            task = self.count_task = self.counting.next()
            what = "crib" if task.crib else "hand"
            title.update(
                Text.assemble(
                    ("Counting", "bold"),
                    f"  count this {what} with the starter (19 means nothing)",
                )
            )
            hand.numbered = False
            hand.label = f"Your {what}"
            hand.cards = tuple(CardSpec(c) for c in task.cards)
            starter.label = "Starter"
            starter.cards = (CardSpec(task.starter),)
            starter.display = True
            entry.display = True
            self.typed = ""
            self._show_typed()
        else:
            d = self.discard_task = self.discarding.next()
            crib = "your crib" if d.dealer else "your opponent's crib"
            title.update(
                Text.assemble(
                    ("Discards", "bold"),
                    f"  choose two for {crib} (1-6, then enter)",
                )
            )
            hand.numbered = True
            hand.label = "Your six cards"
            self._show_discard()
            starter.display = False
            entry.display = False
        self._score()
        self.asked_at = time.monotonic()

    def _show_discard(self) -> None:
        task = self.discard_task
        if task is None:
            return
        hand = self.query_one("#practice-hand", HandView)
        hand.cards = tuple(CardSpec(c, selected=i in self.chosen) for i, c in enumerate(task.cards))

    def _score(self) -> None:
        tally = self.counting.tally if self.drill == "count" else self.discarding.tally
        self.query_one("#practice-score", Static).update(Text(f"Score: {tally.line()}"))

    def _show_typed(self) -> None:
        self.query_one("#practice-entry", Static).update(
            Text.assemble("Points: ", (self.typed or "", "bold"), ("▏", "blink"))
        )

    def action_digit(self, n: int) -> None:
        """A digit: part of the count, or (discards) choose card ``n``."""
        if self.drill == "discard":
            if 1 <= n <= 6:
                self.action_pick(n - 1)
            return
        if len(self.typed) < 2:
            self.typed += str(n)
            self._show_typed()

    def action_erase(self) -> None:
        """Take back the last digit typed."""
        self.typed = self.typed[:-1]
        self._show_typed()

    def action_answer(self) -> None:
        """Enter: judge the count, or lay away the two chosen cards."""
        if self.drill == "discard":
            self.action_lay_away()
        else:
            self._counted()

    def _counted(self) -> None:
        task = self.count_task
        if task is None or self.drill != "count":
            return
        if not self.typed:
            self._feedback(Text("Type the number of points, then enter.", style="red"))
            return
        claimed = int(self.typed)
        seconds = time.monotonic() - self.asked_at
        right = self.counting.answer(task, claimed, seconds, None)
        score = task.score
        said = score.say()
        lines = Text()
        if right:
            lines.append("Right. ", style="bold green")
        else:
            lines.append(f"No: {score.total}. ", style="bold red")
        lines.append(f"{said[:1].upper()}{said[1:]}. ({seconds:.1f} s)")
        if not right:
            for item in score.items:
                cards = " ".join(c.unicode for c in item.cards)
                lines.append(f"\n  {item.kind} {cards}: {item.points}")
        self._feedback(lines)
        self._next()

    def action_pick(self, index: int) -> None:
        """Choose (or put back) a card of the six."""
        if self.drill != "discard" or self.discard_task is None:
            return
        if index in self.chosen:
            self.chosen.discard(index)
        elif len(self.chosen) < 2:
            self.chosen.add(index)
        self._show_discard()

    def action_lay_away(self) -> None:
        """Judge the two chosen cards against the exact analysis."""
        task = self.discard_task
        if self.drill != "discard" or task is None:
            return
        if len(self.chosen) != 2:
            self._feedback(Text("Choose two cards first (1-6).", style="red"))
            return
        throw = tuple(task.cards[i] for i in sorted(self.chosen))
        seconds = time.monotonic() - self.asked_at
        lost = self.discarding.answer(task, throw, seconds)
        options = sorted(task.analysis, key=lambda o: -o.total)
        yours = options[0].total - lost
        rank = 1 + sum(1 for o in options if o.total > yours + 1e-9)
        shown = " ".join(c.unicode for c in throw)
        lines = Text(f"You laid away {shown}: ")
        if lost <= 1e-9:
            lines.append("the best. ", style="bold green")
        else:
            lines.append(
                f"{lost:.2f} points below the best (number {rank} of {len(options)}). ",
                style="bold red",
            )
        sign = "+" if task.dealer else "-"
        for o in options[:3]:
            cards = " ".join(c.unicode for c in o.throw)
            lines.append(
                f"\n  throw {cards}: {o.total:+.2f} points "
                f"(hand {o.hand.mean:.2f} {sign} crib {o.crib.mean:.2f})"
            )
        self._feedback(lines)
        self._next()

    def _feedback(self, text: Text) -> None:
        self.query_one("#practice-feedback", Static).update(text)

    def action_close(self) -> None:
        """End the practice: back to the start screen, with how it went."""
        self.dismiss(self.summary())

    def summary(self) -> str | None:
        """``Practice over: ...`` for the drills answered, or None."""
        return practice_summary(
            {"counting": self.counting.tally, "discards": self.discarding.tally}
        )
