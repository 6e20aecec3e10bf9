"""How well a kept hand pegs: a table of expected pegging differences by kept ranks and role.

The show values a hand exactly; the play does not, yet a hand of low cards, pairs and fifteen
pairs pegs better than one of tenth cards. The expert adds this table's value to each discard.

How it is built (``python -m fifteentwo.players.pegtable``, a few minutes): a fixed sample of
opponent hands is drawn, each the four cards the standard level keeps from a random deal in the
other role. Every four-card rank multiset we could keep (1,820) is played against every sample
hand it fits with (no rank more than four times), both sides playing the rest of the play
perfectly with all cards known (`PegSearch`), and the pegging difference is averaged. Using the
same opponents for every kept hand (common random numbers) makes the differences between hands,
which are all a discard needs, far more precise than the values themselves. Values are centred
(mean zero over the kept hands, weighted by how often each is dealt).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from functools import cache
from itertools import combinations_with_replacement
from typing import Final

from fifteentwo.players.discarding import table_discards
from fifteentwo.players.knowledge import PIPS
from fifteentwo.players.pegging import PegSearch

__all__ = ["build", "build_keeps", "keep_likelihood", "opening_leads", "peg_value"]

KEEP_DEALS: Final = 1_500_000
"""Deals per role behind the shipped keep likelihoods."""
KEEP_SMOOTHING: Final = 5.0
"""Pseudo-deals pulling rarely seen keeps toward a likelihood ratio of 1."""

SAMPLES: Final = 160
"""Opponent hands per role in the shipped table."""


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
    return total / n


def build(
    samples: int = SAMPLES, seed: int = 2024, jobs: int = 1
) -> tuple[dict[str, dict[tuple[int, ...], float]], dict[tuple[int, ...], dict[int, float]]]:
    """The tables: pegging values ``{"dealer": {ranks: value}, "pone": {...}}`` and the pone's
    opening leads ``{ranks: {lead rank: value}}``."""
    import multiprocessing

    rng = random.Random(seed)
    keeps: list[tuple[int, ...]] = [
        k for k in combinations_with_replacement(range(1, 14), 4) if max(map(k.count, k)) <= 4
    ]
    as_pone = _opponent_hands(rng, True, samples)  # they deal while we lead
    as_dealer = _opponent_hands(rng, False, samples)  # they lead
    context = multiprocessing.get_context("spawn")
    with context.Pool(jobs) as pool:
        lead_rows = pool.map(_pone_row, [(k, as_pone) for k in keeps], chunksize=20)
        leads = dict(zip(keeps, lead_rows, strict=True))
        best_lead = {k: max(row, key=lambda r: (row[r], -r)) for k, row in leads.items()}
        dealer = pool.map(_dealer_row, [(k, as_dealer, best_lead) for k in keeps], chunksize=20)
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


@cache
def _table() -> dict[str, dict[tuple[int, ...], float]]:
    from fifteentwo.players._pegdata import DEALER, PONE

    return {"dealer": DEALER, "pone": PONE}


def opening_leads(ranks: Sequence[int]) -> dict[int, float] | None:
    """The pone's opening lead values for a four-card hand (rank -> expected pegging
    difference for the whole play), or None for other hands."""
    if len(ranks) != 4:
        return None
    from fifteentwo.players._pegdata import LEADS

    return LEADS.get(tuple(sorted(ranks)))


def peg_value(ranks: Sequence[int], dealer: bool) -> float:
    """Expected pegging difference of keeping these four ranks (1..13), relative to the
    average kept hand, when we deal (``dealer``) or lead (the pone); 0 for other hand sizes."""
    if len(ranks) != 4:
        return 0.0
    return _table()["dealer" if dealer else "pone"].get(tuple(sorted(ranks)), 0.0)


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


@cache
def _keeps() -> dict[str, dict[tuple[int, ...], float]]:
    from fifteentwo.players._keepdata import DEALER, PONE

    return {"dealer": DEALER, "pone": PONE}


def keep_likelihood(ranks: Sequence[int], dealer: bool) -> float:
    """How much likelier a sensible player who deals (``dealer``) or not holds these four
    ranks after the discard than four random cards (1.0 for other hand sizes)."""
    if len(ranks) != 4:
        return 1.0
    return _keeps()["dealer" if dealer else "pone"].get(tuple(sorted(ranks)), 1.0)


def _write_keeps(path: str, tables: dict[str, dict[tuple[int, ...], float]], deals: int) -> None:
    lines = [
        f'"""Generated by ``python -m fifteentwo.players.pegtable --keeps {deals}``: do not edit.',
        "",
        "How much likelier each kept rank multiset is after a sensible discard than at random",
        '(`fifteentwo.players.pegtable.build_keeps`)."""',
        "",
        "# fmt: off",
    ]
    for role in ("dealer", "pone"):
        lines.append(f"{role.upper()}: dict[tuple[int, ...], float] = {{")
        lines += [f"    {k}: {v}," for k, v in sorted(tables[role].items())]
        lines.append("}")
    lines.append("# fmt: on")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def _write(
    path: str,
    tables: dict[str, dict[tuple[int, ...], float]],
    leads: dict[tuple[int, ...], dict[int, float]],
    samples: int,
) -> None:
    lines = [
        f'"""Generated by ``python -m fifteentwo.players.pegtable {samples}``: do not edit."""',
        "",
        "# fmt: off",
    ]
    for role in ("dealer", "pone"):
        lines.append(f"{role.upper()}: dict[tuple[int, ...], float] = {{")
        lines += [f"    {k}: {v}," for k, v in sorted(tables[role].items())]
        lines.append("}")
    lines.append("LEADS: dict[tuple[int, ...], dict[int, float]] = {")
    lines += [f"    {k}: {v}," for k, v in sorted(leads.items())]
    lines.append("}")
    lines.append("# fmt: on")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":  # pragma: no cover - the build is run by hand
    from pathlib import Path

    here = Path(__file__)
    if sys.argv[1:2] == ["--keeps"]:
        deals = int(sys.argv[2]) if len(sys.argv) > 2 else KEEP_DEALS
        _write_keeps(str(here.with_name("_keepdata.py")), build_keeps(deals), deals)
    else:
        n = int(sys.argv[1]) if len(sys.argv) > 1 else SAMPLES
        jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
        tables, leads = build(n, jobs=jobs)
        _write(str(here.with_name("_pegdata.py")), tables, leads, n)
