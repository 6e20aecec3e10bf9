"""Drawing cards as Rich text: faces with coloured suits, backs, empty places, overlapped piles.

Pure functions from what to draw to lines of `rich.text.Text`, so widgets stay small and the
drawing can be tested without a terminal. Two sizes: small (5x3) for 80x24, large (7x5) when
the terminal is tall enough.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rich.style import Style
from rich.text import Text

from fifteentwo.cards import Card

__all__ = ["LARGE", "SMALL", "CardSize", "CardSpec", "draw_cards", "suit_text"]


@dataclass(frozen=True, slots=True)
class CardSize:
    """The cell size of one drawn card."""

    width: int
    height: int


SMALL: Final = CardSize(5, 3)
LARGE: Final = CardSize(7, 5)


@dataclass(frozen=True, slots=True)
class CardSpec:
    """One card place on the table: a face, a back (``card`` None) or an empty outline."""

    card: Card | None = None
    selected: bool = False
    """Chosen (a discard being made); drawn raised and tinted."""
    cursor: bool = False
    """Where the keyboard cursor is; drawn with a heavy blue frame."""
    dimmed: bool = False
    """Not playable now."""
    empty: bool = False
    """An empty place (no starter yet, no cards)."""


_IVORY: Final = "#f4f1e6"
_GOLD: Final = "#ffe08a"
_GREY: Final = "#b9b6ab"
_BACK: Final = "#1d4e89"
_RED: Final = "#c8102e"
_BLACK: Final = "#1a1a1a"

_FRAMES: Final = {
    "round": ("╭", "─", "╮", "│", "╰", "╯"),
    "heavy": ("┏", "━", "┓", "┃", "┗", "┛"),
    "dashed": ("┌", "┄", "┐", "┆", "└", "┘"),
}

Cell = tuple[str, Style]


def suit_text(card: Card) -> Text:
    """A card as coloured inline text (``5♥`` in red), for labels and the log."""
    return Text(card.unicode, style=Style(color=_RED if card.is_red else None, bold=True))


def _card_cells(spec: CardSpec, size: CardSize, *, left: bool = False) -> list[list[Cell]]:
    """The cells of one card, row by row; ``left`` puts a small face's index at the left edge."""
    w, h = size.width, size.height
    if spec.empty:
        frame = _FRAMES["dashed"]
        bg = None
        border = Style(color="#707070")
        ink = border
    elif spec.card is None:
        frame = _FRAMES["round"]
        bg = _BACK
        border = Style(color="#d8d8d8", bgcolor=bg)
        ink = Style(color="#5f8fcf", bgcolor=bg)
    else:
        frame = _FRAMES["heavy" if spec.cursor else "round"]
        bg = _GOLD if spec.selected else (_GREY if spec.dimmed else _IVORY)
        if spec.cursor:
            border = Style(color="#1e50d0", bgcolor=bg, bold=True)
        else:
            border = Style(color="#7a7a7a", bgcolor=bg)
        colour = _RED if spec.card.is_red else _BLACK
        if spec.dimmed:
            colour = "#8a4a50" if spec.card.is_red else "#5a5a5a"
        ink = Style(color=colour, bgcolor=bg, bold=not spec.dimmed)
    tl, hz, tr, vt, bl, br = frame
    inner = w - 2
    body = _face_rows(spec, size, left=left) if spec.card is not None and not spec.empty else None
    rows: list[list[Cell]] = [[(tl, border), *[(hz, border)] * inner, (tr, border)]]
    for i in range(h - 2):
        if body is not None:
            text = body[i]
        elif spec.card is None and not spec.empty:
            text = "░" * inner
        else:
            text = " " * inner
        rows.append([(vt, border), *[(ch, ink) for ch in text], (vt, border)])
    rows.append([(bl, border), *[(hz, border)] * inner, (br, border)])
    return rows


def _face_rows(spec: CardSpec, size: CardSize, *, left: bool = False) -> list[str]:
    card = spec.card
    assert card is not None
    label, symbol = card.rank.label, card.suit.symbol
    if size.height <= 3:
        if left:  # only the left edge shows in a tight fan: keep the suit in sight
            return [f"{label}{symbol}".ljust(size.width - 2)]
        return [f"{label:>2}{symbol}".rjust(size.width - 2)]
    inner = size.width - 2
    corner = f"{label}{symbol}"
    middle = symbol.center(inner)
    rows = [corner.ljust(inner)]
    rows += [middle if i == (size.height - 4) // 2 else " " * inner for i in range(size.height - 4)]
    rows.append(corner.rjust(inner))
    return rows


def draw_cards(
    specs: Sequence[CardSpec],
    *,
    size: CardSize = SMALL,
    step: int | None = None,
    raise_selected: bool = False,
    width: int | None = None,
) -> list[Text]:
    """Lines drawing the cards left to right, each ``step`` cells after the last.

    A ``step`` below the card width overlaps the cards like a fanned pile (later cards on top).
    With ``raise_selected`` there is one extra line on top and chosen cards sit one line higher.
    ``width`` pads the lines to a fixed width.
    """
    step = size.width + 1 if step is None else step
    lift = 1 if raise_selected else 0
    height = size.height + lift
    total = step * (len(specs) - 1) + size.width if specs else 0
    plain = Style()
    grid: list[list[Cell]] = [[(" ", plain)] * max(total, width or 0) for _ in range(height)]
    tight = step < size.width - 1
    for i, spec in enumerate(specs):
        top = 0 if (raise_selected and spec.selected) or not lift else lift
        x = i * step
        for dy, row in enumerate(_card_cells(spec, size, left=tight)):
            grid[top + dy][x : x + len(row)] = row
    return [_cells_to_text(row) for row in grid]


def _cells_to_text(row: Sequence[Cell]) -> Text:
    text = Text(no_wrap=True, overflow="crop", end="")
    run: list[str] = []
    style: Style | None = None
    for ch, st in row:
        if st is not style and run:
            text.append("".join(run), style)
            run = []
        style = st
        run.append(ch)
    if run:
        text.append("".join(run), style)
    return text
