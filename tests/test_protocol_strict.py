"""Both sides of the bot protocol refuse what it does not allow (docs/protocol.md): a bot's
replies are strict (only their schema's fields; an id or a protocol number is a JSON integer,
``7.0`` and ``true`` are not), and ``cribbage engine`` left with no game by a refused
``new_game`` says so instead of answering for the game before."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot_games import PLAY_LEGAL, PLAY_VIEW, play_out
from fifteentwo.cli import main
from fifteentwo.game import Game
from fifteentwo.players.guard import BotError
from fifteentwo.players.protocol import ProtocolPlayer
from fifteentwo.rules import find_rules

BAD = Path(__file__).parent / "bots" / "protocol_bad.py"
LOG = Path(__file__).parent / "bots" / "protocol_log.py"


def bad_bot(mode: str) -> str:
    return shlex.join([sys.executable, str(BAD), mode])


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("float-id", "answered decision 3 with id 3.0, which is not the integer 3"),
        ("true-id", "answered decision 1 with id True, which is not the integer 1"),
        (
            "extra-field",
            "sent an action with unknown fields ['note'] (it may have only action, id, type)",
        ),
        ("wrong-id", "answered decision 3 with 'action' (id -5) instead of an action"),
    ],
)
def test_an_action_reply_is_strict(mode: str, words: str) -> None:
    bot = ProtocolPlayer(bad_bot(mode), move_time=10)
    try:
        with pytest.raises(BotError) as caught:
            play_out(bot)
    finally:
        bot.close()
    assert str(caught.value).startswith("the bot (exec:")  # the command, cut when long
    assert str(caught.value).endswith(words)


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        (
            "hello-extra",
            "sent a hello with unknown fields ['engine_options'] "
            "(it may have only author, name, protocol, type, variants, version)",
        ),
        ("hello-float", "speaks protocol 1.0, not 1"),
        (
            "hello-no-variants",
            "gave no variants in its hello: it must list the variants it plays, e.g. "
            '"variants": ["standard"]',
        ),
        (
            "hello-empty-variants",
            "gave [] as its variants in its hello: it must list the variants it plays, e.g. "
            '"variants": ["standard"]',
        ),
        ("hello-number-version", "gave 3 as its version: a string, if given"),
    ],
)
def test_a_hello_reply_is_strict(mode: str, words: str) -> None:
    with pytest.raises(BotError) as caught:
        ProtocolPlayer(bad_bot(mode))
    assert str(caught.value).endswith(words)


def test_bot_check_counts_a_float_id_as_the_bots_mistake(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = [bad_bot("float-id"), "--games", "1", "--move-time", "10", "--json"]
    assert main(["bot-check", *args]) == 1
    result = json.loads(capsys.readouterr().out)
    assert not result["passed"]
    assert result["problems"]
    assert all(
        p.startswith("short, seed ") and p.endswith("with id 3.0, which is not the integer 3")
        for p in result["problems"]
    )


# --- the engine's side -------------------------------------------------------------------------


def decide(ident: object) -> str:
    return json.dumps({"type": "decide", "id": ident, "view": PLAY_VIEW, "legal": PLAY_LEGAL})


def new_game(**changes: object) -> str:
    message = {
        "type": "new_game",
        "seat": 1,
        "players": 2,
        "variant": "standard",
        "rules": find_rules("standard").to_json(),
        "seed": 1,
        "time_limit": 10.0,
    }
    return json.dumps({**message, **changes})


def engine(*lines: str) -> list[dict[str, Any]]:
    run = subprocess.run(
        [sys.executable, "-m", "fifteentwo", "engine", "--level", "standard"],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    return [json.loads(line) for line in run.stdout.splitlines()]


def test_a_refused_new_game_leaves_the_engine_with_no_game() -> None:
    """It played on with the game before: a decide after a refused new_game was answered by
    the last game's player (and with the refused game's rules, when only its player failed)."""
    refused = {
        "rules": {"players": 9},
        "seat": 7,
        "players": 3,
        "seed": "x",
        "variant": 5,
    }
    lines = ['{"type":"hello","protocol":1}', decide(1), new_game(), decide(2)]
    for field, value in refused.items():
        lines += [new_game(**{field: value}), decide(3)]
    lines += [new_game(), decide(4), '{"type":"quit"}']
    replies = engine(*lines)
    assert replies[0]["type"] == "hello"
    assert replies[1] == {"type": "error", "message": "no game: decide before any new_game"}
    assert replies[2]["type"] == "action" and replies[2]["id"] == 2
    expected = {
        "rules": "players must be 2, 3 or 4, not 9",
        "seat": "seat 7 is no seat of a 2-player game (0 to 1)",
        "players": "it says 3 players, but its rules are for 2",
        "seed": "its seed must be an integer, not 'x'",
        "variant": "its variant must be a name, not 5",
    }
    answers = replies[3:-1]
    assert len(answers) == 2 * len(refused)
    for (refusal, after), field in zip(
        zip(answers[::2], answers[1::2], strict=True), refused, strict=True
    ):
        assert refusal == {"type": "error", "message": f"bad new_game: {expected[field]}"}
        assert after == {
            "type": "error",
            "message": f"no game: the last new_game was refused ({expected[field]})",
        }
    assert replies[-1]["type"] == "action" and replies[-1]["id"] == 4  # a good one plays again


def test_the_engine_refuses_a_decide_whose_id_is_not_an_integer() -> None:
    replies = engine(
        '{"type":"hello","protocol":1}',
        new_game(),
        decide(7.0),
        decide(True),
        decide(0),
        decide(8),
        '{"type":"quit"}',
    )
    assert [r["type"] for r in replies] == ["hello", "error", "error", "error", "action"]
    assert replies[1]["message"] == "cannot decide: its id must be an integer of 1 or more, not 7.0"
    assert replies[2]["message"].endswith("not True")
    assert replies[3]["message"].endswith("not 0")
    assert replies[4]["id"] == 8


def test_the_engine_answers_no_decide_after_game_end() -> None:
    """A decide after ``game_end`` was answered for the game that had ended; until the next
    ``new_game`` it is refused, and the next game is played as usual."""
    game_end = '{"type":"game_end","scores":[121,97],"winner":0}'
    replies = engine(
        '{"type":"hello","protocol":1}',
        new_game(),
        decide(1),
        game_end,
        decide(2),
        new_game(),
        decide(3),
        '{"type":"quit"}',
    )
    assert [r["type"] for r in replies] == ["hello", "action", "error", "action"]
    assert replies[2]["message"] == (
        "no game: the game ended (game_end): decide after the next new_game"
    )
    assert replies[3]["id"] == 3


def test_a_bot_is_not_asked_to_play_a_variant_its_hello_did_not_list(tmp_path: Path) -> None:
    """The host asked any program for any variant, whatever its hello listed: a bot that plays
    only the 121- and 61-point games was sent a five-card deal. It is now one clear error
    before the game's first message, and the variants it listed play as before."""
    command = shlex.join([sys.executable, str(LOG), str(tmp_path / "life")])
    bot = ProtocolPlayer(command)
    game = Game(find_rules("five-card"), seed=3)
    while game.to_move == -1:
        game.apply(game.sample_chance())
    with pytest.raises(BotError, match="does not play five-card: its hello lists standard, short"):
        bot.choose(game.observation(game.to_move or 0))
    play_out(ProtocolPlayer(command))  # (short: listed)


def test_a_game_of_a_variant_the_bot_did_not_list_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = shlex.join([sys.executable, str(LOG), str(tmp_path / "life")])
    code = main(["arena", "--a", f"exec:{command}", "--b", "random", "--games", "1",
                 "--variant", "five-card"])  # fmt: skip
    err = capsys.readouterr().err
    assert code != 0
    assert "does not play five-card" in err and "Traceback" not in err
