"""Drawing the table: the log's lines, the top bar, the cards on the table, the hand, the prompt."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from fifteentwo.actions import (
    GO,
    DealDone,
    Dealt,
    Event,
    GameOver,
    HandCounted,
    MatchOver,
    Phase,
    Reason,
    Scored,
)
from fifteentwo.app.describe import rules_name
from fifteentwo.tui.model import Mode
from fifteentwo.tui.render import CardSpec, suit_text
from fifteentwo.tui.state import (
    MAX_OPPONENTS,
    SKUNK_WORDS,
    AppState,
    NamedKey,
)
from fifteentwo.tui.texts import (
    _cards,
    _shown_total,
    number_keys,
)
from fifteentwo.tui.widgets import (
    FAN,
    SIDE_COLOURS,
    CardRow,
    HandView,
    Line,
)


class TableDrawing(AppState):
    """What the app shows, redrawn from the session and its observation."""

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
        if event is self._held:  # muggins to call: the claim alone (the count after)
            assert isinstance(event, HandCounted)
            line = describer.claim_only(event)
        texts: list[Text] = []
        if isinstance(event, Dealt):
            texts.append(Text(f"── Deal {self.model.deal_number} ──", style="dim"))
        if line is not None:
            texts.append(self._colour_line(line, event))
        if (
            isinstance(event, HandCounted)
            and event is not self._held
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
            title.append(f" · {rules_name(rules)}", style="")
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
        if self._pacing:  # (the show as far as it has been told)
            return bool(self.model.shown)
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
                row.label = name + self._shown_label(shown)
                row.cards = self._shown_cards(shown)
                row.step = None
            else:
                size = obs.hand_sizes[seat] if not self._paused else 0
                if self._pacing:
                    size = self.model.held.get(seat, size)
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
        owner = self._crib_owner(dealer) if dealt else "Crib"
        shown_crib = model.shown.get((dealer, True))
        if showing and shown_crib is not None:
            # While the crib is said its words go on the message line (`_light`), not on its
            # caption: the crib shares its row with the starter and the pile, and a caption
            # as long as the words squashed them at 80x24.
            said = self.lit is not None and self.lit[:2] == (dealer, True)
            crib.label = Text(owner, style="bold")
            if not said:
                crib.label += self._shown_label(shown_crib)
            crib.cards = self._shown_cards(shown_crib)
            crib.step = FAN if self.lit is None else None
        else:
            crib.label = Text(owner, style="bold")
            crib.cards = tuple(CardSpec() for _ in range(model.crib_size)) or (
                CardSpec(empty=True),
            )
            crib.step = 1
        # the starter
        if model.starter is not None:
            starter.label = Text("Starter", style="bold")
            lit = self.lit is not None and model.starter in self.lit[2]
            starter.cards = (CardSpec(model.starter, selected=lit),)
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
            if self._pacing and self.model.calls and not self.model.shown:
                count.append(f"  {self._calls_text()}", style="bold yellow")  # next to the cards
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

    def _crib_owner(self, dealer: int) -> str:
        """``Your crib``, ``Computer's crib``."""
        session = self.session
        if session is not None and dealer == session.viewer:
            return "Your crib"
        return f"{self._who(dealer)}'s crib"

    def _shown_label(self, shown: HandCounted) -> Text:
        """``: 8`` after a shown hand's name, or, while it is said, the words so far."""
        lit = self.lit
        if lit is not None and (lit[0], lit[1]) == (shown.seat, shown.crib):
            return Text(f": {lit[3]}", style="bold yellow")
        if self._show_event is not None and self._show_event is shown:
            return Text("")
        if shown is self._held:
            return Text(f": claims {shown.claimed}", style="bold")
        return Text(f": {_shown_total(shown)}", style="bold")

    def _shown_cards(self, shown: HandCounted) -> tuple[CardSpec, ...]:
        """A shown hand's cards in order, those of the combination being said lit (and dimmed the
        others of that hand, so the lit ones stand out)."""
        lit = self.lit
        cards = sorted(shown.cards)  # in order, as hands are held (the crib comes unsorted)
        if lit is None or (lit[0], lit[1]) != (shown.seat, shown.crib):
            return tuple(CardSpec(c) for c in cards)
        return tuple(CardSpec(c, selected=c in lit[2], dimmed=c not in lit[2]) for c in cards)

    def _calls_text(self) -> str:
        """``Computer: fifteen for 2, go for 1`` or ``You: fifteen two ... is six``: what
        was called at the table since the last card, by whoever called last."""
        if not self.model.calls:
            return ""
        seat, _ = self.model.calls[-1]
        said = ", ".join(text for who, text in self.model.calls if who == seat)
        return f"{self._who(seat)}: {said}"

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
        self._refresh_keys()  # the key bar counts the cards held
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
            cards = tuple(CardSpec(c) for c in sorted(obs.to_count))  # (the crib comes unsorted)
        elif self._showing() and shown is not None:
            label = Text().append("Your hand", style) + self._shown_label(shown)
            cards = self._shown_cards(shown)
        elif self._paused:
            cards = ()
        elif self._pacing:  # the cards as the events so far leave them
            cards = tuple(CardSpec(c) for c in self.model.hand)
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
        text, keys = self._prompt()
        self.prompt_keys = keys
        prompt.update(text)

    def _prompt(self) -> tuple[Text, tuple[NamedKey, ...]]:
        """The prompt line and, as data, the keys it names (each with the action it runs):
        what the line tells the player to press is exactly what is bound (tests press them)."""
        mode, obs, rules, describer = self.mode, self.obs, self.rules, self.describer
        bold = Style(bold=True)
        if mode is Mode.START or obs is None or rules is None or describer is None:
            return Text("Welcome to cribbage.", style=bold), ()
        enter = NamedKey("enter", "continue")
        if self._show_wait:
            return Text("The show: ⏎ for the next hand.", style=bold), (enter,)
        if self._show_event is not None:
            return Text("The show: ⏎ to skip to the total.", style=Style(dim=True)), (enter,)
        if mode is Mode.BUSY:
            return Text(""), ()
        n = len(obs.hand)
        picks = tuple(NamedKey(str(i + 1), "pick") for i in range(n))
        if mode is Mode.DISCARD:
            crib = "your" if obs.dealer == obs.seat else f"{describer.who(obs.dealer)}'s"
            need = rules.discard
            text = Text(f"Lay away {_cards(need)} to {crib} crib: ", style=bold)
            text.append(f"{number_keys(n)} or ←/→ and ␣ to choose, then ⏎ ")
            text.append(f"({len(self._selected)}/{need})", style="dim")
            cursor = (NamedKey("left", "cursor"), NamedKey("right", "cursor"))
            return text, (
                *picks,
                *cursor,
                NamedKey("space", "choose"),
                NamedKey("enter", "lay_away"),
            )
        if mode is Mode.PLAY:
            text = Text(f"Your play, count {obs.count}: ", style=bold)
            keys = [*picks, NamedKey("enter", "play_cursor")]
            if n == 1:
                text.append("1 (or a click, or ⏎) to play the card")
            else:
                text.append(f"{number_keys(n)}, a click, or ←/→ and ⏎")
                keys += [NamedKey("left", "cursor"), NamedKey("right", "cursor")]
            if GO in obs.legal:
                text.append(" · g to say go", style="bold yellow")
                keys.append(NamedKey("g", "go"))
            return text, tuple(keys)
        if mode is Mode.CUT:
            what = "for the deal" if obs.phase is Phase.CUT_FOR_DEAL else "for the starter"
            text = Text(f"Cut the pack {what}: ←/→ how deep, ⏎ to cut", style=bold)
            cut = (NamedKey("left", "move"), NamedKey("right", "move"), NamedKey("enter", "cut"))
            return text, cut
        if mode is Mode.COUNT:
            what = "crib" if obs.counting_crib else "hand"
            starter = obs.starter.unicode if obs.starter is not None else "?"
            cards = " ".join(c.unicode for c in sorted(obs.to_count))
            text = Text(f"Count your {what} ({cards} with {starter}): type it, ⏎", style=bold)
            return text, (NamedKey("enter", "submit"),)
        yes_no = (NamedKey("y", "answer"), NamedKey("n", "answer"))
        if mode is Mode.MUGGINS and self._held is not None:
            held = self._held  # the claim alone: spot the miss (the count comes after)
            return Text(f"{describer.muggins_call(held)} (y/n)", style=bold), yes_no
        if mode is Mode.MUGGINS:
            points = obs.pending_claim or 0
            claims = [e for e in self.model.shown.values() if e.claimed != e.total]
            excess = bool(claims) and claims[-1].claimed > claims[-1].total
            what = "over-claimed" if excess else "missed"
            noun = "point" if points == 1 else "points"
            text = Text(f"Muggins: take the {points} {noun} they {what}? (y/n)", style=bold)
            return text, yes_no
        if mode is Mode.PAUSE:
            over = self.model.game_over
            if over is not None:
                return Text(f"{self._result_text(over)} ⏎ for the next game.", style=bold), (enter,)
            text = Text("The deal is over: read the show, then ⏎ or ␣ to deal on.", style=bold)
            return text, (enter, NamedKey("space", "continue"))
        # Mode.OVER
        over = self.model.game_over
        text = Text(self._result_text(over) if over else "The game is over.", style=bold)
        text.append(" Another game? (y/n)", style="bold yellow")
        return text, yes_no

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
