// Tables with friends (docs/web.md, "Tables"): the form that creates one, the page that takes a
// seat by its link, the account page and the leaderboard. Seats, tokens and ratings all come
// from the server; this page keeps only the seat tokens it was given, in localStorage.

const $ = (id) => document.getElementById(id);

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

// --- seat tokens this browser holds ------------------------------------------------------------

export function tableTokens() { return local.get("tables", {}); }
export function rememberTable(id, info) {
  const t = tableTokens();
  t[id] = { ...(t[id] || {}), ...info, at: Date.now() };
  local.set("tables", t);
}

// --- creating a table --------------------------------------------------------------------------

let variants = [];
let levels = [];

export function setupTableForm(options, api) {
  const variant = $("tbl-variant");
  if (variant.options.length) return;
  variants = options.variants;
  levels = options.levels;
  for (const v of variants) variant.append(new Option(v.label, v.name));
  const saved = local.get("table-options", null);
  if (saved && variants.some((v) => v.name === saved.variant)) variant.value = saved.variant;
  $("tbl-name").value = local.get("name", "");
  if (saved) {
    $("tbl-away").value = String(saved.away ?? 120);
    $("tbl-away-action").value = saved.awayAction ?? "computer";
    $("tbl-turn").value = saved.turn ?? "";
  }
  variant.onchange = () => drawSeats(saved);
  drawSeats(saved);
  addTableChoices(saved);
  $("new-table").addEventListener("submit", (e) => createTable(e, api));
}

// Two choices for the lobby (docs/web.md, "Finding a game"): list the table there, and rate it.
function addTableChoices(saved) {
  const box = h("div", { class: "table-choices" });
  const lobby = h("input", { type: "checkbox", id: "tbl-lobby" });
  lobby.checked = saved?.lobby ?? true;
  const rated = h("input", { type: "checkbox", id: "tbl-rated" });
  rated.checked = saved?.rated ?? true;
  box.append(
    h("label", { class: "check" }, lobby, "List it in the lobby (anyone may join)"),
    h("label", { class: "check" }, rated, "Rated when every person has an account"),
  );
  $("tbl-create").before(box);
}

function drawSeats(saved) {
  const box = $("tbl-seats");
  for (const old of box.querySelectorAll("label")) old.remove();
  const chosen = variants.find((v) => v.name === $("tbl-variant").value);
  const players = chosen ? chosen.players : 2;
  const partners = players === 4;
  for (let seat = 0; seat < players; seat++) {
    const label = h("label");
    const who = seat === 0 ? "Seat 1 (you)" : `Seat ${seat + 1}${partners && seat === 2 ? " (your partner)" : ""}`;
    label.append(who);
    const select = h("select", { "aria-label": `seat ${seat + 1}`, "data-seat": String(seat) });
    if (seat === 0) select.append(new Option("me", "person"));
    else {
      select.append(new Option("a person (by the link)", "person"));
      for (const l of levels) select.append(new Option(`computer: ${l}`, `computer:${l}`));
      const previous = saved && saved.seats && saved.seats[seat];
      select.value = previous && [...select.options].some((o) => o.value === previous) ? previous : "person";
    }
    label.append(select);
    box.append(label);
  }
}

async function createTable(event, api) {
  event.preventDefault();
  $("tbl-error").textContent = "";
  const seats = [...$("tbl-seats").querySelectorAll("select")].map((s) => {
    const [kind, level] = s.value.split(":");
    return kind === "computer" ? { kind, level } : { kind: "person" };
  });
  const name = $("tbl-name").value.trim();
  const turn = $("tbl-turn").value;
  const body = {
    variant: $("tbl-variant").value,
    seats,
    name,
    away_seconds: Number($("tbl-away").value),
    away_action: $("tbl-away-action").value,
    turn_seconds: turn ? Number(turn) : null,
    lobby: $("tbl-lobby").checked,
    rated: $("tbl-rated").checked,
  };
  local.set("name", name);
  local.set("table-options", {
    variant: body.variant, away: body.away_seconds, awayAction: body.away_action, turn,
    lobby: body.lobby, rated: body.rated,
    seats: [...$("tbl-seats").querySelectorAll("select")].map((s) => s.value),
  });
  try {
    const made = await api("/api/tables", { method: "POST", body: JSON.stringify(body) });
    rememberTable(made.table, { token: made.token, seat: made.seat, watch: made.links.watch, variant: body.variant });
    location.hash = `#/table/${made.table}`;
  } catch (err) {
    $("tbl-error").textContent = err.message;
  }
}

export function listTables() {
  const held = Object.entries(tableTokens()).filter(([, t]) => t.token)
    .sort((a, b) => (b[1].at ?? 0) - (a[1].at ?? 0)).slice(0, 10);
  $("tables-box").hidden = !held.length;
  const list = $("tables-list");
  list.innerHTML = "";
  for (const [id, t] of held) {
    const a = h("a", { class: "button", href: `#/table/${id}` }, "Open");
    a.setAttribute("aria-label", `open table ${id}`);
    list.append(h("li", {}, `${t.variant ?? "table"} ${id}`, a));
  }
}

// --- taking a seat by the link -----------------------------------------------------------------

export async function sitPage(id, api, onSeated) {
  $("sit-error").textContent = "";
  $("sit-name").value = local.get("name", "");
  const info = $("sit-info");
  info.textContent = "Looking at the table…";
  let table;
  try {
    table = await api(`/api/tables/${encodeURIComponent(id)}`);
  } catch (err) {
    info.textContent = `No such table: ${err.message}`;
    $("sit-go").disabled = true;
    return;
  }
  const free = table.seats.filter((s) => s.kind === "person" && !s.taken);
  info.innerHTML = "";
  info.append(h("p", {}, `A ${table.variant} table. Seats:`));
  const ul = h("ul", { class: "plain-list" });
  for (const s of table.seats) {
    const what = s.kind === "computer" ? `computer (${s.level})` : s.taken ? s.name : "free";
    ul.append(h("li", {}, `Seat ${s.seat + 1}: ${what}`));
  }
  info.append(ul);
  $("sit-go").disabled = !free.length || table.status !== "open";
  if (!free.length || table.status !== "open") {
    $("sit-error").textContent = "Every seat at this table is taken. Ask for the spectators' link to watch.";
    return;
  }
  $("sit-go").onclick = async () => {
    const name = $("sit-name").value.trim();
    local.set("name", name);
    $("sit-go").disabled = true;
    try {
      const took = await api(`/api/tables/${encodeURIComponent(id)}/sit`, {
        method: "POST", body: JSON.stringify({ name }),
      });
      rememberTable(id, { token: took.token, seat: took.seat, variant: table.variant });
      onSeated(id);
    } catch (err) {
      $("sit-error").textContent = err.message;
      $("sit-go").disabled = false;
    }
  };
}

// --- the table strip above the cards: seats, away marks, invitations, the turn timer ------------

let timerTick = null;

export function renderTablePanel(table, you, names) {
  $("table-panel").hidden = !table;
  clearInterval(timerTick);
  if (!table) return;
  const ul = $("table-seats");
  ul.innerHTML = "";
  for (const s of table.seats) {
    const li = h("li", { "data-seat": String(s.seat) });
    li.append(names[s.seat] ?? s.name);
    if (s.seat === you) { li.classList.add("you"); li.append(h("span", { class: "tag" }, "you")); }
    if (s.kind === "computer") li.append(h("span", { class: "tag" }, `computer ${s.level}`));
    else if (!s.taken) li.append(h("span", { class: "tag" }, "free seat"));
    if (s.account) li.append(h("span", { class: "tag" }, `@${s.account}`));
    if (s.away) {
      li.classList.add("away");
      li.append(h("span", { class: "tag away-mark" }, s.played_by_computer ? "away: a computer plays" : "away"));
    }
    if (table.status === "finished" && s.rematch) li.append(h("span", { class: "tag" }, "wants a rematch"));
    ul.append(li);
  }
  const held = tableTokens()[table.id];
  const open = table.status === "open";
  $("share").hidden = !(held && (open || held.watch));
  $("share-seat").closest("label").hidden = !open;
  $("share-seat").value = `${location.origin}/t/${table.id}`;
  $("share-watch").closest("label").hidden = !(held && held.watch);
  $("share-watch").value = held && held.watch ? `${location.origin}${held.watch}` : "";
  addShareButtons();
  ratingRule(table);
  const timer = $("turn-timer");
  timer.textContent = "";
  if (table.status === "adjourned") timer.textContent = "Adjourned: it goes on when the away player is back.";
  if (table.turn_seconds && table.turn_started && table.status === "playing") {
    const end = table.turn_started + table.turn_seconds;
    const tick = () => {
      const left = Math.max(0, Math.round(end - Date.now() / 1000));
      timer.textContent = `turn timer ${left}s`;
    };
    tick();
    timerTick = setInterval(tick, 1000);
  }
}

// Copy and share buttons beside each invitation link: the clipboard, and on phones the system
// share sheet (navigator.share) where the browser has one.
function addShareButtons() {
  for (const [id, what] of [["share-seat", "the seat link"], ["share-watch", "the spectators' link"]]) {
    const input = $(id);
    if (input.parentElement.querySelector("button.copy")) continue;
    const copy = h("button", { type: "button", class: "copy", "data-copy": id, "aria-label": `copy ${what}` }, "Copy");
    copy.addEventListener("click", () => copyLink(input, what));
    input.after(copy);
    if (navigator.share) {
      const share = h("button", { type: "button", class: "share-button", "data-share": id, "aria-label": `share ${what}` }, "Share…");
      share.addEventListener("click", () => {
        navigator.share({ title: "A cribbage table", text: "Join me for a game of cribbage", url: input.value })
          .catch(() => {});  // (the person closed the sheet)
      });
      copy.after(share);
    }
  }
  if (!$("share-note")) $("share").append(h("span", { id: "share-note", class: "small", role: "status" }));
}

async function copyLink(input, what) {
  let done = false;
  try {
    await navigator.clipboard.writeText(input.value);
    done = true;
  } catch {
    input.select();  // no clipboard access (an insecure origin): the old way
    try { done = document.execCommand("copy"); } catch { done = false; }
  }
  $("share-note").textContent = done ? `Copied ${what}.` : `Could not copy: select ${what} and copy it.`;
}

// --- issue 35: the rating rule, shown at the table before and during a rated game ---------------

function ratingRule(table) {
  let line = $("rating-rule");
  if (!line) {
    line = h("p", { id: "rating-rule", class: "rating-rule" });
    $("table-panel").append(line);
  }
  line.hidden = !table.rating_rule;
  line.dataset.willRate = table.will_rate ? "1" : "0";
  line.textContent = table.rating_rule
    ? (table.will_rate ? table.rating_rule : `${table.rating_rule} (Rated when every seat is signed in.)`)
    : "";
}

// --- accounts ----------------------------------------------------------------------------------

export async function refreshAccountNav(api) {
  try {
    const me = await api("/api/me");
    $("nav-account").textContent = me.username ? `@${me.username}` : "Sign in";
    return me;
  } catch {
    return { username: null };
  }
}

export async function accountPage(api) {
  const me = await refreshAccountNav(api);
  $("account-in").hidden = !me.username;
  $("account-form").hidden = Boolean(me.username);
  $("acc-error").textContent = "";
  if (me.username) {
    const rating = me.rating !== undefined ? ` Rating ${Math.round(me.rating)} (±${Math.round(2 * me.rd)}), ${me.rated_games} rated games.` : "";
    $("account-who").textContent = `Signed in as ${me.username}.${rating}`;
  }
  const form = $("account-form");
  const send = async (path) => {
    $("acc-error").textContent = "";
    try {
      await api(path, { method: "POST", body: JSON.stringify({ username: $("acc-user").value.trim(), password: $("acc-pass").value }) });
      $("acc-pass").value = "";
      await accountPage(api);
    } catch (err) {
      $("acc-error").textContent = err.message;
    }
  };
  form.onsubmit = (e) => { e.preventDefault(); send("/api/login"); };
  $("acc-register").onclick = () => send("/api/register");
  $("logout").onclick = async () => { await api("/api/logout", { method: "POST", body: "{}" }); await accountPage(api); };
  $("logout-everywhere").onclick = async () => { await api("/api/logout/everywhere", { method: "POST", body: "{}" }); await accountPage(api); };
  $("password-form").onsubmit = async (e) => {
    e.preventDefault();
    $("pw-message").textContent = "";
    try {
      await api("/api/password", { method: "POST", body: JSON.stringify({ current: $("pw-current").value, new: $("pw-new").value }) });
      $("pw-current").value = ""; $("pw-new").value = "";
      $("pw-message").textContent = "Password changed; other devices are signed out.";
    } catch (err) {
      $("pw-message").textContent = err.message;
    }
  };
  const box = $("account-history");
  box.innerHTML = "";
  await accountGames(api, box, Boolean(me.username));
}

// --- issue 35: the account's games (tables and the computer), statistics and rating history -----

async function accountGames(api, box, signedIn) {
  const data = await api("/api/me/history");
  if (signedIn) {
    const ratings = await api("/api/me/ratings");
    box.append(h("h2", {}, "Rating history"));
    if (!ratings.changes.length) box.append(h("p", {}, "No rated games yet."));
    else {
      const t = h("table", { id: "rating-history" });
      const head = h("tr");
      for (const name of ["When", "Game", "Result", "Before", "After", "Change"]) head.append(h("th", { scope: "col" }, name));
      t.append(h("thead", {}, head));
      const body = h("tbody");
      for (const c of ratings.changes) {
        const tr = h("tr", { "data-outcome": c.outcome });
        const sign = c.change > 0 ? "+" : "";
        for (const cell of [new Date(c.at).toLocaleString(), c.game, c.outcome, Math.round(c.before), Math.round(c.after), `${sign}${c.change}`]) {
          tr.append(h("td", {}, String(cell)));
        }
        body.append(tr);
      }
      t.append(body);
      box.append(h("div", { class: "table-wrap" }, t));
    }
  }
  box.append(h("h2", {}, "Statistics"));
  if (!data.totals.length) box.append(h("p", {}, "No finished games yet."));
  const stats = h("ul", { class: "plain-list", id: "account-totals" });
  for (const t of data.totals) {
    const rate = t.win_rate === null ? "" : ` · ${Math.round(100 * t.win_rate)}% won`;
    stats.append(h("li", {}, `${t.variant} against ${t.levels}: ${t.games} games, ${t.wins} won, ${t.losses} lost${rate}`));
  }
  box.append(stats);
  box.append(h("h2", {}, "Games"));
  if (!data.games.length) { box.append(h("p", {}, "None yet.")); return; }
  const ul = h("ul", { class: "plain-list", id: "account-games" });
  for (const g of data.games.slice(0, 50)) {
    const when = g.finished_at ? new Date(g.finished_at).toLocaleString() : "";
    const where = g.kind === "table" ? "table" : "against the computer";
    const link = h("a", { href: `#/review/${g.id}` }, "review");
    ul.append(h("li", { "data-game": String(g.id) }, `${when} · ${g.variant} · ${where} · ${(g.scores || []).join("–")} · ${g.won ? "won" : "lost"} · `, link));
  }
  box.append(ul);
}

export async function leaderboardPage(api) {
  const box = $("board-body");
  box.innerHTML = "<p>Loading…</p>";
  const data = await api("/api/leaderboard");
  box.innerHTML = "";
  if (!data.players.length) {
    box.append(h("p", {}, `No one listed yet: games at a table between people with accounts are rated, and a player is listed after ${data.min_games ?? 5} rated games.`));
    return;
  }
  const t = h("table");
  const head = h("tr");
  for (const name of ["#", "Player", "Rating", "±", "Rated games"]) head.append(h("th", { scope: "col" }, name));
  t.append(h("thead", {}, head));
  const body = h("tbody");
  for (const p of data.players) {
    const tr = h("tr");
    for (const cell of [p.rank, p.username, Math.round(p.rating), Math.round(2 * p.rd), p.rated_games]) {
      tr.append(h("td", {}, String(cell)));
    }
    body.append(tr);
  }
  t.append(body);
  box.append(h("div", { class: "table-wrap" }, t));
}
