"""The parts of the game engine, one phase to a module; `fifteentwo.game.Game` joins them.

`state` (the attributes of a game and the scoring every phase shares), `show` (counting the
hands and the crib), `play` (the play of the cards), `deal` (chance: the cut for deal, the deal,
the discard and the starter). Each class is built on the one before, so a step calls the steps
it leads into directly, as one class would (docs/speed.md: the split costs nothing measurable).
"""
