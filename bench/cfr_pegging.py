"""The end of the play as an imperfect-information game, solved per decision by CFR+ (issue 33).

Pegging depends on ranks only, so a deal of the rest of the play is a pair of rank multisets
(ours, theirs) and the public history (who played which rank, and where a series ended). Each
player's information set is its own remaining ranks and that history ("rank-abstracted"
information sets: suits never matter in the play). The chance node at the root draws the pair
from two ranges: the opponent's hand from the expert's own weighted guesses (what their discard
and plays reveal to us), ours from what the opponent can infer of it (weighted guesses drawn the
same way from the cards they cannot see, our real hand among them). Payoffs are the pegging
difference from the root to the end of the play (points, not wins).

`Solver` builds the game tree once per decision and runs CFR+ (regret matching+, alternating
updates, linearly weighted averages); `exploitability` gives each side's best-response value
against a strategy, so that a strategy's distance from equilibrium can be measured.

This lives in bench/ (a candidate, `expert_variants.CFRPlay`), not in the product: it is kept
out of `fifteentwo` until it wins (docs/players.md, "Ideas measured").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from fifteentwo.players.knowledge import PIPS
from fifteentwo.scoring import peg_points_ranks

Hand = tuple[int, ...]
History = tuple[tuple[int, int], ...]
"""(player, rank) for each card played since the root; (player, 0) marks a series' end."""
Key = tuple[int, Hand, History]
"""An information set: the player to act, its remaining ranks, the public history."""


@dataclass(slots=True)
class Node:
    """A decision of ``player``: ``actions`` (ranks), the points each scores at once (player
    0's minus player 1's) and the node each leads to (a float: the play is over)."""

    player: int
    key: Key
    actions: list[int]
    rewards: list[float]
    children: list[Node | float] = field(default_factory=list)
    state: tuple[tuple[Hand, Hand], tuple[int, ...], int, int] = ((), ()), (), 0, 0
    """(hands, pile, count, goes) at the node, for measuring other strategies on the tree."""


Tree = Node | float


class Builder:
    """Game trees for one deal: the engine's turn order (the standard game: second series,
    no optional go)."""

    def __init__(self) -> None:
        self.nodes = 0

    def node(  # noqa: PLR0917 - the builder's hot path
        self,
        h: tuple[Hand, Hand],
        pile: tuple[int, ...],
        count: int,
        turn: int,
        passed: int,
        hist: History,
    ) -> Tree:
        hand = h[turn]
        limit = 31 - count
        actions = sorted({r for r in hand if PIPS[r] <= limit})
        node = Node(turn, (turn, hand, hist), actions, [], [], (h, pile, count, passed))
        self.nodes += 1
        for r in actions:
            i = hand.index(r)
            rest = hand[:i] + hand[i + 1 :]
            nh = (rest, h[1]) if turn == 0 else (h[0], rest)
            npile = (*pile, r)
            c = count + PIPS[r]
            pts = peg_points_ranks(npile, c)
            nhist = (*hist, (turn, r))
            node.rewards.append(float(pts if turn == 0 else -pts))
            node.children.append(self.after(nh, npile, c, turn, passed, nhist))
        return node

    def after(  # noqa: PLR0917 - the builder's hot path
        self,
        h: tuple[Hand, Hand],
        pile: tuple[int, ...],
        c: int,
        turn: int,
        passed: int,
        hist: History,
    ) -> Tree:
        """``turn`` has just played, the count is ``c``: who plays next (the engine's
        `_next_turn`), or the series ends."""
        if c == 31:
            return self.end(h, turn, 31, hist)
        left = 31 - c
        o = 1 - turn
        ho, ht = h[o], h[turn]
        np_ = passed
        if ho and not passed >> o & 1:
            if PIPS[ho[0]] <= left:
                return self.node(h, pile, c, o, passed, hist)
            np_ = passed | (1 << o)
        if ht and PIPS[ht[0]] <= left:
            return self.node(h, pile, c, turn, np_, hist)
        return self.end(h, turn, c, hist)

    def end(self, h: tuple[Hand, Hand], last: int, count: int, hist: History) -> Tree:
        """The series ends: the go (or the last card) to ``last``, then the next series."""
        go = 0.0 if count == 31 else 1.0
        v = go if last == 0 else -go
        if not (h[0] or h[1]):
            return v
        leader = (1 - last) if h[1 - last] else last
        sub = self.node(h, (), 0, leader, 0, (*hist, (last, 0)))
        return _shift(sub, v)

    def root(
        self,
        h: tuple[Hand, Hand],
        pile: tuple[int, ...],
        count: int,
        passed: int,
        turn: int = 0,
    ) -> Tree:
        return self.node((tuple(sorted(h[0])), tuple(sorted(h[1]))), pile, count, turn, passed, ())


def _shift(tree: Tree, v: float) -> Tree:
    """``tree`` with ``v`` points added on the way in."""
    if not v:
        return tree
    if isinstance(tree, float):
        return tree + v
    tree.rewards = [r + v for r in tree.rewards]
    return tree


@dataclass(frozen=True, slots=True)
class Deal:
    """One pair of hands at the root with its chance weight."""

    ours: Hand
    theirs: Hand
    weight: float


def deals(
    ours: Sequence[tuple[Hand, float]],
    theirs: Sequence[tuple[Hand, float]],
    counts: Sequence[int],
) -> list[Deal]:
    """The product of the two ranges, without pairs the remaining cards cannot make
    (``counts[rank]``: cards of that rank neither played nor the starter), weights normalized."""
    out = []
    for a, wa in ours:
        for b, wb in theirs:
            joint = [0] * 14
            for r in (*a, *b):
                joint[r] += 1
            if all(joint[r] <= counts[r] for r in range(1, 14)):
                out.append(Deal(tuple(sorted(a)), tuple(sorted(b)), wa * wb))
    total = sum(d.weight for d in out)
    return [Deal(d.ours, d.theirs, d.weight / total) for d in out] if total else []


Strategy = Callable[[Key, list[int]], list[float]]
"""A behaviour strategy: the probabilities of the actions at an information set."""


class Solver:
    """CFR+ over the deals' trees (one tree per deal, information sets shared across them)."""

    def __init__(
        self, deal_list: Sequence[Deal], pile: tuple[int, ...], count: int, passed: int
    ) -> None:
        builder = Builder()
        self.deals = list(deal_list)
        self.trees = [builder.root((d.ours, d.theirs), pile, count, passed) for d in self.deals]
        self.nodes = builder.nodes
        self.regret: dict[Key, list[float]] = {}
        self.total: dict[Key, list[float]] = {}
        self.iterations = 0

    def _current(self, node: Node) -> list[float]:
        n = len(node.actions)
        regret = self.regret.get(node.key)
        if regret is None:
            return [1.0 / n] * n
        pos = [r if r > 0.0 else 0.0 for r in regret]
        z = sum(pos)
        return [p / z for p in pos] if z > 0.0 else [1.0 / n] * n

    def run(self, iterations: int) -> None:
        """``iterations`` rounds of CFR+, each updating one player (alternating)."""
        for _ in range(iterations):
            self.iterations += 1
            player = self.iterations % 2
            weight = float(self.iterations)
            delta: dict[Key, list[float]] = {}
            for d, tree in zip(self.deals, self.trees, strict=True):
                self._walk(tree, player, d.weight, 1.0, weight, delta)
            regret = self.regret
            for key, dr in delta.items():
                old = regret.get(key)
                if old is None:
                    regret[key] = [x if x > 0.0 else 0.0 for x in dr]
                else:
                    regret[key] = [max(o + x, 0.0) for o, x in zip(old, dr, strict=True)]

    def _walk(  # noqa: PLR0917 - the solver's hot path
        self,
        tree: Tree,
        player: int,
        other_reach: float,
        own_reach: float,
        weight: float,
        delta: dict[Key, list[float]],
    ) -> float:
        """Player 0's value of ``tree``; regrets of ``player`` into ``delta``, its average
        strategy into `total`. ``other_reach`` includes chance."""
        if isinstance(tree, float):
            return tree
        n = len(tree.actions)
        if n == 1:
            return tree.rewards[0] + self._walk(
                tree.children[0], player, other_reach, own_reach, weight, delta
            )
        sigma = self._current(tree)
        values = [0.0] * n
        value = 0.0
        acting = tree.player == player
        for i in range(n):
            if acting:
                v = self._walk(
                    tree.children[i], player, other_reach, own_reach * sigma[i], weight, delta
                )
            else:
                v = self._walk(
                    tree.children[i], player, other_reach * sigma[i], own_reach, weight, delta
                )
            v += tree.rewards[i]
            values[i] = v
            value += sigma[i] * v
        if acting:
            sign = 1.0 if player == 0 else -1.0
            dr = delta.get(tree.key)
            if dr is None:
                dr = delta[tree.key] = [0.0] * n
            for i in range(n):
                dr[i] += sign * other_reach * (values[i] - value)
            tot = self.total.get(tree.key)
            if tot is None:
                tot = self.total[tree.key] = [0.0] * n
            for i in range(n):
                tot[i] += weight * own_reach * sigma[i]
        return value

    def average(self, key: Key, actions: list[int]) -> list[float]:
        """The average strategy at an information set (uniform where never reached)."""
        tot = self.total.get(key)
        n = len(actions)
        if tot is None or sum(tot) <= 0.0:
            return [1.0 / n] * n
        z = sum(tot)
        return [t / z for t in tot]

    def value(self, strategy: Strategy) -> float:
        """Player 0's expected value when both play ``strategy``."""
        pairs = zip(self.deals, self.trees, strict=True)
        return sum(d.weight * _play(t, strategy) for d, t in pairs)

    def best_response(self, strategy: Strategy, responder: int) -> float:
        """Player 0's expected value when ``responder`` best-responds (knowing only its own
        information sets) to the other side playing ``strategy``."""
        # Group every node of the responder by information set, deepest first: a set's
        # choice depends only on the responder's choices below it.
        groups: dict[Key, list[tuple[Node, float]]] = {}

        def collect(tree: Tree, reach: float) -> None:
            if isinstance(tree, float):
                return
            if tree.player == responder:
                groups.setdefault(tree.key, []).append((tree, reach))
                for child in tree.children:
                    collect(child, reach)
                return
            sigma = strategy(tree.key, tree.actions) if len(tree.actions) > 1 else [1.0]
            for child, p in zip(tree.children, sigma, strict=True):
                if p > 0.0:
                    collect(child, reach * p)

        for d, t in zip(self.deals, self.trees, strict=True):
            collect(t, d.weight)
        choice: dict[Key, int] = {}
        memo: dict[int, float] = {}

        def val(tree: Tree) -> float:
            if isinstance(tree, float):
                return tree
            found = memo.get(id(tree))
            if found is not None:
                return found
            if tree.player == responder:
                i = choice[tree.key]
                v = tree.rewards[i] + val(tree.children[i])
            else:
                sigma = strategy(tree.key, tree.actions) if len(tree.actions) > 1 else [1.0]
                v = sum(
                    p * (r + val(c))
                    for p, r, c in zip(sigma, tree.rewards, tree.children, strict=True)
                    if p > 0.0
                )
            memo[id(tree)] = v
            return v

        sign = 1.0 if responder == 0 else -1.0
        for key in sorted(groups, key=lambda k: -len(k[2])):
            members = groups[key]
            actions = members[0][0].actions
            best, best_i = -1e18, 0
            for i in range(len(actions)):
                cfv = sum(
                    reach * (node.rewards[i] + val(node.children[i])) for node, reach in members
                )
                if sign * cfv > best:
                    best, best_i = sign * cfv, i
            choice[key] = best_i
        return sum(d.weight * val(t) for d, t in zip(self.deals, self.trees, strict=True))


def _play(tree: Tree, strategy: Strategy) -> float:
    if isinstance(tree, float):
        return tree
    if len(tree.actions) == 1:
        return tree.rewards[0] + _play(tree.children[0], strategy)
    sigma = strategy(tree.key, tree.actions)
    return sum(
        p * (r + _play(c, strategy))
        for p, r, c in zip(sigma, tree.rewards, tree.children, strict=True)
        if p > 0.0
    )
