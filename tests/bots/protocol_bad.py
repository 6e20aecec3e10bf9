"""A protocol bot that misbehaves in the way its first argument names (tests/test_protocol.py).

It plays legally (the first legal action) until its third decision, then misbehaves; the modes
that break the handshake do so at once, ``hang`` (which claims two variants) and ``true-id`` at
its first decision. The marker argument lets a test find leftover processes.
"""

import json
import os
import signal
import sys
import time


def main(mode: str) -> None:
    decisions = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            if mode == "bad-hello":
                print(json.dumps({"type": "hi"}), flush=True)
                continue
            if mode == "exit-at-hello":
                sys.exit(0)
            hello = {"type": "hello", "protocol": 1, "name": "bad", "variants": ["short"]}
            if mode == "hang":
                hello["variants"] = ["short", "five-card"]
            if mode == "hello-extra":
                hello["engine_options"] = {"depth": 3}
            if mode == "hello-float":
                hello["protocol"] = 1.0
            if mode == "hello-no-variants":
                del hello["variants"]
            if mode == "hello-empty-variants":
                hello["variants"] = []
            if mode == "hello-number-version":
                hello["version"] = 3
            print(json.dumps(hello), flush=True)
        elif msg["type"] == "decide":
            decisions += 1
            action = msg["legal"][0]
            if mode == "hang":
                time.sleep(3600)
            if mode == "true-id":  # true == 1 in Python, but it is no integer
                answer = {"type": "action", "id": True, "action": action}
                print(json.dumps(answer), flush=True)
                continue
            if decisions >= 3:
                if mode == "crash":
                    raise SystemExit(7)
                if mode == "killed":  # (as a crash would, without leaving a core file)
                    os.kill(os.getpid(), signal.SIGKILL)
                if mode == "close-stdout":
                    os.close(1)
                    time.sleep(3600)
                if mode == "garbage":
                    print("this is not json", flush=True)
                    continue
                if mode == "illegal":
                    action = {"type": "count", "points": 29}
                    if action in msg["legal"]:
                        action = {"type": "play", "card": "ZZ"}
                if mode == "wrong-id":
                    print(json.dumps({"type": "action", "id": -5, "action": action}), flush=True)
                    continue
                if mode == "timeout":
                    time.sleep(3600)
                if mode == "huge":
                    sys.stdout.write("x" * (2 << 20))
                    sys.stdout.flush()
                    time.sleep(3600)
                if mode == "bool":
                    action = {"type": "count", "points": True}
                if mode == "float-id":
                    answer = {"type": "action", "id": float(msg["id"]), "action": action}
                    print(json.dumps(answer), flush=True)
                    continue
                if mode == "extra-field":
                    answer = {"type": "action", "id": msg["id"], "action": action, "note": "hi"}
                    print(json.dumps(answer), flush=True)
                    continue
            if mode == "chatter":
                print("junk before the answer", flush=True)
            print(json.dumps({"type": "action", "id": msg["id"], "action": action}), flush=True)
        elif msg["type"] == "quit":
            break


if __name__ == "__main__":
    main(sys.argv[1])
