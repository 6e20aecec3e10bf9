// Table talk (docs/web.md, "Table talk"): short messages and quick phrases at a table. Every
// message is text: it is shown with textContent, never as markup. The server cleans, limits and
// keeps the last messages with the table; the page keeps who you muted (localStorage), by the
// speaker's id, and hides their messages. People in the seats talk in the table's channel;
// spectators read it and talk in the spectators' channel, which the seats never see.

import { ensureStyles } from "./lobby.js";

const $ = (id) => document.getElementById(id);
const PHRASES = [["gg", "good game"], ["nice", "nice hand"], ["gl", "good luck"], ["wp", "well played"], ["thanks", "thanks"]];
const MAX = 200;
const SHOWN = 50;

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

function muted() {
  try { return JSON.parse(localStorage.getItem("ft.muted")) ?? {}; } catch { return {}; }
}
function setMuted(value) { localStorage.setItem("ft.muted", JSON.stringify(value)); }

const talk = { send: null, you: null, messages: [], shown: new Set() };

function build() {
  ensureStyles();
  const input = h("input", { id: "talk-input", maxlength: String(MAX), autocomplete: "off", enterkeyhint: "send" });
  const phrases = h("div", { class: "talk-phrases", role: "group", "aria-label": "quick phrases" });
  for (const [key, text] of PHRASES) {
    const b = h("button", { type: "button", "data-phrase": key }, text);
    b.addEventListener("click", () => say({ phrase: key }));
    phrases.append(b);
  }
  const form = h("form", { id: "talk-form", class: "talk-form" },
    h("label", { for: "talk-input", id: "talk-label" }, "Message"), input,
    h("button", { type: "submit", id: "talk-send" }, "Send"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (text) { say({ text }); input.value = ""; }
  });
  const section = h("section", { id: "talk", class: "talk", "aria-labelledby": "talk-title", hidden: "" },
    h("h2", { id: "talk-title" }, "Table talk"),
    h("p", { id: "talk-note", class: "small" }),
    h("ol", { id: "talk-log", class: "talk-log", "aria-live": "polite", "aria-relevant": "additions", "aria-label": "messages" }),
    phrases, form,
    h("p", { id: "talk-error", class: "error", role: "alert" }),
    h("details", { id: "talk-muted-box", class: "talk-muted" },
      h("summary", { id: "talk-muted-title" }, "Muted"),
      h("ul", { id: "talk-muted", class: "plain-list", "aria-label": "muted people" })));
  const page = $("page-game");
  const log = page.querySelector(".log-box");
  page.insertBefore(section, log ?? null);
}

function say(body) {
  $("talk-error").textContent = "";
  if (!talk.send || !talk.send({ type: "talk", ...body })) {
    $("talk-error").textContent = "Not sent: the connection is down. Try again in a moment.";
  }
}

// At a table (seat >= 0) or watching (seat -1); hidden for games against the computer.
export function talkOpen(send, watching) {
  if (!$("talk")) build();
  talk.send = send;
  talk.messages = [];
  talk.shown = new Set();
  $("talk-log").replaceChildren();
  $("talk-error").textContent = "";
  $("talk-note").textContent = watching
    ? "You are watching: you read the table's talk; what you say goes to the other spectators only."
    : "Everyone at the table and its spectators read this; spectators talk among themselves.";
  $("talk-label").textContent = watching ? "Message to spectators" : "Message";
  $("talk").hidden = false;
  renderMuted();
}

export function talkClose() {
  if ($("talk")) $("talk").hidden = true;
  talk.send = null;
}

// The history a state brings (after a join or a reload): the newest messages, in order.
export function talkHistory(messages, you) {
  if (!$("talk")) return;
  talk.you = you;
  for (const m of messages) talkReceived(m);
}

export function talkReceived(message) {
  if (!$("talk") || !message || talk.shown.has(message.id)) return;
  talk.shown.add(message.id);
  talk.messages.push(message);
  if (talk.messages.length > SHOWN) {
    const old = talk.messages.shift();
    $("talk-log").querySelector(`li[data-id="${CSS.escape(old.id)}"]`)?.remove();
  }
  if (muted()[message.speaker]) return;
  $("talk-log").append(line(message));
  $("talk-log").scrollTop = $("talk-log").scrollHeight;
}

function line(m) {
  const li = h("li", { "data-id": m.id, "data-speaker": m.speaker, "data-channel": m.channel });
  const who = h("span", { class: "talk-who" });
  who.textContent = m.channel === "spectators" ? `${m.name} (watching)` : m.name;
  const text = h("span", { class: "talk-text" });
  text.textContent = m.text;  // text, never markup
  li.append(who, ": ", text);
  const mine = talk.you !== null && talk.you >= 0 && m.seat === talk.you;
  if (!mine) {
    const mute = h("button", { type: "button", class: "talk-mute", "aria-label": `mute ${m.name}` }, "Mute");
    mute.addEventListener("click", () => mutePerson(m.speaker, m.name));
    li.append(mute);
  }
  return li;
}

function mutePerson(speaker, name) {
  const list = muted();
  list[speaker] = name;
  setMuted(list);
  for (const li of $("talk-log").querySelectorAll(`li[data-speaker="${CSS.escape(speaker)}"]`)) li.remove();
  renderMuted();
  $("talk-input").focus();
}

function unmute(speaker) {
  const list = muted();
  delete list[speaker];
  setMuted(list);
  $("talk-log").replaceChildren();
  for (const m of talk.messages) if (!muted()[m.speaker]) $("talk-log").append(line(m));
  renderMuted();
}

function renderMuted() {
  const list = muted();
  const ul = $("talk-muted");
  ul.replaceChildren();
  const names = Object.entries(list);
  $("talk-muted-title").textContent = `Muted (${names.length})`;
  for (const [speaker, name] of names) {
    const b = h("button", { type: "button", "aria-label": `unmute ${name}` }, "Unmute");
    b.addEventListener("click", () => unmute(speaker));
    const li = h("li", { "data-speaker": speaker });
    li.append(h("span", {}, name), " ", b);
    ul.append(li);
  }
}

export function talkRefused(message) {
  if ($("talk") && !$("talk").hidden) $("talk-error").textContent = message;
}
