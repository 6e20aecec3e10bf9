"""The WebSocket and HTTP message shapes, as pydantic models: every message a client sends is
parsed by one of these before anything else looks at it (docs/web.md lists them all).

Models are strict (no coercion, no unknown fields) and bounded (short strings, short lists), so a
malformed or oversized message is refused whole with one error and changes nothing.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
)

from fifteentwo.web.talk import clean_text

SeatName = Annotated[str, StringConstraints(max_length=40), AfterValidator(clean_text)]
"""A name a person gives their seat: shown to others, so cleaned as table talk is (control,
bidi-override and zero-width characters removed, whitespace made single spaces): no name
can pass for another's or reorder what is shown around it."""

__all__ = [
    "MAX_MESSAGE_BYTES",
    "VARIANTS",
    "ActMessage",
    "ClientMessage",
    "HelloMessage",
    "JoinMessage",
    "NewGameRequest",
    "NewTableRequest",
    "QuickMatchRequest",
    "RematchMessage",
    "SitRequest",
    "TalkMessage",
    "TicketRequest",
    "first_error",
    "parse_client_message",
]

MAX_MESSAGE_BYTES: Final = 2048
"""The largest client message accepted; every legal one is far smaller."""

VARIANTS: Final = ("standard", "short", "five-card", "three-player", "four-player")
"""The variants a web game offers: two players to 121 or 61, five-card, three, four (partners)."""

CardName = Annotated[str, StringConstraints(min_length=2, max_length=3, pattern=r"^[0-9A-Za-z]+$")]
LevelName = Annotated[
    str, StringConstraints(min_length=1, max_length=20, pattern=r"^[a-z][a-z0-9-]*$")
]
"""A computer level's name as the level menus offer it (``expert``, ``expert-1``, ...)."""
Secret = Annotated[
    str, StringConstraints(min_length=8, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class DiscardAction(_Strict):
    """Lay these cards away to the crib."""

    kind: Literal["discard"]
    cards: list[CardName] = Field(min_length=1, max_length=3)


class PlayAction(_Strict):
    """Lay one card on the count."""

    kind: Literal["play"]
    card: CardName


class GoAction(_Strict):
    """Say go."""

    kind: Literal["go"]


class CutAction(_Strict):
    """Cut the pack this many cards deep (when cutting by hand)."""

    kind: Literal["cut"]
    depth: int = Field(ge=0, le=52)


class CountAction(_Strict):
    """Claim a show total (when counting by hand): a number, or the count as typed (``"14"``,
    ``"fourteen"``, ``"twenty-nine"``; ``"nineteen"`` and ``"nothing"`` mean 0), read by the
    terminal's parser (`fifteentwo.app.counting.parse_count`) when the action is made."""

    kind: Literal["count"]
    points: Annotated[int, Field(ge=0, le=29)] | Annotated[str, StringConstraints(max_length=40)]


class MugginsAction(_Strict):
    """Take (or leave) the difference of an opponent's wrong claim: the points it missed, or
    the excess of an over-claim (corrected to the true total)."""

    kind: Literal["muggins"]
    take: bool


ActionModel = Annotated[
    DiscardAction | PlayAction | GoAction | CutAction | CountAction | MugginsAction,
    Field(discriminator="kind"),
]


class HelloMessage(_Strict):
    """Join a game as its player: the first message on every connection."""

    type: Literal["hello"]
    game: Secret
    token: Secret


class JoinMessage(_Strict):
    """Join a table: a seat with its seat token, or as a spectator with the watch token."""

    type: Literal["join"]
    table: Secret
    token: Secret


class RematchMessage(_Strict):
    """At a finished table: play again (it starts when every person asked; the loser deals)."""

    type: Literal["rematch"]


class ActMessage(_Strict):
    """Make the pending decision. ``decision`` is the number the last state carried, so a
    replayed or duplicated message (an older number) is refused."""

    type: Literal["act"]
    decision: int = Field(ge=0, le=100_000)
    action: ActionModel


class HintMessage(_Strict):
    """Ask the coach for the best choices at the pending decision."""

    type: Literal["hint"]


class UndoMessage(_Strict):
    """Take back your last decision (against the computer, where the game allows it)."""

    type: Literal["undo"]
    decision: int = Field(ge=0, le=100_000)


class CoachMessage(_Strict):
    """Turn the coach's remarks after each discard and play on or off."""

    type: Literal["coach"]
    on: bool


class StateMessage(_Strict):
    """Ask for the full current view again."""

    type: Literal["state"]


class PingMessage(_Strict):
    """Keep-alive; answered with ``pong``."""

    type: Literal["ping"]


class TalkMessage(_Strict):
    """Say something at a table: free text (cleaned and cut by `web.talk`) or a quick phrase
    by its key (``gg``, ``nice``, ``gl``, ``wp``, ``thanks``)."""

    type: Literal["talk"]
    text: Annotated[str, StringConstraints(max_length=MAX_MESSAGE_BYTES)] = ""
    """Any length the message allows: the server cuts it to 200 characters."""
    phrase: Literal["gg", "nice", "gl", "wp", "thanks"] | None = None


ClientMessage = Annotated[
    HelloMessage
    | JoinMessage
    | RematchMessage
    | ActMessage
    | HintMessage
    | UndoMessage
    | CoachMessage
    | StateMessage
    | PingMessage
    | TalkMessage,
    Field(discriminator="type"),
]

_CLIENT: Final[TypeAdapter[Any]] = TypeAdapter(ClientMessage)


def parse_client_message(text: str) -> Any:
    """One client message, validated; raises `pydantic.ValidationError` or `ValueError`."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
        raise ValueError(f"message longer than {MAX_MESSAGE_BYTES} bytes")
    return _CLIENT.validate_json(text)


class NewGameRequest(_Strict):
    """``POST /api/games``: the game to start."""

    variant: Literal["standard", "short", "five-card", "three-player", "four-player"] = "standard"
    level: LevelName = "expert"
    manual_count: bool = False
    """Count your own hands, with muggins: points you miss go to your opponent."""
    coach: bool = False
    cut: bool = False
    """Cut the pack yourself (choose how deep) instead of at random."""
    player: Secret | None = None
    """The browser's own random key: games and history are listed per key."""


class TableSeatSpec(_Strict):
    """One seat of a new table: a person (filled by link) or a computer of some level."""

    kind: Literal["person", "computer"]
    level: LevelName | None = None


class NewTableRequest(_Strict):
    """``POST /api/tables``: a table to create (the creator takes the first person seat)."""

    variant: Literal["standard", "short", "five-card", "three-player", "four-player"] = "standard"
    seats: list[TableSeatSpec] = Field(min_length=2, max_length=4)
    away_seconds: int = Field(default=120, ge=1, le=86_400)
    """How long a person may be away before ``away_action`` happens."""
    away_action: Literal["computer", "adjourn"] = "computer"
    """A computer takes the away person's seat (until they return), or the game is adjourned."""
    turn_seconds: int | None = Field(default=None, ge=5, le=3_600)
    """A turn timer: after this long a computer makes the pending decision."""
    name: SeatName = ""
    player: Secret | None = None
    rated: bool = True
    """False: never rated, even between people with accounts (the lobby shows which)."""
    lobby: bool = True
    """Listed in the lobby while it waits for people (False: only its link finds it)."""


class QuickMatchRequest(_Strict):
    """``POST /api/quick``: seat me with the next person who wants the same game."""

    variant: Literal["standard", "short", "five-card", "three-player", "four-player"] = "standard"
    rated: bool = False
    name: SeatName = ""


class TicketRequest(_Strict):
    """``POST /api/quick/poll`` and ``/api/quick/cancel``: a quick-match ticket."""

    ticket: Secret


class SitRequest(_Strict):
    """``POST /api/tables/{id}/sit``: take a free seat (the first free one if ``seat`` is None)."""

    seat: int | None = Field(default=None, ge=0, le=3)
    name: SeatName = ""
    player: Secret | None = None


# --- what the server sends (documented shapes; built by `web.games`) -----------------------------


class ErrorMessage(_Strict):
    """A refused message: nothing changed. ``code`` is one of docs/web.md's error codes."""

    type: Literal["error"] = "error"
    code: str
    message: str


class ServerState(BaseModel):
    """``state``: the full view of the player's seat (sent on hello, after every change)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["state"] = "state"
    game: str
    decision: int
    view: dict[str, Any]
    names: list[str]
    levels: list[str]
    variant: str
    waiting: bool
    can_undo: bool
    coach: bool
    pegs: dict[str, list[int]]
    over: bool
    finished: list[int]
    log: list[dict[str, Any]] | None = None


class ServerEvents(BaseModel):
    """``events``: what happened since the last message, as the seat may see it."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["events"] = "events"
    events: list[dict[str, Any]]
    remark: str | None = None
    think_ms: float = 0.0


def first_error(exc: ValidationError, empty: str = "invalid message") -> str:
    """A validation failure in one line: where, and what is wrong (at most 200 characters)."""
    errors = exc.errors()
    if not errors:
        return empty
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()))
    return f"{where}: {first.get('msg', 'invalid')}"[:200] if where else str(first.get("msg"))
