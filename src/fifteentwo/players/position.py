"""Score awareness in one place: the win probability of a position, where a table covers it.

The expert asks `equity` for P(win) before a deal; everything score-aware (discards near the
end, the play's search near the end) goes through it. The shipped tables
(`fifteentwo.analysis.equity`) cover two-player six-card games to 121 and 61; elsewhere
`equity` returns None and the expert falls back to expected points (still pegging out when it
can, which the search sees directly).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from fifteentwo.rules import Rules

__all__ = ["ENDGAME", "covered", "equity", "equity_function", "near_end", "proxy"]

ENDGAME = 35
"""Points from the target within which the expert plays for the win rather than for points."""


@cache
def covered(rules: Rules) -> bool:
    """Whether an equity table fits these rules (two players, six cards, 121 or 61 up)."""
    if rules.players != 2 or rules.hand_size != 6 or rules.target not in (121, 61):
        return False
    try:
        from fifteentwo.analysis.equity import load_table

        load_table(rules.target)
    except Exception:
        return False
    return True


def equity(rules: Rules, mine: int, theirs: int, my_deal: bool) -> float | None:
    """P(we win) before a deal with these scores (``my_deal``: we deal it), or None when no
    table covers the rules. Scores at or past the target are decided."""
    if mine >= rules.target:
        return 1.0
    if theirs >= rules.target:
        return 0.0
    if not covered(rules):
        return None
    from fifteentwo.analysis.equity import win_probability

    return win_probability(mine, theirs, my_deal, rules.target)


@cache
def equity_function(rules: Rules) -> Callable[[int, int, bool], float]:
    """A fast `equity` for many look-ups (the search's leaves): the table as nested lists,
    or `proxy` where no table covers the rules."""
    target = rules.target
    if not covered(rules):
        return lambda mine, theirs, my_deal: proxy(rules, mine, theirs)
    from fifteentwo.analysis.equity import load_table

    win: list[list[list[float]]] = load_table(target).win.tolist()

    def lookup(mine: int, theirs: int, my_deal: bool) -> float:
        if mine >= target:
            return 1.0
        if theirs >= target:
            return 0.0
        return win[mine][theirs][my_deal]

    return lookup


def proxy(rules: Rules, mine: int, theirs: int) -> float:
    """A rough P(win) where no table exists: half plus the lead as a share of the target."""
    return min(1.0, max(0.0, 0.5 + 0.5 * (mine - theirs) / rules.target))


def near_end(rules: Rules, scores: tuple[int, ...], within: int = ENDGAME) -> bool:
    """Whether some side is within ``within`` points of the target (this deal may decide)."""
    return rules.target - max(scores) <= within
