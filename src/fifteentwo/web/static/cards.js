// Cards drawn as SVG: rank and suit in two corners, the suit large in the middle. Red and
// black, and the four suit shapes differ, so a card reads without colour. Every card element
// carries its name in words ("five of hearts") for screen readers and tests.

const SVG = "http://www.w3.org/2000/svg";
const RANKS = { A: ["A", "ace"], 2: ["2", "two"], 3: ["3", "three"], 4: ["4", "four"],
  5: ["5", "five"], 6: ["6", "six"], 7: ["7", "seven"], 8: ["8", "eight"], 9: ["9", "nine"],
  T: ["10", "ten"], J: ["J", "jack"], Q: ["Q", "queen"], K: ["K", "king"] };
const SUITS = { S: ["♠", "spades", false], H: ["♥", "hearts", true],
  D: ["♦", "diamonds", true], C: ["♣", "clubs", false] };

export function cardName(code) {
  const [rank, suit] = [code.slice(0, -1).toUpperCase(), code.slice(-1).toUpperCase()];
  return `${RANKS[rank][1]} of ${SUITS[suit][1]}`;
}

export function cardShort(code) {
  const [rank, suit] = [code.slice(0, -1).toUpperCase(), code.slice(-1).toUpperCase()];
  return RANKS[rank][0] + SUITS[suit][0];
}

function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// The glyphs (ranks and suits) are drawn once, in a hidden sprite, and each card shows them with
// <use>: a card's only text is then its name ("five of hearts"), as a screen reader says it, so
// its accessible name and its visible text never disagree (axe's label-content-name-mismatch).
const GLYPH_SIZES = { rank: 15, pip: 13, centre: 34 };
function glyph(kind, text) {
  const id = `glyph-${kind}-${[...text].map((c) => c.codePointAt(0).toString(16)).join("-")}`;
  let sprite = document.getElementById("card-glyphs");
  if (!sprite) {
    sprite = el("svg", { id: "card-glyphs", "aria-hidden": "true", focusable: "false",
      width: 0, height: 0, class: "sprite" });
    sprite.append(el("defs", {}));
    document.body.append(sprite);
  }
  if (!document.getElementById(id)) {
    const attrs = { id, "font-size": GLYPH_SIZES[kind], "font-weight": "700",
      "font-family": "Georgia, 'Times New Roman', serif" };
    if (kind === "centre") { attrs["text-anchor"] = "middle"; attrs["dominant-baseline"] = "middle"; }
    sprite.firstChild.append(el("text", attrs, text));
  }
  return id;
}

function face(code) {
  const rank = RANKS[code.slice(0, -1).toUpperCase()][0];
  const [symbol, , red] = SUITS[code.slice(-1).toUpperCase()];
  const svg = el("svg", { viewBox: "0 0 60 84", class: "card-svg", "aria-hidden": "true",
    focusable: "false" });
  svg.append(el("rect", { x: 1, y: 1, width: 58, height: 82, rx: 5, class: "card-bg" }));
  const colour = red ? "red" : "black";
  const use = (kind, text, x, y) => el("use", { href: `#${glyph(kind, text)}`, x, y, class: kind });
  const corner = (x, y, rotate) => {
    const g = el("g", { class: colour, transform: rotate ? `rotate(180 30 42)` : "" });
    g.append(use("rank", rank, x, y), use("pip", symbol, x, y + 13));
    return g;
  };
  svg.append(corner(5, 16, false), corner(5, 16, true));
  const centre = el("g", { class: colour });
  centre.append(use("centre", symbol, 30, 53));
  svg.append(centre);
  return svg;
}

function back() {
  const svg = el("svg", { viewBox: "0 0 60 84", class: "card-svg", "aria-hidden": "true",
    focusable: "false" });
  svg.append(el("rect", { x: 1, y: 1, width: 58, height: 82, rx: 5, class: "card-back" }));
  svg.append(el("rect", { x: 6, y: 6, width: 48, height: 72, rx: 3, class: "card-back-inner" }));
  return svg;
}

// A card: a <button> when it can be chosen, else an image with its name.
export function cardElement(code, { button = false, small = false } = {}) {
  const node = document.createElement(button ? "button" : "span");
  node.className = "card" + (small ? " small" : "");
  node.dataset.card = code;
  node.setAttribute("aria-label", cardName(code));
  if (!button) node.setAttribute("role", "img");
  else node.type = "button";
  node.append(face(code));
  return node;
}

export function backElement({ small = false, label = "face-down card" } = {}) {
  const node = document.createElement("span");
  node.className = "card back" + (small ? " small" : "");
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", label);
  node.append(back());
  return node;
}
