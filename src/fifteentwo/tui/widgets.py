"""The table's widgets: the pegboard, rows of cards, the player's hand, the cut slider, the log.

Each widget draws what it is given and reports clicks and keys as messages; none of them
knows a rule of cribbage. Card sizes follow the space the stylesheet gives them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import RenderResult
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Checkbox, Input, RichLog

from fifteentwo.app.counting import begins_a_count
from fifteentwo.tui.render import LARGE, SMALL, CardSize, CardSpec, draw_cards

__all__ = [
    "FAN",
    "SIDE_COLOURS",
    "CardRow",
    "CountInput",
    "CutSlider",
    "EventLog",
    "HandView",
    "Line",
    "Pegboard",
    "TickBox",
]

FAN: Final = 0
"""`CardRow.step` for a fanned pile: each card covers all of the one before but its index."""

SIDE_COLOURS: Final = ("#4fc3f7", "#ff8a50", "#aed581", "#f48fb1")
"""Peg colours by side (the viewer's side is drawn in the first)."""

_WOOD: Final = "#5b3a1e"
_WOOD_ALT: Final = "#6a4626"
_HOLE: Final = "#d8b98a"


class Line(Widget):
    """One line of text, with an optional right-hand part; new text redraws without a relayout."""

    text: reactive[Text] = reactive(Text)
    right: reactive[Text] = reactive(Text)

    def update(self, text: Text | str, right: Text | str = "") -> None:
        """Show new text."""
        self.text = Text(text) if isinstance(text, str) else text
        self.right = Text(right) if isinstance(right, str) else right

    def render(self) -> RenderResult:
        width = self.content_size.width
        right = self.right
        left = self.text.copy()
        left.no_wrap = True
        left.overflow = "ellipsis"
        if not right.plain or not width:
            left.truncate(width or left.cell_len, overflow="ellipsis")
            return left
        room = max(0, width - right.cell_len - 1)
        left.truncate(room, overflow="ellipsis", pad=True)
        return Text.assemble(left, " ", right, no_wrap=True)


class Pegboard(Widget):
    """A cribbage board: one track per side, front and back pegs, 61 or 121 holes.

    Tracks run 60 holes to a row (twice round for 121), from a start hole to the game hole.
    The back peg stays where the front peg was before the side's last score, as on a real board.
    """

    fronts: reactive[tuple[int, ...]] = reactive(())
    """Each side's score (its front peg)."""
    backs: reactive[tuple[int, ...]] = reactive(())
    """Each side's previous score (its back peg)."""
    names: reactive[tuple[str, ...]] = reactive((), layout=True)
    target: reactive[int] = reactive(121, layout=True)

    LABEL: ClassVar[int] = 13
    """Cells before the track: a name of up to 8 letters and the score."""

    def set_pegs(self, fronts: Sequence[int], backs: Sequence[int]) -> None:
        """Move the pegs."""
        self.backs = tuple(backs)
        self.fronts = tuple(fronts)

    @property
    def rows_per_side(self) -> int:
        """Rows of holes each side's track takes (two for 121: twice round)."""
        return 1 if self.target <= 61 else 2

    @property
    def holes_per_row(self) -> int:
        """Holes in one row; the last row ends at the game hole."""
        return -(-(self.target - 1) // self.rows_per_side)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self.names)) * self.rows_per_side

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self.LABEL + 2 + self.holes_per_row + self.holes_per_row // 5 - 1

    def render(self) -> RenderResult:
        per_row = self.holes_per_row
        scale = 1
        if per_row > 60:  # long targets: a hole stands for several points
            scale = -(-per_row // 60)
            per_row = -(-per_row // scale)
        width = self.content_size.width or 80
        gaps = width >= self.LABEL + 2 + per_row + per_row // 5 - 1
        lines: list[Text] = []
        for side, name in enumerate(self.names):
            front = self.fronts[side] if side < len(self.fronts) else 0
            back = self.backs[side] if side < len(self.backs) else 0
            colour = SIDE_COLOURS[side % len(SIDE_COLOURS)]
            for row in range(self.rows_per_side):
                lines.append(
                    self._track_row(
                        name=name,
                        row=row,
                        front=front,
                        back=back,
                        colour=colour,
                        per_row=per_row,
                        scale=scale,
                        gaps=gaps,
                    )
                )
        return Text("\n").join(lines)

    def _track_row(
        self,
        *,
        name: str,
        row: int,
        front: int,
        back: int,
        colour: str,
        per_row: int,
        scale: int,
        gaps: bool,
    ) -> Text:
        rows = self.rows_per_side
        label_style = Style(color=colour, bold=True, bgcolor=_WOOD)
        width = self.LABEL
        if rows == 1:
            label = f"{name[: width - 5]:<{width - 5}} {front:>3} "
        elif row == 0:
            label = f"{name[: width - 1]:<{width}}"
        else:
            label = f"{front:>{width - 2}}  "
        text = Text(label, style=label_style, no_wrap=True, end="")
        front_peg = Style(color=colour, bold=True, bgcolor=_WOOD)
        back_peg = Style(color=colour, dim=True, bgcolor=_WOOD)

        def hole(position: int, bg: str, char: str = "·") -> None:
            pos_front = -(-front // scale) if front else 0
            pos_back = -(-back // scale) if back else 0
            if position == pos_front:
                text.append("●", front_peg)
            elif position == pos_back and back != front:
                text.append("○", back_peg)
            else:
                text.append(char, Style(color=_HOLE, bgcolor=bg))

        if row == 0:
            hole(0, _WOOD, "◦")
        else:
            text.append(" ", Style(bgcolor=_WOOD))
        first = row * per_row + 1
        last_hole = -(-(self.target - 1) // scale)
        for i in range(per_row):
            position = first + i
            group = i // 5
            if gaps and i and i % 5 == 0:
                text.append(" ", Style(bgcolor=_WOOD))
            bg = _WOOD if group % 2 == 0 or gaps else _WOOD_ALT
            if position <= last_hole:
                hole(position, bg)
            else:
                text.append(" ", Style(bgcolor=bg))
        if row == rows - 1:
            hole(last_hole + 1, _WOOD, "◎")
        return text


class CardRow(Widget):
    """A caption over a row of cards (an opponent's hand, the crib, the starter, the pile)."""

    label: reactive[Text | str] = reactive("")
    cards: reactive[tuple[CardSpec, ...]] = reactive(())
    step: reactive[int | None] = reactive(None)
    """Cells from one card to the next (below the card width they overlap); None spreads the
    cards out, `FAN` fans them like a pile."""

    def card_size(self) -> CardSize:
        """Large cards when the stylesheet gives this row room for them."""
        return LARGE if self.content_size.height >= 1 + LARGE.height else SMALL

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self._natural_width()

    def _natural_width(self) -> int:
        label = self.label.cell_len if isinstance(self.label, Text) else len(self.label)
        size = self.card_size()
        n = len(self.cards)
        cards = self._wanted_step(size) * (n - 1) + size.width if n else 0
        return max(label, cards)

    def _wanted_step(self, size: CardSize) -> int:
        if self.step is None:
            return size.width + 1
        if self.step == FAN:
            return size.width - (1 if size.height <= SMALL.height else 2)
        return self.step

    def _check_width(self) -> None:
        """Lay out again only when the row's natural width changed (a relayout is slow)."""
        if self.styles.width is not None and not self.styles.width.is_auto:
            return  # a fixed or fractional width: nothing to re-measure
        width = self._natural_width()
        if width != getattr(self, "_width", None):
            self._width = width
            self.refresh(layout=True)

    def watch_label(self) -> None:
        self._check_width()

    def watch_cards(self) -> None:
        self._check_width()

    def watch_step(self) -> None:
        self._check_width()

    def _step(self, size: CardSize) -> int:
        """The step, narrowed to fit the width (piles fan tighter before they spill)."""
        n = len(self.cards)
        want = self._wanted_step(size)
        if n < 2:
            return want
        room = self.content_size.width
        if room and want * (n - 1) + size.width > room:
            want = max(1, (room - size.width) // (n - 1))
        return want

    def caption(self) -> Text:
        """The label on one line, cut with "…" to the row's width (a wrapped caption would push
        the cards out of the row)."""
        label = self.label.copy() if isinstance(self.label, Text) else Text(self.label, "bold")
        width = self.content_size.width
        if width:
            label.truncate(width, overflow="ellipsis")
        label.no_wrap = True
        return label

    def render(self) -> RenderResult:
        size = self.card_size()
        lines = [self.caption(), *draw_cards(self.cards, size=size, step=self._step(size))]
        return Text("\n").join(lines)


class HandView(CardRow):
    """The player's hand: numbered cards, chosen ones raised; click or press a number to pick."""

    numbered: reactive[bool] = reactive(True)
    """Show the number keys under the cards (when there is something to pick)."""

    @dataclass
    class Picked(Message):
        """A card was clicked."""

        index: int

    def card_size(self) -> CardSize:
        return LARGE if self.content_size.height >= 3 + LARGE.height else SMALL

    def render(self) -> RenderResult:
        size = self.card_size()
        step = self._step(size)
        label = self.caption()
        cards = draw_cards(self.cards, size=size, step=step, raise_selected=True)
        numbers = Text(no_wrap=True, end="")
        for i, spec in enumerate(self.cards if self.numbered else ()):
            tag = f"{i + 1}".center(size.width)
            numbers.append(tag, Style(dim=spec.dimmed, bold=not spec.dimmed))
            numbers.append(" " * max(0, step - size.width))
        return Text("\n").join([label, *cards, numbers])

    def index_at(self, x: int) -> int | None:
        """The card under column ``x`` (the topmost where cards overlap)."""
        if not self.cards:
            return None
        size = self.card_size()
        step = self._step(size)
        for i in reversed(range(len(self.cards))):
            if i * step <= x < i * step + size.width:
                return i
        return None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y == 0:
            return
        index = self.index_at(offset.x)
        if index is not None:
            self.post_message(self.Picked(index))


class CutSlider(Widget, can_focus=True):
    """How deep to cut the pack: a bar of card edges with the cut marked, moved by keys or mouse."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "Shallower", show=False),
        Binding("right", "move(1)", "Deeper", show=False),
        Binding("pageup,up", "move(-5)", show=False),
        Binding("pagedown,down", "move(5)", show=False),
        Binding("home", "move(-99)", show=False),
        Binding("end", "move(99)", show=False),
        Binding("enter,space", "cut", "Cut", show=True),
    ]

    low: reactive[int] = reactive(4)
    high: reactive[int] = reactive(40)
    value: reactive[int] = reactive(20)

    @dataclass
    class Chosen(Message):
        """The player cut at ``depth``."""

        depth: int

    def setup(self, low: int, high: int) -> None:
        """Offer depths ``low``..``high`` (the engine's legal cuts), starting in the middle."""
        self.low, self.high = low, high
        self.value = (low + high) // 2

    def action_move(self, delta: int) -> None:
        """Move the cut."""
        self.value = min(self.high, max(self.low, self.value + delta))

    def action_cut(self) -> None:
        """Cut here."""
        self.post_message(self.Chosen(self.value))

    def _bar_start(self) -> int:
        return 2

    def render(self) -> RenderResult:
        pack = self.high + self.low  # the legal cuts leave `low` cards below the deepest
        lifted = Style(color="#e8e8e8", bgcolor="#1d4e89")
        left = Style(color="#7f9fbf", bgcolor="#0f2a4a")
        text = Text("◀ ", style="bold", no_wrap=True, end="")
        for i in range(1, pack + 1):
            text.append("▌", lifted if i <= self.value else left)
        text.append(" ▶", style="bold")
        text.append(f"  lift {self.value} of {pack}", style="bold")
        return text

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        depth = offset.x - self._bar_start() + 1
        if self.low <= depth <= self.high:
            self.value = depth


class CountInput(Input):
    """Where the player types a show total, in digits or words (`parse_count`: ``14``,
    ``fourteen``, ``twenty nine``, ``nineteen``). So that the game's keys still work here,
    ``q`` and ``?`` are never typed (no count has them), and while the box is empty only a
    key that can begin a count is (a digit, or the first letter of a number word): ``r``,
    ``u`` and the rest are the game's until then."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Count", key_display="⏎"),
    ]

    NEVER_TYPED: ClassVar[frozenset[str]] = frozenset("q?")

    def __init__(self, *, id: str | None = None, disabled: bool = False) -> None:
        super().__init__(
            placeholder="your count, then Enter",
            max_length=16,  # ("twenty-seven" and the like)
            compact=True,
            id=id,
            disabled=disabled,
        )

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        if character is None or not character.isprintable():
            return False
        if character.lower() in self.NEVER_TYPED:
            return False
        return bool(self.value) or begins_a_count(character)

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable and not self.check_consume_key(event.key, event.character):
            event.prevent_default()  # not typed here: left to the app's keys (q, ?, r, u)


class EventLog(RichLog, can_focus=False):
    """The scrolling log; keeps its lines so it can wrap them again when the width changes.

    It never takes the focus (the mouse wheel scrolls it): Tab would otherwise move the focus
    here from the cut bar or the count box, and the keys the prompt names (⏎, ←/→, the digits)
    would stop reaching them. With the log out of the way, the entry in use is the only thing
    on the table that can hold the focus."""

    MAX_LINES: ClassVar[int] = 400

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(wrap=True, min_width=10, markup=False, highlight=False, id=id)
        self.texts: list[Text] = []

    def add(self, text: Text) -> None:
        """Write a line and remember it."""
        self.texts.append(text)
        del self.texts[: -self.MAX_LINES]
        self.write(text)

    def reset(self) -> None:
        """Forget every line."""
        self.texts.clear()
        self.clear()

    @property
    def plain(self) -> list[str]:
        """The lines as plain strings (for tests and the quiet reader)."""
        return [t.plain for t in self.texts]

    def on_resize(self, event: events.Resize) -> None:
        if self.texts and self._size_known:
            self.clear()
            for text in self.texts:
                self.write(text, scroll_end=True)


class TickBox(Checkbox):
    """A checkbox whose state shows without colour: ``▐X▌`` ticked, ``▐ ▌`` not (Textual's
    draws ``▐X▌`` both ways and tells them apart by colour alone, lost on a monochrome
    terminal or to a colour-blind eye)."""

    TICKED: ClassVar[str] = "X"
    UNTICKED: ClassVar[str] = " "

    def __init__(
        self, label: str, value: bool = False, *, compact: bool = False, id: str | None = None
    ) -> None:
        super().__init__(label, value, compact=compact, id=id)
        self.BUTTON_INNER = self.TICKED if value else self.UNTICKED

    def watch_value(self) -> None:
        """Draw the state, then as a checkbox does (its class, its message)."""
        self.BUTTON_INNER = self.TICKED if self.value else self.UNTICKED
        super().watch_value()
