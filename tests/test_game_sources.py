"""The worked examples and rule statements of the source texts, played through the engine.

Each test is named after its source (/work/shared/rules) and the rule. Every figure was counted
here by hand, card by card, and written beside the play: the sources contain counting mistakes
(the commentary's play example says the count reaches 25 where it is 27), so no total is copied.
"""

from __future__ import annotations

from _scripted import (
    counts,
    game_over,
    goes,
    new_game,
    pegged,
    play,
    play_out,
    scored,
    set_scores,
    setup,
    shown,
)
from fifteentwo.actions import CountReset, Reason

PLAY, GO, LAST, HAND = Reason.PLAY, Reason.GO, Reason.LAST_CARD, Reason.HAND
MATT, NOEL = 0, 1  # Matt is the non-dealer (seat 0, the pone); Noel deals


def test_commentary_matt_and_noel_play_the_count_reaches_27_not_25() -> None:
    # "Matt's hand consists of A-8-9-9, and Noel's consists of 2-7-10-J. Matt, as nondealer,
    # leads the 8." Both lay away two cards first; the starter is the king of spades.
    game = new_game("standard", dealer=NOEL)
    setup(game, ["ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d"], ["kd qd", "3c 4d"], "ks")
    events = play_out(game, [(MATT, "8c"), (NOEL, "7d"), (MATT, "9h")])
    # 8; Noel's 7 makes 15 (2); Matt's 9 makes 24, a run 7-8-9 (3).
    assert counts(events) == [8, 15, 24]
    assert pegged(events) == [(NOEL, 2, PLAY), (MATT, 3, PLAY)]
    # "Noel must play his 2": his 10 and J would make 34.
    assert [a.card.short for a in game.legal_actions()] == ["2S"]  # type: ignore[union-attr]
    events = play(game, NOEL, "2s")
    # "Matt plays his A, bringing the count to 25": 26 + 1 is 27.
    events += play(game, MATT, "ac")
    assert counts(events) == [26, 27]
    # Noel (10 or J: 37) and Matt (9: 36) cannot play; Matt played last and pegs one.
    assert goes(events)[0] == NOEL
    assert pegged(events) == [(MATT, 1, GO)]
    # The player who said go leads the new count (commentary), which in a two-handed game is
    # the opponent of the one who played last (Hoyle): Noel.
    assert events[-1] == CountReset(NOEL)
    events = play_out(game, [(NOEL, "tc"), (MATT, "9s"), (NOEL, "jh")])
    # 10; 9 = 19; J = 29, a run 9-10-J (3), and one for the last card.
    assert counts(events) == [10, 19, 29]
    assert pegged(events) == [(NOEL, 3, PLAY), (NOEL, 1, LAST)]
    # In all, Matt pegged 3 + 1 = 4 and Noel 2 + 3 + 1 = 6 in the play.
    totals = [0, 0]
    for seat, points, _ in pegged(game.events):
        totals[seat] += points
    assert totals == [4, 6]


def test_commentary_a_player_out_of_cards_the_other_plays_on_alone_for_the_last_card() -> None:
    # "If the player who said 'Go' has no more cards in his hand, the other player may play his
    # cards one at a time, scoring as appropriate and getting one point for playing the last
    # card." Seat 0 keeps A 2 3 4; seat 1 keeps K Q 6 6.
    game = new_game("standard")
    setup(game, ["ac 2c 3c 4c 9d td", "kh qh 6s 6h 9s ts"], ["9d td", "9s ts"], "7d")
    events = play_out(game, [(0, "ac"), (1, "kh"), (0, "2c"), (1, "qh"), (0, "3c")])
    # A; K = 11; 2 = 13; Q = 23; 3 = 26. Seat 1's sixes make 32: go. Seat 0 plays on: 4 = 30,
    # and is out of cards: one for the go (seat 1 still holds cards, so it is not the last).
    assert goes(events) == [1]
    events += play(game, 0, "4c")
    assert pegged(events) == [(0, 1, GO)]
    # Seat 1 plays alone: 6; 6 = 12, a pair (2); one for the last card.
    assert game.to_move == 1
    events = play(game, 1, "6s")
    assert game.to_move == 1
    events += play(game, 1, "6h")
    assert counts(events) == [6, 12]
    assert pegged(events) == [(1, 2, PLAY), (1, 1, LAST)]


def test_britannica_six_card_play_runs_4_2_3_a_5_2_4_a() -> None:
    # "A takes a run of three, B a run of four, A a run of five. B then playing the deuce has no
    # run, as the deuce he previously played intervenes. A then makes a run of five, and lastly
    # B has no run, the ace previously played blocking the three." A is the non-dealer.
    game = new_game("standard")
    setup(game, ["4c 3h 5c 4d kc qc", "2d ad 2s ah kd qd"], ["kc qc", "kd qd"], "9s")
    moves = [(0, "4c"), (1, "2d"), (0, "3h"), (1, "ad"), (0, "5c"), (1, "2s"), (0, "4d")]
    events = play_out(game, moves)
    events += play(game, 1, "ah")
    # Counts 4 6 9 10 15 17 21 22. A: 4 2 3, a run of 3; B: 4 2 3 A, a run of 4; A: a run of
    # 5, and the count is 15 (7: Britannica speaks only of the run); B's 2 repeats a rank of
    # the run: nothing; A: the last five, 3 A 5 2 4, are A to 5, a run of 5; B's ace repeats
    # one again: nothing, but one for the last card at 22.
    assert counts(events) == [4, 6, 9, 10, 15, 17, 21, 22]
    assert pegged(events) == [
        (0, 3, PLAY),
        (1, 4, PLAY),
        (0, 7, PLAY),
        (0, 5, PLAY),
        (1, 1, LAST),
    ]


def test_hoyle_nondealer_goes_out_on_showing_his_hand_and_wins() -> None:
    # Hoyle: "if nondealer goes out on showing his hand, he wins, even though dealer might have
    # gone out with a greater total if allowed to count his hand and crib." Britannica orders
    # the points the same way: heels, the play, the non-dealer's show, then the dealer's.
    game = new_game("standard")
    set_scores(game, 118, 100)
    setup(game, ["ac 2d 3h ks 4s 7s", "6c 6d 9c 9d qc qh"], ["4s 7s", "qc qh"], "9s")
    events = play_out(game, [(0, "ks"), (1, "6c"), (0, "3h"), (1, "6d"), (0, "2d")])
    # K; 6 = 16; 3 = 19; 6 = 25; 2 = 27: no points. Seat 1's nines make 36: go. Seat 0 plays
    # the ace (28) and is out: one for the go (119). Seat 1 leads 9, then 9 = 18, a pair (2),
    # and one for the last card (103).
    events += play(game, 0, "ac") + play(game, 1, "9c") + play(game, 1, "9d")
    assert scored(events) == [(0, 1, GO), (1, 2, PLAY), (1, 1, LAST), (0, 7, HAND)]
    # The show: seat 0 A 2 3 K + 9: fifteens 2-3-K and A-2-3-9 (4), run A-2-3 (3): 7, out at
    # 121. Seat 1's 6 6 9 9 + 9 (six fifteens, a pair and a pair royal: 20) is never counted.
    over = game_over(events)
    assert (over.winner, over.scores) == (0, (121, 103))
    assert shown(events) == [(0, False, 7)]


def test_commentary_timing_his_heels_can_win_the_game() -> None:
    # "It is possible, for example to lose a game because the dealer pegs two points for His
    # Heels." The dealer at 119 turns a jack: out before a card is played.
    game = new_game("standard")
    set_scores(game, 120, 119)
    events = setup(game, ["ac 8c 9h 9s kd qd", "2s 7d tc 5h 3c 4d"], ["kd qd", "3c 4d"], "jh")
    over = game_over(events)
    assert (over.winner, over.scores) == (1, (120, 121))
    assert game.played == []


def test_britannica_go_of_two_at_thirty_one_no_extra_last_card() -> None:
    # "The go, end hole, or last card is scored by the player who approaches most nearly to
    # thirty-one ... If thirty-one is reached exactly, it is a go of two instead of one."
    game = new_game("standard")
    setup(game, ["tc kd 5s 6h 7c 8c", "jc ac qd kh 7d 8d"], ["7c 8c", "7d 8d"], "2d")
    events = play_out(game, [(0, "tc"), (1, "jc"), (0, "kd"), (1, "ac")])  # 10 20 30 31
    events += play_out(game, [(0, "5s"), (1, "qd"), (0, "6h"), (1, "kh")])  # 5 15 21 31
    assert pegged(events) == [(1, 2, PLAY), (1, 2, PLAY), (1, 2, PLAY)]  # 31, 15, 31: no +1
