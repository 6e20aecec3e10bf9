// The after-game pages: the history with statistics, and one game's review with its
// win-probability graph drawn as SVG. All numbers come from the server (web/stats.py, from
// fifteentwo.analysis.review): a mistake opens the position it was made in.

import { drawBoard } from "./board.js";
import { cardElement } from "./cards.js";

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

function table(headers, rows, caption) {
  const t = h("table");
  if (caption) t.append(h("caption", {}, caption));
  const head = h("tr");
  for (const name of headers) head.append(h("th", { scope: "col" }, name));
  t.append(h("thead", {}, head));
  const body = h("tbody");
  for (const row of rows) {
    const tr = h("tr");
    for (const cell of row) tr.append(h("td", {}, cell instanceof Node ? cell : String(cell ?? "")));
    body.append(tr);
  }
  t.append(body);
  return h("div", { class: "table-wrap" }, t);
}

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
// "AC 5H" as a player reads it: "A♣ 5♥" (ten as 10).
const cards = (text) => String(text).replace(/\b([2-9TJQKA])([SHDC])\b/g,
  (_, rank, suit) => (rank === "T" ? "10" : rank) + SUITS[suit]);

const pct = (x) => (x === null || x === undefined ? "–" : `${(100 * x).toFixed(0)}%`);

export async function showHistory(box, api) {
  box.innerHTML = "<p>Loading…</p>";
  const data = await api("/api/history");
  box.innerHTML = "";
  if (!data.games.length) {
    box.append(h("p", {}, "No finished games yet in this browser. ", h("a", { href: "#/" }, "Play one")));
    return;
  }
  box.append(h("h2", {}, "Results by level and variant"));
  box.append(table(
    ["level", "variant", "games", "won", "lost", "win rate", "skunks given", "skunks taken", "pegged / deal", "counted / deal", "best hand"],
    data.totals.map((t) => [t.levels, t.variant, t.games, t.wins, t.losses, pct(t.win_rate),
      t.skunks_given, t.skunks_taken, t.pegged_per_deal, t.counted_per_deal, t.best_hand ?? "–"]),
  ));
  box.append(h("h2", {}, "Points per deal by role"));
  box.append(table(["role", "deals", "pegged", "counted", "total"],
    Object.entries(data.roles).map(([role, r]) => [role, r.deals, r.pegged, r.counted, r.total])));
  box.append(h("h2", {}, "Games"));
  box.append(table(["when", "game", "against", "score", "result", ""],
    data.games.map((g) => [
      (g.finished_at || "").replace("T", " ").slice(0, 16), g.variant, g.levels,
      g.scores.join("–"), g.won === null ? "–" : (g.won ? "won" : "lost") + (g.skunk ? " (skunk)" : ""),
      h("a", { href: `#/review/${g.id}`, "aria-label": `review game ${g.id}` }, "review"),
    ])));
}

export async function showReview(box, api, id) {
  box.innerHTML = "<p>Reviewing the game (the expert judges every decision)…</p>";
  let r;
  try {
    r = await api(`/api/history/${encodeURIComponent(id)}/review`);
  } catch (err) {
    box.innerHTML = "";
    box.append(h("p", { class: "error" }, err.message));
    return;
  }
  box.innerHTML = "";
  const winner = r.winner === null ? "nobody" : r.players[r.winner];
  box.append(h("p", {}, `${r.players.join(" vs ")} (${r.rules_name}): ${r.final_scores.join("–")}, won by ${winner}.`));
  box.append(h("h2", {}, "Per player"));
  box.append(table(["player", "decisions", "mistakes", "expected points lost",
    "win chance lost (percentage points)", "luck"],
    r.seats.map((s) => [s.name, s.decisions, s.mistakes, s.points_lost.toFixed(2),
      s.win_points_lost.toFixed(1), (s.luck >= 0 ? "+" : "") + s.luck.toFixed(1)])));
  box.append(h("h2", {}, "Mistakes"));
  const mine = r.human_seat === null ? r.mistakes : r.mistakes.filter((m) => m.seat === r.human_seat);
  const where = h("div", { id: "review-position", class: "review-position panel", hidden: "" });
  if (!mine.length) box.append(h("p", {}, "No mistakes worth flagging."));
  else {
    box.append(h("p", { class: "small" }, "Open a mistake to see the position it was made in."));
    box.append(table(["deal", "kind", "chosen", "best", "cost", ""],
      mine.slice(0, 30).map((m, i) => {
        const open = h("button", { type: "button", class: "open-mistake", "data-index": String(i),
          "aria-label": `show the position of mistake ${i + 1}, deal ${m.deal}` }, "show");
        open.onclick = () => showPosition(where, r, m);
        return [m.deal, m.kind, cards(m.chosen), cards(m.best), m.cost, open];
      })));
    box.append(where);
  }
  box.append(h("h2", {}, "Luck by deal"));
  box.append(table(["deal", "dealer", "scores after", ...r.players.map((p) => `luck ${p}`)],
    r.deals.map((d) => [d.number, r.players[d.dealer], d.scores_after.join("–"),
      ...d.luck.map((x) => (x >= 0 ? "+" : "") + x.toFixed(1))])));
  box.append(h("h2", {}, `Win probability of ${r.players[0]}`));
  if (r.win_curve.length) box.append(graph(r.win_curve, r.players[0]));
  for (const note of [...r.notes, r.unit_note, r.win_note]) box.append(h("p", { class: "note" }, `Note: ${note}`));
}

function graph(curve, name) {
  const NS = "http://www.w3.org/2000/svg";
  const W = 600, H = 220, L = 36, R = 10, T = 10, B = 28;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `win probability of ${name} before each deal: ` +
    curve.map((p) => `${(100 * p.p_seat0).toFixed(0)}%`).join(", "));
  const x = (i) => L + (curve.length === 1 ? 0 : (i * (W - L - R)) / (curve.length - 1));
  const y = (p) => T + (1 - p) * (H - T - B);
  const add = (tag, attrs, text) => {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    svg.append(n);
    return n;
  };
  for (const p of [0, 0.5, 1]) {
    add("line", { x1: L, x2: W - R, y1: y(p), y2: y(p), class: "axis" });
    add("text", { x: 2, y: y(p) + 4 }, `${p * 100}%`);
  }
  add("polyline", { class: "line", points: curve.map((p, i) => `${x(i)},${y(p.p_seat0)}`).join(" ") });
  curve.forEach((p, i) => {
    const dot = add("circle", { cx: x(i), cy: y(p.p_seat0), r: 3, class: "dot" });
    const title = document.createElementNS(NS, "title");
    title.textContent = `${p.label}: ${(100 * p.p_seat0).toFixed(1)}% (${p.scores.join("–")})`;
    dot.append(title);
  });
  const every = Math.max(1, Math.ceil(curve.length / 8));
  curve.forEach((p, i) => {
    const last = i === curve.length - 1;
    if (i % every && !last) return;
    // the first label starts at its point, the last ends at it: both stay inside the graph
    const anchor = last && i ? "end" : i === 0 ? "start" : "middle";
    add("text", { x: x(i), y: H - 8, "text-anchor": anchor, class: "x-label" }, p.label);
  });
  const wrap = document.createElement("div");
  wrap.className = "graph";
  wrap.append(svg);
  return wrap;
}

// The position a mistake was made in: the hand, the pile and count, the starter, the scores on
// the board, and the choice made against the best with what each was worth.
function showPosition(box, r, m) {
  const p = m.position;
  box.replaceChildren();
  box.hidden = false;
  box.dataset.deal = String(m.deal);
  const whose = m.player === "You" ? "Your" : `${m.player}'s`;
  box.append(h("h3", {}, `Deal ${m.deal}: ${whose} ${m.kind}`));
  if (!p) {
    box.append(h("p", {}, "The position of this decision was not recorded."));
    return;
  }
  const row = (label, codes, cls) => {
    const div = h("div", { class: `position-row ${cls}`, role: "group", "aria-label": label });
    div.append(h("span", { class: "position-label" }, label));
    for (const c of codes) div.append(cardElement(c, { small: true }));
    return div;
  };
  box.append(row(`${whose} hand`, p.hand, "position-hand"));
  if (p.starter) box.append(row("starter", [p.starter], "position-starter"));
  if (m.kind === "play") {
    const pile = row("the pile", p.pile, "position-pile");
    pile.append(h("span", { class: "position-count" }, `count ${p.count}`));
    box.append(pile);
  }
  const board = h("div", { class: "position-board" });
  box.append(board);
  const sides = p.scores.length;
  const labels = sides === r.players.length ? r.players : p.scores.map((_, i) => `side ${i + 1}`);
  drawBoard(board, {
    target: p.target, skunk: p.skunk, doubleSkunk: p.double_skunk, labels,
  }).set(p.scores, p.scores);
  box.append(table(["", "choice", "worth"], [
    ["chosen", cards(m.chosen), m.chosen_value ?? "–"],
    ["best", cards(m.best), m.best_value ?? "–"],
  ]));
  box.append(h("p", { class: "position-cost" }, `Cost: ${m.cost}.`));
  box.scrollIntoView({ block: "nearest" });
}
