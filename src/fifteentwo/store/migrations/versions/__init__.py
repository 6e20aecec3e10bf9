"""The revisions, oldest first: ``v3`` (baseline), ``v4``, ``v5``, ``v6``."""
