"""A model of a strong opponent's plays, learned from the experts' own games (issue 33).

The expert reads the opponent's plays (which guesses at their hand explain them) and predicts
their replies in its search through the standard heuristic (`heuristic_plays`) at a softmax
temperature. The heuristic agrees with the expert's own plays only about 63% of the time where
there is a choice. This fits a conditional logit over the heuristic's parts (points now, the
reply exposed, the chance of a go, the pair lead, the low card) and a few features of the card
and the hand, on the plays of expert-2 (today's expert) and expert-1 against each other, seen
as the reader sees them (their discards unknown), and reports how well each model predicts
held-out plays.

    python bench/reply_model.py collect --games 1500 --seed 1 --out plays.json
    python bench/reply_model.py fit plays.json --out bench/reply_weights.json

(``collect`` took 616 s for 72,007 plays on one core; ``fit`` 10 s.) The weights are data
(JSON) fitted on the first four fifths of the plays, the rest held out; `LearnedReplies` in
`expert_variants` uses them. "top-1" credits a tie of k best plays 1/k.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence

import numpy as np

from fifteentwo.actions import CHANCE, Play
from fifteentwo.game import Game
from fifteentwo.players.expert import FrozenExpert2Player, FrozenExpertPlayer
from fifteentwo.players.knowledge import PIPS
from fifteentwo.players.pegging import (
    LEAD_FROM_PAIR,
    LOW_CARD_KEEP,
    _hold_table,
    expected_reply,
    go_chance,
    solo_best,
)
from fifteentwo.rules import PRESETS
from fifteentwo.scoring import peg_points_ranks

NAMES = (
    "gain",
    "risk",
    "go",
    "pair_lead",
    "low",
    "solo",
    "pips",
    "five",
    "lead_pips",
    "leaves_5_21",
    "highest",
    "lowest",
    "from_pair",
    "rest_pips",
    "k0_pips",
    "counter",
)
HEURISTIC = {"gain": 1.0, "risk": -1.0, "go": 1.0, "pair_lead": 1.0, "low": -1.0, "solo": 1.0}
"""The heuristic's value as weights on the features (divide by a temperature for a softmax)."""

State = tuple[tuple[int, ...], tuple[int, ...], int, tuple[int, ...], int, int]
"""(hand ranks, pile ranks, count, unseen counts by rank, unseen, k): `heuristic_plays`' input."""


def features(state: State) -> tuple[list[int], np.ndarray]:
    """The distinct playable ranks and one feature row for each, as an array."""
    ranks, rows = feature_rows(state)
    return ranks, np.array(rows)


def probabilities(state: State, weights: Sequence[float]) -> dict[int, float]:
    """The model's probability of each distinct playable rank (pure Python: the search's
    hot path)."""
    hand, _, count, _, _, _ = state
    playable = {r for r in hand if count + PIPS[r] <= 31}
    if len(playable) == 1:
        return {playable.pop(): 1.0}
    ranks, rows = feature_rows(state)
    logits = [sum(w * f for w, f in zip(weights, row, strict=True)) for row in rows]
    top = max(logits)
    e = [math.exp(z - top) for z in logits]
    total = sum(e)
    return {r: v / total for r, v in zip(ranks, e, strict=True)}


def feature_rows(state: State) -> tuple[list[int], list[list[float]]]:
    """The distinct playable ranks and one feature row for each."""
    hand_, pile, count, counts, unseen, k = state
    hand = tuple(sorted(hand_))
    ranks: list[int] = []
    rows: list[list[float]] = []
    prev = 0
    playable = [r for r in hand if count + PIPS[r] <= 31]
    top, bottom = max(playable), min(playable)
    holds = _hold_table(unseen, k) if k > 0 else None
    total_pips = sum(PIPS[r] for r in hand)
    for i, r in enumerate(hand):
        if r == prev or count + PIPS[r] > 31:
            continue
        prev = r
        c = count + PIPS[r]
        npile = (*pile, r)
        gain = risk = go = pair_lead = low = solo = 0.0
        if k <= 0:
            solo = float(peg_points_ranks(npile, c))
            if c < 31:
                solo += solo_best(npile, c, hand[:i] + hand[i + 1 :])[0]
        else:
            assert holds is not None
            gain = float(peg_points_ranks(npile, c))
            risk = expected_reply(npile, c, counts, unseen, k)
            go = go_chance(c, counts, unseen, k) if c > 21 else 0.0
            if not pile and r != 5 and hand.count(r) >= 2:
                pair_lead = LEAD_FROM_PAIR * 6 * holds[counts[r]]
            if r <= 3 and c < 21 and len(hand) > 1:
                low = LOW_CARD_KEEP
        p = PIPS[r] / 10
        rows.append(
            [
                gain,
                risk,
                go,
                pair_lead,
                low,
                solo,
                p if k > 0 else 0.0,
                1.0 if r == 5 and k > 0 else 0.0,
                p if not pile and k > 0 else 0.0,
                1.0 if c in (5, 21) and k > 0 else 0.0,
                1.0 if r == top and top != bottom and k > 0 else 0.0,
                1.0 if r == bottom and top != bottom and k > 0 else 0.0,
                1.0 if pile and hand.count(r) >= 2 and k > 0 else 0.0,
                (total_pips - PIPS[r]) / 10 / max(1, len(hand) - 1) if k > 0 else 0.0,
                p if k <= 0 else 0.0,
                _counter(npile, c, hand[:i] + hand[i + 1 :], counts, unseen) if k > 0 else 0.0,
            ]
        )
        ranks.append(r)
    return ranks, rows


def _counter(
    pile: tuple[int, ...], count: int, rest: tuple[int, ...], counts: Sequence[int], unseen: int
) -> float:
    """Our best points back after a reply, averaged over the unseen cards (a two-ply look the
    heuristic does not take: the trap a play sets)."""
    if not rest or count >= 31 or unseen <= 0:
        return 0.0
    total = 0.0
    for q in range(1, 14):
        n = counts[q]
        if not n or count + PIPS[q] > 31:
            continue
        c = count + PIPS[q]
        if c == 31:
            continue
        after = (*pile, q)
        best = 0
        prev = 0
        for s in rest:
            if s == prev or c + PIPS[s] > 31:
                continue
            prev = s
            best = max(best, peg_points_ranks((*after, s), c + PIPS[s]))
        total += n * best
    return total / unseen


def reader_states(game: Game, seat: int) -> State:
    """The decision ``seat`` faces now, as its opponent would read it afterwards: their whole
    kept hand, the starter and our cards played before are known; their discards are not."""
    obs = game.observation(seat)
    mine = [(c.index >> 2) + 1 for c in obs.hand]
    own_played = [(c.index >> 2) + 1 for s, c in obs.played if s == seat]
    theirs = [(c.index >> 2) + 1 for s, c in obs.played if s != seat]
    # Cards still to be played by this seat are part of its kept hand too (the reader knows
    # them, as a guess, at the time it reads).
    kept = mine + own_played
    counts = [4] * 14
    for r in kept:
        counts[r] -= 1
    assert obs.starter is not None
    counts[(obs.starter.index >> 2) + 1] -= 1
    for r in theirs:
        counts[r] -= 1
    unseen = 51 - len(kept) - len(theirs)
    other = 1 - seat
    k = 0 if obs.passed[other] or not obs.hand_sizes[other] else obs.hand_sizes[other]
    pile = tuple((c.index >> 2) + 1 for c in obs.pile)
    return (tuple(mine), pile, obs.count, tuple(counts), unseen, k)


def collect(games: int, seed: int) -> tuple[list[State], list[int]]:
    """The plays with a real choice in ``games`` games of expert-2 (today's expert, frozen, so
    the data rebuilds the same after the expert moves on) against expert-1."""
    states: list[State] = []
    chosen: list[int] = []
    rules = PRESETS["standard"]
    for g in range(games):
        s = seed * 100_000 + g
        players = [FrozenExpert2Player(s), FrozenExpertPlayer(s + 1)]
        if g % 2:
            players.reverse()
        game = Game(rules, seed=s)
        while game.to_move is not None:
            seat = game.to_move
            if seat == CHANCE:
                game.apply(game.sample_chance())
                continue
            action = players[seat].choose(game.observation(seat))
            if isinstance(action, Play):
                state = reader_states(game, seat)
                if len(features(state)[0]) >= 2:
                    states.append(state)
                    chosen.append((action.card.index >> 2) + 1)
            game.apply(action)
    return states, chosen


def design(
    states: Sequence[State], chosen: Sequence[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stacked feature rows, each decision's row offsets and the chosen row's index."""
    rows = []
    offsets = [0]
    picks = []
    for state, r in zip(states, chosen, strict=True):
        ranks, x = features(state)
        picks.append(offsets[-1] + ranks.index(r))
        rows.append(x)
        offsets.append(offsets[-1] + len(ranks))
    return np.vstack(rows), np.array(offsets), np.array(picks)


def log_likelihood(
    w: np.ndarray, x: np.ndarray, offsets: np.ndarray, picks: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray, float]:
    """Mean log-likelihood, its gradient and Hessian, and top-1 accuracy."""
    z = x @ w
    seg = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    zmax = np.maximum.reduceat(z, offsets[:-1])
    e = np.exp(z - zmax[seg])
    den = np.add.reduceat(e, offsets[:-1])
    p = e / den[seg]
    n = len(picks)
    ll = float(np.sum(z[picks] - zmax - np.log(den))) / n
    mean_x = np.add.reduceat(p[:, None] * x, offsets[:-1])
    grad = (x[picks].sum(axis=0) - mean_x.sum(axis=0)) / n
    xc = x - mean_x[seg]
    hess = -(xc * p[:, None]).T @ xc / n
    best = np.maximum.reduceat(z, offsets[:-1])
    tied = np.add.reduceat(np.isclose(z, best[seg]).astype(float), offsets[:-1])
    acc = float(np.mean(np.isclose(z[picks], best) / tied))
    return ll, grad, hess, acc


def fit(x: np.ndarray, offsets: np.ndarray, picks: np.ndarray, ridge: float = 1e-3) -> np.ndarray:
    """Maximum likelihood by damped Newton steps (a small ridge keeps it well posed)."""
    w = np.array([HEURISTIC.get(name, 0.0) / 0.5 for name in NAMES])

    def objective(v: np.ndarray) -> float:
        return log_likelihood(v, x, offsets, picks)[0] - ridge / 2 * float(v @ v)

    current = objective(w)
    for _ in range(100):
        _, g, h, _ = log_likelihood(w, x, offsets, picks)
        g = g - ridge * w
        h = h - ridge * np.eye(len(w))
        step = np.linalg.solve(h, g)
        scale = 1.0
        while scale > 1e-6:
            trial = w - scale * step
            value = objective(trial)
            if value >= current:
                break
            scale /= 2
        else:
            break
        w, moved = trial, current - value
        current = value
        if abs(moved) < 1e-10:
            break
    return w


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--games", type=int, default=400)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("data")
    f.add_argument("--out")
    args = parser.parse_args(argv)
    if args.command == "collect":
        t = time.perf_counter()
        states, chosen = collect(args.games, args.seed)
        with open(args.out, "w") as fh:
            json.dump({"states": states, "chosen": chosen}, fh)
        print(f"{len(states)} plays from {args.games} games in {time.perf_counter() - t:.0f} s")
        return 0
    with open(args.data) as fh:
        data = json.load(fh)
    states = [tuple(tuple(v) if isinstance(v, list) else v for v in s) for s in data["states"]]
    chosen = data["chosen"]
    n = len(states)
    cut = n * 4 // 5
    train = design(states[:cut], chosen[:cut])
    test = design(states[cut:], chosen[cut:])
    heur = np.array([HEURISTIC.get(name, 0.0) for name in NAMES])
    print(f"{n} plays: {cut} to fit, {n - cut} held out")
    for t in (0.3, 0.5, 1.0):
        ll, _, _, acc = log_likelihood(heur / t, *test)
        print(f"heuristic at {t}: held-out log-likelihood {ll:.4f}, top-1 {acc:.1%}")
    best_t = max(
        (0.2 + 0.05 * i for i in range(30)), key=lambda t: log_likelihood(heur / t, *train)[0]
    )
    ll, _, _, acc = log_likelihood(heur / best_t, *test)
    print(f"heuristic at its best temperature ({best_t:.2f}): {ll:.4f}, top-1 {acc:.1%}")
    w = fit(*train)
    ll_tr, _, _, acc_tr = log_likelihood(w, *train)
    ll, _, _, acc = log_likelihood(w, *test)
    print(f"learned: train {ll_tr:.4f} ({acc_tr:.1%}), held out {ll:.4f}, top-1 {acc:.1%}")
    for name, v in zip(NAMES, w, strict=True):
        print(f"  {name:12s} {v:+.3f}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(
                {"names": list(NAMES), "weights": [round(float(v), 6) for v in w], "plays": n},
                fh,
                indent=1,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
