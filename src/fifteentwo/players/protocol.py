"""The bot protocol: computer players in any language, as programs speaking JSON Lines.

A bot is a program that reads one JSON object per line on stdin and writes one per line on
stdout (docs/protocol.md, with a JSON Schema for every message in ``data/protocol/``):

- the game says ``hello`` (protocol version, the bot's seat, the time limit); the bot answers
  ``hello`` with its name, author, version and the variants it plays;
- ``new_game`` gives the rules and the bot's seed before each game;
- ``decide`` gives the seat's view (everything in `Observation`, cards as ``5H``/``TS``) and
  the legal actions; the bot answers ``action`` with the same ``id`` within the time limit;
- ``deal_end`` and ``game_end`` carry what was revealed (shown hands and crib, the starter,
  scores), so a bot can learn its opponent; ``quit`` ends the session.

`ProtocolPlayer` (the spec ``exec:CMD ARGS``) plays such a program in any seat, with the guards
of a loaded bot: a time limit per decision, a crash, an exit or a garbage reply named in one
`BotError` line, and the process always killed and reaped. `serve` is the other side: it makes
any player speak the protocol (``cribbage engine --level expert``).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import selectors
import shlex
import shutil
import signal
import subprocess
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any, Final

from fifteentwo.actions import (
    GO,
    Action,
    Count,
    Cut,
    DealDone,
    Discard,
    Event,
    GameOver,
    Go,
    HandCounted,
    Muggins,
    Phase,
    Play,
    StarterTurned,
)
from fifteentwo.cards import Card
from fifteentwo.errors import CardError, FifteenTwoError, RulesError
from fifteentwo.observation import Observation
from fifteentwo.players.guard import BotError, BotTimeout, check_move_time, default_move_time
from fifteentwo.rules import Rules

__all__ = [
    "MAX_LINE",
    "PROTOCOL_VERSION",
    "ProtocolError",
    "ProtocolPlayer",
    "action_from_json",
    "action_to_json",
    "check_command",
    "observation_from_json",
    "serve",
    "view_json",
]

PROTOCOL_VERSION: Final = 1
MAX_LINE: Final = 1 << 20
"""The longest line either side may send (bytes)."""
HANDSHAKE_TIME: Final = 10.0
"""Seconds a bot has to answer ``hello`` (starting an interpreter can take a while)."""
REPLY_FIELDS: Final = {
    "hello": frozenset({"type", "protocol", "name", "author", "version", "variants"}),
    "action": frozenset({"type", "id", "action"}),
}
"""The fields each reply of a bot may have (its JSON Schema's ``additionalProperties: false``):
replies are strict, as everything a client sends the web server is (web/protocol.py)."""


class ProtocolError(FifteenTwoError):
    """A message that does not follow the protocol."""


# --- cards, actions and views as JSON ----------------------------------------------------------


def _card(text: object) -> Card:
    if not isinstance(text, str) or len(text) != 2:
        raise ProtocolError(f"a card is two characters like '5H' or 'TS', not {_show(text)}")
    try:
        return Card.parse(text)
    except CardError:
        raise ProtocolError(f"not a card: {_show(text)}") from None


def _cards(cards: Iterable[Card]) -> list[str]:
    return [c.short for c in cards]


def action_to_json(action: Action) -> dict[str, Any]:
    """An action as the protocol writes it: ``{"type": "play", "card": "5H"}``."""
    if isinstance(action, Discard):
        return {"type": "discard", "cards": _cards(action.cards)}
    if isinstance(action, Play):
        return {"type": "play", "card": action.card.short}
    if isinstance(action, Go):
        return {"type": "go"}
    if isinstance(action, Cut):
        return {"type": "cut", "depth": action.depth}
    if isinstance(action, Count):
        return {"type": "count", "points": action.points}
    if isinstance(action, Muggins):
        return {"type": "muggins", "take": action.take}
    raise ProtocolError(f"not a seat's action: {action!r}")


def _int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not -1000 <= value <= 1000:
        raise ProtocolError(f"{name} must be a small integer, not {_show(value)}")
    return value


def action_from_json(data: object) -> Action:
    """The action a JSON object names; `ProtocolError` when it names none (types are checked:
    ``true`` is no count)."""
    if not isinstance(data, dict):
        raise ProtocolError(f"an action is a JSON object, not {_show(data)}")
    kind = data.get("type")
    fields = {
        "discard": {"type", "cards"},
        "play": {"type", "card"},
        "go": {"type"},
        "cut": {"type", "depth"},
        "count": {"type", "points"},
        "muggins": {"type", "take"},
    }
    if not isinstance(kind, str) or kind not in fields:
        raise ProtocolError(f"unknown action type {_show(kind)}")
    if set(data) != fields[kind]:
        raise ProtocolError(f"a {kind} action has the fields {sorted(fields[kind])}")
    if kind == "discard":
        cards = data["cards"]
        if not isinstance(cards, list) or not 1 <= len(cards) <= 4:
            raise ProtocolError("a discard's cards are a list of one to four cards")
        return Discard(tuple(sorted(_card(c) for c in cards)))
    if kind == "play":
        return Play(_card(data["card"]))
    if kind == "go":
        return GO
    if kind == "cut":
        return Cut(_int(data["depth"], "a cut's depth"))
    if kind == "count":
        return Count(_int(data["points"], "a count's points"))
    take = data["take"]
    if not isinstance(take, bool):
        raise ProtocolError(f"muggins' take is true or false, not {_show(take)}")
    return Muggins(take)


def view_json(obs: Observation) -> dict[str, Any]:
    """Everything in a seat's `Observation` but the rules (sent once, in ``new_game``)."""
    return {
        "seat": obs.seat,
        "phase": obs.phase.value,
        "to_move": obs.to_move,
        "dealer": obs.dealer,
        "scores": list(obs.scores),
        "match_points": list(obs.match_points),
        "game_number": obs.game_number,
        "hand": _cards(obs.hand),
        "kept": _cards(obs.kept),
        "discards": _cards(obs.discards),
        "starter": None if obs.starter is None else obs.starter.short,
        "pile": _cards(obs.pile),
        "count": obs.count,
        "played": [[seat, card.short] for seat, card in obs.played],
        "passed": list(obs.passed),
        "hand_sizes": list(obs.hand_sizes),
        "shown": [
            {"seat": seat, "crib": crib, "cards": _cards(cards)} for seat, crib, cards in obs.shown
        ],
        "pending_claim": obs.pending_claim,
        "to_count": _cards(obs.to_count),
        "counting_crib": obs.counting_crib,
    }


def observation_from_json(
    view: dict[str, Any], rules: Rules, legal: Sequence[object]
) -> Observation:
    """The `Observation` a ``decide`` message describes (what `serve` gives its player)."""
    try:
        starter = view["starter"]
        return Observation(
            rules,
            int(view["seat"]),
            Phase(view["phase"]),
            view["to_move"],
            int(view["dealer"]),
            tuple(int(s) for s in view["scores"]),
            tuple(int(s) for s in view["match_points"]),
            int(view["game_number"]),
            tuple(_card(c) for c in view["hand"]),
            tuple(_card(c) for c in view["kept"]),
            tuple(_card(c) for c in view["discards"]),
            None if starter is None else _card(starter),
            tuple(_card(c) for c in view["pile"]),
            int(view["count"]),
            tuple((int(seat), _card(card)) for seat, card in view["played"]),
            tuple(bool(p) for p in view["passed"]),
            tuple(int(n) for n in view["hand_sizes"]),
            tuple(
                (int(s["seat"]), bool(s["crib"]), tuple(_card(c) for c in s["cards"]))
                for s in view["shown"]
            ),
            tuple(action_from_json(a) for a in legal),
            view["pending_claim"],
            tuple(_card(c) for c in view["to_count"]),
            bool(view["counting_crib"]),
        )
    except ProtocolError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise ProtocolError(f"a view that cannot be read: {type(exc).__name__}: {exc}") from None


def revealed_json(events: Sequence[Event]) -> dict[str, Any]:
    """What a deal's events revealed: the starter and every hand and crib shown, with totals."""
    starter = None
    shown = []
    for event in events:
        if isinstance(event, StarterTurned):
            starter = event.card.short
        elif isinstance(event, HandCounted):
            shown.append(
                {
                    "seat": event.seat,
                    "crib": event.crib,
                    "cards": _cards(event.cards),
                    "points": event.total,
                    "claimed": event.claimed,
                }
            )
    return {"starter": starter, "shown": shown}


# --- the game's side: a program in a seat ------------------------------------------------------


QUIT_TIME: Final = 1.0
"""Seconds a bot has to exit after ``quit`` before it is killed."""


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill a bot and everything it started at once, without ``quit`` (`_end` then reaps it)."""
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)


def _end(proc: subprocess.Popen[bytes]) -> None:
    """End a bot: say ``quit`` and give it a moment, then kill whatever is left of it and reap
    it (no zombies), whatever state it is in.

    The bot runs in a session of its own, so everything it started is killed with it: a
    wrapper script's child (``#!/bin/sh`` then ``python3 bot.py``) would otherwise outlive
    the game, still holding the terminal or the pipe that a caller reads to its end.
    """
    if proc.poll() is None:
        with contextlib.suppress(OSError, ValueError):
            stdin = proc.stdin
            if stdin is not None:
                os.set_blocking(stdin.fileno(), False)  # a bot that reads nothing cannot block us
                stdin.write(b'{"type":"quit"}\n')
                stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=QUIT_TIME)
    # Before the last reaping, while the group still has the bot's id: kill its stragglers.
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    if proc.poll() is None:
        with contextlib.suppress(OSError):
            proc.kill()
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        proc.wait(timeout=5)
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


def _argv(command: str) -> list[str]:
    """The command split as a shell would (quotes work), or a `FifteenTwoError` saying why not."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise FifteenTwoError(f"bad command in {_show('exec:' + command)}: {exc}") from None
    if not argv:
        raise FifteenTwoError("exec: needs a command, e.g. exec:./mybot --level 3")
    return argv


def check_command(command: str) -> None:
    """A `FifteenTwoError` now if ``exec:COMMAND`` could not even be started (a bad command
    line, no such program, a program that cannot be run), without starting it: checking the
    options of ``cribbage play`` must not start a bot that the game then starts again. What the
    program says once started is the game's to judge (`ProtocolPlayer`)."""
    program = _argv(command)[0]
    found = shutil.which(program) if os.sep not in program else program
    if found is None or not os.path.exists(found):
        problem = errno.ENOENT
    elif not os.path.isfile(found) or not os.access(found, os.X_OK):
        problem = errno.EACCES
    else:
        return
    raise FifteenTwoError(f"cannot start {_show('exec:' + command)}: {os.strerror(problem)}")


class ProtocolPlayer:
    """A bot program in a seat (``exec:CMD ARGS``), guarded like every loaded bot."""

    wants_events = True
    """The drivers (`play_game`, the arena, `Session`) pass this player its seat's events, so
    it can tell the program what each deal revealed."""

    def __init__(self, command: str, seed: int = 0, *, move_time: float | None = None) -> None:
        self.spec = f"exec:{command}"
        self.seed = seed
        self.rng = random.Random(seed)
        self.move_time = default_move_time() if move_time is None else check_move_time(move_time)
        self.label = "bot"
        argv = _argv(command)
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                bufsize=0,
                start_new_session=True,  # Ctrl-C at the terminal is ours to handle, not the bot's
            )
        except OSError as exc:
            raise FifteenTwoError(f"cannot start {_show(self.spec)}: {exc.strerror}") from None
        self._finalizer = weakref.finalize(self, _end, self.proc)
        self._buffer = b""
        self._next_id = 0
        self._rules: Rules | None = None
        self._game_number = -1
        self._deal_events: list[Event] = []
        self.name = self.spec
        self.info: dict[str, Any] = {}
        self._handshake()

    @property
    def who(self) -> str:
        """The bot as messages name it: ``player B (exec:./mybot)``."""
        name = "the bot" if self.label == "bot" else f"player {self.label}"
        return f"{name} ({_short(self.spec)})"

    # --- the conversation ----------------------------------------------------------------------

    def _fail(self, what: str, *, late: bool = False) -> BotError:
        """The error naming what the bot did, the bot ended first. A ``late`` bot (one that
        missed its time limit) is killed at once: it is still busy with the decision it was late
        for, so telling it ``quit`` and waiting for it would only cost more time."""
        if late:
            _kill(self.proc)
        self.close()
        return (BotTimeout if late else BotError)(f"{self.who} {what}")

    def _strict(self, reply: dict[str, Any], kind: str) -> None:
        """A `BotError` if a ``kind`` reply has fields its schema does not allow."""
        unknown = sorted(set(reply) - REPLY_FIELDS[kind])
        if unknown:
            allowed = ", ".join(sorted(REPLY_FIELDS[kind]))
            article = "an" if kind.startswith("a") else "a"
            raise self._fail(
                f"sent {article} {kind} with unknown fields {_show(unknown)} "
                f"(it may have only {allowed})"
            )

    def _send(self, message: dict[str, Any], awaiting: str | None = None) -> None:
        """Write one message; ``awaiting`` names the reply it asks for, so a bot that is gone
        is reported the same whether the write or the read notices first."""
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(data)
        except (BrokenPipeError, ConnectionResetError, ValueError, OSError):
            gone = self._gone("input")
            raise self._fail(
                f"{gone} instead of sending {awaiting}" if awaiting else gone
            ) from None

    def _gone(self, stream: str) -> str:
        """What became of a bot whose ``stream`` (``input`` or ``output``) was found closed."""
        code = self.proc.poll()
        if code is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.proc.wait(timeout=1)
        if code is None:  # still running
            return f"closed its {stream}"
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with status {code}"

    def _read(self, seconds: float, waiting_for: str) -> dict[str, Any]:
        """The next line as a JSON object, within ``seconds``."""
        stdout = self.proc.stdout
        assert stdout is not None
        deadline = time.monotonic() + seconds
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                if len(self._buffer) > MAX_LINE:
                    raise self._fail(f"sent a line longer than {MAX_LINE:,} bytes")
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise self._fail(
                        f"took longer than {seconds:g} s to send {waiting_for}", late=True
                    )
                chunk = os.read(stdout.fileno(), 65536)
                if not chunk:
                    raise self._fail(f"{self._gone('output')} instead of sending {waiting_for}")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        if len(line) > MAX_LINE:
            raise self._fail(f"sent a line longer than {MAX_LINE:,} bytes")
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            text = line[:60].decode("utf-8", "replace")
            raise self._fail(f"sent a line that is not JSON: {_show(text)}") from None
        if not isinstance(message, dict):
            raise self._fail(f"sent {_show(message)} instead of a JSON object")
        return message

    def _handshake(self) -> None:
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "time_limit": self.move_time}
        self._send(hello, awaiting="its hello")
        reply = self._read(max(HANDSHAKE_TIME, self.move_time), "its hello")
        if reply.get("type") != "hello":
            raise self._fail(f"answered hello with {_show(reply.get('type'))}")
        if not _is_int(reply.get("protocol"), PROTOCOL_VERSION):  # 1.0 and true are not 1
            raise self._fail(
                f"speaks protocol {_show(reply.get('protocol'))}, not {PROTOCOL_VERSION}"
            )
        name = reply.get("name")
        if not isinstance(name, str) or not name.strip():
            raise self._fail("gave no name in its hello")
        self._strict(reply, "hello")
        variants = reply.get("variants")
        if (
            not isinstance(variants, list)
            or not variants
            or not all(isinstance(v, str) and v for v in variants)
        ):
            what = "no variants" if variants is None else f"{_show(variants)} as its variants"
            raise self._fail(
                f"gave {what} in its hello: it must list the variants it plays, "
                'e.g. "variants": ["standard"]'
            )
        for key in ("author", "version"):
            if key in reply and not isinstance(reply[key], str):
                raise self._fail(f"gave {_show(reply[key])} as its {key}: a string, if given")
        self.info = {k: reply.get(k) for k in ("name", "author", "version", "variants")}
        self.name = _short(name, 60)

    def _new_game(self, obs: Observation) -> None:
        listed = self.info.get("variants") or []
        if obs.rules.name not in listed:  # (its hello said what it plays: not this)
            raise self._fail(
                f"does not play {obs.rules.name}: its hello lists {', '.join(map(str, listed))}"
            )
        self._rules = obs.rules
        self._game_number = obs.game_number
        self._send(
            {
                "type": "new_game",
                "seat": obs.seat,
                "players": obs.rules.players,
                "variant": obs.rules.name,
                "rules": obs.rules.to_json(),
                "seed": self.seed,
                "time_limit": self.move_time,
            }
        )

    def choose(self, obs: Observation) -> Action:
        """Ask the program; its answer, checked, or a `BotError` naming what went wrong."""
        if self.proc.poll() is not None:
            raise self._fail(self._gone("output"))
        if obs.rules != self._rules or obs.game_number != self._game_number:
            self._new_game(obs)
        self._next_id += 1
        ident = self._next_id
        self._send(
            {
                "type": "decide",
                "id": ident,
                "time_limit": self.move_time,
                "view": view_json(obs),
                "legal": [action_to_json(a) for a in obs.legal],
            },
            awaiting="its action",
        )
        reply = self._read(self.move_time, "its action")
        answer = reply.get("id")
        if reply.get("type") != "action" or (_is_int(answer) and answer != ident):
            raise self._fail(
                f"answered decision {ident} with {_show(reply.get('type'))} "
                f"(id {_show(answer)}) instead of an action"
            )
        if not _is_int(answer, ident):  # 7.0 and "7" are not 7 (nor true 1)
            raise self._fail(
                f"answered decision {ident} with id {_show(answer)}, which is not the integer "
                f"{ident}"
            )
        self._strict(reply, "action")
        try:
            action = action_from_json(reply.get("action"))
        except ProtocolError as exc:
            raise self._fail(f"sent a bad action: {exc}") from None
        if not _among(action, obs.legal):
            raise self._fail(f"chose an illegal action: {_show(reply.get('action'))}")
        return action

    def events(self, events: Sequence[Event]) -> None:
        """This seat's events: at the end of a deal or a game, tell the program what was
        revealed."""
        for event in events:
            self._deal_events.append(event)
            if isinstance(event, DealDone):
                message: dict[str, Any] = {"type": "deal_end", "scores": list(event.scores)}
                message.update(revealed_json(self._deal_events))
                self._deal_events = []
                self._notify(message)
            elif isinstance(event, GameOver):
                message = {
                    "type": "game_end",
                    "scores": list(event.scores),
                    "winner": event.winner,
                }
                message.update(revealed_json(self._deal_events))
                self._deal_events = []
                self._game_number = -1  # the next decision is of a new game: new_game first
                self._notify(message)

    def _notify(self, message: dict[str, Any]) -> None:
        if self.proc.poll() is None:
            self._send(message)

    def close(self) -> None:
        """Say ``quit``, give the program a moment, then make sure it is gone. A player that
        is dropped without it (a session that ends, the interpreter exiting) is ended the same
        way when it is collected."""
        self._finalizer()

    def __repr__(self) -> str:
        return f"ProtocolPlayer({self.spec[5:]!r}, seed={self.seed})"


# --- the bot's side: any player speaking the protocol ------------------------------------------


def serve(
    make_player: Callable[[int], Any],
    stdin: IO[str],
    stdout: IO[str],
    *,
    name: str,
    version: str,
    variants: Sequence[str],
    author: str = "fifteentwo",
) -> int:
    """Answer the protocol on ``stdin``/``stdout`` with players from ``make_player(seed)``
    (one per game) until ``quit`` or the end of input. Returns the exit status."""

    def send(message: dict[str, Any]) -> None:
        stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
        stdout.flush()

    player: Any = None
    rules: Rules | None = None
    no_game = "decide before any new_game"  # why there is no game, while player is None
    # (Read at most one line more than the longest allowed: a line without end is not kept.)
    for line in iter(lambda: stdin.readline(MAX_LINE + 1), ""):
        if len(line) > MAX_LINE:
            send({"type": "error", "message": "line too long"})
            return 2
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            send({"type": "error", "message": "not JSON"})
            continue
        if not isinstance(message, dict):
            send({"type": "error", "message": "not a JSON object"})
            continue
        kind = message.get("type")
        if kind == "hello":
            send(
                {
                    "type": "hello",
                    "protocol": PROTOCOL_VERSION,
                    "name": name,
                    "author": author,
                    "version": version,
                    "variants": list(variants),
                }
            )
        elif kind == "new_game":
            # The game before ends here, whether this one starts or not: a refused new_game
            # leaves no game, so a decide after it is refused too, never answered for the game
            # the host has left.
            player = rules = None
            try:
                new_rules, seed = _new_game_settings(message)
                player, rules = make_player(seed), new_rules
            except (TypeError, RulesError, FifteenTwoError) as exc:
                no_game = f"the last new_game was refused ({_short(str(exc), 200)})"
                send({"type": "error", "message": f"bad new_game: {exc}"})
        elif kind == "decide":
            if player is None or rules is None:
                send({"type": "error", "message": f"no game: {no_game}"})
                continue
            try:
                if not _is_int(message.get("id")) or message["id"] < 1:
                    raise ProtocolError(
                        f"its id must be an integer of 1 or more, not {_show(message.get('id'))}"
                    )
                obs = observation_from_json(message["view"], rules, message["legal"])
                if not obs.legal:
                    raise ProtocolError("no legal actions to choose from")
                action = player.choose(obs)
                if not _among(action, obs.legal):  # a view that is no real position
                    raise ProtocolError(f"the player chose {action}, which is not in legal")
                send({"type": "action", "id": message["id"], "action": action_to_json(action)})
            except FifteenTwoError as exc:
                send({"type": "error", "message": f"cannot decide: {exc}"})
            except Exception as exc:  # a view no game could reach may break a player: say so
                send({"type": "error", "message": f"cannot decide: {type(exc).__name__}: {exc}"})
        elif kind == "game_end":  # no answer; a decide until the next new_game is refused
            player = rules = None
            no_game = "the game ended (game_end): decide after the next new_game"
        elif kind == "quit":
            return 0
        # deal_end and unknown messages need no answer
    return 0


def _new_game_settings(message: dict[str, Any]) -> tuple[Rules, int]:
    """The rules and the seed a ``new_game`` gives, checked with its seat and player count
    (each may be left out, but not wrong); a `FifteenTwoError` saying what is wrong."""
    if "rules" not in message:
        raise ProtocolError("it has no rules")
    rules = Rules.from_json(message["rules"])
    seed = message.get("seed", 0)
    if not _is_int(seed):
        raise ProtocolError(f"its seed must be an integer, not {_show(seed)}")
    players = message.get("players", rules.players)
    if not _is_int(players, rules.players):
        raise ProtocolError(
            f"it says {_show(players)} players, but its rules are for {rules.players}"
        )
    seat = message.get("seat", 0)
    if not _is_int(seat) or not 0 <= seat < rules.players:
        raise ProtocolError(
            f"seat {_show(seat)} is no seat of a {rules.players}-player game "
            f"(0 to {rules.players - 1})"
        )
    variant = message.get("variant", rules.name)
    if not isinstance(variant, str):
        raise ProtocolError(f"its variant must be a name, not {_show(variant)}")
    return rules, seed


def _is_int(value: object, expected: int | None = None) -> bool:
    """Whether ``value`` is a JSON integer (``7.0`` and ``true`` are not), and ``expected``
    if that is given."""
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    return expected is None or value == expected


def _among(action: object, legal: Sequence[Action]) -> bool:
    """Whether ``action`` is one of ``legal`` by type and value (``Count(True)`` is not
    ``Count(1)``)."""
    text = repr(action)
    return any(type(a) is type(action) and repr(a) == text for a in legal)


def _show(value: object, limit: int = 60) -> str:
    text = repr(value)
    return _short(text, limit)


def _short(text: str, limit: int = 120) -> str:
    clean = "".join(c if c.isprintable() else "?" for c in text)
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"
