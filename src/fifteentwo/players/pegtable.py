"""How well a kept hand pegs: a table of expected pegging differences by kept ranks and role.

The show values a hand exactly; the play does not, yet a hand of low cards, pairs and fifteen
pairs pegs better than one of tenth cards. The expert adds this table's value to each discard.

The tables are data (``data/pegging.json`` and ``data/keeps.json``), loaded once. They are
built by self-play in `fifteentwo.selfplay.pegging` (``python -m fifteentwo.selfplay.pegging``,
which says how); a table the user built into the data directory is used instead of the shipped
one (`fifteentwo.tablefiles`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, Final

from fifteentwo.tablefiles import TableSource, read_json_table

__all__ = [
    "KEEPS_FILE",
    "PEGGING_FILE",
    "decode_leads",
    "decode_ranks",
    "encode_leads",
    "encode_ranks",
    "keep_likelihood",
    "keep_tables",
    "opening_leads",
    "peg_tables",
    "peg_value",
]

PEGGING_FILE: Final = "pegging.json"
KEEPS_FILE: Final = "keeps.json"

RankTable = dict[tuple[int, ...], float]


def encode_ranks(table: RankTable) -> dict[str, float]:
    """A rank table as JSON: keys ``"1,1,5,10"``, in sorted order."""
    return {",".join(map(str, k)): v for k, v in sorted(table.items())}


def decode_ranks(data: Any) -> RankTable:
    """The inverse of `encode_ranks` (types checked: a table file is read, not trusted)."""
    if not isinstance(data, dict):
        raise ValueError("a rank table is an object")
    out: RankTable = {}
    for key, value in data.items():
        ranks = tuple(int(r) for r in key.split(","))
        if not all(1 <= r <= 13 for r in ranks) or type(value) not in (float, int):
            raise ValueError(f"bad entry {key!r}")
        out[ranks] = float(value)
    return out


PegTables = tuple[dict[str, RankTable], dict[tuple[int, ...], dict[int, float]]]


def _decode_pegging(data: dict[str, Any]) -> PegTables:
    tables = {role: decode_ranks(data[role]) for role in ("dealer", "pone")}
    leads = {
        ranks: {int(r): float(v) for r, v in row.items()}
        for ranks, row in decode_leads(data["leads"])
    }
    return tables, leads


def decode_leads(data: Any) -> list[tuple[tuple[int, ...], dict[str, Any]]]:
    """The opening-lead rows of a pegging file, by kept ranks (types checked)."""
    if not isinstance(data, dict):
        raise ValueError("the leads are an object")
    return [(tuple(int(r) for r in k.split(",")), dict(row)) for k, row in data.items()]


def encode_leads(leads: dict[tuple[int, ...], dict[int, float]]) -> dict[str, dict[str, float]]:
    """The opening leads as JSON, keys as in `encode_ranks`, lead ranks as strings."""
    return {
        ",".join(map(str, k)): {str(r): v for r, v in row.items()}
        for k, row in sorted(leads.items())
    }


@cache
def peg_tables() -> tuple[PegTables, TableSource]:
    """The pegging values by role and the pone's opening leads, and the file they came from."""
    return read_json_table(PEGGING_FILE, "pegging", _decode_pegging)


def _decode_keeps(data: dict[str, Any]) -> dict[str, RankTable]:
    return {role: decode_ranks(data[role]) for role in ("dealer", "pone")}


@cache
def keep_tables() -> tuple[dict[str, RankTable], TableSource]:
    """The keep likelihoods by role, and the file they came from."""
    return read_json_table(KEEPS_FILE, "keeps", _decode_keeps)


def opening_leads(ranks: Sequence[int]) -> dict[int, float] | None:
    """The pone's opening lead values for a four-card hand (rank -> expected pegging
    difference for the whole play), or None for other hands."""
    if len(ranks) != 4:
        return None
    return peg_tables()[0][1].get(tuple(sorted(ranks)))


def peg_value(ranks: Sequence[int], dealer: bool) -> float:
    """Expected pegging difference of keeping these four ranks (1..13), relative to the
    average kept hand, when we deal (``dealer``) or lead (the pone); 0 for other hand sizes."""
    if len(ranks) != 4:
        return 0.0
    return peg_tables()[0][0]["dealer" if dealer else "pone"].get(tuple(sorted(ranks)), 0.0)


def keep_likelihood(ranks: Sequence[int], dealer: bool) -> float:
    """How much likelier a sensible player who deals (``dealer``) or not holds these four
    ranks after the discard than four random cards (1.0 for other hand sizes)."""
    if len(ranks) != 4:
        return 1.0
    return keep_tables()[0]["dealer" if dealer else "pone"].get(tuple(sorted(ranks)), 1.0)
