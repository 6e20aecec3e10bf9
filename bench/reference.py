"""The yardstick of the benchmarks: plain cribbage between random players, written the obvious way.

Machines differ and shared ones are noisy, so benchmarks time `reference_game` in the same run
as what they measure and report ratios to it. It is deliberately plain and self-contained
(stdlib only, brute-force scoring, no checks, events or observations), and must not change:
the goals in the benchmarks are ratios to it as it is.
"""

from __future__ import annotations

import random
from itertools import combinations, pairwise


def _pips(card: int) -> int:
    return min(card // 4 + 1, 10)


def _show(hand: list[int], starter: int, crib: bool) -> int:
    """Show total by brute force over every subset of the five cards."""
    cards = [*hand, starter]
    ranks = [c // 4 + 1 for c in cards]
    points = 0
    runs = {3: 0, 4: 0, 5: 0}
    for size in range(2, 6):
        for combo in combinations(range(5), size):
            if sum(_pips(cards[i]) for i in combo) == 15:
                points += 2
            if size == 2 and ranks[combo[0]] == ranks[combo[1]]:
                points += 2
            chosen = sorted(ranks[i] for i in combo)
            if size >= 3 and all(b == a + 1 for a, b in pairwise(chosen)):
                runs[size] += size
    points += runs[5] or runs[4] or runs[3]
    suits = {c % 4 for c in hand}
    if len(suits) == 1:
        if starter % 4 in suits:
            points += 5
        elif not crib:
            points += 4
    if any(c // 4 == 10 and c % 4 == starter % 4 for c in hand):
        points += 1
    return points


def _peg(pile: list[int]) -> int:
    """Points for the last card of the pile: fifteen, thirty-one, pairs, the longest run."""
    count = sum(_pips(c) for c in pile)
    points = 2 if count in (15, 31) else 0
    ranks = [c // 4 + 1 for c in pile]
    same = 1
    while same < len(ranks) and ranks[-same - 1] == ranks[-1]:
        same += 1
    points += {1: 0, 2: 2, 3: 6, 4: 12}[same]
    for n in range(len(ranks), 2, -1):
        tail = sorted(ranks[-n:])
        if all(b == a + 1 for a, b in pairwise(tail)):
            points += n
            break
    return points


def reference_game(rng: random.Random) -> list[int]:
    """One game of two-handed cribbage to 121 between random players; the final scores."""
    scores = [0, 0]
    dealer = rng.randrange(2)

    def peg(seat: int, points: int) -> bool:
        scores[seat] = min(121, scores[seat] + points)
        return scores[seat] >= 121

    while True:
        deck = list(range(52))
        rng.shuffle(deck)
        pone = 1 - dealer
        hands = [deck[0:12:2], deck[1:12:2]] if pone == 0 else [deck[1:12:2], deck[0:12:2]]
        crib: list[int] = []
        for seat in (pone, dealer):
            thrown = rng.sample(hands[seat], 2)
            for card in thrown:
                hands[seat].remove(card)
            crib += thrown
        starter = rng.choice(deck[12:])
        if starter // 4 == 10 and peg(dealer, 2):
            return scores
        kept = [list(hands[0]), list(hands[1])]
        turn, last, pile, count = pone, pone, [], 0
        while hands[0] or hands[1]:
            can = [any(count + _pips(c) <= 31 for c in hands[s]) for s in (0, 1)]
            if not (can[0] or can[1]):  # a go: one for the last player, and a new count
                if peg(last, 1):
                    return scores
                pile, count = [], 0
                turn = 1 - last if hands[1 - last] else last
                continue
            if not can[turn]:
                turn = 1 - turn
            card = rng.choice([c for c in hands[turn] if count + _pips(c) <= 31])
            hands[turn].remove(card)
            pile.append(card)
            count += _pips(card)
            last = turn
            if peg(turn, _peg(pile)):
                return scores
            if count == 31:
                pile, count = [], 0
                turn = 1 - last if hands[1 - last] else last
            else:
                turn = 1 - turn
        if count and peg(last, 1):  # the last card, unless it made 31
            return scores
        for seat, cards, is_crib in ((pone, kept[pone], False), (dealer, kept[dealer], False)):
            if peg(seat, _show(cards, starter, is_crib)):
                return scores
        if peg(dealer, _show(crib, starter, True)):
            return scores
        dealer = pone
