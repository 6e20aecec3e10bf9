"""The ``cribbage`` console script: Ctrl-C while the program is still loading exits 130 quietly.

Importing fifteentwo loads numpy, rich and the engine; a KeyboardInterrupt raised during that
import happens before `fifteentwo.cli.main` can catch anything, so this module (outside the
package, importing nothing of ours at load time) does the import inside a ``try``.
"""

from __future__ import annotations

import contextlib
import sys


def main() -> int:
    """Import the command and run it; exit 130 on Ctrl-C at any moment of the start."""
    try:
        from fifteentwo.cli import main as cli_main

        return cli_main()
    except KeyboardInterrupt:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            print(file=sys.stderr, flush=True)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
