"""bench/expert_variants.py's bound on what reading the opponent's hand can add to the play:
`SeesTheirCards` searches with the opponent's real remaining cards, `SeesTheirLastCards` only
once four or fewer are left in both hands together (`SeesTheirCardsFromSix`: six)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from fifteentwo.game import CHANCE, Game, Observation
from fifteentwo.players import load_player
from fifteentwo.players.knowledge import RANK_OF
from fifteentwo.players.pegging import Guess
from fifteentwo.rules import find_rules

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import expert_variants


def _recording(bound: type[expert_variants.SeesTheirLastCards], seed: int) -> Any:
    """A ``bound`` player that records each search's guesses."""

    class Recording(bound):  # type: ignore[valid-type,misc]
        def __init__(self, seed: int) -> None:
            super().__init__(seed)
            self.seen: list[tuple[Observation, list[Guess]]] = []

        def guesses(self, obs: Observation, *, endgame: bool = False) -> list[Guess]:
            out: list[Guess] = super().guesses(obs, endgame=endgame)
            self.seen.append((obs, out))
            return out

    return Recording(seed)


@pytest.mark.parametrize(
    "bound", [expert_variants.SeesTheirLastCards, expert_variants.SeesTheirCardsFromSix]
)
def test_the_bound_sees_their_real_cards_only_from_its_point_of_the_play(
    bound: type[expert_variants.SeesTheirLastCards],
) -> None:
    rules = find_rules("standard")
    oracle, other = _recording(bound, 3), load_player("standard", 4)
    seats = [oracle, other]
    game = Game(rules, seed=11)  # (named so: the variant finds the game being played)
    truths: list[tuple[int, ...]] = []
    while not game.is_over and len(oracle.seen) < 60:
        seat = game.to_move
        assert seat is not None
        if seat == CHANCE:
            game.apply(game.sample_chance())
            continue
        truth = tuple(sorted(c.index for c in game.observation(1 - seat).hand))
        before = len(oracle.seen)
        game.apply(seats[seat].choose(game.observation(seat)))
        if len(oracle.seen) > before:
            truths.append(truth)
    late = early = 0
    for (obs, guesses), truth in zip(oracle.seen, truths, strict=True):
        if len(obs.hand) + obs.hand_sizes[1 - obs.seat] <= bound.seen_from:
            late += 1
            assert [(g.cards, g.weight) for g in guesses] == [(truth, 1.0)]
            assert guesses[0].ranks == tuple(sorted(RANK_OF[c] for c in truth))
        else:
            early += 1
            assert len(guesses) > 1  # expert-2's guesses, not the truth
    assert late and early


def test_the_bound_refuses_to_play_outside_a_game() -> None:
    oracle = expert_variants.SeesTheirCards(1)
    with pytest.raises(RuntimeError):
        expert_variants._game_in_play()
    assert oracle.name == "expert-sees-their-cards"


def test_the_combined_screen_is_expert_2_with_both_settings() -> None:
    """`GuessesAndRefined60` (docs/players.md, issue 33's fifth measurement): expert-2 with
    twice its guesses and candidates and the refined discard from 60 points out, nothing else."""
    from fifteentwo.players.expert import FrozenExpert2Player

    GuessesAndRefined60 = expert_variants.GuessesAndRefined60

    assert GuessesAndRefined60.draws == tuple(2 * d for d in FrozenExpert2Player.draws)
    assert GuessesAndRefined60.proposals == 2 * FrozenExpert2Player.proposals
    assert GuessesAndRefined60.endgame_discard == 60
    for name in ("beta", "temperature", "peg_weight", "endgame_play", "lead_temperature",
                 "lead_share", "reply_temperature", "refined_endgame"):  # fmt: skip
        assert getattr(GuessesAndRefined60, name) == getattr(FrozenExpert2Player, name), name
