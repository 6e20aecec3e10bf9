"""The store's CPU per action early and late in a game: a move must cost the same at the end of
a game as at the start (issue 32). Before, every step wrote the whole `Session` JSON (record,
decisions, RNG states), so a late move cost more (O(n^2) per game); now a step is one small
row after a full save taken at doubling log lengths (docs/store.md, "Moves").

Plays GAMES games (a greedy "human" against the greedy computer, the standard game) through a
`Session` saving to a fresh store, and times, with the process's CPU clock, each save the
session makes after a human decision: the first third of a game's decisions ("early") against
the last third ("late"), the game-over save left out. The same games are then saved the old way
(a full save at every step) for comparison, and as the web server saves them (each write
version-checked): against a slow level (the decision stored before the computer moves, the
computer's turn claimed), and against a quick one (the decision and the reply in one write,
`WebSession.decision_first`).
Prints CPU microseconds per action and the ratio late/early for each (the goal: within 20%,
i.e. a ratio under 1.2).

Run with ``python bench/bench_store.py [--games N] [--db URL]`` (default: SQLite in a
temporary directory; ``--db postgresql://...`` measures PostgreSQL).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from fifteentwo.app.session import SeatConfig, Session
from fifteentwo.players import GreedyPlayer
from fifteentwo.rules import find_rules
from fifteentwo.store import Store, open_store


class TimedSession(Session):
    """A session that records the CPU time of each save (and can save whole every time)."""

    whole_every_time = False
    one_write = False
    cpu: list[float]

    def decision_first(self) -> bool:
        return not self.one_write

    def save(self) -> None:
        started = time.process_time()
        super().save()
        self.cpu.append(time.process_time() - started)

    def _step_due(self) -> bool:
        return False if self.whole_every_time else super()._step_due()


def play(store: Store, seed: int, mode: str) -> tuple[list[float], list[float]]:
    """One game; the CPU seconds of the early and of the late saves."""
    seats = [SeatConfig("You", human=True), SeatConfig("Computer", level="greedy")]
    session = TimedSession(find_rules("standard"), seats, seed, store=store)
    session.whole_every_time = mode == "whole"
    session.one_write = mode == "web1"
    if mode in ("web", "web1"):  # as the web server plays: version-checked, the turn claimed

        def claim(s: Session) -> bool:
            assert s.game_id is not None
            return store.claim_turn(s.game_id, s.version or 0, owner="bench", seconds=15)

        session.optimistic, session.turn_claim = True, claim
    session.cpu = []
    me = GreedyPlayer(seed + 1)
    session.run()
    per_action: list[float] = []
    while not session.is_over:
        session.cpu.clear()
        session.act(me.choose(session.observation()))
        if not session.is_over:
            per_action.append(sum(session.cpu))
    third = len(per_action) // 3
    return per_action[:third], per_action[-third:]


def measure(store: Store, games: int, mode: str) -> tuple[float, float]:
    early: list[float] = []
    late: list[float] = []
    for seed in range(games):
        e, l_ = play(store, 1000 + seed, mode)
        early.extend(e)
        late.extend(l_)
    return statistics.mean(early) * 1e6, statistics.mean(late) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--db", default=None, help="a store URL (default: SQLite, temporary)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = args.db or str(Path(tmp) / "bench.sqlite3")
        store = open_store(where)
        measure(store, 2, "steps")  # warm-up (imports, caches, the schema)
        modes = (
            ("steps (now)", "steps"),
            ("web, a slow level (2 writes)", "web"),
            ("web, a quick level (1 write)", "web1"),
            ("whole save every step (before)", "whole"),
        )
        for label, mode in modes:
            early, late = measure(store, args.games, mode)
            print(
                f"{label:32s} CPU per action: early {early:7.0f} us, late {late:7.0f} us, "
                f"late/early {late / early:.2f}"
            )
        store.close()


if __name__ == "__main__":
    main()
