"""The win-probability table: the solver against a slow recursion, and the shipped table."""

from __future__ import annotations

import json
import random
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fifteentwo.analysis.equity import (
    DealSample,
    EquityError,
    load_table,
    solve,
    win_probability,
)
from fifteentwo.cli import main


def reference_win(samples: list[DealSample], target: int, a: int, b: int, mine: bool) -> float:
    """P(I win) by plain recursion: replay each sampled deal event by event."""

    @cache
    def value(a: int, b: int, mine: bool) -> float:
        total = 0.0
        for deal in samples:
            dealer, pone = (a, b) if mine else (b, a)
            result = None
            for by_dealer, points in deal:
                if by_dealer:
                    dealer += points
                    if dealer >= target:
                        result = 1.0 if mine else 0.0
                        break
                else:
                    pone += points
                    if pone >= target:
                        result = 0.0 if mine else 1.0
                        break
            if result is None:
                me, opp = (dealer, pone) if mine else (pone, dealer)
                result = value(me, opp, not mine)
            total += result
        return total / len(samples)

    return value(a, b, mine)


def random_samples(rng: random.Random, n: int) -> list[DealSample]:
    samples = []
    for _ in range(n):
        deal = [(rng.random() < 0.5, rng.randint(1, 3)) for _ in range(rng.randint(1, 5))]
        samples.append(deal)
    return samples


@pytest.mark.parametrize("seed", range(4))
def test_solver_matches_plain_recursion(seed: int) -> None:
    rng = random.Random(seed)
    samples = random_samples(rng, 12)
    target = 17
    table = solve(samples, target)
    for _ in range(40):
        a, b = rng.randrange(target), rng.randrange(target)
        mine = rng.random() < 0.5
        expected = reference_win(samples, target, a, b, mine)
        assert table.win_probability(a, b, mine) == pytest.approx(expected, abs=1e-12)


def test_counting_first_wins_the_race() -> None:
    # Every deal: the pone pegs 1, then the dealer pegs 1. At 16-16 to 17 the pone goes out.
    table = solve([[(False, 1), (True, 1)]], 17)
    assert table.win_probability(16, 16, my_deal=False) == 1.0
    assert table.win_probability(16, 16, my_deal=True) == 0.0


def test_expected_points_count_skunks() -> None:
    # To 121, a deal where only the dealer scores 121 at once: the pone is double skunked.
    table = solve([[(True, 121)]], 121)
    assert table.expected_points(0, 0, my_deal=True) == 4.0
    assert table.expected_points(0, 95, my_deal=True) == 1.0
    assert table.expected_points(0, 80, my_deal=True) == 2.0


def test_shipped_table_is_sane() -> None:
    table = load_table(121)
    first_dealer = table.win_probability(0, 0, my_deal=True)
    assert 0.53 < first_dealer < 0.59  # published figures: about 55-56%
    assert table.win.shape == (121, 121, 2)
    # My chance when I deal equals one minus the opponent's when they are the pone.
    assert (abs(table.win[:, :, 1] + table.win[:, :, 0].T - 1) < 1e-5).all()
    assert win_probability(120, 0, my_deal=False) > 0.99
    assert table.win.min() >= 0.0 and table.win.max() <= 1.0
    short = load_table(61)
    assert 0.52 < short.win_probability(0, 0, True) < 0.62


def test_positions_outside_the_table() -> None:
    assert win_probability(121, 50, my_deal=True) == 1.0
    with pytest.raises(EquityError):
        load_table(100)
    with pytest.raises(EquityError):
        win_probability(-1, 5, my_deal=True)


def test_cli_equity(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["equity", "90", "100", "--dealer", "me", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["me"] == 90 and data["my_deal"] is True
    assert data["win"] == pytest.approx(win_probability(90, 100, True))
    assert main(["equity", "90", "100"]) == 0
    assert "to win" in capsys.readouterr().out
    assert main(["equity", "130", "100"]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert main(["equity", "90"]) == 2


def loop_discard_win(
    me: int, opp: int, *, dealer: bool, hand: dict[int, int], crib_mean: float
) -> float:
    """`discard_win`'s model written as plain loops."""
    target = 121
    table = load_table(target)
    assert table.histograms is not None
    crib = round(crib_mean)
    mine_hist = table.histograms["dealer_peg" if dealer else "pone_peg"]
    opp_hist = table.histograms["pone_all" if dealer else "dealer_no_crib"]
    starters = sum(hand.values())
    total = 0.0
    for points, count in hand.items():
        for peg, p_peg in enumerate(mine_hist):
            for theirs, p_opp in enumerate(opp_hist):
                p = count / starters * p_peg * p_opp
                mine = me + peg + points + (crib if dealer else 0)
                other = opp + theirs + (0 if dealer else crib)
                if dealer:
                    value = 0.0 if other >= target else 1.0 if mine >= target else None
                else:
                    value = 1.0 if mine >= target else 0.0 if other >= target else None
                if value is None:
                    value = table.win_probability(mine, other, my_deal=not dealer)
                total += p * value
    return total


@pytest.mark.parametrize(
    ("me", "opp", "dealer"), [(0, 0, True), (100, 115, True), (115, 100, False), (118, 118, False)]
)
def test_discard_win_matches_loops(me: int, opp: int, dealer: bool) -> None:
    from fifteentwo.analysis import analyze_discard
    from fifteentwo.analysis.equity import discard_win

    analysis = analyze_discard("5h 5c jd qs 2h 9c", dealer=dealer)
    for option in analysis.options[:4]:
        hand = dict(option.hand.distribution)
        got = discard_win(
            me, opp, dealer=dealer, hand_distribution=hand, crib_mean=option.crib.mean
        )
        want = loop_discard_win(me, opp, dealer=dealer, hand=hand, crib_mean=option.crib.mean)
        assert got == pytest.approx(want, abs=1e-9)
        assert 0.0 <= got <= 1.0


def test_score_ranks_discards_by_win_probability(capsys: pytest.CaptureFixture[str]) -> None:
    from fifteentwo.analysis import analyze_discard

    analysis = analyze_discard("5h 5c jd qs 2h 9c", dealer=True, score=(100, 110))
    wins = [o.win for o in analysis]
    assert all(w is not None for w in wins)
    rounded = [round(w, 9) for w in wins if w is not None]  # equals (to 9 decimals) by cards
    assert rounded == sorted(rounded, reverse=True)
    assert (
        main(["discard", "5h", "5c", "jd", "qs", "2h", "9c", "--dealer", "--score", "100,110"]) == 0
    )
    assert "win" in capsys.readouterr().out


def test_self_play_deals_do_not_depend_on_processes(tmp_path: Path) -> None:
    """Games are seeded by their number: one process, two, or a resumed checkpoint give the
    same deals (docs/cluster.md)."""
    from fifteentwo.selfplay.equity import sample_deals

    one = sample_deals(150, player="greedy", seed=3, jobs=1)
    assert len(one) == 150
    assert sample_deals(150, player="greedy", seed=3, jobs=2) == one
    path = tmp_path / "deals.ckpt"
    first = sample_deals(40, player="greedy", seed=3, jobs=1, checkpoint=path)
    assert first == one[:40]
    assert sample_deals(150, player="greedy", seed=3, jobs=1, checkpoint=path) == one


# --- the refined endgame discard (the expert's `refined_endgame`) ---------------------------


@given(
    st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30).filter(lambda d: sum(d) > 0.1),
    st.floats(-40.0, 40.0),
)
def test_shifting_a_distribution_keeps_its_mass_and_moves_its_mean(
    weights: list[float], by: float
) -> None:
    import numpy as np

    from fifteentwo.analysis.equity import shift_distribution

    dist = np.array(weights) / sum(weights)
    moved = shift_distribution(dist, by)
    assert moved.sum() == pytest.approx(1.0)
    assert (moved >= 0).all()
    mean = float(np.arange(len(dist)) @ dist)
    moved_mean = float(np.arange(len(moved)) @ moved)
    if by >= 0:
        assert moved_mean == pytest.approx(mean + by)
    else:  # points pushed below zero stay at zero: the mean moves less, never below zero
        assert mean + by - 1e-9 <= moved_mean <= mean + 1e-9
        assert moved_mean >= 0


def test_shift_by_a_whole_number_moves_every_point() -> None:
    import numpy as np

    from fifteentwo.analysis.equity import shift_distribution

    dist = np.array([0.2, 0.5, 0.3])
    assert shift_distribution(dist, 2).tolist() == pytest.approx([0, 0, 0.2, 0.5, 0.3])
    assert shift_distribution(dist, -1).tolist() == pytest.approx([0.7, 0.3])
    assert shift_distribution(dist, 0.5).tolist() == pytest.approx([0.1, 0.35, 0.4, 0.15])


@pytest.mark.parametrize(("me", "opp", "dealer"), [(100, 112, True), (104, 110, False)])
def test_refined_discard_win(me: int, opp: int, dealer: bool) -> None:
    from fifteentwo.analysis import analyze_discard
    from fifteentwo.analysis.equity import discard_win

    option = analyze_discard("5h 5c jd qs 2h 9c", dealer=dealer).options[0]
    hand = dict(option.hand.distribution)
    whole = float(round(option.crib.mean))
    plain = discard_win(me, opp, dealer=dealer, hand_distribution=hand, crib_mean=whole)
    # A crib of certain points at a whole mean is the plain model exactly.
    same = discard_win(
        me, opp, dealer=dealer, hand_distribution=hand, crib_mean=whole, crib_distribution=[1.0]
    )
    assert same == pytest.approx(plain, abs=1e-12)
    # More pegging for us (and less for them) never lowers the chance of winning.
    wins = [
        discard_win(me, opp, dealer=dealer, hand_distribution=hand, crib_mean=whole, peg_shift=s)
        for s in (-2.0, -0.5, 0.0, 0.5, 2.0)
    ]
    assert all(b >= a - 1e-12 for a, b in pairwise(wins))
    assert wins[0] < wins[-1] - 0.01
    # A spread crib with the same mean: the crib's owner is helped by its high counts only
    # when it needs them; the value changes, stays a probability.
    spread = discard_win(
        me,
        opp,
        dealer=dealer,
        hand_distribution=hand,
        crib_mean=whole,
        crib_distribution=[0.2, 0.0, 0.5, 0.0, 0.3],
    )
    assert 0.0 <= spread <= 1.0 and spread != pytest.approx(plain, abs=1e-6)
