"""`analyze_discard` against a slow, obviously correct enumerator, plus properties."""

from __future__ import annotations

import json
import random
from itertools import combinations, permutations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fifteentwo
from fifteentwo.analysis import AnalysisError, DiscardAnalysis, analyze_discard
from fifteentwo.analysis.throws import throw_weights
from fifteentwo.cards import Card, parse_cards
from fifteentwo.errors import CardError, FifteenTwoError
from fifteentwo.scoring import hand_total

TOL = 1e-9


def naive(
    cards: list[int],
    throw: tuple[int, ...],
    *,
    dealer: bool,
    weights: np.ndarray | None = None,
) -> dict[str, object]:
    """Everything by enumeration: every starter, then every set of other crib cards.

    The other crib cards are 4 - len(throw) cards from the unseen cards left after the
    starter, all sets equally likely, or (pairs only) weighted by ``weights``.
    """
    unseen = [c for c in range(52) if c not in cards]
    keep = [c for c in cards if c not in throw]
    hand_counts: dict[int, int] = {}
    crib_sum = 0.0
    for s in unseen:
        points = hand_total(keep, s)
        hand_counts[points] = hand_counts.get(points, 0) + 1
        rest = [c for c in unseen if c != s]
        heels = 2 if s // 4 == 10 else 0
        total_w, acc = 0.0, 0.0
        for others in combinations(rest, 4 - len(throw)):
            if weights is None:
                w = 1.0
            else:
                x, y = others
                w = float(weights[x // 4, y // 4, int(x % 4 == y % 4)])
            total_w += w
            acc += w * (hand_total([*throw, *others], s, crib=True) + heels)
        crib_sum += acc / total_w
    hand_mean = sum(p * n for p, n in hand_counts.items()) / len(unseen)
    crib = crib_sum / len(unseen)
    return {
        "hand": hand_mean,
        "min": min(hand_counts),
        "max": max(hand_counts),
        "dist": hand_counts,
        "crib": crib,
        "total": hand_mean + crib if dealer else hand_mean - crib,
    }


def check_against_naive(
    analysis: DiscardAnalysis, throws: list[tuple[int, ...]] | None = None, weights=None
) -> None:
    cards = [c.index for c in analysis.cards]
    for option in analysis:
        throw = tuple(c.index for c in option.throw)
        if throws is not None and throw not in throws:
            continue
        ref = naive(cards, throw, dealer=analysis.dealer, weights=weights)
        assert option.hand.mean == pytest.approx(ref["hand"], abs=TOL)
        assert (option.hand.min, option.hand.max) == (ref["min"], ref["max"])
        assert dict(option.hand.distribution) == ref["dist"]
        assert option.crib.mean == pytest.approx(ref["crib"], abs=TOL)
        assert option.total == pytest.approx(ref["total"], abs=TOL)


def indices(text: str) -> list[int]:
    return [c.index for c in parse_cards(text)]


@pytest.mark.parametrize(
    "deal",
    [
        "5h 5c jd qs 2h 9c",  # the example
        "jh 4h 7h 9h jc 5s",  # four hearts (hand flushes), two jacks (nobs both ways)
    ],
)
def test_six_card_matches_enumeration_for_both_roles(deal: str) -> None:
    dealer = analyze_discard(deal, dealer=True)
    pone = analyze_discard(deal, dealer=False)
    check_against_naive(dealer)
    # Under the uniform model the crib does not depend on whose it is: check the pone's totals.
    by_throw = {o.throw: o for o in dealer}
    for option in pone:
        twin = by_throw[option.throw]
        assert option.crib.mean == pytest.approx(twin.crib.mean, abs=1e-12)
        assert option.total == pytest.approx(option.hand.mean - option.crib.mean, abs=1e-12)


def test_random_hands_match_enumeration_on_some_throws() -> None:
    rng = random.Random(20240505)
    for _ in range(4):
        cards = rng.sample(range(52), 6)
        analysis = analyze_discard([Card.from_index(c) for c in cards], dealer=rng.random() < 0.5)
        throws = rng.sample([tuple(sorted(t)) for t in combinations(cards, 2)], 3)
        check_against_naive(analysis, throws)


def test_suited_jack_throws_match_enumeration() -> None:
    # Throws of two suited cards including a jack: crib flush and thrown-jack nobs together.
    analysis = analyze_discard("jd 4d 6d 8d qc 2s", dealer=True)
    throws = [tuple(indices(t)) for t in ("4d jd", "6d jd", "4d 6d", "2s qc")]
    check_against_naive(analysis, [tuple(sorted(t)) for t in throws])


@pytest.mark.parametrize("dealer", [True, False])
def test_sensible_model_matches_weighted_enumeration(dealer: bool) -> None:
    deal = "5h 5c jd qs 2h 9c"
    analysis = analyze_discard(deal, dealer=dealer, opponent="sensible")
    weights = throw_weights("six-card", "pone" if dealer else "dealer")
    throws = [tuple(sorted(indices(t))) for t in ("2h 9c", "5c 5h", "jd qs", "5h jd")]
    check_against_naive(analysis, throws, weights=weights)


def test_five_card_game_matches_enumeration() -> None:
    analysis = analyze_discard("5h 6h 7h jh kc", dealer=True)
    assert len(analysis) == 10
    assert all(len(o.keep) == 3 and len(o.throw) == 2 for o in analysis)
    assert analysis.best.hand.starters == 47
    check_against_naive(analysis)


def test_five_card_game_sensible_model() -> None:
    analysis = analyze_discard("5h 6h 7h jh kc", dealer=False, opponent="sensible")
    weights = throw_weights("five-card", "dealer")
    throws = [tuple(sorted(indices(t))) for t in ("jh kc", "5h 6h")]
    check_against_naive(analysis, throws, weights=weights)


def test_three_and_four_players_match_enumeration() -> None:
    three = analyze_discard("jh 5h 5c 8d kd", dealer=True, players=3)
    four = analyze_discard("jh 5h 5c 8d kd", dealer=True, players=4)
    assert len(three) == 5
    assert all(len(o.keep) == 4 and len(o.throw) == 1 for o in three)
    # One model for both: the three other crib cards uniformly from the unseen cards.
    for a, b in zip(three, four, strict=True):
        assert (a.throw, a.crib.mean, a.total) == (b.throw, b.crib.mean, b.total)
    check_against_naive(three, [tuple(indices("jh"))])


def test_best_discards_are_the_known_ones() -> None:
    # Pone keeps 5-5-5-J (nobs is his only as long as the jack stays in hand); 29 needs the 5D.
    pone = analyze_discard("5c 5h 5s jd 2c kc", dealer=False)
    assert pone.best.keep_text == "5C 5H 5S JD"
    assert (pone.best.hand.max, pone.best.hand.distribution[29]) == (29, 1)
    # The dealer scores nobs in hand or crib alike, and a jack makes more runs than a king:
    # he gives himself the jack.
    assert analyze_discard("5c 5h 5s jd 2c kc", dealer=True).best.keep_text == "5C 5H 5S KC"
    # Four fives: 20 (four fifteens and a double pair royal), 28 with any of the 15 ten-cards.
    best = analyze_discard("5h 5c 5s 5d kc 2c", dealer=False).best
    assert best.keep_text == "5C 5D 5H 5S"
    assert dict(best.hand.distribution) == {20: 31, 28: 15}


def test_heels_in_the_crib_value() -> None:
    analysis = analyze_discard("5h 5c jd qs 2h 9c", dealer=True)
    for option in analysis:
        assert option.crib.heels == pytest.approx(2 * 3 / 46)  # three jacks unseen
        assert option.crib.mean == pytest.approx(option.crib.show + option.crib.heels)


def test_package_exports_analyze_discard() -> None:
    assert fifteentwo.analyze_discard is analyze_discard
    assert "analyze_discard" in fifteentwo.__all__


def test_json_round_trip() -> None:
    analysis = analyze_discard("5h 5c jd qs 2h 9c", dealer=False)
    data = json.loads(json.dumps(analysis.to_json()))
    assert data["dealer"] is False and data["opponent"] == "uniform"
    first = data["options"][0]
    assert set(first) >= {"keep", "throw", "hand", "crib", "total"}
    assert set(first["hand"]) >= {"mean", "min", "max"}
    assert "mean" in first["crib"]
    assert sum(first["hand"]["distribution"].values()) == 46
    assert analysis.option("9c 2h") is analysis.best


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"cards": "5h 5c jd qs 2h", "players": 3, "opponent": "sensible"}, AnalysisError),
        ({"cards": "5h 5c jd qs 2h 9c", "opponent": "clever"}, AnalysisError),
        ({"cards": "5h 5c jd qs 2h 9c", "players": 5}, AnalysisError),
        ({"cards": "5h 5c jd qs 2h 9c", "players": 3}, CardError),
        ({"cards": "5h 5c jd qs"}, CardError),
        ({"cards": "5h 5c jd qs 2h 5h"}, CardError),
        ({"cards": "5h 5c jd qs 2h 1x"}, CardError),
    ],
)
def test_bad_input(kwargs: dict[str, object], error: type[Exception]) -> None:
    cards = kwargs.pop("cards")
    with pytest.raises(error) as info:
        analyze_discard(cards, dealer=True, **kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, FifteenTwoError)


def test_option_lookup() -> None:
    analysis = analyze_discard("5h 5c jd qs 2h 9c", dealer=True)
    assert analysis.option(["QS", "5H"]).throw_text == "5H QS"
    with pytest.raises(CardError):
        analysis.option("5h")  # a one-card throw is not among a six-card deal's options


deals = st.integers(min_value=5, max_value=6).flatmap(
    lambda n: st.lists(st.integers(0, 51), min_size=n, max_size=n, unique=True)
)


@settings(max_examples=40, deadline=None)
@given(
    deals,
    st.booleans(),
    st.sampled_from([2, 3, 4]),
    st.sampled_from(["uniform", "sensible"]),
)
def test_properties(cards: list[int], dealer: bool, players: int, opponent: str) -> None:
    if len(cards) == 6:
        players = 2
    if players > 2:
        opponent = "uniform"
    analysis = analyze_discard(
        [Card.from_index(c) for c in cards], dealer=dealer, players=players, opponent=opponent
    )
    thrown = 2 if players == 2 else 1
    assert len(analysis) == comb(len(cards), thrown)
    starters = 52 - len(cards)
    jacks = sum(1 for c in range(40, 44) if c not in cards)
    totals = [round(o.total, 9) for o in analysis]  # equal to 9 decimals: in card order
    assert totals == sorted(totals, reverse=True)
    seen = set()
    for option in analysis:
        assert sorted(option.keep + option.throw) == sorted(analysis.cards)
        seen.add(option.throw)
        assert option.hand.starters == starters
        assert option.hand.min <= option.hand.mean <= option.hand.max
        assert option.crib.heels == pytest.approx(2 * jacks / starters)
        assert 0 <= option.crib.show <= 29
        sign = 1 if dealer else -1
        assert option.total == pytest.approx(option.hand.mean + sign * option.crib.mean)
    assert len(seen) == len(analysis)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(0, 51), min_size=6, max_size=6, unique=True),
    st.permutations(range(4)),
    st.booleans(),
    st.sampled_from(["uniform", "sensible"]),
)
def test_suit_relabelling_changes_nothing(
    cards: list[int], perm: list[int], dealer: bool, opponent: str
) -> None:
    relabel = {c: (c & ~3) | perm[c & 3] for c in range(52)}
    first = analyze_discard([Card.from_index(c) for c in cards], dealer=dealer, opponent=opponent)
    second = analyze_discard(
        [Card.from_index(relabel[c]) for c in cards], dealer=dealer, opponent=opponent
    )
    values = {
        frozenset(relabel[c.index] for c in o.throw): (o.hand.distribution, o.crib.mean, o.total)
        for o in first
    }
    for option in second:
        dist, crib, total = values[frozenset(c.index for c in option.throw)]
        assert option.hand.distribution == dist
        assert option.crib.mean == pytest.approx(crib, abs=1e-12)
        assert option.total == pytest.approx(total, abs=1e-12)


def test_order_of_input_cards_does_not_matter() -> None:
    deal = parse_cards("5h 5c jd qs 2h 9c")
    reference = analyze_discard(deal, dealer=True).to_json()
    for order in list(permutations(deal))[::97]:
        assert analyze_discard(list(order), dealer=True).to_json() == reference


def test_equal_options_keep_card_order_whatever_the_last_bits() -> None:
    # Equal options come out of BLAS matrix products a few units in the last place apart,
    # differently on different CPUs; their order (and so the expert's choice) must not move.
    import dataclasses

    from fifteentwo.analysis.discard import _rank_key

    options = analyze_discard(parse_cards("7H 8S 8D 2C QH QS"), dealer=False).options
    first, second = options[0], options[1]
    assert (first.throw_text, second.throw_text) == ("2C QH", "2C QS")  # equal: suits only
    assert round(first.total, 9) == round(second.total, 9)
    for nudge in (1e-13, -1e-13):
        nudged = [first, dataclasses.replace(second, total=second.total + nudge)]
        assert sorted([nudged[1], nudged[0]], key=_rank_key)[0] is first


def test_crib_rank_distributions_against_enumeration() -> None:
    # Uniform model: the two other crib cards and the starter are any three unseen cards.
    from collections import Counter

    from fifteentwo.analysis.discard import crib_rank_distributions
    from fifteentwo.scoring import RANK_KEY, RANK_TABLE

    hand = parse_cards("5H 5C JD QS 2H 9C")
    dists = crib_rank_distributions(hand, dealer=True, opponent="uniform")
    assert len(dists) == 15
    unseen = [c for c in range(52) if c not in {card.index for card in hand}]
    for throw in [(hand[0], hand[1]), (hand[2], hand[5])]:
        base = RANK_KEY[throw[0].index] + RANK_KEY[throw[1].index]
        counts = Counter(
            RANK_TABLE[base + RANK_KEY[a] + RANK_KEY[b] + RANK_KEY[c]]
            for a, b, c in combinations(unseen, 3)
        )
        n = sum(counts.values())
        want = [counts.get(p, 0) / n for p in range(max(counts) + 1)]
        got = dists[tuple(sorted(throw))]
        assert got[: len(want)] == pytest.approx(want, abs=1e-12)
        assert sum(got[len(want) :]) == pytest.approx(0.0, abs=1e-12)


def test_crib_rank_distributions_sensible_mean_matches_the_analysis() -> None:
    # The rank part's mean is the analysis's crib show less flushes and nobs.
    from fifteentwo.analysis.discard import crib_rank_distributions

    for dealer in (True, False):
        dists = crib_rank_distributions("5H 5C 8D 9S 2H KC", dealer=dealer)
        for option in analyze_discard("5H 5C 8D 9S 2H KC", dealer=dealer, opponent="sensible"):
            dist = dists[option.throw]
            mean = sum(p * x for p, x in enumerate(dist))
            assert mean <= option.crib.show + 1e-9
            assert mean == pytest.approx(option.crib.show, abs=0.35)
    with pytest.raises(FifteenTwoError):
        crib_rank_distributions("5H 5C 8D 9S 2H", dealer=True)
