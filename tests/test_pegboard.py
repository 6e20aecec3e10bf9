"""The board's computed geometry (fifteentwo.app.pegboard): every score has its own hole."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fifteentwo.app.pegboard import STREET, geometry, peg_holes


@pytest.mark.parametrize(("target", "streets"), [(121, 4), (61, 2)])
@pytest.mark.parametrize("sides", [2, 3])
def test_every_score_has_its_own_hole_in_its_lane(target: int, streets: int, sides: int) -> None:
    board = geometry(target, sides)
    assert board.streets == streets
    for side in range(sides):
        holes = [board.hole(side, score) for score in range(1, target)]
        assert len(set(holes)) == target - 1
        for h in holes:
            assert 0 < h.x < board.width and 0 < h.y < board.height
    lanes = {board.hole(side, 7).y for side in range(sides)}
    assert len(lanes) == sides


def test_streets_run_back_and_forth_in_groups_of_five() -> None:
    board = geometry(121, 2)
    assert board.hole(0, STREET).x == board.hole(0, STREET + 1).x  # the turn
    assert board.hole(0, 1).x < board.hole(0, 2).x
    assert board.hole(0, 31).x > board.hole(0, 32).x
    gap = board.hole(0, 6).x - board.hole(0, 5).x
    step = board.hole(0, 5).x - board.hole(0, 4).x
    assert gap > step  # a wider space between groups of five


def test_the_game_hole_and_the_start_holes_stand_apart() -> None:
    board = geometry(121, 2)
    game = board.hole(0, 121)
    assert game == board.hole(1, 121) == board.hole(0, 140)
    street = {board.hole(s, n) for s in range(2) for n in range(1, 121)}
    assert game not in street
    front, back = peg_holes(board, 0, 0, 0)
    assert front != back and front not in street and back not in street


@given(st.integers(0, 121), st.integers(0, 121), st.integers(0, 1))
def test_pegs_stand_in_the_holes_of_their_scores(front: int, back: int, side: int) -> None:
    board = geometry(121, 2)
    f, b = peg_holes(board, side, front, back)
    if front > 0:
        assert f == board.hole(side, front)
    if back > 0:
        assert b == board.hole(side, back)
    if front != back or front == 0:
        assert f != b


@pytest.mark.parametrize(("target", "sides", "side"), [(1, 2, 0), (121, 0, 0)])
def test_no_board_for_nonsense(target: int, sides: int, side: int) -> None:
    with pytest.raises(ValueError):
        geometry(target, sides)


def test_a_side_off_the_board_is_refused() -> None:
    with pytest.raises(ValueError):
        geometry(121, 2).hole(2, 5)
