"""The plain line mode: the game as sentences on stdout and answers on stdin.

No colour and no cursor movement, so it works through pipes, in scripts and tests, and with a
screen reader. It follows the BSD program's flow (instructions? short or long? cut for deal, lay
away, play, the show, another game?) and adds saves, muggins and a text pegboard.

Every question is one line ending in ``": "`` or ``"? "``, written and flushed as a whole after
everything before it, so a driver can read up to a prompt and answer it. Lines are flushed one by
one. Decisions come from the engine's observation (its legal actions); this module only reads
what people type and says what happened.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TextIO

from fifteentwo.actions import (
    GO,
    Action,
    Count,
    Cut,
    Dealt,
    Discard,
    Event,
    GameOver,
    HandCounted,
    MatchOver,
    Muggins,
    Phase,
    Play,
    Scored,
)
from fifteentwo.app.coach import Coach
from fifteentwo.app.counting import MAX_COUNT, parse_count
from fifteentwo.app.describe import Describer, cards_text, choice_range, rules_name
from fifteentwo.app.launch import command_hint
from fifteentwo.app.options import PlayOptions, SessionFactory, carry_over
from fifteentwo.app.rules_text import rules_plain
from fifteentwo.app.saves import when_text
from fifteentwo.app.session import Session
from fifteentwo.cards import Card, card_in_hand, parse_rank
from fifteentwo.errors import CardError, FifteenTwoError, IllegalActionError
from fifteentwo.game import Game, Observation
from fifteentwo.rules import Rules

__all__ = ["PegTracker", "PlainGame", "peg_positions", "pegboard", "read_cards", "run_plain"]


def resume_hint(game_id: str) -> str:
    """Said on quitting a saved game: the command that continues it, as typeable here."""
    return f"Your game is saved; '{command_hint('play --resume')}' continues it (id {game_id})."


HOLES_PER_ROW = 60
_YES = frozenset({"y", "yes"})
_NO = frozenset({"n", "no"})
_HELP = frozenset({"?", "help", "h"})
_QUIT = frozenset({"q", "quit", "exit"})
_GO_WORDS = frozenset({"g", "go"})
_COMMANDS_HELP = (
    "At any question: '?' or 'help' explains it, 'hand' shows your cards, "
    "'score' or 'board' shows the pegboard, 'rules' shows the rules, "
    "'hint' shows the expert's best choice and why ('hints': the three best), "
    "'last' repeats the last show (the hands and crib counted), "
    "'undo' takes back your last decision (not when counting by hand with muggins), "
    "'q' or 'quit' saves the game and stops (type 'queen' or 'qh' for a queen)."
)


class _Quit(Exception):
    """The player asked to stop, or input ended."""


class _Undo(Exception):
    """The player asked to take back their last decision."""


def _tokens(text: str) -> list[str]:
    """Words split on spaces and commas, keeping ``king of hearts`` together."""
    words = [w for w in re.split(r"[\s,;]+", text.strip()) if w]
    out: list[str] = []
    i = 0
    while i < len(words):
        if i + 2 < len(words) and words[i + 1].lower() == "of":
            out.append(" ".join(words[i : i + 3]))
            i += 3
        else:
            out.append(words[i])
            i += 1
    return out


def _rank_of(token: str) -> int | None:
    try:
        return int(parse_rank(token))
    except CardError:
        return None


def read_cards(text: str, hand: Sequence[Card], *, ascii_only: bool = True) -> list[Card]:
    """The cards someone typed, resolved against their hand (in the order shown).

    A token is a card (``5h``, ``ten of spades``), a rank held once (``k``), a position counted
    from the left (``2``; ``#2`` is always a position), or a rank repeated as often as it is
    held (``5 5`` for both fives). A number that could be a rank or a position is refused
    unless both mean the same card. Refusals name cards as the screen shows them: ``10H`` in
    plain mode, ``10♥`` with ``ascii_only=False``.

    >>> from fifteentwo.cards import parse_cards
    >>> hand = parse_cards("2c 5h 5s 9d jc kh")
    >>> [c.short for c in read_cards("kh 9", hand)], [c.short for c in read_cards("#1 5 5", hand)]
    (['KH', '9D'], ['2C', '5H', '5S'])
    """
    tokens = _tokens(text)
    if not tokens:
        raise CardError("type the cards, e.g. " + " ".join(c.short.lower() for c in hand[:2]))
    chosen: list[Card] = []
    # A rank typed as many times as it is held names all those cards ("5 5").
    repeated: dict[int, list[Card]] = {}
    for token in tokens:
        rank = _rank_of(token)
        if rank is None or (token.isdigit() and token != str(rank)):
            continue
        held = [c for c in hand if c.rank == rank]
        if len(held) > 1 and sum(_rank_of(t) == rank for t in tokens) == len(held):
            repeated[rank] = held
    for token in tokens:
        rank = _rank_of(token)
        if rank is not None and rank in repeated:
            card = repeated[rank].pop(0)
        else:
            card = _read_card(token, hand, ascii_only)
        if card in chosen:
            raise CardError(f"you named {cards_text([card], ascii_only=ascii_only)} twice")
        chosen.append(card)
    return chosen


def _read_card(token: str, hand: Sequence[Card], ascii_only: bool) -> Card:
    if token.startswith("#"):
        number = token[1:]
        if number.isdigit() and 1 <= int(number) <= len(hand):
            return hand[int(number) - 1]
        raise CardError(f"no position {number} in a hand of {len(hand)}")
    by_position = None
    if token.isdigit() and 1 <= int(token) <= len(hand):
        by_position = hand[int(token) - 1]
    rank = _rank_of(token)
    held = [c for c in hand if c.rank == rank]
    if not held:
        return by_position if by_position is not None else card_in_hand(token, hand)
    if len(held) == 1 and by_position in (None, held[0]):
        return held[0]
    choices = [f"your {cards_text([c], ascii_only=ascii_only)}" for c in held]
    if by_position is not None and by_position not in held:
        shown = cards_text([by_position], ascii_only=ascii_only)
        choices.append(f"card number {token} ({shown})")
    hint = f" or #{token} for the position" if by_position is not None else ""
    listed = ", ".join(choices[:-1]) + " or " + choices[-1]
    raise CardError(
        f"'{token}' could be {listed}; type the card (e.g. {held[0].short.lower()}){hint}"
    )


class PegTracker:
    """Each side's front and back peg, read on from the events already read: the log of a game
    only grows, so a server that answers every move need not read it again from the start."""

    def __init__(self, sides: int) -> None:
        self.sides = sides
        self.seen = 0
        self.fronts, self.backs = [0] * sides, [0] * sides
        self._new_game = False

    def read(self, events: Sequence[Event]) -> tuple[list[int], list[int]]:
        """The pegs after ``events``, whose first `seen` are the ones read before."""
        for event in events[self.seen :]:
            if isinstance(event, GameOver):
                self._new_game = True
            elif isinstance(event, Scored):
                if self._new_game:
                    self.fronts, self.backs = [0] * self.sides, [0] * self.sides
                    self._new_game = False
                self.backs[event.side] = self.fronts[event.side]
                self.fronts[event.side] = event.score
        self.seen = len(events)
        return list(self.fronts), list(self.backs)


class GamePegs:
    """`peg_positions` of whichever game object is asked about, read on (`PegTracker`) while it
    is the one asked about last and its events only grew: a server answering every message of
    one game need not read its log again. Another object (a reload, a copy) or a shorter log
    is read from the start."""

    def __init__(self) -> None:
        self._game: Game | None = None
        self._tracker: PegTracker | None = None

    def read(self, game: Game, sides: int) -> tuple[list[int], list[int]]:
        """The pegs after ``game``'s events, for ``sides`` sides."""
        tracker = self._tracker
        if self._game is not game or tracker is None or tracker.seen > len(game.events):
            tracker = self._tracker = PegTracker(sides)
            self._game = game
        return tracker.read(game.events)


def peg_positions(events: Sequence[Event], sides: int) -> tuple[list[int], list[int]]:
    """Each side's front and back peg in the current game, from the engine's Scored events."""
    return PegTracker(sides).read(events)


def pegboard(target: int, names: Sequence[str], fronts: Sequence[int], backs: Sequence[int]) -> str:
    """A text cribbage board: one track per side, ``*`` the front peg and ``o`` the back peg.

    >>> print(pegboard(61, ["You", "Computer"], [12, 3], [7, 0]))
    Pegboard, 61 to win (* front peg, o back peg, holes in tens):
    You: 12, back peg 7
         1-60  ......o...  .*........  ..........  ..........  ..........  ..........
    Computer: 3, back peg at the start
         1-60  ..*.......  ..........  ..........  ..........  ..........  ..........
    """
    lines = [f"Pegboard, {target} to win (* front peg, o back peg, holes in tens):"]
    holes = target - 1
    for name, front, back in zip(names, fronts, backs, strict=True):
        if front >= target:
            where = f"{front}, in the game hole"
        else:
            where = f"{front}, back peg {back}" if back else f"{front}, back peg at the start"
        lines.append(f"{name}: {where}")
        for start in range(1, holes + 1, HOLES_PER_ROW):
            end = min(start + HOLES_PER_ROW - 1, holes)
            cells = [
                "*" if h == front else "o" if h == back and back else "."
                for h in range(start, end + 1)
            ]
            groups = ["".join(cells[i : i + 10]) for i in range(0, len(cells), 10)]
            span = f"{start}-{end}"
            lines.append(f"  {span:>7}  " + "  ".join(groups))
    return "\n".join(lines)


class PlainGame:
    """One sitting at the table in line mode: games until the player stops."""

    def __init__(
        self,
        options: PlayOptions,
        make_session: Callable[[Rules], Session],
        *,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        echo: bool | None = None,
    ) -> None:
        self.options = options
        self.make_session = make_session
        self.inp = stdin if stdin is not None else sys.stdin
        self.out = stdout if stdout is not None else sys.stdout
        self.echo = echo if echo is not None else not _isatty(self.inp)
        """Repeat answers read from a pipe, so a transcript reads like a conversation."""
        self.session: Session | None = None
        self.describer: Describer | None = None
        self.wins: list[int] = []
        self._shown_hand: tuple[Card, ...] = ()
        self._coach: Coach | None = None
        self.games = 0
        """Games begun in this sitting (a resumed one included): the log numbers them."""
        self._held_count: HandCounted | None = None
        """A miscounted hand shown by its claim only while a person decides on muggins."""

    @property
    def coach(self) -> Coach:
        """The expert's advice, made on first use (hints, and remarks with ``--coach``)."""
        if self._coach is None:
            self._coach = Coach(ascii_only=True)
        return self._coach

    # --- input and output ------------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        """Print lines (flushed, so a reader at the other end of a pipe sees them at once)."""
        for line in text.split("\n"):
            self.out.write(line.rstrip() + "\n")
        self.out.flush()

    def ask(self, prompt: str) -> str:
        """Ask one question; return the stripped answer. End of input means quit."""
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            self.out.write("\n")
            raise _Quit
        if self.echo:
            self.out.write(line if line.endswith("\n") else line + "\n")
        return line.strip()

    def ask_yes_no(self, prompt: str) -> bool:
        """A y/n question (``q`` quits); asks again until it gets an answer."""
        while True:
            answer = self.ask(prompt).lower()
            if answer in _YES:
                return True
            if answer in _NO:
                return False
            if answer in _QUIT:
                raise _Quit
            self.say("Please answer y or n.")

    # --- the sitting ---------------------------------------------------------------------------

    def run(self, *, resume: Session | None = None, offer: Session | None = None) -> int:
        """Play games until the player says no more; 0 when done or saved, 130 on Ctrl-C.

        ``resume`` continues a saved session at once; ``offer`` asks first.
        """
        try:
            if offer is not None and resume is None:
                self.say(f"You have a saved game: {self._offer_text(offer)}.")
                if self.ask_yes_no("Resume it (y/n)? "):
                    resume = offer
                else:
                    offer.release()  # kept in the store for later
                    if offer.game_id is not None:
                        hint = command_hint(f"play --resume {offer.game_id}")
                        self.say(f"It stays saved ('{hint}').")
            if resume is None and self.options.instructions is None:
                if self.ask_yes_no("Do you need instructions (y/n)? "):
                    self.say(rules_plain())
            elif self.options.instructions:
                self.say(rules_plain())
            session = resume if resume is not None else self.new_session(None)
            if resume is not None:
                self.games += 1
                self.say(f"Resuming your game: {self._status(resume)}. Game 1 of this sitting.")
            while True:
                self.play(session, resumed=session is resume)
                if not self.ask_yes_no("Another game (y/n)? "):
                    self.say("Thanks for the game.")
                    return 0
                last = session
                session = self.another_game(last, resumed=last is resume)
                if session.first_dealer is not None:
                    self.say(_loser_deals(session, session.first_dealer))
        except _Quit:
            quitting = self.session
            if quitting is not None and not quitting.is_over:
                quitting.save()
                if quitting.saving and quitting.game_id is not None:
                    self.say(resume_hint(quitting.game_id))
                else:
                    self.say("Game not saved.")
                quitting.release()
            return 0
        except KeyboardInterrupt:
            # The session saved itself after its last step; nothing half-done is written.
            if self.session is not None:
                self.session.release()
            self.out.write("\n")
            self.out.flush()
            return 130

    def _next_rules(self, last: Session, *, resumed: bool) -> Rules | None:
        """Another game keeps the last game's rules. After a resumed game, a variant given on
        the command line wins; else the saved game's rules, if these options' seats fit them."""
        if not resumed:
            return last.rules
        if self.options.variant_known:
            return None
        players = self.options.players
        return last.rules if players is None or len(players) == last.rules.players else None

    def another_game(self, last: Session, *, resumed: bool) -> Session:
        """The next game after ``last``: every setting carries over (`carry_over`), the game
        is numbered in the sitting, and the loser deals first."""
        rules = self._next_rules(last, resumed=resumed)
        self.options = carry_over(self.options, last)
        if rules is not None and rules.players != last.rules.players:
            self.options = replace(self.options, players=None)
        if isinstance(self.make_session, SessionFactory):
            self.make_session.options = self.options
        return self.new_session(rules if rules is not None else last.rules, after=last)

    def new_session(self, rules: Rules | None, *, after: Session | None = None) -> Session:
        """Start the next game, asking short or long when nothing chose the variant."""
        options = self.options
        if rules is None:
            if options.variant_known:
                rules = options.preset_rules()
            else:
                while True:
                    answer = self.ask("Short game (61) or long game (121) (s/l)? ").lower()
                    if answer in ("s", "short", "61"):
                        rules = options.preset_rules("short")
                        break
                    if answer in ("l", "long", "121"):
                        rules = options.preset_rules("standard")
                        break
                    if answer in _QUIT:
                        raise _Quit
                    self.say("Please answer s (to 61) or l (to 121).")
        session = self.make_session(rules)
        if after is not None:
            session.kind, session.owner_hint = after.kind, after.owner_hint
            session.deal_after(after)  # the loser deals first
        self.games += 1
        self.say(self._header(session))
        return session

    def _header(self, session: Session) -> str:
        rules = session.rules
        seats = "; ".join(s.name if s.human else f"{s.name} ({s.level})" for s in session.seats)
        extras = []
        if rules.muggins:
            extras.append("muggins")
        if not session.auto_count and session.human_seats:
            extras.append("you count your own hands")
        more = f" ({', '.join(extras)})" if extras else ""
        title = f"New game: {rules_name(rules)}{more}."
        return f"{title} {seats}. Seed {session.seed}. Game {self.games} of this sitting."

    def _offer_text(self, session: Session) -> str:
        """The game offered for resuming: variant, opponent, score, when, id."""
        opponent = session.meta().opponent
        when = "" if session.saved_at is None else f", last played {when_text(session.saved_at)}"
        ident = "" if session.game_id is None else f" (id {session.game_id})"
        return f"{self._status(session)}, against {opponent}{when}{ident}"

    def _status(self, session: Session) -> str:
        obs = session.observation()
        names = Describer(session.rules, session.names(), session.viewer)
        return f"{rules_name(session.rules)}, {names.scores(obs.scores)}"

    def play(self, session: Session, *, resumed: bool = False) -> None:
        """Play one session (a game, or a match) to its end."""
        self.session = session
        humans = session.human_seats
        self.describer = Describer(
            session.rules,
            session.names(),
            humans[0] if humans else None,
            quiet=self.options.quiet,
            ascii_only=True,
        )
        self.wins = self.wins or [0] * session.rules.sides
        if len(self.wins) != session.rules.sides:
            self.wins = [0] * session.rules.sides
        self._shown_hand = ()
        self.show(session.run())
        if resumed and session.waiting_for is not None:
            self._show_hand(session.observation(session.waiting_for), force=True)
        while not session.is_over:
            seat = session.waiting_for
            assert seat is not None, "the session stopped with no one to move"
            obs = session.observation(seat)
            try:
                action = self.decide(obs)
            except _Undo:
                self._take_back(session)
                continue
            try:
                events = session.act(action)
            except IllegalActionError as exc:
                self.say(self._refusal(action, obs, exc))
                continue
            if isinstance(action, Muggins):
                self._after_muggins()
            self.show(events)

    def _take_back(self, session: Session) -> None:
        """Undo the last decision (the game notes the take-back), or say why not."""
        try:
            session.undo()
        except FifteenTwoError as exc:
            self.say(f"{_capital(str(exc))}.")
            return
        self.say("You took back your last decision.")
        self._shown_hand = ()
        if session.waiting_for is not None:
            self._show_hand(session.observation(session.waiting_for), force=True)

    # --- telling what happened -------------------------------------------------------------------

    def show(self, events: Sequence[Event]) -> None:
        """Say the events, with this mode's extras (mistakes in counting, results)."""
        assert self.describer is not None and self.session is not None
        held = self._muggins_event(events)
        for event in events:
            if event is held:
                assert isinstance(event, HandCounted)
                self._held_count = event
                self.say(self.describer.claim_only(event))
                continue
            text = self.describer.describe(event)
            if text:
                self.say(text)
            if isinstance(event, Dealt) and self.describer.viewer is not None:
                hand = event.hands[self.describer.viewer]
                self._shown_hand = tuple(sorted(hand or ()))
            elif isinstance(event, HandCounted):
                self._after_count(event)
            elif isinstance(event, GameOver):
                self._after_game(event)
            elif isinstance(event, MatchOver) and self.session.rules.match_games > 1:
                self.say("The match is over.")

    def _repeat_show(self, seat: int) -> None:
        """The last show said again (each hand and crib counted in the latest deal that had
        one), as ``seat`` saw it; a claim waiting for a muggins answer still by its claim
        alone. Said at the terminal once, it scrolls away: the full-screen game keeps a log."""
        assert self.describer is not None and self.session is not None
        seen = self.session.game.events_for(seat)
        counted = [i for i, e in enumerate(seen) if isinstance(e, HandCounted)]
        if not counted:
            self.say("No hand has been counted yet in this game.")
            return
        start = max((i for i in range(counted[-1]) if isinstance(seen[i], Dealt)), default=0)
        shown = [e for e in seen[start : counted[-1] + 1] if isinstance(e, HandCounted)]
        held_at = len(shown) - 1 if shown[-1] == self._held_count else -1
        for line in self.describer.lines(shown, held_at):
            self.say(line)

    def _muggins_event(self, events: Sequence[Event]) -> HandCounted | None:
        """The miscounted hand a person at this keyboard is about to judge (muggins), if the
        session now waits for that: shown by its claim only, so the miss must be spotted."""
        session = self.session
        assert session is not None
        seat = session.waiting_for
        if seat is None or session.observation(seat).pending_claim is None:
            return None
        counted = [e for e in events if isinstance(e, HandCounted)]
        if not counted or counted[-1].claimed == counted[-1].total:
            return None
        return counted[-1]

    def _after_muggins(self) -> None:
        """After the muggins answer: what the claim missed or over-claimed, and the count."""
        held, self._held_count = self._held_count, None
        if held is not None and self.describer is not None:
            self.say(self.describer.claim_verdict(held))

    def _after_count(self, event: HandCounted) -> None:
        session = self.session
        assert session is not None
        if event.claimed == event.total or not session.seats[event.seat].human:
            return
        what = "crib" if event.crib else "hand"
        assert self.describer is not None
        who = self.describer.who(event.seat)
        whose = "your" if who == "You" else "their"
        if event.claimed > event.total:
            pegs = self.describer.verb(event.seat, "peg", "pegs")
            self.say(
                f"{who} claimed {event.claimed}, but {whose} {what} is worth {event.total}: "
                f"the claim is corrected and {who.lower() if who == 'You' else who} {pegs} "
                f"{event.total}."
            )
        else:
            self.say(
                f"{who} should have taken {event.total} for {whose} {what}, not {event.claimed}."
            )
        if self.options.explain:
            self.say("Explanation:")
            for item in event.score().items:
                cards = cards_text(item.cards, ascii_only=True)
                self.say(f"  {item.kind}: {cards} = {item.points}")
            self.say(f"  total {event.total}")

    def _after_game(self, event: GameOver) -> None:
        session, describer = self.session, self.describer
        assert session is not None and describer is not None
        self.wins[event.winner] += 1
        humans = session.human_seats
        if humans:
            mine = session.rules.side_of(humans[0])
            result = "You won" if event.winner == mine else "You lost"
            skunk = ("", ", with a skunk", ", with a double skunk")[event.skunk]
            self.say(f"{result}{skunk}.")
        tally = ", ".join(f"{describer.side_name(side)} {n}" for side, n in enumerate(self.wins))
        self.say(f"Games won this sitting: {tally}.")
        if session.rules.match_games > 1:
            need = session.rules.match_games // 2 + 1
            points = ", ".join(
                f"{describer.side_name(side)} {p}" for side, p in enumerate(event.match_points)
            )
            self.say(f"Match (game points, {need} to win): {points}.")

    def _refusal(self, action: Action, obs: Observation, exc: IllegalActionError) -> str:
        return f"You cannot do that: {exc}."

    # --- deciding ------------------------------------------------------------------------------

    def decide(self, obs: Observation) -> Action:
        """Ask the human for the decision in ``obs`` until the answer is a possible action."""
        phase = obs.phase
        if phase is Phase.PLAY and obs.legal == (GO,):
            return GO  # nothing will come in: the engine's only choice, said for you
        if phase in (Phase.DISCARD, Phase.PLAY):
            self._show_hand(obs)
        prompt, read, help_text = self._question(obs)
        while True:
            answer = self.ask(prompt)
            low = answer.lower()
            if not answer:
                continue
            if low in _HELP:
                self.say(help_text)
                self.say(_COMMANDS_HELP)
            elif low in _QUIT:
                raise _Quit
            elif low == "hand":
                self._show_hand(obs, force=True, full=True)
            elif low in ("score", "board", "scores"):
                self.say(self.board())
            elif low in ("last", "last show"):
                self._repeat_show(obs.seat)
            elif low == "rules":
                self.say(rules_plain())
            elif low in ("hint", "hints"):
                for line in self.coach.hint_lines(obs, top=3 if low == "hints" else 1):
                    self.say(line)
            elif low in ("undo", "take back"):
                raise _Undo
            else:
                try:
                    action = read(answer)
                except (CardError, ValueError) as exc:
                    self.say(f"{_capital(str(exc))}.")
                    continue
                if self.options.coach:
                    remark = self.coach.remark(obs, action)
                    if remark is not None:
                        self.say(remark)
                return action

    def _other_human(self, obs: Observation) -> str | None:
        """The name of a second human sharing the keyboard, when it is their turn."""
        assert self.session is not None
        if len(self.session.human_seats) > 1 and obs.seat != self.session.viewer:
            return self.session.names()[obs.seat]
        return None

    def _who(self, obs: Observation) -> str:
        """``Your``, or ``Player 2, your`` when several people share the keyboard."""
        name = self._other_human(obs)
        return "Your" if name is None else f"{name}, your"

    def _addressed(self, obs: Observation, verb: str) -> str:
        """An order's start: ``Lay``, or ``Player 2, lay`` when several share the keyboard."""
        name = self._other_human(obs)
        return verb if name is None else f"{name}, {verb.lower()}"

    def _show_hand(self, obs: Observation, *, force: bool = False, full: bool = False) -> None:
        hand = obs.hand
        if hand and (force or hand != self._shown_hand):
            self.say(f"{self._who(obs)} hand: {cards_text(hand, ascii_only=True)}.")
            self._shown_hand = hand
        if not full:
            return
        assert self.describer is not None
        if obs.kept and not hand:
            self.say(f"Your hand for the show: {cards_text(obs.kept, ascii_only=True)}.")
        if obs.discards:
            self.say(f"You laid away: {cards_text(obs.discards, ascii_only=True)}.")
        crib = "yours" if obs.is_dealer else f"{self.describer.names[obs.dealer]}'s"
        self.say(f"The crib is {crib}.")
        if obs.starter is not None:
            self.say(f"The starter is {cards_text([obs.starter], ascii_only=True)}.")
        if obs.phase is Phase.PLAY:
            pile = cards_text(obs.pile, ascii_only=True) or "no cards yet"
            self.say(f"The count is {obs.count}: {pile}.")

    def _question(self, obs: Observation) -> tuple[str, Callable[[str], Action], str]:
        """The prompt, the reader of answers, and the help for one decision."""
        phase = obs.phase
        if phase is Phase.DISCARD:
            n = obs.rules.discard
            noun = "card" if n == 1 else "cards"
            return (
                f"{self._addressed(obs, 'Lay')} away {n} {noun}: ",
                lambda text: self._read_discard(text, obs, n),
                f"Name {n} {noun} for the crib: cards (5h 9c), ranks you hold once (k), "
                "or positions from the left (1 4; #1 is always a position).",
            )
        if phase is Phase.PLAY:
            can_go = GO in obs.legal
            what = "a card or go" if can_go else "a card"
            go_help = " or g to say go" if can_go else ""
            return (
                f"{self._addressed(obs, 'Play')} {what} (count is {obs.count}): ",
                lambda text: self._read_play(text, obs),
                f"Name one card: a card (5h), a rank you hold once (k), or its position from "
                f"the left (2, or #2){go_help}.",
            )
        if phase is Phase.SHOW:
            if obs.pending_claim is not None:
                held = self._held_count
                if held is not None and held.claimed > held.total:
                    n = obs.pending_claim
                    points = "point" if n == 1 else "points"
                    who = self.describer.who(held.seat) if self.describer else "They"
                    return (
                        f"{who} claimed {held.claimed}, corrected to {held.total}. "
                        f"{self._addressed(obs, 'Take')} the {n} {points} over-claimed by "
                        "muggins (y/n)? ",
                        _read_muggins,
                        "Answer y to peg the points your opponent claimed too many, n to leave "
                        "them.",
                    )
                return (
                    f"{self._addressed(obs, 'Call')} muggins on that count (y/n)? ",
                    _read_muggins,
                    "Answer y if the claim missed points (you peg what was missed), n to let "
                    "it stand. Check the cards with the starter: the true count is said "
                    "after you answer.",
                )
            what = "crib" if obs.counting_crib else "hand"
            assert obs.starter is not None
            cards = cards_text(obs.to_count, ascii_only=True)
            starter = cards_text([obs.starter], ascii_only=True)
            return (
                f"{self._addressed(obs, 'Count')} your {what} ({cards}, starter {starter}): ",
                _read_count,
                f"Type how many points your {what} makes with the starter, 0 to {MAX_COUNT}, "
                "in digits or words (nineteen also means nothing). Your claim is final: too "
                "many is corrected to the true count"
                + (
                    " and your opponent may take the excess; too few, and they may take the "
                    "rest (muggins)."
                    if obs.rules.muggins
                    else "; points you miss are lost."
                ),
            )
        depths = [a.depth for a in obs.legal if isinstance(a, Cut)]
        lo, hi = min(depths), max(depths)
        what = "for the deal" if phase is Phase.CUT_FOR_DEAL else "the pack"
        return (
            f"{self._addressed(obs, 'Cut')} {what}: how many cards down ({choice_range(lo, hi)})? ",
            lambda text: _read_cut(text, lo, hi),
            f"Type a number from {lo} to {hi}: how many cards to lift off the top."
            if lo < hi
            else f"Type {lo}: the only depth left to cut.",
        )

    def _read_discard(self, text: str, obs: Observation, n: int) -> Action:
        cards = read_cards(text, obs.hand)
        if len(cards) != n:
            raise CardError(f"lay away exactly {n} card{'s' if n > 1 else ''}, not {len(cards)}")
        return Discard(tuple(sorted(cards)))

    def _read_play(self, text: str, obs: Observation) -> Action:
        if text.lower() in _GO_WORDS:
            if GO in obs.legal:
                return GO
            raise CardError("you have a card that will come in, so you cannot say go")
        cards = read_cards(text, obs.hand)
        if len(cards) != 1:
            raise CardError("play one card at a time")
        action = Play(cards[0])
        if action not in obs.legal:
            raise CardError(
                f"{cards_text(cards[:1], ascii_only=True)} would take the count past 31"
            )
        return action

    def board(self) -> str:
        """The pegboard of the current game, with the scores."""
        session, describer = self.session, self.describer
        assert session is not None and describer is not None
        sides = session.rules.sides
        fronts, backs = peg_positions(session.game.events, sides)
        names = [describer.side_name(side) for side in range(sides)]
        return pegboard(session.rules.target, names, fronts, backs)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _read_count(text: str) -> Action:
    return Count(parse_count(text))


def _read_muggins(text: str) -> Action:
    low = text.lower()
    if low in _YES:
        return Muggins(True)
    if low in _NO:
        return Muggins(False)
    raise ValueError("answer y or n")


def _read_cut(text: str, lo: int, hi: int) -> Action:
    if not text.isdigit() or not lo <= int(text) <= hi:
        raise ValueError(f"cut between {lo} and {hi} cards down")
    return Cut(int(text))


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def run_plain(
    options: PlayOptions,
    make_session: Callable[[Rules], Session],
    *,
    resume: Session | None = None,
    offer: Session | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Play in line mode on the given streams (stdin/stdout by default); the exit code."""
    game = PlainGame(options, make_session, stdin=stdin, stdout=stdout)
    return game.run(resume=resume, offer=offer)


def _loser_deals(session: Session, seat: int) -> str:
    """``You lost the last game, so you deal first.`` (or the computer's name and "deals")."""
    describe = Describer(session.rules, session.names(), session.viewer)
    loser = describe.side_name(seat % session.rules.sides)
    dealer = describe.who(seat, capital=False)
    return f"{loser} lost the last game, so {dealer} {describe.verb(seat, 'deal', 'deals')} first."
