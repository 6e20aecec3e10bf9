"""The learning example runs (quickly) and its policy pegs more than random play."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "learn_pegging.py"


def test_learn_pegging_quick() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--quick"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    curve = re.findall(r"^\s+\d+\s+([+-]\d+\.\d+)\s", out, re.MULTILINE)
    assert len(curve) == 10  # the learning curve, ten points
    random_play = float(re.search(r"random play\s+([+-]\d+\.\d+)", out)[1])  # type: ignore[index]
    learned = float(re.search(r"learned play\s+([+-]\d+\.\d+)", out)[1])  # type: ignore[index]
    assert learned > random_play + 0.3, out
