"""``python -m fifteentwo`` is the ``cribbage`` command."""

from fifteentwo.cli import main

raise SystemExit(main())
