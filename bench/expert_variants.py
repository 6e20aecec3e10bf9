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

from fifteentwo.players.expert import FrozenExpertPlayer


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
