"""Build the win-probability (equity) table by self-play (`fifteentwo.analysis.equity` reads
and solves it; the deals come from the computer players, so the builder lives here, above both).

``cribbage equity --build`` calls `build_tables`: it writes to the data directory
(``tables/equity.npz`` in ``$FIFTEENTWO_DATA_DIR`` or the platform's), which `load_table` then
prefers, or to ``--out``; never over the table shipped inside the package. The command that
built it is stored in the file (``built_by``).
"""

from __future__ import annotations

import io
import itertools
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from fifteentwo.actions import DealDone, Dealt, Reason, Scored
from fifteentwo.analysis.equity import (
    DATA_FILE,
    ROLE_MEANS,
    ROLE_SUMS,
    TARGETS,
    DealSample,
    EquityTable,
    clear_cache,
    solve,
)
from fifteentwo.cluster import Checkpoint, open_backend
from fifteentwo.players import load_player, play_game
from fifteentwo.rules import STANDARD
from fifteentwo.tablefiles import check_table_path, user_table_path, write_table_bytes

__all__ = ["build_tables", "sample_deals"]


GAMES_PER_CHUNK: Final = 4
"""Games one task plays (a game to 1,000 points holds about 35 deals)."""


def _play_games(task: tuple[str, int, int]) -> list[tuple[DealSample, dict[str, int]]]:
    """Every complete deal of games ``first`` .. ``first + count - 1`` (each seeded by its
    number, so a task's result is the same wherever it runs): its ordered scores and its
    points by `ROLE_MEANS` source."""
    player, first, count = task
    rules = STANDARD.replace(target=1000, skunk=None, double_skunk=None)  # no deal is cut short
    out: list[tuple[DealSample, dict[str, int]]] = []
    for game_seed in range(first, first + count):
        players = [load_player(player, game_seed * 2), load_player(player, game_seed * 2 + 1)]
        game = play_game(rules, players, game_seed)
        current: DealSample | None = None
        pending: list[Scored] = []
        dealer = 0
        for event in game.events:
            if isinstance(event, Dealt):
                current, dealer, pending = [], event.dealer, []
            elif isinstance(event, Scored) and current is not None:
                if event.reason is not Reason.THREE_FOR_LAST:
                    current.append((event.seat == dealer, event.points))
                    pending.append(event)
            elif isinstance(event, DealDone) and current is not None:
                by_role: dict[str, int] = dict.fromkeys(ROLE_MEANS, 0)
                for scored in pending:
                    by_role[_role_key(scored.reason, scored.seat == dealer)] += scored.points
                out.append((current, by_role))
                pending = []
                current = None
    return out


def sample_deals(
    deals: int,
    *,
    player: str = "expert",
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
    role_totals: dict[str, float] | None = None,
    role_deals: list[dict[str, int]] | None = None,
    jobs: int = 1,
    cluster: str | None = None,
    checkpoint: Path | None = None,
) -> list[DealSample]:
    """Play computer-vs-computer games and keep each complete deal's ordered scores.

    Games are numbered from ``seed`` and each is seeded by its number, so the deals are the
    same on one process, ``jobs`` processes or a Ray ``cluster`` (fifteentwo.cluster); with a
    ``checkpoint`` file an interrupted build resumes where it stopped.
    ``role_totals``, when given, is filled with the summed points of each `ROLE_MEANS` source.
    ``role_deals``, when given, gets each complete deal's points by `ROLE_MEANS` source.
    """
    out: list[DealSample] = []
    tasks = ((player, seed + k * GAMES_PER_CHUNK, GAMES_PER_CHUNK) for k in itertools.count())
    params = {"kind": "equity deals", "player": player, "seed": seed}
    with open_backend(cluster, jobs) as backend:
        saved = None if checkpoint is None else Checkpoint(checkpoint, params)
        results = backend.map(_play_games, tasks, checkpoint=saved)
        try:
            for chunk in results:
                for sample, by_role in chunk:
                    if role_totals is not None:
                        for key, value in by_role.items():
                            role_totals[key] = role_totals.get(key, 0.0) + value
                    if role_deals is not None:
                        role_deals.append(by_role)
                    out.append(sample)
                    if progress is not None:
                        progress(1)
                    if len(out) >= deals:
                        return out
        finally:
            results.close()
    return out


def _role_key(reason: object, by_dealer: bool) -> str:
    if reason is Reason.CRIB:
        return "crib"
    if reason is Reason.HIS_HEELS:
        return "heels"
    if reason is Reason.HAND:
        return "hand_dealer" if by_dealer else "hand_pone"
    return "peg_dealer" if by_dealer else "peg_pone"  # play, go, last card


def build_tables(
    deals: int = 20000,
    *,
    player: str = "expert",
    seed: int = 0,
    path: Path | None = None,
    progress: Callable[[int], None] | None = None,
    jobs: int = 1,
    cluster: str | None = None,
    checkpoint: Path | None = None,
) -> dict[int, EquityTable]:
    """Sample deals, solve the 121 and 61 tables, and save them to ``path`` (default: the
    data dir's ``tables/equity.npz``, which `load_table` then prefers; never the shipped one).
    The path is checked before any deal is played."""
    target_path = check_table_path(path or user_table_path(DATA_FILE))
    started = time.perf_counter()
    totals: dict[str, float] = {}
    per_deal: list[dict[str, int]] = []
    samples = sample_deals(
        deals,
        player=player,
        seed=seed,
        progress=progress,
        role_totals=totals,
        role_deals=per_deal,
        jobs=jobs,
        cluster=cluster,
        checkpoint=checkpoint,
    )
    means = {key: totals.get(key, 0.0) / len(samples) for key in ROLE_MEANS}
    tables = {t: solve(samples, t, source=player) for t in TARGETS}
    tables = {t: replace(table, role_means=means) for t, table in tables.items()}
    arrays: dict[str, npt.NDArray[np.generic]] = {}
    for t, table in tables.items():
        arrays[f"win{t}"] = table.win.astype(np.float32)
        arrays[f"points{t}"] = table.points.astype(np.float32)
    arrays["meta"] = np.array([deals, time.perf_counter() - started])
    arrays["role_means"] = np.array([means[key] for key in ROLE_MEANS])
    for name, parts in ROLE_SUMS.items():
        values = np.array([sum(d[p] for p in parts) for d in per_deal])
        arrays[f"hist_{name}"] = np.bincount(values) / len(values)
    arrays["source"] = np.array(player)
    arrays["built_by"] = np.array(
        f"cribbage equity --build --deals {deals} --player {player} --seed {seed}"
    )
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
    write_table_bytes(target_path, buffer.getvalue())
    clear_cache()
    return tables
