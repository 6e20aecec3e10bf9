"""Learn to peg: a linear softmax policy trained by REINFORCE in the Gymnasium environment.

The learner plays seat 0 of standard cribbage against the ``random`` level. Its discards stay
uniformly random (as the opponent's are), so the only thing that differs is the play, and the
reward is ``pegging``: the points this seat pegs minus the points the opponent pegs, step by
step. Each candidate card is described by a few numbers read from the observation vector (what
the card scores now, the count it leaves, whether it leaves the opponent an easy fifteen or 31,
...); the policy is a softmax over ``theta . features``. Every deal's play is one episode for
REINFORCE with a running-mean baseline. numpy only, one CPU core.

It prints the learning curve (pegging margin per deal, training games so far), then the
trained policy (greedy) and the random policy on the same held-out seeds: the random policy
pegs about as much as its random opponent (a margin near 0); the learned one clearly more.

    python examples/learn_pegging.py            # about a minute or two
    python examples/learn_pegging.py --quick    # a few seconds (the test suite runs this)
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
import numpy.typing as npt

from fifteentwo.actions import Phase
from fifteentwo.env import OBSERVATION_LAYOUT, CribbageGymEnv
from fifteentwo.scoring import peg_points_ranks

GO = 52
FEATURES = (
    "points this card pegs now / 6",
    "count left at 5 or 21 (a ten makes 15 or 31)",
    "count left between 5 and 14 (a fifteen is possible)",
    "count left at 22..30 (near 31: a go is likely)",
    "the card's rank is next to or two from the last card's (a run is possible)",
    "the card is a five",
    "leading a card under five",
    "the card's pips / 10 (spend high cards first?)",
    "saying go",
)
_COUNT = OBSERVATION_LAYOUT["count"].start
_PILE_RANKS = OBSERVATION_LAYOUT["pile_ranks"]
_PLAY_AT = OBSERVATION_LAYOUT["phase"].start + list(Phase).index(Phase.PLAY)


def features(obs: npt.NDArray[np.float32], legal: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
    """One row of `FEATURES` per legal action (card indices 0..51, or go)."""
    count = round(float(obs[_COUNT]) * 31)
    recent = [round(float(v) * 13) for v in obs[_PILE_RANKS] if v > 0]  # most recent first
    pile = recent[::-1]
    last = recent[0] if recent else 0
    rows = np.zeros((len(legal), len(FEATURES)))
    for row, action in enumerate(legal):
        if action == GO:
            rows[row, 8] = 1.0
            continue
        rank = int(action) // 4 + 1
        pips = min(rank, 10)
        after = count + pips
        rows[row, 0] = peg_points_ranks([*pile, rank], after) / 6
        rows[row, 1] = after in (5, 21)
        rows[row, 2] = 5 <= after < 15
        rows[row, 3] = 22 <= after < 31
        rows[row, 4] = bool(last) and 0 < abs(rank - last) <= 2
        rows[row, 5] = rank == 5
        rows[row, 6] = not pile and rank < 5
        rows[row, 7] = pips / 10
    return rows


def softmax(logits: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    shifted = np.exp(logits - logits.max())
    return shifted / shifted.sum()


def in_play(obs: npt.NDArray[np.float32]) -> bool:
    """Whether the observation is of the play (the phase one-hot names ``play``)."""
    return bool(obs[_PLAY_AT] > 0)


def play_game(
    env: CribbageGymEnv,
    seed: int,
    theta: npt.NDArray[np.float64] | None,
    rng: np.random.Generator,
    *,
    greedy: bool = False,
) -> tuple[float, int, list[list[tuple[npt.NDArray[np.float64], int, float]]]]:
    """One game. ``theta`` None plays uniformly at random. Returns the pegging margin, the
    number of deals, and per deal the (features, choice, reward) of each play decision."""
    obs, info = env.reset(seed=seed)
    margin = 0.0
    deals = 0
    episodes: list[list[tuple[npt.NDArray[np.float64], int, float]]] = []
    done = False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        if not in_play(obs):
            deals += 1
            episodes.append([])
            action = int(rng.choice(legal))
            obs, reward, done, _, info = env.step(action)
            margin += reward  # (the opponent's lead, before this seat's first card)
            continue
        if theta is None:
            choice = int(rng.integers(len(legal)))
            rows = None
        else:
            rows = features(obs, legal)
            probs = softmax(rows @ theta)
            choice = int(probs.argmax()) if greedy else int(rng.choice(len(legal), p=probs))
        obs, reward, done, _, info = env.step(int(legal[choice]))
        margin += reward
        if rows is not None and episodes:
            episodes[-1].append((rows, choice, reward))
    return margin, max(deals, 1), episodes


def train(games: int, rate: float, seed: int, report_every: int) -> npt.NDArray[np.float64]:
    """REINFORCE on per-deal play episodes; prints the learning curve."""
    env = CribbageGymEnv("standard", opponents="random", reward="pegging")
    rng = np.random.default_rng(seed)
    theta = np.zeros(len(FEATURES))
    baseline = 0.0
    block_margin, block_deals = 0.0, 0
    print(f"{'games':>6}  {'pegging margin per deal':>24}  theta")
    for game in range(1, games + 1):
        margin, deals, episodes = play_game(env, 10_000_000 + seed * games + game, theta, rng)
        block_margin += margin
        block_deals += deals
        for episode in episodes:
            rewards = [r for _, _, r in episode]
            to_go = np.cumsum(rewards[::-1])[::-1]
            for (rows, choice, _), ret in zip(episode, to_go, strict=True):
                probs = softmax(rows @ theta)
                grad = rows[choice] - probs @ rows
                theta += rate * (ret - baseline) * grad
                baseline += 0.01 * (ret - baseline)
        if game % report_every == 0:
            print(
                f"{game:>6}  {block_margin / block_deals:>+24.3f}  "
                + " ".join(f"{t:+.2f}" for t in theta)
            )
            block_margin, block_deals = 0.0, 0
    return theta


def evaluate(theta: npt.NDArray[np.float64] | None, games: int) -> tuple[float, float]:
    """Mean pegging margin per deal and its standard error, on held-out seeds."""
    env = CribbageGymEnv("standard", opponents="random", reward="pegging")
    rng = np.random.default_rng(1)
    per_game = []
    for game in range(games):
        margin, deals, _ = play_game(env, game, theta, rng, greedy=True)
        per_game.append(margin / deals)
    values = np.array(per_game)
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(len(values)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds: a smoke run")
    parser.add_argument("--games", type=int, help="training games (default 2000, quick 60)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    games = args.games or (60 if args.quick else 2000)
    eval_games = 40 if args.quick else 1000
    start = time.perf_counter()
    theta = train(games, rate=0.05, seed=args.seed, report_every=max(games // 10, 1))
    learned, learned_se = evaluate(theta, eval_games)
    random_margin, random_se = evaluate(None, eval_games)
    print(f"\nheld out, {eval_games} games against the random level (pegging margin per deal):")
    print(f"  random play   {random_margin:+.3f} +- {random_se:.3f}")
    print(f"  learned play  {learned:+.3f} +- {learned_se:.3f}  (greedy)")
    print("features and weights:")
    for name, weight in zip(FEATURES, theta, strict=True):
        print(f"  {weight:+7.3f}  {name}")
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
