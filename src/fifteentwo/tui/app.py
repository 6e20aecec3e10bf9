"""The Textual cribbage app: a table, a pegboard, a log and a prompt over one `Session`.

The engine decides and the app only renders: what may be done comes from the observation's
legal actions, what happened from the session's events, and every refusal from the engine's
own error message. The session's steps run in a worker thread with input off meanwhile, so a
slow computer player never freezes the screen.
"""

from __future__ import annotations

import importlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Footer, Input

from fifteentwo.actions import (
    GO,
    Action,
    Count,
    Cut,
    DealDone,
    Dealt,
    Discard,
    Event,
    GameOver,
    HandCounted,
    MatchOver,
    Muggins,
    Phase,
    Play,
    Reason,
    Scored,
)
from fifteentwo.app.coach import Coach
from fifteentwo.app.describe import Describer
from fifteentwo.app.session import Session
from fifteentwo.cards import Card
from fifteentwo.errors import FifteenTwoError
from fifteentwo.game import Observation
from fifteentwo.rules import Rules, find_rules
from fifteentwo.tui.model import Mode, TableModel
from fifteentwo.tui.render import CardSpec, suit_text
from fifteentwo.tui.screens import HelpScreen, QuestionScreen, RulesScreen
from fifteentwo.tui.widgets import (
    FAN,
    SIDE_COLOURS,
    CardRow,
    CountInput,
    CutSlider,
    EventLog,
    HandView,
    Line,
    Pegboard,
)

__all__ = ["CribbageApp", "Settings"]

SAVED_MESSAGE = "Game saved; resume with cribbage play --resume"
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

    @classmethod
    def from_options(cls, options: object) -> Settings:
        """Read the fields this app uses, with defaults for any the options lack."""
        if isinstance(options, Settings):
            return options
        instructions = getattr(options, "instructions", None)
        return cls(
            variant=getattr(options, "variant", None),
            quiet=bool(getattr(options, "quiet", False)),
            explain=bool(getattr(options, "explain", False)),
            instructions=None if instructions is None else bool(instructions),
            coach=bool(getattr(options, "coach", False)),
        )


@dataclass(frozen=True, slots=True)
class _StepResult:
    """What a background step brought back: a session, its events, or the engine's refusal."""

    session: Session | None
    events: list[Event]
    error: FifteenTwoError | None = None
    remark: str | None = None
    """The coach's note on the player's action, if it cost points."""


MakeSession = Callable[[Rules], Session]


class CribbageApp(App[int]):
    """Cribbage against the computer, as the BSD program plays it, with cards and a pegboard."""

    CSS_PATH = "cribbage.tcss"
    TITLE = "Cribbage"
    ENABLE_COMMAND_PALETTE = False
    # Textual types these as instance variables, so they cannot be annotated ClassVar here.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]  # noqa: RUF012
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "pick(0)", "Pick", key_display="1-6"),
        *(Binding(str(n), f"pick({n - 1})", show=False) for n in range(2, 7)),
        Binding("left", "cursor(-1)", "Move", show=False),
        Binding("right", "cursor(1)", "Move", show=False),
        Binding("space", "choose", "Choose", key_display="␣"),
        Binding("space", "play_cursor", "Play", key_display="␣", show=False),
        Binding("space", "continue", "Continue", key_display="␣", show=False),
        Binding("enter", "lay_away", "Lay away", key_display="⏎"),
        Binding("enter", "play_cursor", "Play", key_display="⏎"),
        Binding("enter", "continue", "Continue", key_display="⏎"),
        Binding("g", "go", "Go"),
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("r", "rules", "Rules"),
        Binding("h", "hint", "Hint"),
        Binding("q", "quit", "Quit"),
    ]

    mode: reactive[Mode] = reactive(Mode.START, init=False)

    def __init__(
        self,
        make_session: MakeSession,
        options: object,
        resume: Session | None = None,
        *,
        threaded: bool = True,
    ) -> None:
        super().__init__()
        self.make_session = make_session
        self.options = options
        self.settings = Settings.from_options(options)
        self.resume = resume
        self.threaded = threaded
        """Run engine steps in a worker thread (off only for debugging)."""
        self.session: Session | None = None
        self.rules: Rules | None = None
        self.describer: Describer | None = None
        self.model = TableModel(sides=2)
        self.obs: Observation | None = None
        self.message = Text()
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
        self._live_keys: tuple[bool, ...] = ()
        self._coach: Coach | None = None

    # --- layout --------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Line(id="topbar")
        yield Pegboard(id="board")
        with Horizontal(id="main"):
            with Vertical(id="table"):
                with Horizontal(id="opponents"):
                    for i in range(MAX_OPPONENTS):
                        yield CardRow(id=f"opponent-{i}", classes="opponent")
                with Horizontal(id="middle"):
                    yield CardRow(id="crib")
                    yield CardRow(id="starter")
                    yield CardRow(id="pile")
                yield Line(id="earlier")
                yield HandView(id="hand")
            yield EventLog(id="log")
        with Vertical(id="prompt-area"):
            yield Line(id="prompt")
            with Horizontal(id="entry"):
                yield CountInput(id="count-input")
                yield CutSlider(id="cut")
            yield Line(id="message")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._refresh()
        if self.resume is not None:
            session, self.resume = self.resume, None
            self._begin(session, [], resumed=True)
        else:
            self._ask_instructions()

    # --- opening questions ---------------------------------------------------------------------

    def _ask_instructions(self) -> None:
        wanted = self.settings.instructions
        if wanted is None:
            self.push_screen(
                QuestionScreen(
                    "Do you need instructions for cribbage? (y/n)", [("y", "Yes"), ("n", "No")]
                ),
                lambda answer: self._after_instructions(answer == "y"),
            )
        else:
            self._after_instructions(wanted)

    def _after_instructions(self, wanted: bool) -> None:
        if wanted:
            self.push_screen(RulesScreen(rules_markdown()), lambda _: self._ask_variant())
        else:
            self._ask_variant()

    def _ask_variant(self) -> None:
        if self.settings.variant is not None:
            self._new_game(None, self.settings.variant)
            return
        self.push_screen(
            QuestionScreen(
                "Short game (61) or long game (121)? (s/l)",
                [("s", "Short (61)"), ("l", "Long (121)")],
            ),
            lambda answer: self._new_game(None, "short" if answer == "s" else "standard"),
        )

    def _rules_for(self, variant: str) -> Rules:
        """The preset with the options' changes (target, muggins, match) when they can say."""
        preset = getattr(self.options, "preset_rules", None)
        if callable(preset):
            rules = preset(variant)
            if isinstance(rules, Rules):
                return rules
        return find_rules(variant)

    # --- running the session -------------------------------------------------------------------

    def _new_game(self, rules: Rules | None, variant: str | None = None) -> None:
        """Start a game: make its session and run it to the first decision, off the UI thread."""
        self.mode = Mode.BUSY

        def job() -> _StepResult:
            try:
                chosen = rules if rules is not None else self._rules_for(variant or "standard")
                session = self.make_session(chosen)
                return _StepResult(session, session.run())
            except FifteenTwoError as exc:
                return _StepResult(None, [], exc)

        self._background(job)

    def _begin(self, session: Session, events: list[Event], *, resumed: bool = False) -> None:
        """Set the table for a session (new, or resumed from its history)."""
        self.session = session
        self.rules = session.rules
        rules = session.rules
        self.describer = Describer(
            rules,
            session.names(),
            session.viewer,
            quiet=self.settings.quiet,
        )
        self.model = TableModel(sides=rules.sides)
        self._queue.clear()
        self._paused = False
        if len(self.tally) != rules.sides:
            self.tally = [0] * rules.sides
        board = self.query_one(Pegboard)
        board.target = rules.target
        board.names = tuple(self._short_side(s) for s in range(rules.sides))
        log = self.query_one(EventLog)
        title = _game_title(rules)
        if resumed:
            history = session.game.events_for(session.viewer)
            lines: list[Text] = []
            for event in history:
                self.model.apply(event)
                lines.extend(self._event_texts(event))
            log.add(Text(f"Resuming your {title}.", style="bold"))
            for text in lines[-40:]:
                log.add(text)
        else:
            self.games_played += 1
            log.add(Text(f"Game {self.games_played}: {title}", style="bold underline"))
            log.add(Text(_game_details(session), style="dim"))
        board.set_pegs(self.model.fronts, self.model.backs)
        if not session.is_over and session.waiting_for is None:
            self._step(None)
            return
        self._queue.extend(events)
        self._drain()

    def _step(self, action: Action | None) -> None:
        """Send the player's action (or nothing: just run on) to the session in the background."""
        session = self.session
        assert session is not None
        self.mode = Mode.BUSY

        coach = self.coach if self.settings.coach and action is not None else None
        obs = self.obs

        def job() -> _StepResult:
            remark = None
            if coach is not None and action is not None and obs is not None:
                remark = coach.remark(obs, action)  # judged before the engine moves on
            try:
                events = session.run() if action is None else session.act(action)
            except FifteenTwoError as exc:
                return _StepResult(session, [], exc)
            return _StepResult(session, events, remark=remark)

        self._background(job)

    def _background(self, job: Callable[[], _StepResult]) -> None:
        self._busy_timer = self.set_timer(0.25, self._show_busy)
        if self.threaded:
            self._worker(job)
        else:
            self._stepped(job())

    @work(thread=True, group="engine")
    def _worker(self, job: Callable[[], _StepResult]) -> None:
        result = job()
        self.call_from_thread(self._stepped, result)

    def _show_busy(self) -> None:
        if self.mode is Mode.BUSY:
            self.query_one("#prompt", Line).update(Text("Thinking…", style="italic"))

    def _stepped(self, result: _StepResult) -> None:
        """Back on the UI thread with a step's outcome."""
        if self._busy_timer is not None:
            self._busy_timer.stop()
            self._busy_timer = None
        if result.session is None and result.error is not None:
            self._no_game(result.error)
        elif result.session is not None and result.session is not self.session:
            self._begin(result.session, result.events)
        elif result.error is not None:
            self._refused(result.error)
            self._settle()
        else:
            if result.remark is not None:
                self.query_one(EventLog).add(Text(result.remark, style="bold magenta"))
                self.set_message(result.remark)
            self._queue.extend(result.events)
            self._drain()
        if self._quit_after_step:
            self._quit_now()

    def _no_game(self, error: FifteenTwoError) -> None:
        """A game could not be started: say why (and leave, if there was never a game)."""
        if self.session is None:
            self.exit_message = f"error: {error}"
            self.exit(2, return_code=2, message=self.exit_message)
            return
        self.set_message(f"Could not start another game: {error}", error=True)
        self.mode = Mode.OVER
        self._refresh()

    def _refused(self, error: FifteenTwoError) -> None:
        """The engine said no: show why (and, explaining, the right count)."""
        self.set_message(str(error), error=True)
        obs = self.obs
        if (
            self.settings.explain
            and obs is not None
            and obs.to_count
            and obs.starter is not None
            and self.rules is not None
        ):
            shown = HandCounted(
                obs.seat,
                obs.to_count,
                obs.starter,
                obs.counting_crib,
                0,
                0,
                self.rules.nobs_in_crib,
            )
            for text in self._explain(shown):
                self.query_one(EventLog).add(text)

    def _drain(self) -> None:
        """Show queued events in order, stopping after a deal (or a game of a match) to pause."""
        log = self.query_one(EventLog)
        while self._queue:
            event = self._queue.popleft()
            self.model.apply(event)
            for text in self._event_texts(event):
                log.add(text)
            if isinstance(event, Scored) and event.reason is Reason.MUGGINS:
                name = self._who(event.seat)
                self.set_message(f"Muggins! {name} took {event.points}.", error=True)
            if isinstance(event, GameOver):
                self._game_finished(event)
            if isinstance(event, DealDone) or (
                isinstance(event, GameOver)
                and not (self._queue and isinstance(self._queue[0], MatchOver))
            ):
                self._paused = True
                break
        self.query_one(Pegboard).set_pegs(self.model.fronts, self.model.backs)
        self._settle()

    def _settle(self) -> None:
        """Look at the session again and decide what the player is asked."""
        session = self.session
        if session is None:
            return
        self.obs = session.observation()
        obs = self.obs
        if self._paused:
            mode = Mode.PAUSE
        elif session.is_over:
            mode = Mode.OVER
        elif session.waiting_for is None:
            self._step(None)
            return
        elif obs.phase is Phase.DISCARD:
            mode = Mode.DISCARD
        elif obs.phase is Phase.PLAY:
            mode = Mode.PLAY
        elif obs.phase in (Phase.STARTER, Phase.CUT_FOR_DEAL):
            mode = Mode.CUT
        elif obs.phase is Phase.SHOW and obs.pending_claim is not None:
            mode = Mode.MUGGINS
        else:
            mode = Mode.COUNT
        key = (self.model.deal_number, obs.phase, obs.hand)
        if key != self._hand_key:
            self._hand_key = key
            self._selected.clear()
            self._cursor = 0
        self._cursor = min(self._cursor, max(0, len(obs.hand) - 1))
        if mode is Mode.PLAY:
            playable = self._playable()
            if playable and obs.hand[self._cursor] not in playable:
                self._cursor = next(i for i, c in enumerate(obs.hand) if c in playable)
        self.mode = mode
        self._refresh()

    def _game_finished(self, event: GameOver) -> None:
        if event.winner < len(self.tally):
            self.tally[event.winner] += event.game_points

    # --- reactions ----------------------------------------------------------------------------

    def watch_mode(self, old: Mode, new: Mode) -> None:
        if new is Mode.BUSY:
            return  # keep the screen as it is: most steps take milliseconds
        self._refresh_keys()
        entry = self.query_one("#entry")
        count_input = self.query_one("#count-input", Input)
        slider = self.query_one(CutSlider)
        entry.display = new in (Mode.COUNT, Mode.CUT)
        count_input.display = new is Mode.COUNT
        slider.display = new is Mode.CUT
        if new is Mode.COUNT:
            count_input.value = ""
            count_input.focus()
        elif new is Mode.CUT:
            cuts = [a.depth for a in self._legal() if isinstance(a, Cut)]
            if cuts:
                slider.setup(min(cuts), max(cuts))
            slider.focus()
        elif self.focused is not None:
            self.set_focus(None)

    def _refresh_keys(self) -> None:
        """Redraw the footer's keys, only when the live ones changed (redrawing it is slow)."""
        live = tuple(
            bool(self.check_action(*_action_parts(b.action)))
            for b in self.BINDINGS
            if isinstance(b, Binding) and b.show
        )
        if live != self._live_keys:
            self._live_keys = live
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if len(self.screen_stack) > 1:  # the rules, the help or a question is up
            return action in ("quit", "help") and not isinstance(self.screen, HelpScreen)
        mode = self.mode
        if action in ("pick", "cursor", "hint"):
            return mode in (Mode.DISCARD, Mode.PLAY)
        if action in ("choose", "lay_away"):
            return mode is Mode.DISCARD
        if action == "play_cursor":
            return mode is Mode.PLAY
        if action == "continue":
            return mode is Mode.PAUSE
        if action == "go":
            return mode is Mode.PLAY and GO in self._legal()
        if action == "answer":
            return mode in (Mode.OVER, Mode.MUGGINS)
        return True

    # --- actions ------------------------------------------------------------------------------

    def action_pick(self, index: int) -> None:
        """A number key: choose a card to lay away, or play it."""
        obs = self.obs
        if obs is None or index >= len(self._hand_cards()):
            return
        self._cursor = index
        if self.mode is Mode.DISCARD:
            self._toggle(index)
        elif self.mode is Mode.PLAY:
            self._play(index)

    def action_cursor(self, delta: int) -> None:
        """Move the cursor along the hand."""
        n = len(self._hand_cards())
        if n:
            self._cursor = (self._cursor + delta) % n
            self._refresh_hand()

    def action_choose(self) -> None:
        """Choose (or unchoose) the card under the cursor."""
        self._toggle(self._cursor)

    def action_lay_away(self) -> None:
        """Lay the chosen cards away to the crib."""
        obs, rules = self.obs, self.rules
        if obs is None or rules is None:
            return
        need = rules.discard
        if len(self._selected) != need:
            self.set_message(
                f"Choose {_cards(need)} to lay away ({len(self._selected)} chosen).", error=True
            )
            return
        cards = tuple(obs.hand[i] for i in sorted(self._selected))
        self.set_message("")
        self._step(Discard(cards))

    def action_play_cursor(self) -> None:
        """Play the card under the cursor."""
        self._play(self._cursor)

    def action_go(self) -> None:
        """Say go."""
        self.set_message("")
        self._step(GO)

    def action_continue(self) -> None:
        """After reading the show: deal on."""
        self._paused = False
        self.set_message("")
        self._drain()

    def action_answer(self, yes: bool) -> None:
        """y/n: another game, or take muggins."""
        if self.mode is Mode.MUGGINS:
            self._step(Muggins(yes))
        elif self.mode is Mode.OVER:
            if yes and self.rules is not None:
                self.set_message("")
                self._new_game(self.rules)
            else:
                self._quit_now()

    def action_help(self) -> None:
        """Show the keys."""
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_rules(self) -> None:
        """Show the rules in a pager."""
        if not isinstance(self.screen, RulesScreen):
            self.push_screen(RulesScreen(rules_markdown()))

    @property
    def coach(self) -> Coach:
        """The expert's advice, made on first use."""
        if self._coach is None:
            self._coach = Coach()
        return self._coach

    def action_hint(self) -> None:
        """The expert's top choices for the decision at hand, with values and reasons."""
        obs = self.obs
        if obs is None or self.session is None or self.session.waiting_for is None:
            self.set_message("No decision to give a hint for.")
            return
        log = self.query_one(EventLog)
        lines = self.coach.hint_lines(obs)
        log.add(Text("Hint:", style="bold magenta"))
        for line in lines:
            log.add(Text(line, style="magenta"))
        self.set_message(lines[0])

    async def action_quit(self) -> None:
        """Quit; the session is saved (it autosaves after every step, and once more here)."""
        if self.mode is Mode.BUSY and self.session is not None:
            self._quit_after_step = True
            return
        self._quit_now()

    def _quit_now(self) -> None:
        session = self.session
        message: str | None = None
        if session is not None and not session.is_over:
            try:
                session.save()
            except OSError as exc:
                message = f"Could not save the game: {exc}"
            else:
                message = SAVED_MESSAGE if session.saving else "Game not saved."
                session.release()  # kept in the store; another session may resume it now
        self.exit_message = message
        self.exit(0, message=message)

    @on(HandView.Picked)
    def _card_clicked(self, event: HandView.Picked) -> None:
        if self.check_action("pick", ()):
            self.action_pick(event.index)

    @on(CutSlider.Chosen)
    def _cut_chosen(self, event: CutSlider.Chosen) -> None:
        if self.mode is Mode.CUT:
            self._step(Cut(event.depth))

    @on(Input.Submitted, "#count-input")
    def _count_submitted(self, event: Input.Submitted) -> None:
        if self.mode is not Mode.COUNT:
            return
        try:
            points = int(event.value)
        except ValueError:
            self.set_message("Type your count as a number, then Enter.", error=True)
            return
        event.input.value = ""
        self.set_message("")
        self._step(Count(points))

    # --- helpers ------------------------------------------------------------------------------

    def _legal(self) -> tuple[Action, ...]:
        return self.obs.legal if self.obs is not None else ()

    def _playable(self) -> set[Card]:
        return {a.card for a in self._legal() if isinstance(a, Play)}

    def _hand_cards(self) -> tuple[Card, ...]:
        obs = self.obs
        return obs.hand if obs is not None else ()

    def _toggle(self, index: int) -> None:
        rules = self.rules
        if rules is None or index >= len(self._hand_cards()):
            return
        if index in self._selected:
            self._selected.discard(index)
        elif len(self._selected) < rules.discard:
            self._selected.add(index)
        else:
            self.set_message(
                f"You lay away {_cards(rules.discard)}; unchoose one first.", error=True
            )
            return
        self.set_message("")
        self._refresh_hand()
        self._refresh_prompt()

    def _play(self, index: int) -> None:
        cards = self._hand_cards()
        if index >= len(cards):
            return
        self.set_message("")
        self._step(Play(cards[index]))

    def _short_side(self, side: int) -> str:
        """A side's name for the board and the top bar: partners are "Us" and "Them"."""
        rules, describer, session = self.rules, self.describer, self.session
        if describer is None or rules is None or session is None:
            return str(side)
        if rules.partnerships:
            return "Us" if side == rules.side_of(session.viewer) else "Them"
        return describer.side_name(side)

    def _who(self, seat: int) -> str:
        return self.describer.who(seat) if self.describer is not None else str(seat)

    def set_message(self, text: str, *, error: bool = False) -> None:
        """The line under the prompt: refusals in red, notes plain."""
        self.message = Text(text, style=Style(color="#ff6b6b", bold=True) if error else "")
        self.query_one("#message", Line).update(self.message)

    # --- the log ------------------------------------------------------------------------------

    def _event_texts(self, event: Event) -> list[Text]:
        describer = self.describer
        if describer is None:
            return []
        line = describer.describe(event)
        texts: list[Text] = []
        if isinstance(event, Dealt):
            texts.append(Text(f"── Deal {self.model.deal_number} ──", style="dim"))
        if line is not None:
            texts.append(self._colour_line(line, event))
        if (
            isinstance(event, HandCounted)
            and event.claimed != event.total
            and event.seat == describer.viewer
            and self.settings.explain
        ):
            texts.extend(self._explain(event))
        return texts

    def _colour_line(self, line: str, event: Event) -> Text:
        text = Text(line)
        if self.rules is None:
            return text
        if isinstance(event, Scored):
            colour = SIDE_COLOURS[event.side % len(SIDE_COLOURS)]
            text.stylize(Style(color=colour, bold=event.reason is not Reason.MUGGINS))
            if event.reason is Reason.MUGGINS:
                text.stylize(Style(color="#ffd54f", bold=True))
        elif isinstance(event, HandCounted):
            side = self.rules.side_of(event.seat)
            text.stylize(Style(color=SIDE_COLOURS[side % len(SIDE_COLOURS)]))
        elif isinstance(event, GameOver | MatchOver):
            text.stylize("bold reverse")
        elif isinstance(event, DealDone):
            text.stylize("bold")
        return text

    def _explain(self, event: HandCounted) -> list[Text]:
        """The correct count, item by item."""
        score = event.score()
        what = "crib" if event.crib else "hand"
        out = [Text(f"The {what} counts {score.total}: {score.say()}.", style="italic")]
        for item in score.items:
            cards = " ".join(c.unicode for c in item.cards)
            out.append(Text(f"  {item.kind} {cards}: {item.points}", style="italic dim"))
        return out

    # --- drawing ------------------------------------------------------------------------------

    def _refresh(self) -> None:
        self._refresh_top()
        self._refresh_table()
        self._refresh_hand()
        self._refresh_prompt()

    def _refresh_top(self) -> None:
        session, rules, describer = self.session, self.rules, self.describer
        title = Text("Cribbage", style="bold")
        scores = Text()
        if session is not None and rules is not None and describer is not None:
            title.append(f" · {_game_title(rules)}", style="")
            if self.model.deal_number:
                title.append(f" · deal {self.model.deal_number}", style="dim")
            if rules.match_games > 1 and self.obs is not None:
                match = "-".join(map(str, self.obs.match_points))
                title.append(f" · match {match}", style="dim")
            for side, score in enumerate(self.model.fronts):
                if side:
                    scores.append("  ")
                colour = SIDE_COLOURS[side % len(SIDE_COLOURS)]
                scores.append(f"{self._short_side(side)} {score}", Style(color=colour, bold=True))
        self.query_one("#topbar", Line).update(title, scores)

    def _showing(self) -> bool:
        """Whether hands are face up (the show, or its pause)."""
        return self.mode in (Mode.PAUSE, Mode.OVER) or (
            self.obs is not None and self.obs.phase is Phase.SHOW
        )

    def _refresh_table(self) -> None:
        session, obs, describer, rules = self.session, self.obs, self.describer, self.rules
        model = self.model
        rows = [self.query_one(f"#opponent-{i}", CardRow) for i in range(MAX_OPPONENTS)]
        crib = self.query_one("#crib", CardRow)
        starter = self.query_one("#starter", CardRow)
        pile = self.query_one("#pile", CardRow)
        earlier = self.query_one("#earlier", Line)
        if session is None or obs is None or describer is None or rules is None:
            for row in rows:
                row.display = False
            return
        n = rules.players
        viewer = session.viewer
        others = [(viewer + i) % n for i in range(1, n)]
        showing = self._showing()
        dealt = model.deal_number > 0
        for row, seat in zip(rows, [*others, None, None, None], strict=False):
            row.display = seat is not None
            if seat is None:
                continue
            shown = model.shown.get((seat, False))
            name = Text().append(describer.who(seat), self._seat_style(seat))
            if showing and shown is not None:
                row.label = name + Text(f": {_shown_total(shown)}", style="bold")
                row.cards = tuple(CardSpec(c) for c in shown.cards)
                row.step = None
            else:
                size = obs.hand_sizes[seat] if not self._paused else 0
                label = name.copy()
                if dealt and n == 2:  # with more seats the crib's label names the dealer
                    if seat == model.dealer:
                        label.append(" · dealer", style="dim")
                    label.append(f" · {_cards(size)}", style="dim")
                if obs.passed[seat] and obs.phase is Phase.PLAY:
                    label.append(" · go", style="bold yellow")
                row.label = label
                row.cards = tuple(CardSpec() for _ in range(size))
                row.step = None if n == 2 else 2
        # the crib
        dealer = model.dealer if model.dealer is not None else obs.dealer
        owner = "Your crib" if dealer == viewer else f"{describer.who(dealer)}'s crib"
        if not dealt:
            owner = "Crib"
        shown_crib = model.shown.get((dealer, True))
        if showing and shown_crib is not None:
            crib.label = Text(f"{owner}: {_shown_total(shown_crib)}", style="bold")
            crib.cards = tuple(CardSpec(c) for c in shown_crib.cards)
            crib.step = FAN
        else:
            crib.label = Text(owner, style="bold")
            crib.cards = tuple(CardSpec() for _ in range(model.crib_size)) or (
                CardSpec(empty=True),
            )
            crib.step = 1
        # the starter
        if model.starter is not None:
            starter.label = Text("Starter", style="bold")
            starter.cards = (CardSpec(model.starter),)
        else:
            starter.label = Text("Pack", style="bold")
            starter.cards = (CardSpec(),)
        # the pile and the count
        current = model.pile
        cut = model.cut_for_deal
        first_deal = model.deal_number <= 1 and not model.starter
        if not current.cards and not model.earlier and cut is not None and first_deal:
            pile.label = Text("Cut for deal", style="bold")
            pile.cards = tuple(CardSpec(card) for _, card in cut.cuts)
            pile.step = None
        else:
            count = Text(f"Count {current.count}", style="bold")
            if current.count in (15, 31):
                count.stylize("bold yellow")
            pile.label = count
            pile.cards = tuple(CardSpec(card) for _, card in current.cards) or (
                CardSpec(empty=True),
            )
            pile.step = FAN
        line = Text(no_wrap=True, overflow="ellipsis")
        if model.earlier:
            line.append("Earlier: ", style="dim")
            for i, series in enumerate(model.earlier):
                if i:
                    line.append("  ")
                for _, card in series.cards:
                    line.append_text(suit_text(card))
                    line.append(" ")
                line.append(f"({series.count})", style="dim")
        earlier.update(line)

    def _seat_style(self, seat: int) -> Style:
        rules = self.rules
        side = rules.side_of(seat) if rules is not None else seat
        to_move = self.obs.to_move if self.obs is not None else None
        live = self.mode not in (Mode.PAUSE, Mode.OVER)
        return Style(
            color=SIDE_COLOURS[side % len(SIDE_COLOURS)],
            bold=True,
            underline=live and to_move == seat,
        )

    def _refresh_hand(self) -> None:
        hand = self.query_one(HandView)
        obs, describer, session = self.obs, self.describer, self.session
        if obs is None or describer is None or session is None:
            hand.label = ""
            hand.cards = ()
            return
        viewer = session.viewer
        style = self._seat_style(viewer)
        label = Text().append("You", style)
        mode = self.mode
        shown = self.model.shown.get((viewer, False))
        if mode is Mode.COUNT:
            what = "crib" if obs.counting_crib else "hand"
            label = Text().append(f"Your {what}", style)
            label.append(" to count, with the starter", style="bold")
            cards = tuple(CardSpec(c) for c in obs.to_count)
        elif self._showing() and shown is not None:
            label = Text().append("Your hand", style)
            label.append(f": {_shown_total(shown)}", style="bold")
            cards = tuple(CardSpec(c) for c in shown.cards)
        elif self._paused:
            cards = ()
        elif mode is Mode.OVER and obs.kept:  # the game ended before this hand was shown
            label.append(" · not counted", style="dim")
            cards = tuple(CardSpec(c) for c in obs.kept)
        else:
            if obs.dealer == viewer and self.model.deal_number:
                label.append(" · dealer", style="dim")
            if obs.passed[viewer] and obs.phase is Phase.PLAY:
                label.append(" · go", style="bold yellow")
            playable = self._playable() if mode is Mode.PLAY else None
            cards = tuple(
                CardSpec(
                    c,
                    selected=mode is Mode.DISCARD and i in self._selected,
                    cursor=mode in (Mode.DISCARD, Mode.PLAY) and i == self._cursor,
                    dimmed=playable is not None and c not in playable,
                )
                for i, c in enumerate(obs.hand)
            )
        hand.label = label
        hand.cards = cards
        hand.numbered = mode in (Mode.DISCARD, Mode.PLAY)

    def _refresh_prompt(self) -> None:
        self._refresh_top()
        prompt = self.query_one("#prompt", Line)
        prompt.update(self._prompt_text())

    def _prompt_text(self) -> Text:
        mode, obs, rules, describer = self.mode, self.obs, self.rules, self.describer
        bold = Style(bold=True)
        if mode is Mode.START or obs is None or rules is None or describer is None:
            return Text("Welcome to cribbage.", style=bold)
        if mode is Mode.BUSY:
            return Text("")
        n = len(obs.hand)
        if mode is Mode.DISCARD:
            crib = "your" if obs.dealer == obs.seat else f"{describer.who(obs.dealer)}'s"
            need = rules.discard
            text = Text(f"Lay away {_cards(need)} to {crib} crib: ", style=bold)
            text.append(f"1-{n} or a click to choose, then ⏎ ")
            text.append(f"({len(self._selected)}/{need})", style="dim")
            return text
        if mode is Mode.PLAY:
            text = Text(f"Your play, count {obs.count}: ", style=bold)
            text.append(f"1-{n}, a click, or ←/→ and ⏎")
            if GO in obs.legal:
                text.append(" · g to say go", style="bold yellow")
            return text
        if mode is Mode.CUT:
            what = "for the deal" if obs.phase is Phase.CUT_FOR_DEAL else "for the starter"
            return Text(f"Cut the pack {what}: ←/→ how deep, ⏎ to cut", style=bold)
        if mode is Mode.COUNT:
            what = "crib" if obs.counting_crib else "hand"
            starter = obs.starter.unicode if obs.starter is not None else "?"
            cards = " ".join(c.unicode for c in obs.to_count)
            return Text(f"Count your {what} ({cards} with {starter}): type it, ⏎", style=bold)
        if mode is Mode.MUGGINS:
            missed = obs.pending_claim or 0
            return Text(f"Muggins: take the {missed} points they missed? (y/n)", style=bold)
        if mode is Mode.PAUSE:
            over = self.model.game_over
            if over is not None:
                return Text(f"{self._result_text(over)} ⏎ for the next game.", style=bold)
            return Text("The deal is over: read the show, then ⏎ or ␣ to deal on.", style=bold)
        # Mode.OVER
        over = self.model.game_over
        text = Text(self._result_text(over) if over else "The game is over.", style=bold)
        text.append(" Another game? (y/n)", style="bold yellow")
        return text

    def _result_text(self, over: GameOver) -> str:
        describer = self.describer
        assert describer is not None
        winner = describer.side_name(over.winner)
        plural = self.rules is not None and self.rules.partnerships
        wins = "win" if plural or winner == "You" else "wins"
        score = "-".join(str(s) for s in sorted(over.scores, reverse=True))
        skunk = f", {SKUNK_WORDS[over.skunk]}" if over.skunk else ""
        text = f"{winner} {wins} {score}{skunk}!"
        rules = self.rules
        if rules is not None and rules.match_games > 1:
            match = ", ".join(f"{self._short_side(s)} {p}" for s, p in enumerate(over.match_points))
            text += f" Match: {match}."
        elif self.games_played > 1 or any(self.tally):
            tally = ", ".join(f"{self._short_side(s)} {p}" for s, p in enumerate(self.tally))
            text += f" Game points: {tally}."
        return text


def _game_title(rules: Rules) -> str:
    """``short game to 61``, ``five-card game to 61``, ``long game to 121``."""
    if rules.name in ("standard", "short"):
        name = "short" if rules.target <= 61 else "long"
    else:
        name = rules.name
    match = f", best of {rules.match_games}" if rules.match_games > 1 else ""
    return f"{name} game to {rules.target}{match}"


def _game_details(session: Session) -> str:
    """Who plays and the house rules, as the plain mode's header says them."""
    seats = ", ".join(s.name if s.human else f"{s.name} ({s.level})" for s in session.seats)
    extras = []
    if session.rules.muggins:
        extras.append("muggins")
    if not session.auto_count and session.human_seats:
        extras.append("you count your own hands")
    more = f"; {', '.join(extras)}" if extras else ""
    return f"{seats}{more}. Seed {session.seed}."


def _action_parts(action: str) -> tuple[str, tuple[object, ...]]:
    """``pick(0)`` as ``("pick", ())``: the name is all `check_action` looks at."""
    return action.split("(", 1)[0], ()


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _shown_total(shown: HandCounted) -> str:
    if shown.claimed != shown.total:
        return f"{shown.claimed} (of {shown.total})"
    return str(shown.total)


FALLBACK_RULES = """\
# Cribbage

Two players (or three, or four as partners) race to 121 points (61 in the short game).

**The deal.** Each player gets six cards and lays two away, face down, to the *crib*, which
counts for the dealer. The non-dealer cuts the pack and the dealer turns up the *starter*; a
jack turned pegs 2 for the dealer (*his heels*).

**The play.** Players lay cards in turn, announcing the running count, never past 31. Peg 2 for
making 15 or 31, 2 for a pair, 6 for three of a kind, 12 for four, and 1 a card for runs of
three or more. A player who cannot play says *go*; the other plays on and pegs 1 for the last
card (2 at 31). The count then starts again.

**The show.** Non-dealer's hand counts first, then the dealer's, then the crib, each with the
starter: 2 for each fifteen, 2 for each pair, 1 a card for runs, 4 for a flush in hand (5 with
the starter; a crib flush needs all five), and 1 for the jack of the starter's suit (*his nobs*).

**Winning.** The first to the target wins at once. A loser short of 91 (31 in the short game)
is *skunked* and loses a double game.
"""


def rules_markdown() -> str:
    """The rules as markdown, from `fifteentwo.app.rules_text` once it exists."""
    try:
        module: Any = importlib.import_module("fifteentwo.app.rules_text")
    except ImportError:
        return FALLBACK_RULES
    for name in ("rules_markdown", "RULES_MARKDOWN", "RULES", "rules_text", "TEXT"):
        value = getattr(module, name, None)
        if callable(value):
            value = value()
        if isinstance(value, str) and value.strip():
            return value
    return FALLBACK_RULES
