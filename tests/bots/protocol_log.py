"""A protocol bot that plays the first legal action and notes its life in a file (tests).

``protocol_log.py LOG``: appends ``start`` when it starts, ``deal_end`` and ``game_end`` when it
is told them, and ``quit`` when it is told to quit, so a test can count how often a program was
started, what it was told and whether it was ended politely.
"""

import json
import sys


def note(path: str, word: str) -> None:
    with open(path, "a", encoding="utf-8") as log:
        log.write(word + "\n")


def main(path: str) -> None:
    note(path, "start")
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            variants = ["standard", "short"]
            hello = {"type": "hello", "protocol": 1, "name": "log", "variants": variants}
            print(json.dumps(hello), flush=True)
        elif msg["type"] == "decide":
            answer = {"type": "action", "id": msg["id"], "action": msg["legal"][0]}
            print(json.dumps(answer), flush=True)
        elif msg["type"] in ("deal_end", "game_end"):
            note(path, msg["type"])
        elif msg["type"] == "quit":
            note(path, "quit")
            break


if __name__ == "__main__":
    main(sys.argv[1])
