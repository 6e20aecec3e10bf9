"""Who is at the browser: a session kept in the store, anonymous until a login.

The cookie holds only a random id (``secrets.token_urlsafe(32)``); the store keeps its SHA-256
with the session's player id, account and times, so logout, "sign out everywhere", a password
change and the idle and absolute lifetimes end a session at once on every process (each request
reads the store; nothing is cached). A login starts a new session (no fixation). Passwords are
hashed with argon2 (``argon2-cffi``, its recommended parameters; old hashes are upgraded at the
next login), NFKC-normalized, 8 to 512 characters, and refused when among the 10,000 most
common (the password list of ``zxcvbn``, MIT) or containing the username.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import re
import secrets
import time
import unicodedata
from dataclasses import dataclass
from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from fifteentwo.store import Store, StoreError
from fifteentwo.store.base import Account, AccountExists, WebSession

__all__ = [
    "COOKIE",
    "SECURE_COOKIE",
    "Accounts",
    "Identity",
    "check_password",
    "common_passwords",
    "normalized",
    "server_secret",
]

COOKIE: Final = "ft_session"
SECURE_COOKIE: Final = "__Host-ft_session"
"""The cookie's name over TLS: the ``__Host-`` prefix makes browsers refuse it unless it is
Secure, for this host only and for every path (a sibling subdomain cannot plant one)."""
USERNAME: Final = re.compile(r"[A-Za-z0-9_.-]{3,32}")
MIN_PASSWORD: Final = 8
MAX_PASSWORD: Final = 512
COMMON_PASSWORDS: Final = 10_000
TOUCH_EVERY: Final = 60.0
"""A session's last use is written at most once a minute (its idle lifetime is days), or every
quarter of the idle lifetime when that is shorter, so a session in use never ends idle."""
PURGE_EVERY: Final = 3600.0
_HASHER: Final = PasswordHasher()
_DUMMY: Final = _HASHER.hash("not a password of anyone")
_ID: Final = re.compile(r"[A-Za-z0-9_-]{43}")
SECRET_SETTING: Final = "web.secret"
NAME_IN_USE: Final = "that username cannot be used: choose another"


def server_secret(store: Store, given: str | None) -> str:
    """The site's secret: ``--secret``/``$FIFTEENTWO_SECRET``, else one made once and kept in
    the store (so every process sharing the store agrees). Sessions do not use it (they are
    random ids kept in the store); the processes use it to serve each other's games."""
    if given:
        return given
    found = store.get_setting(SECRET_SETTING)
    if found:
        return found
    made = secrets.token_urlsafe(32)
    store.set_setting(SECRET_SETTING, made)
    return store.get_setting(SECRET_SETTING) or made


@dataclass(frozen=True, slots=True)
class Identity:
    """The browser: its anonymous player id, and its account when logged in; ``key`` is its
    session's key in the store (empty for a browser that has none yet)."""

    player: str
    account_id: str | None = None
    username: str | None = None
    key: str = ""

    @property
    def owner_hint(self) -> str:
        """What the store files this browser's games and results under: the account when
        logged in (so they follow the person across devices), else the anonymous player."""
        return f"a:{self.account_id}" if self.account_id else f"c:{self.player}"


def session_key(session_id: str) -> str:
    """What the store keeps of a session id: its SHA-256 (a leaked table logs nobody in)."""
    return hashlib.sha256(session_id.encode()).hexdigest()


@functools.cache
def common_passwords() -> frozenset[str]:
    """The 10,000 most common passwords, lower case (zxcvbn's frequency-ranked list)."""
    from zxcvbn.frequency_lists import FREQUENCY_LISTS  # type: ignore[import-untyped]

    return frozenset(p.casefold() for p in FREQUENCY_LISTS["passwords"][:COMMON_PASSWORDS])


def normalized(password: str) -> str:
    """The password as hashed: NFKC, so the same phrase typed on any keyboard matches."""
    return unicodedata.normalize("NFKC", password)


def check_password(username: str, password: str) -> None:
    """`ValueError` (one line saying the rule) for a password that may not be used."""
    password = normalized(password)
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ValueError(
            f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters (spaces and any "
            "letters allowed: a long phrase is best)"
        )
    folded = password.casefold()
    if username and username.casefold() in folded:
        raise ValueError("a password may not contain the username")
    if folded in common_passwords() or folded.strip() in common_passwords():
        raise ValueError("that password is one of the most common ones: choose another")


class Accounts:
    """Sessions, registration, login and password changes over a store. Blocking (the store,
    argon2): the web routes call it off the event loop."""

    def __init__(self, store: Store, *, idle: float = 14 * 86400.0, absolute: float = 60 * 86400.0):
        self.store = store
        self.idle, self.absolute = idle, absolute
        self._purged = 0.0

    # --- sessions ------------------------------------------------------------------------------

    def identity(self, session_id: str | None) -> Identity | None:
        """The live session a cookie names, or None (absent, unknown, ended or expired)."""
        if not session_id or not _ID.fullmatch(session_id):
            return None
        key = session_key(session_id)
        found = self.store.web_session(key)
        if found is None:
            return None
        now = time.time()
        if now - found.seen_at > self.idle or now - found.created_at > self.absolute:
            self.store.end_web_sessions(key=key)
            return None
        if now - found.seen_at > min(TOUCH_EVERY, self.idle / 4):
            with contextlib.suppress(StoreError):  # a missed touch costs nothing; reads go on
                self.store.touch_web_session(key, now)
        return Identity(found.player, found.account_id, found.username, key)

    def start(
        self, player: str | None = None, account: Account | None = None, *, ending: str = ""
    ) -> tuple[str, Identity]:
        """A new session (ending the one with key ``ending``): the cookie's id and identity."""
        now = time.time()
        if ending:
            self.store.end_web_sessions(key=ending)
        if now - self._purged > PURGE_EVERY:
            self._purged = now
            self.store.purge_web_sessions(now - self.idle, now - self.absolute)
        session_id = secrets.token_urlsafe(32)
        key = session_key(session_id)
        player = player or secrets.token_urlsafe(16)
        account_id = account.account_id if account else None
        username = account.username if account else None
        self.store.create_web_session(WebSession(key, player, account_id, username, now, now))
        return session_id, Identity(player, account_id, username, key)

    def end(self, identity: Identity) -> None:
        """End this browser's session."""
        if identity.key:
            self.store.end_web_sessions(key=identity.key)

    def end_everywhere(self, identity: Identity) -> int:
        """End every session of this browser's account (this one too); how many."""
        if identity.account_id:  # (this session is one of the account's: counted once)
            ended = self.store.end_web_sessions(account_id=identity.account_id)
            self.end(identity)
            return ended
        self.end(identity)
        return 1 if identity.key else 0

    # --- accounts ------------------------------------------------------------------------------

    def register(self, username: str, password: str) -> Account:
        """A new account; `ValueError` (one line) for a bad name or password or a name in use.

        Usernames are public (tables, the leaderboard), so registration is the one answer that
        tells whether a name exists (docs/web.md, "What registration tells"): it does so only for
        a valid name and an acceptable password, after the same argon2 work as a new account,
        and the routes limit it per client address."""
        if not USERNAME.fullmatch(username):
            raise ValueError("a username is 3 to 32 letters, digits, '.', '_' or '-'")
        check_password(username, password)
        password_hash = _HASHER.hash(normalized(password))
        try:
            return self.store.create_account(username, password_hash)
        except AccountExists:
            raise ValueError(NAME_IN_USE) from None

    def login(self, username: str, password: str) -> Account:
        """The account if the password matches; `ValueError` otherwise (the same message for
        an unknown name, so names cannot be probed; the same work, so neither can timing)."""
        account = self.store.account_by_name(username) if USERNAME.fullmatch(username) else None
        phrase = normalized(password[: MAX_PASSWORD * 4])
        if not _verify(account.password_hash if account else _DUMMY, phrase) or account is None:
            raise ValueError("wrong username or password")
        if _HASHER.check_needs_rehash(account.password_hash):
            self.store.set_password_hash(account.account_id, _HASHER.hash(phrase))
        return account

    def change_password(self, identity: Identity, current: str, new: str) -> Account:
        """Set a new password after checking the current one, and end every other session of
        the account; `ValueError` (one line) if refused. The caller renews this session."""
        if not identity.account_id or not identity.username:
            raise PermissionError("sign in first")
        account = self.login(identity.username, current)
        check_password(account.username, new)
        self.store.set_password_hash(account.account_id, _HASHER.hash(normalized(new)))
        self.store.end_web_sessions(account_id=account.account_id, keep=identity.key)
        return account


def _verify(password_hash: str, password: str) -> bool:
    try:
        return bool(_HASHER.verify(password_hash, password))
    except (VerificationError, InvalidHashError):
        return False
