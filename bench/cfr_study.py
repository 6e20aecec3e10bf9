"""How far from equilibrium the expert's play is at the end of the play, and CFR's (issue 33).

Positions are the real decisions where `expert_variants.CFRPlay` solves (6 or fewer cards out,
away from the end, not the opening lead), taken from games of it against expert-1. For each,
the game of `cfr_pegging` is built from the player's own ranges and four strategies of ours
(player 0) are measured by the value the opponent's best response (over its information sets)
holds them to, against the game's value:

- ``cfr-N``: CFR+'s average strategy after the player's N iterations (mixed);
- ``cfr-N argmax``: its likeliest action at each information set (what `CFRPlay` plays);
- ``search``: the expert's rule on the same game: at each information set the action whose
  `ModelSearch` value (the opponent replying by the heuristic at the expert's 0.5 points),
  averaged over the deals of that set by their chance weights, is best;
- ``cfr-long``: CFR+ after ``--long`` iterations, the reference.

The game's value is bracketed by the long run's two best responses; exploitability here is
(value - the best response's value to our strategy), in points of pegging per decision, the
value taken as the middle of the bracket (its half-width is printed as well).

    PYTHONPATH=bench python bench/cfr_study.py --positions 30 --long 300
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence

from cfr_pegging import Key, Node, Solver, Tree, deals
from expert_variants import CFRPlay
from fifteentwo.game import Observation
from fifteentwo.players import load_player, play_game
from fifteentwo.players.knowledge import RANK_OF
from fifteentwo.players.pegging import ModelSearch
from fifteentwo.rules import find_rules


class _Collector(CFRPlay):
    """CFRPlay that keeps every observation it solves."""

    seen: list[Observation]

    def solve(self, obs: Observation) -> tuple[Solver, list[int], list[float]] | None:
        self.seen.append(obs)
        return super().solve(obs)


def positions(n: int, seed: int) -> list[tuple[CFRPlay, Observation]]:
    """The first ``n`` solved decisions in games of CFRPlay against expert-1."""
    out: list[tuple[CFRPlay, Observation]] = []
    rules = find_rules("standard")
    game = 0
    while len(out) < n:
        player = _Collector(seed + game)
        player.seen = []
        play_game(rules, [player, load_player("expert-1", seed + game + 1)], seed + game)
        out.extend((player, obs) for obs in player.seen)
        game += 1
    return out[:n]


def _nodes(tree: Tree, player: int, out: dict[Key, list[tuple[float, Node]]], w: float) -> None:
    if isinstance(tree, float):
        return
    if tree.player == player and len(tree.actions) > 1:
        out.setdefault(tree.key, []).append((w, tree))
    for child in tree.children:
        _nodes(child, player, out, w)


def search_strategy(solver: Solver, obs: Observation) -> dict[Key, list[float]]:
    """The expert's rule at each of our information sets (see the module's text)."""
    starter = obs.starter
    assert starter is not None
    base = [0] + [4] * 13
    for _, c in obs.played:
        base[RANK_OF[c.index]] -= 1
    base[RANK_OF[starter.index]] -= 1
    seen0 = len(obs.played) + 1
    groups: dict[Key, list[tuple[float, Node]]] = {}
    for d, t in zip(solver.deals, solver.trees, strict=True):
        _nodes(t, 0, groups, d.weight)
    out: dict[Key, list[float]] = {}
    for key, members in groups.items():
        played = [r for _, r in key[2] if r]
        totals = [0.0] * len(members[0][1].actions)
        for w, node in members:
            (h0, h1), pile, count, passed = node.state
            counts = list(base)
            for r in (*played, *h1):
                counts[r] -= 1
            search = ModelSearch(
                counts=counts,
                unseen=52 - seen0 - len(played) - len(h1),
                reply_temperature=0.5,
            )
            values = search.root(h0, h1, pile, count, passed, -1)
            for i, r in enumerate(node.actions):
                totals[i] += w * values[r]
        best = max(range(len(totals)), key=lambda i: (round(totals[i], 9), -i))
        out[key] = [1.0 if i == best else 0.0 for i in range(len(totals))]
    return out


def _table(strategy: dict[Key, list[float]]) -> object:
    def play(key: Key, actions: list[int]) -> list[float]:
        found = strategy.get(key)
        return found if found is not None else [1.0 / len(actions)] * len(actions)

    return play


def _argmax(solver: Solver) -> dict[Key, list[float]]:
    out = {}
    for key, tot in solver.total.items():
        best = max(range(len(tot)), key=lambda i: (tot[i], -i))
        out[key] = [1.0 if i == best else 0.0 for i in range(len(tot))]
    return out


def _average(solver: Solver) -> dict[Key, list[float]]:
    return {key: solver.average(key, [0] * len(tot)) for key, tot in solver.total.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--long", type=int, default=300, help="iterations of the reference")
    parser.add_argument("--seed", type=int, default=101)
    args = parser.parse_args(argv)
    found = positions(args.positions, args.seed)
    gaps: dict[str, list[float]] = {}
    brackets, differ, sizes, solve_ms = [], 0, [], []
    for player, obs in found:
        ours, theirs, counts = player.ranges(obs)
        dl = deals(ours, theirs, counts)
        me, opp = obs.seat, 1 - obs.seat
        pile = tuple(RANK_OF[c.index] for c in obs.pile)
        passed = (1 if obs.passed[me] else 0) | (2 if obs.passed[opp] else 0)
        start = time.perf_counter()
        solver = Solver(dl, pile, obs.count, passed)
        solver.run(player.cfr_iterations)
        solve_ms.append(1000 * (time.perf_counter() - start))
        sizes.append((len(dl), solver.nodes))
        strategies = {
            f"cfr-{player.cfr_iterations}": _average(solver),
            f"cfr-{player.cfr_iterations} argmax": _argmax(solver),
            "search": search_strategy(solver, obs),
        }
        solver.run(args.long - solver.iterations)
        strategies["cfr-long"] = _average(solver)
        avg = _table(strategies["cfr-long"])
        hi = solver.best_response(avg, 0)  # type: ignore[arg-type]
        lo = solver.best_response(avg, 1)  # type: ignore[arg-type]
        value = (hi + lo) / 2
        brackets.append((hi - lo) / 2)
        mine = tuple(sorted(RANK_OF[c.index] for c in obs.hand))
        root: Key = (0, mine, ())
        a = strategies[f"cfr-{player.cfr_iterations} argmax"].get(root)
        b = strategies["search"].get(root)
        if a is not None and b is not None and a != b:
            differ += 1
        for name, strategy in strategies.items():
            held = solver.best_response(_table(strategy), 1)  # type: ignore[arg-type]
            gaps.setdefault(name, []).append(value - held)
    n = len(found)
    print(
        f"{n} positions (seed {args.seed}); deals per position median "
        f"{statistics.median(d for d, _ in sizes)}, tree nodes median "
        f"{statistics.median(s for _, s in sizes)} (max {max(s for _, s in sizes)})"
    )
    print(
        f"the game's value bracketed to +/-{statistics.mean(brackets):.4f} points on average "
        f"(max {max(brackets):.4f}) by {args.long} iterations"
    )
    solve_ms.sort()
    print(
        f"solve time ({solver.iterations and player.cfr_iterations} iterations): median "
        f"{statistics.median(solve_ms):.0f} ms, max {solve_ms[-1]:.0f} ms"
    )
    for name, values in gaps.items():
        print(
            f"  {name:13} exploitability: mean {statistics.mean(values):.4f}, median "
            f"{statistics.median(values):.4f}, max {max(values):.4f} points"
        )
    print(f"the real root's choice differs between cfr argmax and the search in {differ} of {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
