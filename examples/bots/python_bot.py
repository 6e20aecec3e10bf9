#!/usr/bin/env python3
"""A cribbage bot in plain Python (no fifteentwo import) speaking the bot protocol.

    cribbage arena --a 'exec:python3 examples/bots/python_bot.py' --b random --games 100

It pegs greedily: it makes 15 or 31 when it can, never leaves the count at 5 or 21, and
otherwise leads its lowest card; every other decision takes the first legal action.
"""

import json
import sys

PIPS = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10, **{str(n): n for n in range(2, 10)}}


def choose(view, legal):
    plays = [a for a in legal if a["type"] == "play"]
    if not plays:
        return legal[0]
    def after(a):
        return view["count"] + PIPS[a["card"][0]]
    return (
        next((a for a in plays if after(a) in (15, 31)), None)
        or min((a for a in plays if after(a) not in (5, 21)), key=after, default=None)
        or min(plays, key=after)
    )


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        reply = {"type": "hello", "protocol": 1, "name": "greedy-peg", "author": "fifteentwo",
                 "version": "1.0", "variants": ["standard", "short", "three-player", "four-player"]}
    elif msg["type"] == "decide":
        reply = {"type": "action", "id": msg["id"], "action": choose(msg["view"], msg["legal"])}
    elif msg["type"] == "quit":
        break
    else:
        continue  # new_game, deal_end, game_end need no answer
    print(json.dumps(reply), flush=True)
