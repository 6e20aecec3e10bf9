"""Both sides of the bot protocol refuse what it does not allow (docs/protocol.md): a bot's
replies are strict (only their schema's fields; an id or a protocol number is a JSON integer,
``7.0`` and ``true`` are not)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from fifteentwo.cli import main
from fifteentwo.game import Game
from fifteentwo.players import load_player
from fifteentwo.players.guard import BotError
from fifteentwo.players.protocol import ProtocolPlayer
from fifteentwo.rules import find_rules

BAD = Path(__file__).parent / "bots" / "protocol_bad.py"


def bad_bot(mode: str) -> str:
    return shlex.join([sys.executable, str(BAD), mode])


def play_short(bot: ProtocolPlayer) -> None:
    """A game to 61 with ``bot`` in seat 0 against the random level."""
    game = Game(find_rules("short"), seed=2)
    other = load_player("random", 1)
    while not game.is_over:
        seat = game.to_move
        if seat == -1:
            game.apply(game.sample_chance())
            continue
        assert seat is not None
        player = bot if seat == 0 else other
        game.apply(player.choose(game.observation(seat)))


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
            play_short(bot)
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
