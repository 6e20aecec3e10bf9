"""The package's layers (README, "Project layout"): no import cycles, no import against the order.

Every module of ``src/fifteentwo`` is parsed (never imported) and each import statement in it
is read, wherever it is: at the top, inside a function (a lazy import is still a dependency:
it runs the moment the function does) and under ``if TYPE_CHECKING:`` (a type is a dependency
too, and a cycle through types is a design cycle even when it cannot fail at run time).

The rules:

- Each module belongs to a layer, by its top-level name (`LAYERS`). It may import modules of
  its own layer and of the layers above it (smaller numbers), never a later one.
- No cycle among the modules, counting every import as above. A package's ``__init__`` is the
  node for ``import fifteentwo.players`` (what that import runs); ``from fifteentwo.players
  import base`` depends on the submodule too. The implicit import of a parent package when a
  submodule loads is not counted (every submodule would otherwise depend on its package).
- `errors` (the exception family) is importable from anywhere and imports nothing of ours.
- The package ``__init__`` (``import fifteentwo``) re-exports the library's public names: it
  may import any layer up to `LIBRARY_TOP` and sits just below it, so only the layers after
  `LIBRARY_TOP` (the store and the front-ends, e.g. for ``__version__``) may import it; a
  library module importing it would depend on everything it re-exports.
- ``__main__`` is a front-end (layer 9).
- A module whose top-level name is not in `LAYERS` fails, with a message saying to add it.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

import fifteentwo

ROOT = Path(fifteentwo.__file__).parent
PACKAGE = "fifteentwo"

LAYERS: dict[str, int] = {
    # 1: cards, and the files of the generated tables (no cribbage in it)
    "cards": 1,
    "tablefiles": 1,
    # 2: scoring
    "scoring": 2,
    "distribution": 2,
    # 3: the rules as data
    "rules": 3,
    # 4: the engine: the state machine, its actions and events, observations, records
    "game": 4,
    "engine": 4,
    "actions": 4,
    "observation": 4,
    "records": 4,
    # 5: analysis (never the players)
    "analysis": 5,
    # 6: the players
    "players": 6,
    # 7: self-play: matches and table builders
    "selfplay": 7,
    "arena": 7,
    "cluster": 7,
    # 8: the store of games
    "store": 8,
    # 9: front-ends
    "app": 9,
    "cli": 9,
    "tui": 9,
    "web": 9,
    "env": 9,
    "__main__": 9,
}
"""Layer of each top-level module or package of ``fifteentwo``."""

ANYWHERE = {"errors"}
"""Importable from every layer; may import nothing of ours."""
LIBRARY_TOP = 7
"""The package ``__init__`` re-exports names from layers up to this one."""


def module_name(path: Path) -> str:
    """``fifteentwo.players.base`` for ``players/base.py``; a package's name for __init__."""
    parts = [PACKAGE, *path.relative_to(ROOT).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def is_package(name: str) -> bool:
    return all_modules()[name].name == "__init__.py"


def imports_of(name: str) -> Iterator[tuple[str, int]]:
    """The package modules ``name`` imports, with line numbers (see the module docstring)."""
    modules = all_modules()
    tree = ast.parse(modules[name].read_text(encoding="utf-8"), filename=str(modules[name]))
    here = name if is_package(name) else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                    yield _known(alias.name), node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target != PACKAGE and not target.startswith(PACKAGE + "."):
                continue
            yield _known(target), node.lineno
            for alias in node.names:  # ``from fifteentwo.players import base``: a submodule
                sub = f"{target}.{alias.name}"
                if sub in modules:
                    yield sub, node.lineno


def _known(name: str) -> str:
    """The nearest module of ours that ``name`` names (``a.b.c`` may be a name in ``a.b``)."""
    modules = all_modules()
    while name not in modules and "." in name:
        name = name.rpartition(".")[0]
    return name


def top(name: str) -> str:
    """The top-level name of a module: ``players`` for ``fifteentwo.players.base``."""
    return name.split(".")[1] if "." in name else ""


def layer(name: str) -> int:
    return LAYERS[top(name)]


def test_every_module_has_a_layer() -> None:
    missing = sorted(
        {top(m) for m in all_modules() if m != PACKAGE and top(m) not in set(LAYERS) | ANYWHERE}
    )
    assert not missing, (
        f"fifteentwo.{', fifteentwo.'.join(missing)} is in no layer: add it to LAYERS in "
        "tests/test_layers.py and to README's Project layout"
    )


def test_imports_follow_the_layer_order() -> None:
    wrong = []
    for name in all_modules():
        for target, line in imports_of(name):
            where = f"{all_modules()[name].relative_to(ROOT.parent)}:{line}"
            if target == PACKAGE:
                if name != PACKAGE and (top(name) not in LAYERS or layer(name) <= LIBRARY_TOP):
                    wrong.append(f"{where}: {name} imports the package root (import the module)")
            elif name == PACKAGE:
                if top(target) not in ANYWHERE and layer(target) > LIBRARY_TOP:
                    wrong.append(f"{where}: the package root re-exports a front-end, {target}")
            elif top(name) in ANYWHERE:
                wrong.append(f"{where}: {name} may import nothing of ours, not {target}")
            elif top(target) in ANYWHERE or top(target) not in LAYERS:
                continue  # (errors; an unknown module fails the test above)
            elif top(name) in LAYERS and layer(target) > layer(name):
                wrong.append(
                    f"{where}: {name} (layer {layer(name)}) imports {target} "
                    f"(layer {layer(target)}), a later layer"
                )
    assert not wrong, "imports against the layer order:\n" + "\n".join(wrong)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (as a path that returns to its start), or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


def import_graph() -> dict[str, set[str]]:
    return {name: {t for t, _ in imports_of(name) if t != name} for name in all_modules()}


def test_no_import_cycles() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_analysis_never_imports_the_players() -> None:
    """The issue's own example, named: analysis builds nothing by self-play."""
    for name in all_modules():
        if top(name) == "analysis":
            assert not [t for t, _ in imports_of(name) if top(t) == "players"], name


def test_the_base_player_module_does_not_import_the_levels() -> None:
    assert {t for t, _ in imports_of("fifteentwo.players.base")} <= {
        m for m in all_modules() if layer_or_none(m) is not None and layer(m) < 6
    } | {
        "fifteentwo.errors",
        "fifteentwo.players.guard",
        "fifteentwo.players.protocol",
    }  # no levels


def layer_or_none(name: str) -> int | None:
    return LAYERS.get(top(name))


# --- the checker itself -------------------------------------------------------------------------


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"a"}}) == ["a", "a"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from fifteentwo.players import load_player", {"fifteentwo.players"}),
        ("from fifteentwo.players import base", {"fifteentwo.players", "fifteentwo.players.base"}),
        ("import fifteentwo.analysis.equity as eq", {"fifteentwo.analysis.equity"}),
        ("def f():\n    from fifteentwo.players import play_game", {"fifteentwo.players"}),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..players import Player",
            {"fifteentwo.players"},
        ),
        ("from . import crib", {"fifteentwo.analysis", "fifteentwo.analysis.crib"}),
        ("from .crib import crib_table", {"fifteentwo.analysis.crib"}),
        ("import numpy\nfrom fifteentwo.game import Game", {"fifteentwo.game"}),
    ],
)
def test_imports_are_read_wherever_they_are(
    source: str, expected: set[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Imports at the top, in functions, under TYPE_CHECKING, relative: all are read."""
    fake = tmp_path / "fake.py"
    fake.write_text(source, encoding="utf-8")
    modules = dict(all_modules())
    modules["fifteentwo.analysis.fake"] = fake
    monkeypatch.setattr(sys.modules[__name__], "all_modules", lambda: modules)
    assert {t for t, _ in imports_of("fifteentwo.analysis.fake")} == expected
