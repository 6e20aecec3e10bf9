// The browser game. The server is the referee: this page sends intentions and draws what the
// server says (docs/web.md). It keeps no rules: legal moves, scores, counts and the words of
// every count come from the server. Pages: #/ (new game), #/game/ID, #/history, #/review/ID,
// and for tables with friends (tables.js) #/table/ID, #/watch/ID/TOKEN, #/account, #/leaderboard.

import { drawBoard } from "./board.js";
import { backElement, cardElement, cardName, cardShort } from "./cards.js";
import { showHistory, showReview } from "./review.js";
import {
  accountPage, leaderboardPage, listTables, refreshAccountNav, renderTablePanel,
  setupTableForm, sitPage, tableTokens,
} from "./tables.js";
import { setupLobby } from "./lobby.js";
import { talkClose, talkHistory, talkOpen, talkReceived, talkRefused } from "./talk.js";

const $ = (id) => document.getElementById(id);
const SPEEDS = { slow: 1.8, normal: 1, fast: 0.4, instant: 0 };
const store = {
  get(key, fallback) {
    try { return JSON.parse(localStorage.getItem("ft." + key)) ?? fallback; } catch { return fallback; }
  },
  set(key, value) { localStorage.setItem("ft." + key, JSON.stringify(value)); },
};

export function playerKey() {
  let key = store.get("player", null);
  if (!key) {
    const bytes = crypto.getRandomValues(new Uint8Array(18));
    key = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    store.set("player", key);
  }
  return key;
}

export async function api(path, options = {}) {
  // Every change is JSON: the server refuses anything else (a form on another site cannot send it).
  const changes = options.method && options.method !== "GET";
  const headers = { "x-player": playerKey(), ...(changes || options.body ? { "content-type": "application/json" } : {}) };
  const response = await fetch(path, { ...options, ...(changes && !options.body ? { body: "{}" } : {}), headers });
  const data = await response.json();
  if (!response.ok) throw new Error(data.message || response.statusText);
  return data;
}

// --- animation timing -------------------------------------------------------------------------

let speed = store.get("speed", "normal");
function factor() { return SPEEDS[speed] ?? 1; }
function pause(ms) {
  const f = factor();
  return f === 0 ? Promise.resolve() : new Promise((r) => setTimeout(r, ms * f));
}
function applySpeed() {
  $("speed").value = speed;
  document.documentElement.style.setProperty("--anim", String(factor()));
}

// --- the game connection ----------------------------------------------------------------------

const game = {
  id: null, token: null, ws: null, state: null, queue: Promise.resolve(), retry: 0,
  selected: new Set(), busy: false, closing: false, names: [], focus: 0,
  mode: "game",  // "game" (against the computer), "table" (a seat at a table) or "watch"
};
const atTable = () => game.mode !== "game";
const watching = () => game.mode === "watch";

function tokens() { return store.get("games", {}); }
function remember(id, token) { const t = tokens(); t[id] = token; store.set("games", t); }
function forget(id) { const t = tokens(); delete t[id]; store.set("games", t); }

function connect() {
  if (game.ws) { game.closing = true; game.ws.close(); }
  game.closing = false;
  game.greeted = false;  // no state yet on this connection
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  game.ws = ws;
  ws.onopen = () => {
    game.retry = 0;
    if (atTable()) ws.send(JSON.stringify({ type: "join", table: game.id, token: game.token }));
    else ws.send(JSON.stringify({ type: "hello", game: game.id, token: game.token }));
  };
  ws.onmessage = (e) => {
    const msg = JSON.parse(e.data);
    if (msg.type === "talk") { talkReceived(msg.message); return; }  // not behind animations
    game.queue = game.queue.then(() => receive(msg)).catch((err) => console.error(err));
  };
  ws.onclose = (e) => {
    if (game.ws !== ws || game.closing) return;
    $("conn").hidden = false;
    // 1012 (service restart) and 1001 (going away): this server process is shutting down, the
    // game is safe in the store, and the balancer sends the new connection to another process.
    const restart = e.code === 1012 || e.code === 1001;
    const wait = restart ? 50 : Math.min(5000, 300 * 2 ** game.retry++);
    setTimeout(() => { if (game.ws === ws && game.id) connect(); }, wait);
  };
}

function connected() { return Boolean(game.ws && game.ws.readyState === WebSocket.OPEN); }

function send(message) {
  if (connected()) { game.ws.send(JSON.stringify(message)); return true; }
  return false;
}

function act(action) {
  if (!game.state || !game.state.waiting || game.busy) return;
  $("hint-box").hidden = true;
  if (!connected()) {
    // kept, and sent when the connection is back if it is still this decision (see receive)
    game.pending = { decision: game.state.decision, action };
    $("status-line").textContent = "Not connected: your move will be sent when the connection is back.";
    $("page-game").dataset.pending = "1";
    return;
  }
  game.busy = true;
  actError("");
  game.unsent = { type: "act", decision: game.state.decision, action, tries: 0 };  // issue 35
  send({ type: "act", decision: game.state.decision, action });
  if (action.kind === "play") {  // the card leaves the hand at once (it is on its way to the pile)
    $("hand").querySelector(`button.card[data-card="${action.card}"]`)?.remove();
  }
  renderControls();
}

// After a reconnection: send the move kept while the server was away if it is still the move
// to make, or say it was not sent.
function flushPending(msg) {
  const pending = game.pending;
  if (!pending) return;
  game.pending = null;
  delete $("page-game").dataset.pending;
  const legal = msg.view?.legal ?? {};
  const a = pending.action;
  const still = msg.waiting && msg.decision === pending.decision && (
    (a.kind === "play" && (legal.play || []).includes(a.card))
    || (a.kind === "discard" && legal.discard === a.cards.length)
    || (a.kind === "go" && legal.go) || (a.kind === "count" && legal.count)
    || (a.kind === "muggins" && legal.muggins) || (a.kind === "cut" && legal.cut));
  if (still) { $("status-line").textContent = ""; act(a); }
  else $("status-line").textContent = "Your move made while disconnected was not sent: the game moved on.";
}

// --- issue 35: the server's store is in trouble: a banner, and the move sent again -------------

const RETRIES = 15;

function trouble(on, text) {
  let bar = $("trouble");
  if (!bar) {  // a bar in the page's flow above the board: it never covers the prompt
    bar = document.createElement("div");
    bar.id = "trouble";
    bar.className = "trouble";
    bar.setAttribute("role", "alert");
    const page = $("page-game");
    page.insertBefore(bar, page.firstChild);
  }
  bar.hidden = !on;
  bar.dataset.trouble = on ? "1" : "0";
  if (text) bar.textContent = text;
}

function retryUnsent() {
  const move = game.unsent;
  if (!move || !game.state || move.decision !== game.state.decision) { game.unsent = null; return; }
  if (move.tries++ >= RETRIES) {
    game.unsent = null;
    trouble(true, "The server is having trouble: your move was not sent. Try it again in a moment.");
    return;
  }
  trouble(true, "The server is having trouble saving games: your move will be sent again by itself…");
  game.busy = true;
  setTimeout(() => {
    if (game.unsent === move) send({ type: "act", decision: move.decision, action: move.action });
  }, 2000);
}

async function receive(msg) {
  $("conn").hidden = true;
  if (msg.type === "state") {
    if (msg.talk) talkHistory(msg.talk, msg.you);
    game.greeted = true;
    game.unsent = null;
    trouble(false);
    if (!msg.view) {  // a table still filling its seats
      game.state = msg;
      game.names = msg.names;
      game.busy = false;
      renderWaitingRoom(msg);
      return;
    }
    const first = !game.state || !game.state.view;
    if (msg.log) setLog(msg.log);
    const ended = msg.events.find((e) => e.type === "game_over");
    if (ended) game.overEvent = ended;
    else if (!msg.over) game.overEvent = null;
    if (!first && msg.events.length) await animate(msg.events);
    if (first || msg.decision !== game.state.decision) {
      $("count-input").value = ""; countError(""); actError("");
    }
    game.dealing = msg.events.some((e) => e.type === "dealt") && factor() > 0;
    game.state = msg;
    game.busy = false;
    game.busyTries = 0;
    game.names = msg.names;
    game.selected.clear();
    if (msg.remark) { $("remark").textContent = msg.remark; $("remark").hidden = false; }
    else if (msg.events.length) $("remark").hidden = true;
    render();
    flushPending(msg);
    if (msg.over) gameOver(msg);
    else $("over").hidden = true;
  } else if (msg.type === "hint") {
    showHint(msg);
  } else if (msg.type === "error") {
    game.busy = false;
    if (msg.code === "unavailable" && !game.greeted) {
      // the store could not be read to open the game: the game is kept (its token too); ask again
      trouble(true, "The server cannot reach its game store just now: trying again…");
      const ws = game.ws;
      setTimeout(() => { if (game.ws === ws && game.id) connect(); }, 2000);
      return;
    }
    if (msg.code === "unavailable") { retryUnsent(); renderControls(); return; }
    if (msg.code === "no_table") {
      $("status-line").textContent = "This link does not open a table: it is closed, or the link is wrong.";
      game.closing = true;
      game.ws.close();
      game.id = null;
      return;
    }
    if (msg.code === "no_game") {
      forget(game.id);
      $("status-line").textContent = "This game is no longer in progress: it is finished or was abandoned. ";
      const link = document.createElement("a");
      link.href = "#/history";
      link.textContent = "See the history";
      $("status-line").append(link);
      game.closing = true;
      game.ws.close();
      game.id = null;
      return;
    }
    if (msg.code === "slow_down") { talkRefused(msg.message); return; }
    if (msg.code === "bad_count") { countError(msg.message); renderControls(); return; }  // by the box
    actError(msg.message);  // (beside the controls: the status line is redrawn at once)
    if (msg.code === "stale") send({ type: "state" });
    if (msg.code === "busy") {  // held by a process that is shutting down: ask again shortly
      const ws = game.ws;
      const wait = Math.min(5000, 500 * 2 ** (game.busyTries = (game.busyTries || 0) + 1));
      setTimeout(() => { if (game.ws === ws && game.id) connect(); }, wait);
    }
    renderControls();
  }
}

// --- drawing the table ------------------------------------------------------------------------

function seatName(seat) { return game.names[seat] ?? `seat ${seat + 1}`; }

// "your crib" for the player's own seat, "Alice's crib" for anyone else (spectators see names).
function possessive(seat, capital = false) {
  if (!watching() && game.state?.view && seat === game.state.view.seat) return capital ? "Your" : "your";
  const name = seatName(seat);
  if (name === "You") return capital ? "Your" : "your";
  return `${name}'s`;
}

function sideOf(view, seat) { return view.partnerships ? seat % 2 : seat; }

function render() {
  const s = game.state;
  if (!s) return;
  const v = s.view;
  $("page-game").dataset.phase = v.phase;
  $("page-game").classList.toggle("watching", watching());
  renderTablePanel(s.table ?? null, s.you, game.names);
  renderOpponents(v);
  renderCentre(v.pile, v.count, v.starter, v);
  renderBoard(s.pegs.front, s.pegs.back, v);
  $("my-name").innerHTML = "";
  const me = document.createElement("span");
  me.textContent = `${seatName(v.seat)}`;
  const score = document.createElement("span");
  score.className = "score";
  score.textContent = String(v.scores[v.side]);
  score.title = "score";
  $("my-name").append(me, score);
  if (v.dealer === v.seat) $("my-name").append(" · dealer");
  renderPlayed($("my-played"), v, v.seat);
  renderHand();
  renderControls();
  $("coach-toggle").checked = s.coach;
}

function renderOpponents(v) {
  const box = $("opponents");
  box.innerHTML = "";
  const away = new Set((game.state.table?.seats ?? []).filter((s) => s.away).map((s) => s.seat));
  const others = watching()
    ? Array.from({ length: v.players }, (_, i) => i)
    : Array.from({ length: v.players - 1 }, (_, i) => (v.seat + i + 1) % v.players);
  for (const seat of others) {
    const div = document.createElement("div");
    div.className = "seat" + (v.to_move === seat ? " to-move" : "");
    div.dataset.seat = seat;
    const name = document.createElement("div");
    name.className = "seat-name";
    const side = sideOf(v, seat);
    const partner = v.partnerships && side === v.side && seatName(seat) !== "Partner" ? " (partner)" : "";
    name.innerHTML = "";
    name.append(`${seatName(seat)}${partner}${v.dealer === seat ? " · dealer" : ""}`);
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = String(v.scores[side]);
    name.append(score);
    if (away.has(seat)) {
      const mark = document.createElement("span");
      mark.className = "seat-away";
      mark.textContent = "away";
      name.append(mark);
    }
    const backs = document.createElement("div");
    backs.className = "backs";
    backs.setAttribute("role", "group");
    backs.setAttribute("aria-label", `${seatName(seat)} holds ${v.hand_sizes[seat]} cards`);
    for (let k = 0; k < v.hand_sizes[seat]; k++) backs.append(backElement({ small: true }));
    const played = document.createElement("div");
    played.className = "played";
    played.setAttribute("role", "group");
    renderPlayed(played, v, seat);
    div.append(name, backs, played);
    box.append(div);
  }
}

function renderPlayed(box, v, seat) {
  box.innerHTML = "";
  const shown = v.shown.find(([s, crib]) => s === seat && !crib);
  const cards = shown ? shown[2] : v.played.filter(([s]) => s === seat).map(([, c]) => c);
  for (const c of cards) box.append(cardElement(c, { small: true }));
  box.setAttribute("aria-label", `${seatName(seat)}: ${shown ? "hand shown" : "cards played"}`);
}

function renderCentre(pile, count, starter, v) {
  const p = $("pile");
  p.innerHTML = "";
  for (const c of pile) p.append(cardElement(c));
  $("count").textContent = String(count);
  $("count").setAttribute("aria-label", `count ${count}`);
  const st = $("starter");
  st.innerHTML = "";
  st.append(starter ? cardElement(starter, { small: true }) : backElement({ small: true, label: "the pack" }));
  st.append(starter ? "starter" : "pack");
  const crib = $("crib");
  crib.innerHTML = "";
  const shownCrib = v.shown.find(([, isCrib]) => isCrib);
  const cribSize = v.phase === "discard" || v.phase === "deal" ? 0 : 4;
  if (shownCrib) for (const c of shownCrib[2]) crib.append(cardElement(c, { small: true }));
  else if (cribSize || v.discards.length) crib.append(backElement({ small: true, label: "the crib, face down" }));
  crib.append(`${possessive(v.dealer, true)} crib`);
}

// The board is redrawn only when its shape or names change; otherwise its pegs move.
function renderBoard(fronts, backs, v) {
  const labels = Array.from({ length: v.sides }, (_, i) => sideLabel(v, i));
  const key = JSON.stringify([v.target, v.skunk, v.double_skunk, labels]);
  if (!game.board || game.boardKey !== key || !$("board").contains(game.board.svg)) {
    game.board = drawBoard($("board"), {
      target: v.target, skunk: v.skunk ?? null, doubleSkunk: v.double_skunk ?? null, labels,
    });
    game.boardKey = key;
  }
  game.board.set(fronts, backs);
  announceScores(labels, fronts);
}

// Screen readers hear the scores when they change (the count has its own live region).
function announceScores(labels, fronts) {
  const text = `Scores: ${labels.map((l, i) => `${l} ${fronts[i]}`).join(", ")}.`;
  if ($("score-news").textContent !== text) $("score-news").textContent = text;
}

function sideLabel(v, side) {
  if (!v.partnerships) return seatName(side);
  if (watching()) return `${seatName(side)} & ${seatName(side + 2)}`;
  return side === v.side ? "Us" : "Them";
}

function movePeg(fronts, backs, side, points) {
  if (!game.board) return;
  game.board.set(fronts, backs, { [side]: points });
  const v = game.state.view;
  announceScores(Array.from({ length: v.sides }, (_, i) => sideLabel(v, i)), fronts);
}

function renderHand() {
  const s = game.state;
  const v = s.view;
  const hand = $("hand");
  hand.innerHTML = "";
  const legal = v.legal;
  const playable = new Set(legal.play || []);
  v.hand.forEach((code, i) => {
    const card = cardElement(code, { button: true });
    card.dataset.index = i + 1;
    if (game.selected.has(code)) card.classList.add("selected");
    const canDiscard = s.waiting && legal.discard;
    const canPlay = s.waiting && playable.has(code);
    card.disabled = !(canDiscard || canPlay) || game.busy;
    card.setAttribute("aria-pressed", game.selected.has(code) ? "true" : "false");
    card.addEventListener("click", () => {
      if (card.dataset.dragged) { delete card.dataset.dragged; return; }
      chooseCard(code);
    });
    enableDrag(card, code);
    if (game.dealing) {  // a new deal: the cards come in one by one
      card.classList.add("enter");
      card.style.animationDelay = `${i * 90 * factor()}ms`;
    }
    hand.append(card);
  });
  if (!v.hand.length && v.kept.length && v.phase !== "discard") {
    for (const c of v.kept) hand.append(cardElement(c));
  }
}

// Drag a card onto the table (the pile or the crib) to play it or lay it away; a short
// movement is still a click. Pointer events, so it works with a finger as with a mouse.
function enableDrag(card, code) {
  card.addEventListener("pointerdown", (down) => {
    if (card.disabled || down.button !== 0) return;
    let moved = false;
    card.setPointerCapture(down.pointerId);
    const move = (ev) => {
      const dx = ev.clientX - down.clientX, dy = ev.clientY - down.clientY;
      if (!moved && Math.hypot(dx, dy) < 10) return;
      moved = true;
      card.classList.add("dragging");
      card.style.transform = `translate(${dx}px, ${dy}px)`;
    };
    const up = (ev) => {
      card.removeEventListener("pointermove", move);
      card.removeEventListener("pointerup", up);
      card.removeEventListener("pointercancel", up);
      card.classList.remove("dragging");
      card.style.transform = "";
      if (!moved || ev.type === "pointercancel") return;
      card.dataset.dragged = "1";  // the click that follows is not a second choice
      card.style.visibility = "hidden";
      const target = document.elementFromPoint(ev.clientX, ev.clientY);
      card.style.visibility = "";
      dropCard(code, target);
    };
    card.addEventListener("pointermove", move);
    card.addEventListener("pointerup", up);
    card.addEventListener("pointercancel", up);
  });
}

function dropCard(code, target) {
  const s = game.state;
  if (!s || !s.waiting || game.busy || !target || !target.closest(".table-centre")) return;
  const legal = s.view.legal;
  if (legal.play && legal.play.includes(code)) {
    act({ kind: "play", card: code });
  } else if (legal.discard) {
    if (!game.selected.has(code)) chooseCard(code);
    if (game.selected.size === legal.discard) act({ kind: "discard", cards: [...game.selected] });
  }
}

function chooseCard(code) {
  game.dealing = false;
  const s = game.state;
  if (!s || !s.waiting || game.busy) return;
  const legal = s.view.legal;
  if (legal.discard) {
    if (game.selected.has(code)) game.selected.delete(code);
    else if (game.selected.size < legal.discard) game.selected.add(code);
    renderHand();
    renderControls();
  } else if (legal.play && legal.play.includes(code)) {
    act({ kind: "play", card: code });
  }
}

function renderControls() {
  const s = game.state;
  if (!s) return;
  const v = s.view, legal = v.legal;
  const mine = s.waiting && !game.busy;
  $("btn-discard").hidden = !(s.waiting && legal.discard);
  $("btn-discard").disabled = !mine || game.selected.size !== legal.discard;
  $("btn-go").hidden = !(s.waiting && legal.go);
  $("btn-go").disabled = !mine;
  $("count-box").hidden = !(s.waiting && legal.count);
  $("muggins-box").hidden = !(s.waiting && legal.muggins);
  $("cut-box").hidden = !(s.waiting && legal.cut);
  if (legal.cut) {
    $("cut-input").min = legal.cut[0]; $("cut-input").max = legal.cut[1];
    if (!$("cut-input").value) $("cut-input").value = Math.round((legal.cut[0] + legal.cut[1]) / 2);
  }
  $("btn-hint").disabled = !mine || !(legal.discard || legal.play);
  for (const id of ["btn-hint", "btn-undo"]) $(id).hidden = atTable();
  $("coach-toggle").closest("label").hidden = atTable();
  $("btn-undo").disabled = !s.can_undo || game.busy;
  document.querySelector(".me").classList.toggle("to-move", s.waiting);
  const page = $("page-game");
  page.dataset.decision = String(s.decision);
  page.dataset.ready = mine && !s.over ? "1" : "0";
  page.dataset.over = s.over ? "1" : "0";
  for (const b of document.querySelectorAll("#hand button.card")) {
    const code = b.dataset.card;
    b.disabled = !mine || !(legal.discard || (legal.play || []).includes(code));
  }
  let prompt = "";
  if (s.over) prompt = "Game over.";
  else if (game.busy) prompt = "…";
  else if (s.waiting && legal.discard) {
    const crib = possessive(v.dealer);
    prompt = `Lay away ${legal.discard} for ${crib} crib`;
  } else if (s.waiting && legal.play) prompt = `Play a card (count ${v.count})`;
  else if (s.waiting && legal.go) prompt = `No card fits: say go (count ${v.count})`;
  else if (s.waiting && legal.count) {
    const what = v.counting_crib ? "your crib" : "your hand";
    prompt = `Count ${what}: ${v.to_count.map(cardShort).join(" ")} with ${cardShort(v.starter)}`;
  } else if (s.waiting && legal.muggins) {
    // the server's sentence (web/view.py muggins_json): a short claim by the claim alone (spot
    // the miss: the count comes after the answer), or the excess of an over-claim
    prompt = s.muggins ? s.muggins.prompt : "Muggins: call muggins on that count?";
  }
  else if (s.waiting && legal.cut) prompt = "Cut the pack";
  else if (watching()) prompt = `Watching: ${seatName(v.to_move ?? 0)} to move`;
  else if (!s.waiting) prompt = `Waiting for ${seatName(v.to_move ?? 0)}…`;
  $("prompt").textContent = prompt;
  $("status-line").textContent = statusText(v);
  if (s.waiting && legal.count) renderCountCards(v);
}

// A count the server could not read (bad_count), said by the box; "" clears it.
function countError(text) {
  $("count-error").textContent = text;
  $("count-error").hidden = !text;
}

// Why the server refused a move or a take-back (not your turn, not legal, cannot take back),
// under the controls until the game moves on or another move is sent; "" clears it.
function actError(text) {
  $("act-error").textContent = text;
  $("act-error").hidden = !text;
}

function renderCountCards(v) {
  const hand = $("hand");
  hand.innerHTML = "";
  for (const c of v.to_count) hand.append(cardElement(c));
  const st = cardElement(v.starter);
  st.classList.add("starter-card");
  hand.append(st);
}

function statusText(v) {
  const scores = Array.from({ length: v.sides }, (_, i) => `${sideLabel(v, i)} ${v.scores[i]}`);
  return `${scores.join(" · ")} — to ${v.target} · ${v.phase}`;
}

// --- events, one at a time ----------------------------------------------------------------------

const WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
  "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"];
// Points as they are said at the table ("fifteen for two"); the number comes from the server.
function say(n) { return WORDS[n] ?? String(n); }

function bubble(text, ms = 900) {
  const b = $("bubble");
  b.textContent = text;
  b.classList.add("on");
  return pause(ms).then(() => b.classList.remove("on"));
}

function log(text) {
  if (!text) return;
  const li = document.createElement("li");
  li.textContent = text;
  $("log").append(li);
  $("log").scrollTop = $("log").scrollHeight;
}

function setLog(lines) {
  $("log").innerHTML = "";
  for (const line of lines) log(line);
}

async function animate(events) {
  const prev = game.state.view;
  const pile = [...prev.pile];
  const fronts = [...game.state.pegs.front], backs = [...game.state.pegs.back];
  for (const e of events) {
    log(e.text);
    if (factor() === 0 && e.type !== "hand_counted" && e.type !== "claim_verdict") continue;
    switch (e.type) {
      case "card_played": {
        pile.push(e.card);
        renderPileOnly(pile, e.count, e.seat === prev.seat);
        await pause(450);
        break;
      }
      case "go":
        await bubble(`${seatName(e.seat)}: go`, 700);
        break;
      case "count_reset":
        pile.length = 0;
        await pause(350);
        renderPileOnly(pile, 0, false);
        break;
      case "starter":
        $("starter").innerHTML = "";
        $("starter").append(cardElement(e.card, { small: true }), "starter");
        $("starter").firstChild.classList.add("enter-top");
        await pause(500);
        break;
      case "scored": {
        backs[e.side] = fronts[e.side];
        fronts[e.side] = e.score;
        movePeg(fronts, backs, e.side, e.points);
        if (e.reason === "play") {
          lightPile(e.items);
          const words = e.items.map((i) => `${i.kind} for ${say(i.points)}`).join(", ");
          await bubble(`${seatName(e.seat)}: ${words}`, 1100);
          lightPile([]);
        } else if (e.reason !== "hand" && e.reason !== "crib") {
          await bubble(`${seatName(e.seat)}: ${e.points} ${e.reason}`, 900);
        } else await pause(500);
        break;
      }
      case "hand_counted":
      case "claim_verdict":  // a claim shown alone while muggins was decided, now counted in full
        await showCount(e);
        break;
      case "dealt":
        await pause(300);
        break;
      case "discarded":
        await pause(200);
        break;
      default:
        break;
    }
  }
}

function renderPileOnly(pile, count, mine) {
  const p = $("pile");
  p.innerHTML = "";
  pile.forEach((c, i) => {
    const el = cardElement(c);
    if (i === pile.length - 1) el.classList.add(mine ? "enter" : "enter-top");
    p.append(el);
  });
  $("count").textContent = String(count);
}

function lightPile(items) {
  const lit = new Set(items.flatMap((i) => i.cards));
  for (const el of $("pile").querySelectorAll(".card")) el.classList.toggle("lit", lit.has(el.dataset.card));
}

// The show, hand by hand: each scoring combination lit in turn, the count said in words. A hand
// whose muggins question is pending comes with its claim alone (total null: spot the miss); its
// full count follows the answer (claim_verdict).
async function showCount(e) {
  const box = $("show");
  const mine = game.state && e.seat === game.state.view.seat;
  const owner = mine ? "Your" : `${seatName(e.seat)}'s`;
  const whose = `${owner} ${e.crib ? "crib" : "hand"}`;
  const held = e.total === null;
  $("show-title").textContent = held ? `${whose}: claims ${e.claimed}`
    : `${whose}: ${e.total}` + (e.claimed !== e.total ? ` (claimed ${e.claimed})` : "");
  const cards = $("show-cards");
  cards.innerHTML = "";
  for (const c of e.cards) cards.append(cardElement(c));
  const st = cardElement(e.starter);
  st.classList.add("starter-card");
  cards.append(st);
  box.hidden = false;
  const say = $("show-say");
  say.textContent = "";
  if (held) say.textContent = e.text ?? `claims ${e.claimed}`;
  if (!held && store.get("speak", false) && "speechSynthesis" in window && e.items.length) {
    speechSynthesis.speak(new SpeechSynthesisUtterance(e.say));
  }
  let running = 0;
  const instant = factor() === 0;
  if (!instant && !held) {
    const words = e.say.split(", ");
    e.items.forEach((item, i) => { item.upto = Math.ceil(((i + 1) * words.length) / e.items.length); });
    for (const item of e.items) {
      running += item.points;
      const lit = new Set(item.cards);
      for (const el of cards.querySelectorAll(".card")) el.classList.toggle("lit", lit.has(el.dataset.card));
      say.textContent = words.slice(0, item.upto).join(", ");
      say.dataset.running = String(running);
      await pause(900);
    }
    for (const el of cards.querySelectorAll(".card")) el.classList.remove("lit");
  }
  if (!held) {
    say.textContent = e.total ? e.say : "nineteen (nothing)";
    if (e.claimed !== e.total) say.textContent += ` — ${e.total}, claimed ${e.claimed}`;
  }
  if (instant) { await Promise.resolve(); box.hidden = true; return; }
  await new Promise((resolve) => {
    const next = $("show-next");
    const done = () => { clearTimeout(timer); next.onclick = null; resolve(); };
    next.onclick = done;
    const timer = setTimeout(done, 1800 * factor() + 600);
    next.focus();
  });
  box.hidden = true;
}

function showHint(msg) {
  const box = $("hint-box");
  box.hidden = false;
  box.innerHTML = "";
  const title = document.createElement("strong");
  title.textContent = "Coach: ";
  box.append(title);
  const ol = document.createElement("ol");
  for (const line of msg.lines) {
    const li = document.createElement("li");
    li.textContent = line.replace(/^\d+\.\s*/, "");
    ol.append(li);
  }
  box.append(ol);
  const best = msg.best;
  const cards = best ? (best.cards || (best.card ? [best.card] : [])) : [];
  for (const b of document.querySelectorAll("#hand button.card")) {
    b.classList.toggle("best", cards.includes(b.dataset.card));
  }
}

function gameOver(s) {
  const v = s.view;
  const mineWon = v.scores[v.side] >= v.target;
  const winner = v.scores.findIndex((x) => x >= v.target);
  $("over-title").textContent = watching() ? `${sideLabel(v, winner)} won` : mineWon ? "You win!" : "You lose";
  const scores = Array.from({ length: v.sides }, (_, i) => `${sideLabel(v, i)} ${v.scores[i]}`);
  const over = game.overEvent;
  const skunk = over ? ["", "a skunk", "a double skunk"][over.skunk] ?? "" : "";
  $("over-text").textContent = scores.join(", ") + (skunk ? ` — ${skunk}` : "");
  $("over").dataset.skunk = String(over ? over.skunk : 0);
  const review = $("over-review");
  review.onclick = null;
  if (s.finished.length) { review.href = `#/review/${s.finished[s.finished.length - 1]}`; review.hidden = false; }
  else if (atTable() && !watching()) {
    // a table game is kept in each person's history once stored: open the newest one there
    review.href = "#/history";
    review.hidden = false;
    review.onclick = (e) => { e.preventDefault(); openTableReview(); };
  } else review.hidden = true;
  $("over").hidden = false;
  $("btn-rematch").hidden = !atTable() || watching();
  $("btn-rematch").disabled = false;
  const asked = (s.table?.seats ?? []).filter((x) => x.rematch).map((x) => seatName(x.seat));
  $("rematch-note").textContent = atTable()
    ? (asked.length ? `Rematch asked by ${asked.join(", ")}; the loser deals first.` : "A rematch starts when every person asks; the loser deals first.")
    : "";
  if (!atTable()) forget(game.id);
}

// The review of the table game just finished: the newest table game in this person's history
// (the server stores it as the game ends; a few tries cover the moment before it is written).
async function openTableReview() {
  const started = Date.now();
  for (let tries = 0; tries < 6; tries++) {
    try {
      const data = await api("/api/history");
      const found = data.games.find((g) => g.kind === "table"
        && (!g.finished_at || Date.parse(g.finished_at) >= started - 15 * 60_000));
      if (found) { location.hash = `#/review/${found.id}`; return; }
    } catch { /* try again */ }
    await new Promise((r) => setTimeout(r, 500));
  }
  location.hash = "#/history";
}

// A table waiting for its seats to fill: who is there, and the links to share.
function renderWaitingRoom(msg) {
  $("page-game").dataset.phase = "waiting";
  $("page-game").dataset.ready = "0";
  renderTablePanel(msg.table, msg.you, msg.names);
  const free = msg.table.seats.filter((x) => !x.taken).length;
  $("status-line").textContent = msg.table.status === "open"
    ? `Waiting for ${free} more ${free === 1 ? "person" : "people"}: send them the seat link.`
    : `Table ${msg.table.status}.`;
  if (msg.table.rating_rule) $("status-line").textContent += ` ${msg.table.rating_rule}`;  // issue 35
  $("prompt").textContent = "";
  $("hand").innerHTML = "";
  $("opponents").innerHTML = "";
  // hints, undo and the coach belong to games against the computer
  for (const id of ["btn-hint", "btn-undo"]) $(id).hidden = true;
  $("coach-toggle").closest("label").hidden = true;
}

// --- controls and keys --------------------------------------------------------------------------

function bindControls() {
  $("btn-discard").onclick = () => {
    if (game.state && game.selected.size === game.state.view.legal.discard) {
      act({ kind: "discard", cards: [...game.selected] });
    }
  };
  $("btn-go").onclick = () => act({ kind: "go" });
  // The count as typed, digits or words ("14", "fourteen", "nothing"): the server reads it with
  // the terminal's parser (parse_count) and answers bad_count, shown by the box, if it is none.
  $("btn-count").onclick = () => {
    countError("");
    act({ kind: "count", points: $("count-input").value.trim().slice(0, 40) });
  };
  $("count-input").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); $("btn-count").click(); } });
  $("count-input").addEventListener("input", () => countError(""));
  $("btn-muggins-take").onclick = () => act({ kind: "muggins", take: true });
  $("btn-muggins-leave").onclick = () => act({ kind: "muggins", take: false });
  $("btn-cut").onclick = () => {
    const n = Number.parseInt($("cut-input").value, 10);
    if (Number.isInteger(n)) act({ kind: "cut", depth: n });
  };
  $("btn-hint").onclick = () => send({ type: "hint" });
  $("btn-rematch").onclick = () => {
    $("btn-rematch").disabled = true;
    $("rematch-note").textContent = "Waiting for the others to agree…";
    send({ type: "rematch" });
  };
  $("btn-undo").onclick = () => {
    if (game.state) { game.busy = true; send({ type: "undo", decision: game.state.decision }); }
  };
  $("coach-toggle").onchange = (e) => send({ type: "coach", on: e.target.checked });
  $("speak").checked = store.get("speak", false);
  $("speak").onchange = (e) => store.set("speak", e.target.checked);
  $("speed").onchange = (e) => { speed = e.target.value; store.set("speed", speed); applySpeed(); };
  document.addEventListener("keydown", onKey);
}

function onKey(e) {
  if ($("page-game").hidden || !game.state) return;
  const target = e.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) return;
  const cards = [...document.querySelectorAll("#hand button.card")];
  if (/^[1-9]$/.test(e.key)) {
    const card = cards[Number(e.key) - 1];
    if (card && !card.disabled) { chooseCard(card.dataset.card); game.focus = Number(e.key) - 1; focusCard(); }
    e.preventDefault();
  } else if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
    if (!cards.length) return;
    game.focus = (game.focus + (e.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length;
    focusCard();
    e.preventDefault();
  } else if (e.key === "Enter") {
    if (!$("show").hidden) { $("show-next").click(); e.preventDefault(); return; }
    const legal = game.state.view.legal;
    if (legal.discard && game.selected.size === legal.discard) { $("btn-discard").click(); e.preventDefault(); }
    else if (legal.go && !legal.play) { $("btn-go").click(); e.preventDefault(); }
    else if (target instanceof HTMLButtonElement) return;
    else if (cards[game.focus] && !cards[game.focus].disabled) { cards[game.focus].click(); e.preventDefault(); }
  } else if (e.key === "g" || e.key === "G") {
    if (!$("btn-go").hidden) $("btn-go").click();
  } else if (e.key === "h" || e.key === "H") {
    if (!$("btn-hint").disabled) $("btn-hint").click();
  } else if (e.key === "u" || e.key === "U") {
    if (!$("btn-undo").disabled) $("btn-undo").click();
  }
}

function focusCard() {
  const cards = [...document.querySelectorAll("#hand button.card")];
  if (cards[game.focus]) cards[game.focus].focus();
}

// --- pages -------------------------------------------------------------------------------------

function showPage(name) {
  for (const page of document.querySelectorAll(".page")) page.hidden = page.id !== `page-${name}`;
}

async function homePage() {
  showPage("home");
  leaveGame();
  const options = await api("/api/options");
  setupTableForm(options, api);
  setupLobby(api, options);
  listTables();
  const variant = $("opt-variant"), level = $("opt-level");
  if (!variant.options.length) {
    for (const v of options.variants) variant.append(new Option(v.label, v.name));
    for (const l of options.levels) level.append(new Option(l, l, false, l === options.default_level));
    const saved = store.get("options", null);
    if (saved) {
      variant.value = saved.variant; level.value = saved.level; $("opt-count").value = saved.count;
      $("opt-coach").checked = saved.coach; $("opt-cut").checked = saved.cut;
    }
  }
  const known = tokens();
  const games = (await api("/api/games")).games.filter((g) => known[g.id]);
  $("resume-box").hidden = !games.length;
  const list = $("resume-list");
  list.innerHTML = "";
  for (const g of games) {
    const li = document.createElement("li");
    li.textContent = `${g.variant} against ${g.opponent}: ${g.scores.join("–")}`;
    const a = document.createElement("a");
    a.className = "button primary";
    a.href = `#/game/${g.id}`;
    a.textContent = "Resume";
    a.setAttribute("aria-label", `resume ${g.variant} against ${g.opponent}`);
    li.append(a);
    list.append(li);
  }
}

async function startGame(event) {
  event.preventDefault();
  $("new-error").textContent = "";
  const body = {
    variant: $("opt-variant").value, level: $("opt-level").value,
    manual_count: $("opt-count").value === "manual", coach: $("opt-coach").checked,
    cut: $("opt-cut").checked, player: playerKey(),
  };
  store.set("options", { variant: body.variant, level: body.level, count: $("opt-count").value,
    coach: body.coach, cut: body.cut });
  try {
    const made = await api("/api/games", { method: "POST", body: JSON.stringify(body) });
    remember(made.game, made.token);
    location.hash = `#/game/${made.game}`;
  } catch (err) {
    $("new-error").textContent = err.message;
  }
}

function gamePage(id, mode = "game", given = null) {
  const token = given ?? (mode === "game" ? tokens()[id] : tableTokens()[id]?.token);
  showPage("game");
  if (!token) { $("status-line").textContent = "This browser does not hold that game."; return; }
  if (game.id === id && game.ws && game.mode === mode) return;
  leaveGame();
  Object.assign(game, { id, token, mode, state: null, busy: false, queue: Promise.resolve(), retry: 0 });
  $("table-panel").hidden = true;
  $("page-game").classList.toggle("watching", mode === "watch");
  if (mode === "game") store.set("current", id);
  $("over").hidden = true; $("show").hidden = true; $("hint-box").hidden = true; $("remark").hidden = true;
  $("log").innerHTML = "";
  if (mode === "game") talkClose();
  else talkOpen(send, mode === "watch");
  connect();
}

function leaveGame() {
  talkClose();
  if (game.ws) { game.closing = true; game.ws.close(); }
  game.ws = null; game.id = null; game.state = null;
}

async function route() {
  const hash = location.hash || "#/";
  const parts = hash.slice(2).split("/");
  try {
    if (parts[0] === "game" && parts[1]) gamePage(parts[1]);
    else if (parts[0] === "table" && parts[1]) {
      if (tableTokens()[parts[1]]?.token) gamePage(parts[1], "table");
      else { leaveGame(); showPage("sit"); await sitPage(parts[1], api, (id) => gamePage(id, "table")); }
    } else if (parts[0] === "watch" && parts[1] && parts[2]) gamePage(parts[1], "watch", decodeURIComponent(parts[2]));
    else if (parts[0] === "account") { leaveGame(); showPage("account"); await accountPage(api); }
    else if (parts[0] === "leaderboard") { leaveGame(); showPage("leaderboard"); await leaderboardPage(api); }
    else if (parts[0] === "history") { leaveGame(); showPage("history"); await showHistory($("history-body"), api); }
    else if (parts[0] === "review" && parts[1]) { leaveGame(); showPage("review"); await showReview($("review-body"), api, parts[1]); }
    else await homePage();
  } catch (err) {
    console.error(err);
  }
}

function start() {
  applySpeed();
  bindControls();
  $("new-game").addEventListener("submit", startGame);
  window.addEventListener("hashchange", route);
  const path = location.pathname;
  const bits = path.split("/");
  if (path.startsWith("/review/")) location.hash = `#/review/${bits[2]}`;
  else if (path === "/history") location.hash = "#/history";
  else if (path === "/leaderboard") location.hash = "#/leaderboard";
  else if (bits[1] === "t" && bits[2] && bits[3] === "watch" && bits[4]) location.hash = `#/watch/${bits[2]}/${bits[4]}`;
  else if (bits[1] === "t" && bits[2]) location.hash = `#/table/${bits[2]}`;
  refreshAccountNav(api);
  route();
}

start();
export { cardName };
