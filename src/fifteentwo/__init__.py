"""fifteentwo: a cribbage rules engine, analysis toolkit, computer opponent and terminal game.

>>> import fifteentwo
>>> fifteentwo.score_hand("5h 5c 5s jd", "5d").total
29
>>> fifteentwo.peg_points("5h 5c")
2
"""

from fifteentwo.analysis import analyze_discard
from fifteentwo.cards import DECK, Card, Rank, Suit, parse_card, parse_cards
from fifteentwo.errors import (
    CardError,
    FifteenTwoError,
    IllegalActionError,
    RecordError,
    RulesError,
)
from fifteentwo.scoring import (
    HandScore,
    PegScore,
    ScoreItem,
    hand_total,
    his_heels,
    peg_points,
    peg_score,
    score_hand,
)

__version__ = "0.1.0"

__all__ = [
    "DECK",
    "Card",
    "CardError",
    "FifteenTwoError",
    "HandScore",
    "IllegalActionError",
    "PegScore",
    "Rank",
    "RecordError",
    "RulesError",
    "ScoreItem",
    "Suit",
    "__version__",
    "analyze_discard",
    "hand_total",
    "his_heels",
    "parse_card",
    "parse_cards",
    "peg_points",
    "peg_score",
    "score_hand",
]
