"""Computer-vs-computer matches with confidence intervals, optionally as duplicate play.

`run_match` plays ``games`` games between player A and player B (level names or
``module:Class``) and returns a `MatchResult`: wins with a 95% confidence interval, points per
game, skunks, game points, the first dealer's win rate, and each side's decision times. Every
game's deal seed and player seeds are derived from the match seed and the game's number, so a
result does not depend on how many processes played it.

Seating: in two-sided games (two players, or four in partnerships) A takes seat 0 (and 2) in
even games and seat 1 (and 3) in odd ones; in the three-player game A takes seat ``i % 3`` and
B the other two. The cut for deal is the engine's, so each side deals first about half the time.

Duplicate play (``duplicate=True``) plays every deal sequence once per seat of A's, with the same
deal seed: the engine draws the cut for deal, every deal and every starter from the game's RNG in
a fixed number of steps whatever the players do, and gives them by seat, so A in one game gets
exactly the cards B got in the other (tests/test_arena.py checks it). The paired difference
cancels most of the luck of the cards. The alignment holds deal by deal; in best-of-N matches a
later game's first dealer depends on who lost, so only single games pair exactly.
"""

from __future__ import annotations

import functools
import hashlib
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from fifteentwo.actions import Action, Dealt, GameOver
from fifteentwo.cluster import MAX_RETRIES, Checkpoint, chunked, open_backend
from fifteentwo.errors import FifteenTwoError
from fifteentwo.game import Game, Observation
from fifteentwo.players.base import Player, load_player, play_game
from fifteentwo.players.guard import (
    DEFAULT_MOVE_TIME,
    BotError,
    GuardedPlayer,
    check_move_time,
)
from fifteentwo.players.protocol import ProtocolPlayer
from fifteentwo.rules import Rules

__all__ = [
    "DecisionTimes",
    "GameOutcome",
    "Interval",
    "MatchResult",
    "derive_seed",
    "mean_interval",
    "play_one",
    "run_match",
    "wilson_interval",
]

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed from the match seed and labels (stable across processes and runs)."""
    text = "/".join(map(str, (seed, *parts)))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


# --- statistics ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Interval:
    """An estimate with its 95% confidence interval."""

    value: float
    low: float
    high: float

    def excludes(self, x: float) -> bool:
        """Whether ``x`` lies outside the interval."""
        return not self.low <= x <= self.high

    def to_json(self) -> dict[str, float]:
        """``{"value", "low", "high"}``."""
        return {"value": self.value, "low": self.low, "high": self.high}


def wilson_interval(successes: float, n: int) -> Interval:
    """A proportion with its Wilson score interval (sound near 0 and 1, and for small n).

    >>> i = wilson_interval(55, 100)
    >>> round(i.value, 2), round(i.low, 3), round(i.high, 3)
    (0.55, 0.452, 0.644)
    """
    if n <= 0:
        return Interval(math.nan, 0.0, 1.0)
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: Sequence[float]) -> Interval:
    """A mean with its normal-approximation interval (mean +/- 1.96 standard errors).

    >>> i = mean_interval([1.0, 2.0, 3.0, 4.0])
    >>> i.value, round(i.low, 3), round(i.high, 3)
    (2.5, 1.235, 3.765)
    """
    n = len(values)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan)
    mean = statistics.fmean(values)
    if n == 1:
        return Interval(mean, -math.inf, math.inf)
    half = Z95 * statistics.stdev(values) / math.sqrt(n)
    return Interval(mean, mean - half, mean + half)


class DecisionTimes:
    """A histogram of decision times in 2% wide bins: mergeable across processes, and exact to
    2% for any quantile (the p99 of a million decisions needs no list of a million floats)."""

    STEP = math.log(1.02)

    def __init__(self) -> None:
        self.bins: dict[int, int] = {}
        self.count = 0
        self.total = 0.0
        self.max = 0.0

    def add(self, seconds: float) -> None:
        """Record one decision."""
        micros = max(seconds * 1e6, 1.0)
        b = int(math.log(micros) / self.STEP)
        self.bins[b] = self.bins.get(b, 0) + 1
        self.count += 1
        self.total += seconds
        self.max = max(self.max, seconds)

    def merge(self, other: DecisionTimes) -> None:
        """Add another histogram's decisions to this one."""
        for b, n in other.bins.items():
            self.bins[b] = self.bins.get(b, 0) + n
        self.count += other.count
        self.total += other.total
        self.max = max(self.max, other.max)

    def quantile(self, q: float) -> float:
        """The ``q`` quantile in milliseconds (the middle of its bin)."""
        if not self.count:
            return math.nan
        rank = q * self.count
        seen = 0
        for b in sorted(self.bins):
            seen += self.bins[b]
            if seen >= rank:
                return math.exp((b + 0.5) * self.STEP) / 1000.0
        return self.max * 1000.0  # pragma: no cover - rank never exceeds the count

    def to_json(self) -> dict[str, float | int]:
        """Decisions, mean, median, p90, p99 and max in milliseconds."""
        if not self.count:
            return {"decisions": 0}
        return {
            "decisions": self.count,
            "mean": self.total / self.count * 1000.0,
            "median": self.quantile(0.5),
            "p90": self.quantile(0.9),
            "p99": self.quantile(0.99),
            "max": self.max * 1000.0,
        }


class _Timed:
    """Stands in a seat for a player, timing each decision (the player is unchanged)."""

    def __init__(self, player: Player, times: DecisionTimes) -> None:
        self.player = player
        self.times = times
        self.rng = player.rng
        self.wants_events = getattr(player, "wants_events", False)

    def events(self, events: Sequence[Any]) -> None:
        self.player.events(events)  # type: ignore[attr-defined]

    def close(self) -> None:
        close = getattr(self.player, "close", None)
        if close is not None:
            close()

    def choose(self, obs: Observation) -> Action:
        start = time.perf_counter()
        action = self.player.choose(obs)
        self.times.add(time.perf_counter() - start)
        return action


# --- one game ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameTask:
    """Everything a worker process needs to play one game."""

    a: str
    b: str
    rules: Rules
    seed: int
    index: int
    """Game number in the match (set * legs + leg in duplicate play)."""
    duplicate: bool
    record: bool
    move_time: float = DEFAULT_MOVE_TIME
    """Seconds a loaded (``module:Class``) bot may take per decision."""


@dataclass
class GameOutcome:
    """What one game of a match produced (plain data, so it crosses process boundaries)."""

    index: int
    set_index: int
    """The deal sequence: the pair (or triple) in duplicate play, else the game number."""
    a_seats: tuple[int, ...]
    a_side: int
    winner: int
    """The side that won (the match, in best-of-N rules)."""
    scores: tuple[int, ...]
    """Final scores by side."""
    match_points: tuple[int, ...]
    """Game points by side (skunks count extra)."""
    skunks: tuple[tuple[int, int], ...]
    """(winning side, skunk level 1 or 2) of each game that was a skunk."""
    first_dealer: int
    deals: int
    times_a: DecisionTimes
    times_b: DecisionTimes
    deals_seen: tuple[tuple[tuple[str, ...], ...], ...] = ()
    """The first deals' hands by seat (card names), kept only for tests of duplicate play."""
    record: dict[str, Any] | None = None

    @property
    def a_won(self) -> bool:
        """Whether A's side won."""
        return self.winner == self.a_side


def legs(rules: Rules) -> int:
    """How many seatings one deal sequence is played in for duplicate play (and how seats
    rotate): 2 for two-sided games, 3 for the three-player game."""
    return 3 if rules.sides == 3 else 2


def seating(rules: Rules, rotation: int) -> tuple[int, ...]:
    """A's seats in the given rotation: one seat, or two partners in four-player play."""
    if rules.partnerships:
        return (0, 2) if rotation % 2 == 0 else (1, 3)
    return (rotation % rules.players,)


def play_one(task: GameTask, *, keep_deals: int = 0) -> GameOutcome:
    """Play game ``task.index`` of a match (a pure function of the task, apart from times)."""
    rules = task.rules
    n_legs = legs(rules)
    if task.duplicate:
        set_index, rotation = divmod(task.index, n_legs)
        deal_seed = derive_seed(task.seed, "deal", set_index)
    else:
        set_index, rotation = task.index, task.index % n_legs
        deal_seed = derive_seed(task.seed, "deal", task.index)
    a_seats = seating(rules, rotation)
    times_a, times_b = DecisionTimes(), DecisionTimes()
    seats: list[_Timed] = []
    names: list[str] = []
    b_count = 0
    for seat in range(rules.players):
        if seat in a_seats:
            k = a_seats.index(seat)
            player = load_player(
                task.a, derive_seed(task.seed, "a", set_index, k), move_time=task.move_time
            )
            _label(player, "A")
            seats.append(_Timed(player, times_a))
            names.append(f"A: {task.a}")
        else:
            player = load_player(
                task.b, derive_seed(task.seed, "b", set_index, b_count), move_time=task.move_time
            )
            _label(player, "B")
            b_count += 1
            seats.append(_Timed(player, times_b))
            names.append(f"B: {task.b}")
    try:
        game = play_game(rules, seats, deal_seed)  # type: ignore[arg-type]
    finally:
        for seat_player in seats:
            seat_player.close()  # a protocol bot's program ends with its game
    return _outcome(
        task,
        game,
        set_index=set_index,
        a_seats=a_seats,
        times_a=times_a,
        times_b=times_b,
        names=names,
        keep_deals=keep_deals,
    )


def _outcome(
    task: GameTask,
    game: Game,
    *,
    set_index: int,
    a_seats: tuple[int, ...],
    times_a: DecisionTimes,
    times_b: DecisionTimes,
    names: list[str],
    keep_deals: int,
) -> GameOutcome:
    rules = task.rules
    first_dealer = -1
    deals = 0
    skunks = []
    seen: list[tuple[tuple[str, ...], ...]] = []
    for event in game.events:
        if isinstance(event, Dealt):
            if first_dealer < 0:
                first_dealer = event.dealer
            deals += 1
            if len(seen) < keep_deals:
                seen.append(tuple(tuple(c.short for c in h or ()) for h in event.hands))
        elif isinstance(event, GameOver) and event.skunk:
            skunks.append((event.winner, event.skunk))
    assert game.winner is not None
    record = None
    if task.record:
        from fifteentwo.records import game_record

        record = game_record(game, names)
    return GameOutcome(
        index=task.index,
        set_index=set_index,
        a_seats=a_seats,
        a_side=rules.side_of(a_seats[0]),
        winner=game.winner,
        scores=tuple(game.scores),
        match_points=tuple(game.match_points),
        skunks=tuple(skunks),
        first_dealer=first_dealer,
        deals=deals,
        times_a=times_a,
        times_b=times_b,
        deals_seen=tuple(seen),
        record=record,
    )


# --- a match -------------------------------------------------------------------------------------


@dataclass
class MatchResult:
    """The summary of a match, from A's point of view where it is one-sided."""

    a: str
    b: str
    variant: str
    games: int
    duplicate: bool
    seed: int
    jobs: int
    a_wins: int
    b_wins: int
    win_rate: Interval
    """A's share of the games won (per set of duplicate games, when duplicate)."""
    points_per_game: tuple[float, float]
    """Mean final score of A and of B (B's seats averaged in three-player games)."""
    margin: Interval
    """A's final score minus B's, per game."""
    skunks: dict[str, int]
    """``a``/``b``: skunks won; ``a_double``/``b_double``: double skunks won."""
    game_points: tuple[int, int]
    """Game points won by A and by B (skunks count extra)."""
    game_points_per_game: tuple[float, float]
    first_dealer_wins: int
    first_dealer_rate: Interval
    """How often the side that dealt first won."""
    deals_per_game: float
    decision_ms: dict[str, dict[str, float | int]]
    """Decision times of A and B in milliseconds (see `DecisionTimes.to_json`)."""
    seconds: float
    paired: dict[str, Interval] | None = None
    """Duplicate play: per set of games, A's total minus B's of ``wins``, ``margin`` (score)
    and ``game_points``, with 95% intervals (zero when the players are equally strong)."""
    sets: int = 0
    """Complete deal sequences in duplicate play."""
    outcomes: list[GameOutcome] = field(default_factory=list, repr=False)

    def to_json(self) -> dict[str, Any]:
        """Everything but the per-game outcomes, as plain JSON values."""
        data = asdict(self)
        data.pop("outcomes")
        for key in ("win_rate", "margin", "first_dealer_rate"):
            data[key] = getattr(self, key).to_json()
        if self.paired is not None:
            data["paired"] = {k: v.to_json() for k, v in self.paired.items()}
        data["games_per_second"] = self.games / self.seconds if self.seconds else None
        return data

    def records(self) -> list[dict[str, Any]]:
        """The game records kept with ``record=True``, in game order."""
        return [o.record for o in self.outcomes if o.record is not None]


def warm_up(a: str, b: str, rules: Rules, move_time: float = DEFAULT_MOVE_TIME) -> None:
    """Play one untimed game first, so one-off costs (tables built or loaded on first use)
    do not land in the decision times."""
    players = []
    for seat in range(rules.players):
        spec, label = (a, "A") if seat % 2 == 0 else (b, "B")
        player = load_player(spec, seat, move_time=move_time)
        _label(player, label)
        players.append(player)
    try:
        play_game(rules, players, derive_seed(0, "warm-up"))
    finally:
        for player in players:
            close = getattr(player, "close", None)
            if close is not None:
                close()


def _label(player: object, side: str) -> None:
    """Name a guarded or protocol bot by its side, so a misdeed is reported as
    ``player A (spec)``."""
    if isinstance(player, GuardedPlayer | ProtocolPlayer):
        player.label = side


def _play_chunk(tasks: list[GameTask]) -> list[GameOutcome]:
    return [play_one(t) for t in tasks]


MAX_GAMES: Final = 10_000_000
"""The most games one match may ask for (tasks are made lazily, so a big match starts at once)."""
MAX_JOBS: Final = 256


def run_match(
    a: str,
    b: str,
    rules: Rules,
    games: int,
    *,
    seed: int = 0,
    duplicate: bool = False,
    jobs: int = 1,
    record: bool = False,
    progress: Callable[[int], None] | None = None,
    move_time: float = DEFAULT_MOVE_TIME,
    cluster: str | None = None,
    checkpoint: Path | None = None,
) -> MatchResult:
    """Play a match and summarise it. ``jobs`` > 1 plays games in that many processes;
    ``cluster`` (an address, or ``auto``) plays them on a Ray cluster instead (docs/cluster.md).

    With ``duplicate``, ``games`` is rounded up to whole sets (2 games, 3 in three-player).
    ``progress`` is called with the number of games just finished. A loaded bot that
    misbehaves stops the match with one `BotError` (players/guard.py); ``move_time`` is its
    time limit per decision. With ``checkpoint``, finished games are kept in that file and a
    match started again with the same file and settings resumes where it stopped.
    """
    if isinstance(games, bool) or not 1 <= games <= MAX_GAMES:
        raise FifteenTwoError(f"a match has 1 to {MAX_GAMES:,} games")
    if not 1 <= jobs <= MAX_JOBS:
        raise FifteenTwoError(f"jobs must be between 1 and {MAX_JOBS}")
    move_time = check_move_time(move_time)
    for side, spec in (("A", a), ("B", b)):  # fail early, in this process, on a bad spec
        try:
            player = load_player(spec, 0, move_time=move_time)
        except BotError as exc:  # a protocol bot failed its handshake: name its side
            raise BotError(str(exc).replace("the bot (", f"player {side} (", 1)) from None
        close = getattr(player, "close", None)
        if close is not None:
            close()
    if duplicate:
        n_legs = legs(rules)
        games = -(-games // n_legs) * n_legs
    tasks = (GameTask(a, b, rules, seed, i, duplicate, record, move_time) for i in range(games))
    size = max(1, min(20, games // (jobs * 8)))
    start = time.perf_counter()  # includes the warm-up game and starting the processes
    outcomes: list[GameOutcome] = []
    setup = functools.partial(warm_up, a, b, rules, move_time)
    # A worker lost to a misbehaving bot is not worth many retries; a lost machine is.
    retries = MAX_RETRIES if cluster is not None else 1
    params = {
        "kind": "arena",
        "a": a,
        "b": b,
        "rules": rules.to_json(),
        "games": games,
        "seed": seed,
        "duplicate": duplicate,
        "record": record,
    }
    with open_backend(cluster, jobs, setup=setup, max_retries=retries) as backend:
        saved = None if checkpoint is None else Checkpoint(checkpoint, params)
        for chunk in backend.map(_play_chunk, chunked(tasks, size), checkpoint=saved):
            outcomes.extend(chunk)
            if progress is not None:
                progress(len(chunk))
    seconds = time.perf_counter() - start
    return summarise(
        a, b, rules, outcomes, duplicate=duplicate, seed=seed, jobs=jobs, seconds=seconds
    )


def summarise(
    a: str,
    b: str,
    rules: Rules,
    outcomes: list[GameOutcome],
    *,
    duplicate: bool = False,
    seed: int = 0,
    jobs: int = 1,
    seconds: float = 0.0,
) -> MatchResult:
    """The statistics of a list of game outcomes (in game order)."""
    games = len(outcomes)
    sides = rules.sides
    others = sides - 1

    def a_value(o: GameOutcome, values: Sequence[float]) -> float:
        return values[o.a_side]

    def b_value(o: GameOutcome, values: Sequence[float]) -> float:
        return sum(v for s, v in enumerate(values) if s != o.a_side) / others

    a_wins = sum(o.a_won for o in outcomes)
    b_wins = games - a_wins
    margins = [a_value(o, o.scores) - b_value(o, o.scores) for o in outcomes]
    a_points = [a_value(o, o.scores) for o in outcomes]
    b_points = [b_value(o, o.scores) for o in outcomes]
    a_gp = sum(int(a_value(o, o.match_points)) for o in outcomes)
    b_gp = sum(sum(p for s, p in enumerate(o.match_points) if s != o.a_side) for o in outcomes)
    skunks = {"a": 0, "a_double": 0, "b": 0, "b_double": 0}
    for o in outcomes:
        for winner, level in o.skunks:
            who = "a" if winner == o.a_side else "b"
            skunks[who + ("_double" if level == 2 else "")] += 1
    first_wins = sum(rules.side_of(o.first_dealer) == o.winner for o in outcomes)
    times_a, times_b = DecisionTimes(), DecisionTimes()
    for o in outcomes:
        times_a.merge(o.times_a)
        times_b.merge(o.times_b)
    paired = None
    sets = 0
    win_rate = wilson_interval(a_wins, games)
    if duplicate:
        by_set: dict[int, list[GameOutcome]] = {}
        for o in outcomes:
            by_set.setdefault(o.set_index, []).append(o)
        full = [g for g in by_set.values() if len(g) == legs(rules)]
        sets = len(full)

        def per_set(value: Callable[[GameOutcome], float]) -> list[float]:
            return [sum(value(o) for o in group) for group in full]

        paired = {
            "wins": mean_interval(per_set(lambda o: 1.0 if o.a_won else -1.0 / others)),
            "margin": mean_interval(per_set(lambda o: a_value(o, o.scores) - b_value(o, o.scores))),
            "game_points": mean_interval(
                per_set(lambda o: a_value(o, o.match_points) - b_value(o, o.match_points))
            ),
        }
        if sets > 1 and 0 < a_wins < games:  # (at 0 or 1 the sets' spread says nothing)
            paired_rate = mean_interval([sum(o.a_won for o in g) / len(g) for g in full])
            win_rate = Interval(
                paired_rate.value, max(0.0, paired_rate.low), min(1.0, paired_rate.high)
            )
    return MatchResult(
        a=a,
        b=b,
        variant=rules.name,
        games=games,
        duplicate=duplicate,
        seed=seed,
        jobs=jobs,
        a_wins=a_wins,
        b_wins=b_wins,
        win_rate=win_rate,
        points_per_game=(statistics.fmean(a_points), statistics.fmean(b_points)),
        margin=mean_interval(margins),
        skunks=skunks,
        game_points=(a_gp, b_gp),
        game_points_per_game=(a_gp / games, b_gp / games),
        first_dealer_wins=first_wins,
        first_dealer_rate=wilson_interval(first_wins, games),
        deals_per_game=statistics.fmean(o.deals for o in outcomes),
        decision_ms={"a": times_a.to_json(), "b": times_b.to_json()},
        seconds=seconds,
        paired=paired,
        sets=sets,
        outcomes=outcomes,
    )
