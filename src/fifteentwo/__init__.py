"""fifteentwo: a cribbage rules engine, analysis toolkit, computer opponent and terminal game.

>>> import fifteentwo
>>> fifteentwo.score_hand("5h 5c 5s jd", "5d").total
29
>>> fifteentwo.peg_points("5h 5c")
2
>>> game = fifteentwo.Game(fifteentwo.find_rules("standard"), seed=1, first_dealer=1)
>>> _ = game.advance()
>>> game.phase, game.to_move, len(game.legal_actions())
(<Phase.DISCARD: 'discard'>, 0, 15)
"""

from fifteentwo.actions import (
    CHANCE,
    GO,
    Action,
    Count,
    Cut,
    DealHands,
    Discard,
    DrawForDeal,
    Go,
    Muggins,
    Phase,
    Play,
    Reason,
    TurnStarter,
)
from fifteentwo.analysis import analyze_discard
from fifteentwo.cards import DECK, Card, Rank, Suit, parse_card, parse_cards
from fifteentwo.errors import (
    CardError,
    FifteenTwoError,
    IllegalActionError,
    RecordError,
    RulesError,
)
from fifteentwo.game import COMPILED, Game, Observation
from fifteentwo.records import game_record, replay
from fifteentwo.rules import Rules, find_rules
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
    "CHANCE",
    "COMPILED",
    "DECK",
    "GO",
    "Action",
    "Card",
    "CardError",
    "Count",
    "Cut",
    "DealHands",
    "Discard",
    "DrawForDeal",
    "FifteenTwoError",
    "Game",
    "Go",
    "HandScore",
    "IllegalActionError",
    "Muggins",
    "Observation",
    "PegScore",
    "Phase",
    "Play",
    "Rank",
    "Reason",
    "RecordError",
    "Rules",
    "RulesError",
    "ScoreItem",
    "Suit",
    "TurnStarter",
    "__version__",
    "analyze_discard",
    "find_rules",
    "game_record",
    "hand_total",
    "his_heels",
    "parse_card",
    "parse_cards",
    "peg_points",
    "peg_score",
    "replay",
    "score_hand",
]
