"""Game records: one JSON object per game (JSON Lines files), and replay that checks them.

A record is built from a game's events, so it says exactly what happened: the hands as dealt,
discards, starter, every card and go of the play, every point with its reason, and the result.
`replay` rebuilds the game by applying the recorded outcomes and decisions to a fresh `Game`, then
compares the record it would write with the one it was given. The format is documented in
docs/records.md.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tempfile
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Final

from fifteentwo.actions import (
    CHANCE,
    GO,
    PLAY_ACTIONS,
    CardPlayed,
    Count,
    DealDone,
    DealerChosen,
    DealHands,
    Dealt,
    Discard,
    Discarded,
    DrawForDeal,
    GameOver,
    GoSaid,
    HandCounted,
    Muggins,
    Phase,
    Reason,
    Scored,
    StarterTurned,
    TurnStarter,
    fast_constructor,
)
from fifteentwo.cards import DECK, Card
from fifteentwo.errors import FifteenTwoError, RecordError
from fifteentwo.game import _DISCARDS, _INDEX, Game
from fifteentwo.rules import Rules

__all__ = [
    "FORMAT",
    "MAX_INT_DIGITS",
    "MAX_LINE_BYTES",
    "check_record",
    "dumps",
    "file_kind",
    "file_mode",
    "game_record",
    "iter_records",
    "loads",
    "pick_record",
    "read_records",
    "replay",
    "write_records",
]

FORMAT = "fifteentwo-record/1"
"""The version tag every record carries; readers refuse other versions."""


_SHORT: Final = tuple(c.short for c in DECK)
"""The record spelling of each card, by index (`Card.short` is a property: slower)."""
_BY_SHORT: Final = dict(zip(_SHORT, DECK, strict=True))
_REASON_TEXT: Final = {reason: reason.value for reason in Reason}
_DISCARD: Final = Phase.DISCARD  # (reading an enum member off its class is slow)
_new_deal_hands = fast_constructor(DealHands)
_new_turn_starter = fast_constructor(TurnStarter)
_DISCARD_OF: Final = _DISCARDS
"""The engine's shared `Discard` actions, by card indices (frozen values: no need for new ones)."""


def _card_indices(cards: tuple[Card, ...]) -> tuple[int, ...]:
    return tuple(map(_INDEX, cards))


_PLAY: Final = Phase.PLAY


def _cards(cards: Iterable[Card]) -> list[str]:
    return [_SHORT[c.index] for c in cards]


def game_record(game: Game, players: Sequence[str] | None = None) -> dict[str, Any]:
    """The record of ``game`` so far (complete once the game is over)."""
    names = (
        list(players) if players is not None else [f"seat {i}" for i in range(game.rules.players)]
    )
    if len(names) != game.rules.players:
        raise RecordError(f"{len(names)} player names for {game.rules.players} seats")
    cut_rounds: list[list[list[Any]]] = []
    deals: list[dict[str, Any]] = []
    games: list[dict[str, Any]] = []
    deal: dict[str, Any] = {}  # the current deal; empty before the first
    play: list[list[Any]] = []
    game_number = 1
    pre_deal_points: list[dict[str, Any]] = []
    # Exact types, most frequent first: this runs once per event of every game recorded (and
    # twice per replay), so the events are taken as Any rather than narrowed one by one.
    short = _SHORT
    events: list[Any] = game.events
    for event in events:
        kind = type(event)
        if kind is CardPlayed:
            play.append([event.seat, short[event.card.index]])
        elif kind is Scored:
            entry = {
                "seat": event.seat,
                "points": event.points,
                "reason": _REASON_TEXT[event.reason],
                "score": event.score,
            }
            if not deal or deal["scores_after"] is not None:
                pre_deal_points.append(entry)  # three for last, before the first deal of a game
            else:
                deal["points"].append(entry)
        elif kind is GoSaid:
            play.append([event.seat, "go"])
        elif kind is HandCounted:
            if event.crib:
                deal["crib"] = _cards(event.cards)
            deal["counts"].append(
                {
                    "seat": event.seat,
                    "crib": event.crib,
                    "total": event.total,
                    "claimed": event.claimed,
                }
            )
        elif kind is Discarded:
            deal["discards"][event.seat] = _cards(event.cards or ())
        elif kind is Dealt:
            play = []
            deal = {
                "game": game_number,
                "dealer": event.dealer,
                "hands": [_cards(h or ()) for h in event.hands],
                "pack": [],
                "discards": [[] for _ in event.hands],
                "crib": [],
                "starter": None,
                "cut_depth": None,
                "play": play,
                "counts": [],
                "points": pre_deal_points,
                "scores_after": None,
            }
            pre_deal_points = []
            deals.append(deal)
        elif kind is StarterTurned:
            deal["starter"] = short[event.card.index]
            deal["cut_depth"] = event.depth
        elif kind is DealDone:
            deal["scores_after"] = list(event.scores)
        elif kind is GameOver:
            if deal["scores_after"] is None:
                deal["scores_after"] = list(event.scores)
            games.append(
                {
                    "game": game_number,
                    "scores": list(event.scores),
                    "winner": event.winner,
                    "skunk": event.skunk,
                    "game_points": event.game_points,
                }
            )
            game_number += 1
        elif kind is DealerChosen:
            cut_rounds.append([[seat, short[card.index]] for seat, card in event.cuts])
    packs: list[list[str]] = []
    muggins: list[bool] = []
    for actor, action in game.log:
        if type(action) is DealHands:
            if actor == CHANCE:
                packs.append(_cards(action.pack))
        elif type(action) is Muggins:
            muggins.append(action.take)
    for d, pack in zip(deals, packs, strict=False):
        d["pack"] = pack
    in_cut = game.phase is Phase.CUT_FOR_DEAL
    if in_cut and game._cuts:  # a round of the cut for deal under way: the cards drawn so far
        cut_rounds.append([[seat, _SHORT[card.index]] for seat, card in game._cuts])
    record: dict[str, Any] = {
        "format": FORMAT,
        "rules": game.rules.to_json(),
        "players": names,
        "seed": game.seed,
        "manual_count": sorted(game.manual_count),
        "cut_seats": sorted(game.cut_seats),
        "cut_for_deal": cut_rounds,
        "first_dealer": None if cut_rounds or in_cut else _first_dealer(game),
        "deals": deals,
        "muggins": muggins,
        "games": games,
        "final": None,
    }
    if game.is_over:
        last = games[-1]
        record["final"] = {
            "scores": last["scores"],
            "winner": game.winner,
            "skunk": last["skunk"],
            "game_points": last["game_points"],
            "match_points": list(game.match_points),
        }
    return record


def _first_dealer(game: Game) -> int:
    for event in game.events:
        if isinstance(event, Dealt):
            return event.dealer
    return game.dealer


def dumps(record: dict[str, Any]) -> str:
    """One record as one line of JSON."""
    return json.dumps(record, separators=(",", ":"))


# --- reading untrusted text -----------------------------------------------------------------------

MAX_LINE_BYTES: Final = 16 * 1024 * 1024
"""The longest record line read (a 121-point game is about 8 KB, a long match well under 1 MB):
a longer line is refused after reading this much, so a huge or endless file never fills memory."""

MAX_INT_DIGITS: Final = 400
"""The most digits an integer in a record may have: seeds of any size a person would use fit;
thousands of digits (Python refuses to convert past 4,300 anyway) are refused as bad input."""


def _parse_int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS:
        raise RecordError(f"an integer of {len(text)} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise RecordError(f"a number too large to hold: {_clip(text)}")
    return value


def _parse_constant(text: str) -> float:
    raise RecordError(f"{text} is not a number a record can hold")


def _clip(text: str, limit: int = 40) -> str:
    """Untrusted text for an error message: repr (control characters escaped), shortened."""
    shown = repr(text[: limit + 1])
    return shown if len(text) <= limit else shown[:-1] + "..." + shown[-1]


def _path_text(path: str | os.PathLike[str]) -> str:
    """A file name for a message: control characters escaped, no quotes, shortened."""
    text = os.fspath(path)
    shown = repr(text[:200])[1:-1]
    return shown if len(text) <= 200 else shown + "..."


def loads(line: str | bytes) -> dict[str, Any]:
    """Parse one record line (text or UTF-8 bytes, a byte-order mark allowed); check its tag.

    Anything wrong with the text (invalid UTF-8, NaN or infinite numbers, integers of thousands of
    digits, nesting too deep to parse) raises `RecordError`; `check_record` then checks the types.
    """
    if isinstance(line, bytes | bytearray):
        try:
            line = bytes(line).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(f"not UTF-8 text (byte {exc.start + 1})") from None
    line = line.removeprefix("\ufeff")
    try:
        record = json.loads(
            line,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_parse_constant,
        )
    except RecordError as exc:
        raise RecordError(f"not a JSON record: {exc}") from None
    except json.JSONDecodeError as exc:
        raise RecordError(f"not a JSON record: {exc}") from None
    except RecursionError:
        raise RecordError("not a JSON record: nested too deeply") from None
    except (ValueError, MemoryError) as exc:
        raise RecordError(f"not a JSON record: {type(exc).__name__}") from None
    if not isinstance(record, dict):
        raise RecordError("a record is a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(
            f"unknown record format {_clip(str(record.get('format')))}; expected {FORMAT!r}"
        )
    return record


def _open_regular(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open a file for reading only if it is a regular file.

    Opened without blocking and checked on the open descriptor: a FIFO (which would wait for a
    writer forever), a device (``/dev/zero`` never ends), or a directory is refused with
    `RecordError` instead.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise RecordError(f"cannot read {_path_text(path)}: {exc.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise RecordError(f"{_path_text(path)} is {file_kind(mode)}, not a record file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def file_kind(mode: int) -> str:
    """What a non-regular file is, for a message (``a directory``, ``a FIFO (named pipe)``)."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def iter_records(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The records of a JSON Lines file, one at a time, each checked by `loads` and `check_record`.

    Lines are read with a cap (`MAX_LINE_BYTES`), so memory stays bounded whatever the file
    holds; a bad line raises `RecordError` naming its number. Blank lines are skipped.
    """
    name = _path_text(path)
    with _open_regular(path) as fh:
        number = 0
        while True:
            number += 1
            try:
                line = fh.readline(MAX_LINE_BYTES + 1)
            except OSError as exc:
                raise RecordError(f"cannot read {name}: {exc.strerror}") from None
            if not line:
                return
            if len(line) > MAX_LINE_BYTES:
                raise RecordError(
                    f"{name}, line {number}: longer than {MAX_LINE_BYTES // (1024 * 1024)} MB"
                )
            if not line.strip():
                continue
            try:
                record = loads(line)
                check_record(record)
            except RecordError as exc:
                raise RecordError(f"{name}, line {number}: {exc}") from None
            yield record


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All records of a JSON Lines file (see `iter_records`); a bad line raises `RecordError`."""
    return list(iter_records(path))


def pick_record(path: str | os.PathLike[str], index: int) -> tuple[dict[str, Any] | None, int]:
    """The record at ``index`` (negative from the end, as in a list) and how many were read.

    Holds at most ``abs(index)`` records at once, so the last game of a long arena file is found
    without loading the whole file. Gives None when the index is out of range (the count then is
    the file's number of records).
    """
    if index >= 0:
        count = 0
        for count, record in enumerate(iter_records(path), 1):
            if count == index + 1:
                return record, count
        return None, count
    last: deque[dict[str, Any]] = deque(maxlen=-index)
    count = 0
    for record in iter_records(path):
        last.append(record)
        count += 1
    return (last[0], count) if len(last) == -index else (None, count)


def write_records(path: str | os.PathLike[str], records: Iterable[dict[str, Any]]) -> None:
    """Write records to a JSON Lines file atomically (a crash never leaves half a file).

    The records go to a temporary file beside the target, which then replaces the target only
    if the target is a regular file or missing: a directory, device, FIFO or socket (or a symlink
    to one) is never replaced (`RecordError`). A symlink to a regular file writes the file it
    points to and keeps the link.
    """
    target = _writable_target(Path(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, file_mode(target))
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for record in records:
                fh.write(dumps(record) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        _writable_target(target)  # checked again: it may have changed while we wrote
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def file_mode(target: Path) -> int:
    """The permissions a replacement of ``target`` gets: the old file's, or the umask's for a new
    file (a temporary file is created private, 0600)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def _writable_target(target: Path) -> Path:
    """``target`` (a symlink resolved) if it is a regular file or missing, else `RecordError`."""
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise RecordError(f"cannot write {_path_text(target)}: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise RecordError(f"{_path_text(target)} is {file_kind(mode)}; it is never replaced")
    return target


# --- checking a record's shape --------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return type(value) is int  # bool is an int subclass: `true` is not a seat or a score


def _need(ok: bool, where: str, what: str, value: object) -> None:
    if not ok:
        shown = _clip(value) if isinstance(value, str) else type(value).__name__
        if isinstance(value, int):
            shown = _show_int(value)
        raise RecordError(f"{where}: expected {what}, got {shown}")


def _show_int(value: int) -> str:
    """An integer for a message (one of thousands of digits cannot even be converted)."""
    if type(value) is bool:
        return "true" if value else "false"
    if abs(value) < 10**30:
        return str(value)
    return f"an integer of {value.bit_length()} bits"


def _int_in(value: object, where: str, low: int, high: int) -> None:
    _need(_is_int(value), where, "an integer", value)
    assert isinstance(value, int)
    if not low <= value <= high:
        raise RecordError(f"{where}: {_show_int(value)} is not between {low} and {high}")


def _list(value: object, where: str, most: int = 100_000) -> list[Any]:
    _need(type(value) is list, where, "a list", value)
    assert isinstance(value, list)
    if len(value) > most:
        raise RecordError(f"{where}: {len(value)} items, at most {most}")
    return value


def _dict(value: object, where: str) -> dict[str, Any]:
    _need(type(value) is dict, where, "an object", value)
    assert isinstance(value, dict)
    return value


def _card_text(value: object, where: str) -> None:
    _need(type(value) is str and len(value) <= 20, where, "a card", value)


def _cards_list(value: object, where: str) -> None:
    for card in _list(value, where, 52):
        if type(card) is not str or len(card) > 20:
            _card_text(card, where)


_SCORE_MAX: Final = 100_000
"""Bigger than any score, count or claim a game can reach (targets stop at 1000)."""


def _is_seat(value: object) -> bool:
    return type(value) is int and 0 <= value <= 3


def _is_score(value: object) -> bool:
    return type(value) is int and 0 <= value <= _SCORE_MAX


def _is_play_entry(entry: Any) -> bool:
    return (
        type(entry) is list
        and len(entry) == 2
        and _is_seat(entry[0])
        and type(entry[1]) is str
        and len(entry[1]) <= 20
    )


def _is_count(item: Any) -> bool:
    return (
        type(item) is dict
        and _is_seat(item.get("seat"))
        and type(item.get("crib")) is bool
        and _is_score(item.get("total"))
        and _is_score(item.get("claimed"))
    )


def _is_point(item: Any) -> bool:
    return (
        type(item) is dict
        and _is_seat(item.get("seat"))
        and _is_score(item.get("points"))
        and _is_score(item.get("score"))
        and type(item.get("reason")) is str
    )


def _seat(value: object, where: str) -> None:
    _int_in(value, where, 0, 3)


def check_record(record: object) -> dict[str, Any]:
    """Check every value of a record has the type docs/records.md gives it; return the record.

    Types are compared exactly (``true`` is not an integer, ``1.0`` not a seat), so a record
    that only *compares* equal to what the engine makes is refused here rather than accepted by
    `replay`'s comparison. Raises `RecordError` naming the key.
    """
    rec = _dict(record, "record")
    if rec.get("format") != FORMAT:
        raise RecordError(f"unknown record format {_clip(str(rec.get('format')))}")
    _check_rules(rec.get("rules"))
    players = rec.get("players")
    if players is not None:
        for i, name in enumerate(_list(players, "players", 4)):
            _need(type(name) is str, f"players[{i}]", "a name", name)
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:
                raise RecordError(f"players[{i}]: not valid text") from None
    _need(_is_int(rec.get("seed")), "seed", "an integer", rec.get("seed"))
    for key in ("manual_count", "cut_seats"):
        for seat in _list(rec.get(key, []), key, 4):
            _seat(seat, key)
    for r, round_ in enumerate(_list(rec.get("cut_for_deal", []), "cut_for_deal", 1000), 1):
        for entry in _list(round_, f"cut_for_deal round {r}", 4):
            pair = _list(entry, f"cut_for_deal round {r}", 2)
            _need(len(pair) == 2, f"cut_for_deal round {r}", "[seat, card]", entry)
            _seat(pair[0], f"cut_for_deal round {r}")
            _card_text(pair[1], f"cut_for_deal round {r}")
    if rec.get("first_dealer") is not None:
        _seat(rec["first_dealer"], "first_dealer")
    for n, deal in enumerate(_list(rec.get("deals"), "deals"), 1):
        _check_deal(deal, f"deal {n}")
    for decision in _list(rec.get("muggins", []), "muggins"):
        _need(type(decision) is bool, "muggins", "true or false", decision)
    for n, game in enumerate(_list(rec.get("games", []), "games"), 1):
        _check_game(game, f"games[{n}]")
    final = rec.get("final")
    if final is not None:
        _check_game(final, "final")
        for points in _list(_dict(final, "final").get("match_points"), "final match_points", 4):
            _int_in(points, "final match_points", 0, _SCORE_MAX)
    return rec


def _check_rules(value: object) -> None:
    """Each rules field with the type of its default (`Rules` itself checks the values)."""
    rules = _dict(value, "rules")
    for key, given in rules.items():
        where = f"rules {_clip(str(key))}"
        if key not in _RULES_DEFAULTS:
            raise RecordError(f"{where}: not a rules field")
        default = _RULES_DEFAULTS[key]
        if key in ("skunk", "double_skunk") and given is None:
            continue
        if type(default) is bool:
            _need(type(given) is bool, where, "true or false", given)
        elif type(default) is int:
            _int_in(given, where, 0, _SCORE_MAX)
        elif type(default) is str:
            _need(type(given) is str and len(given) <= 100, where, "a short name", given)
        else:  # game_points
            for points in _list(given, where, 3):
                _int_in(points, where, 0, _SCORE_MAX)


_RULES_DEFAULTS: Final = Rules().to_json()


def _check_game(value: object, where: str) -> None:
    game = _dict(value, where)
    if "game" in game:
        _int_in(game["game"], f"{where} game", 1, _SCORE_MAX)
    for score in _list(game.get("scores"), f"{where} scores", 4):
        _int_in(score, f"{where} scores", 0, _SCORE_MAX)
    _seat(game.get("winner"), f"{where} winner")
    _int_in(game.get("skunk"), f"{where} skunk", 0, 2)
    _int_in(game.get("game_points"), f"{where} game_points", 0, _SCORE_MAX)


def _check_deal(value: object, where: str) -> None:
    deal = _dict(value, where)
    _int_in(deal.get("game"), f"{where} game", 1, _SCORE_MAX)
    _seat(deal.get("dealer"), f"{where} dealer")
    for key in ("hands", "discards"):
        for cards in _list(deal.get(key), f"{where} {key}", 4):
            _cards_list(cards, f"{where} {key}")
    for key in ("pack", "crib"):
        _cards_list(deal.get(key, []), f"{where} {key}")
    if deal.get("starter") is not None:
        _card_text(deal["starter"], f"{where} starter")
    if deal.get("cut_depth") is not None:
        _int_in(deal["cut_depth"], f"{where} cut_depth", 0, 52)
    # The fast tests first (a record has hundreds of these); the messages only on a failure.
    for i, entry in enumerate(_list(deal.get("play", []), f"{where} play", 1000), 1):
        if _is_play_entry(entry):
            continue
        pair = _list(entry, f"{where} play #{i}", 2)
        _need(len(pair) == 2, f"{where} play #{i}", "[seat, card]", entry)
        _seat(pair[0], f"{where} play #{i}")
        _card_text(pair[1], f"{where} play #{i}")
    for i, count in enumerate(_list(deal.get("counts", []), f"{where} counts", 100), 1):
        if _is_count(count):
            continue
        item = _dict(count, f"{where} count {i}")
        _seat(item.get("seat"), f"{where} count {i} seat")
        _need(type(item.get("crib")) is bool, f"{where} count {i} crib", "true or false", item)
        for key in ("total", "claimed"):
            _int_in(item.get(key), f"{where} count {i} {key}", 0, _SCORE_MAX)
    for i, point in enumerate(_list(deal.get("points", []), f"{where} points", 1000), 1):
        if _is_point(point):
            continue
        item = _dict(point, f"{where} points {i}")
        _seat(item.get("seat"), f"{where} points {i} seat")
        _int_in(item.get("points"), f"{where} points {i} points", 0, _SCORE_MAX)
        _int_in(item.get("score"), f"{where} points {i} score", 0, _SCORE_MAX)
        _need(type(item.get("reason")) is str, f"{where} points {i}", "a reason", item)
    after = deal.get("scores_after")
    if after is not None:
        for score in _list(after, f"{where} scores_after", 4):
            _int_in(score, f"{where} scores_after", 0, _SCORE_MAX)


# --- replay ---------------------------------------------------------------------------------------


def _card(text: Any, where: str) -> Card:
    card = _BY_SHORT.get(text) if type(text) is str else None
    if card is not None:
        return card
    try:
        return Card.parse(text)  # other spellings, from hand-written records
    except (FifteenTwoError, TypeError):
        raise RecordError(f"{where}: not a card: {text!r}") from None


def _card_tuple(texts: Any, where: str) -> tuple[Card, ...]:
    try:
        return tuple(map(_BY_SHORT.__getitem__, texts))
    except (KeyError, TypeError):
        return tuple(_card(text, where) for text in texts)


def replay(record: dict[str, Any]) -> Game:
    """Rebuild the game a record describes, checking every step and the final result.

    Raises `RecordError` naming the deal and the action that does not fit.
    """
    check_record(record)
    try:
        rules = Rules.from_json(record["rules"])
        first_dealer = record.get("first_dealer")
        game = Game(
            rules,
            seed=record["seed"],
            manual_count=record.get("manual_count", ()),
            cut_seats=record.get("cut_seats", ()),
            first_dealer=first_dealer if not record.get("cut_for_deal") else None,
        )
        _Replayer(game, record).run()
    except RecordError:
        raise
    except (
        FifteenTwoError,
        KeyError,
        TypeError,
        ValueError,
        IndexError,
        AttributeError,
        OverflowError,
        RecursionError,
    ) as exc:
        raise RecordError(f"bad record: {str(exc)[:300]}") from None
    return game


class _Replayer:
    """Feeds a record's outcomes and decisions to a game, one deal at a time."""

    def __init__(self, game: Game, record: dict[str, Any]) -> None:
        self.game = game
        self.record = record
        self.muggins = list(record.get("muggins", []))
        self.stage = "cut for deal"
        """Where in the record we are, for error messages; see `where`."""
        self.item = 0
        """The play entry being applied (1-based), when ``stage`` is the play."""
        self.counts: list[dict[str, Any]] = []
        self.cursor = 0

    @property
    def where(self) -> str:
        """The place in the record an error names (built only when one is raised)."""
        if self.stage == "play":
            return f"deal {self.game.deal_number}, play #{self.item}"
        return self.stage

    def step(self, action: Any) -> None:
        try:
            self.game.apply(action)
        except FifteenTwoError as exc:
            raise RecordError(f"{self.where}: {action}: {exc}") from None

    def run(self) -> None:
        game = self.game
        for round_ in self.record.get("cut_for_deal", []):
            for seat, card in round_:
                self.step(DrawForDeal(int(seat), _card(card, self.where)))
        for number, deal in enumerate(self.record["deals"], 1):
            self.stage = f"deal {number}"
            self.replay_deal(deal)
        self.stage = "end of record"
        # A record saved mid-game may stop before a count or muggins decision is made.
        self.finish_show(strict=self.record.get("final") is not None)
        if not game.is_over and self.record.get("final") is not None:
            raise RecordError("the record says the game ended, but replaying it does not end it")
        mine = game_record(game, self.record.get("players"))
        for key in ("deals", "games", "final"):
            if mine[key] != self.record.get(key):
                raise RecordError(
                    f"the record's {key!r} do not match its replay{_diff(mine, self.record, key)}"
                )

    def replay_deal(self, deal: dict[str, Any]) -> None:
        game = self.game
        self.finish_show()
        if game.phase is not Phase.DEAL:
            raise RecordError(
                f"{self.where}: the game is in the {game.phase.value} phase, not ready to deal"
            )
        where = self.stage
        hands = tuple(_card_tuple(h, where) for h in deal["hands"])
        pack = _card_tuple(deal.get("pack", []), where)
        self.step(_new_deal_hands(hands, pack))
        n = game.rules.players
        for i in range(1, n + 1):
            seat = (game.dealer + i) % n
            if not _in_phase(game, _DISCARD):  # over, or the next game began
                return
            self.stage = f"deal {game.deal_number}, seat {seat}'s discard"
            cards = _card_tuple(deal["discards"][seat], self.stage)
            if not cards and game.rules.discard:
                return  # not laid away yet: a record saved during the discards ends here
            self.step(_DISCARD_OF.get(_card_indices(cards)) or Discard(cards))
        if deal.get("starter") is None or game.is_over:
            return
        self.stage = f"deal {game.deal_number}, the starter"
        depth = deal.get("cut_depth")
        self.step(
            _new_turn_starter(
                _card(deal["starter"], self.stage), None if depth is None else int(depth)
            )
        )
        self.stage = "play"
        apply = game.apply
        for index, (seat, what) in enumerate(deal.get("play", []), 1):
            if not _in_phase(game, _PLAY):  # over, or the next game began
                break
            self.item = index
            if what == "go":
                # Forced goes happen by themselves; a go the seat chose (five-card) is applied.
                if game.to_move == seat and GO in game.legal_actions():
                    self.step(GO)
                continue
            if game.to_move != seat:
                raise RecordError(
                    f"{self.where}: it is seat {game.to_move}'s turn, not seat {seat}'s"
                )
            card = _BY_SHORT.get(what) if type(what) is str else None
            action = PLAY_ACTIONS[(card or _card(what, self.where)).index]
            try:
                apply(action)
            except FifteenTwoError as exc:
                raise RecordError(f"{self.where}: {action}: {exc}") from None
        self.stage = f"deal {game.deal_number}"
        self.counts = list(deal.get("counts", []))
        self.cursor = 0

    def finish_show(self, *, strict: bool = True) -> None:
        """Apply the recorded claims (and muggins choices) of seats that count by hand.

        Not ``strict`` (the end of a record of a game in progress), a missing claim or muggins
        decision means the record stops there.
        """
        game = self.game
        while game.phase is Phase.SHOW:
            if game.pending_muggins is not None:
                if not self.muggins:
                    if not strict:
                        return
                    raise RecordError(f"{self.where}: a muggins decision is missing")
                self.step(Muggins(bool(self.muggins.pop(0))))
                continue
            seat = game.to_move
            while self.cursor < len(self.counts) and self.counts[self.cursor]["seat"] != seat:
                self.cursor += 1
            if self.cursor == len(self.counts):
                if not strict:
                    return
                raise RecordError(f"{self.where}: seat {seat}'s count is missing")
            self.step(Count(int(self.counts[self.cursor]["claimed"])))
            self.cursor += 1


def _in_phase(game: Game, phase: Phase) -> bool:
    """The game's phase, read afresh (applying actions changes it)."""
    return game.phase is phase


def _diff(mine: dict[str, Any], theirs: dict[str, Any], key: str) -> str:
    a, b = mine[key], theirs.get(key)
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False), 1):
            if x != y:
                if isinstance(x, dict) and isinstance(y, dict):
                    fields = [k for k in x if x.get(k) != y.get(k)]
                    return f" (item {i}: {', '.join(fields)} differ)"
                return f" (item {i} differs)"
        return f" ({len(a)} items replayed, {len(b)} recorded)"
    return ""
