"""The generated tables as data files (issue 16) that builds never overwrite (issue 15).

- The shipped pegging, keep and crib tables hold exactly the numbers the generated Python
  modules they replaced held (checksums of those modules' values, taken before they went).
- Rebuilding the crib table gives the shipped numbers; small pegging-keep builds are repeatable
  and read back exactly.
- A build goes to the data dir (or ``--out``), never into the package; the loaders then prefer
  it and say so; an unusable user table is passed over for the shipped one, with the reason.
- Destinations that are not regular files, or inside the package, are refused.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from fifteentwo.analysis import equity
from fifteentwo.analysis.throws import stored_tallies, tallies_in_use
from fifteentwo.cli import main as cli_main
from fifteentwo.players.discarding import CRIB_FILE, crib_tables, crib_value
from fifteentwo.players.pegtable import (
    KEEPS_FILE,
    PEGGING_FILE,
    keep_likelihood,
    keep_tables,
    peg_tables,
    peg_value,
)
from fifteentwo.selfplay.crib import build_crib_data, write_crib
from fifteentwo.selfplay.pegging import build_keeps, write_keeps
from fifteentwo.selfplay.pegging import main as pegging_main
from fifteentwo.tablefiles import (
    TableFileError,
    check_table_path,
    shipped_path,
    table_source,
    user_table_path,
    write_json_table,
)

SHIPPED = ("pegging.json", "keeps.json", "crib.json", "equity.npz", "throws.npz")


def digest(obj: object) -> str:
    return hashlib.sha256(repr(obj).encode()).hexdigest()


def clear() -> None:
    for loader in (peg_tables, keep_tables, crib_tables):
        loader.cache_clear()
    equity.clear_cache()


@pytest.fixture(autouse=True)
def fresh_loaders() -> Iterator[None]:
    """Each test starts and ends with nothing loaded (tables found in its own data dir)."""
    clear()
    yield
    clear()


@pytest.fixture
def shipped_bytes() -> Iterator[dict[str, bytes]]:
    """The shipped files before the test; after it, they must be byte for byte the same."""
    before = {name: shipped_path(name).read_bytes() for name in SHIPPED}
    yield before
    assert {name: shipped_path(name).read_bytes() for name in SHIPPED} == before


# --- the shipped numbers ------------------------------------------------------------------------


def test_the_shipped_tables_hold_the_numbers_of_the_old_modules() -> None:
    """sha256 of the repr of the values of players/_pegdata.py, _keepdata.py and _cribdata.py
    (sorted), computed from those modules before they were replaced by the data files."""
    (tables, leads), source = peg_tables()
    assert source.shipped
    peg = {
        "dealer": dict(sorted(tables["dealer"].items())),
        "pone": dict(sorted(tables["pone"].items())),
        "leads": {k: dict(sorted(v.items())) for k, v in sorted(leads.items())},
    }
    assert digest(peg) == "ff62ab0805fb1e53012204391ec395ea7cf7f0c088d6ba415ae9ee57dae8956e"
    keeps, _ = keep_tables()
    keep = {role: dict(sorted(keeps[role].items())) for role in ("dealer", "pone")}
    assert digest(keep) == "b709b442f1e7b7b2fb55a7aa6cd6e5afda546de2d3406340f7576fc17f02d200"
    cribs, _ = crib_tables()
    crib = {game: dict(sorted(t.items())) for game, t in sorted(cribs.items())}
    assert digest(crib) == "c060185f292ab344e571db6f61fca7e3c3a6bef8e38f7d9b93ba7e0e69cde21c"
    assert len(tables["dealer"]) == len(leads) == len(keeps["pone"]) == 1820


def test_each_table_file_records_the_command_that_built_it() -> None:
    for name, command in [
        (PEGGING_FILE, "python -m fifteentwo.selfplay.pegging --samples 160 --seed 2024"),
        (KEEPS_FILE, "python -m fifteentwo.selfplay.pegging --keeps --deals 1500000"),
        (CRIB_FILE, "python -m fifteentwo.selfplay.crib"),
    ]:
        document = json.loads(shipped_path(name).read_text(encoding="utf-8"))
        assert document["format"] == "fifteentwo-table"
        assert document["built_by"] == command


def test_rebuilding_the_crib_table_gives_the_shipped_numbers() -> None:
    assert build_crib_data() == crib_tables()[0]


def test_a_small_keep_build_is_repeatable_and_reads_back_exactly(tmp_path: Path) -> None:
    first, second = build_keeps(400), build_keeps(400)
    assert first == second
    assert len(first["dealer"]) == 1820
    write_keeps(tmp_path / "k.json", first, 400)
    document = json.loads((tmp_path / "k.json").read_text(encoding="utf-8"))
    assert document["params"]["deals"] == 400
    assert document["built_by"].endswith("--keeps --deals 400")


# --- builds go to the data dir, and are then used -------------------------------------------------


def test_a_build_goes_to_the_data_dir_and_is_used_from_then_on(
    fifteentwo_data_dir: Path, shipped_bytes: dict[str, bytes]
) -> None:
    assert table_source(CRIB_FILE).shipped
    tables = build_crib_data()
    tables["six-card"][(5, 5, False)] = (1.0, 2.0, 3.0)  # a table that differs where it shows
    written = write_crib(user_table_path(CRIB_FILE), tables)
    assert written == fifteentwo_data_dir / "tables" / CRIB_FILE
    _, source = crib_tables()
    assert not source.shipped and source.path == written
    assert "built by you" in source.describe()
    assert crib_value((16, 17), ours=True) == 2.0  # two fives: the user's numbers
    written.unlink()
    clear()
    assert crib_tables()[1].shipped


def test_an_unusable_user_table_is_passed_over_for_the_shipped_one(
    fifteentwo_data_dir: Path,
) -> None:
    folder = fifteentwo_data_dir / "tables"
    folder.mkdir()
    (folder / PEGGING_FILE).write_text('{"format": "fifteentwo-table", "table": "pegging"')
    (folder / KEEPS_FILE).write_text(
        json.dumps({"format": "fifteentwo-table", "table": "keeps", "data": {"dealer": []}})
    )
    (folder / "equity.npz").write_bytes(b"PK\x03\x04 not a zip")
    assert peg_value((5, 5, 10, 10), dealer=True) == peg_tables()[0][0]["dealer"][(5, 5, 10, 10)]
    for source in (peg_tables()[1], keep_tables()[1], equity.table_in_use()):
        assert source.shipped
        assert "unusable" in source.note
    assert keep_likelihood((1, 2, 3, 4), dealer=False) > 0
    assert 0.5 < equity.win_probability(0, 0, my_deal=True) < 0.6


def test_the_pegging_builder_command_writes_to_the_data_dir(
    fifteentwo_data_dir: Path, shipped_bytes: dict[str, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    assert pegging_main(["--keeps", "--deals", "300"]) == 0
    written = fifteentwo_data_dir / "tables" / KEEPS_FILE
    assert str(written) in capsys.readouterr().out
    assert keep_tables()[1].path == written
    assert keep_tables()[0] == build_keeps(300)


def test_the_builder_commands_refuse_a_bad_destination(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pegging_main(["--keeps", "--deals", "10", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert pegging_main(["--keeps", "--deals", "0"]) == 2
    into_package = str(shipped_path(KEEPS_FILE))
    assert pegging_main(["--keeps", "--deals", "10", "--out", into_package]) == 2
    beside_the_code = shipped_path(KEEPS_FILE).parent.parent / "players" / "new" / "keeps.json"
    assert pegging_main(["--keeps", "--deals", "10", "--out", str(beside_the_code)]) == 2
    assert not beside_the_code.parent.exists()


def test_equity_build_writes_to_the_data_dir_and_says_which_table_is_used(
    fifteentwo_data_dir: Path, shipped_bytes: dict[str, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["equity", "0", "0"]) == 0
    assert "shipped" in capsys.readouterr().out
    assert cli_main(["equity", "--build", "--deals", "100", "--player", "random"]) == 0
    out = capsys.readouterr().out
    written = fifteentwo_data_dir / "tables" / "equity.npz"
    assert written.is_file()
    assert "from now on" in out
    assert cli_main(["equity", "0", "0", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)["table"]
    assert table == {"path": str(written), "shipped": False, "deals": 100}
    assert cli_main(["equity", "0", "0"]) == 0
    assert "built by you" in capsys.readouterr().out


def test_equity_build_to_an_explicit_out_leaves_the_tables_in_use(
    tmp_path: Path, shipped_bytes: dict[str, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mine.npz"
    assert (
        cli_main(["equity", "--build", "--deals", "100", "--player", "random", "--out", str(out)])
        == 0
    )
    assert out.is_file()
    assert equity.table_in_use().shipped


@pytest.mark.parametrize("where", ["directory", "package", "fifo", "device"])
def test_equity_build_refuses_a_destination_before_playing(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if where == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
    else:
        path = {
            "directory": tmp_path,
            "package": shipped_path("equity.npz"),
            "device": Path("/dev/null"),
        }[where]
    assert cli_main(["equity", "--build", "--deals", "100", "--out", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    with pytest.raises(TableFileError):
        check_table_path(path)


def test_write_json_table_refuses_non_finite_numbers(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="JSON"):
        write_json_table(tmp_path / "x.json", "crib", {"x": float("nan")}, built_by="", params={})
    assert not (tmp_path / "x.json").exists()


def test_the_throw_tallies_say_where_they_come_from() -> None:
    assert tallies_in_use().shipped
    assert stored_tallies("six-card").shape[1:] == (2, 13, 13, 2)


def test_the_crib_builder_command_rebuilds_the_shipped_numbers_into_the_data_dir(
    fifteentwo_data_dir: Path, shipped_bytes: dict[str, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    from fifteentwo.selfplay.crib import main as crib_main

    shipped = crib_tables()[0]
    assert crib_main([]) == 0
    written = fifteentwo_data_dir / "tables" / CRIB_FILE
    assert str(written) in capsys.readouterr().out
    tables, source = crib_tables()
    assert source.path == written and not source.shipped
    assert tables == shipped


def test_a_pegging_build_does_not_depend_on_processes(tmp_path: Path) -> None:
    """Rows are computed in chunks on the execution backends: one process, two, or a resumed
    checkpoint give the same tables (docs/cluster.md)."""
    from fifteentwo.selfplay.pegging import build

    one = build(2, seed=5, jobs=1)
    assert build(2, seed=5, jobs=2) == one
    path = tmp_path / "pegging.ckpt"
    assert build(2, seed=5, jobs=1, checkpoint=path) == one
    assert build(2, seed=5, jobs=1, checkpoint=path) == one  # every row from the checkpoint
