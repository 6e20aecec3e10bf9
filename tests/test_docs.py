"""The docs as a newcomer reads them: every ``>>>`` example in README.md and docs/*.md runs as
printed, and the install command of an optional extra works from the project's own files."""

from __future__ import annotations

import doctest
import re
import shlex
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCED = re.compile(r"^```[a-z]*\n(.*?)^```", re.S | re.M)


def examples(path: Path) -> list[tuple[int, str]]:
    """The fenced blocks of ``path`` that hold ``>>>`` examples, with their first line."""
    text = path.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 2, m.group(1))
        for m in FENCED.finditer(text)
        if ">>>" in m.group(1)
    ]


WITH_EXAMPLES = [p for p in DOCS if examples(p)]


@pytest.mark.parametrize("path", WITH_EXAMPLES, ids=[p.name for p in WITH_EXAMPLES])
def test_the_examples_run_as_printed(path: Path) -> None:
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    failed: list[str] = []
    names: dict[str, object] = {}  # one page's examples go on from each other (its imports)
    for line, code in examples(path):
        test = doctest.DocTestParser().get_doctest(code, names, f"{path.name}:{line}", None, line)
        runner = doctest.DocTestRunner(optionflags=flags)
        runner.run(test, out=failed.append, clear_globs=False)
        names.update(test.globs)  # (a DocTest works on a copy)
        assert runner.tries > 0
    assert failed == []


def test_the_env_extra_installs_from_the_checkout() -> None:
    """docs/env.md named ``pip install 'fifteentwo[env]'``, which looks for a package of that
    name in the package index instead of installing this project; the extra must exist."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    text = (ROOT / "docs" / "env.md").read_text(encoding="utf-8")
    commands = [line.split("#")[0] for line in text.splitlines() if "pip install" in line]
    assert commands
    for command in commands:
        words = shlex.split(command.strip().strip("`"))
        target = words[-1]
        assert target.startswith("."), command  # the checkout, not a name in an index
        extra = re.fullmatch(r"\.\[(\w+)\]", target)
        assert extra is not None and extra.group(1) in extras, command
