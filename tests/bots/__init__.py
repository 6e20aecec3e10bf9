"""Bots for the tests: misbehaving ones for the guards (``bots.bad``, with tests/ on the path)."""
