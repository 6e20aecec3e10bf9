"""The choices a player makes before a game, and the one place that turns them into a `Session`.

`PlayOptions` is what ``cribbage play`` parsed; both front-ends read it (quiet, explain, whether
to ask for instructions or the game length) and build sessions through `new_session`, so a game
started from the Textual app and one started in plain mode are set up, saved and logged alike.

>>> opts = PlayOptions(variant="short", players=("human", "greedy"), seed=5)
>>> s = new_session(opts, opts.preset_rules())
>>> s.rules.target, [seat.name for seat in s.seats], s.seed
(61, ['You', 'Computer'], 5)
"""

from __future__ import annotations

import contextlib
import json
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

from fifteentwo.actions import GameOver
from fifteentwo.app.session import SeatConfig, Session
from fifteentwo.errors import FifteenTwoError
from fifteentwo.rules import Rules, find_rules

if TYPE_CHECKING:
    from fifteentwo.app.history import History
    from fifteentwo.store import Store

__all__ = [
    "HUMAN",
    "LEVEL_DESCRIPTIONS",
    "SPEEDS",
    "VARIANT_DESCRIPTIONS",
    "Choices",
    "PlayOptions",
    "SessionFactory",
    "default_level",
    "known_levels",
    "new_session",
    "parse_players",
    "remember_choices",
    "remembered_choices",
    "seat_names",
]

HUMAN: Final = "human"
"""The seat spec of a person at the keyboard."""

COMPUTER: Final = "computer"
"""A seat spec meaning "a computer of the chosen (or default) level"."""

_HUMAN_WORDS: Final = frozenset({"human", "h", "you", "me", "person"})
_COMPUTER_WORDS: Final = frozenset({"computer", "cpu", "c", "bot"})
_LEVEL_PREFERENCE: Final = ("expert", "standard", "greedy")
"""The default opponent is the strongest of these that is registered."""
_BY_SEATS: Final = {3: "three-player", 4: "four-player"}


def known_levels() -> dict[str, Callable[[int], object]]:
    """The registered computer levels by name (importing the players package registers them)."""
    import fifteentwo.players  # noqa: F401  (levels may register themselves on import)
    from fifteentwo.players.simple import LEVELS

    return dict(LEVELS)


def default_level() -> str:
    """The strongest registered level, preferring expert, then standard, then greedy."""
    levels = known_levels()
    for name in _LEVEL_PREFERENCE:
        if name in levels:
            return name
    return next(iter(levels))


def check_level(spec: str) -> str:
    """A level name (normalised) or a ``module:Class`` spec that loads; else a clear error."""
    if ":" in spec:
        from fifteentwo.players import check_player

        check_player(spec)  # raises FifteenTwoError naming what is wrong (starts no program)
        return spec
    from fifteentwo.players.base import RETIRED_LEVELS

    name = spec.strip().lower()
    name = RETIRED_LEVELS.get(name, name)
    levels = known_levels()
    if name not in levels:
        raise FifteenTwoError(
            f"unknown level {spec!r}; choose from {', '.join(levels)} or give module:Class"
        )
    return name


def parse_players(text: str) -> tuple[str, ...]:
    """Seat specs from ``human,expert`` (seat order; ``computer`` means the chosen level).

    >>> parse_players("Human, greedy")
    ('human', 'greedy')
    >>> parse_players("you,cpu,cpu")
    ('human', 'computer', 'computer')
    """
    specs: list[str] = []
    for raw in text.split(","):
        word = raw.strip()
        low = word.lower()
        if not word:
            raise FifteenTwoError(f"--players: empty seat in {text!r}")
        if low in _HUMAN_WORDS:
            specs.append(HUMAN)
        elif low in _COMPUTER_WORDS:
            specs.append(COMPUTER)
        else:
            specs.append(word if ":" in word else low)
    if not 2 <= len(specs) <= 4:
        how = ""
        if any(spec.isdigit() for spec in specs):  # ("--players 3": a count, not the seats)
            how = " (list each seat, e.g. human,expert,expert, not how many players)"
        raise FifteenTwoError(
            f"--players names {_seats(len(specs))}; a game has 2, 3 or 4 seats{how}"
        )
    return tuple(specs)


def _seats(n: int) -> str:
    """``1 seat``, ``3 seats``."""
    return f"{n} seat" if n == 1 else f"{n} seats"


def seat_names(specs: Sequence[str]) -> list[str]:
    """Names that read well in sentences: ``You``, and the others by where they sit.

    Seat 1 sits on seat 0's left (it plays next), so names follow the first human's view.

    >>> seat_names(["human", "expert"])
    ['You', 'Computer']
    >>> seat_names(["human", "greedy", "greedy", "greedy"])
    ['You', 'Left', 'Partner', 'Right']
    >>> seat_names(["greedy", "human", "human"])
    ['Right', 'You', 'Player 2']
    """
    n = len(specs)
    humans = [i for i, s in enumerate(specs) if s == HUMAN]
    if not humans:
        return [f"{s.rsplit(':', 1)[-1].capitalize()} {i + 1}" for i, s in enumerate(specs)]
    me = humans[0]
    names = []
    for seat, spec in enumerate(specs):
        offset = (seat - me) % n
        if seat == me:
            names.append("You")
        elif spec == HUMAN:
            names.append(f"Player {humans.index(seat) + 1}")
        elif n == 2:
            names.append("Computer")
        elif offset == 1:
            names.append("Left")
        elif offset == n - 1:
            names.append("Right")
        else:
            names.append("Partner")
    return names


LEVEL_DESCRIPTIONS: Final[dict[str, str]] = {
    "random": "lays any legal card: for learning the moves",
    "novice": "a beginner: keeps pairs, misses points, miscounts",
    "greedy": "takes the most points now, ignores the crib",
    "standard": "a club player: sound discards, looks one card ahead",
    "expert": "exact discards, a searched play: the strongest",
    "expert-1": "the expert of 2026-11-25, kept unchanged as a yardstick",
    "expert-2": "the expert of 2026-11-26, kept unchanged as a yardstick",
}
"""One line per computer level, for the start screen (docs/players.md has the detail)."""

VARIANT_DESCRIPTIONS: Final[dict[str, str]] = {
    "standard": "the long game: six cards, to 121",
    "short": "the short game: six cards, to 61",
    "five-card": "the older game: five cards, to 61",
    "three-player": "three players, five cards each, to 61",
    "four-player": "two partnerships, five cards each, to 121",
    "hoyle-lurch": "the long game as Hoyle scores a lurch",
}
"""One line per preset, for the start screen."""

SETTINGS_KEY: Final = "play.options"
"""The store setting that remembers the start screen's last choices (JSON)."""


SPEEDS: Final[dict[str, float]] = {"slow": 1.2, "normal": 0.6, "fast": 0.25, "instant": 0.0}
"""Seconds the full-screen game waits after a computer's card, a score in the play or a hand
counted in the show, before showing the next (instant: no wait; the tests use it)."""


@dataclass(frozen=True, slots=True)
class PlayOptions:
    """Everything ``cribbage play`` lets a player choose; None means "ask" or "the default"."""

    variant: str | None = None
    """A preset name (``standard``, ``short``, ``five-card``, ...); None: ask short or long.
    Set from `players` when that names three or four seats."""
    target: int | None = None
    """Play to this many points instead of the variant's target (skunk lines move with it)."""
    players: tuple[str, ...] | None = None
    """Seat specs in seat order: ``human``, ``computer`` or a level; partners are seats 0+2.
    None: you and computers of `level`."""
    level: str | None = None
    """Level of every ``computer`` seat; None: `default_level()`."""
    seed: int | None = None
    """Seed of the first game; None: a fresh one from the system (the session records it)."""
    muggins: bool | None = None
    """Let opponents take points you fail to claim; None: the variant's own setting (off)."""
    auto_count: bool = True
    """Count your hands for you; False: you claim your totals (the CLI turns this off when
    muggins is on, unless ``--auto-count`` is given)."""
    random_cut: bool = False
    """Cut for you at random instead of asking how deep (BSD ``-r``)."""
    quiet: bool = False
    """Short messages (BSD ``-q``)."""
    explain: bool = False
    """After a wrong count, show the right one item by item (BSD ``-e``)."""
    coach: bool = False
    """After each discard or play that loses more than a little against the expert's best
    choice, say so at once with the better choice."""
    match_games: int = 1
    """Best of N games (skunks count extra); 1 for single games."""
    instructions: bool | None = None
    """Show the rules first: None asks, False never asks (``--no-instructions``)."""
    speed: str = "normal"
    """How fast the full-screen game shows what happens (`SPEEDS`): each computer card, each
    score pegged in the play and each hand of the show waits this long before the next."""

    def __post_init__(self) -> None:
        if self.speed not in SPEEDS:
            raise FifteenTwoError(
                f"--speed must be one of {', '.join(SPEEDS)}, not {self.speed!r}"[:200]
            )
        if self.variant is None and self.players is not None and len(self.players) in _BY_SEATS:
            object.__setattr__(self, "variant", _BY_SEATS[len(self.players)])

    # --- rules ----------------------------------------------------------------------------------

    @property
    def variant_known(self) -> bool:
        """Whether the options fix the variant; otherwise the front-end asks short or long.
        A ``--target`` alone fixes it (the six-card game to that target): asking "short (61) or
        long (121)?" would make no sense."""
        return self.variant is not None or self.target is not None

    def preset_rules(self, variant: str | None = None) -> Rules:
        """The rules for ``variant`` (or the chosen one), with the options' changes applied."""
        name = variant or self.variant
        if name is None and self.target is not None:
            name = "standard"  # the six-card game, to the target given
        if name is None:
            raise FifteenTwoError("no variant chosen: ask short or long first")
        return self.adjust(find_rules(name))

    def adjust(self, rules: Rules) -> Rules:
        """Apply target, muggins and match length to ``rules`` (applying twice changes nothing)."""
        if self.target is not None and rules.target != self.target:
            rules = rules.with_target(self.target)
        changes: dict[str, object] = {}
        if self.muggins is not None:
            changes["muggins"] = self.muggins
        if self.match_games != 1:
            changes["match_games"] = self.match_games
        return rules.replace(**changes) if changes else rules

    # --- seats ----------------------------------------------------------------------------------

    def seat_specs(self, rules: Rules) -> list[str]:
        """One spec per seat (``human`` or a level), checked against the rules."""
        level = check_level(self.level) if self.level else default_level()
        if self.players is None:
            return [HUMAN] + [level] * (rules.players - 1)
        if len(self.players) != rules.players:
            raise FifteenTwoError(
                f"--players names {_seats(len(self.players))}, but the {rules.name} game has "
                f"{_seats(rules.players)}"
            )
        return [
            s if s == HUMAN else level if s == COMPUTER else check_level(s) for s in self.players
        ]

    def seats(self, rules: Rules) -> list[SeatConfig]:
        """The seats of a session under ``rules``."""
        specs = self.seat_specs(rules)
        return [
            SeatConfig(name, human=spec == HUMAN, level="" if spec == HUMAN else spec)
            for name, spec in zip(seat_names(specs), specs, strict=True)
        ]

    def check(self) -> None:
        """Raise `FifteenTwoError` now for options that could never start a game."""
        self.seats(self.preset_rules(None if self.variant_known else "standard"))


def new_session(
    options: PlayOptions,
    rules: Rules,
    *,
    store: Store | None = None,
    history: History | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> Session:
    """A new session under ``rules`` (adjusted by the options), kept in ``store`` as asked.

    With a store, every step is saved and finished games go to the store's history in the
    same transaction; ``history`` (without a store) only logs finished games. A missing seed is
    drawn from the system's random source, so each game differs; the seed used is in the
    session, its save and its record.
    """
    rules = options.adjust(rules)
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**32)
    return Session(
        rules,
        options.seats(rules),
        seed,
        auto_count=options.auto_count,
        random_cut=options.random_cut,
        store=store,
        on_notice=on_notice,
        on_game_over=None if history is None or store is not None else game_logger(history),
    )


def options_like(options: PlayOptions, session: Session) -> PlayOptions:
    """``options`` set to start ``session``'s game again ("another game?"): its seats and
    levels, counting by hand or not, the cut, its target, muggins and match length. The
    finished game is what the player chose, even when it was resumed from another run."""
    rules = session.rules
    return replace(
        options,
        players=tuple(HUMAN if seat.human else seat.level for seat in session.seats),
        auto_count=session.auto_count,
        random_cut=session.random_cut,
        target=rules.target,
        muggins=rules.muggins,
        match_games=rules.match_games,
    )


def game_logger(history: History) -> Callable[[Session, GameOver], None]:
    """An ``on_game_over`` hook that stores each finished game; a failure only warns.

    For sessions without a store; a broken history must never cost the player the game.
    """

    def log(session: Session, event: GameOver) -> None:
        try:
            history.record_game(session, event)
        except FifteenTwoError as exc:
            print(f"warning: {exc}", file=sys.stderr)

    return log


class SessionFactory:
    """``make_session`` for the front-ends: each call starts the next game of this sitting.

    With a fixed seed the games go seed, seed+1, ...; so a sitting replays exactly. Every game
    is a new row in the store: starting one never throws an older saved game away.
    """

    def __init__(
        self,
        options: PlayOptions,
        *,
        store: Store | None = None,
        history: History | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        self.options = options
        self.store = store
        self.history = history
        self.on_notice = on_notice
        self.games_started = 0

    def __call__(self, rules: Rules) -> Session:
        options = self.options
        if options.seed is not None:
            options = replace(options, seed=options.seed + self.games_started)
        self.games_started += 1
        return new_session(
            options, rules, store=self.store, history=self.history, on_notice=self.on_notice
        )

    def another_game(self, last: Session, rules: Rules | None = None) -> Session:
        """The next game of the sitting after ``last``: every setting of that game carries over
        (`carry_over`: rules, muggins, counting by hand, cutting, seats), and its loser deals
        first. ``rules``: other rules chosen for it (a variant given on the command line)."""
        carried = carry_over(self.options, last)
        if rules is not None and rules.players != last.rules.players:
            carried = replace(carried, players=self.options.players)  # other seats: as asked
        self.options = carried
        session = self(rules if rules is not None else last.rules)
        session.kind, session.owner_hint = last.kind, last.owner_hint
        session.deal_after(last)
        return session


def carry_over(options: PlayOptions, last: Session) -> PlayOptions:
    """The options for another game after ``last`` (a game just played or resumed): its
    settings win over the options the sitting began with (`options_like`: seats and levels,
    counting by hand, the cut, target, muggins, match length), and the rules are not offered
    again. Plain mode and `SessionFactory.another_game` use it."""
    return replace(options_like(options, last), instructions=False)


@dataclass(frozen=True, slots=True)
class Choices:
    """What the start screen's new-game form chooses (and the store remembers between runs)."""

    level: str = "expert"
    variant: str = "standard"
    target: int | None = None
    """None: the variant's own target."""
    manual_count: bool = False
    muggins: bool = False
    coach: bool = False
    speed: str = "normal"

    @classmethod
    def from_options(cls, options: PlayOptions) -> Choices:
        """The form's first values from the command line's options."""
        return cls(
            level=options.level if options.level and ":" not in options.level else default_level(),
            variant=options.variant or "standard",
            target=options.target,
            manual_count=not options.auto_count,
            muggins=bool(options.muggins),
            coach=options.coach,
            speed=options.speed,
        )

    def overridden_by(self, options: PlayOptions) -> Choices:
        """These choices with what the command line asked for beyond its defaults
        (``--coach``, ``--muggins``/``--no-muggins``, ``--manual-count``, ``--speed``)."""
        return replace(
            self,
            coach=self.coach or options.coach,
            muggins=self.muggins if options.muggins is None else options.muggins,
            manual_count=self.manual_count or not options.auto_count,
            speed=self.speed if options.speed == "normal" else options.speed,
        )

    def apply(self, options: PlayOptions) -> PlayOptions:
        """``options`` changed to these choices (the rest, like a seed, kept)."""
        return replace(
            options,
            level=self.level,
            variant=self.variant,
            target=self.target,
            players=None,
            auto_count=not self.manual_count,
            muggins=self.muggins,
            coach=self.coach,
            speed=self.speed,
        )

    def to_json(self) -> str:
        return json.dumps(
            {
                "level": self.level,
                "variant": self.variant,
                "target": self.target,
                "manual_count": self.manual_count,
                "muggins": self.muggins,
                "coach": self.coach,
                "speed": self.speed,
            }
        )

    @classmethod
    def from_json(cls, text: str, default: Choices) -> Choices:
        """Remembered choices; anything unreadable or no longer valid falls back to
        ``default`` (a removed level, a renamed variant: never an error at start-up)."""
        from fifteentwo.rules import preset_names

        try:
            data = json.loads(text)
        except ValueError:
            return default
        if not isinstance(data, dict):
            return default
        level = data.get("level")
        variant = data.get("variant")
        target = data.get("target")
        speed = data.get("speed")
        return cls(
            level=level if isinstance(level, str) and level in known_levels() else default.level,
            variant=variant
            if isinstance(variant, str) and variant in preset_names()
            else default.variant,
            target=target
            if isinstance(target, int) and not isinstance(target, bool) and 15 <= target <= 1000
            else default.target,
            manual_count=_flag(data.get("manual_count"), default.manual_count),
            muggins=_flag(data.get("muggins"), default.muggins),
            coach=_flag(data.get("coach"), default.coach),
            speed=speed if isinstance(speed, str) and speed in SPEEDS else default.speed,
        )


def _flag(value: object, default: bool) -> bool:
    return value if isinstance(value, bool) else default


def remembered_choices(store: Store | None, default: Choices) -> Choices:
    """The start screen's last choices from ``store`` (``default`` without one)."""
    if store is None:
        return default
    from fifteentwo.store import StoreError

    try:
        text = store.get_setting(SETTINGS_KEY)
    except StoreError:
        return default
    return default if text is None else Choices.from_json(text, default)


def remember_choices(store: Store | None, choices: Choices) -> None:
    """Keep ``choices`` for the next run; a store that cannot be written only forgets them."""
    if store is None:
        return
    from fifteentwo.store import StoreError

    with contextlib.suppress(StoreError):
        store.set_setting(SETTINGS_KEY, choices.to_json())
