"""Who is at the browser: an anonymous signed cookie by default, an account when logged in.

The cookie is signed with the server's secret (``itsdangerous``): it carries a random player id
and, after a login, the account's id. Passwords are hashed with argon2 (``argon2-cffi``'s
`PasswordHasher`, its recommended parameters; old hashes are upgraded at the next login); the
store keeps only the hash. Logins are rate-limited per address and per username.
"""

from __future__ import annotations

import re
import secrets
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, URLSafeSerializer

from fifteentwo.store import Store
from fifteentwo.store.base import Account, AccountExists

__all__ = ["COOKIE", "Accounts", "Identity", "LoginLimiter", "server_secret"]

COOKIE: Final = "ft_session"
SECRET_SETTING: Final = "web.secret"
USERNAME: Final = re.compile(r"[A-Za-z0-9_.-]{3,32}")
MIN_PASSWORD: Final = 8
MAX_PASSWORD: Final = 256
_HASHER: Final = PasswordHasher()
_DUMMY: Final = _HASHER.hash("not a password of anyone")


@dataclass(frozen=True, slots=True)
class Identity:
    """The browser: its anonymous player id, and its account when logged in."""

    player: str
    account_id: str | None = None
    username: str | None = None

    @property
    def owner_hint(self) -> str:
        """What the store files this browser's games and results under: the account when
        logged in (so they follow the person across devices), else the anonymous cookie."""
        return f"a:{self.account_id}" if self.account_id else f"c:{self.player}"


def server_secret(store: Store, given: str | None) -> str:
    """The signing secret: ``--secret``/``$FIFTEENTWO_SECRET``, else one made once and kept
    in the store (so every process sharing the store signs alike)."""
    if given:
        return given
    found = store.get_setting(SECRET_SETTING)
    if found:
        return found
    made = secrets.token_urlsafe(32)
    store.set_setting(SECRET_SETTING, made)
    return store.get_setting(SECRET_SETTING) or made


class Accounts:
    """Cookies, registration and login over a store."""

    def __init__(self, store: Store, secret: str) -> None:
        self.store = store
        self._signer = URLSafeSerializer(secret, salt="fifteentwo-session")

    def identity(self, cookie: str | None) -> Identity | None:
        """The identity a cookie carries, or None (absent, forged or from another secret)."""
        if not cookie or len(cookie) > 512:
            return None
        try:
            data: Any = self._signer.loads(cookie)
        except BadSignature:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("p"), str):
            return None
        account = data.get("a")
        name = data.get("u")
        return Identity(
            data["p"],
            account if isinstance(account, str) else None,
            name if isinstance(name, str) else None,
        )

    @staticmethod
    def anonymous() -> Identity:
        """A new anonymous browser."""
        return Identity(secrets.token_urlsafe(16))

    def cookie(self, identity: Identity) -> str:
        """The signed cookie value for an identity."""
        data: dict[str, Any] = {"p": identity.player}
        if identity.account_id:
            data["a"] = identity.account_id
            data["u"] = identity.username
        return str(self._signer.dumps(data))

    def register(self, username: str, password: str) -> Account:
        """A new account; `ValueError` (one line) for a bad name or password or a taken name."""
        _check(username, password)
        try:
            return self.store.create_account(username, _HASHER.hash(password))
        except AccountExists:
            raise ValueError("that username is taken") from None

    def login(self, username: str, password: str) -> Account:
        """The account if the password matches; `ValueError` otherwise (the same message for
        an unknown name, so names cannot be probed; the same work, so neither can timing)."""
        account = self.store.account_by_name(username) if USERNAME.fullmatch(username) else None
        try:
            _HASHER.verify(account.password_hash if account else _DUMMY, password[:MAX_PASSWORD])
        except (VerificationError, InvalidHashError):
            raise ValueError("wrong username or password") from None
        if account is None:
            raise ValueError("wrong username or password")
        if _HASHER.check_needs_rehash(account.password_hash):
            self.store.set_password_hash(account.account_id, _HASHER.hash(password))
        return account


def _check(username: str, password: str) -> None:
    if not USERNAME.fullmatch(username):
        raise ValueError("a username is 3 to 32 letters, digits, '.', '_' or '-'")
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ValueError(f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters")


class LoginLimiter:
    """At most ``limit`` login attempts a minute per key (an address, a username)."""

    def __init__(self, limit: int = 10, window: float = 60.0) -> None:
        self.limit, self.window = limit, window
        self._seen: dict[str, deque[float]] = {}

    def allow(self, *keys: str) -> bool:
        """Count one attempt for each key; False if any key is over its limit."""
        now = time.monotonic()
        ok = True
        for key in keys:
            seen = self._seen.setdefault(key, deque())
            while seen and now - seen[0] > self.window:
                seen.popleft()
            if len(seen) >= self.limit:
                ok = False
            seen.append(now)
        if len(self._seen) > 10_000:
            self._seen = {k: v for k, v in self._seen.items() if v and now - v[-1] < self.window}
        return ok
