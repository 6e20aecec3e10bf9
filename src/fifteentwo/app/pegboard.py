"""Where the holes and pegs of a cribbage board are, computed from the game's target.

One geometry for every front-end: the browser's SVG board (static/board.js follows the same
numbers, checked by tests/test_pegboard.py against this module) and the terminal. The board is
the usual long board laid flat: streets of 30 holes in groups of five, running left to right and
back again (a game to 121 has four streets, one to 61 two), the start holes before the first
street and the game hole at the end of the last. Each side has its own lane in every street.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BoardGeometry", "Hole", "geometry", "peg_holes"]

STREET = 30
"""Holes in one street (six groups of five)."""
HOLE = 11.0
"""Distance between two holes of a group, in board units."""
GROUP_GAP = 6.0
"""Extra space between two groups of five."""
LANE = 12.0
"""Distance between the lanes of two sides in one street."""
MARGIN = 28.0
"""Room left of the streets for the start and game holes."""
HEADER = 18.0
"""Room above each street for the 5/10 numbers."""


@dataclass(frozen=True)
class Hole:
    """A hole's centre in board units (x to the right, y down)."""

    x: float
    y: float


@dataclass(frozen=True)
class BoardGeometry:
    """The board for one target and number of sides (lanes)."""

    target: int
    sides: int

    @property
    def streets(self) -> int:
        """Streets needed for holes 1..target-1 (the game hole stands apart)."""
        return -(-(self.target - 1) // STREET)

    @property
    def street_height(self) -> float:
        return HEADER + self.sides * LANE + 6.0

    @property
    def width(self) -> float:
        return MARGIN + STREET * HOLE + 5 * GROUP_GAP + 8.0

    @property
    def height(self) -> float:
        return self.streets * self.street_height + 16.0

    def lane_y(self, street: int, side: int) -> float:
        return street * self.street_height + HEADER + side * LANE + LANE / 2

    def hole(self, side: int, score: int) -> Hole:
        """The hole a peg at ``score`` stands in: 1..target-1 on the streets, the target (or
        more) the game hole, 0 or less the first start hole."""
        if not 0 <= side < self.sides:
            raise ValueError(f"side {side} is not on a board of {self.sides} sides")
        if score >= self.target:
            last = self.streets - 1
            y = last * self.street_height + HEADER + self.sides * LANE / 2
            return Hole(MARGIN / 2, y)
        if score <= 0:
            return self.start_hole(side, 0)
        street, col = divmod(score - 1, STREET)
        if street % 2:  # streets run back and forth
            col = STREET - 1 - col
        x = MARGIN + col * HOLE + (col // 5) * GROUP_GAP + HOLE / 2
        return Hole(x, self.lane_y(street, side))

    def start_hole(self, side: int, which: int) -> Hole:
        """The two start holes of a side, left of the first street (pegs before any score)."""
        return Hole(4.0 + which * 9.0, self.lane_y(0, side))


def geometry(target: int, sides: int) -> BoardGeometry:
    """The board for a game to ``target`` with ``sides`` lanes (2, 3, or 2 for partners)."""
    if target < 2 or sides < 1:
        raise ValueError(f"no board for target {target} and {sides} sides")
    return BoardGeometry(target, sides)


def peg_holes(board: BoardGeometry, side: int, front: int, back: int) -> tuple[Hole, Hole]:
    """Where a side's front and back pegs stand: both in the start holes before any score, the
    back peg in a start hole until the side has scored twice."""
    front_hole = board.start_hole(side, 1) if front <= 0 else board.hole(side, front)
    back_hole = board.start_hole(side, 0) if back <= 0 else board.hole(side, back)
    return front_hole, back_hole
