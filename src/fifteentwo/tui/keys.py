"""Key handling: which keys are live in which mode, and what each one does."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding

from fifteentwo.actions import (
    GO,
    Action,
    Discard,
    Muggins,
    Play,
)
from fifteentwo.app.coach import Coach
from fifteentwo.app.launch import command_hint
from fifteentwo.cards import Card
from fifteentwo.tui.model import Mode
from fifteentwo.tui.screens import HelpScreen, RulesScreen, help_notes, keys_help
from fifteentwo.tui.state import (
    AppState,
    NamedKey,
    saved_message,
)
from fifteentwo.tui.texts import (
    _action_parts,
    _cards,
    rules_markdown,
)
from fifteentwo.tui.widgets import (
    EventLog,
)

GAME_ACTIONS = frozenset(
    _action_parts(b.action)[0] for b in AppState.BINDINGS if isinstance(b, Binding)
)
"""The actions of the game's own keys (`check_action` leaves Textual's to Textual)."""


class KeyHandling(AppState):
    """The keys and the card picks of the app."""

    def _refresh_keys(self) -> None:
        """Redraw the footer's keys, only when the live ones changed (redrawing it is slow)."""
        live = (
            *(
                bool(self.check_action(*_action_parts(b.action)))
                for b in self.BINDINGS
                if isinstance(b, Binding) and b.show
            ),
            len(self._hand_cards()),  # the footer says "1-4" when four cards are held
        )
        if live != self._live_keys:
            self._live_keys = live
            self.refresh_bindings()

    def get_key_display(self, binding: Binding) -> str:
        """The number keys as the hand has them: ``1-6`` with six cards, ``1-4`` with four."""
        if binding.action.startswith("pick("):
            held = len(self._hand_cards())
            return "1" if held == 1 else f"1-{max(held, 1)}"
        return super().get_key_display(binding)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Whether a key's action can act now; False hides it from the footer as well, so the
        footer never names a key that would do nothing."""
        if self._too_small:  # nothing can be seen: only quitting (the game is saved)
            return action == "quit"
        if action not in GAME_ACTIONS:
            return True  # Textual's own (tab between a form's fields, ...)
        if len(self.screen_stack) > 1:  # the rules, the help or a question is up
            return action in ("quit", "help") and not isinstance(self.screen, HelpScreen)
        mode = self.mode
        if action in ("pick", "cursor", "hint"):
            return mode in (Mode.DISCARD, Mode.PLAY)
        if action == "undo":
            live = mode in (Mode.DISCARD, Mode.PLAY, Mode.CUT, Mode.COUNT, Mode.PAUSE)
            return live and self.session is not None and self.session.cannot_undo() is None
        if action in ("choose", "lay_away"):
            return mode is Mode.DISCARD
        if action == "play_cursor":
            return mode is Mode.PLAY
        if action == "continue":
            return mode is Mode.PAUSE or self._show_wait or self._show_event is not None
        if action == "go":
            return mode is Mode.PLAY  # (with a playable card, g says why not)
        if action == "answer":
            return mode in (Mode.OVER, Mode.MUGGINS)
        return True

    def footer_keys(self) -> tuple[NamedKey, ...]:
        """The keys the footer shows now, as data (the number keys one by one): the same
        bindings, the same checks and the same order as Textual's footer."""
        keys: list[NamedKey] = []
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            if not binding.show or not active.enabled:
                continue
            action = _action_parts(binding.action)[0]
            if action == "pick":
                keys.extend(NamedKey(str(i + 1), action) for i in range(len(self._hand_cards())))
            else:
                keys.append(NamedKey(key, action))
        return tuple(keys)

    # --- actions ------------------------------------------------------------------------------

    def action_pick(self, index: int) -> None:
        """A number key: choose a card to lay away, or play it."""
        obs = self.obs
        if obs is None:
            return
        held = len(self._hand_cards())
        if index >= held:
            keys = "1" if held == 1 else f"1 to {held}"
            self.set_message(f"You hold {_cards(held)}: press {keys}.", error=True)
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
        """Say go, or say why not: a card that can be played must be played."""
        if GO not in self._legal():
            playable = sorted(self._playable())
            if playable:
                describer = self.describer
                named = describer.cards(playable) if describer is not None else str(playable)
                self.set_message(
                    f"You can't say go: you can play {named} (the count stays at 31 or under).",
                    error=True,
                )
            return
        self.set_message("")
        self._step(GO)

    def action_continue(self) -> None:
        """After reading the show: deal on (during the show: on to the next hand)."""
        if self._show_wait or self._show_event is not None:
            self._show_on()
            return
        self._paused = False
        self.set_message("")
        self._drain()

    def action_answer(self, yes: bool) -> None:
        """y/n: another game, or take muggins."""
        if self.mode is Mode.MUGGINS:
            held, self._held = self._held, None
            if held is not None and self.describer is not None:  # the count, now answered
                verdict = self.describer.claim_verdict(held)
                self.query_one(EventLog).add(Text(verdict, style="italic"))
                self.set_message(verdict)
            self._step(Muggins(yes))
        elif self.mode is Mode.OVER:
            if yes and self.rules is not None:
                self.another_game()
            elif self.menu:
                self._show_start()
            else:
                self._quit_now()

    def action_help(self) -> None:
        """Show the keys of the screen help is asked on (the table's: every key of the game)."""
        screen = self.screen
        if isinstance(screen, HelpScreen):
            return
        source: object = self if screen is self.screen_stack[0] else screen
        title = getattr(source, "help_title", None)
        self.push_screen(
            HelpScreen(
                title() if callable(title) else "Keys",
                keys_help(self, screen),
                help_notes(source),
            )
        )

    def help_title(self) -> str:
        """The key help's heading on the table."""
        return "Keys of the game"

    def help_notes(self) -> list[str]:
        """What the key help says under the table's keys: the mouse, the cut, counting, and how
        to resume a game left with q (as it can be typed here)."""
        return [
            "Mouse: click a card to choose or play it, or a key in the bar.",
            "Cutting: ← → (page up/down by 5) how deep, ⏎ cuts.",
            "Counting by hand: type the points, ⏎ (19 means nothing).",
            f"A game left with q goes on with: {command_hint('play --resume')}",
        ]

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
        """The expert's best choice for the decision at hand, with its value and why; pressed
        again at the same decision, the three best."""
        obs = self.obs
        if obs is None or self.session is None or self.session.waiting_for is None:
            self.set_message("No decision to give a hint for.")
            return
        log = self.query_one(EventLog)
        again = self._hinted == obs  # h again at the same decision: the three best
        self._hinted = obs
        lines = self.coach.hint_lines(obs, top=3 if again else 1)
        log.add(
            Text("Hints:" if again else "Hint (h again: the three best):", style="bold magenta")
        )
        for line in lines:
            log.add(Text(line, style="magenta"))
        self.set_message(lines[0])

    def action_undo(self) -> None:
        """Take back your last decision (and the computer's moves after it), as the terminal's
        plain mode and the browser do: never when counting by hand with muggins. The game is
        kept with its take-backs counted (its record and the history say so)."""
        session = self.session
        if session is None:
            return
        why = session.cannot_undo()
        if why is not None:
            self.set_message(f"Cannot take back: {why}.", error=True)
            return
        self._take_back()

    async def action_quit(self) -> None:
        """Quit; the session is saved (it autosaves after every step, and once more here)."""
        if self.mode is Mode.BUSY and self.session is not None and not self._pacing:
            self._quit_after_step = True  # (the engine is working: quit when it is done)
            return
        self._quit_now()

    def _quit_now(self) -> None:
        self._stop_pacing()
        session = self.session
        message: str | None = None
        if session is not None and not session.is_over:
            try:
                session.save()
            except OSError as exc:
                message = f"Could not save the game: {exc}"
            else:
                message = saved_message() if session.saving else "Game not saved."
                session.release()  # kept in the store; another session may resume it now
        self.exit_message = message
        self.exit(0, message=message)

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
