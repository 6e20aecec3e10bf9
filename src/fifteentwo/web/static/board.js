// The cribbage board in SVG: it is the score. The geometry follows fifteentwo/app/pegboard.py
// (the same constants; tests/test_pegboard.py and the browser tests check they agree): streets of
// 30 holes in groups of five running back and forth, the start holes and the game hole on the left,
// one lane per side, the 5/10 holes numbered, the skunk lines drawn. Each side has a front and a
// back peg that leapfrog; the points just pegged are said beside the front peg ("+2").
// The board scores nothing: it draws the scores the server sends.

export const STREET = 30, HOLE = 11, GROUP_GAP = 6, LANE = 12, MARGIN = 28, HEADER = 18;
export const COLOURS = ["#e63946", "#f1faee", "#4cc9f0", "#ffd166"];
const SVG = "http://www.w3.org/2000/svg";

export function geometry(target, sides) {
  const streets = Math.ceil((target - 1) / STREET);
  const streetHeight = HEADER + sides * LANE + 6;
  const width = MARGIN + STREET * HOLE + 5 * GROUP_GAP + 8;
  const height = streets * streetHeight + 16;
  const laneY = (street, side) => street * streetHeight + HEADER + side * LANE + LANE / 2;
  const startHole = (side, which) => [4 + which * 9, laneY(0, side)];
  const hole = (side, score) => {
    if (score >= target) return [MARGIN / 2, (streets - 1) * streetHeight + HEADER + (sides * LANE) / 2];
    if (score <= 0) return startHole(side, 0);
    const street = Math.floor((score - 1) / STREET);
    let col = (score - 1) % STREET;
    if (street % 2) col = STREET - 1 - col;
    return [MARGIN + col * HOLE + Math.floor(col / 5) * GROUP_GAP + HOLE / 2, laneY(street, side)];
  };
  const pegHole = (side, score, kind) =>
    score <= 0 ? startHole(side, kind === "front" ? 1 : 0) : hole(side, score);
  return { target, sides, streets, streetHeight, width, height, laneY, hole, startHole, pegHole };
}

function el(name, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

// Draw a board into `box`: one lane per label (a side's name), skunk lines where the rules say.
// Returns an object whose set(fronts, backs, said) moves the pegs.
export function drawBoard(box, { target, skunk = null, doubleSkunk = null, labels }) {
  const sides = labels.length;
  const g = geometry(target, sides);
  box.replaceChildren();
  box.classList.add("board");
  const legend = document.createElement("ol");
  legend.className = "board-legend";
  const scoreCells = labels.map((label, side) => {
    const li = document.createElement("li");
    li.dataset.side = side;
    const swatch = document.createElement("span");
    swatch.className = `swatch swatch-${side}`;
    swatch.setAttribute("aria-hidden", "true");
    const name = document.createElement("span");
    name.className = "legend-name";
    name.textContent = label;
    name.title = label;
    const score = document.createElement("span");
    score.className = "legend-score";
    li.append(swatch, name, score);
    legend.append(li);
    return score;
  });
  const svg = el("svg", {
    viewBox: `0 0 ${g.width} ${g.height}`, role: "img", class: "board-svg",
    "data-target": target, "data-sides": sides,
  });
  for (let street = 0; street < g.streets; street++) {
    const top = street * g.streetHeight + HEADER - 3;
    svg.append(el("rect", {
      x: MARGIN - 3, y: top, width: STREET * HOLE + 5 * GROUP_GAP + 6,
      height: sides * LANE + 6, rx: 5, class: "street",
    }));
  }
  for (let side = 0; side < sides; side++) {
    for (const which of [0, 1]) {
      const [x, y] = g.startHole(side, which);
      svg.append(el("circle", { cx: x, cy: y, r: 2, class: "hole start-hole" }));
    }
    for (let score = 1; score < target; score++) {
      const [x, y] = g.hole(side, score);
      svg.append(el("circle", {
        cx: x, cy: y, r: score % 5 === 0 ? 2.3 : 1.8,
        class: score % 5 === 0 ? "hole hole-five" : "hole", "data-score": score, "data-side": side,
      }));
    }
  }
  // the 5/10 numbers above the lanes
  for (let score = 5; score < target; score += 5) {
    const [x] = g.hole(0, score);
    const street = Math.floor((score - 1) / STREET);
    svg.append(el("text", {
      x, y: street * g.streetHeight + HEADER - 6, class: score % 10 ? "mark mark-five" : "mark",
      "text-anchor": "middle", "data-mark": score,
    }, String(score)));
  }
  const [gx, gy] = g.hole(0, target);
  svg.append(el("circle", { cx: gx, cy: gy, r: 4, class: "hole game-hole", "data-score": target }));
  svg.append(el("text", {
    x: gx, y: gy + sides * LANE / 2 + 12, class: "mark game-mark", "text-anchor": "middle",
  }, String(target)));
  for (const [line, name] of [[skunk, "skunk"], [doubleSkunk, "double skunk"]]) {
    if (line === null || line === undefined || line <= 1 || line >= target) continue;
    // just before hole `line`, across every lane of its street
    const [x1] = g.hole(0, line - 1), [x2] = g.hole(0, line);
    const street = Math.floor((line - 1) / STREET);
    const atTurn = (line - 1) % STREET === 0;
    const x = atTurn ? x2 + (street % 2 ? HOLE / 2 : -HOLE / 2) : (x1 + x2) / 2;
    const top = street * g.streetHeight + HEADER - 3;
    svg.append(el("line", {
      x1: x, x2: x, y1: top, y2: top + sides * LANE + 6,
      class: "skunk-line", "data-line": line, "data-name": name,
    }));
    svg.append(el("text", {
      x: x + (street % 2 ? -3 : 3), y: top - 3,
      "text-anchor": street % 2 ? "end" : "start", class: "skunk-mark",
    }, name === "skunk" ? "skunk" : "2× skunk"));
  }
  const pegs = [];
  for (let side = 0; side < sides; side++) {
    const pair = {};
    for (const kind of ["back", "front"]) {
      const peg = el("circle", {
        cx: 0, cy: 0, r: 4.2, fill: COLOURS[side % 4], class: `peg peg-${kind}`,
        "data-side": side, "data-kind": kind,
      });
      svg.append(peg);
      pair[kind] = peg;
    }
    const said = el("text", { class: "said", "data-side": side, "text-anchor": "middle" });
    svg.append(said);
    pair.said = said;
    pegs.push(pair);
  }
  box.append(legend, svg);

  function place(peg, side, score, kind) {
    const [x, y] = g.pegHole(side, score, kind);
    peg.style.transform = `translate(${x}px, ${y}px)`;
    peg.dataset.score = String(Math.max(0, score));
    peg.dataset.x = String(x);
    peg.dataset.y = String(y);
  }

  function set(fronts, backs, said = {}) {
    const words = [];
    for (let side = 0; side < sides; side++) {
      const front = Math.min(fronts[side], target);
      place(pegs[side].back, side, backs[side], "back");
      place(pegs[side].front, side, front, "front");
      scoreCells[side].textContent = String(front);
      words.push(`${labels[side]} ${front}`);
      const t = pegs[side].said;
      if (said[side]) {
        const [x, y] = g.pegHole(side, front, "front");
        t.setAttribute("x", String(Math.min(Math.max(x, 14), g.width - 14)));
        t.setAttribute("y", String(y - 6));
        t.textContent = `+${said[side]}`;
        t.classList.remove("fade");
        void t.getBoundingClientRect();  // restart the fade
        t.classList.add("fade");
      } else t.textContent = "";
    }
    svg.setAttribute("aria-label", `board: ${words.join(", ")}; game to ${target}`);
    svg.dataset.scores = fronts.map((f) => Math.min(f, target)).join(",");
  }
  return { set, geometry: g, svg };
}
