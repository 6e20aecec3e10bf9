"""The Textual cribbage app: a table, a pegboard, a log and a prompt over one `Session`.

The engine decides and the app only renders: what may be done comes from the observation's
legal actions, what happened from the session's events, and every refusal from the engine's
own error message. The session's steps run in a worker thread with input off meanwhile, so a
slow computer player never freezes the screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Final

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Input, Static

from fifteentwo.actions import (
    Action,
    CardPlayed,
    Count,
    CountReset,
    Cut,
    DealDone,
    Event,
    GameOver,
    GoSaid,
    HandCounted,
    MatchOver,
    Phase,
    Reason,
    Scored,
    StarterTurned,
)
from fifteentwo.app.counting import parse_count
from fifteentwo.app.describe import Describer, refusal_sentence, rules_name
from fifteentwo.app.options import (
    LEVEL_DESCRIPTIONS,
    SPEEDS,
    Choices,
    PlayOptions,
    SessionFactory,
    known_levels,
    options_like,
    remember_choices,
    remembered_choices,
)
from fifteentwo.app.saves import offer_saved, saved_game_line
from fifteentwo.app.session import Session
from fifteentwo.errors import FifteenTwoError
from fifteentwo.rules import Rules, find_rules, preset_names
from fifteentwo.tui.keys import KeyHandling
from fifteentwo.tui.menu import NewGameScreen, StartScreen
from fifteentwo.tui.model import Mode, TableModel, unread_show
from fifteentwo.tui.practice import PracticeScreen
from fifteentwo.tui.screens import QuestionScreen, RulesScreen
from fifteentwo.tui.state import (
    MAX_OPPONENTS,
    Settings,
    _StepResult,
)
from fifteentwo.tui.statistics import StatisticsScreen
from fifteentwo.tui.table import TableDrawing
from fifteentwo.tui.texts import (
    _game_details,
    rules_markdown,
)
from fifteentwo.tui.widgets import (
    CardRow,
    CountInput,
    CutSlider,
    EventLog,
    HandView,
    Line,
    Pegboard,
)

__all__ = [
    "MIN_HEIGHT",
    "MIN_WIDTH",
    "CribbageApp",
    "Settings",
    "rules_markdown",
]

MIN_WIDTH: Final = 80
MIN_HEIGHT: Final = 24
"""The smallest window the table is laid out for (BSD cribbage's terminal)."""


class CribbageApp(KeyHandling, TableDrawing):
    """Cribbage against the computer, as the BSD program plays it, with cards and a pegboard.

    Its parts: the state and key bindings (tui/state.py), the keys (tui/keys.py), drawing the
    table (tui/table.py); here, the layout, the flow of a game and the input handlers."""

    # --- layout --------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")
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
                # (disabled while hidden: neither can take the focus, nor the game's keys)
                yield CountInput(id="count-input", disabled=True)
                yield CutSlider(id="cut", disabled=True)
            yield Line(id="message")
        yield Footer(compact=True, show_command_palette=False)

    def on_resize(self, event: events.Resize) -> None:
        """Below the minimum size the table would wrap and cut the hand: say so instead, and
        keep the game as it is until the window is large enough again."""
        width, height = event.size
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        notice = self.query_one("#too-small", Static)
        notice.update(
            f"This window is {width}x{height}; the table needs at least "
            f"{MIN_WIDTH}x{MIN_HEIGHT}.\nMake it larger: the game waits as it is "
            "(q saves and quits)."
        )
        notice.display = small
        self._too_small = small
        self._refresh_keys()
        for part in ("#topbar", "#board", "#main", "#prompt-area", "Footer"):
            for widget in self.query(part):
                widget.display = not small

    def on_mount(self) -> None:
        self._refresh()
        if self.resume is not None:
            session, self.resume = self.resume, None
            self._begin(session, [], resumed=True)
        elif self.menu:
            self._show_start()
        else:
            self._ask_instructions()

    # --- the start screen ----------------------------------------------------------------------

    def _show_start(self, note: str | None = None) -> None:
        """The start screen (at launch, and after a game when the player wants no other). The
        store is read again each time, so every saved game left is offered to continue.
        ``note``: a line on what was just done (a practice's summary)."""
        if self.offer is None and self.store is not None:
            self.offer = offer_saved(self.store)
        offer = self.offer
        saved = None if offer is None else saved_game_line(offer)
        self.push_screen(StartScreen(saved, note), self._start_chosen)

    def _start_chosen(self, key: str | None) -> None:
        if key == "n":
            self.push_screen(
                NewGameScreen(self._remembered(), _levels(), preset_names()), self._game_chosen
            )
        elif key == "c" and self.offer is not None:
            session, self.offer = self.offer, None
            self._begin(session, [], resumed=True)
        elif key == "s":
            self.push_screen(StatisticsScreen(self.store), lambda _: self._show_start())
        elif key == "p":
            self.push_screen(PracticeScreen(self.practice_seed), self._show_start)
        elif key == "r":
            self.push_screen(
                RulesScreen(rules_markdown(), back="Back to the menu"), lambda _: self._show_start()
            )
        else:
            self._release_offer()
            self._quit_now()

    def _remembered(self) -> Choices:
        """The new-game form's first values: the last choices made here, else the command
        line's (a flag given on the command line wins over a remembered choice)."""
        options = self.options
        if not isinstance(options, PlayOptions):
            return Choices()
        return remembered_choices(self.store, Choices.from_options(options)).overridden_by(options)

    def _game_chosen(self, choices: Choices | None) -> None:
        """Start the game the form chose (remembering the choices), or back to the start."""
        if choices is None:
            self._show_start()
            return
        remember_choices(self.store, choices)
        self._release_offer()
        if isinstance(self.options, PlayOptions):
            self.options = choices.apply(self.options)
            if isinstance(self.make_session, SessionFactory):
                self.make_session.options = self.options
        self.settings = replace(
            self.settings,
            variant=choices.variant,
            coach=choices.coach,
            speed=choices.speed,
            instructions=False,
        )
        self._new_game(None, choices.variant)

    def _release_offer(self) -> None:
        """The saved game was not continued: let another session resume it later."""
        if self.offer is not None:
            self.offer.release()
            self.offer = None

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
            self.push_screen(
                RulesScreen(rules_markdown(), back="Back"), lambda _: self._ask_variant()
            )
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
                last = self.session
                session = self.make_session(chosen)
                if last is not None:
                    session.deal_after(last)  # another game: the loser deals first
                return _StepResult(session, session.run())
            except FifteenTwoError as exc:
                return _StepResult(None, [], exc)

        self._background(job)

    def _begin(
        self,
        session: Session,
        events: list[Event],
        *,
        resumed: bool = False,
        note: str | None = None,
    ) -> None:
        """Set the table for a session (new, or resumed from its history; ``note`` says why
        the table is set again, for a take-back)."""
        self.session = session
        self.rules = session.rules
        rules = session.rules
        self.describer = Describer(
            rules,
            session.names(),
            session.viewer,
            quiet=self.settings.quiet,
        )
        self.model = TableModel(sides=rules.sides, viewer=session.viewer)
        self._held = None
        self._stop_pacing()
        self._queue.clear()
        self._paused = False
        if len(self.tally) != rules.sides:
            self.tally = [0] * rules.sides
        board = self.query_one(Pegboard)
        board.target = rules.target
        board.names = tuple(self._short_side(s) for s in range(rules.sides))
        log = self.query_one(EventLog)
        title = rules_name(rules)
        unread: list[Event] = []
        if resumed:
            history = session.game.events_for(session.viewer)
            pause = None
            if note is None and not session.is_over and session.waiting_for is not None:
                pause = unread_show(history, session.viewer)  # saved at "The deal is over"
            if pause is not None:
                history, unread = history[: pause + 1], history[pause + 1 :]
            lines: list[Text] = []
            for event in history:
                self._fold(event)
                lines.extend(self._event_texts(event))
            if note is not None:
                log.add(Text(note, style="bold"))
            else:
                self.games_played += 1  # the next game is this sitting's second
                log.add(Text(f"Resuming your game: {title}.", style="bold"))
                for text in lines[-40:]:
                    log.add(text)
        else:
            self.games_played += 1
            log.add(Text(f"Game {self.games_played}: {title}", style="bold underline"))
            log.add(Text(_game_details(session), style="dim"))
        board.set_pegs(self.model.fronts, self.model.backs)
        if unread:  # back at the show the player had not yet dealt on from
            self._queue.extend(unread)
            self._paused = True
            self._settle()
            return
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

    def _take_back(self) -> None:
        """Undo the player's last decision in the background, then set the table again."""
        session = self.session
        assert session is not None
        self.mode = Mode.BUSY

        def job() -> _StepResult:
            try:
                session.undo()
            except FifteenTwoError as exc:
                return _StepResult(session, [], exc)
            return _StepResult(session, [], undone=True)

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
            self.prompt_keys = ()
            self.query_one("#prompt", Line).update(Text("Thinking…", style="italic"))

    def another_game(self) -> None:
        """The same game again, every setting carried over from the one just finished (seats,
        levels, counting by hand, muggins, target: also when that game was resumed)."""
        last = self.session
        if last is not None and isinstance(self.options, PlayOptions):
            self.options = options_like(self.options, last)
            if isinstance(self.make_session, SessionFactory):
                self.make_session.options = self.options
        self.set_message("")
        self._new_game(self.rules)

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
        elif result.undone and result.session is not None:
            self._begin(result.session, [], resumed=True, note="You took back your last decision.")
            self.set_message("You took back your last decision.")
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
        """The engine said no: show why. A refused count is not explained (that would give
        the total away and let muggins be dodged by counting again): the explanation comes
        once a count is accepted (with -e). The engine's words are made a sentence, its cards
        named as the table draws them (``8♠``)."""
        self.set_message(refusal_sentence(str(error)), error=True)

    def _drain(self) -> None:
        """Show queued events in order, stopping after a deal (or a game of a match) to pause.
        At a speed other than instant, each card played, go and hand counted waits its turn
        (a timer), so the player sees the computer's card land, its points called next to it
        and the pegs move; the show goes hand by hand, each combination lit in turn while its
        words are said (`_light`)."""
        self._pace_timer = None
        wait = SPEEDS.get(self.settings.speed, 0.0)
        while self._queue:
            event = self._queue.popleft()
            self._tell(event)
            if isinstance(event, DealDone) or (
                isinstance(event, GameOver)
                and not (self._queue and isinstance(self._queue[0], MatchOver))
            ):
                self._paused = True
                break
            if wait and isinstance(event, HandCounted) and event is not self._held:
                self._count_aloud(event)  # (never a claim to call muggins on: not said)
                return
            if wait and self._queue and _paced(event, self._queue[0]):
                self._pacing = True
                self.query_one(Pegboard).set_pegs(self.model.fronts, self.model.backs)
                self._refresh()
                show = isinstance(self._queue[0], HandCounted)
                self._pace_timer = self.set_timer(wait * (2 if show else 1), self._drain)
                return
        self._pacing = False
        self.query_one(Pegboard).set_pegs(self.model.fronts, self.model.backs)
        self._settle()

    def _tell(self, event: Event) -> None:
        """One event onto the table, into the log and (calls, muggins) onto the message line."""
        self._fold(event)
        log = self.query_one(EventLog)
        for text in self._event_texts(event):
            log.add(text)
        if isinstance(event, CardPlayed | GoSaid | Scored | HandCounted) and self.model.calls:
            self.set_message(self._calls_text())
        if isinstance(event, Scored) and event.reason is Reason.MUGGINS:
            name = self._who(event.seat)
            self.set_message(f"Muggins! {name} took {event.points}.", error=True)
        if isinstance(event, GameOver):
            self._game_finished(event)

    def _fold(self, event: Event) -> None:
        """An event into the table's model; an opponent's under-count that a person here is
        now asked to call muggins on is held: shown with its claim only (`_held`)."""
        self.model.apply(event)
        if isinstance(event, HandCounted) and self._to_call_muggins_on(event):
            self._held = event
            self.model.calls = [(event.seat, f"claims {event.claimed}")]

    def _to_call_muggins_on(self, event: HandCounted) -> bool:
        """Whether ``event`` is the under-counted hand a person at this keyboard must now
        judge (muggins): the last hand counted, while the session waits for that answer."""
        session = self.session
        if session is None or event.claimed >= event.total:
            return False
        seat = session.waiting_for
        if seat is None or session.observation(seat).pending_claim is None:
            return False
        last = next((e for e in reversed(session.game.events) if isinstance(e, HandCounted)), None)
        return event is last

    # --- the show, counted aloud ---------------------------------------------------------------

    def _count_aloud(self, event: HandCounted) -> None:
        """Step through a shown hand: each combination's cards lit while its words are said
        ("fifteen two", "fifteen four", "and a pair is six"), then the total; ⏎ skips on."""
        self._pacing = True
        self._show_steps = list(event.score().steps()) or [("nineteen", ())]
        self._show_index = 0
        self._show_event = event
        self._light()

    def _light(self) -> None:
        event = self._show_event
        if event is None:
            return
        phrase, cards = self._show_steps[self._show_index]
        self.lit = (event.seat, event.crib, frozenset(cards), phrase)
        who = self._crib_owner(event.seat) if event.crib else self._who(event.seat)
        self.set_message(f"{who}: {phrase}")  # (the crib's caption stays short: see the table)
        self._refresh()
        wait = SPEEDS.get(self.settings.speed, 0.0)
        self._pace_timer = self.set_timer(wait, self._next_light)

    def _next_light(self) -> None:
        self._pace_timer = None
        self._show_index += 1
        if self._show_index < len(self._show_steps):
            self._light()
        else:
            self._hand_told()

    def _hand_told(self) -> None:
        """A hand's count is said: its points are pegged, then the next hand waits for ⏎
        (slow and normal speeds) or a moment (fast)."""
        self._show_event = None
        self.lit = None
        self.set_message(self._calls_text())  # the whole count, as said
        while self._queue and isinstance(self._queue[0], Scored):
            self._tell(self._queue.popleft())  # the hand's points (and any muggins)
        self.query_one(Pegboard).set_pegs(self.model.fronts, self.model.backs)
        another = bool(self._queue) and isinstance(self._queue[0], HandCounted)
        speed = self.settings.speed
        if another and speed in ("slow", "normal"):
            self._show_wait = True
            self._refresh()
            self._refresh_keys()
            return
        self._refresh()
        wait = SPEEDS.get(speed, 0.0)
        self._pace_timer = self.set_timer(wait * 2 if another else wait, self._drain)

    def _show_on(self) -> None:
        """⏎ during the show: on to the next hand (or, while a hand is said, to its total)."""
        if self._show_wait:
            self._show_wait = False
            self._refresh_keys()
            self._drain()
        elif self._show_event is not None:
            if self._pace_timer is not None:
                self._pace_timer.stop()
                self._pace_timer = None
            self._hand_told()

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
            if old in (Mode.COUNT, Mode.CUT):
                self._close_entry()  # its keys (⏎ above all) belong to the game again
            return  # otherwise keep the screen as it is: most steps take milliseconds
        self._refresh_keys()
        entry = self.query_one("#entry")
        count_input = self.query_one("#count-input", Input)
        slider = self.query_one(CutSlider)
        entry.display = new in (Mode.COUNT, Mode.CUT)
        count_input.display = new is Mode.COUNT
        count_input.disabled = new is not Mode.COUNT
        slider.display = new is Mode.CUT
        slider.disabled = new is not Mode.CUT
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

    def _close_entry(self) -> None:
        """Hide the count box and the cut slider and take the focus from them: a count or a
        cut once sent, ⏎ and ␣ are the game's keys (the show's "⏎ for the next hand")."""
        self.query_one("#entry").display = False
        count_input = self.query_one("#count-input", Input)
        count_input.value = ""
        count_input.disabled = True
        self.query_one(CutSlider).disabled = True
        if self.focused is not None:
            self.set_focus(None)
        self._refresh_keys()

    @on(HandView.Picked)
    def _card_clicked(self, event: HandView.Picked) -> None:
        if self.check_action("pick", ()):
            self.action_pick(event.index)

    @on(CutSlider.Chosen)
    def _cut_chosen(self, event: CutSlider.Chosen) -> None:
        if self.mode is Mode.CUT:
            self._step(Cut(event.depth))

    @on(Input.Changed, "#count-input")
    def _count_typed(self, event: Input.Changed) -> None:
        """The footer follows the box: r and u are the game's keys only while it is empty."""
        self.refresh_bindings()

    @on(Input.Submitted, "#count-input")
    def _count_submitted(self, event: Input.Submitted) -> None:
        if self.mode is not Mode.COUNT:
            return
        try:
            points = parse_count(event.value)  # digits or words; "nineteen" means nothing
        except ValueError as exc:
            why = str(exc)  # (the shared parser's words, as plain mode says them)
            self.set_message(f"{why[:1].upper()}{why[1:]}, then Enter.", error=True)
            return
        event.input.value = ""
        self.set_message("")
        self._step(Count(points))


def _levels() -> list[str]:
    """The computer levels, weakest first (as the start screen lists them)."""
    known = list(known_levels())
    order = list(LEVEL_DESCRIPTIONS)
    return sorted(known, key=lambda name: order.index(name) if name in order else len(order))


_PACED_NEXT = (CardPlayed, GoSaid, HandCounted)
_SHOWN = (StarterTurned, CardPlayed, GoSaid, Scored, HandCounted, CountReset)


def _paced(event: Event, following: Event) -> bool:
    """Whether to wait between two events: something visible happened, and the next one is a
    card, a go or a hand (so each lands on its own)."""
    return isinstance(event, _SHOWN) and isinstance(following, _PACED_NEXT)
