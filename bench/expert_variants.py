"""Variants of the expert, one change each, for measuring ideas against ``expert-1`` (issue 21).

Each class is the current expert with one setting moved. Load one in the arena by its
``module:Class`` spec with ``bench`` on the path, on duplicate deals against the frozen expert:

    PYTHONPATH=bench cribbage arena --a expert_variants:WinPlay60 --b expert-1 \\
        --games 2000 --duplicate --jobs 2 --seed 1

docs/players.md ("Ideas measured") lists what each scored. Keep a variant here once measured,
so the figure can be reproduced; move what wins into `ExpertPlayer` and re-measure it over
20,000 games.
"""

from __future__ import annotations

from fifteentwo.players.expert import ExpertPlayer


class NoWinDiscard(ExpertPlayer):
    """Discards by expected points at every score (no win-probability discards near the end)."""

    name = "expert-nowindiscard"
    endgame_discard = -1


class WinPlay60(ExpertPlayer):
    """The play's search values the probability of winning from 60 points out (not 35)."""

    name = "expert-winplay60"
    endgame_play = 60


class WinPlayAll(ExpertPlayer):
    """The play's search values the probability of winning at every score."""

    name = "expert-winplayall"
    endgame_play = 1000


class PegWeightHigh(ExpertPlayer):
    """The kept ranks' pegging value counted half as much again in the discard."""

    name = "expert-peg15"
    peg_weight = 1.5


class PegWeightLow(ExpertPlayer):
    """The kept ranks' pegging value counted at 0.6 in the discard."""

    name = "expert-peg06"
    peg_weight = 0.6


class WarmInference(ExpertPlayer):
    """Guesses weighed by the opponent's plays at a softmax of 1 point (not 0.3): a looser
    reading of an opponent who does not play like the standard heuristic."""

    name = "expert-temp10"
    temperature = 1.0


class SearchedLead(ExpertPlayer):
    """The opening lead searched like every other play instead of taken from the lead table."""

    name = "expert-searchedlead"

    def _opening_leads(self, ranks: tuple[int, ...]) -> dict[int, float] | None:
        return None
