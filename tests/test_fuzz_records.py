"""Fuzz: game records and history rows are untrusted input; only `RecordError` leaves the library.

Valid records of several variants are mutated (any value anywhere replaced by a hostile JSON
value; the line's bytes cut, flipped and spliced) and the hostile cases of issue 15 are tried one
by one: invalid UTF-8, a byte-order mark (accepted), NaN and infinities, integers of thousands of
digits, deep nesting, truncated and huge lines, a 100 MB file without a newline, a FIFO, a
device, a directory, and ``true`` or ``1.0`` where an integer belongs. A history row holds the
same record as a JSON value, so `check_record` and `replay` on mutated dicts cover it too.
"""

from __future__ import annotations

import copy
import json
import os
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fifteentwo.errors import RecordError
from fifteentwo.players import GreedyPlayer, play_game
from fifteentwo.records import (
    MAX_LINE_BYTES,
    check_record,
    dumps,
    game_record,
    iter_records,
    loads,
    pick_record,
    read_records,
    replay,
)
from fifteentwo.rules import find_rules

EXAMPLES = 500
"""Generated records per hypothesis test (3 tests: 1,500 mutated records)."""


def _record(preset: str, seed: int) -> dict[str, Any]:
    rules = find_rules(preset)
    players = [GreedyPlayer(seed + i) for i in range(rules.players)]
    game = play_game(rules, players, seed=seed)
    return game_record(game, [f"P{i}" for i in range(rules.players)])


BASES = [_record(p, s) for p, s in (("short", 1), ("five-card", 2), ("three-player", 3))]

HOSTILE_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.just(10**4000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.just("[red]x[/]\x1b[2J"),
    st.lists(st.integers(-5, 60), max_size=4),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.recursive(st.integers(0, 3), lambda inner: st.lists(inner, max_size=3), max_leaves=20),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (dict keys and list indices), the root excluded."""
    found: list[tuple[Any, ...]] = []
    if isinstance(value, dict | list):
        items: Any = value.items() if isinstance(value, dict) else enumerate(value)
        for key, child in items:
            found.append((*prefix, key))
            found.extend(_paths(child, (*prefix, key)))
    return found


PATHS = [_paths(base) for base in BASES]


def _replace(record: dict[str, Any], path: tuple[Any, ...], new: Any) -> dict[str, Any]:
    out = copy.deepcopy(record)
    target: Any = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return out


def _only_record_error(record: Any) -> None:
    try:
        game = replay(record)
    except RecordError as exc:
        assert str(exc) and "\n" not in str(exc)
    else:  # a harmless change (a name): the replay's record is the record
        assert game_record(game, record.get("players"))["deals"] == record["deals"]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), HOSTILE_VALUES)
def test_any_value_replaced_anywhere_is_a_record_error(data: st.DataObject, new: Any) -> None:
    which = data.draw(st.integers(0, len(BASES) - 1))
    path = data.draw(st.sampled_from(PATHS[which]))
    _only_record_error(_replace(BASES[which], path, new))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_key_removed_or_a_list_cut_is_a_record_error(data: st.DataObject) -> None:
    which = data.draw(st.integers(0, len(BASES) - 1))
    path = data.draw(st.sampled_from(PATHS[which]))
    record = copy.deepcopy(BASES[which])
    target: Any = record
    for key in path[:-1]:
        target = target[key]
    if isinstance(target, dict):
        del target[path[-1]]
    else:
        del target[path[-1] :]
    _only_record_error(record)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, len(BASES) - 1),
    st.lists(
        st.tuples(st.sampled_from(["cut", "flip", "insert", "delete"]), st.integers(0, 10**6)),
        min_size=1,
        max_size=4,
    ),
    st.binary(min_size=1, max_size=8),
)
def test_damaged_bytes_are_a_record_error(
    which: int, edits: list[tuple[str, int]], junk: bytes
) -> None:
    line = bytearray(dumps(BASES[which]).encode())
    for kind, where in edits:
        at = where % max(1, len(line))
        if kind == "cut":
            del line[at:]
        elif kind == "flip":
            if line:
                line[at] ^= junk[0] or 1
        elif kind == "insert":
            line[at:at] = junk
        else:
            del line[at : at + len(junk)]
    try:
        _only_record_error(loads(bytes(line)))
    except RecordError as exc:
        assert "\n" not in str(exc)


# --- the hostile cases of issue 15, one by one ----------------------------------------------------

RECORD = BASES[0]
LINE = dumps(RECORD)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (LINE.replace('"seed":1', '"seed":NaN'), "NaN is not a number"),
        (LINE.replace('"seed":1', '"seed":Infinity'), "Infinity is not a number"),
        (LINE.replace('"seed":1', '"seed":-Infinity'), "Infinity is not a number"),
        (LINE.replace('"seed":1', '"seed":1e999'), "too large"),
        (LINE.replace('"seed":1', '"seed":' + "9" * 5000), "5000 digits"),
        (LINE.replace('"seed":1', '"seed":' + "[" * 100_000 + "]" * 100_000), "nested too deeply"),
        (LINE[: len(LINE) // 2], "not a JSON record"),
        (LINE.replace('"seed":1', '"seed":true'), "seed: expected an integer, got true"),
        (LINE.replace('"seed":1', '"seed":1.0'), "seed: expected an integer, got float"),
        (LINE.replace('"seed":1', '"seed":"1"'), "seed: expected an integer"),
        ("[]", "a record is a JSON object"),
        ("null", "a record is a JSON object"),
    ],
)
def test_hostile_lines(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        check_record(loads(text))
    with pytest.raises(RecordError, match=message):
        check_record(loads(text.encode()))


def test_true_where_an_integer_belongs_is_refused_though_it_compares_equal() -> None:
    """``True == 1``: replay's comparison alone would accept these; the type check does not."""
    for deal_number, deal in enumerate(RECORD["deals"]):
        for i, point in enumerate(deal["points"]):
            if point["points"] == 1:
                changed = _replace(RECORD, ("deals", deal_number, "points", i, "points"), True)
                assert changed == RECORD  # equal as values...
                with pytest.raises(RecordError, match="expected an integer, got true"):
                    replay(changed)  # ...refused as a record
                return
    pytest.fail("no one-point score in the base record")


def test_a_float_where_an_integer_belongs_is_refused() -> None:
    changed = _replace(RECORD, ("games", 0, "skunk"), float(RECORD["games"][0]["skunk"]))
    assert changed == RECORD
    with pytest.raises(RecordError, match="expected an integer, got float"):
        replay(changed)


def test_invalid_utf8_and_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + LINE.encode() + b"\n")
    assert read_records(path) == [RECORD]  # the BOM is accepted
    path.write_bytes(LINE.encode() + b"\n" + LINE.encode()[:40] + b"\xff\xfe" + b"\n")
    with pytest.raises(RecordError, match=r"line 2: not UTF-8 text"):
        read_records(path)
    with pytest.raises(RecordError, match="not UTF-8"):
        loads(b"\x80" + LINE.encode())


def test_a_huge_file_without_a_newline_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as fh:
        fh.truncate(100 * 1024 * 1024)  # 100 MB, sparse: no disk used
    tracemalloc.start()
    try:
        with pytest.raises(RecordError, match="line 1: longer than"):
            read_records(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * MAX_LINE_BYTES  # one capped line, never the file


def test_a_long_file_is_streamed(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    lines = [dumps({**RECORD, "players": [f"A{i}", "B"]}) for i in range(300)]
    path.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    assert pick_record(path, -1)[0]["players"][0] == "A299"  # type: ignore[index]
    assert pick_record(path, 0)[0]["players"][0] == "A0"  # type: ignore[index]
    assert pick_record(path, 300) == (None, 300)
    assert pick_record(path, -301) == (None, 300)
    assert sum(1 for _ in iter_records(path)) == 300


def _within(seconds: float, work: Any) -> Any:
    """Run ``work`` in a thread; fail (rather than hang the suite) if it does not finish."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the test
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "reading blocked"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def test_a_fifo_a_device_and_a_directory_are_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    cases = ((fifo, "a FIFO"), (Path("/dev/zero"), "a device"), (tmp_path, "a directory"))
    for path, kind in cases:
        with pytest.raises(RecordError, match=kind):
            _within(5, lambda p=path: read_records(p))


def test_long_names_and_unknown_rules_fields() -> None:
    assert check_record(_replace(RECORD, ("players", 0), "x" * 10_000_000))  # long, but text
    with pytest.raises(RecordError, match="not valid text"):
        check_record(_replace(RECORD, ("players", 0), "\ud800"))
    with pytest.raises(RecordError, match="not a rules field"):
        check_record(_replace(RECORD, ("rules", "x" * 5000), 1))
    with pytest.raises(RecordError, match="expected a short name"):
        check_record(_replace(RECORD, ("rules", "name"), "[red]" * 100))


def test_a_history_row_holding_damaged_json_values() -> None:
    """What a history row's record column gives after JSON parsing: any value at all."""
    for value in (None, 5, "text", [], [RECORD], {"format": 1}, json.loads("[" * 50 + "]" * 50)):
        with pytest.raises(RecordError):
            check_record(value)
        with pytest.raises(RecordError):
            replay(value)  # type: ignore[arg-type]
