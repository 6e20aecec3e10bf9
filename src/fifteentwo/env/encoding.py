"""Numbers for learning code: the fixed action space and the observation vector.

Both environments share these, so a policy trained in one runs in the other, and one network
fits every variant: seats and sides are counted from the observer (0 is "me", 1 the next seat
to my left, ...), padded to four, and the variant itself is part of the observation.

The action space is OpenSpiel-style, one index per decision any variant can ask for
(`ACTION_COUNT` = 1463; docs/env.md):

====================  ==========  ==============================================
indices               action      when
====================  ==========  ==============================================
0..51                 play card   the play; card index ``(rank - 1) * 4 + suit``
52                    go          the play, when no card comes in (or, five-card
                                  rules, when declining after a go)
53..104               discard 1   three and four players lay away one card
105..1430             discard 2   two players lay away two: pair ``i < j``
1431..1460            count n     counting one's own show by hand (0..29)
1461, 1462            muggins     take / leave points an opponent missed
====================  ==========  ==============================================

Everything here reads `Observation` only; what is legal is the engine's list.
"""

from __future__ import annotations

from itertools import combinations
from typing import Final

import numpy as np
import numpy.typing as npt

from fifteentwo.actions import GO, Action, Count, Discard, Go, Muggins, Phase, Play
from fifteentwo.cards import Card
from fifteentwo.observation import Observation
from fifteentwo.rules import Rules

__all__ = [
    "ACTIONS",
    "ACTION_COUNT",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "action_index",
    "action_mask",
    "encode",
]

_PLAY0: Final = 0
_GO: Final = 52
_DISCARD1: Final = 53
_DISCARD2: Final = 105
_COUNT0: Final = 1431
_MUGGINS_TAKE: Final = 1461
_MUGGINS_LEAVE: Final = 1462
ACTION_COUNT: Final = 1463
"""Size of the Discrete action space, the same for every variant."""

_PAIRS: Final = tuple(combinations(range(52), 2))
_PAIR_INDEX: Final = {pair: _DISCARD2 + i for i, pair in enumerate(_PAIRS)}


def _all_actions() -> tuple[Action, ...]:
    deck = [Card.from_index(i) for i in range(52)]
    actions: list[Action] = [Play(card) for card in deck]
    actions.append(GO)
    actions += [Discard((card,)) for card in deck]
    actions += [Discard((deck[i], deck[j])) for i, j in _PAIRS]
    actions += [Count(n) for n in range(30)]
    actions += [Muggins(True), Muggins(False)]
    return tuple(actions)


ACTIONS: Final[tuple[Action, ...]] = _all_actions()
"""The engine action of each index (``ACTIONS[action_index(a)] == a``)."""


_SEEN: Final[dict[int, tuple[Action, int]]] = {}
"""Index by ``id`` of actions met before: the engine hands out the same action objects."""


def action_index(action: Action) -> int:
    """The index of an engine action in the fixed action space.

    >>> action_index(Play(Card.parse("5h"))), action_index(GO)
    (18, 52)
    """
    seen = _SEEN.get(id(action))
    if seen is not None and seen[0] is action:
        return seen[1]
    index = _index(action)
    if len(_SEEN) < 8192:  # (the engine's own actions number under 2,000)
        _SEEN[id(action)] = (action, index)
    return index


def _index(action: Action) -> int:
    kind = type(action)
    if kind is Play:
        return action.card.index  # type: ignore[union-attr]
    if kind is Discard:
        cards = action.cards  # type: ignore[union-attr]
        if len(cards) == 1:
            return _DISCARD1 + cards[0].index
        i, j = cards[0].index, cards[1].index
        return _PAIR_INDEX[(i, j) if i < j else (j, i)]
    if kind is Go:
        return _GO
    if kind is Count:
        return _COUNT0 + action.points  # type: ignore[union-attr]
    if kind is Muggins:
        return _MUGGINS_TAKE if action.take else _MUGGINS_LEAVE  # type: ignore[union-attr]
    raise ValueError(f"no index for {action!r} in the action space (cuts are chance steps)")


def action_mask(legal: tuple[Action, ...] | list[Action]) -> npt.NDArray[np.int8]:
    """1 at the index of every legal action, 0 elsewhere (all 0 when the seat is not to move)."""
    mask = np.zeros(ACTION_COUNT, dtype=np.int8)
    if legal:
        mask[[action_index(a) for a in legal]] = 1
    return mask


# --- observations ---------------------------------------------------------------------------

_PHASES: Final = tuple(Phase)
_SEGMENTS: Final = (
    # 0/1 parts: card sets of 52 (index ``(rank - 1) * 4 + suit``) and one-hot codes
    ("hand", 52, "cards this seat holds"),
    ("kept", 52, "this seat's hand for the show (empty before it discards)"),
    ("discards", 52, "what this seat laid away to the crib"),
    ("starter", 52, "the starter, once turned"),
    ("pile", 52, "cards played since the count was last reset"),
    ("last_ranks", 39, "one-hot rank of the last, second-last and third-last pile card"),
    ("played", 208, "cards played this deal, 52 per relative seat (me, left, ...)"),
    ("shown", 208, "hands shown this deal, 52 per relative seat"),
    ("crib_shown", 52, "the crib, once shown"),
    ("to_count", 52, "the cards this seat must count by hand now"),
    ("dealer", 4, "one-hot relative seat of the dealer"),
    ("to_move", 4, "one-hot relative seat to move (all 0 for chance or game over)"),
    ("phase", len(_PHASES), "one-hot phase: " + ", ".join(p.value for p in _PHASES)),
    ("passed", 4, "relative seats that said go this series"),
    ("players", 3, "one-hot number of seats: 2, 3, 4"),
    # fractions in [0, 1]
    ("count", 1, "the running count / 31"),
    ("scores", 4, "each side's score / target, my side first"),
    ("hand_sizes", 4, "cards each relative seat holds / 6"),
    ("pile_ranks", 13, "the pile's ranks in order, most recent first: rank / 13, 0 empty"),
    (
        "claim",
        3,
        "counting the crib (0/1); a muggins decision (0/1); the points missed or over-claimed / 29",
    ),
    ("target", 1, "points to win / 121"),
    ("variant", 4, "partnerships (0/1), hand size / 6, discard / 2, optional go after a go (0/1)"),
)


def _layout() -> dict[str, slice]:
    out: dict[str, slice] = {}
    at = 0
    for name, size, _ in _SEGMENTS:
        out[name] = slice(at, at + size)
        at += size
    return out


OBSERVATION_LAYOUT: Final[dict[str, slice]] = _layout()
"""Where each named part sits in the observation vector (docs/env.md lists them)."""
OBSERVATION_SIZE: Final = sum(size for _, size, _ in _SEGMENTS)
"""Length of the observation vector (float32, every entry in [0, 1])."""
OBSERVATION_DOC: Final = tuple((name, size, doc) for name, size, doc in _SEGMENTS)
"""(name, length, meaning) of each part, in order."""

_O: Final = {name: part.start for name, part in OBSERVATION_LAYOUT.items()}
_HAND, _KEPT, _DISCARDS, _STARTER = _O["hand"], _O["kept"], _O["discards"], _O["starter"]
_PILE, _LAST_RANKS, _PLAYED, _SHOWN = _O["pile"], _O["last_ranks"], _O["played"], _O["shown"]
_CRIB_SHOWN, _TO_COUNT, _DEALER = _O["crib_shown"], _O["to_count"], _O["dealer"]
_TO_MOVE, _PHASE, _PASSED, _PLAYERS = _O["to_move"], _O["phase"], _O["passed"], _O["players"]
_FRACTIONS: Final = _O["count"]
"""The fractions are one block at the end, filled by one slice assignment."""
_PHASE_AT: Final = {phase: _PHASE + i for i, phase in enumerate(_PHASES)}
_RANK_FRACTION: Final = tuple(((i >> 2) + 1) / 13 for i in range(52))
_NO_RANKS: Final = [0.0] * 13
_LAST: Final = (_LAST_RANKS, _LAST_RANKS + 13, _LAST_RANKS + 26)


class _Seat:
    """What stays put for one seat under one set of rules, worked out once."""

    __slots__ = ("my_side", "n", "played", "rel", "shown", "sides", "tail", "target")

    def __init__(self, rules: Rules, seat: int) -> None:
        n = self.n = rules.players
        self.sides = rules.sides
        self.my_side = rules.side_of(seat)
        self.rel = tuple((s - seat) % n for s in range(n))
        self.played = tuple(_PLAYED + 52 * r for r in self.rel)
        self.shown = tuple(_SHOWN + 52 * r for r in self.rel)
        self.target = 1 / rules.target
        self.tail = [
            rules.target / 121,
            float(rules.partnerships),
            rules.hand_size / 6,
            rules.discard / 2,
            float(rules.optional_play_after_go),
        ]


_SEATS: Final[dict[tuple[int, int], tuple[Rules, _Seat]]] = {}


def _seat(rules: Rules, seat: int) -> _Seat:
    known = _SEATS.get((id(rules), seat))
    if known is not None and known[0] is rules:
        return known[1]
    if len(_SEATS) > 256:
        _SEATS.clear()
    made = _Seat(rules, seat)
    _SEATS[(id(rules), seat)] = (rules, made)
    return made


def encode(obs: Observation) -> npt.NDArray[np.float32]:
    """The observation vector of one seat's `Observation` (layout in `OBSERVATION_LAYOUT`).

    One list of the entries that are 1 and one block of fractions: two numpy assignments.
    """
    me = obs.seat
    fixed = _seat(obs.rules, me)
    rel = fixed.rel
    hot = [c.index + _HAND for c in obs.hand]
    hot += [c.index + _KEPT for c in obs.kept]
    hot += [c.index + _DISCARDS for c in obs.discards]
    if obs.starter is not None:
        hot.append(obs.starter.index + _STARTER)
    pile = obs.pile
    if pile:
        hot += [c.index + _PILE for c in pile]
        recent = pile[-3:][::-1]
        hot += [at + (c.index >> 2) for at, c in zip(_LAST, recent, strict=False)]
        ranks = [_RANK_FRACTION[c.index] for c in reversed(pile)]
        ranks += _NO_RANKS[len(ranks) :]
    else:
        ranks = _NO_RANKS
    offsets = fixed.played
    hot += [offsets[seat] + c.index for seat, c in obs.played]
    if obs.shown:
        offsets = fixed.shown
        for seat, crib, cards in obs.shown:
            base = _CRIB_SHOWN if crib else offsets[seat]
            hot += [base + c.index for c in cards]
    if obs.to_count:
        hot += [c.index + _TO_COUNT for c in obs.to_count]
    hot.append(_DEALER + rel[obs.dealer])
    to_move = obs.to_move
    if to_move is not None and to_move >= 0:
        hot.append(_TO_MOVE + rel[to_move])
    hot.append(_PHASE_AT[obs.phase])
    passed = obs.passed
    if True in passed:
        hot += [_PASSED + rel[seat] for seat, said in enumerate(passed) if said]
    n = fixed.n
    hot.append(_PLAYERS + n - 2)
    scores = [0.0, 0.0, 0.0, 0.0]
    sides, my_side, scale = fixed.sides, fixed.my_side, fixed.target
    for side, score in enumerate(obs.scores):
        scores[(side - my_side) % sides] = score * scale
    sizes = [0.0, 0.0, 0.0, 0.0]
    for seat, size in enumerate(obs.hand_sizes):
        sizes[rel[seat]] = size / 6
    pending = obs.pending_claim
    claim = [
        float(obs.counting_crib),
        0.0 if pending is None else 1.0,
        0.0 if pending is None else pending / 29,
    ]
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    out[hot] = 1.0
    out[_FRACTIONS:] = [obs.count / 31, *scores, *sizes, *ranks, *claim, *fixed.tail]
    return out
