"""`CountedRandom`: the same numbers as `random.Random`, and a count that moves whenever the
state does (what lets a stored game's steps leave out RNG states that did not move)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from fifteentwo.app.drawn import CountedRandom, counted
from fifteentwo.app.session import SeatConfig, Session
from fifteentwo.players import RandomPlayer
from fifteentwo.rules import find_rules
from fifteentwo.store import Store

OPERATIONS: list[tuple[str, Any]] = [
    ("random", lambda r: r.random()),
    ("getrandbits", lambda r: r.getrandbits(70)),
    ("randrange", lambda r: r.randrange(52)),
    ("randint", lambda r: r.randint(4, 48)),
    ("choice", lambda r: r.choice("abcdefg")),
    ("shuffle", lambda r: (items := list(range(13)), r.shuffle(items), items)[2]),
    ("sample", lambda r: r.sample(range(52), 7)),
    ("sample of 3", lambda r: r.sample(range(52), 3)),
    ("choices", lambda r: r.choices("abc", k=4)),
    ("gauss", lambda r: r.gauss(0.0, 1.0)),
    ("uniform", lambda r: r.uniform(0.0, 9.0)),
    ("randbytes", lambda r: r.randbytes(5)),
    ("getstate", lambda r: r.getstate()),
    ("seed", lambda r: r.seed(7)),
    ("setstate", lambda r: r.setstate(random.Random(99).getstate())),
]


@given(
    seed=st.integers(0, 2**64),
    steps=st.lists(st.sampled_from(range(len(OPERATIONS))), max_size=30),
)
def test_a_counted_rng_draws_what_random_draws_and_counts_every_move(
    seed: int, steps: list[int]
) -> None:
    plain = random.Random(seed)
    tracked = counted(random.Random(seed))
    assert tracked is not None
    for step in steps:
        name, operation = OPERATIONS[step]
        before, moves = tracked.getstate(), tracked.moves
        assert operation(tracked) == operation(plain), name
        assert tracked.getstate() == plain.getstate(), name
        if tracked.getstate() != before:
            assert tracked.moves != moves, f"{name} moved the state uncounted"


def test_counting_keeps_the_object_and_leaves_other_kinds_alone() -> None:
    rng = random.Random(3)
    holder = [rng]
    tracked = counted(rng)
    assert tracked is rng and isinstance(holder[0], CountedRandom)
    assert counted(tracked) is tracked
    assert counted(random.SystemRandom()) is None

    class Other(random.Random):
        pass

    assert counted(Other(1)) is None


def test_a_game_with_a_computer_that_draws_resumes_with_its_rng_at_every_step(
    store: Store,
) -> None:
    """The random level draws from its own RNG at most decisions: every step the store holds
    brings that RNG (and the deal's) back exactly as the playing process has it."""
    seats = [SeatConfig("You", human=True), SeatConfig("Computer", level="random")]
    session = Session(find_rules("standard"), seats, 8, store=store, on_notice=lambda _: None)
    me = RandomPlayer(2)
    session.run()
    assert session.game_id is not None
    for _ in range(60):
        session.act(me.choose(session.observation()))
        if session.is_over:
            break
        again = Session.resume(store, session.game_id, owner=session.owner)
        assert again.game.log == session.game.log
        assert again.game.rng.getstate() == session.game.rng.getstate()
        assert again.players[1].rng.getstate() == session.players[1].rng.getstate()
        again.release()
