"""Every rule of the game engine, one scripted scenario each: exact hands, starter and play.

Each deal is scripted (`first_dealer=` and explicit `DealHands`/`TurnStarter` outcomes), and
every expected point was counted by hand; the count is written out beside each play. Seat 0 is
the pone (non-dealer) and seat 1 the dealer unless a test says otherwise.
"""

from __future__ import annotations

import random

import pytest

from _scripted import (
    card,
    cards,
    claim,
    counts,
    deal,
    game_over,
    goes,
    lay_away,
    new_game,
    pegged,
    play,
    play_out,
    scored,
    set_scores,
    setup,
    shown,
    turn_up,
)
from fifteentwo.actions import (
    CHANCE,
    GO,
    Count,
    CountReset,
    Cut,
    DealDone,
    DealerChosen,
    DealHands,
    Dealt,
    Discard,
    DrawForDeal,
    Event,
    HandCounted,
    MatchOver,
    Muggins,
    Phase,
    Play,
    Reason,
    Scored,
    StarterTurned,
    TurnStarter,
)
from fifteentwo.cards import DECK
from fifteentwo.errors import IllegalActionError
from fifteentwo.game import Game
from fifteentwo.rules import find_rules

PLAY, GO_, LAST, HEELS = Reason.PLAY, Reason.GO, Reason.LAST_CARD, Reason.HIS_HEELS
HAND, CRIB, MUGGINS, THREE = Reason.HAND, Reason.CRIB, Reason.MUGGINS, Reason.THREE_FOR_LAST


def play_rest(game: Game) -> list[Event]:
    """Finish the play choosing each seat's first legal action (the lowest card)."""
    events: list[Event] = []
    while game.phase is Phase.PLAY:
        events += game.apply(game.legal_actions()[0])
    return events


def heels_deal(game: Game) -> list[Event]:
    """A deal whose starter is the jack of hearts: two for his heels to the dealer."""
    rules = game.rules
    pool = [c for c in DECK if c != card("jh")]
    size = rules.hand_size
    hands = [
        " ".join(str(c) for c in pool[i * size : i * size + size]) for i in range(rules.players)
    ]
    used = rules.players * size
    pack = " ".join(c.short for c in pool[used : used + rules.crib_from_pack])
    events = deal(game, *hands, pack=pack)
    events += lay_away(game, *(" ".join(h.split()[: rules.discard]) for h in hands))
    return events + turn_up(game, "jh")


# --- the cut for deal ------------------------------------------------------------------------


def test_cut_for_deal_lower_card_deals_ace_low() -> None:
    game = Game(find_rules("standard"), seed=1)
    assert game.phase is Phase.CUT_FOR_DEAL and game.to_move == CHANCE
    events = game.apply(DrawForDeal(0, card("ks"))) + game.apply(DrawForDeal(1, card("ac")))
    assert events == [DealerChosen(((0, card("ks")), (1, card("ac"))), 1)]
    assert game.dealer == 1 and game.pone == 0 and game.phase is Phase.DEAL


def test_cut_for_deal_equal_ranks_cut_again() -> None:
    # Hoyle: "If cards of equal rank are drawn, both players draw again."
    game = Game(find_rules("standard"), seed=1)
    events = game.apply(DrawForDeal(0, card("7h"))) + game.apply(DrawForDeal(1, card("7s")))
    assert events == [DealerChosen(((0, card("7h")), (1, card("7s"))), None)]
    assert game.phase is Phase.CUT_FOR_DEAL and game.to_move == CHANCE
    # A fresh cut from the whole pack: the seven of hearts can come up again.
    game.apply(DrawForDeal(0, card("7h")))
    events = game.apply(DrawForDeal(1, card("6c")))
    assert events[0].dealer == 1  # type: ignore[union-attr]


def test_cut_for_deal_three_players_only_a_tie_for_lowest_cuts_again() -> None:
    game = Game(find_rules("three-player"), seed=1)
    for seat, text in enumerate(("5c", "5d", "2h")):
        events = game.apply(DrawForDeal(seat, card(text)))
    assert events[0].dealer == 2  # type: ignore[union-attr]
    game = Game(find_rules("three-player"), seed=1)
    for seat, text in enumerate(("2c", "9d", "2h")):
        events = game.apply(DrawForDeal(seat, card(text)))
    assert events[0].dealer is None  # type: ignore[union-attr]
    assert game.phase is Phase.CUT_FOR_DEAL


def test_cut_for_deal_draws_the_cards_in_seat_order() -> None:
    game = Game(find_rules("standard"), seed=1)
    with pytest.raises(IllegalActionError, match="not seat 1's cut"):
        game.apply(DrawForDeal(1, card("5c")))
    game.apply(DrawForDeal(0, card("5c")))
    with pytest.raises(IllegalActionError, match="already drawn"):
        game.apply(DrawForDeal(1, card("5c")))


def test_cut_seats_choose_a_depth_leaving_four_each_side() -> None:
    # Every cut "must leave at least four cards in each packet" (Hoyle; Britannica: "at least
    # four cards must be cut, and at least four left").
    game = Game(find_rules("standard"), seed=3, cut_seats=[0, 1])
    assert game.to_move == 0
    assert game.legal_actions() == [Cut(d) for d in range(4, 49)]  # 52 cards: 4..48
    for depth in (3, 49):
        with pytest.raises(IllegalActionError, match="between 4 and 48"):
            game.apply(Cut(depth))
    game.apply(Cut(4))
    assert game.to_move == 1
    assert game.legal_actions() == [Cut(d) for d in range(4, 48)]  # 51 cards left: 4..47
    events = game.apply(Cut(47))
    cuts = next(e for e in events if isinstance(e, DealerChosen)).cuts
    assert [seat for seat, _ in cuts] == [0, 1]


def test_pone_cuts_for_the_starter_when_a_cut_seat() -> None:
    game = new_game("standard", cut_seats=[0])
    deal(game, "ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d")
    lay_away(game, "kd qd", "3c 4d")
    assert game.phase is Phase.STARTER and game.to_move == 0
    assert game.legal_actions() == [Cut(d) for d in range(4, 37)]  # 40 cards in the stock
    with pytest.raises(IllegalActionError, match="between 4 and 36"):
        game.apply(Cut(37))
    starter = game.stock[10]
    events = game.apply(Cut(10))
    assert events[0] == StarterTurned(starter, 0, 10)
    assert starter not in game.stock and game.phase is Phase.PLAY


def test_the_starter_is_a_chance_step_when_the_pone_does_not_cut() -> None:
    game = new_game("standard")
    deal(game, "ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d")
    lay_away(game, "kd qd", "3c 4d")
    assert game.to_move == CHANCE and game.legal_actions() == []
    outcome = game.sample_chance()
    assert isinstance(outcome, TurnStarter) and outcome.card in game.stock
    with pytest.raises(IllegalActionError, match="not in the stock"):
        game.apply(TurnStarter(card("ac")))


# --- the deal ------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["standard", "three-player", "four-player", "five-card"])
def test_deal_one_card_at_a_time_starting_on_the_dealers_left(preset: str) -> None:
    rules = find_rules(preset)
    n = rules.players
    for dealer in range(n):
        game = new_game(rules, dealer=dealer, seed=dealer + 10)
        shadow = random.Random()
        shadow.setstate(game.rng.getstate())
        top = shadow.sample(DECK, n * rules.hand_size + rules.crib_from_pack)
        outcome = game.sample_chance()
        assert isinstance(outcome, DealHands)
        for i in range(n):  # the i-th seat left of the dealer gets cards i, i + n, i + 2n ...
            seat = (dealer + 1 + i) % n
            assert outcome.hands[seat] == tuple(top[i : n * rules.hand_size : n])
        assert outcome.pack == tuple(top[n * rules.hand_size :])
        assert len(outcome.pack) == rules.crib_from_pack


def test_deal_passes_to_the_left_each_deal() -> None:
    game = Game(find_rules("three-player"), seed=5, first_dealer=2)
    dealers = []
    for _ in range(4):
        game.advance()
        dealers.append(game.dealer)
        while game.phase is not Phase.DEAL and not game.is_over:
            seat = game.to_move
            game.apply(game.sample_chance() if seat == CHANCE else game.legal_actions()[0])
    assert dealers == [2, 0, 1, 2]


def test_deal_must_fit_the_rules() -> None:
    game = new_game("standard")
    with pytest.raises(IllegalActionError, match="2 hands of 6 cards"):
        deal(game, "ac 2c 3c 4c 5c", "6c 7c 8c 9c tc jc")
    with pytest.raises(IllegalActionError, match="dealt twice"):
        deal(game, "ac 2c 3c 4c 5c 6c", "6c 7c 8c 9c tc jc")
    with pytest.raises(IllegalActionError, match="0 card"):
        deal(game, "ac 2c 3c 4c 5c 6c", "7c 8c 9c tc jc qc", pack="kc")
    with pytest.raises(IllegalActionError, match="not time to turn the starter"):
        game.apply(TurnStarter(card("ac")))
    with pytest.raises(IllegalActionError, match="a chance step is next"):
        game.apply(Discard(cards("ac 2c")))
    assert game.log == [] and game.phase is Phase.DEAL


# --- laying away -----------------------------------------------------------------------------


def test_discards_start_on_the_dealers_left_and_form_the_crib() -> None:
    game = new_game("standard", dealer=0)
    deal(game, "ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d")
    order = []
    for seat, thrown in ((1, "3c 4d"), (0, "kd qd")):
        order.append(game.to_move)
        game.apply(Discard(cards(thrown)))
        assert game.kept[seat] == tuple(c for c in game.dealt[seat] if c not in cards(thrown))
    assert order == [1, 0]
    assert sorted(game.crib) == sorted(cards("3c 4d kd qd"))
    assert game.phase is Phase.STARTER


def test_discard_must_be_the_right_number_of_different_cards_from_hand() -> None:
    game = new_game("standard")
    deal(game, "ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d")
    legal = game.legal_actions()
    assert len(legal) == 15 and Discard(cards("kd qd")) not in legal  # combinations are sorted
    assert Discard(cards("qd kd")) in legal
    for thrown, message in (
        ("kd", "exactly 2"),
        ("kd qd ac", "exactly 2"),
        ("2s 7d", "2S is not in seat 0's hand"),
    ):
        with pytest.raises(IllegalActionError, match=message):
            game.apply(Discard(cards(thrown)))
    with pytest.raises(IllegalActionError, match="exactly 2 different"):
        game.apply(Discard((card("kd"), card("kd"))))
    with pytest.raises(IllegalActionError, match="discard phase"):
        game.apply(Play(card("ac")))
    assert len(game.log) == 1 and len(game.hands[0]) == 6  # nothing changed


def test_three_player_one_card_from_the_pack_completes_the_crib() -> None:
    # Commentary: "the dealer deals five cards ... to each player, then one to the crib. Each
    # player discards one card from his hand to the crib."
    game = new_game("three-player", dealer=2)
    events = deal(game, "ac 2c 3c 4c 5c", "ad 2d 3d 4d 5d", "ah 2h 3h 4h 5h", pack="ks")
    assert events[0] == Dealt(
        2, (cards("ac 2c 3c 4c 5c"), cards("ad 2d 3d 4d 5d"), cards("ah 2h 3h 4h 5h")), 1
    )
    assert game.crib == [card("ks")]
    order = []
    while game.phase is Phase.DISCARD:
        order.append(game.to_move)
        game.apply(game.legal_actions()[-1])  # each lays away its five
    assert order == [0, 1, 2]
    assert sorted(game.crib) == sorted(cards("ks 5c 5d 5h"))


# --- the starter -----------------------------------------------------------------------------


def test_his_heels_two_for_the_dealer_when_the_starter_is_a_jack() -> None:
    game = new_game("standard")
    events = heels_deal(game)
    assert scored(events) == [(1, 2, HEELS)]
    assert game.scores == [0, 2] and game.phase is Phase.PLAY and game.to_move == 0


def test_his_heels_can_win_the_game_before_a_card_is_played() -> None:
    game = new_game("standard")
    set_scores(game, 50, 119)
    events = heels_deal(game)
    over = game_over(events)
    assert (over.winner, over.scores) == (1, (50, 121))
    assert game.is_over and game.to_move is None and game.played == []


def test_his_heels_scores_for_the_dealers_partnership() -> None:
    game = new_game("four-player", dealer=3)
    events = heels_deal(game)
    assert [(e.seat, e.side, e.points) for e in events if isinstance(e, Scored)] == [(3, 1, 2)]
    assert game.scores == [0, 2]


# --- the play --------------------------------------------------------------------------------


def test_pone_leads_and_the_play_alternates() -> None:
    game = new_game("standard", dealer=0)  # seat 1 is the pone here
    setup(game, ["2s 7d tc jh 3c 4d", "ac 8c 9h 9s kd qd"], ["3c 4d", "kd qd"], "ks")
    assert game.to_move == 1
    play(game, 1, "8c")
    assert game.to_move == 0
    play(game, 0, "7d")
    assert game.to_move == 1


def test_a_card_that_takes_the_count_past_31_is_illegal_and_go_only_when_stuck() -> None:
    game = new_game("standard")
    setup(game, ["ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d"], ["kd qd", "3c 4d"], "ks")
    play_out(game, [(0, "8c"), (1, "7d"), (0, "9h")])  # count 24
    assert game.legal_actions() == [Play(card("2s"))]  # 10 and J would make 34
    with pytest.raises(IllegalActionError, match=r"past 31 \(count is 24\)"):
        game.apply(Play(card("tc")))
    with pytest.raises(IllegalActionError, match="not in seat 1's hand"):
        game.apply(Play(card("ac")))
    with pytest.raises(IllegalActionError, match="cannot go"):
        game.apply(GO)
    assert game.count == 24 and len(game.hands[1]) == 3


def test_go_one_to_the_last_player_and_the_other_leads_anew() -> None:
    # Hoyle: "the opponent of the player who played the last card must lead for a new count".
    game = new_game("standard")
    setup(game, ["ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d"], ["kd qd", "3c 4d"], "ks")
    events = play_out(game, [(0, "8c"), (1, "7d"), (0, "9h"), (1, "2s"), (0, "ac")])
    # 8; 7 = 15 (2 to seat 1); 9 = 24, run 7-8-9 (3 to seat 0); 2 = 26; A = 27. Seat 1 holds
    # only 10 and J, seat 0 a 9 (36): neither can come in, and seat 0 played last.
    assert counts(events) == [8, 15, 24, 26, 27]
    assert scored(events) == [(1, 2, PLAY), (0, 3, PLAY), (0, 1, GO_)]
    assert 1 in goes(events) and events[-1] == CountReset(1)
    assert game.count == 0 and game.pile == [] and game.to_move == 1


def test_thirty_one_scores_two_with_no_go_and_resets_the_count() -> None:
    game = new_game("standard")
    setup(game, ["tc kd 5s 2h 3d 4d", "jc 6d 9s 3c 7h 8h"], ["3d 4d", "7h 8h"], "qs")
    events = play_out(game, [(0, "tc"), (1, "jc"), (0, "5s"), (1, "6d")])
    # 10; J = 20 (no pair: 10 and J are different ranks); 5 = 25; 6 = 31 for two.
    assert counts(events) == [10, 20, 25, 31]
    assert scored(events) == [(1, 2, PLAY)]
    assert events[-1] == CountReset(0) and goes(events) == []
    # New count: K 10; 9 = 19; 2 = 21; 3 = 24 and one for the last card.
    events = play_out(game, [(0, "kd"), (1, "9s"), (0, "2h"), (1, "3c")])
    assert counts(events) == [10, 19, 21, 24]
    assert scored(events)[0] == (1, 1, LAST)


def test_last_card_making_31_scores_two_not_three() -> None:
    game = new_game("standard")
    setup(game, ["tc kd 5s 6h 7c 8c", "jc ac qd kh 7d 8d"], ["7c 8c", "7d 8d"], "2d")
    # 10; J = 20; K = 30; A = 31 for two (the ace is seat 1's only card that comes in).
    events = play_out(game, [(0, "tc"), (1, "jc"), (0, "kd")])
    assert game.legal_actions() == [Play(card("ac"))]
    events += play(game, 1, "ac")
    # New count led by seat 0: 5; Q = 15 (two); 6 = 21; K = 31 for two, the last card.
    events += play_out(game, [(0, "5s"), (1, "qd"), (0, "6h"), (1, "kh")])
    assert counts(events) == [10, 20, 30, 31, 5, 15, 21, 31]
    assert pegged(events) == [(1, 2, PLAY), (1, 2, PLAY), (1, 2, PLAY)]
    assert game.phase is not Phase.PLAY


def test_after_a_go_the_other_plays_on_alone_and_combinations_still_count() -> None:
    # Hoyle: combinations count "whether the cards are played alternately or one player plays
    # several times in succession in consequence of a go".
    game = new_game("standard")
    setup(game, ["7c 7d 7h 2s ac ad", "ks qs js ts ah as"], ["ac ad", "ah as"], "5c")
    events = play_out(game, [(0, "7c"), (1, "ks"), (0, "7d")])
    # 7; K = 17; 7 = 24 (no pair: the king is between). Seat 1 has only tenth cards: go.
    assert goes(events) == [1] and game.to_move == 0
    events = play(game, 0, "7h")  # 31: a pair of sevens (2) and thirty-one (2)
    assert scored(events) == [(0, 4, PLAY)]
    assert events[-1] == CountReset(1)
    # Seat 1 leads Q (10); 2 = 12; J = 22; seat 0 is out of cards, seat 1's ten makes 32: one
    # for the go to seat 1, who then leads the ten alone: one for the last card.
    events = play_out(game, [(1, "qs"), (0, "2s"), (1, "js")])
    assert scored(events) == [(1, 1, GO_)]
    assert game.to_move == 1
    events = play(game, 1, "ts")
    assert scored(events)[0] == (1, 1, LAST)


def test_no_combination_across_a_go_and_players_out_of_cards_are_skipped() -> None:
    game = new_game("standard")
    setup(game, ["kc 5c 5h qc 2c 3c", "kd 5d qd 8s 2d 3d"], ["2c 3c", "2d 3d"], "9h")
    events = play_out(game, [(0, "kc"), (1, "kd"), (0, "5c"), (1, "5d")])
    # K; K = 20, a pair (2); 5 = 25; 5 = 30, a pair (2). Neither comes in: go to seat 1.
    assert counts(events) == [10, 20, 25, 30]
    assert scored(events) == [(1, 2, PLAY), (1, 2, PLAY), (1, 1, GO_)]
    assert goes(events) == [0, 1]
    # Seat 0 leads the third five: no pair with the five before the go.
    events = play_out(game, [(0, "5h"), (1, "qd"), (0, "qc")])
    # 5; Q = 15 (2 to seat 1); Q = 25, a pair (2 to seat 0). Seat 0 is now out of cards and
    # seat 1's eight would make 33: one for the go to seat 0, and seat 1 leads the eight alone.
    assert scored(events) == [(1, 2, PLAY), (0, 2, PLAY), (0, 1, GO_)]
    assert events[-1] == CountReset(1)
    events = play(game, 1, "8s")
    assert scored(events)[0] == (1, 1, LAST)


# --- five-card cribbage ----------------------------------------------------------------------


def test_five_card_three_for_last_to_the_pone_at_the_start() -> None:
    # Britannica: "At the two-handed five-card game only, the non-dealer is entitled to score
    # three holes (called three for last)".
    game = new_game("five-card", dealer=1)
    assert game.scores == [3, 0]
    assert scored(game.events) == [(0, 3, THREE)]
    game = Game(find_rules("five-card"), seed=2)
    game.apply(DrawForDeal(0, card("2c")))
    events = game.apply(DrawForDeal(1, card("9c")))
    assert scored(events) == [(1, 3, THREE)]  # seat 0 deals, so seat 1 is the pone
    assert new_game("standard").scores == [0, 0]


def test_five_card_no_second_series_play_ends_when_neither_can_come_in() -> None:
    game = new_game("five-card")
    setup(game, ["tc kd 5s 2c 3c", "jc qd 9s 2d 3d"], ["2c 3c", "2d 3d"], "4h")
    events = play_out(game, [(0, "tc"), (1, "jc"), (0, "kd")])
    # 10; J = 20; K = 30. Seat 1's Q and 9 make 40 and 39, seat 0's 5 makes 35: one for the go
    # to seat 0, and the play is over with three cards unplayed.
    assert pegged(events) == [(0, 1, GO_)]
    assert not any(isinstance(e, CountReset) for e in events)
    assert game.hands == [[card("5s")], [card("9s"), card("qd")]]
    # The show counts the kept hands, played or not: seat 0 T K 5 + 4 (fifteens 10-5, K-5:
    # 4 points); seat 1 J Q 9 + 4 (none). The crib 2 3 2 3 + 4: fifteens 2-2-3-4-... none,
    # pairs 2-2 and 3-3 (4), runs 2-3-4 four ways (12): 16.
    assert shown(events) == [(0, False, 4), (1, False, 0), (1, True, 16)]


def test_five_card_the_player_who_can_come_in_may_decline_after_a_go() -> None:
    # Britannica: "If one player has a card or cards that will come in and the other has not, he
    # is at liberty to play them; at the six-card game he is bound to play".
    game = new_game("five-card")
    setup(game, ["tc 5s 4h 2c 3c", "kc qd 9s 2d 3d"], ["2c 3c", "2d 3d"], "6h")
    assert GO not in game.legal_actions()  # no go before the opponent's go
    events = play_out(game, [(0, "tc"), (1, "kc"), (0, "5s")])  # 10, 20, 25
    assert goes(events) == [1]
    assert game.to_move == 0 and game.legal_actions() == [Play(card("4h")), GO]
    declined = game.clone()
    events = play(declined, 0, "go")
    assert scored(events)[0] == (0, 1, GO_) and card("4h") in declined.hands[0]
    events = play(game, 0, "4h")  # 29; seat 0 is out of cards: still a go, not a last card
    assert scored(events)[0] == (0, 1, GO_)


def test_five_card_thirty_one_ends_the_play() -> None:
    game = new_game("five-card")
    setup(game, ["tc 6h 2c 3s 4s", "kc 5d qs 3d 4d"], ["3s 4s", "3d 4d"], "8h")
    events = play_out(game, [(0, "tc"), (1, "kc"), (0, "6h"), (1, "5d")])  # 10 20 26 31
    assert scored(events)[0] == (1, 2, PLAY)
    assert game.hands == [[card("2c")], [card("qs")]] and game.phase is not Phase.PLAY


def test_six_card_go_is_never_optional() -> None:
    game = new_game("standard")
    setup(game, ["tc 5s 4h 2c 3c 8c", "kc qd 9s jd 3d 8d"], ["3c 8c", "3d 8d"], "6h")
    play_out(game, [(0, "tc"), (1, "kc"), (0, "5s")])
    assert game.legal_actions() == [Play(card("2c")), Play(card("4h"))]


# --- three and four players ------------------------------------------------------------------


def three_player_deal() -> tuple[Game, list[Event]]:
    game = new_game("three-player", dealer=0)
    events = deal(game, "jh 7h 6h 3h ks", "kc 9c 4c ac 5s", "qd 8d 5d 2d 4s", pack="6c") + lay_away(
        game, "ks", "5s", "4s"
    )
    return game, events + turn_up(game, "2s")


def test_three_player_left_of_dealer_cuts_and_leads_then_clockwise() -> None:
    # Commentary: "Player to the left of the deal cuts the deck and makes first lead."
    game, events = three_player_deal()
    assert next(e for e in events if isinstance(e, StarterTurned)).cut_by == 1
    assert sorted(game.crib) == sorted(cards("6c ks 5s 4s"))
    assert game.to_move == 1
    play(game, 1, "kc")
    assert game.to_move == 2
    play(game, 2, "qd")
    assert game.to_move == 0


def test_three_player_goes_skips_and_the_next_leader() -> None:
    game, _ = three_player_deal()
    events = play_out(game, [(1, "kc"), (2, "qd"), (0, "jh"), (1, "ac")])
    # K; Q = 20; J = 30, run K-Q-J (3 to seat 0); A = 31 for two (seat 1).
    assert scored(events) == [(0, 3, PLAY), (1, 2, PLAY)]
    assert events[-1] == CountReset(2)  # the player after the one who played last
    events = play_out(game, [(2, "8d"), (0, "7h"), (1, "9c"), (2, "5d")])
    # 8; 7 = 15 (2 to seat 0); 9 = 24, run 7-8-9 (3 to seat 1); 5 = 29. Seat 0's 6 and 3 make
    # 35 and 32, seat 1's 4 makes 33: both go, and seat 2 plays on.
    assert scored(events) == [(0, 2, PLAY), (1, 3, PLAY)]
    assert goes(events) == [0, 1] and game.to_move == 2
    events = play(game, 2, "2d")  # 31 for two; seat 2 is out of cards
    assert scored(events) == [(2, 2, PLAY)]
    assert events[-1] == CountReset(0)
    # 6; 4 = 10; seat 2 has no cards and is skipped; 3 = 13, one for the last card to seat 0.
    events = play(game, 0, "6h") + play(game, 1, "4c")
    assert game.to_move == 0
    events += play(game, 0, "3h")
    assert counts(events) == [6, 10, 13]
    assert scored(events)[0] == (0, 1, LAST)
    # The show: clockwise from the dealer's left, the dealer last, then the crib.
    assert [(seat, crib) for seat, crib, _ in shown(events)] == [
        (1, False),
        (2, False),
        (0, False),
        (0, True),
    ]


def test_four_player_partners_peg_on_one_score_and_show_in_order() -> None:
    # Britannica: "two being partners against the other two, sitting and playing as at whist,
    # and one partner scoring for both".
    game = new_game("four-player", dealer=3)
    deal(game, "tc 6c 2c 3c 4c", "ad 6d 2d 3d 4d", "4h 6h 2h 3h ah", "7s 6s 2s 3s 4s")
    lay_away(game, "4c", "4d", "ah", "4s")
    turn_up(game, "ks")
    events = play_out(game, [(0, "tc"), (1, "ad"), (2, "4h")])  # 10, 11, 15: two to seat 2
    assert [(e.seat, e.side, e.points) for e in events if isinstance(e, Scored)] == [(2, 0, 2)]
    events = play(game, 3, "6s")  # 21
    events += play_rest(game)
    assert game.scores[0] == sum(
        e.points for e in game.events if isinstance(e, Scored) and e.seat % 2 == 0
    )
    assert [(seat, crib) for seat, crib, _ in shown(events)] == [
        (0, False),
        (1, False),
        (2, False),
        (3, False),
        (3, True),
    ]


# --- the show and the end of the game --------------------------------------------------------


def test_show_order_pone_dealer_then_crib_and_the_deal_passes() -> None:
    game = new_game("standard")
    setup(game, ["ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d"], ["kd qd", "3c 4d"], "ks")
    events = play_rest(game)
    # Seat 0 A 8 9 9 + K: a pair (2). Seat 1 2 7 10 J + K: nothing. Crib K Q 3 4 + K: pair (2).
    assert shown(events) == [(0, False, 2), (1, False, 0), (1, True, 2)]
    assert isinstance(events[-1], DealDone) and game.dealer == 0 and game.phase is Phase.DEAL


def test_game_ends_the_moment_the_target_is_reached_in_the_play() -> None:
    game = new_game("standard")
    set_scores(game, 100, 119)
    setup(game, ["ac 8c 9h 9s kd qd", "2s 7d tc jh 3c 4d"], ["kd qd", "3c 4d"], "ks")
    play(game, 0, "8c")
    events = play(game, 1, "7d")  # 15 for two: 121
    assert scored(events) == [(1, 2, PLAY)]
    over = game_over(events)
    assert (over.winner, over.scores) == (1, (100, 121))
    assert isinstance(events[-1], MatchOver) and game.is_over
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(Play(card("9h")))
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(TurnStarter(card("5h")))
    assert game.legal_actions() == []


def test_dealer_out_on_his_hand_never_counts_the_crib() -> None:
    game = new_game("standard")
    set_scores(game, 60, 110)
    setup(game, ["ac 2d 3h ks 4s 7s", "6c 6d 9c 9d qc qh"], ["4s 7s", "qc qh"], "9s")
    events = play_rest(game)
    # A; 6 = 7; 2 = 9; 6 = 15 (2 to seat 1); 3 = 18; 9 = 27; a go to seat 1 (the K and 9 make
    # 37 and 36); K; 9 = 19 and the last card to seat 1: 114. Seat 0 shows 7 (67), seat 1 shows
    # 20 and is out (134, pegged as 121): the crib is never counted.
    assert pegged(events) == [(1, 2, PLAY), (1, 1, GO_), (1, 1, LAST)]
    assert shown(events) == [(0, False, 7), (1, False, 20)]
    assert game_over(events).scores == (67, 121)


# --- skunks, lurches and matches -------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "loser", "skunk", "game_points"),
    [
        ("standard", 91, 0, 1),
        ("standard", 90, 1, 2),  # skunk: the loser below 91 (ACC)
        ("standard", 61, 1, 2),
        ("standard", 60, 2, 4),  # double skunk: below 61
        ("standard", 0, 2, 4),
        ("short", 31, 0, 1),
        ("short", 30, 1, 2),  # 61 up: skunk below 31
        ("short", 1, 1, 2),
        ("short", 0, 2, 4),  # double skunk only at 0
        ("five-card", 30, 0, 1),
        ("five-card", 29, 1, 2),  # Britannica: "fails to obtain thirty holes": a double
        ("five-card", 0, 1, 2),  # and no double skunk
        ("three-player", 31, 0, 1),
        ("three-player", 30, 1, 2),
        ("three-player", 0, 2, 4),
        ("four-player", 91, 0, 1),
        ("four-player", 90, 1, 2),
        ("four-player", 60, 2, 4),
        ("hoyle-lurch", 61, 0, 1),
        ("hoyle-lurch", 60, 1, 2),  # Hoyle: "If the loser fails to reach 61, he is lurched"
        ("hoyle-lurch", 0, 1, 2),  # and there is no double lurch
    ],
)
def test_skunk_and_lurch_lines(preset: str, loser: int, skunk: int, game_points: int) -> None:
    rules = find_rules(preset)
    game = new_game(rules, dealer=1)
    scores = [loser] * rules.sides
    scores[1] = rules.target - 2  # the dealer's side goes out on his heels
    if rules.sides == 3:
        scores[2] = 0  # the best of the losers decides
    set_scores(game, *scores)
    over = game_over(heels_deal(game))
    assert (over.winner, over.skunk, over.game_points) == (1, skunk, game_points)
    assert over.match_points[1] == game_points


def test_three_player_skunk_goes_by_the_best_loser() -> None:
    game = new_game("three-player", dealer=1)
    set_scores(game, 10, 59, 40)
    over = game_over(heels_deal(game))
    assert (over.winner, over.skunk) == (1, 0)  # seat 2's 40 is above the line of 31


def test_match_the_loser_deals_the_next_game_and_skunks_count_double() -> None:
    rules = find_rules("standard").replace(match_games=3)
    game = new_game(rules, dealer=1)
    set_scores(game, 100, 119)
    events = heels_deal(game)
    assert game_over(events).match_points == (0, 1)
    assert not game.is_over and game.game_number == 2
    assert game.phase is Phase.DEAL and game.dealer == 0  # the loser deals first
    assert game.scores == [0, 0]
    set_scores(game, 119, 80)
    events = heels_deal(game)
    over = game_over(events)
    # A skunk (80 < 91) is worth two games: 2 to 1, and the match is won, best of three.
    assert (over.winner, over.skunk, over.game_points, over.match_points) == (0, 1, 2, (2, 1))
    assert events[-1] == MatchOver(0, (2, 1))
    assert game.is_over and game.winner == 0


def test_match_a_double_skunk_can_win_a_best_of_three_at_once() -> None:
    rules = find_rules("standard").replace(match_games=3)
    game = new_game(rules, dealer=1)
    set_scores(game, 50, 119)
    over = game_over(heels_deal(game))
    assert (over.skunk, over.game_points) == (2, 4)
    assert game.is_over and game.winner == 1


def test_match_three_for_last_again_each_game() -> None:
    rules = find_rules("five-card").replace(match_games=3)
    game = new_game(rules, dealer=1)
    set_scores(game, 40, 59)
    events = heels_deal(game)
    # Game 2: seat 0 lost and deals, so seat 1 is the pone and scores three for last.
    assert game.dealer == 0 and game.scores == [0, 3]
    assert scored(events)[-1] == (1, 3, THREE)


# --- counting by hand, and muggins -----------------------------------------------------------


def muggins_deal(**options: object) -> Game:
    """Commentary's muggins hand: seat 0 keeps 2 3 4 6 and the starter is a nine (9 points)."""
    rules = find_rules(str(options.pop("preset", "standard")))
    rules = rules.replace(muggins=bool(options.pop("muggins", True)))
    game = new_game(rules, manual_count=[0, 1])
    setup(game, ["2c 3d 4h 6s ah td", "kc qd 8h 7s ks 3s"], ["ah td", "ks 3s"], "9c")
    play_rest(game)
    return game


def test_manual_count_shows_what_to_count_and_pegs_the_claim() -> None:
    game = muggins_deal()
    assert game.phase is Phase.SHOW and game.to_move == 0
    obs = game.observation(0)
    assert obs.to_count == cards("2c 3d 4h 6s") and not obs.counting_crib
    before = game.scores[0]
    events = claim(game, 0, 9)
    assert scored(events) == [(0, 9, HAND)] and game.scores[0] == before + 9
    assert game.to_move == 1  # no muggins when the count is right


def test_commentary_muggins_2346_with_a_nine_is_nine_not_seven() -> None:
    # Commentary: "He pegs seven points, although the correct total is nine." Counted: 6-9,
    # 2-4-9, 2-3-4-6 (three fifteens, 6) and the run 2-3-4 (3): 9.
    game = muggins_deal()
    events = claim(game, 0, 7)
    assert scored(events) == [(0, 7, HAND)]
    assert game.to_move == 1 and game.pending_muggins == 2
    obs = game.observation(1)
    assert obs.pending_claim == 2 and obs.legal == (Muggins(True), Muggins(False))
    assert game.observation(0).pending_claim is None
    score = game.scores[1]
    events = game.apply(Muggins(True))
    assert scored(events) == [(1, 2, MUGGINS)] and game.scores[1] == score + 2
    # Then the dealer counts his own hand: K Q 8 7 + 9: 7-8 (2) and the run 7-8-9 (3).
    assert game.to_move == 1 and game.observation(1).to_count == cards("7s 8h qd kc")
    events = claim(game, 1, 5)
    assert scored(events) == [(1, 5, HAND)]


def test_an_over_claim_is_final_corrected_and_with_muggins_the_excess_is_the_opponents() -> None:
    # Britannica law 19: "adversary may correct his score, and add points overscored to his
    # own"; ACC practice the same under muggins. The hand is worth 9; claiming 12 pegs 9.
    game = muggins_deal()
    before = list(game.scores)
    events = claim(game, 0, 12)
    assert shown(events) == [(0, False, 9)] and scored(events) == [(0, 9, HAND)]
    assert [e.claimed for e in events if isinstance(e, HandCounted)] == [12]
    assert game.scores[0] == before[0] + 9
    assert game.to_move == 1 and game.pending_muggins == 3  # the excess, the opponent's choice
    assert game.observation(1).pending_claim == 3
    events = game.apply(Muggins(True))
    assert scored(events) == [(1, 3, MUGGINS)] and game.scores[1] == before[1] + 3
    assert game.observation(1).to_count == cards("7s 8h qd kc")  # no second claim for seat 0


def test_an_over_claim_without_muggins_is_corrected_with_no_penalty() -> None:
    game = muggins_deal(muggins=False)
    before = list(game.scores)
    events = claim(game, 0, 29)
    assert scored(events) == [(0, 9, HAND)] and game.scores[0] == before[0] + 9
    assert game.scores[1] == before[1] and game.pending_muggins is None
    assert game.to_move == 1 and game.observation(1).to_count == cards("7s 8h qd kc")


def test_a_claim_outside_0_to_29_is_refused() -> None:
    game = muggins_deal()
    for points in (-1, 30, 1000):
        with pytest.raises(IllegalActionError, match="a claim is 0 to 29"):
            game.apply(Count(points))
    assert game.to_move == 0


def test_muggins_may_be_declined() -> None:
    game = muggins_deal()
    claim(game, 0, 7)
    score = game.scores[1]
    assert game.apply(Muggins(False)) == []
    assert game.scores[1] == score and game.to_move == 1


def test_without_muggins_points_not_claimed_are_simply_lost() -> None:
    game = muggins_deal(muggins=False)
    events = claim(game, 0, 0)
    assert scored(events) == [] and shown(events) == [(0, False, 9)]
    assert game.to_move == 1 and game.pending_muggins is None


def test_muggins_on_the_crib_goes_to_the_dealers_left() -> None:
    game = muggins_deal()
    claim(game, 0, 9)
    claim(game, 1, 5)
    assert game.observation(1).counting_crib
    # The crib A 10 K 3 + 9 counts nothing: claiming 1 pegs nothing, and the pone may take 1.
    events = claim(game, 1, 1)
    assert scored(events) == [] and game.pending_muggins == 1 and game.to_move == 0
    game.apply(Muggins(False))
    assert game.phase is Phase.DEAL


def test_muggins_goes_to_the_next_seat_an_opponent_in_partnership() -> None:
    rules = find_rules("four-player").replace(muggins=True)
    game = new_game(rules, dealer=3, manual_count=[0])
    deal(game, "tc 6c 2c 3c 4c", "ad 6d 2d 3d 4d", "4h 6h 2h 3h ah", "7s 6s 2s 3s 4s")
    lay_away(game, "4c", "4d", "ah", "4s")
    turn_up(game, "ks")
    play_rest(game)
    ((_, _, total),) = shown(claim(game, 0, 0))
    assert total > 0
    assert game.to_move == 1 and game.pending_muggins == total
    events = game.apply(Muggins(True))
    assert next((e.seat, e.side) for e in events if isinstance(e, Scored)) == (1, 1)


def test_muggins_can_win_the_game() -> None:
    game = new_game(find_rules("standard").replace(muggins=True), manual_count=[0])
    set_scores(game, 0, 100)
    setup(game, ["2c 3d 4h 6s ah td", "kc qd 8h 7s ks 3s"], ["ah td", "ks 3s"], "9c")
    play_rest(game)
    set_scores(game, game.scores[0], 119)
    claim(game, 0, 0)
    events = game.apply(Muggins(True))  # nine points: 128, pegged as 121
    assert game_over(events).winner == 1 and game.scores[1] == 121


def test_count_and_muggins_only_in_their_turn() -> None:
    game = muggins_deal()
    with pytest.raises(IllegalActionError, match="show phase"):
        game.apply(Muggins(True))
    with pytest.raises(IllegalActionError, match="a claim is 0 to 29"):
        claim(game, 0, -1)
    fresh = new_game("standard")
    with pytest.raises(IllegalActionError, match="chance step"):
        fresh.apply(Count(0))
