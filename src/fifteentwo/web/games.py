"""The games a server holds: each a `Session` (the terminal game's own class) kept in the store.

`GameHub` is the referee. A client's message reaches a game only through `GameHub.act` (and its
siblings), which checks, under the game's lock, that the game exists, that the token is this
game's, that the message answers the decision now pending (so a replayed or out-of-turn message
is refused) and that the action is legal, before the engine applies it. Computer seats, the
coach and reviews run in a thread pool, never on the event loop. The session saves itself in
the store after every step (the terminal game's own `Session`, with the token's hash and the
coach setting beside its save), so a server killed at any moment resumes from the last decision
it answered. The HTTP API's store reads run on a thread of their own.

Seats and listeners are kept apart from the session so that tables with several people and
spectators (docs/web.md, "later") add listeners for other seats without changing this flow.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final, NoReturn, Protocol, TypeVar

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
    Muggins,
    Play,
)
from fifteentwo.app.coach import Coach, action_label
from fifteentwo.app.counting import parse_count
from fifteentwo.app.describe import Describer, refusal_sentence
from fifteentwo.app.options import PlayOptions, check_level
from fifteentwo.app.plain import GamePegs
from fifteentwo.app.session import SaveConflict, SaveError, Session
from fifteentwo.cards import Card
from fifteentwo.errors import FifteenTwoError
from fifteentwo.store import GameBusy, GameNotFound, Store, StoreError, new_owner
from fifteentwo.store.base import CorruptGame, StoreUnavailable
from fifteentwo.store.sqlite import SQLiteStore
from fifteentwo.web.bus import Bus, LocalBus
from fifteentwo.web.metrics import Outage
from fifteentwo.web.protocol import NewGameRequest
from fifteentwo.web.session import WebSession
from fifteentwo.web.view import (
    action_json,
    events_json,
    held_claim,
    log_lines,
    muggins_json,
    observation_json,
    verdict_json,
)

__all__ = ["GameHub", "Listener", "Refused", "WebGame"]

LOG_LINES: Final = 300
"""Log lines a (re)joining client is sent."""
IDLE_SECONDS: Final = 600.0
"""A game nobody is connected to leaves memory after this long (it stays in the store)."""
KIND: Final = "web"

_T = TypeVar("_T")
_Move = tuple[list[Event], float]
"""A move made: its events and the computers' thinking in seconds (`WebSession.timed_act`)."""


CLAIM_SECONDS: Final = 15.0
"""How long a process's claim to compute a computer turn stands (renewed by finishing it); a
claim of a process that died lapses after this, and another process takes the turn."""
QUICK_MOVE: Final = 0.05
"""A move on the quick thread that takes longer than this (seconds) marks its game slow."""
STORE_WAIT: Final = 0.01
"""How long the event loop waits for the store's other users before it hands a quick move to
the quick thread instead (seconds)."""
PROVEN_MOVES: Final = 50
"""Moves in a row a quick level makes within `QUICK_MOVE` before its games' moves are made on
the event loop itself (`GameHub.compute_move`)."""
SWEEP_BATCH: Final = 20
"""Leases the sweeper renews in one write (about 3 ms of the store on SQLite)."""
SWEEP_PAUSE: Final = 0.01
"""The sweeper's pause between two writes (seconds)."""
CLAIM_POLL: Final = 0.1
"""How often a process waiting for another's computer turn looks at the store."""


class Refused(FifteenTwoError):
    """A message the server will not act on; ``code`` is the error code sent back."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Listener(Protocol):
    """A connection watching a game from one seat."""

    seat: int

    async def send(self, message: dict[str, Any]) -> None:
        """Deliver a message (never raises: a closed connection just drops it)."""


def token_hash(token: str) -> str:
    """What the store keeps of a token: a hash, so the store itself holds no usable token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def player_hash(key: str | None) -> str:
    """The owner hint for a browser's key (its games and history), or "" for none."""
    return "" if not key else "p:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


_log = logging.getLogger("fifteentwo.web")


@dataclass
class WebGame:
    """One game in memory: its session, the web settings, and who is watching."""

    game_id: str
    session: WebSession
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: set[Listener] = field(default_factory=set)
    finished: list[int] = field(default_factory=list)
    last_used: float = field(default_factory=time.monotonic)
    slow: bool = False
    """Whether a move of this game took long on the quick thread (its moves go to the pool)."""
    behind: bool = False
    """Whether this copy holds a move a store that was down never took (PostgreSQL): it is
    read again from the store before it answers anything (`_fresh`)."""
    _coach: Coach | None = None
    _describers: dict[int, Describer] = field(default_factory=dict)
    _pegs: GamePegs = field(default_factory=GamePegs)
    """The pegs of the session's game, read on as its events grow (`pegs`)."""

    @property
    def token_hash(self) -> str:
        """The hash of the token that plays this game."""
        return str(self.session.web.get("token", ""))

    @property
    def coach_on(self) -> bool:
        """Whether the coach remarks on each discard and play."""
        return bool(self.session.web.get("coach"))

    @property
    def decision(self) -> int:
        """How many seat decisions were made so far: the id of the pending one."""
        return self.session.decision_count()

    def pegs(self) -> tuple[list[int], list[int]]:
        """`peg_positions` of the game, read on from where the last call stopped."""
        return self._pegs.read(self.session.game, self.session.rules.sides)

    def describer(self, seat: int) -> Describer:
        """Words for events, from ``seat``'s point of view."""
        found = self._describers.get(seat)
        if found is None:
            found = Describer(self.session.rules, self.session.names(), seat)
            self._describers[seat] = found
        return found

    def coach(self) -> Coach:
        """The expert coach (made when first asked: it is the biggest thing a game holds)."""
        if self._coach is None:
            self._coach = Coach(level="expert", seed=self.session.seed)
        return self._coach

    def can_undo(self) -> bool:
        """Whether the session would take back the human's last decision now (the session
        decides: never with muggins when you count your own hands, ...)."""
        return self.session.can_undo

    def state(
        self,
        seat: int,
        *,
        events: Sequence[Event] = (),
        remark: str | None = None,
        think_ms: float = 0.0,
        log: bool = False,
        answered: HandCounted | None = None,
    ) -> dict[str, Any]:
        """The ``state`` message for ``seat``: its view, and the new events it may see.
        ``answered``: the short claim whose muggins question this step answered (its
        ``claim_verdict`` comes first among the events: it was shown by its claim alone)."""
        s = self.session
        game = s.game
        describer = self.describer(seat)
        fronts, backs = self.pegs()
        held = held_claim(game)
        shown = events_json(events, describer, held)
        if answered is not None and answered != held:
            shown.insert(0, verdict_json(answered, describer))
        message: dict[str, Any] = {
            "type": "state",
            "game": self.game_id,
            "decision": self.decision,
            "view": observation_json(obs := game.observation(seat), held=held is not None),
            # (the events read only while a claim is pending: every message would read them all)
            "muggins": None
            if obs.pending_claim is None
            else muggins_json(obs, game.events_for(seat), describer, held),
            "names": s.names(),
            "levels": ["human" if st.human else st.level for st in s.seats],
            "variant": s.rules.name,
            "waiting": s.waiting_for == seat,
            "can_undo": self.can_undo(),
            "coach": self.coach_on,
            "pegs": {"front": fronts, "back": backs},
            "over": s.is_over,
            "finished": list(self.finished),
            "events": shown,
            "remark": remark,
            "think_ms": round(think_ms, 3),
        }
        if log:
            seen = game.events_for(seat)
            message["log"] = log_lines(seen, describer, held)[-LOG_LINES:]
            start = max((i for i, e in enumerate(seen) if isinstance(e, Dealt)), default=0)
            message["recent"] = events_json(seen[start:], describer, held)
        return message


def to_action(data: Any) -> Action:
    """The engine action for a validated protocol action (cards parsed strictly)."""
    kind = data.kind
    try:
        if kind == "discard":
            return Discard(tuple(Card.parse(c) for c in data.cards))
        if kind == "play":
            return Play(Card.parse(data.card))
    except (FifteenTwoError, ValueError, KeyError):
        raise Refused("illegal", "that is not a card") from None
    if kind == "go":
        return GO
    if kind == "cut":
        return Cut(int(data.depth))
    if kind == "count":
        return Count(_count(data.points))
    if kind == "muggins":
        return Muggins(bool(data.take))
    raise Refused("bad_message", f"unknown action {kind!r}")


def _count(points: int | str) -> int:
    """A count as the client sent it: a number, or text read as the terminal reads a typed
    count (`parse_count`: ``fourteen``, ``twenty-nine``, ``nothing``); text that is no count is
    refused with ``bad_count`` and the parser's sentence (the page shows it by the box)."""
    if isinstance(points, int):
        return points
    try:
        return parse_count(points)
    except ValueError as exc:
        raise Refused("bad_count", refusal_sentence(str(exc))) from None


class GameHub:
    """All games of one server process, the store they live in, and the pools that run them."""

    def __init__(
        self, open_store: Callable[[], Store], *, workers: int = 4, levels: Sequence[str] = ()
    ) -> None:
        self._store_pool = ThreadPoolExecutor(1, thread_name_prefix="fifteentwo-store")
        self._compute = ThreadPoolExecutor(workers, thread_name_prefix="fifteentwo-bots")
        self._quick = ThreadPoolExecutor(1, thread_name_prefix="fifteentwo-quick")
        """Moves of games whose computers all answer at once, on SQLite: one thread, so they
        never queue on each other's store writes and the interpreter lock as four threads
        would (about 12% less CPU per action in the closed-loop benchmark: docs/web.md,
        "Hosting at scale"). On PostgreSQL a move waits on a dozen round trips, which the pool
        overlaps: one thread answered a fifth fewer moves there. The slow levels keep the
        pool."""
        self._quick_since: float | None = None
        """When the quick thread's current move was handed to it, or began if another was
        running then (None: it is idle): a move that waits to start under load counts."""
        self._proven: dict[type, int] = {}
        """Each quick level's moves in a row made within `QUICK_MOVE` (`compute_move`)."""
        self._open_store = open_store
        self._store: Store | None = None
        self.owner = new_owner()
        self.process = new_owner()
        """This process's own token (claims of computer turns), whatever `owner` is shared."""
        self.games: dict[str, WebGame] = {}
        self._opening: dict[str, asyncio.Lock] = {}
        self.levels = tuple(levels)
        self._reviews: dict[int, dict[str, Any]] = {}
        self.bus: Bus = LocalBus()
        """Where this process announces its games' new versions (`attach_bus`)."""
        self._refreshing: set[str] = set()
        self._refresh_again: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._bus_down = Outage("game bus: could not publish", _log)

    def share_games(self, secret: str) -> None:
        """Let every process with this server secret serve every game against the computer:
        they hold a game's lease under one owner token, and each write is made only onto the
        version the process last saw (`Session.optimistic`), so a game moves on wherever its
        player's connection lands, one writer at a time (docs/web.md, "Several processes")."""
        digest = hashlib.sha256(f"fifteentwo-web-games\0{secret}".encode()).hexdigest()
        self.owner = digest[:32]

    def attach_bus(self, bus: Bus) -> None:
        """Announce every write of a game on ``bus`` (start it with `on_bus` as its games'
        handler): a page connected to another process is sent the new state at once."""
        self.bus = bus

    async def _announce(self, game: WebGame) -> None:
        """Publish the game's new version (-1 once it left the store) for other processes."""
        if isinstance(self.bus, LocalBus):
            return
        session = game.session
        version = -1 if session.is_over else session.version
        if version is None:
            return
        try:
            await self.bus.publish_game(game.game_id, version)
        except Exception as exc:  # the other processes catch up at their pages' next message
            self._bus_down.failed(exc)
        else:
            self._bus_down.worked()

    async def on_bus(self, game_id: str, version: int) -> None:
        """Another process wrote a game: if pages of it are connected here, send them the new
        state. Returns at once (the bus waits for it); one refresh per game runs at a time, and
        announcements that arrive meanwhile are caught up by one more."""
        game = self.games.get(game_id)
        if game is None or not game.listeners or version == game.session.version:
            return
        if game_id in self._refreshing:
            self._refresh_again.add(game_id)
            return
        self._refreshing.add(game_id)
        task = asyncio.create_task(self._refresh(game))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _refresh(self, game: WebGame) -> None:
        try:
            while True:
                self._refresh_again.discard(game.game_id)
                if not game.listeners or game.session.is_over:
                    return
                try:
                    async with game.lock:
                        before = game.session.version
                        version = await self.store_call(self.store.game_version, game.game_id)
                        if version is None:
                            self._gone(game)
                        if version != before:
                            await self._reload(game, play_on=False)
                            await self._broadcast(game, (), log=True)
                except Refused as exc:
                    for listener in list(game.listeners):
                        await listener.send(
                            {"type": "error", "code": exc.code, "message": str(exc)}
                        )
                    return
                except StoreError:
                    return
                if game.game_id not in self._refresh_again:
                    return
        finally:
            self._refreshing.discard(game.game_id)

    def _claim_turn(self, session: Session) -> bool:
        """Whether this process computes the session's computer turn (one process per turn).
        A process alone (no bus: a server without Redis is the only one serving its store)
        needs no claim row, which saves a write per action."""
        if session.game_id is None or session.version is None or isinstance(self.bus, LocalBus):
            return True
        try:
            return self.store.claim_turn(
                session.game_id, session.version, owner=self.process, seconds=CLAIM_SECONDS
            )
        except StoreUnavailable:
            # issue 35: a store that is down (a full disk, a database restarting) holds no
            # claim for anyone: this process plays the turn, and the session saves it once the
            # store is back (`Session.save`), so the person's move is neither refused nor lost
            return True

    # --- plumbing ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Open the store on its own thread (a failure is one clear error)."""
        self._store = await self._in_store_thread(self._open_store)

    async def close(self) -> None:
        """Release every lease and close the store."""
        store = self._store
        if store is not None:
            for game_id in list(self.games):
                with contextlib.suppress(StoreError):
                    await self._in_store_thread(partial(store.release, game_id, owner=self.owner))
            await self._in_store_thread(store.close)
        self._store = None
        self._compute.shutdown(wait=False, cancel_futures=True)
        self._quick.shutdown(wait=False, cancel_futures=True)
        self._store_pool.shutdown(wait=True)

    @property
    def store(self) -> Store:
        """The open store."""
        if self._store is None:
            raise StoreError("the server's store is not open")
        return self._store

    @property
    def _journals(self) -> bool:
        """Whether a write the store cannot make goes to a journal and the game on (SQLite);
        elsewhere (PostgreSQL) a move whose write found the store down is refused."""
        return isinstance(self._store, SQLiteStore)

    async def _in_store_thread(self, fn: Callable[[], _T]) -> _T:
        return await asyncio.get_running_loop().run_in_executor(self._store_pool, fn)

    async def store_call(self, fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """Run a store method on the store's thread."""
        return await self._in_store_thread(partial(fn, *args, **kwargs))

    async def compute(self, fn: Callable[..., _T], *args: Any) -> _T:
        """Run engine or bot work on the pool, off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self._compute, partial(fn, *args))

    async def compute_move(
        self, game: WebGame, fn: Callable[..., _Move | None], *args: Any
    ) -> _Move | None:
        """`compute` for a move of ``game`` (``fn`` returns its events and the computers'
        thinking, as `WebSession.timed_act`). A game whose computers all answer at once, on
        SQLite: on the event loop itself once their levels have proven quick, else on the
        quick thread; the slow levels' moves and PostgreSQL's go to the pool.

        On the loop, a move costs about a quarter less CPU than on a thread, where the
        thread and the loop hand the interpreter lock to each other at every SQLite call
        (docs/web.md, "Hosting at scale"). It goes there only when the store is free within
        `STORE_WAIT` and well (`SqlStore.idle`: no other thread of this process in it, no
        failure being waited out), and only for levels whose last `PROVEN_MOVES` moves each
        thought under `QUICK_MOVE`. A move whose computers thought longer sends its game to
        the pool for good and its levels back to the quick thread until they have proven
        quick again; while the quick thread is held up past `QUICK_MOVE`, moves go to the
        pool: a computer slower than its level says delays others once, never for long."""
        loop = asyncio.get_running_loop()
        held = self._quick_since is not None and time.monotonic() - self._quick_since > QUICK_MOVE
        store = self._store
        if game.slow or held or not isinstance(store, SQLiteStore) or game.session.decision_first():
            return await loop.run_in_executor(self._compute, partial(fn, *args))
        levels = {type(player) for player in game.session.players.values()}
        if all(self._proven.get(level, 0) >= PROVEN_MOVES for level in levels):
            with store.idle(wait=STORE_WAIT) as free:
                if free:
                    done = fn(*args)
                    self._timed(game, levels, done)
                    return done

        def timed() -> _Move | None:
            if self._quick_since is None:
                self._quick_since = time.monotonic()
            try:
                done = fn(*args)
            finally:
                self._quick_since = None
            self._timed(game, levels, done)
            return done

        if self._quick_since is None:
            self._quick_since = time.monotonic()
        return await loop.run_in_executor(self._quick, timed)

    def _timed(self, game: WebGame, levels: set[type], done: _Move | None) -> None:
        """Count a quick move to its levels' proof by its computers' thinking (what a level
        costs wherever it runs, whatever the store and the other threads were doing), or send
        a slow one's game to the pool and its levels back to the quick thread."""
        if done is None:
            return  # (not made: this copy was behind)
        if done[1] > QUICK_MOVE:
            game.slow = True
            for level in levels:
                self._proven[level] = 0
        else:
            for level in levels:
                self._proven[level] = self._proven.get(level, 0) + 1

    # --- games -------------------------------------------------------------------------------

    async def create(
        self, request: NewGameRequest, *, account: str | None = None
    ) -> tuple[str, str]:
        """Start a game: returns its id and the token that plays it (shown once, never stored).
        ``account``: the owner hint of the account logged in, whose history keeps the game."""
        level = request.level
        try:
            level = check_level(level)
        except FifteenTwoError:
            raise Refused("bad_request", f"unknown level {level!r}") from None
        if self.levels and level not in self.levels:
            raise Refused("bad_request", f"level {level!r} is not offered here")
        options = PlayOptions(
            variant=request.variant,
            level=level,
            muggins=True if request.manual_count else None,
            auto_count=not request.manual_count,
            random_cut=not request.cut,
            coach=request.coach,
        )
        rules = options.preset_rules()
        token = secrets.token_urlsafe(24)
        session = WebSession(
            rules,
            options.seats(rules),
            secrets.randbits(63),
            auto_count=options.auto_count,
            random_cut=options.random_cut,
            store=self.store,
            owner=self.owner,
            kind=KIND,
            owner_hint=account or player_hash(request.player),  # issue 35: the account's game
            on_notice=_log.warning,
            web={"token": token_hash(token), "coach": request.coach},
            optimistic=True,
            turn_claim=self._claim_turn,
        )
        await self.compute(session.run)  # computers to the first decision; saved on the way
        if session.game_id is None:
            raise Refused("unavailable", "the game store cannot keep games just now")
        game = WebGame(session.game_id, session)
        self.games[game.game_id] = game
        return game.game_id, token

    async def open(self, game_id: str, token: str) -> WebGame:
        """The game for this id and token, loaded from the store if needed.

        An unknown id and a wrong token give the same answer, so neither can be probed."""
        game = self.games.get(game_id)
        if game is None:
            lock = self._opening.setdefault(game_id, asyncio.Lock())
            try:
                async with lock:
                    game = self.games.get(game_id)
                    if game is None:
                        game = await self._load(game_id, token)
            finally:
                self._opening.pop(game_id, None)
        else:
            async with game.lock:
                if game.session.is_over and not game.behind:
                    self._gone(game)  # finished: answered as on a process that never held it
                await self._fresh(game)
        if not hmac.compare_digest(game.token_hash, token_hash(token)):
            raise Refused("no_game", "no game with that id and token")
        game.last_used = time.monotonic()
        return game

    async def _fresh(self, game: WebGame, *, change: bool = False) -> None:
        """Bring this process's copy up to the stored game if another process moved it on
        (one read of its version; a reload only when it changed). Call under ``game.lock``.

        Before a ``change`` (a move, an undo) a store that cannot answer refuses it: the
        `StoreError` reaches the socket as an ``unavailable`` reply within the store's deadline
        and nothing is applied, so no process plays on from a copy the store never saw (issue
        35). A store that answers but cannot write (a full disk) lets the move go on in memory,
        saved whole once space returns (`Session.save`)."""
        if game.behind:
            await self._reload(game)  # (a store still down raises: nothing is answered from it)
            return
        if game.session.is_over:
            return
        try:
            version = await self.store_call(self.store.game_version, game.game_id)
        except StoreError:
            if change:
                raise
            return  # the write will tell (a conflict, or the store's own error)
        if version is None and game.session.version is not None:
            self._gone(game)  # finished or abandoned through another process
        if version is None or version == game.session.version:
            return
        await self._reload(game)

    async def _read_on(self, game: WebGame) -> None:
        """Replace a copy found behind the store by a write (its in-memory move discarded):
        the stored game, or `_gone` when it is no longer in progress. Not `_fresh`, which
        leaves alone a copy that is over, as a move the store refused may have left it."""
        version = await self.store_call(self.store.game_version, game.game_id)
        if version is None:
            self._gone(game)
        await self._reload(game)

    def _gone(self, game: WebGame) -> NoReturn:
        """Forget a game that is no longer in progress in the store and refuse it as
        `no_game`: every process answers a finished game the same way (the finished row is
        in the history), whichever of them played its last move."""
        self.games.pop(game.game_id, None)
        raise Refused("no_game", "this game is no longer in progress: it is finished or abandoned")

    async def _reload(self, game: WebGame, *, play_on: bool = True) -> None:
        """Replace this process's copy of the game with the stored one (and, with
        ``play_on``, make a computer turn it finds pending: `_computers_on`)."""
        try:
            session = await self.compute(
                partial(
                    WebSession.resume,
                    self.store,
                    game.game_id,
                    owner=self.owner,
                    on_notice=_log.warning,
                    optimistic=True,
                    turn_claim=self._claim_turn,
                )
            )
        except GameBusy:
            raise Refused("busy", "this game is open in another program") from None
        except StoreUnavailable:
            raise
        except (SaveError, StoreError) as exc:
            raise Refused("no_game", f"this game cannot be resumed: {exc}") from None
        assert isinstance(session, WebSession)
        game.session = session
        game.behind = False
        game._describers.clear()
        if play_on:
            await self._computers_on(game)

    async def _computers_on(self, game: WebGame) -> None:
        """The computers' turn of a stored game, made by exactly one process: this one when it
        gets the turn's claim (the process thinking for it died, or it is this one's own turn),
        else it waits for the claimant's moves to be stored (a lapsed claim is taken over)."""
        deadline = time.monotonic() + 2 * CLAIM_SECONDS + 5
        while not await self._computers_try(game):
            if time.monotonic() > deadline:
                raise Refused("busy", "the computer's move is taking too long: try again")
            await asyncio.sleep(CLAIM_POLL)
            await self._catch_up(game)

    async def _computers_try(self, game: WebGame) -> bool:
        """One try at the computers' turn (`_computers_on`); False while another process
        holds its claim."""
        while not game.session.is_over and game.session.waiting_for is None:
            before = game.session.version
            try:
                await self.compute(game.session.run)
            except SaveConflict:  # stored by another process meanwhile
                await self._reload(game, play_on=False)
                continue
            if game.session.is_over or game.session.waiting_for is not None:
                if game.session.version != before or game.session.is_over:
                    await self._announce(game)  # this process made the computers' turn
                return True
            return False
        return True

    async def _catch_up(self, game: WebGame) -> None:
        """Read the stored game again if another process moved it on."""
        version = await self.store_call(self.store.game_version, game.game_id)
        if version is not None and version != game.session.version:
            await self._reload(game, play_on=False)

    async def _computers_later(self, game: WebGame) -> None:
        """`_computers_on` for a game just opened whose computers' turn another process
        claimed (it may have died thinking: a kill -9): the page is answered at once with the
        state (the computer to move), and this task sends it the turn when it is stored or,
        once the claim lapses, made here. The game's lock is held only for each look, so the
        page's messages are answered meanwhile."""
        deadline = time.monotonic() + 2 * CLAIM_SECONDS + 5
        try:
            while time.monotonic() < deadline:
                await asyncio.sleep(CLAIM_POLL)
                async with game.lock:
                    if self.games.get(game.game_id) is not game:
                        return  # forgotten or replaced meanwhile
                    await self._catch_up(game)
                    if await self._computers_try(game):
                        await self._broadcast(game, (), log=True)
                        return
            async with game.lock:
                await self._tell(game, "busy", "the computer's move is taking too long: try again")
        except Refused as exc:
            async with game.lock:
                await self._tell(game, exc.code, str(exc))
        except StoreError as exc:
            _log.warning("game %s: the computers' turn waits for the store: %s", game.game_id, exc)

    async def _tell(self, game: WebGame, code: str, message: str) -> None:
        for listener in list(game.listeners):
            await listener.send({"type": "error", "code": code, "message": message})

    async def _load(self, game_id: str, token: str) -> WebGame:
        try:
            saved = await self.store_call(self.store.load_game, game_id)
        except StoreUnavailable:
            raise  # (`unavailable`: the page keeps the game's token and asks again)
        except (GameNotFound, StoreError):
            raise Refused("no_game", "no game with that id and token") from None
        web = saved.data.get("web")
        if not isinstance(web, dict) or not isinstance(web.get("token"), str):
            raise Refused("no_game", "no game with that id and token")
        if not hmac.compare_digest(web["token"], token_hash(token)):
            raise Refused("no_game", "no game with that id and token")
        try:
            session = await self.compute(
                partial(
                    WebSession.resume,
                    self.store,
                    game_id,
                    owner=self.owner,
                    on_notice=_log.warning,
                    optimistic=True,
                    turn_claim=self._claim_turn,
                )
            )
        except GameBusy:
            raise Refused("busy", "this game is open in another program") from None
        except StoreUnavailable:
            raise
        except (SaveError, StoreError) as exc:
            raise Refused("no_game", f"this game cannot be resumed: {exc}") from None
        assert isinstance(session, WebSession)
        game = WebGame(game_id, session)
        if not await self._computers_try(game):
            # another process claimed the computers' turn: answer the page now, the turn
            # follows when it is stored (or made here once the claim lapses)
            task = asyncio.create_task(self._computers_later(game))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        self.games[game_id] = game
        return game

    async def join(self, game: WebGame, listener: Listener) -> dict[str, Any]:
        """Add a listener; returns the full state (with the log) for it."""
        async with game.lock:
            if not game.listeners:  # hear other processes' moves while a page is here
                self.bus.watch_game(game.game_id)
            game.listeners.add(listener)
            return game.state(listener.seat, log=True)

    def leave(self, game: WebGame, listener: Listener) -> None:
        """Forget a closed connection."""
        game.listeners.discard(listener)
        game.last_used = time.monotonic()
        current = self.games.get(game.game_id, game)
        if not game.listeners and not current.listeners:
            self.bus.unwatch_game(game.game_id)

    async def act(self, game: WebGame, seat: int, decision: int, data: Any) -> None:
        """Apply a seat's action if it answers the pending decision and is legal; tell every
        listener what happened. Raises `Refused` (and changes nothing) otherwise."""
        action = to_action(data)
        async with game.lock:
            session = game.session
            remark = None
            # a short claim shown by its claim alone until this answer: its verdict comes next
            answered = held_claim(session.game) if isinstance(action, Muggins) else None
            try:  # the session saves after every step
                done = None
                if not game.coach_on:  # the usual move: one trip to a worker
                    try:
                        done = await self.compute_move(
                            game, self._act_if_current, game, seat, decision, action
                        )
                    except SaveConflict:
                        # this copy was behind (another process moved the game on): the
                        # move it made in memory was not stored; read on and try it again
                        await self._read_on(game)
                if done is None:
                    await self._fresh(game, change=True)
                    session = game.session
                    self._check_move(game, seat, decision, action)
                    if game.coach_on:
                        obs = session.observation(seat)
                        remark = await self.compute(_remark, game.coach(), obs, action)
                    done = await self.compute(session.timed_act, action)
                events, thinking = done
            except SaveConflict:  # another process answered this decision first
                await self._reload(game)
                await self._broadcast(game, (), log=True)
                raise Refused("stale", "the game moved on in another window") from None
            except SaveError as exc:
                raise Refused("busy", str(exc)) from None
            think_ms = thinking * 1000
            if not session.is_over and session.waiting_for is None:
                # another process holds this turn's claim: its moves come from the store
                await self._computers_on(game)
                await self._broadcast(game, events, remark=remark, log=True, answered=answered)
                await self._announce(game)
                return
            if session.is_over and any(isinstance(e, GameOver) for e in events):
                await self._note_finished(game)
            await self._broadcast(game, events, remark=remark, think_ms=think_ms, answered=answered)
            await self._announce(game)

    def _act_if_current(
        self, game: WebGame, seat: int, decision: int, action: Action
    ) -> tuple[list[Event], float] | None:
        """On a worker (or the loop), under the game's lock: the move checked and made
        (`WebSession.timed_act`) on this process's copy. None: the copy may be behind, or
        holds a move the store refused (`WebGame.behind`): the caller reads the store and
        checks again (`_fresh`).

        The stored version is not read first: the step is stored only onto the version this
        copy holds (compare and swap), and a copy that was behind raises `SaveConflict` (the
        caller reads on and tries again). A store that cannot write: SQLite keeps the game
        going in memory and its journal (issue 35's file store); PostgreSQL is asked once
        whether it answers at all, and if not the move is refused (`StoreUnavailable`, nothing
        kept: the copy is read again before its next use), so no process plays on from a copy
        the store never saw. One that answers but cannot write (a full disk) keeps the move
        in memory, saved whole once it can (`Session.save`). (A read before every move said
        the same for a round trip per move: a fifth of a move's CPU on PostgreSQL; issue 32.)"""
        session = game.session
        if game.behind or (
            not session.is_over and (decision != game.decision or session.waiting_for != seat)
        ):
            return None  # (this copy may be behind: the caller reads on and checks)
        self._check_move(game, seat, decision, action)
        done = session.timed_act(action)
        if session.store_trouble is not None and not self._journals:
            try:
                self.store.game_version(game.game_id)
            except StoreError:
                game.behind = True  # (the move stays out: the copy is read again first)
                raise
        return done

    def _check_move(self, game: WebGame, seat: int, decision: int, action: Action) -> None:
        """Refuse a move that does not answer the seat's pending decision or is not legal."""
        self._check_turn(game, seat, decision)
        if not game.session.game.is_legal(action):
            if isinstance(action, Count):
                raise Refused("illegal", f"{action.points} is more than you hold: count again")
            raise Refused("illegal", f"{action_label(action, ascii_only=True)} is not legal now")

    def _check_turn(self, game: WebGame, seat: int, decision: int) -> None:
        if game.session.is_over:
            raise Refused("game_over", "this game is over")
        if decision != game.decision:
            raise Refused(
                "stale", f"that answers decision {decision}; decision is now {game.decision}"
            )
        if game.session.waiting_for != seat:
            raise Refused("not_your_turn", "it is not your turn")

    async def undo(self, game: WebGame, seat: int, decision: int) -> None:
        """Take back the seat's last decision, where the session allows it."""
        async with game.lock:
            await self._fresh(game, change=True)
            if decision != game.decision:
                raise Refused("stale", "the game moved on")
            why = game.session.cannot_undo()
            if why is not None:
                raise Refused("cannot_undo", f"cannot take back: {why}")
            try:
                await self.compute(game.session.undo)
            except SaveConflict:
                await self._reload(game)
                raise Refused("stale", "the game moved on in another window") from None
            except FifteenTwoError as exc:
                raise Refused("cannot_undo", str(exc)) from None
            await self._broadcast(game, (), log=True)
            await self._announce(game)

    async def state(self, game: WebGame, seat: int) -> dict[str, Any]:
        """The game's state for a page that asked for it (the log included); a copy holding a
        move the store never took is read again first (`WebGame.behind`)."""
        async with game.lock:
            if game.behind:
                await self._fresh(game)
            return game.state(seat, log=True)

    async def hint(self, game: WebGame, seat: int) -> dict[str, Any]:
        """The coach's top choices for the seat's pending decision."""
        async with game.lock:
            if game.behind:
                await self._fresh(game)
            session = game.session
            if session.waiting_for != seat:
                raise Refused("not_your_turn", "there is no decision of yours to hint")
            obs = session.observation(seat)
            lines, best = await self.compute(_hints, game.coach(), obs)
            return {"type": "hint", "decision": game.decision, "lines": lines, "best": best}

    async def set_coach(self, game: WebGame, on: bool) -> None:
        """Turn the coach's remarks on or off (kept with the game)."""
        async with game.lock:
            await self._fresh(game)
            game.session.web["coach"] = on
            try:
                await self.compute(game.session.save)
            except SaveConflict:
                await self._reload(game)
                raise Refused("stale", "the game moved on in another window") from None
            await self._broadcast(game, ())
            await self._announce(game)

    async def _note_finished(self, game: WebGame) -> None:
        """The finished row the session just stored (for the review link): the id its finish
        returned, or, when the finish went to the journal while the store was down, looked up
        among the owner's last games (reading them parses their records: done at every game's
        end, that was 7% of the server's work per move for a player with a history)."""
        session = game.session
        new = [i for i in session.finished_ids if i not in game.finished]
        if new:
            game.finished.extend(new)
            return
        rows = await self.store_call(
            self.store.finished_games, 10, owner_hint=session.owner_hint or None
        )
        for row in rows:
            if row.get("seed") == session.seed and row.get("kind") == KIND:
                game.finished.append(int(row["id"]))
                return

    async def _broadcast(
        self,
        game: WebGame,
        events: Sequence[Event],
        *,
        remark: str | None = None,
        think_ms: float = 0.0,
        log: bool = False,
        answered: HandCounted | None = None,
    ) -> None:
        """Send each listener the new state from its own seat (events redacted for it;
        ``answered``: `WebGame.state`)."""
        viewer = game.session.viewer
        for listener in list(game.listeners):
            seat = listener.seat
            mine = events if seat == viewer else game.session.game.events_for(seat, events)
            message = game.state(
                seat, events=mine, remark=remark, think_ms=think_ms, log=log, answered=answered
            )
            await listener.send(message)

    async def sweep(self) -> None:
        """Drop idle games from memory (releasing their leases) and renew the others, in
        short writes of `SWEEP_BATCH` leases (`Store.heartbeat_many`) with pauses between
        them: the store is never held long from the moves (`compute_move`)."""
        now = time.monotonic()
        renew = []
        for game_id, game in list(self.games.items()):
            if game.lock.locked():
                continue
            idle = not game.listeners and now - game.last_used > IDLE_SECONDS
            if idle or (game.session.is_over and not game.listeners):
                self.games.pop(game_id, None)
                if not game.session.is_over:
                    with contextlib.suppress(StoreError):
                        await self.compute(game.session.release)
            elif not game.session.is_over:
                renew.append(game_id)
        for start in range(0, len(renew), SWEEP_BATCH):
            if start:
                await asyncio.sleep(SWEEP_PAUSE)  # (the moves have the store in between)
            with contextlib.suppress(StoreError):
                batch = renew[start : start + SWEEP_BATCH]
                await self.store_call(self.store.heartbeat_many, batch, owner=self.owner)

    async def run_sweeper(self, every: float = 60.0) -> None:
        """`sweep` forever (a server task)."""
        while True:
            await asyncio.sleep(every)
            with contextlib.suppress(Exception):
                await self.sweep()

    # --- after the game ----------------------------------------------------------------------

    async def history(self, player: str | None, account: str | None = None) -> dict[str, Any]:
        """Finished games and totals of one browser (by its key), or of the account logged in
        there (issue 35: an account's games follow it to any device)."""
        from fifteentwo.web.stats import history_json

        hint = account or player_hash(player)
        if not hint:
            return {"games": [], "totals": [], "roles": {}}
        rows = await self.store_call(self.store.finished_games, 200, owner_hint=hint)
        totals = await self.store_call(self.store.totals, owner_hint=hint)
        return history_json(rows, totals)

    async def in_progress(
        self, player: str | None, account: str | None = None
    ) -> list[dict[str, Any]]:
        """Games in progress of one browser and of its account (ids and details; tokens stay
        in the browser that started them)."""
        saved = []
        for hint in dict.fromkeys(h for h in (player_hash(player), account) if h):
            saved += await self.store_call(self.store.list_games, owner_hint=hint)
        return [g.to_json() for g in saved if g.meta.kind == KIND]

    async def review(self, row_id: int, player: str | None, *owners: str | None) -> dict[str, Any]:
        """The review of one finished game of this browser, or of the account or cookie
        identity given in ``owners`` (issue 35: a table game's review opens on any of its
        players' devices); computed once, then kept."""
        from fifteentwo.web.stats import review_json

        hints = [h for h in (player_hash(player), *owners) if h]
        try:
            row = await self.store_call(self.store.finished_game, row_id)
        except (GameNotFound, CorruptGame):  # (a store that is down answers 503)
            raise Refused("no_game", "no such finished game") from None
        stored = str(row.get("owner_hint", ""))
        if not any(hmac.compare_digest(stored, h) for h in hints):
            raise Refused("no_game", "no such finished game")
        cached = self._reviews.get(row_id)
        if cached is None:
            cached = await self.compute(review_json, row)
            if len(self._reviews) > 64:
                self._reviews.pop(next(iter(self._reviews)))
            self._reviews[row_id] = cached
        return cached


def _hints(coach: Coach, obs: Any) -> tuple[list[str], dict[str, Any] | None]:
    """The coach's lines and its best choice (for the page to point at)."""
    lines = coach.hint_lines(obs, top=3)  # (the page marks the best on the cards too)
    ranked = coach.ranking(obs) if obs.legal and obs.phase.value in ("discard", "play") else []
    return lines, action_json(ranked[0].action) if ranked else None


def _remark(coach: Coach, obs: Any, action: Action) -> str | None:
    try:
        return coach.remark(obs, action)
    except FifteenTwoError:
        return None


async def gather_quietly(*tasks: Awaitable[Any]) -> None:
    """Await tasks, ignoring their errors (closing connections)."""
    await asyncio.gather(*tasks, return_exceptions=True)
