"""A change to a player measured on common random numbers: the candidate and the player it
changes (the base) each play the same games against the same opponent, with the same seeds.

Why: the arena's ``--a candidate --b expert-1`` needs 20,000 games to see +0.02 wins per pair.
Most of those games say nothing about the change, because the candidate decides exactly as the
base does in them. Here the candidate and the base share their seed, so they decide alike until
the first decision where the change matters; a game in which no decision differed is the same
game for both (it is not played twice), and the difference between the two comes only from the
games that diverged. Its interval is much narrower than that of two separate matches, for the
same number of games.

The games are the arena's (``cribbage arena --a CANDIDATE --b OPPONENT --duplicate --seed S``
plays exactly the candidate's games here, game for game): two-player rules, duplicate deals, A's
seat alternating. The report gives the candidate's and the base's results against the opponent
on those games, and their difference per duplicate pair (in the arena's units: A's wins minus
B's, margin, game points) with a 95% interval over pairs.

``--compare discard`` (or ``play``) checks only decisions of that phase for a divergence: use it
when the change touches only that phase (the check costs a second decision by the base). A
decision outside it is assumed equal; ``--verify N`` replays the base in the first N games even
when no decision differed, and fails if any such game came out otherwise. ``--log FILE`` appends
each game's result to FILE as it ends; ``--from-log FILE`` reports the complete pairs of such a
file without playing (a long run stopped early still says what it played; several files, of
runs with other seeds, are reported together), and ``--start N``
goes on with such a run from game N (the games are the same whatever the start).
``--move-time S`` lets a slow candidate (a ``module:Class`` player) take up to S seconds a
decision instead of the guard's 10.

    PYTHONPATH=bench python bench/paired.py --candidate expert_variants:RefinedEndgame \\
        --base expert_variants:MoreGuesses --opponent expert-1 --games 2000 --compare discard
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing import Pool
from typing import Any

from fifteentwo.actions import Action, Phase
from fifteentwo.arena import derive_seed, seating
from fifteentwo.game import Observation
from fifteentwo.players import Player, load_player, play_game
from fifteentwo.rules import Rules, find_rules

_LOG_SPAN = 1 << 40
"""Game numbers of one log apart from the next's when several are reported together."""


class _Watched:
    """The candidate in its seat; records whether the base would have decided otherwise."""

    def __init__(self, candidate: Player, base: Player, phases: frozenset[Phase] | None) -> None:
        self.candidate, self.base, self.phases = candidate, base, phases
        self.rng = candidate.rng
        self.diverged = False

    def choose(self, obs: Observation) -> Action:
        action = self.candidate.choose(obs)
        if not self.diverged and (self.phases is None or obs.phase in self.phases):
            self.diverged = self.base.choose(obs) != action
        return action


@dataclass(frozen=True, slots=True)
class Job:
    candidate: str
    base: str
    opponent: str
    rules: Rules
    seed: int
    index: int
    phases: frozenset[Phase] | None
    verify: bool
    move_time: float | None = None


@dataclass(frozen=True, slots=True)
class Result:
    """One game: (won, margin, game points) for the candidate and for the base, and whether
    they diverged (when not, the base's are the candidate's)."""

    index: int
    diverged: bool
    candidate: tuple[int, int, int]
    base: tuple[int, int, int]


def _seats(job: Job, a: Player) -> tuple[list[Player], int]:
    set_index, rotation = job.index // 2, job.index % 2
    (a_seat,) = seating(job.rules, rotation)
    seed = derive_seed(job.seed, "b", set_index, 0)
    opponent = load_player(job.opponent, seed, move_time=job.move_time)
    seats = [opponent, opponent]
    seats[a_seat] = a
    return seats, a_seat


def _a_player(job: Job, spec: str) -> Player:
    seed = derive_seed(job.seed, "a", job.index // 2, 0)
    return load_player(spec, seed, move_time=job.move_time)


def _result_of(job: Job, seats: Sequence[Any], a_seat: int) -> tuple[int, int, int]:
    game = play_game(job.rules, seats, derive_seed(job.seed, "deal", job.index // 2))
    side = job.rules.side_of(a_seat)
    other = 1 - side
    won = int(game.winner == side)
    margin = game.scores[side] - game.scores[other]
    points = game.match_points[side] - game.match_points[other]
    return won, margin, points


def play(job: Job) -> Result:
    watched = _Watched(_a_player(job, job.candidate), _a_player(job, job.base), job.phases)
    seats, a_seat = _seats(job, watched)  # type: ignore[arg-type]
    candidate = _result_of(job, seats, a_seat)
    if not (watched.diverged or job.verify):
        return Result(job.index, False, candidate, candidate)
    seats, a_seat = _seats(job, _a_player(job, job.base))
    base = _result_of(job, seats, a_seat)
    if not watched.diverged and base != candidate:
        raise SystemExit(f"error: game {job.index} differs with no decision that differed")
    return Result(job.index, watched.diverged, candidate, base)


def _interval(values: Sequence[float]) -> tuple[float, float, float]:
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / max(1, n - 1)
    half = 1.96 * math.sqrt(var / n)
    return mean, mean - half, mean + half


def report(results: list[Result], seconds: float) -> str:
    """The candidate's and the base's results and their paired difference, as text."""
    results.sort(key=lambda r: r.index)
    n = len(results)
    lines = [f"{n} games, {sum(r.diverged for r in results)} diverged, {seconds:.0f} s"]
    for name, pick in (("candidate", 0), ("base", 1)):
        wins = sum((r.candidate, r.base)[pick][0] for r in results)
        lines.append(f"{name:9}: wins {wins / n:.2%} of the games against the opponent")
    pairs: dict[int, list[Result]] = {}
    for r in results:
        pairs.setdefault(r.index // 2, []).append(r)
    for name, pick in (("candidate", 0), ("base", 1)):
        per_pair = [
            sum(2 * (r.candidate, r.base)[pick][0] - 1 for r in pair)
            for pair in pairs.values()
            if len(pair) == 2
        ]
        mean, lo, hi = _interval(per_pair)
        lines.append(f"{name} - opponent, wins per pair: {mean:+.3f} ({lo:+.3f} to {hi:+.3f})")
    for label, k, scale in (("wins per pair", 0, 2), ("margin per pair", 1, 1)):
        diffs = [
            scale * sum(r.candidate[k] - r.base[k] for r in pair)
            for pair in pairs.values()
            if len(pair) == 2
        ]
        mean, lo, hi = _interval(diffs)
        lines.append(f"candidate - base, {label}: {mean:+.3f} ({lo:+.3f} to {hi:+.3f})")
    diffs = [sum(r.candidate[2] - r.base[2] for r in p) for p in pairs.values() if len(p) == 2]
    mean, lo, hi = _interval(diffs)
    lines.append(f"candidate - base, game points per pair: {mean:+.3f} ({lo:+.3f} to {hi:+.3f})")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate")
    parser.add_argument("--base")
    parser.add_argument("--opponent")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--compare", choices=("all", "discard", "play"), default="all")
    parser.add_argument("--verify", type=int, default=0, metavar="N")
    parser.add_argument(
        "--start",
        type=int,
        default=0,
        metavar="N",
        help="begin at game N (even): go on with a stopped run, appending to the same --log",
    )
    parser.add_argument(
        "--move-time",
        type=float,
        metavar="S",
        help="seconds a module:Class player may take per decision (default: the guard's)",
    )
    parser.add_argument(
        "--log", metavar="FILE", help="append each game's result to FILE as it finishes"
    )
    parser.add_argument(
        "--from-log",
        metavar="FILE",
        nargs="+",
        help="report the complete pairs in --log FILEs (runs with other seeds together), play none",
    )
    args = parser.parse_args(argv)
    if args.from_log:
        complete: list[Result] = []
        for number, name in enumerate(args.from_log):
            try:
                with open(name, encoding="utf-8") as f:
                    logged = [_result_from_json(line) for line in f if line.strip()]
            except (OSError, ValueError, KeyError, TypeError) as exc:
                print(f"error: cannot read {name}: {exc}", file=sys.stderr)
                return 2
            pairs: dict[int, int] = {}
            for r in logged:
                pairs[r.index // 2] = pairs.get(r.index // 2, 0) + 1
            # each file's pairs apart from the others' (their games share numbers, not deals)
            offset = number * _LOG_SPAN
            complete += [
                dataclasses.replace(r, index=r.index + offset)
                for r in logged
                if pairs[r.index // 2] == 2
            ]
        if not complete:
            print(f"error: no complete pair in {' '.join(args.from_log)}", file=sys.stderr)
            return 2
        print(report(complete, 0.0))
        return 0
    if args.start < 0 or (args.move_time is not None and not args.move_time > 0):
        print("error: --start must be 0 or more and --move-time above 0", file=sys.stderr)
        return 2
    if not (args.candidate and args.base and args.opponent):
        print("error: give --candidate, --base and --opponent (or --from-log)", file=sys.stderr)
        return 2
    rules = find_rules(args.variant)
    if rules.sides != 2 or rules.partnerships:
        print("error: paired runs cover two-player games", file=sys.stderr)
        return 2
    phases = {"all": None, "discard": frozenset({Phase.DISCARD}), "play": frozenset({Phase.PLAY})}
    jobs = [
        Job(
            args.candidate,
            args.base,
            args.opponent,
            rules,
            args.seed,
            i,
            phases[args.compare],
            i < args.verify,
            args.move_time,
        )
        for i in range(args.start - args.start % 2, args.games - args.games % 2)
    ]
    start = time.perf_counter()
    results = run(jobs, args.jobs, log=args.log)
    print(report(results, time.perf_counter() - start))
    return 0


def run(jobs: Sequence[Job], processes: int, *, log: str | None = None) -> list[Result]:
    """Play the jobs, in this process when ``processes`` is 1; with ``log``, each result is
    appended to that file as a JSON line as soon as its game ends (`--from-log` reports them),
    so a long run stopped early still says what it played."""
    out: list[Result] = []
    sink = open(log, "a", encoding="utf-8") if log else None  # noqa: SIM115 - closed below
    try:
        if processes == 1:
            done: Any = (play(job) for job in jobs)
            out = _drain(done, sink)
        else:
            with Pool(processes) as pool:
                out = _drain(pool.imap_unordered(play, jobs, chunksize=4), sink)
    finally:
        if sink is not None:
            sink.close()
    return out


def _drain(results: Any, sink: Any) -> list[Result]:
    out = []
    for r in results:
        out.append(r)
        if sink is not None:
            sink.write(json.dumps(_result_to_json(r)) + "\n")
            sink.flush()
    return out


def _result_to_json(r: Result) -> dict[str, Any]:
    return {
        "index": r.index,
        "diverged": r.diverged,
        "candidate": list(r.candidate),
        "base": list(r.base),
    }


def _result_from_json(line: str) -> Result:
    d = json.loads(line)
    c, b = d["candidate"], d["base"]
    return Result(
        int(d["index"]),
        bool(d["diverged"]),
        (int(c[0]), int(c[1]), int(c[2])),
        (int(b[0]), int(b[1]), int(b[2])),
    )


if __name__ == "__main__":
    sys.exit(main())
