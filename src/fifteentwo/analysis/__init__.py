"""Analysis: exact discard values and crib tables (docs/analysis.md describes the models).

Layering: this package uses cards, scoring and errors only, never the game engine.
"""

from fifteentwo.analysis.discard import (
    OPPONENT_MODELS,
    AnalysisError,
    CribStats,
    DiscardAnalysis,
    DiscardOption,
    HandStats,
    analyze_discard,
)

__all__ = [
    "OPPONENT_MODELS",
    "AnalysisError",
    "CribStats",
    "DiscardAnalysis",
    "DiscardOption",
    "HandStats",
    "analyze_discard",
]
