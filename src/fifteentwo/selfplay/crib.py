"""Build the crib table the table-driven levels use (`fifteentwo.players.discarding` reads it).

Each class of two-card throw (low rank, high rank, suited) gets its expected crib show points
under the three models of `fifteentwo.analysis.crib.crib_table` (uniform, the dealer's crib
with a baulking pone, the pone's throw to a feeding dealer), for the six- and five-card games.
The values are exact (no sampling), so a rebuild gives the shipped numbers (a test checks it).

Run ``python -m fifteentwo.selfplay.crib [--out PATH]``: it writes to the data directory
(``tables/crib.json``), where the players then find it, or to ``--out``; never over the
shipped table.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from fifteentwo.analysis.crib import crib_table
from fifteentwo.players.discarding import CRIB_FILE, CribTable, crib_tables, encode_crib
from fifteentwo.tablefiles import (
    TableFileError,
    check_table_path,
    user_table_path,
    write_json_table,
)

__all__ = ["GAMES", "build_crib_data", "main", "write_crib"]

GAMES: Final = ("six-card", "five-card")
DIGITS: Final = 12
"""Decimal places kept (the models are exact; this only keeps the file short)."""


def build_crib_data() -> dict[str, CribTable]:
    """The crib tables from the analysis engine, for both two-player games."""
    return {
        game: {
            (e.low, e.high, e.suited): (
                round(e.uniform, DIGITS),
                round(e.dealer, DIGITS),
                round(e.pone, DIGITS),
            )
            for e in crib_table(game)
        }
        for game in GAMES
    }


def write_crib(path: Path, tables: dict[str, CribTable]) -> Path:
    """Write a crib table file, the command that built it recorded inside."""
    data = {game: encode_crib(table) for game, table in sorted(tables.items())}
    written = write_json_table(
        path,
        "crib",
        data,
        built_by="python -m fifteentwo.selfplay.crib",
        params={"digits": DIGITS, "throw_model": "data/throws.npz"},
    )
    crib_tables.cache_clear()
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Build the crib table into the data dir or ``--out``."""
    parser = argparse.ArgumentParser(
        prog="python -m fifteentwo.selfplay.crib",
        description="Build the crib table of the table-driven levels (about a second).",
    )
    parser.add_argument("--out", type=Path, help="file to write (default: the data dir)")
    args = parser.parse_args(argv)
    try:
        out = check_table_path(args.out or user_table_path(CRIB_FILE))  # before any work
        written = write_crib(out, build_crib_data())
    except TableFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {written}")
    return 0


if __name__ == "__main__":  # pragma: no cover - the build is run by hand
    sys.exit(main())
