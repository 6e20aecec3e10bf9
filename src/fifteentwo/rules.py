"""Variants as data: one frozen `Rules` value describes a game, and named presets cover the
forms in the source texts. Change any field with `Rules.replace` (or `dataclasses.replace`).

>>> r = find_rules("short")
>>> r.target, r.skunk, r.double_skunk
(61, 31, 1)
>>> find_rules("standard").replace(muggins=True).muggins
True
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Final

from fifteentwo.errors import RulesError

__all__ = ["PRESETS", "Rules", "find_rules", "preset_names"]


@dataclass(frozen=True, slots=True)
class Rules:
    """Everything that differs between the forms of cribbage. Checked when created."""

    name: str = "standard"
    """Preset this value came from (informational; a changed field does not rename it)."""
    players: int = 2
    """Seats at the table: 2, 3 or 4."""
    partnerships: bool = False
    """Four players as two sides of partners sitting opposite (seats 0+2 and 1+3)."""
    hand_size: int = 6
    """Cards dealt to each player."""
    discard: int = 2
    """Cards each player lays away to the crib."""
    crib_from_pack: int = 0
    """Cards dealt from the pack straight to the crib (one in the three-player game)."""
    target: int = 121
    """Points that win the game (121 is twice round the board, 61 once)."""
    skunk: int | None = 91
    """A loser whose score is below this loses a double game (a skunk, or the lurch); None: off."""
    double_skunk: int | None = 61
    """A loser below this is double skunked; None: no double skunk."""
    game_points: tuple[int, int, int] = (1, 2, 4)
    """Game (match) points won for a plain win, a skunk and a double skunk."""
    three_for_last: int = 0
    """Points the non-dealer pegs at the start of each game (three for last in five-card)."""
    second_series: bool = True
    """Play on after the first go until all cards are played. False in five-card cribbage."""
    optional_play_after_go: bool = False
    """After the opponents' go, a player who can come in may choose not to (five-card)."""
    muggins: bool = False
    """Points a player fails to claim in the show may be taken by an opponent."""
    match_games: int = 1
    """Best of N games; skunks count as extra game points toward the majority."""
    nobs_in_crib: bool = True
    """His nobs counts in the crib too (some players disallow it)."""

    def __post_init__(self) -> None:
        if self.players not in (2, 3, 4):
            raise RulesError(f"players must be 2, 3 or 4, not {self.players}")
        if self.partnerships and self.players != 4:
            raise RulesError("partnerships need four players")
        crib = self.players * self.discard + self.crib_from_pack
        if crib != 4:
            raise RulesError(f"the crib must have 4 cards, these rules give it {crib}")
        kept = self.hand_size - self.discard
        if kept not in (3, 4):
            raise RulesError(f"each hand must keep 3 or 4 cards, these rules keep {kept}")
        dealt = self.players * self.hand_size + self.crib_from_pack
        if dealt + 1 + 8 > 52:  # the starter, and four cards each side of the cut
            raise RulesError(f"{dealt} cards dealt leave too few to cut for the starter")
        if not 15 <= self.target <= 1000:
            raise RulesError(f"target must be between 15 and 1000, not {self.target}")
        for label, line in (("skunk", self.skunk), ("double_skunk", self.double_skunk)):
            if line is not None and not 0 < line <= self.target:
                raise RulesError(f"{label} line must be between 1 and the target, not {line}")
        if self.double_skunk is not None and (self.skunk is None or self.double_skunk > self.skunk):
            raise RulesError("the double skunk line must be at or below the skunk line")
        if self.match_games < 1 or self.match_games % 2 == 0:
            raise RulesError(f"a match is best of an odd number of games, not {self.match_games}")
        if not 0 <= self.three_for_last < self.target:
            raise RulesError(
                f"three for last must be from 0 to below the target, not {self.three_for_last}"
            )
        if len(self.game_points) != 3 or min(self.game_points) < 1:
            raise RulesError("game_points are three positive numbers: win, skunk, double skunk")

    @property
    def sides(self) -> int:
        """Number of separate scores: players, or 2 with partnerships."""
        return 2 if self.partnerships else self.players

    @property
    def kept(self) -> int:
        """Cards each player keeps for the play and the show."""
        return self.hand_size - self.discard

    def side_of(self, seat: int) -> int:
        """Which score a seat pegs on."""
        return seat % 2 if self.partnerships else seat

    def skunk_level(self, loser_score: int) -> int:
        """0 for a plain loss, 1 for a skunk (lurch), 2 for a double skunk."""
        if self.double_skunk is not None and loser_score < self.double_skunk:
            return 2
        if self.skunk is not None and loser_score < self.skunk:
            return 1
        return 0

    def with_target(self, target: int) -> Rules:
        """The same rules to another target, moving the skunk lines with it.

        The lines keep their distance below the target (30 and 60 for 121 and 61 up), as the
        BSD program and the ACC score them; lines that were off stay off.
        """
        skunk = None if self.skunk is None else max(1, target - (self.target - self.skunk))
        double = None
        if self.double_skunk is not None:
            double = max(1, target - (self.target - self.double_skunk))
        return self.replace(target=target, skunk=skunk, double_skunk=double)

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed, checked again."""
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """All fields, for game records."""
        data = {name: getattr(self, name) for name in _FIELD_NAMES}  # asdict is slow
        data["game_points"] = list(self.game_points)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rules:
        """Rebuild from `to_json`; unknown or missing fields are errors or defaults."""
        if not isinstance(data, dict):
            raise RulesError("rules must be a JSON object")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise RulesError(f"unknown rules field(s): {', '.join(unknown)}")
        values = dict(data)
        if "game_points" in values:
            values["game_points"] = tuple(values["game_points"])
        try:
            return cls(**values)
        except TypeError as exc:
            raise RulesError(f"bad rules: {exc}") from None


_FIELD_NAMES: Final = tuple(f.name for f in dataclasses.fields(Rules))

STANDARD: Final = Rules()
"""Six cards, two each to the crib, 121 up, skunk below 91, double skunk below 61 (ACC)."""

PRESETS: Final[dict[str, Rules]] = {
    "standard": STANDARD,
    "short": STANDARD.replace(name="short", target=61, skunk=31, double_skunk=1),
    "five-card": Rules(
        name="five-card",
        hand_size=5,
        target=61,
        skunk=30,
        double_skunk=None,
        three_for_last=3,
        second_series=False,
        optional_play_after_go=True,
    ),
    "three-player": Rules(
        name="three-player",
        players=3,
        hand_size=5,
        discard=1,
        crib_from_pack=1,
        target=61,
        skunk=31,
        double_skunk=1,
    ),
    "four-player": Rules(name="four-player", players=4, partnerships=True, hand_size=5, discard=1),
    "hoyle-lurch": STANDARD.replace(name="hoyle-lurch", skunk=61, double_skunk=None),
}
"""Named variants; see docs/rules.md for the source of each."""

_ALIASES: Final = {
    "121": "standard",
    "long": "standard",
    "six-card": "standard",
    "61": "short",
    "five": "five-card",
    "5-card": "five-card",
    "three": "three-player",
    "3-player": "three-player",
    "3": "three-player",
    "four": "four-player",
    "4-player": "four-player",
    "4": "four-player",
    "lurch": "hoyle-lurch",
}


def preset_names() -> list[str]:
    """The preset names, in a stable order."""
    return list(PRESETS)


def find_rules(name: str) -> Rules:
    """A preset by name or alias (``standard``, ``short``/``61``, ``five-card``, ...)."""
    key = name.strip().lower().replace("_", "-")
    key = _ALIASES.get(key, key)
    if key not in PRESETS:
        raise RulesError(f"unknown variant {name!r}; choose from {', '.join(PRESETS)}")
    return PRESETS[key]
