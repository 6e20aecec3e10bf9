"""Build the pegging and keep tables by self-play (`fifteentwo.players.pegtable` reads them).

Pegging values (``data/pegging.json``, a few minutes with several jobs): a fixed sample of
opponent hands is drawn, each the four cards the standard level keeps from a random deal in the
other role. Every four-card rank multiset we could keep (1,820) is played against every sample
hand it fits with (no rank more than four times), both sides playing the rest of the play
perfectly with all cards known (`PegSearch`), and the pegging difference is averaged. Using the
same opponents for every kept hand (common random numbers) makes the differences between hands,
which are all a discard needs, far more precise than the values themselves. Values are centred
(mean zero over the kept hands, weighted by how often each is dealt).

Keep likelihoods (``data/keeps.json``): `build_keeps`.

Run ``python -m fifteentwo.selfplay.pegging [--keeps] [--samples N | --deals N] [--jobs N]
[--out PATH]``. It writes to the data directory (``tables/`` in ``$FIFTEENTWO_DATA_DIR`` or the
platform's), where the players then find it, or to ``--out``; never over the shipped tables.
The command that built a table is recorded inside it.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any, Final

from fifteentwo.cluster import Checkpoint, add_cluster_arguments, chunked, open_backend
from fifteentwo.errors import FifteenTwoError
from fifteentwo.players.discarding import table_discards
from fifteentwo.players.knowledge import PIPS
from fifteentwo.players.pegging import PegSearch
from fifteentwo.players.pegtable import (
    KEEPS_FILE,
    PEGGING_FILE,
    encode_leads,
    encode_ranks,
    keep_tables,
    peg_tables,
)
from fifteentwo.tablefiles import (
    check_table_path,
    user_table_path,
    write_json_table,
)

__all__ = ["KEEP_DEALS", "SAMPLES", "build", "build_keeps", "main", "write_keeps", "write_pegging"]

KEEP_DEALS: Final = 1_500_000
"""Deals per role behind the shipped keep likelihoods."""
KEEP_SMOOTHING: Final = 5.0
"""Pseudo-deals pulling rarely seen keeps toward a likelihood ratio of 1."""

SAMPLES: Final = 160
"""Opponent hands per role in the shipped table."""
SEED: Final = 2024
"""The seed of the shipped pegging table."""


def _opponent_hands(rng: random.Random, dealer: bool, n: int) -> list[tuple[int, ...]]:
    """Rank tuples of hands the standard level keeps in the opponent's role (``dealer``: the
    opponent deals, so it throws to its own crib)."""
    out = []
    for _ in range(n):
        deal = sorted(rng.sample(range(52), 6))
        throw = table_discards(deal, 4, ours=dealer)[0][1]
        out.append(tuple(sorted((c >> 2) + 1 for c in deal if c not in throw)))
    return out


def _fits(a: Sequence[int], b: Sequence[int]) -> bool:
    counts = [0] * 14
    for r in (*a, *b):
        counts[r] += 1
        if counts[r] > 4:
            return False
    return True


def _dealt_weight(ranks: Sequence[int]) -> int:
    """Ways to hold these ranks as cards (suit choices), for centring the table."""
    from math import comb

    w = 1
    for r in set(ranks):
        w *= comb(4, ranks.count(r))
    return w


def _pone_row(args: tuple[tuple[int, ...], list[tuple[int, ...]]]) -> dict[int, float]:
    """Mean value of each lead from ``keep`` against the opponents it fits with."""
    keep, opponents = args
    search = PegSearch()
    totals: dict[int, float] = {}
    n = 0
    for opp in opponents:
        if _fits(keep, opp):
            for r, v in search.root(keep, opp, (), 0, 0, -1).items():
                totals[r] = totals.get(r, 0.0) + v
            n += 1
    if not n:  # (only in a tiny build: no sample hand fits; every lead is worth the same)
        return dict.fromkeys(keep, 0.0)
    return {r: v / n for r, v in totals.items()}


def _dealer_row(
    args: tuple[tuple[int, ...], list[tuple[int, ...]], dict[tuple[int, ...], int]],
) -> float:
    """Mean pegging difference holding ``keep`` as dealer, the pone leading by the table."""
    keep, opponents, leads = args
    search = PegSearch()
    total, n = 0.0, 0
    for opp in opponents:
        if _fits(keep, opp):
            # The pone (player 1) leads its table card without seeing our hand.
            r = leads[opp]
            i = opp.index(r)
            rest = opp[:i] + opp[i + 1 :]
            total += search._next_points(keep, rest, (r,), PIPS[r], 1, 0)  # a lone card: 0
            n += 1
    return total / n if n else 0.0  # (no sample hand fits: only in a tiny build)


def _rows(task: tuple[Callable[[Any], Any], list[Any]]) -> list[Any]:
    """One chunk of table rows (a picklable task for the execution backends)."""
    row, items = task
    return [row(item) for item in items]


def build(
    samples: int = SAMPLES,
    seed: int = SEED,
    jobs: int = 1,
    *,
    cluster: str | None = None,
    checkpoint: Path | None = None,
) -> tuple[dict[str, dict[tuple[int, ...], float]], dict[tuple[int, ...], dict[int, float]]]:
    """The tables: pegging values ``{"dealer": {ranks: value}, "pone": {...}}`` and the pone's
    opening leads ``{ranks: {lead rank: value}}``.

    Rows are computed in chunks on ``jobs`` local processes or a Ray ``cluster``
    (fifteentwo.cluster); every row depends only on the seeded sample, so the tables do not
    depend on where they were built, and a ``checkpoint`` file resumes an interrupted build."""
    rng = random.Random(seed)
    keeps: list[tuple[int, ...]] = [
        k for k in combinations_with_replacement(range(1, 14), 4) if max(map(k.count, k)) <= 4
    ]
    as_pone = _opponent_hands(rng, True, samples)  # they deal while we lead
    as_dealer = _opponent_hands(rng, False, samples)  # they lead
    params = {"kind": "pegging", "samples": samples, "seed": seed}
    saved = None if checkpoint is None else Checkpoint(checkpoint, params)
    with open_backend(cluster, jobs) as backend:
        tasks = ((_pone_row, [(k, as_pone) for k in keys]) for keys in chunked(keeps, 20))
        stage = None if saved is None else saved.part("leads")
        lead_rows = [row for rows in backend.map(_rows, tasks, checkpoint=stage) for row in rows]
        leads = dict(zip(keeps, lead_rows, strict=True))
        best_lead = {k: max(row, key=lambda r: (row[r], -r)) for k, row in leads.items()}
        dealer_tasks = (
            (_dealer_row, [(k, as_dealer, best_lead) for k in keys]) for keys in chunked(keeps, 20)
        )
        stage = None if saved is None else saved.part("dealer")
        dealer = [
            row for rows in backend.map(_rows, dealer_tasks, checkpoint=stage) for row in rows
        ]
    values = {
        "pone": {k: max(row.values()) for k, row in leads.items()},
        "dealer": dict(zip(keeps, dealer, strict=True)),
    }
    weights = {k: _dealt_weight(k) for k in keeps}
    tables: dict[str, dict[tuple[int, ...], float]] = {}
    for role, table in values.items():
        mean = sum(table[k] * w for k, w in weights.items()) / sum(weights.values())
        tables[role] = {k: round(v - mean, 3) for k, v in table.items()}
    rounded = {k: {r: round(v, 3) for r, v in row.items()} for k, row in leads.items()}
    return tables, rounded


def build_keeps(deals: int = KEEP_DEALS) -> dict[str, dict[tuple[int, ...], float]]:
    """What a sensible discard reveals: for each four-card rank multiset, how much likelier a
    player is to hold it after discarding than four random cards are to have it.

    ``deals`` random six-card deals per role go through the standard level's discard (the
    "sensible" keep), and each kept multiset's frequency is divided by its chance among four
    random cards (the suit choices over C(52, 4)), smoothed toward 1 by `KEEP_SMOOTHING`.
    ``dealer``: the player deals (throws to its own crib); ``pone``: it does not.
    """
    from collections import Counter
    from math import comb

    out: dict[str, dict[tuple[int, ...], float]] = {}
    for role, seed in (("dealer", 7), ("pone", 8)):
        rng = random.Random(seed)
        kept: Counter[tuple[int, ...]] = Counter()
        for _ in range(deals):
            deal = sorted(rng.sample(range(52), 6))
            throw = table_discards(deal, 4, ours=role == "dealer")[0][1]
            kept[tuple(sorted((c >> 2) + 1 for c in deal if c not in throw))] += 1
        table: dict[tuple[int, ...], float] = {}
        for k in combinations_with_replacement(range(1, 14), 4):
            if max(map(k.count, k)) > 4:
                continue
            expected = deals * _dealt_weight(k) / comb(52, 4)
            table[k] = round((kept[k] + KEEP_SMOOTHING) / (expected + KEEP_SMOOTHING), 4)
        out[role] = table
    return out


def write_pegging(
    path: Path,
    tables: dict[str, dict[tuple[int, ...], float]],
    leads: dict[tuple[int, ...], dict[int, float]],
    *,
    samples: int,
    seed: int,
) -> Path:
    """Write a pegging table file, the command that built it recorded inside."""
    data = {
        "dealer": encode_ranks(tables["dealer"]),
        "pone": encode_ranks(tables["pone"]),
        "leads": encode_leads(leads),
    }
    command = f"python -m fifteentwo.selfplay.pegging --samples {samples} --seed {seed}"
    params = {"samples": samples, "seed": seed}
    written = write_json_table(path, "pegging", data, built_by=command, params=params)
    peg_tables.cache_clear()
    return written


def write_keeps(path: Path, tables: dict[str, dict[tuple[int, ...], float]], deals: int) -> Path:
    """Write a keep-likelihood table file, the command that built it recorded inside."""
    data = {role: encode_ranks(tables[role]) for role in ("dealer", "pone")}
    command = f"python -m fifteentwo.selfplay.pegging --keeps --deals {deals}"
    params = {"deals": deals, "smoothing": KEEP_SMOOTHING}
    written = write_json_table(path, "keeps", data, built_by=command, params=params)
    keep_tables.cache_clear()
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Build a pegging (or ``--keeps``) table into the data dir or ``--out``."""
    parser = argparse.ArgumentParser(
        prog="python -m fifteentwo.selfplay.pegging",
        description="Build the pegging table (or --keeps, the keep likelihoods) by self-play.",
    )
    parser.add_argument("--keeps", action="store_true", help="build the keep likelihoods")
    parser.add_argument("--samples", type=int, default=SAMPLES, help="opponent hands per role")
    parser.add_argument("--seed", type=int, default=SEED, help="seed of the opponent hands")
    parser.add_argument("--deals", type=int, default=KEEP_DEALS, help="deals per role (--keeps)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    add_cluster_arguments(parser)
    parser.add_argument("--out", type=Path, help="file to write (default: the data dir)")
    args = parser.parse_args(argv)
    for name, value, low, high in (
        ("--samples", args.samples, 1, 100_000),
        ("--deals", args.deals, 1, 100_000_000),
        ("--jobs", args.jobs, 1, 1024),
    ):
        if not low <= value <= high:
            print(f"error: {name} must be between {low} and {high}", file=sys.stderr)
            return 2
    name = KEEPS_FILE if args.keeps else PEGGING_FILE
    try:
        out = check_table_path(args.out or user_table_path(name))  # before any work
        if args.keeps:
            written = write_keeps(out, build_keeps(args.deals), args.deals)
        else:
            tables, leads = build(
                args.samples,
                seed=args.seed,
                jobs=args.jobs,
                cluster=args.cluster,
                checkpoint=args.checkpoint,
            )
            written = write_pegging(out, tables, leads, samples=args.samples, seed=args.seed)
    except FifteenTwoError as exc:  # a table path, a cluster or a checkpoint that cannot be used
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {written}")
    if args.out is None:
        print("the players use it from now on (delete it to go back to the shipped table)")
    return 0


if __name__ == "__main__":  # pragma: no cover - the build is run by hand
    sys.exit(main())
