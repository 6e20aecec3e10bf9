"""The state the app's parts share: settings, key bindings, the session and what is shown."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import App
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.timer import Timer

from fifteentwo.actions import (
    Action,
    Event,
    HandCounted,
)
from fifteentwo.app.coach import Coach
from fifteentwo.app.describe import Describer
from fifteentwo.app.launch import command_hint
from fifteentwo.app.session import Session
from fifteentwo.cards import Card
from fifteentwo.errors import FifteenTwoError
from fifteentwo.game import Observation
from fifteentwo.rules import Rules
from fifteentwo.store import Store
from fifteentwo.tui.model import Mode, TableModel


def saved_message() -> str:
    """Said on quitting a saved game, with the resume command as the user can type it here."""
    return f"Game saved; resume with {command_hint('play --resume')}"


SKUNK_WORDS = ("", "a skunk", "a double skunk")
MAX_OPPONENTS = 3


@dataclass(frozen=True, slots=True)
class Settings:
    """The play options the app itself reads (a `PlayOptions` has them all; tests may stub)."""

    variant: str | None = None
    """Preset name; None asks "Short game (61) or long game (121)?"."""
    quiet: bool = False
    """Shorter log lines (BSD's ``-q``)."""
    explain: bool = False
    """After a counting mistake, show the correct itemized count (BSD's ``-e``)."""
    instructions: bool | None = None
    """Show the rules first; None asks "Do you need instructions?"."""
    coach: bool = False
    """Name the better choice at once after a discard or play that costs points."""
    speed: str = "instant"
    """How long to wait after each computer card, score and counted hand (`SPEEDS`)."""

    @classmethod
    def from_options(cls, options: object) -> Settings:
        """Read the fields this app uses, with defaults for any the options lack."""
        if isinstance(options, Settings):
            return options
        instructions = getattr(options, "instructions", None)
        variant = getattr(options, "variant", None)
        if variant is None and getattr(options, "target", None) is not None:
            variant = "standard"  # a --target alone: the six-card game to it, no short/long
        return cls(
            variant=variant,
            quiet=bool(getattr(options, "quiet", False)),
            explain=bool(getattr(options, "explain", False)),
            instructions=None if instructions is None else bool(instructions),
            coach=bool(getattr(options, "coach", False)),
            speed=str(getattr(options, "speed", "instant")),
        )


@dataclass(frozen=True, slots=True)
class NamedKey:
    """A key the screen names, as data: the key as Textual calls it (``enter``, ``space``,
    ``1``, ``g``) and the name of the action it runs (``continue``, ``pick``, ``lay_away``)."""

    key: str
    action: str


@dataclass(frozen=True, slots=True)
class _StepResult:
    """What a background step brought back: a session, its events, or the engine's refusal."""

    session: Session | None
    events: list[Event]
    error: FifteenTwoError | None = None
    remark: str | None = None
    """The coach's note on the player's action, if it cost points."""
    undone: bool = False
    """The player took back a decision: the table is set again from the session."""


MakeSession = Callable[[Rules], Session]


class AppState(App[int]):
    """The app's key bindings and state: what the game's parts (tui/keys.py, tui/table.py,
    tui/app.py) share."""

    """Cribbage against the computer, as the BSD program plays it, with cards and a pegboard."""

    CSS_PATH = "cribbage.tcss"
    TITLE = "Cribbage"
    ENABLE_COMMAND_PALETTE = False
    # Textual types these as instance variables, so they cannot be annotated ClassVar here.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]  # noqa: RUF012
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012

    # The key help (`?`) is made from these: a tooltip says more than the key bar's word.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "pick(0)", "Pick", key_display="1-6", tooltip="choose a card, or play it"),
        *(Binding(str(n), f"pick({n - 1})", show=False) for n in range(2, 7)),
        Binding("left", "cursor(-1)", "Move", show=False, tooltip="along your hand"),
        Binding("right", "cursor(1)", "Move", show=False, tooltip="along your hand"),
        Binding("space", "choose", "Choose", key_display="␣", tooltip="the card at the cursor"),
        Binding("space", "play_cursor", "Play", key_display="␣", show=False),
        Binding("space", "continue", "Continue", key_display="␣", show=False),
        Binding("enter", "lay_away", "Lay away", key_display="⏎", tooltip="the chosen cards"),
        Binding("enter", "play_cursor", "Play", key_display="⏎"),
        Binding(
            "enter",
            "continue",
            "Continue",
            key_display="⏎",
            tooltip="deal on (in the show: the next hand)",
        ),
        Binding("g", "go", "Go", tooltip="when no card fits (five-card: stop playing on)"),
        Binding("y", "answer(True)", "Yes", tooltip="another game? take muggins?"),
        Binding("n", "answer(False)", "No"),
        Binding("question_mark", "help", "Help", key_display="?", tooltip="these keys"),
        Binding("r", "rules", "Rules", tooltip="the rules of cribbage"),
        Binding("h", "hint", "Hint", tooltip="the best choice here and why (again: the best 3)"),
        Binding(
            "u",
            "undo",
            "Undo",
            tooltip="your last decision (not counting by hand with muggins)",
        ),
        Binding("q", "quit", "Quit", tooltip="the game is saved"),
    ]

    mode: reactive[Mode] = reactive(Mode.START, init=False)

    def __init__(
        self,
        make_session: MakeSession,
        options: object,
        resume: Session | None = None,
        *,
        threaded: bool = True,
        menu: bool = False,
        offer: Session | None = None,
        store: Store | None = None,
    ) -> None:
        super().__init__()
        self.make_session = make_session
        self.options = options
        self.settings = Settings.from_options(options)
        self.resume = resume
        self.menu = menu
        """Open on the start screen (new game, continue, statistics, practice, rules, quit),
        and come back to it after a game instead of quitting."""
        self.offer = offer
        """The saved game the start screen offers to continue."""
        self.store = store
        """The game store: remembered choices and the statistics (None: neither)."""
        self.practice_seed: int | None = None
        """Seed of the practice drills (None: a fresh deal each time; tests fix it)."""
        self.threaded = threaded
        """Run engine steps in a worker thread (off only for debugging)."""
        self.session: Session | None = None
        self.rules: Rules | None = None
        self.describer: Describer | None = None
        self.model = TableModel(sides=2)
        self.obs: Observation | None = None
        self.message = Text()
        self.prompt_keys: tuple[NamedKey, ...] = ()
        """The keys the prompt line names now, each with its action (`NamedKey`)."""
        self.exit_message: str | None = None
        """What was said on quitting (also printed after the app closes)."""
        self.tally: list[int] = []
        """Game points won by each side in this sitting (across "another game")."""
        self.games_played = 0
        self._queue: deque[Event] = deque()
        self._paused = False
        self._selected: set[int] = set()
        self._cursor = 0
        self._hand_key: tuple[object, ...] = ()
        self._busy_timer: Timer | None = None
        self._quit_after_step = False
        self._live_keys: tuple[int, ...] = ()  # (live keys as 0/1, then the cards held)
        self._coach: Coach | None = None
        self._too_small = False
        """The window is below the minimum size: the table is hidden and keys wait."""
        self._pace_timer: Timer | None = None
        self._pacing = False
        """Events are being shown one by one (`Settings.speed`): the table follows the events
        (`TableModel`), not the engine's observation, which is already further on."""
        self.lit: tuple[int, bool, frozenset[Card], str] | None = None
        """The show, counted aloud: the hand being said (seat, is the crib), the cards of the
        combination lit now and its words ("fifteen four")."""
        self._show_steps: list[tuple[str, tuple[Card, ...]]] = []
        self._show_index = 0
        self._show_event: HandCounted | None = None
        self._show_wait = False
        """A hand of the show has been said: the next waits for ⏎."""
        self._held: HandCounted | None = None
        """An opponent's under-counted hand a person here is asked to call muggins on: shown
        with its claim only (the log, its label, the message) until the answer is sent."""
        self._hinted: Observation | None = None
        """The decision the last hint was for (h again there shows the three best)."""

    # --- what the parts call of each other (each is defined in one part) ---------------------

    def _drain(self) -> None:
        raise NotImplementedError  # (defined by a part of the app: tui/app.py)

    def _new_game(self, rules: Rules | None, variant: str | None = None) -> None:
        raise NotImplementedError  # (defined by a part of the app: tui/app.py)

    def _playable(self) -> set[Card]:
        raise NotImplementedError  # (defined by a part of the app: tui/app.py)

    def another_game(self) -> None:
        raise NotImplementedError  # (defined by a part of the app: tui/app.py)

    def _refresh_hand(self) -> None:
        raise NotImplementedError  # (defined by a part of the app: tui/app.py)

    def _refresh_prompt(self) -> None:
        raise NotImplementedError  # (defined by a part of the app: tui/app.py)

    def _step(self, action: Action | None) -> None:
        raise NotImplementedError  # (defined by a part of the app: tui/app.py)

    def _take_back(self) -> None:
        raise NotImplementedError  # (defined by a part of the app: tui/app.py)

    def _show_start(self, note: str | None = None) -> None:
        raise NotImplementedError  # (defined by a part of the app: tui/app.py)

    def _show_on(self) -> None:
        raise NotImplementedError  # (defined by a part of the app: tui/app.py)

    def _stop_pacing(self) -> None:
        """Drop a pending paced step (a new table, a take-back, quitting)."""
        if self._pace_timer is not None:
            self._pace_timer.stop()
            self._pace_timer = None
        self._pacing = False
        self._show_event = None
        self._show_wait = False
        self.lit = None

    def set_message(self, text: str, *, error: bool = False) -> None:
        raise NotImplementedError  # (defined by a part of the app: tui/app.py)

    def _refresh_keys(self) -> None:
        raise NotImplementedError  # (defined by a part of the app: tui/keys.py)
