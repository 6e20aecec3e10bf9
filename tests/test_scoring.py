"""Show and pegging rules, one test per rule, and the worked examples of the rules sources.

Every expected figure here was counted by hand (the counts are written out in the comments):
the sources in /work/shared/rules contain counting mistakes, so no total is copied from them.
Tests named after a source that got a count wrong say so in their name.
"""

from __future__ import annotations

import pytest

from fifteentwo.cards import Card, Rank, parse_cards
from fifteentwo.errors import CardError
from fifteentwo.scoring import (
    GO_POINTS,
    HIS_HEELS_POINTS,
    LAST_CARD_POINTS,
    RANK_KEY,
    RANK_TABLE,
    hand_total,
    hand_total4,
    hand_totals,
    his_heels,
    number_word,
    peg_points,
    peg_points_ranks,
    peg_score,
    rank_points,
    score_hand,
)


def total(hand: str, starter: str, *, crib: bool = False) -> int:
    """The itemized total, checked against every fast path before it is returned."""
    result = score_hand(hand, starter, crib=crib)
    cards = [c.index for c in parse_cards(hand)]
    start = Card.parse(starter).index
    assert hand_total(cards, start, crib) == result.total
    assert hand_totals(cards, crib)[start] == result.total
    if len(cards) == 4:
        assert hand_total4(*cards, start, crib) == result.total
    return result.total


def kinds(hand: str, starter: str, *, crib: bool = False) -> dict[str, int]:
    return score_hand(hand, starter, crib=crib).points_by_kind()


def pegs(pile: str) -> list[int]:
    """Points scored by each card of ``pile`` as it is laid (one series, no go)."""
    cards = parse_cards(pile)
    points = [peg_points(cards[: i + 1]) for i in range(len(cards))]
    ranks = [int(c.rank) for c in cards]
    assert points == [peg_points_ranks(ranks[: i + 1]) for i in range(len(ranks))]
    return points


def count_after(pile: str) -> int:
    return peg_score(pile).count


# --- Fifteens ----------------------------------------------------------------------------------


def test_fifteen_any_combination_of_two_or_more_cards() -> None:
    # 5+K and A+2+5+7: the four-card fifteen counts like the two-card one. No other
    # combination of A 2 5 7 K makes 15 (A+K 11, 2+K 12, 7+K 17, 2+5+7 14, A+2+K 13 ...).
    result = score_hand("ac 2d 5h 7s", "kc")
    fifteens = [
        sorted(str(c) for c in item.cards) for item in result.items if item.kind == "fifteen"
    ]
    assert sorted(fifteens) == [["2D", "5H", "7S", "AC"], ["5H", "KC"]]
    assert result.total == 4


def test_fifteen_tenth_cards_all_count_ten() -> None:
    # Britannica: two tenth cards and two fives reckon fifteen-eight (K+5, K+5, Q+5, Q+5).
    assert kinds("kc qd 5h 5s", "ac")["fifteen"] == 8


def test_britannica_nine_and_three_threes_fifteen_six() -> None:
    # 9+3+3 three ways (any two of the three threes).
    assert kinds("9c 3c 3d 3h", "kd") == {"fifteen": 6, "pair royal": 6}


def test_britannica_tenth_two_fives_two_three_fifteen_eight() -> None:
    # T+5, T+5, T+2+3, 5+5+2+3; a pair of fives; 2 3 5 5 T holds no run.
    assert kinds("tc 5d 5h 2s", "3c") == {"fifteen": 8, "pair": 2}


# --- Pairs -------------------------------------------------------------------------------------


def test_pair_pair_royal_double_pair_royal() -> None:
    # 2 2 4 8 K: nothing makes 15 (2+2+K 14, 4+8+2 14, 2+2+4+8 16 ...), no run.
    assert kinds("2c 2d 8h 4s", "kc") == {"pair": 2}
    assert kinds("3c 3d 3h 9s", "kc") == {"pair royal": 6, "fifteen": 6}  # 3+3+9 three ways
    assert kinds("2c 2d 2h 2s", "kc") == {"double pair royal": 12}  # 2+2+K 14: no fifteen


def test_tenth_cards_pair_only_by_rank() -> None:
    # J-Q is no pair, though both count ten. J Q 3 9 7: no fifteen (3+9 12, 7+9 16, J+3 13),
    # no run (J-Q only), no nobs (the jack is a club, the starter a heart).
    assert total("jc qd 3h 9s", "7h") == 0
    assert total("jc jd 3h 9s", "7h") == 2


def test_two_pairs() -> None:
    assert total("2c 2d 9h 9s", "kc") == 4
    assert score_hand("2c 2d 9h 9s", "kc").say() == "two pairs is four"


# --- Runs --------------------------------------------------------------------------------------


def test_runs_of_three_four_five() -> None:
    # Commentary: A-2-3 three, 2-3-4-5 four, 9-10-J-Q-K five.
    assert kinds("ac 2d 3h 9s", "kc")["run"] == 3
    assert kinds("2c 3d 4h 5s", "kc") == {"run": 4, "fifteen": 4}  # 2+3+K, 5+K
    assert total("9c td jh qs", "kc") == 5  # no fifteen among 9 and tenth cards


def test_no_run_around_the_corner() -> None:
    # K-A-2 is not a run: ranks are not circular.
    assert "run" not in kinds("kc ad 2h 9s", "7c")


def test_double_run_of_three_hoyle_4_3_3_2() -> None:
    # Hoyle: a double run of three counts 8 exclusive of fifteens (two runs 6 + the pair 2).
    # Fifteens with a king: 2+3+K twice.
    assert kinds("4c 3d 3h 2s", "kc") == {"run": 6, "pair": 2, "fifteen": 4}


def test_double_run_of_four_counts_ten_rules_card_5_6_7_7_8() -> None:
    # Rules card 5-6-7-7-8: two runs of four (8) and the pair (2). Fifteens: 7+8 twice, no
    # other (5+6 11, 5+7 12, 6+7 13, 5+6+7 18 ...).
    assert kinds("5c 6d 7h 7s", "8c") == {"run": 8, "pair": 2, "fifteen": 4}
    assert score_hand("5c 6d 7h 7s", "8c").say().endswith("a double run of four is fourteen")


def test_triple_run_hoyle_kkkqj_counts_fifteen() -> None:
    # Three runs of three (9) and a pair royal (6); no fifteens among tenth cards.
    assert total("kc kd kh qs", "jc") == 15
    assert score_hand("kc kd kh qs", "jc").say() == "a triple run of three is fifteen"


def test_double_double_run_hoyle_88766_counts_sixteen() -> None:
    # Hoyle's quadruple run 8-8-7-6-6: four runs of three (12) and two pairs (4), plus the
    # fifteens 7+8 twice (6+8 is 14, 6+6 12, 6+6+7 19): 16 + 4 = 20.
    assert kinds("8c 8d 7h 6s", "6c") == {"run": 12, "pair": 4, "fifteen": 4}
    assert score_hand("8c 8d 7h 6s", "6c").say() == (
        "fifteen two, fifteen four, and a double double run of three is twenty"
    )


# --- Flushes -----------------------------------------------------------------------------------

# A 3 8 Q with a king: no fifteen (A+3+K 14, 8+K 18, A+3+8 12 ...), pair or run, so the flush
# is all there is.


def test_hand_flush_of_four_without_starter() -> None:
    assert total("ah 3h 8h qh", "kc") == 4


def test_hand_flush_of_five_with_starter() -> None:
    assert total("ah 3h 8h qh", "kh") == 5


def test_crib_four_card_flush_scores_nothing() -> None:
    assert total("ah 3h 8h qh", "kc", crib=True) == 0


def test_crib_flush_of_five_scores_five() -> None:
    assert total("ah 3h 8h qh", "kh", crib=True) == 5


def test_no_flush_that_needs_the_starter_in_the_hand() -> None:
    # Three hearts in hand and a heart turned up: four hearts, but the hand's four are not one
    # suit, so no flush in hand or crib.
    assert total("ah 3h 8h qc", "kh") == 0
    assert total("ah 3h 8h qc", "kh", crib=True) == 0
    # Five-card game: two hearts and a club in hand, heart turned: no flush of three either.
    assert total("ah 8h qc", "kh") == 0


def test_three_card_hand_flush_three_or_four_with_starter() -> None:
    # Five-card game. A 3 8 with K: no fifteen or run.
    assert total("ah 3h 8h", "kc") == 3
    assert total("ah 3h 8h", "kh") == 4


def test_britannica_456_same_suit_and_5_turned_up_is_15() -> None:
    # Fifteens 4+5+6 twice (4), pair of fives (2), runs 4-5-6 twice (6), flush of three (3).
    assert kinds("4h 5h 6h", "5c") == {"fifteen": 4, "pair": 2, "run": 6, "flush": 3}
    assert total("4h 5h 6h", "5c") == 15


def test_three_card_flush_with_starter_and_a_fifteen() -> None:
    # 4 5 6 9 hearts: fifteens 4+5+6 and 6+9 (4), run 4-5-6 (3), flush of four (4).
    assert total("4h 5h 6h", "9h") == 11


# --- Nobs and his heels ------------------------------------------------------------------------


def test_nobs_jack_of_the_starters_suit_in_hand() -> None:
    # J 3 8 9 K: no fifteen (3+8 11, 3+9 12, 8+9 17, J+3 13), pair or run.
    assert kinds("jh 3c 8d 9s", "kh") == {"nobs": 1}
    assert total("jh 3c 8d 9s", "kc") == 0


def test_nobs_counts_in_the_crib() -> None:
    assert total("jh 3c 8d 9s", "kh", crib=True) == 1


def test_nobs_only_once_with_two_jacks() -> None:
    # J J 3 8 with K of hearts: pair of jacks, the heart jack is nobs; no fifteen.
    assert kinds("jh jc 3d 8s", "kh") == {"pair": 2, "nobs": 1}


def test_starter_jack_is_his_heels_not_nobs() -> None:
    # 5 5 5 5 with a jack turned: eight fifteens (16) and a double pair royal (12) = 28, no
    # nobs: the jack is the starter, not in the hand. The dealer pegs 2 for his heels instead.
    assert total("5c 5d 5h 5s", "jh") == 28
    assert "nobs" not in kinds("5c 5d 5h 5s", "jh")
    assert his_heels("jh") == HIS_HEELS_POINTS == 2
    assert his_heels(Card.parse("jc")) == 2
    assert his_heels("5d") == 0


def test_flush_and_nobs_together() -> None:
    # A 3 8 J hearts with K of hearts: flush of five and nobs; A+3+J 14, no fifteen.
    assert kinds("ah 3h 8h jh", "kh") == {"flush": 5, "nobs": 1}
    assert total("ah 3h 8h jh", "kh", crib=True) == 6
    assert total("ah 3h 8h jh", "kc", crib=True) == 0


# --- Source worked examples --------------------------------------------------------------------


def test_hoyle_highest_hand_is_29() -> None:
    # J 5 5 5 with the 5 of the jack's suit: J+5 four ways (8), 5+5+5 four ways (8), double
    # pair royal (12), nobs (1).
    result = score_hand("5h 5c 5s jd", "5d")
    assert result.total == 29
    assert result.points_by_kind() == {"fifteen": 16, "double pair royal": 12, "nobs": 1}
    assert result.say() == (
        "fifteen two, fifteen four, fifteen six, fifteen eight, fifteen ten, fifteen twelve, "
        "fifteen fourteen, fifteen sixteen, a double pair royal is twenty-eight, "
        "and one for his nobs is twenty-nine"
    )


def test_hoyle_no_hand_beats_29() -> None:
    # The suit-blind part peaks at 28, only for four fives and a tenth card; a hand holding
    # three or four fives is no flush, so nobs is the only bonus left: 29 is the most.
    # (That no hand makes 19, 25, 26 or 27 is checked over every case in test_distribution.)
    best = [key for key, points in RANK_TABLE.items() if points >= 25]
    assert max(RANK_TABLE.values()) == 28
    assert sorted(best) == sorted(4 * 5**4 + 5 ** (r - 1) for r in (10, 11, 12, 13))


def test_hoyle_9_6_5_4_4_is_14() -> None:
    # 9+6, 6+5+4 twice: fifteen six; double run 4-5-6 with the pair of fours: 8; total 14.
    result = score_hand("9c 6d 5h 4s", "4c")
    assert result.total == 14
    assert result.say() == (
        "fifteen two, fifteen four, fifteen six, and a double run of three is fourteen"
    )


def test_rules_card_qq654_is_11_not_8() -> None:
    # The card says "fifteen two, fifteen four, fifteen six and a pair makes eight" and forgets
    # the run 4-5-6: Q+5, Q+5, 6+5+4 (6), pair of queens (2), run of three (3) = 11.
    result = score_hand("qc qd 6h 5s", "4c")
    assert result.total == 11
    assert result.points_by_kind() == {"fifteen": 6, "pair": 2, "run": 3}


def test_commentary_a678_with_ace_cut_is_13_not_11() -> None:
    # The commentary lists A+6+8 twice and 7+8, and misses A+A+6+7: four fifteens (8),
    # the pair of aces (2), the run 6-7-8 (3) = 13.
    result = score_hand("ac 6d 7h 8s", "ad")
    fifteens = sorted(
        sorted(str(c) for c in item.cards) for item in result.items if item.kind == "fifteen"
    )
    assert ["6D", "7H", "AC", "AD"] in fifteens
    assert len(fifteens) == 4
    assert result.total == 13


def test_commentary_noel_3458_with_king_cut_is_7() -> None:
    # 5+K and 3+4+8 (4), run 3-4-5 (3).
    assert total("3c 4d 5h 8s", "kc") == 7


def test_commentary_muggins_2346_with_9_cut_is_9() -> None:
    # 6+9, 2+4+9, 2+3+4+6 (6) and the run 2-3-4 (3): the player who pegged 7 missed 2.
    assert total("2c 3d 4h 6s", "9c") == 9


def test_britannica_crib_6_7_7_8_8_is_24() -> None:
    # Four fifteens 7+8 (8), two pairs (4), four runs 6-7-8 (12).
    assert total("6c 7d 7h 8s", "8c", crib=True) == 24


def test_britannica_3_4_5_and_a_3_turned_two_runs() -> None:
    # Two runs 3-4-5 (6), pair of threes (2), 3+3+4+5 = 15 (2).
    assert kinds("3c 4d 5h", "3s") == {"fifteen": 2, "pair": 2, "run": 6}
    # "In crib, with another 3, three sequences": 3 3 3 4 5, 3+3+4+5 three ways.
    assert kinds("3c 3d 4h 5s", "3h") == {"fifteen": 6, "pair royal": 6, "run": 9}


def test_britannica_kept_sequence_and_matching_start_is_at_least_eight() -> None:
    # Five-card game: three cards in sequence, the start pairs one of them: a double run (6)
    # and the pair (2) at least, whatever the suits.
    for low in range(1, 12):
        hand = [Card(low, 0), Card(low + 1, 1), Card(low + 2, 2)]
        for rank in (low, low + 1, low + 2):
            assert score_hand(hand, Card(rank, 3)).total >= 8


def test_zero_hand_is_called_nineteen() -> None:
    result = score_hand("2c 4d 6h 8s", "kc")  # 6+8 14, K+4 14, 2+4+8 14, K+2 12: nothing
    assert result.total == 0
    assert result.say() == "nineteen (no score)"


def test_spoken_count_cadence() -> None:
    assert score_hand("4s 5h 6h 4c", "9d").say() == (
        "fifteen two, fifteen four, fifteen six, and a double run of three is fourteen"
    )
    assert score_hand("2s 2c 2h 9s", "9d").say() == (
        # 2+2+2+9 with either nine: two fifteens; pair royal of twos; pair of nines.
        "fifteen two, fifteen four, a pair royal is ten, and a pair is twelve"
    )
    assert score_hand("ah 3h 8h jh", "kh").say() == (
        "a flush of five is five, and one for his nobs is six"
    )
    assert number_word(29) == "twenty-nine" and number_word(30) == "thirty"


def test_score_hand_json_shape() -> None:
    data = score_hand("5h 5c 5s jd", "5d").to_json()
    assert data["total"] == 29
    items = data["items"]
    assert isinstance(items, list)
    assert items[0] == {"kind": "fifteen", "cards": ["5H", "JD"], "points": 2}
    assert data["hand"] == ["5H", "5C", "5S", "JD"] and data["starter"] == "5D"


@pytest.mark.parametrize(
    ("hand", "starter", "message"),
    [
        ("5h 5c", "5d", "3 or 4 cards"),
        ("5h 5c 5s jd 4c", "5d", "3 or 4 cards"),
        ("5h 5c 5s jd", "5h", "duplicate"),
        ("5h 5h 5s jd", "5d", "duplicate"),
        ("5h 5c 5s jx", "5d", "'jx'"),
    ],
)
def test_score_hand_rejects_bad_hands(hand: str, starter: str, message: str) -> None:
    with pytest.raises(CardError, match=message):
        score_hand(hand, starter)


# --- Rank table --------------------------------------------------------------------------------


def test_rank_table_matches_rank_points_everywhere() -> None:
    # 1,820 four-card and 6,175 five-card rank multisets (no rank five times).
    assert len(RANK_TABLE) == 1820 + 6175
    for key, points in RANK_TABLE.items():
        ranks = [r for r in range(1, 14) for _ in range(key // 5 ** (r - 1) % 5)]
        assert rank_points(ranks) == points
        assert key == sum(RANK_KEY[(r - 1) * 4] for r in ranks)


def test_hand_totals_marks_held_starters() -> None:
    hand = [c.index for c in parse_cards("5c 5h 5s jd")]
    totals = hand_totals(hand)
    assert [totals[i] for i in hand] == [-1] * 4
    assert totals[Card.parse("5d").index] == 29
    assert len(totals) == 52 and sum(1 for t in totals if t >= 0) == 48


# --- Pegging -----------------------------------------------------------------------------------


def test_peg_fifteen_and_thirty_one() -> None:
    assert pegs("8h 7c") == [0, 2]
    assert peg_score("8h 7c").say() == "fifteen for two"
    assert pegs("kc qd 5h 6s") == [0, 0, 0, 2]  # 10, 20, 25, 31


def test_peg_thirty_one_scores_two() -> None:
    # K Q 5 6 = 31 exactly, no pair or run at the end.
    assert count_after("kc qd 5h 6s") == 31
    assert peg_score("kc qd 5h 6s").total == 2
    assert peg_score("kc qd 5h 6s").say() == "thirty-one for two"


def test_peg_pairs_royal_and_double_royal() -> None:
    assert pegs("3c 3d 3h 3s") == [0, 2, 6, 12]
    assert pegs("kc kd") == [0, 2]
    assert pegs("kc jd") == [0, 0]  # tenth cards pair only by rank


def test_peg_no_pair_across_an_interruption() -> None:
    assert pegs("5h 6c 5d") == [0, 0, 0]


def test_peg_pair_royal_broken_by_an_intervening_card() -> None:
    # 4 4 9 4: the 9 breaks the pairs; 4+4+9 = 17, +4 = 21.
    assert pegs("4c 4d 9h 4s") == [0, 2, 0, 0]


def test_peg_thirty_one_with_a_pair() -> None:
    # 10 + J + 3 + 4 + 4 = 31 and the fours pair: 2 + 2.
    assert peg_score("tc jd 3h 4s 4d").total == 4
    assert peg_score("tc jd 3h 4s 4d").say() == "thirty-one and a pair for four"


def test_peg_thirty_one_with_a_pair_royal() -> None:
    assert peg_score("kc 7d 7h 7s").total == 2 + 6


def test_peg_thirty_one_with_a_run() -> None:
    # K 6 7 8 = 31; 6-7-8 is a run of three (K-6-7-8 is not a run of four).
    assert peg_score("kc 6d 7h 8s").total == 5
    assert peg_score("kc 6d 7h 8s").say() == "thirty-one and a run of three for five"


def test_peg_fifteen_with_a_run_and_with_a_pair_royal() -> None:
    assert pegs("4c 5d 6h") == [0, 0, 5]
    assert pegs("5h 5c 5d") == [0, 2, 8]


def test_peg_runs_in_any_order_hoyle() -> None:
    assert pegs("7c 6d 8h") == [0, 0, 3]
    assert pegs("5c 2d 4h 3s") == [0, 0, 0, 4]
    assert pegs("7c 6d 5h") == [0, 0, 3]  # commentary: a 5 on 7-6
    assert pegs("6c 7d 5h") == [0, 0, 3]  # or on 6-7


def test_peg_run_broken_by_an_intervening_card() -> None:
    # Rules card: 6 7 8 or 7 6 8 score, but not 7 4 6 8 (the 4 breaks it).
    assert pegs("6c 7d 8h") == [0, 0, 3]
    assert pegs("7c 4d 6h 8s") == [0, 0, 0, 0]
    # Commentary: A-5-6-7 scores three for the 7, 5-A-6-7 nothing.
    assert pegs("ac 5d 6h 7s") == [0, 0, 0, 3]
    assert pegs("5c ad 6h 7s") == [0, 0, 0, 0]


def test_peg_runs_of_six_and_seven() -> None:
    # 4 3 5 2 6 A 7: a run grows with every card from the third; counts 4 7 12 14 20 21 28.
    assert pegs("4c 3d 5h 2s 6c ad 7h") == [0, 0, 3, 4, 5, 6, 7]
    # 3 4 2 6 is no run, but makes 15; then 5 fills the gap (run of five), A a run of six.
    assert pegs("3c 4d 2h 6s 5c ad") == [0, 0, 3, 2, 5, 6]


def test_britannica_4_3_2_ace_run_of_three_then_four() -> None:
    assert pegs("4c 3d 2h ac") == [0, 0, 3, 4]
    assert pegs("4c 3d 2h 5c")[-1] == 4  # had B's last card been a five
    assert pegs("4c 3d 2h 4d")[-1] == 3  # had it been a four


def test_britannica_4_2_5_3_then_a_run_of_five() -> None:
    # "4 ? 5 3 ?" in the scanned text: B's 3 makes 2-3-4-5 (4); A's last card a run of five.
    # With a 6 the count is 20; with an ace it is 15, which the text does not mention.
    assert pegs("4c 2d 5h 3s 6c") == [0, 0, 0, 4, 5]
    assert pegs("4c 2d 5h 3s ac") == [0, 0, 0, 4, 5 + 2]


def test_britannica_4_2_5_3_5_6_second_five_blocks() -> None:
    # Run of four on the fourth card, then nothing: the second 5 intervenes. 4 6 11 14 19 25.
    assert pegs("4c 2d 5h 3s 5c 6d") == [0, 0, 0, 4, 0, 0]


def test_britannica_4_2_3_a_5_2_4_a_six_card_play() -> None:
    # Runs of 3, 4 and 5, none (the earlier 2 intervenes), a run of five, none (the earlier ace
    # blocks the three). Britannica speaks only of runs: the 5 also makes the count 15
    # (4+2+3+1+5), so that card pegs 5 + 2 = 7.
    cards = "4c 2d 3h ad 5c 2s 4d ah"
    assert pegs(cards) == [0, 0, 3, 4, 5 + 2, 0, 5, 0]
    assert [count_after(" ".join(cards.split()[: i + 1])) for i in range(8)] == [
        4,
        6,
        9,
        10,
        15,
        17,
        21,
        22,
    ]


def test_commentary_play_count_after_ace_is_27_not_25() -> None:
    # Matt A 8 9 9 (non-dealer), Noel 2 7 10 J. 8; 7 = 15 for Noel (2); 9 = 24, run 7-8-9 for
    # Matt (3); 2 = 26; A = 27 (the text says 25); neither can play (10 or J makes 37, 9 makes
    # 36): a go, 1 for Matt, who played last. New count: 10; 9 = 19; J = 29, run 9-10-J (3) and
    # one for the last card to Noel.
    first = "8c 7d 9h 2s ac"
    assert pegs(first) == [0, 2, 3, 0, 0]
    assert count_after(first) == 27
    assert count_after(first) + 10 > 31 and count_after(first) + 9 > 31
    second = "tc 9d jh"
    assert pegs(second) == [0, 0, 3]
    assert count_after(second) == 29
    assert GO_POINTS == 1 and LAST_CARD_POINTS == 1


def test_peg_score_items_and_errors() -> None:
    result = peg_score("kc 7d 7h 7s")
    assert [(item.kind, item.points) for item in result.items] == [
        ("thirty-one", 2),
        ("pair royal", 6),
    ]
    assert [str(c) for c in result.items[1].cards] == ["7D", "7H", "7S"]
    assert peg_score("8c 7d 9h 2s ac").say() == "twenty-seven"
    with pytest.raises(CardError, match="empty"):
        peg_score([])
    with pytest.raises(CardError, match="over 31"):
        peg_score("kc qd jh 2s")


def test_peg_points_ranks_accepts_rank_enums_and_tuples() -> None:
    assert peg_points_ranks((Rank.FOUR, Rank.TWO, Rank.THREE)) == 3
    assert peg_points_ranks([5, 5, 5], 15) == 8
    assert peg_points_ranks([10]) == 0
