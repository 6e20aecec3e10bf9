#!/usr/bin/env node
// A cribbage bot for Node.js speaking the fifteentwo bot protocol (JSON Lines on stdin/stdout).
//
//   cribbage arena --a 'exec:node examples/bots/node_bot.js' --b random --games 100
//
// It pegs greedily: 15 or 31 when it can, never leaves the count at 5 or 21, otherwise its
// lowest card; every other decision takes the first legal action.
"use strict";
const readline = require("node:readline");

const pips = (card) => ({ A: 1, T: 10, J: 10, Q: 10, K: 10 })[card[0]] ?? Number(card[0]);

function choose(view, legal) {
  const plays = legal.filter((a) => a.type === "play");
  if (plays.length === 0) return legal[0];
  const after = (a) => view.count + pips(a.card);
  const byCount = (x, y) => after(x) - after(y);
  return (
    plays.find((a) => after(a) === 15 || after(a) === 31) ??
    plays.filter((a) => after(a) !== 5 && after(a) !== 21).sort(byCount)[0] ??
    plays.sort(byCount)[0]
  );
}

const input = readline.createInterface({ input: process.stdin });
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

input.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "hello") {
    send({
      type: "hello",
      protocol: 1,
      name: "node-greedy-peg",
      author: "fifteentwo",
      version: "1.0",
      variants: ["standard", "short", "five-card", "three-player", "four-player"],
    });
  } else if (msg.type === "decide") {
    send({ type: "action", id: msg.id, action: choose(msg.view, msg.legal) });
  } else if (msg.type === "quit") {
    input.close();
  }
});
