"""Variants of the expert, one change each, for measuring ideas against ``expert-1`` (issue 21).

Each class is expert-1 (the expert of 2026-11-25, which every figure here was measured as a
change to) with one setting moved (`WarmReplies`, `LeadAndSoftReplies`, `MoreGuesses` and
`RefinedEndgame` build on the lead reading the expert adopted), so a figure replays whatever the
expert has become since. Load one in the arena by its ``module:Class`` spec with ``bench`` on
the path, on duplicate deals against the frozen expert (or measure one against the step before
it with ``bench/paired.py``):

    PYTHONPATH=bench cribbage arena --a expert_variants:WinPlay60 --b expert-1 \\
        --games 2000 --duplicate --jobs 2 --seed 1

docs/players.md ("Ideas measured") lists what each scored. Keep a variant here once measured,
so the figure can be reproduced; move what wins into `ExpertPlayer` and re-measure it over
20,000 games.
"""

from __future__ import annotations

import functools
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from cfr_pegging import Solver, deals
from fifteentwo.cards import Card
from fifteentwo.game import Game, Observation
from fifteentwo.players.expert import (
    Choice,
    ExpertPlayer,
    FrozenExpert2Player,
    FrozenExpertPlayer,
)
from fifteentwo.players.knowledge import PIPS, RANK_OF, played_by
from fifteentwo.players.pegging import Guess, PlayModel, guess_hands
from fifteentwo.players.pegtable import keep_likelihood
from fifteentwo.players.position import near_end
from reply_model import probabilities


class NoWinDiscard(FrozenExpertPlayer):
    """Discards by expected points at every score (no win-probability discards near the end)."""

    name = "expert-nowindiscard"
    endgame_discard = -1


class WinPlay60(FrozenExpertPlayer):
    """The play's search values the probability of winning from 60 points out (not 35)."""

    name = "expert-winplay60"
    endgame_play = 60


class WinPlayAll(FrozenExpertPlayer):
    """The play's search values the probability of winning at every score."""

    name = "expert-winplayall"
    endgame_play = 1000


class PegWeightHigh(FrozenExpertPlayer):
    """The kept ranks' pegging value counted half as much again in the discard."""

    name = "expert-peg15"
    peg_weight = 1.5


class PegWeightLow(FrozenExpertPlayer):
    """The kept ranks' pegging value counted at 0.6 in the discard."""

    name = "expert-peg06"
    peg_weight = 0.6


class WarmInference(FrozenExpertPlayer):
    """Guesses weighed by the opponent's plays at a softmax of 1 point (not 0.3): a looser
    reading of an opponent who does not play like the standard heuristic."""

    name = "expert-temp10"
    temperature = 1.0


class SearchedLead(FrozenExpertPlayer):
    """The opening lead searched like every other play instead of taken from the lead table."""

    name = "expert-searchedlead"

    def _opening_leads(self, ranks: tuple[int, ...]) -> dict[int, float] | None:
        return None


class LeadInference(FrozenExpertPlayer):
    """The opponent's opening lead read as a player who leads by the lead table chooses it
    (softmax 0.15 points), not through the standard heuristic: the expert's own leads come
    from that table, so a lead says much more about the hand than the heuristic credits."""

    name = "expert-leadinference"
    lead_temperature = 0.15
    lead_share = 1.0


class LeadInferenceMixed(LeadInference):
    """`LeadInference` hedged: the lead read by the table half the time, by the heuristic the
    other half, for opponents who do not lead by the table (the standard level agrees with the
    table's best lead on 63% of its hands). Adopted: the expert reads leads so since 2026-11-25."""

    name = "expert-leadinference-mixed"
    lead_share = 0.5


class SoftReplies(FrozenExpertPlayer):
    """The opponent's replies in the play's search as a softmax (0.5 points) over the standard
    heuristic's values, not always its best: the search expects what a player who does not
    play exactly like the heuristic might do."""

    name = "expert-softreplies"
    reply_temperature = 0.5


class WarmReplies(LeadInferenceMixed):
    """The lead reading (`LeadInferenceMixed`) with the opponent's replies at a softmax of 1
    point instead of the expert's 0.5: the temperature that best predicts expert-1's own plays
    (log-likelihood -0.79 per decision against -0.84 at 0.5), yet it gained less than 0.5."""

    name = "expert-warmreplies"
    reply_temperature = 1.0


class LeadAndSoftReplies(LeadInferenceMixed):
    """The lead reading and the soft replies (0.5 points): the expert as adopted on 2026-11-25,
    written out here so that later changes to the expert can be measured as one step from it."""

    name = "expert-lead-softreplies"
    reply_temperature = 0.5


class MoreGuesses(LeadAndSoftReplies):
    """`LeadAndSoftReplies` with twice the guesses at the opponent's hand (and twice the
    candidates drawn before weighting): with the budget's guesses the search's choice differs
    from a 512-guess search's in 10-20% of the play's real choices with 5-7 cards out,
    losing 0.027 points a decision by its own values (0.009 with twice the guesses)."""

    name = "expert-moreguesses"
    draws = (128, 128, 128, 112, 96, 80, 64, 48, 48)
    proposals = 800


class RefinedEndgame(MoreGuesses):
    """`MoreGuesses` whose discards near the end count the kept ranks' pegging value and the
    crib's spread in their chance of winning (`refined_endgame`): the expert as adopted later
    on 2026-11-25, written out here like the steps before it."""

    name = "expert-refined-endgame"
    refined_endgame = True


class CFRPlay(FrozenExpert2Player):
    """The end of the play solved as the imperfect-information game it is (issue 33): from
    ``cfr_out`` or fewer cards out (both hands together), away from the end of the game, the
    rest of the play is solved by CFR+ (`cfr_pegging`) on rank-abstracted information sets,
    the opponent's range the expert's own weighted guesses (their ``cfr_theirs`` likeliest rank
    sets) and ours what they can infer of it (``cfr_ours`` weighted guesses from the cards they
    cannot see, by the keep table, our real hand among them); we play the average strategy's
    likeliest card. Elsewhere (and the opening lead, and near the end) the expert's search.
    Built on expert-2 (the expert of 2026-11-26), so the figure replays."""

    name = "expert-cfr"
    cfr_out = 6
    cfr_theirs = 12
    cfr_ours = 8
    cfr_iterations = 24

    def _searched_options(self, obs: Observation, playable: list[Card]) -> list[Choice]:
        rules = obs.rules
        opp = 1 - obs.seat
        out = len(obs.hand) + obs.hand_sizes[opp]
        if (
            out > self.cfr_out
            or not obs.played
            or rules.hand_size != 6
            or not rules.second_series
            or rules.optional_play_after_go
            or near_end(rules, obs.scores, self.endgame_play)
        ):
            return super()._searched_options(obs, playable)
        solved = self.solve(obs)
        if solved is None:
            return super()._searched_options(obs, playable)
        solver, actions, shares = solved
        values = dict(zip(actions, shares, strict=True))
        return self._choices(
            playable, values, f"{{:.0%}} of the equilibrium's plays ({len(solver.deals)} deals)"
        )

    def ranges(
        self, obs: Observation
    ) -> tuple[list[tuple[tuple[int, ...], float]], list[tuple[tuple[int, ...], float]], list[int]]:
        """(our range as they see it, their range as we see it, cards left of each rank)."""
        me, opp = obs.seat, 1 - obs.seat
        starter = obs.starter
        assert starter is not None
        counts = [0] + [4] * 13
        for _, c in obs.played:
            counts[RANK_OF[c.index]] -= 1
        counts[RANK_OF[starter.index]] -= 1
        theirs = sorted(((g.ranks, g.weight) for g in self.guesses(obs)), key=lambda x: -x[1])
        theirs = theirs[: self.cfr_theirs]
        public = {c.index for _, c in obs.played} | {starter.index}
        pool = [i for i in range(52) if i not in public]
        mine = tuple(sorted(RANK_OF[c.index] for c in obs.hand))
        we_deal = obs.dealer == obs.seat

        def prior(kept: Sequence[int]) -> float:
            return keep_likelihood([RANK_OF[c] for c in kept], we_deal)

        rng = random.Random(self.decision_rng(obs).random())
        guesses = guess_hands(
            rng,
            pool,
            len(obs.hand),
            known=[c.index for c in played_by(obs, me)],
            draws=2 * self.cfr_ours,
            prior=prior,
        )
        # We are to play, so (as they know) a card of ours comes in.
        limit = 31 - obs.count
        ours = sorted(
            ((g.ranks, g.weight) for g in guesses if PIPS[min(g.ranks)] <= limit),
            key=lambda x: -x[1],
        )
        ours = ours[: self.cfr_ours] or [(mine, 1.0)]
        if all(h != mine for h, _ in ours):
            ours = [*ours[:-1], (mine, sum(w for _, w in ours) / len(ours))]
        del opp
        return ours, theirs, counts

    def solve(self, obs: Observation) -> tuple[Solver, list[int], list[float]] | None:
        """The solver after its iterations, the root's ranks and their average shares."""
        me, opp = obs.seat, 1 - obs.seat
        ours, theirs, counts = self.ranges(obs)
        dl = deals(ours, theirs, counts)
        mine = tuple(sorted(RANK_OF[c.index] for c in obs.hand))
        if not any(d.ours == mine for d in dl):
            return None
        pile = tuple(RANK_OF[c.index] for c in obs.pile)
        passed = (1 if obs.passed[me] else 0) | (2 if obs.passed[opp] else 0)
        solver = Solver(dl, pile, obs.count, passed)
        solver.run(self.cfr_iterations)
        limit = 31 - obs.count
        actions = sorted({r for r in mine if PIPS[r] <= limit})
        return solver, actions, solver.average((0, mine, ()), actions)


class RefinedDiscard60(FrozenExpert2Player):
    """Issue 33: the refined win-probability discard from 60 points out (not 35), a change to
    expert-2: positional play (when to keep a hand that pegs, when to throw the crib points)
    where the game is not yet near its end."""

    name = "expert-refined60"
    endgame_discard = 60


class RefinedDiscardAll(FrozenExpert2Player):
    """Issue 33: the refined win-probability discard at every score, a change to expert-2."""

    name = "expert-refinedall"
    endgame_discard = 1000


class WinPlayAll2(FrozenExpert2Player):
    """Issue 33: the play's search values the probability of winning at every score (not only
    within 35 points), a change to expert-2 (`WinPlayAll` was the same change to expert-1)."""

    name = "expert-winplayall2"
    endgame_play = 1000


@functools.cache
def _learned_weights() -> tuple[float, ...]:
    """The reply model's weights (`reply_model.py fit ... --out bench/reply_weights.json`)."""
    data = json.loads(Path(__file__).with_name("reply_weights.json").read_text())
    return tuple(float(w) for w in data["weights"])


def learned_model(  # noqa: PLR0917 - a PlayModel's arguments
    hand: tuple[int, ...],
    pile: tuple[int, ...],
    count: int,
    counts: list[int],
    unseen: int,
    k: int,
) -> dict[int, float]:
    """The learned model of a strong player's plays, as a `PlayModel`."""
    return probabilities((hand, pile, count, tuple(counts), unseen, k), _learned_weights())


class _LearnedModel:
    """Mixed into an expert: the opponent's plays read, and their replies predicted in the
    search, by `learned_model`."""

    def play_model(self) -> PlayModel:
        return learned_model

    def reply_model(self) -> PlayModel | None:
        return learned_model


class LearnedReplies(_LearnedModel, FrozenExpert2Player):
    """Issue 33: the opponent's plays read, and their replies predicted in the search, by a
    model learned from the experts' own plays (`reply_model.py`) instead of the standard
    heuristic at a temperature; a change to expert-2."""

    name = "expert-learned-replies"


class LearnedInference(LearnedReplies):
    """`LearnedReplies` reading the opponent's plays only (the search's replies unchanged)."""

    name = "expert-learned-inference"

    def reply_model(self) -> PlayModel | None:
        return None


class FourTimesGuesses(FrozenExpert2Player):
    """Issue 33: twice expert-2's guesses at the opponent's hand (four times expert-1's), and
    twice the candidates drawn before weighting: the last doubling gained +0.020 wins per pair
    over expert-1 (docs/players.md), and the decision budget (median 20 ms, p99 200 ms) has
    room for another."""

    name = "expert-fourtimesguesses"
    draws = tuple(2 * d for d in FrozenExpert2Player.draws)
    proposals = 2 * FrozenExpert2Player.proposals


def _game_in_play() -> Game:
    """The `Game` being played by the caller's `play_game` loop, found on the stack: for
    `SeesTheirCards` alone, a measurement that must see what no player may."""
    frame = sys._getframe(1)
    while frame is not None:
        game = frame.f_locals.get("game")
        if isinstance(game, Game):
            return game
        frame = frame.f_back  # type: ignore[assignment]
    raise RuntimeError("SeesTheirCards plays only inside play_game")


class SeesTheirCards(FrozenExpert2Player):
    """Issue 33, a bound rather than a player: expert-2 whose play's search is given the
    opponent's real remaining cards (one guess, weight 1) instead of guesses at them, and which
    searches its opening lead with them. Its gain over expert-2 bounds what any better reading
    of the opponent's hand (inference, equilibrium play against a range) can add to the play;
    the replies are still predicted by the heuristic, so a better model of them is not bounded."""

    name = "expert-sees-their-cards"
    seen_from: int | None = None
    """Cards left in both hands together from which it sees theirs (None: from the start);
    before, expert-2's guesses and lead table."""

    def _opening_leads(self, ranks: tuple[int, ...]) -> dict[int, float] | None:
        return None if self.seen_from is None else super()._opening_leads(ranks)

    def guesses(self, obs: Observation, *, endgame: bool = False) -> list[Guess]:
        left = len(obs.hand) + obs.hand_sizes[1 - obs.seat]
        if self.seen_from is not None and left > self.seen_from:
            return super().guesses(obs, endgame=endgame)
        theirs = _game_in_play().observation(1 - obs.seat).hand
        cards = tuple(sorted(c.index for c in theirs))
        return [Guess(tuple(sorted(RANK_OF[c] for c in cards)), cards, 1.0)]


class SeesTheirLastCards(SeesTheirCards):
    """`SeesTheirCards` only once four or fewer cards are left in both hands together (the
    end of the play, where their plays have already said most of what they hold). Splits the
    bound into the end of the play and the rest."""

    name = "expert-sees-their-last-cards"
    seen_from = 4


class SeesTheirCardsFromSix(SeesTheirLastCards):
    """`SeesTheirLastCards` from six cards left in both hands together (after the first card
    of each, or the first two of one)."""

    name = "expert-sees-their-cards-from-six"
    seen_from = 6


class GuessesAndRefined60(FourTimesGuesses):
    """Issue 33: two of the small gains screened on expert-2 together, to see whether they
    add: twice expert-2's guesses (`FourTimesGuesses`, +0.018 alone) and the refined
    win-probability discard from 60 points out (`RefinedDiscard60`, +0.012 alone)."""

    name = "expert-guesses-refined60"
    endgame_discard = 60


class EightTimesGuesses(ExpertPlayer):
    """Issue 33: twice the expert's guesses at the opponent's hand and candidates (eight times
    expert-1's), since the expert's doubling of expert-2's gained +0.021 wins per pair over
    20,000 paired games. Screened on 2026-11-29: -0.006 (-0.051 to +0.039) against the expert,
    its p99 decision 197 ms; not kept (docs/players.md)."""

    name = "expert-eighttimesguesses"
    draws = tuple(2 * d for d in ExpertPlayer.draws)
    proposals = 2 * ExpertPlayer.proposals


class ExpertLearnedReplies(_LearnedModel, ExpertPlayer):
    """Issue 33: `LearnedReplies` (the opponent's plays read, and their replies predicted in
    the search, by the model learned from the experts' own plays) on today's expert, whose
    twice expert-2's guesses it has not been screened with; on expert-2 it scored +0.008
    (-0.047 to +0.063) wins and +0.49 (-0.17 to +1.15) points per pair. Screened on
    2026-11-29 against the expert (`--seed 52` and `--seed 53`, 4,000 paired games): +0.020
    (-0.017 to +0.057) wins and +0.24 (-0.20 to +0.68) points per pair, its p99 decision
    197 ms; not kept (docs/players.md)."""

    name = "expert-learned-replies-2x"
