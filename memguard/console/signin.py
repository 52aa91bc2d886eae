"""Who is looking: the console's two ways of signing in, its session cookie and its CSRF tokens.

**Local console** (``memguard console``, 127.0.0.1 only): the command prints a one-time sign-in
URL with a random 256-bit secret (like Jupyter's token URL, but spent on first use). Opening it
sets a session cookie and asks the operator which principal's view to take; the console then mints
that principal a short-lived token with the state folder's local token service and verifies it with
the guard like any other caller, so every page is scoped, policy-checked and audited as that
principal. Whoever can read the state folder can already read the ledger; the secret keeps other
local users and web pages (DNS rebinding, cross-site requests) out of the running server.

**Gateway console** (``/console`` in ``memguard serve``): a sign-in form takes the gateway's own
bearer token (an ``at+jwt`` for a user) and keeps it in a cookie; each request verifies it again,
so an expired or revoked token signs the session out, and several workers need no shared state.

Both cookies are ``HttpOnly`` and ``SameSite=Strict`` (``Secure`` over HTTPS), scoped to the
console's path. Every state-changing request is a POST carrying a CSRF token bound to the session
(local: random per session; gateway: an HMAC of the cookie) and, when the browser sends one, an
``Origin`` that is the console's own.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from memguard.errors import IdentityError
from memguard.guard import MemoryGuard
from memguard.identity import Identity
from memguard.localtokens import LocalTokenService

__all__ = ["LocalSignIn", "Session", "TokenSignIn"]

#: The local console mints tokens for this long; a session re-mints when one has expired.
LOCAL_TOKEN_TTL = 600
SESSION_TTL = 8 * 3600
MAX_SESSIONS = 64


@dataclass
class Session:
    """One signed-in browser of the local console (kept in the server's memory only)."""

    sid: str
    csrf: str
    created: float
    subject: str | None = None
    scopes: tuple[str, ...] = ()
    identity: Identity | None = field(default=None, repr=False)


class LocalSignIn:
    """One-time sign-in URL, then a principal picked from the local token service."""

    mode = "local"

    def __init__(
        self,
        guard: MemoryGuard,
        tokens: LocalTokenService,
        *,
        cookie_name: str = "memguard_console",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.guard = guard
        self.tokens = tokens
        self.cookie_name = cookie_name
        self.clock = clock
        self._code: str | None = secrets.token_urlsafe(32)
        self._sessions: dict[str, Session] = {}

    @property
    def issuer(self) -> str:
        return self.tokens.issuer

    def sign_in_path(self) -> str:
        """The one-time path to print (``None`` once it has been used)."""
        if self._code is None:
            raise IdentityError("the sign-in link was used", code="identity.console_link_used")
        return f"/signin?code={self._code}"

    def redeem(self, code: str) -> Session:
        """Spend the one-time code for a new session (constant-time comparison)."""
        expected = self._code
        if expected is None or not hmac.compare_digest(code.encode(), expected.encode()):
            raise IdentityError("invalid or used sign-in link", code="identity.console_link")
        self._code = None
        now = self.clock()
        for sid in [s for s, v in self._sessions.items() if now - v.created > SESSION_TTL]:
            del self._sessions[sid]
        if len(self._sessions) >= MAX_SESSIONS:
            oldest = min(self._sessions.values(), key=lambda s: s.created)
            del self._sessions[oldest.sid]
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), now)
        self._sessions[session.sid] = session
        return session

    def session(self, cookie: str | None) -> Session | None:
        if not cookie:
            return None
        session = self._sessions.get(cookie)
        if session is None or self.clock() - session.created > SESSION_TTL:
            return None
        return session

    def choose(self, session: Session, subject: str, scopes: Iterable[str]) -> Identity:
        """Take ``subject``'s view: mint and verify a token for it (refused if it does not verify)."""
        session.subject, session.scopes = subject, tuple(scopes)
        session.identity = None
        return self.identity(session)

    def identity(self, session: Session) -> Identity:
        if session.subject is None:
            raise IdentityError("no principal chosen", code="identity.missing")
        current = session.identity
        if current is None or current.expires_at <= self.clock() + 5:
            token = self.tokens.issue(session.subject, scopes=session.scopes, ttl=LOCAL_TOKEN_TTL)
            session.identity = self.guard.authenticate(token)
        assert session.identity is not None
        return session.identity

    def sign_out(self, session: Session) -> None:
        self._sessions.pop(session.sid, None)

    @staticmethod
    def csrf(session: Session) -> str:
        return session.csrf


class TokenSignIn:
    """The gateway's bearer token, from a sign-in form into an HttpOnly cookie."""

    mode = "token"

    def __init__(self, guard: MemoryGuard, *, cookie_name: str = "memguard_console") -> None:
        self.guard = guard
        self.cookie_name = cookie_name

    def identity(self, token: str | None) -> Identity | None:
        """The verified identity of a cookie's token; ``None`` when there is none. A token that
        no longer verifies raises (and the refusal is audited by the guard)."""
        if not token:
            return None
        return self.guard.authenticate(token)

    @staticmethod
    def csrf(token: str) -> str:
        """A CSRF token bound to the session cookie: stateless, the same on every worker."""
        return hmac.new(token.encode(), b"memguard-console-csrf/v1", hashlib.sha256).hexdigest()
