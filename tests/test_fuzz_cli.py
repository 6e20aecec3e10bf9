"""Fuzz: command-line arguments. Every generated argument list gives exit 0 or 2, never a traceback.

Argument lists for ``score``, ``stats``, ``discard``, ``equity``, ``review`` and ``rules`` (and
junk in front of them) are built from each command's options with hostile values: enormous and
negative numbers, thousands of digits, control characters and Rich markup, paths that are
directories, FIFOs, devices or missing. Each runs in-process through `fifteentwo.cli.main` with
stdout and stderr captured: the exit code is 0 or 2, stderr holds at most one ``error:`` line
(``score``'s interactive calculator, fed generated lines on stdin, prints one per bad line) and
no "Traceback" or "internal error" anywhere. Then the cases users meet: markup and escape
sequences in player names print literally, and a damaged history row is one line.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fifteentwo.cli import main
from fifteentwo.players import GreedyPlayer, play_game
from fifteentwo.records import dumps, game_record
from fifteentwo.rules import find_rules

EXAMPLES = 150
"""Generated argument lists per command (6 commands and the junk test: 1,050 runs)."""

NUMBERS = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["0", "-1", "121", "1e9", "nan", "inf", "0x10", "9" * 5000, "", " 5", "1_000"]),
)
JUNK = st.one_of(
    st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=20),
    st.sampled_from(["[red]x[/]", "[/]", "\x1b[2J", "-", "--", "-x", "--nope", "=", "\n", "🂡"]),
)
CARDS = st.sampled_from(["5h", "5c", "5s", "jd", "5d", "qs", "2h", "9c", "10h", "kd", "ah", "xx"])


def _options(spec: dict[str, st.SearchStrategy[str] | None]) -> st.SearchStrategy[list[str]]:
    """Lists of option tokens: a flag alone (None) or an option and its value."""

    def tokens(name: str, value: st.SearchStrategy[str] | None) -> st.SearchStrategy[list[str]]:
        if value is None:
            return st.just([name])
        return st.one_of(
            value.map(lambda v: [name, v]), value.map(lambda v: [f"{name}={v}"]), st.just([name])
        )

    one = st.one_of(*(tokens(k, v) for k, v in spec.items()), JUNK.map(lambda j: [j]))
    return st.lists(one, max_size=5).map(lambda parts: [t for p in parts for t in p])


def _paths(tmp: Path) -> st.SearchStrategy[str]:
    return st.sampled_from(
        [
            str(tmp / "games.jsonl"),
            str(tmp / "bad.jsonl"),
            str(tmp / "empty.jsonl"),
            str(tmp / "pipe"),
            str(tmp),
            str(tmp / "missing" / "x.png"),
            str(tmp / "out.png"),
            str(tmp / "out.svg"),
            str(tmp / "out.txt"),
            "/dev/null",
            "/dev/zero",
            "",
            "1",
            "99",
            "x" * 5000,
        ]
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A record file, a damaged one, an empty one and a FIFO, shared by the generated runs."""
    tmp = tmp_path_factory.mktemp("cli-fuzz")
    game = play_game(find_rules("short"), [GreedyPlayer(1), GreedyPlayer(2)], seed=4)
    (tmp / "games.jsonl").write_text(dumps(game_record(game, ["Ann", "Bob"])) + "\n")
    (tmp / "bad.jsonl").write_bytes(b'{"format":"fifteentwo-record/1","seed":1e999}\n')
    (tmp / "empty.jsonl").write_text("")
    os.mkfifo(tmp / "pipe")
    return tmp


def run_cli(args: list[str], stdin: str = "") -> tuple[int, str, str]:
    """``cribbage ARGS`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(args)
            except SystemExit as exc:  # --help and --version
                code = exc.code if isinstance(exc.code, int) else 0
    finally:
        sys.stdin = old_stdin
    return code, out.getvalue(), err.getvalue()


def check(args: list[str], stdin: str = "", *, lines_allowed: int = 1) -> tuple[int, str, str]:
    """Run and check the promise: exit 0 or 2, no traceback, at most one error line."""
    code, out, err = run_cli(args, stdin)
    for marker in ("Traceback (most recent call last)", "internal error"):
        if any(marker in given for given in (*args, stdin)):
            continue  # (an error may quote the input: the input was the marker itself)
        for text in (out, err):
            assert marker not in text, (args, text[-2000:])
    errors = [line for line in err.splitlines() if line.strip()]
    assert code in (0, 2), (args, code, err)
    if code == 2:
        assert len(errors) == 1 and errors[0].startswith("error: "), (args, err)
    else:
        assert len(errors) < lines_allowed, (args, err)  # the calculator: one per bad line
        assert all(e.startswith("error: ") for e in errors), (args, err)
    return code, out, err


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@FUZZ
@given(
    st.lists(st.one_of(CARDS, JUNK), max_size=6),
    _options({"-s": CARDS | JUNK, "--starter": CARDS, "--crib": None, "--json": None}),
    st.lists(st.one_of(st.lists(CARDS, max_size=6).map(" ".join), JUNK), max_size=4),
)
def test_score(cards: list[str], options: list[str], lines: list[str]) -> None:
    stdin = "\n".join(lines) + "\n"
    # one error line per line read, counted in the text: junk may hold line breaks of its own
    check(["score", *cards, *options], stdin, lines_allowed=len(stdin.splitlines()) + 1)


@FUZZ
@given(_options({"--crib": None, "--json": None}))
def test_stats(options: list[str]) -> None:
    check(["stats", *options])


@FUZZ
@given(
    st.lists(CARDS, max_size=7),
    _options(
        {
            "--dealer": None,
            "--pone": None,
            "--players": NUMBERS,
            "--opponent": st.sampled_from(["uniform", "sensible", "[red]"]),
            "--score": st.one_of(NUMBERS, st.tuples(NUMBERS, NUMBERS).map(",".join)),
            "--target": NUMBERS,
            "--json": None,
        }
    ),
)
def test_discard(cards: list[str], options: list[str]) -> None:
    check(["discard", *cards, *options])


@FUZZ
@given(
    st.lists(NUMBERS, max_size=3),
    _options(
        {
            "--dealer": st.sampled_from(["me", "opp", "opponent", "you"]),
            "--target": NUMBERS,
            "--json": None,
        }
    ),
)
def test_equity(scores: list[str], options: list[str]) -> None:
    check(["equity", *[s for s in scores if not s.startswith("-")], *options])


@FUZZ
@given(st.data())
def test_review(files: Path, data: st.DataObject) -> None:
    paths = _paths(files)
    game = data.draw(st.lists(paths, max_size=1))
    options = data.draw(
        _options({"--index": NUMBERS, "--plot": paths, "--json": None, "--deals": None})
    )
    check(["review", *game, "--no-plays", *options])


@FUZZ
@given(_options({"--markdown": None}))
def test_rules(options: list[str]) -> None:
    check(["rules", *options])


@FUZZ
@given(st.lists(JUNK, min_size=1, max_size=4))
def test_junk_before_any_command(tokens: list[str]) -> None:
    if tokens[0] in ("play", "arena", "history", "saved") or not tokens[0].startswith("-"):
        tokens = ["--nope", *tokens]  # never start a game or a match: those read a terminal
    check(tokens)


# --- what users meet ------------------------------------------------------------------------------

HOSTILE_NAMES = [
    "[red]Ann[/red] [/] [bold]",
    "\x1b[2J\x1b[31mEve\x07",
    "Bob\u202etxt.exe",
    "x" * 1000,
]


def _named_record(path: Path, names: list[str]) -> Path:
    game = play_game(find_rules("short"), [GreedyPlayer(1), GreedyPlayer(2)], seed=4)
    path.write_text(dumps(game_record(game, names)) + "\n", encoding="utf-8")
    return path


def test_names_from_a_record_print_literally(tmp_path: Path) -> None:
    path = _named_record(tmp_path / "names.jsonl", HOSTILE_NAMES[:2])
    code, out, err = check(["review", str(path), "--no-plays", "--deals"])
    assert code == 0 and not err
    assert "[red]Ann[/red] [/] [bold]" in out  # markup is text
    assert "\x1b" not in out and "\x07" not in out  # no terminal control reaches the terminal
    assert "\\x1b[2J\\x1b[31mEve\\x07" in out  # shown, escaped
    path = _named_record(tmp_path / "names2.jsonl", HOSTILE_NAMES[2:])
    code, out, err = check(["review", str(path), "--no-plays"])
    assert code == 0 and "\u202e" not in out and "Bob\\u202etxt.exe" in out
    assert "x" * 61 not in out  # a long name is cut for display
    code, out, _ = check(["review", str(path), "--no-plays", "--json"])
    assert json.loads(out)["players"][1] == "x" * 1000  # JSON keeps the name whole


def test_a_ten_megabyte_name_is_shown_cut_at_once(tmp_path: Path) -> None:
    """Rich's highlighter took minutes over such a name; it is cut before printing now."""
    path = _named_record(tmp_path / "big.jsonl", ["x" * 10_000_000, "[b]" * 1_000_000])
    started = time.monotonic()
    code, out, err = check(["review", str(path), "--no-plays", "--deals"])
    assert code == 0 and not err
    assert time.monotonic() - started < 20  # seconds even on a slow shared machine
    assert "x" * 60 + "…" in out and "x" * 61 not in out and "[b]" * 20 in out
    assert len(out) < 100_000


def test_a_damaged_history_row_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """`cribbage review ID` reads the record a history row holds: any JSON value at all."""
    from fifteentwo.app import history

    good = game_record(play_game(find_rules("short"), [GreedyPlayer(1), GreedyPlayer(2)], seed=4))
    rows: list[Any] = [
        None,
        "text",
        [1, 2],
        {"format": "fifteentwo-record/1"},
        {**good, "seed": True},
        {**good, "players": ["[red]", 5]},
        {**good, "deals": [{"game": 10**4000}]},
    ]
    for row in rows:

        class FakeHistory:
            record: Any = row

            def __init__(self, *args: object, **kwargs: object) -> None:
                pass

            def games(self, *args: object, **kwargs: object) -> list[dict[str, Any]]:
                return [{"id": 1, "record": self.record}]

        monkeypatch.setattr(history, "History", FakeHistory)
        code, _, err = check(["review", "1", "--no-plays"])
        assert code == 2 and "error: " in err, row


def test_bounded_numbers_say_what_is_allowed(files: Path) -> None:
    for args, message in (
        (["review", str(files / "games.jsonl"), "--index", "9" * 30], "--index must be between"),
        (["review", str(files / "games.jsonl"), "--index", "5"], "has 1 games; --index 5"),
        (
            [
                "discard",
                "5h",
                "5c",
                "jd",
                "qs",
                "2h",
                "9c",
                "--dealer",
                "--score",
                "9" * 5000 + ",1",
            ],
            "--score takes two numbers",
        ),
        (
            ["discard", "5h", "5c", "jd", "qs", "2h", "9c", "--dealer", "--score", "200,1"],
            "between 0 and 120",
        ),
        (["equity", "9" * 5000, "1"], "invalid int value"),
        (["equity", "500", "1"], "between 0 and 120"),
    ):
        code, _, err = check(args)
        assert code == 2 and message in err, (args, err)


def test_the_calculator_reads_a_bounded_line() -> None:
    """``cribbage score < /dev/zero``: an endless line is one error, not all of memory."""
    code, _, err = check(["score"], "5" * 50_000)
    assert code == 2 and "longer than" in err
    code, out, err = check(["score"], "5h 5c 5s jd 5d\n", lines_allowed=1)
    assert code == 0 and "29" in out and not err
