// The lobby on the home page (docs/web.md, "Finding a game"): the open tables waiting for
// people, joined with one click, asked for again every few seconds (the store has them, so any
// server process answers the same); and quick match, which seats you with the next person who
// wants the same game, offers the computer while you wait, and keeps waiting while you play it.
// Everything shown comes from the server and is set with textContent.

import { rememberTable } from "./tables.js";

const $ = (id) => document.getElementById(id);
const REFRESH_MS = 3000;
const POLL_MS = 2000;

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

const local = {
  get(key, fallback) {
    try { return JSON.parse(localStorage.getItem("ft." + key)) ?? fallback; } catch { return fallback; }
  },
  set(key, value) { localStorage.setItem("ft." + key, JSON.stringify(value)); },
};

export function ensureStyles() {
  if (document.querySelector('link[href="/static/lobby.css"]')) return;
  document.head.append(h("link", { rel: "stylesheet", href: "/static/lobby.css" }));
}

let api = null;
let labels = {};
let refreshTimer = null;
let known = null;  // table ids listed last time (null: not listed yet)
const quick = { ticket: null, variant: null, rated: false, name: "", timer: null, asking: false };

// --- the panel ---------------------------------------------------------------------------------

function build(options) {
  ensureStyles();
  const variant = h("select", { id: "quick-variant" });
  for (const v of options.variants) variant.append(new Option(v.label, v.name));
  const saved = local.get("quick", null);
  if (saved && options.variants.some((v) => v.name === saved.variant)) variant.value = saved.variant;
  const rated = h("input", { type: "checkbox", id: "quick-rated" });
  rated.checked = Boolean(saved && saved.rated);
  const name = h("input", { id: "quick-name", maxlength: "40", autocomplete: "nickname" });
  name.value = local.get("name", "");
  const section = h("section", { id: "lobby", class: "panel lobby", "aria-labelledby": "lobby-title" },
    h("h2", { id: "lobby-title" }, "Find a game"),
    h("div", { class: "quick-row" },
      h("label", { for: "quick-variant" }, "Game"), variant,
      h("label", { for: "quick-name" }, "Your name"), name,
      h("label", { class: "check" }, rated, "Rated (needs an account)"),
      h("button", { id: "quick-go", class: "primary", type: "button" }, "Quick match")),
    h("div", { id: "quick-wait", class: "quick-wait", hidden: "" },
      h("p", { id: "quick-status", role: "status" }, ""),
      h("div", { class: "row" },
        h("button", { id: "quick-computer", type: "button" }, "Play the computer while you wait"),
        h("button", { id: "quick-cancel", type: "button" }, "Stop looking"))),
    h("p", { id: "quick-error", class: "error", role: "alert" }),
    h("h3", { id: "lobby-tables-title" }, "Open tables"),
    h("ul", { id: "lobby-list", class: "lobby-list", "aria-labelledby": "lobby-tables-title" }),
    h("p", { id: "lobby-empty", class: "small" }, "No open tables right now: quick match, or make a table below."),
    h("p", { id: "lobby-news", class: "visually-hidden", "aria-live": "polite" }),
    h("p", { id: "lobby-error", class: "error", role: "alert" }));
  const home = $("page-home");
  const title = home.querySelector("h1");
  if (title) title.after(section); else home.prepend(section);
  $("quick-go").addEventListener("click", startQuick);
  $("quick-cancel").addEventListener("click", cancelQuick);
  $("quick-computer").addEventListener("click", playComputer);
  document.body.append(h("div", { id: "quick-ready", class: "quick-ready", role: "alert", hidden: "" }));
}

export function setupLobby(apiCall, options) {
  api = apiCall;
  labels = Object.fromEntries(options.variants.map((v) => [v.name, v.label]));
  if (!$("lobby")) build(options);
  renderQuick();
  refresh();
  clearInterval(refreshTimer);
  refreshTimer = setInterval(() => {
    if ($("page-home").hidden) { clearInterval(refreshTimer); refreshTimer = null; return; }
    if (document.visibilityState === "visible") refresh();
  }, REFRESH_MS);
  const waiting = sessionStorageGet();
  if (waiting && !quick.ticket) { Object.assign(quick, waiting); renderQuick(); schedulePoll(0); }
}

// --- the open tables ---------------------------------------------------------------------------

async function refresh() {
  let data;
  try {
    data = await api("/api/lobby");
    $("lobby-error").textContent = "";
  } catch (err) {
    $("lobby-error").textContent = `The lobby could not be read: ${err.message}`;
    return;
  }
  const list = $("lobby-list");
  const focused = document.activeElement && list.contains(document.activeElement)
    ? document.activeElement.dataset.table : null;
  list.replaceChildren();
  const fresh = [];
  for (const t of data.tables) {
    if (known && !known.has(t.id)) fresh.push(t);
    list.append(tableItem(t));
  }
  $("lobby-empty").hidden = data.tables.length > 0;
  if (focused) list.querySelector(`button[data-table="${CSS.escape(focused)}"]`)?.focus();
  if (fresh.length) {
    $("lobby-news").textContent = fresh.length === 1
      ? `New table: ${describe(fresh[0])}.` : `${fresh.length} new tables.`;
  }
  known = new Set(data.tables.map((t) => t.id));
}

function describe(t) {
  const who = t.people.length ? t.people.join(", ") : "nobody yet";
  return `${labels[t.variant] ?? t.variant}, ${t.filled} of ${t.seats} seats, ${t.rated ? "rated" : "unrated"}, with ${who}`;
}

function tableItem(t) {
  const li = h("li", { "data-table": t.id, "data-variant": t.variant });
  const info = h("span", { class: "lobby-info" });
  info.append(h("strong", {}, labels[t.variant] ?? t.variant));
  info.append(h("span", { class: "tag" }, `${t.filled}/${t.seats} seats`));
  info.append(h("span", { class: "tag" }, t.rated ? "rated" : "unrated"));
  const who = [...t.people, ...t.computers.map((c) => `computer (${c})`)];
  info.append(h("span", { class: "lobby-who" }, who.join(", ")));
  const join = h("button", { class: "primary", type: "button", "data-table": t.id,
    "aria-label": `Join: ${describe(t)}` }, "Join");
  join.addEventListener("click", () => joinTable(t, join));
  li.append(info, join);
  return li;
}

async function joinTable(t, button) {
  button.disabled = true;
  $("lobby-error").textContent = "";
  const name = $("quick-name").value.trim();
  local.set("name", name);
  try {
    const took = await api(`/api/tables/${encodeURIComponent(t.id)}/sit`, {
      method: "POST", body: JSON.stringify({ name }),
    });
    rememberTable(t.id, { token: took.token, seat: took.seat, variant: t.variant });
    location.hash = `#/table/${t.id}`;
  } catch (err) {
    $("lobby-error").textContent = `Could not join: ${err.message}`;
    button.disabled = false;
    refresh();
  }
}

// --- quick match -------------------------------------------------------------------------------

function sessionStorageGet() {
  try { return JSON.parse(sessionStorage.getItem("ft.quick")); } catch { return null; }
}
function sessionStorageSet(value) {
  try {
    if (value) sessionStorage.setItem("ft.quick", JSON.stringify(value));
    else sessionStorage.removeItem("ft.quick");
  } catch { /* private mode: the wait just does not survive a reload */ }
}

async function startQuick() {
  if (quick.asking) return;
  $("quick-error").textContent = "";
  quick.variant = $("quick-variant").value;
  quick.rated = $("quick-rated").checked;
  quick.name = $("quick-name").value.trim();
  local.set("name", quick.name);
  local.set("quick", { variant: quick.variant, rated: quick.rated });
  await ask();
}

async function ask() {
  quick.asking = true;
  try {
    const got = await api("/api/quick", {
      method: "POST", body: JSON.stringify({ variant: quick.variant, rated: quick.rated, name: quick.name }),
    });
    quick.ticket = got.ticket;
    if (got.status === "matched") matched(got);
    else {
      sessionStorageSet({ ticket: quick.ticket, variant: quick.variant, rated: quick.rated, name: quick.name });
      schedulePoll(POLL_MS);
    }
  } catch (err) {
    quick.ticket = null;
    $("quick-error").textContent = err.message;
  } finally {
    quick.asking = false;
    renderQuick();
  }
}

function schedulePoll(ms) {
  clearTimeout(quick.timer);
  quick.timer = setTimeout(poll, ms);
}

async function poll() {
  if (!quick.ticket) return;
  try {
    const got = await api("/api/quick/poll", { method: "POST", body: JSON.stringify({ ticket: quick.ticket }) });
    if (!quick.ticket) return;  // cancelled meanwhile
    if (got.status === "matched") { matched(got); return; }
    if (got.status === "expired") { await ask(); return; }  // the place was lost: ask again
  } catch { /* the server is away a moment: keep asking */ }
  schedulePoll(POLL_MS);
}

async function cancelQuick() {
  const ticket = quick.ticket;
  clearTimeout(quick.timer);
  quick.ticket = null;
  sessionStorageSet(null);
  renderQuick();
  if (!ticket) return;
  try {
    const got = await api("/api/quick/cancel", { method: "POST", body: JSON.stringify({ ticket }) });
    if (got.status === "matched") matched(got);  // too late: someone was seated with you
  } catch (err) {
    $("quick-error").textContent = `Could not stop looking: ${err.message}`;
  }
}

function matched(seat) {
  clearTimeout(quick.timer);
  quick.ticket = null;
  sessionStorageSet(null);
  rememberTable(seat.table, { token: seat.token, seat: seat.seat, variant: quick.variant });
  renderQuick();
  const here = location.hash === "" || location.hash === "#/" || location.hash.startsWith("#/table/");
  if (here) { location.hash = `#/table/${seat.table}`; return; }
  const box = $("quick-ready");  // playing the computer meanwhile: say so, they choose when
  box.replaceChildren(
    h("span", {}, "Your quick match is ready: someone is waiting at the table. "),
    h("a", { class: "button primary", href: `#/table/${seat.table}`, id: "quick-ready-go" }, "Go to the table"),
    h("button", { type: "button", id: "quick-ready-close", "aria-label": "dismiss" }, "×"),
  );
  box.hidden = false;
  $("quick-ready-go").addEventListener("click", () => { box.hidden = true; });
  $("quick-ready-close").addEventListener("click", () => { box.hidden = true; });
}

function playComputer() {
  const variant = $("opt-variant");
  if (variant && [...variant.options].some((o) => o.value === quick.variant)) variant.value = quick.variant;
  $("new-game").requestSubmit();
}

function renderQuick() {
  if (!$("lobby")) return;
  const waiting = Boolean(quick.ticket);
  $("quick-wait").hidden = !waiting;
  $("quick-go").disabled = waiting || quick.asking;
  $("quick-status").textContent = waiting
    ? `Looking for someone to play ${labels[quick.variant] ?? quick.variant}${quick.rated ? " (rated)" : ""}… Play the computer while you wait?`
    : "";
}

export function quickWaiting() { return Boolean(quick.ticket); }
