"""The SVG board (static/board.js): every score 0..121 readable from it, at three sizes.

A JS hook draws the board into the home page (the module is imported as the page imports it) and
sets the pegs to each score; the test reads the board's data (peg holes, labels, sizes) and checks
it against fifteentwo.app.pegboard, the geometry the terminal shares.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fifteentwo.app.pegboard import geometry, peg_holes

SIZES = {"phone": (390, 844), "tablet": (768, 1024), "desktop": (1440, 900)}

DRAW = """async ([target, labels, skunk, doubleSkunk]) => {
  const { drawBoard } = await import('/static/board.js');
  let box = document.getElementById('board-under-test');
  if (!box) {
    box = document.createElement('div');
    box.id = 'board-under-test';
    document.querySelector('main').prepend(box);
  }
  window.boardUnderTest = drawBoard(box, { target, skunk, doubleSkunk, labels });
  box.scrollIntoView();
}"""

READ = """([fronts, backs]) => {
  window.boardUnderTest.set(fronts, backs, { 0: 2 });
  const box = document.getElementById('board-under-test');
  const pegs = [...box.querySelectorAll('.peg')].map((p) => {
    const r = p.getBoundingClientRect();
    return { side: +p.dataset.side, kind: p.dataset.kind, score: +p.dataset.score,
             x: +p.dataset.x, y: +p.dataset.y, left: r.left, right: r.right, top: r.top,
             bottom: r.bottom };
  });
  const legend = [...box.querySelectorAll('.legend-score')].map((s) => ({
    text: s.textContent, size: parseFloat(getComputedStyle(s).fontSize) }));
  const holeAt = (side, score) => box.querySelector(
    score >= box.querySelector('svg').dataset.target ? '.game-hole'
      : `.hole[data-side="${side}"][data-score="${score}"]`);
  const onHole = [...box.querySelectorAll('.peg-front')].map((p) => {
    const h = holeAt(+p.dataset.side, +p.dataset.score);
    if (!h) return null;  // the start holes
    const a = p.getBoundingClientRect(), b = h.getBoundingClientRect();
    const dx = (a.left + a.right - b.left - b.right) / 2;
    return Math.hypot(dx, (a.top + a.bottom - b.top - b.bottom) / 2);
  });
  const marks = [...box.querySelectorAll('.mark')].map((m) => m.getBoundingClientRect().height);
  return { pegs, legend, marks, onHole, label: box.querySelector('svg').getAttribute('aria-label'),
           width: innerWidth, height: innerHeight,
           scroll: document.documentElement.scrollWidth };
}"""


@pytest.mark.parametrize("label", sorted(SIZES))
def test_every_score_reads_from_the_board(page: Any, server: str, shots: Path, label: str) -> None:
    width, height = SIZES[label]
    page.set_viewport_size({"width": width, "height": height})
    page.goto(server + "/")
    page.wait_for_selector("#opt-level option", state="attached")
    page.select_option("#speed", "instant")  # pegs land at once (no transition to wait for)
    page.evaluate(DRAW, [121, ["Alice", "Computer"], 91, 61])
    board = geometry(121, 2)
    marks = page.evaluate(
        "() => [...document.querySelectorAll('#board-under-test .mark')].map((m) => m.textContent)"
    )
    assert marks == [str(n) for n in range(5, 121, 5)] + ["121"]
    lines = page.evaluate(
        "() => [...document.querySelectorAll('#board-under-test .skunk-line')]"
        ".map((l) => +l.dataset.line)"
    )
    assert lines == [91, 61]
    for score in range(122):
        back = max(0, score - 3)
        other = 121 - score if score < 121 else 100
        data = page.evaluate(READ, [[score, other], [back, max(0, other - 5)]])
        assert data["scroll"] <= data["width"]
        assert [c["text"] for c in data["legend"]] == [str(score), str(other)]
        assert all(c["size"] >= 16 for c in data["legend"])
        assert all(h >= 8 for h in data["marks"]), data["marks"]
        assert f"Alice {score}" in data["label"] and f"Computer {other}" in data["label"]
        for side, (front_score, back_score) in enumerate(
            [(score, back), (other, max(0, other - 5))]
        ):
            want_front, want_back = peg_holes(board, side, front_score, back_score)
            front = next(p for p in data["pegs"] if p["side"] == side and p["kind"] == "front")
            backp = next(p for p in data["pegs"] if p["side"] == side and p["kind"] == "back")
            assert front["score"] == front_score
            assert (front["x"], front["y"]) == pytest.approx((want_front.x, want_front.y))
            assert (backp["x"], backp["y"]) == pytest.approx((want_back.x, want_back.y))
        assert all(d is None or d < 1 for d in data["onHole"]), data["onHole"]
        front = next(p for p in data["pegs"] if p["side"] == 0 and p["kind"] == "front")
        assert front["left"] >= 0 and front["right"] <= data["width"]
        assert front["top"] >= 0 and front["bottom"] <= data["height"]
        if score in (0, 45, 90, 121):
            page.locator("#board-under-test").screenshot(
                path=str(shots / f"board-{label}-{score}.png")
            )
    assert not page.errors


def test_a_short_game_and_three_sides(page: Any, server: str, shots: Path) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(server + "/")
    page.wait_for_selector("#opt-level option", state="attached")
    page.select_option("#speed", "instant")
    page.evaluate(DRAW, [61, ["Ann", "Bob", "Cy"], 31, None])
    assert page.evaluate(
        "() => [...document.querySelectorAll('#board-under-test .mark')].map((m) => m.textContent)"
    ) == [str(n) for n in range(5, 61, 5)] + ["61"]
    assert page.evaluate(
        "() => [...document.querySelectorAll('#board-under-test .skunk-line')]"
        ".map((l) => +l.dataset.line)"
    ) == [31]
    board = geometry(61, 3)
    data = page.evaluate(READ, [[12, 30, 61], [4, 22, 55]])
    for peg in data["pegs"]:
        want = peg_holes(board, peg["side"], *[[12, 4], [30, 22], [61, 55]][peg["side"]])
        hole = want[0] if peg["kind"] == "front" else want[1]
        assert (peg["x"], peg["y"]) == pytest.approx((hole.x, hole.y))
    page.locator("#board-under-test").screenshot(path=str(shots / "board-three-61.png"))
