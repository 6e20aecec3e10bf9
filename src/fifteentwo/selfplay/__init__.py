"""Self-play table builders: the layer above the players (README's Project layout).

The win-probability table (`equity`), the pegging and keep tables (`pegging`) and the crib
table (`crib`) are built by letting the computer players play, or from the analysis engine, and
are read back by the layers below (`fifteentwo.analysis.equity`, `fifteentwo.players`) as data
files. Putting the builders here keeps those layers free of import cycles: analysis never
imports the players, and the players never import their own builders.
"""
