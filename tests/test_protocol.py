"""The bot protocol (issue 20; docs/protocol.md): messages match their schemas, a protocol bot
decides as the same level in-process, the examples play, misbehaving programs are named and
stopped cleanly (no hang, no zombie), and the conformance kit reports what a bot got wrong."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from fifteentwo.arena import run_match
from fifteentwo.cli import main
from fifteentwo.game import Game
from fifteentwo.players import load_player
from fifteentwo.players.guard import BotError
from fifteentwo.players.protocol import (
    ProtocolError,
    ProtocolPlayer,
    action_from_json,
    action_to_json,
    observation_from_json,
    view_json,
)
from fifteentwo.rules import find_rules

ROOT = Path(__file__).parent.parent
TESTS = Path(__file__).parent
ENGINE = f"{sys.executable} -m fifteentwo engine"
BAD = f"{sys.executable} {TESTS / 'bots' / 'protocol_bad.py'}"


def schema(name: str) -> dict[str, Any]:
    text = resources.files("fifteentwo").joinpath(f"data/protocol/{name}.schema.json").read_text()
    return json.loads(text)  # type: ignore[no-any-return]


SENT = {n: schema(n) for n in ("hello", "new_game", "decide", "deal_end", "game_end", "quit")}
REPLIES = {"hello": schema("hello.reply"), "action": schema("action")}


class Recording(ProtocolPlayer):
    """A protocol player that keeps every message both ways."""

    log: list[tuple[str, dict[str, Any]]]

    def _send(self, message: dict[str, Any], awaiting: str | None = None) -> None:
        self.__dict__.setdefault("log", []).append(("sent", message))
        super()._send(message, awaiting)

    def _read(self, seconds: float, waiting_for: str) -> dict[str, Any]:
        message = super()._read(seconds, waiting_for)
        self.__dict__.setdefault("log", []).append(("read", message))
        return message


def play_with(variant: str, seed: int, bot: Any) -> Game:
    rules = find_rules(variant)
    game = Game(rules, seed=seed, manual_count=(0,))
    others = [load_player("standard", seat) for seat in range(rules.players)]
    while not game.is_over:
        seat = game.to_move
        assert seat is not None
        if seat == -1:
            events = game.apply(game.sample_chance())
        else:
            player = bot if seat == 0 else others[seat]
            events = game.apply(player.choose(game.observation(seat)))
        bot.events(game.events_for(0, events))
    return game


@pytest.mark.parametrize("variant", ["short", "four-player"])
def test_every_message_matches_its_schema(variant: str) -> None:
    bot = Recording(f"{ENGINE} --level standard", 3)
    try:
        play_with(variant, 11, bot)
    finally:
        bot.close()
    kinds = set()
    for direction, message in bot.log:
        table = SENT if direction == "sent" else REPLIES
        jsonschema.validate(message, table[message["type"]])
        kinds.add((direction, message["type"]))
    assert kinds >= {
        ("sent", "hello"),
        ("read", "hello"),
        ("sent", "new_game"),
        ("sent", "decide"),
        ("read", "action"),
        ("sent", "deal_end"),
        ("sent", "game_end"),
    }
    deal_end = next(m for d, m in bot.log if m["type"] == "deal_end")
    assert {s["seat"] for s in deal_end["shown"]} == set(range(find_rules(variant).players))
    counts = [m for d, m in bot.log if m["type"] == "decide" and m["view"]["phase"] == "show"]
    assert counts, "the bot counted its own hand (manual counting) at least once"


def test_the_schemas_are_valid_and_refuse_bad_messages() -> None:
    for name in (*SENT, "hello.reply", "action", "error"):
        jsonschema.Draft202012Validator.check_schema(schema(name))
    bad = {"type": "action", "id": 1, "action": {"type": "count", "points": True}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, REPLIES["action"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {"type": "action", "id": 1, "action": {"type": "play"}}, schema("action")
        )


def test_views_and_actions_round_trip() -> None:
    for variant in ("standard", "five-card", "three-player", "four-player"):
        game = Game(find_rules(variant), seed=4)
        players = [load_player("random", s) for s in range(game.rules.players)]
        while not game.is_over:
            seat = game.to_move
            assert seat is not None
            if seat == -1:
                game.apply(game.sample_chance())
                continue
            obs = game.observation(seat)
            legal = [action_to_json(a) for a in obs.legal]
            assert [action_from_json(a) for a in legal] == list(obs.legal)
            assert observation_from_json(view_json(obs), obs.rules, legal) == obs
            game.apply(players[seat].choose(obs))
    for bad in ({"type": "count", "points": True}, {"type": "play", "card": "5h "}, "go", []):
        with pytest.raises(ProtocolError):
            action_from_json(bad)


def test_a_protocol_bot_decides_as_the_same_level_in_process() -> None:
    rules = find_rules("short")
    here = run_match("standard", "novice", rules, 12, seed=8, jobs=1)
    there = run_match(f"exec:{ENGINE} --level standard", "novice", rules, 12, seed=8, jobs=2)

    def facts(result: Any) -> list[Any]:
        return [(o.index, o.winner, o.scores, o.deals) for o in result.outcomes]

    assert facts(there) == facts(here)


@pytest.mark.parametrize(
    "command",
    [
        f"{sys.executable} {ROOT / 'examples' / 'bots' / 'python_bot.py'}",
        f"node {ROOT / 'examples' / 'bots' / 'node_bot.js'}",
    ],
    ids=["python", "node"],
)
def test_the_example_bots_play_an_arena_match(command: str) -> None:
    if command.startswith("node") and shutil.which("node") is None:
        pytest.skip("node is not installed")
    result = run_match(f"exec:{command}", "random", find_rules("short"), 6, seed=1, jobs=1)
    assert result.games == 6 and result.a_wins + result.b_wins == 6


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fifteentwo", "arena", "--variant", "short", *args],
        capture_output=True,
        text=True,
        timeout=90,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def leftovers(marker: str) -> list[str]:
    ps = subprocess.run(["ps", "-eo", "pid,stat,args"], capture_output=True, text=True, check=True)
    return [line for line in ps.stdout.splitlines() if marker in line and "ps -eo" not in line]


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("crash", "exited with status 7 instead of sending its action"),
        ("garbage", "sent a line that is not JSON"),
        ("illegal", "chose an illegal action"),
        ("wrong-id", "instead of an action"),
        ("timeout", "took longer than 0.5 s to send its action"),
        ("huge", "sent a line longer than"),
        ("bool", "sent a bad action"),
        ("bad-hello", "answered hello with 'hi'"),
        ("exit-at-hello", "instead of sending its hello"),
        ("chatter", "sent a line that is not JSON"),
    ],
)
def test_a_bot_that_breaks_the_protocol_is_named_and_stopped(
    jobs: str, mode: str, words: str
) -> None:
    marker = f"marker-{mode}-{jobs}-{os.getpid()}"
    spec = f"exec:{BAD} {mode} {marker}"
    run = arena("--a", spec, "--b", "random", "--games", "6", "--jobs", jobs, "--move-time", "0.5")
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and words in errors[0], run.stderr
    # The bot's command is named (cut with "…" when long: the clone's path may be long).
    assert errors[0].startswith(f"error: player A ({spec[:60]}")
    assert leftovers(marker) == []  # every bot process killed and reaped


def test_bot_check_passes_a_good_bot_and_fails_a_bad_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    example = ROOT / "examples" / "bots" / "python_bot.py"
    assert main(["bot-check", f"{sys.executable} {example}", "--games", "1", "--json"]) == 0
    good = json.loads(capsys.readouterr().out)
    assert good["passed"] and good["problems"] == []
    assert "four-player" in [report["variant"] for report in good["variants"]]
    assert all(report["games"] >= 1 for report in good["variants"])
    bad = [f"{BAD} illegal x", "--games", "1", "--move-time", "2", "--json"]
    assert main(["bot-check", *bad]) == 1
    result = json.loads(capsys.readouterr().out)
    assert not result["passed"]
    assert any(
        p.startswith("short, seed 0: the bot") and "illegal action" in p for p in result["problems"]
    )
    assert main(["bot-check", f"{BAD} bad-hello x", "--move-time", "2", "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["bot"] is None and result["problems"][0].startswith("handshake: ")
    # The table form is still printed without --json (content checked above, as data).
    assert main(["bot-check", f"{BAD} bad-hello x", "--move-time", "2"]) == 1
    assert "FAIL handshake" in capsys.readouterr().out


def test_engine_answers_bad_messages_with_errors() -> None:
    lines = [
        '{"type":"hello","protocol":1}',
        "not json",
        '{"type":"decide","id":1,"view":{},"legal":[]}',
        '{"type":"new_game","rules":{"players":9},"seed":1}',
        '{"type":"quit"}',
    ]
    run = subprocess.run(
        [sys.executable, "-m", "fifteentwo", "engine", "--level", "greedy"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    replies = [json.loads(line) for line in run.stdout.splitlines()]
    assert replies[0]["type"] == "hello" and "standard" in replies[0]["variants"]
    assert [r["type"] for r in replies[1:]] == ["error", "error", "error"]
    jsonschema.validate(replies[0], REPLIES["hello"])
    for reply in replies[1:]:
        jsonschema.validate(reply, schema("error"))


def test_exec_specs_that_cannot_start_are_one_line() -> None:
    with pytest.raises(BotError, match="instead of sending its hello"):
        ProtocolPlayer(f"{sys.executable} -c pass")
    # The same words when the bot is gone before a request is even written, so the write fails
    # before the read can notice (the race by which `-c pass` once lost its words in CI).
    hello_then_exit = (
        "import json, sys; sys.stdin.readline(); "
        'print(json.dumps({"type": "hello", "protocol": 1, "name": "x", "variants": ["short"]}),'
        " flush=True)"
    )
    player = ProtocolPlayer(f"{sys.executable} -c '{hello_then_exit}'")
    player.proc.wait(timeout=10)
    with pytest.raises(BotError, match="exited with status 0 instead of sending its action"):
        player._send({"type": "decide"}, awaiting="its action")
    with pytest.raises(Exception, match="cannot start"):
        ProtocolPlayer("/no/such/program")
    with pytest.raises(Exception, match="needs a command"):
        load_player("exec:", 0)
