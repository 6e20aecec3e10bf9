"""`CountedRandom`: the same numbers as `random.Random`, and a count that moves whenever the
state does (what lets a stored game's steps leave out RNG states that did not move)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fifteentwo.app.drawn import CountedRandom, advance, counted
from fifteentwo.app.session import REBASE_WORDS, SaveError, SeatConfig, Session
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


@given(
    seed=st.integers(0, 2**64),
    steps=st.lists(st.sampled_from(range(len(OPERATIONS))), max_size=30),
)
def test_the_words_counted_since_the_state_was_set_bring_the_state_back(
    seed: int, steps: list[int]
) -> None:
    """A state and the words drawn since it give the state now exactly (what a stored step
    carries instead of the state), whenever no Gaussian is kept for the next call."""
    tracked = counted(random.Random(seed))
    assert tracked is not None
    start = tracked.getstate()
    for step in steps:
        name, operation = OPERATIONS[step]
        if name in ("seed", "setstate"):
            operation(tracked)
            start = tracked.getstate()
            assert tracked.words == 0 and tracked.base is None, name
            continue
        operation(tracked)
        if getattr(tracked, "gauss_next", None) is not None:
            continue  # (the state keeps a number no count of words can give back)
        again = random.Random()
        again.setstate(start)
        advance(again, tracked.words)
        assert again.getstate() == tracked.getstate(), name


def test_advancing_counts_the_words_it_draws() -> None:
    tracked = counted(random.Random(5))
    assert tracked is not None
    advance(tracked, 1000)
    assert tracked.words == 1000
    advance(tracked, 0)
    assert tracked.words == 1000
    with pytest.raises(ValueError):
        advance(tracked, -1)


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


def _against_random(store: Store, seed: int) -> Session:
    """A stored game of a person against the random level (which draws from its own RNG at
    most decisions), started: the person's first decision is pending."""
    seats = [SeatConfig("You", human=True), SeatConfig("Computer", level="random")]
    session = Session(find_rules("standard"), seats, seed, store=store, on_notice=lambda _: None)
    session.run()
    return session


def _assert_resumes_exactly(store: Store, session: Session) -> None:
    """The stored game, resumed, is ``session``'s: the same log, and every RNG in its state."""
    assert session.game_id is not None
    again = Session.resume(store, session.game_id, owner=session.owner)
    assert again.game.log == session.game.log
    assert again.game.rng.getstate() == session.game.rng.getstate()
    assert again.players[1].rng.getstate() == session.players[1].rng.getstate()
    again.release()


def test_a_game_with_a_computer_that_draws_resumes_with_its_rng_at_every_step(
    store: Store,
) -> None:
    """The random level draws from its own RNG at most decisions: every step the store holds
    brings that RNG (and the deal's) back exactly as the playing process has it."""
    session = _against_random(store, 8)
    me = RandomPlayer(2)
    assert session.game_id is not None
    for _ in range(60):
        session.act(me.choose(session.observation()))
        if session.is_over:
            break
        _assert_resumes_exactly(store, session)


def test_most_steps_carry_an_rng_count_not_its_state(store: Store) -> None:
    """A step stores an RNG's 3 KB state only when the state was set or drew far: the deal's
    and the computer's draws are counts otherwise (issue 32: a step's size), and the game
    resumes exactly at every step (above)."""
    session = _against_random(store, 11)
    me = RandomPlayer(4)
    steps: list[dict[str, Any]] = []
    saving = store.append_move

    def append_move(game_id: str, step: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        steps.append(step)
        return saving(game_id, step, *args, **kwargs)

    store.append_move = append_move  # type: ignore[method-assign]
    while not session.is_over and len(steps) < 40:
        session.act(me.choose(session.observation()))
    counts = [s["set"] for s in steps if "rng_at" in s["set"] or "players_at" in s["set"]]
    states = [s["set"] for s in steps if "rng" in s["set"] or "players" in s["set"]]
    assert len(counts) >= 20  # (the random level draws at nearly every decision)
    assert len(states) <= 3  # (the first step after the game's creation sets them)


@pytest.mark.parametrize("count", [-1, REBASE_WORDS * 1000, True, "7", 2.5])
def test_a_save_asking_for_an_rng_count_that_is_not_one_is_refused(
    store: Store, count: Any
) -> None:
    """A damaged count is one clear error at the resume, never an endless draw."""
    session = _against_random(store, 3)
    data = session.to_json()
    data["rng_at"] = count
    with pytest.raises(SaveError, match="RNG count"):
        Session.from_json(data)


def test_a_copy_of_a_session_counts_its_rngs_from_where_the_original_does(store: Store) -> None:
    """`Session.clone` copies the RNGs by state: the copies count on from the same stored
    state, so a step made from a copy stores counts, as the original's would."""
    session = _against_random(store, 5)
    me = RandomPlayer(1)
    for _ in range(12):
        session.act(me.choose(session.observation()))
    copy = session.clone()
    assert copy.game.rng is not session.game.rng
    assert copy._at(copy.game.rng) == session._at(session.game.rng)
    assert copy._at(copy.players[1].rng) == session._at(session.players[1].rng)
    assert copy.step_json()["set"].keys() == session.step_json()["set"].keys()


def test_a_game_resumes_exactly_when_its_rngs_are_stored_again_every_few_words(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `REBASE_WORDS` a step stores an RNG's state again and counts from there: with the
    limit at 8 words that happens at most steps, and every step still resumes exactly."""
    monkeypatch.setattr("fifteentwo.app.session.REBASE_WORDS", 8)
    session = _against_random(store, 21)
    me = RandomPlayer(6)
    assert session.game_id is not None
    bases = set()
    for _ in range(40):
        session.act(me.choose(session.observation()))
        if session.is_over:
            break
        bases.add(session._at(session.game.rng)[0])
        _assert_resumes_exactly(store, session)
    assert len(bases) > 2  # (stored again several times)
