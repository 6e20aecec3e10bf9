"""The local backends and checkpoints (no Ray needed: these run in ``make test`` too)."""

from __future__ import annotations

import json
import os
import signal
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from fifteentwo.arena import GameTask, _play_chunk
from fifteentwo.cluster import (
    INSTALL_HINT,
    Checkpoint,
    ClusterError,
    InlineBackend,
    ProcessBackend,
    chunked,
    open_backend,
    parse_address,
)
from fifteentwo.rules import STANDARD


def square_all(items: list[int]) -> list[int]:
    return [i * i for i in items]


def winners(tasks: list[GameTask]) -> list[tuple[int, tuple[int, ...]]]:
    """A chunk of games reduced to what must not depend on where it ran."""
    return [(o.winner, o.scores) for o in _play_chunk(tasks)]


def games(n: int) -> list[GameTask]:
    return [GameTask("standard", "novice", STANDARD, 5, i, False, False) for i in range(n)]


def test_inline_and_pool_give_the_same_games_in_order() -> None:
    with InlineBackend() as inline:
        expected = list(inline.map(winners, chunked(games(16), 3)))
    with open_backend(jobs=2) as pool:
        assert isinstance(pool, ProcessBackend)
        assert list(pool.map(winners, chunked(games(16), 3))) == expected
    assert len(expected) == 6


def test_items_are_read_lazily() -> None:
    """A run of unbounded length only ever reads a window of items ahead."""
    read: list[int] = []

    def endless() -> Any:
        n = 0
        while True:
            read.append(n)
            yield [n]
            n += 1

    with ProcessBackend(2) as pool:
        results = pool.map(square_all, endless())
        assert [next(results) for _ in range(5)] == [[0], [1], [4], [9], [16]]
        results.close()
    assert len(read) <= 5 + pool.window() + 1


def test_pool_survives_a_killed_worker() -> None:
    with ProcessBackend(2) as pool:
        out = []
        for result in pool.map(winners, chunked(games(30), 2)):
            out.append(result)
            if len(out) == 1:
                assert pool._pool is not None
                victim = next(iter(pool._pool._processes))  # type: ignore[attr-defined]
                os.kill(victim, signal.SIGKILL)
    with InlineBackend() as inline:
        assert out == list(inline.map(winners, chunked(games(30), 2)))


def test_checkpoint_resumes_and_refuses_other_runs(tmp_path: Path) -> None:
    path = tmp_path / "run.ckpt"
    params = {"games": 20, "seed": 5}
    with InlineBackend() as inline:
        expected = list(inline.map(winners, chunked(games(20), 4)))
        first = inline.map(winners, chunked(games(20), 4), checkpoint=Checkpoint(path, params))
        assert [next(first) for _ in range(2)] == expected[:2]
        first.close()
    header = json.loads(path.read_text().splitlines()[0])
    assert header["params"] == {**params, "fifteentwo": version("fifteentwo")}
    with path.open("ab") as fh:
        fh.write(b'{"chunk": 2, "da')  # a line torn by a crash
    resumed = Checkpoint(path, params)
    assert sorted(resumed.done) == [0, 1]
    calls: list[int] = []

    def counted(tasks: list[GameTask]) -> list[tuple[int, tuple[int, ...]]]:
        calls.append(tasks[0].index)
        return winners(tasks)

    with InlineBackend() as inline:
        assert list(inline.map(counted, chunked(games(20), 4), checkpoint=resumed)) == expected
    assert calls == [8, 12, 16]  # chunks 0 and 1 came from the file
    assert sorted(Checkpoint(path, params).done) == [0, 1, 2, 3, 4]
    with pytest.raises(ClusterError, match=r"other parameters.*seed: 5 there, 6 now"):
        Checkpoint(path, {"games": 20, "seed": 6})
    other = tmp_path / "notes.txt"
    other.write_text("shopping list\n")
    with pytest.raises(ClusterError, match="not a fifteentwo checkpoint"):
        Checkpoint(other, params)


def test_checkpoint_longer_than_the_items(tmp_path: Path) -> None:
    """Stored chunks past the end of the items are never yielded."""
    path = tmp_path / "c.ckpt"
    with InlineBackend() as inline:
        list(inline.map(square_all, chunked(range(10), 2), checkpoint=Checkpoint(path, {})))
        out = list(inline.map(square_all, chunked(range(4), 2), checkpoint=Checkpoint(path, {})))
    assert out == [[0, 1], [4, 9]]


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("auto", "auto"),
        ("head", "head:6379"),
        ("10.1.2.3:7000", "10.1.2.3:7000"),
        ("ray://head", "ray://head:10001"),
        ("ray://head:10002", "ray://head:10002"),
    ],
)
def test_addresses(address: str, expected: str) -> None:
    assert parse_address(address) == expected


@pytest.mark.parametrize("address", ["", "head:port", "head:0", "head:70000", "ray://", ":80"])
def test_bad_addresses(address: str) -> None:
    with pytest.raises(ClusterError, match="address"):
        parse_address(address)


def test_missing_ray_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(ClusterError) as info:
        open_backend("auto")
    assert INSTALL_HINT in str(info.value)
    assert "\n" not in str(info.value)


def test_checkpoint_parts_are_numbered_on_their_own(tmp_path: Path) -> None:
    path = tmp_path / "two.ckpt"
    first = Checkpoint(path, {"passes": 2})
    with InlineBackend() as inline:
        assert list(inline.map(square_all, [[1], [2]], checkpoint=first.part("a"))) == [[1], [4]]
        assert list(inline.map(square_all, [[3]], checkpoint=first.part("b"))) == [[9]]
    again = Checkpoint(path, {"passes": 2})
    assert again.part("a").done == {0: [1], 1: [4]}
    assert again.part("b").done == {0: [9]}
    assert again.done == {}
