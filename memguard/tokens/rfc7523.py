"""RFC 7523 2.2 / 3: ``private_key_jwt`` client authentication, each assertion used once.

RFC 7523 3: "The JWT MUST contain an 'iss' (issuer) claim"; "For client authentication, the subject
MUST be the 'client_id' of the OAuth client"; "The JWT MUST contain an 'aud' (audience) claim
containing a value that identifies the authorization server as an intended audience. The token
endpoint URL of the authorization server MAY be used"; "The JWT MUST contain an 'exp' (expiration
time) claim that limits the time window during which the JWT can be used"; "The authorization
server MAY reject JWTs with an 'exp' claim value that is unreasonably far in the future"
(memguard: 300 s); "The authorization server MAY ensure that JWTs are not replayed by maintaining the
set of used 'jti' values for the length of time for which the JWT would be considered valid" --
memguard requires ``jti`` and always does.

Replay caches: :class:`MemoryReplayCache` is per process -- with several STS processes, a client
assertion could be replayed once against each. :class:`SqliteReplayCache` shares the set between
processes on one host (one SQLite file, a PRIMARY KEY insert is the atomic check). Across hosts use a
shared database; nothing here is distributed.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from memguard.errors import IdentityError
from memguard.identity import check_identifier
from memguard.tokens.rfc7515 import check_alg, check_kid, parse_compact, verify_jws
from memguard.tokens.rfc7517 import StaticKeySource
from memguard.tokens.rfc7519 import check_times, single_audience

__all__ = [
    "JWT_BEARER",
    "ClientAssertionVerifier",
    "MemoryReplayCache",
    "RegisteredClient",
    "ReplayCache",
    "SqliteReplayCache",
]

JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
MAX_ASSERTION_LIFETIME = 300


class ReplayCache(Protocol):
    def use(self, key: str, expires_at: int, now: float) -> bool:
        """Record ``key`` until ``expires_at``; False if it was already recorded (a replay)."""
        ...


class MemoryReplayCache:
    """Per-process set of used assertion ids, bounded; when full of live entries it refuses."""

    def __init__(self, max_entries: int = 100_000) -> None:
        self._seen: OrderedDict[str, int] = OrderedDict()
        self._max = max_entries
        self._lock = threading.Lock()

    def use(self, key: str, expires_at: int, now: float) -> bool:
        with self._lock:
            for old in [k for k, exp in self._seen.items() if exp < now]:
                del self._seen[old]
            if key in self._seen or len(self._seen) >= self._max:
                return False
            self._seen[key] = expires_at
            return True


class SqliteReplayCache:
    """Used assertion ids in a SQLite file, shared by the STS processes of one host."""

    def __init__(self, path: str | Path) -> None:
        self._path = str(path)
        with sqlite3.connect(self._path) as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS used_jti (k TEXT PRIMARY KEY, exp INTEGER)")

    def use(self, key: str, expires_at: int, now: float) -> bool:
        db = sqlite3.connect(self._path, timeout=5)
        try:
            with db:
                db.execute("DELETE FROM used_jti WHERE exp < ?", (int(now),))
                db.execute("INSERT INTO used_jti (k, exp) VALUES (?, ?)", (key, expires_at))
            return True
        except sqlite3.IntegrityError:
            return False
        finally:
            db.close()


@dataclass(frozen=True, slots=True)
class RegisteredClient:
    client_id: str
    jwks: Mapping[str, object]
    algorithms: frozenset[str] = frozenset({"ES256", "EdDSA"})


class ClientAssertionVerifier:
    """Authenticates a client by its ``client_assertion``; raises ``IdentityError`` otherwise."""

    def __init__(
        self,
        clients: Mapping[str, RegisteredClient],
        *,
        audiences: frozenset[str],
        replay: ReplayCache,
        leeway: int = 30,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.clients = dict(clients)
        self._keys = {c.client_id: StaticKeySource(c.jwks, c.algorithms) for c in clients.values()}
        self.audiences, self.replay, self.leeway, self._clock = audiences, replay, leeway, clock

    def authenticate(self, assertion: str, client_id: str | None) -> str:
        header, unverified = parse_compact(assertion)
        if header.get("typ") not in (None, "JWT", "jwt"):
            raise IdentityError("unsupported token type", code="identity.bad_type")
        iss = unverified.get("iss")
        client = self.clients.get(iss) if isinstance(iss, str) else None
        if client is None or client.client_id != iss:
            raise IdentityError("unknown client", code="identity.bad_client")
        if client_id is not None and client_id != iss:
            raise IdentityError("client_id mismatch", code="identity.bad_client")
        alg = check_alg(header, client.algorithms)
        claims = verify_jws(assertion, self._keys[iss].get(check_kid(header), alg), alg, unverified)
        if claims.get("iss") != iss or claims.get("sub") != iss:
            raise IdentityError("assertion subject must be the client", code="identity.bad_client")
        single_audience(claims, self.audiences)
        now = self._clock()
        if "iat" not in claims:  # optional in RFC 7523; the exp bound below still applies
            claims = {**claims, "iat": int(now)}
        exp = check_times(
            claims,
            now=now,
            leeway=self.leeway,
            max_ttl=MAX_ASSERTION_LIFETIME,
            max_age=MAX_ASSERTION_LIFETIME,
        )
        if exp > now + MAX_ASSERTION_LIFETIME:
            raise IdentityError("assertion lifetime too long", code="identity.bad_claims")
        jti = check_identifier(claims.get("jti"), "jti")
        if not self.replay.use(f"{iss}\x00{jti}", exp + self.leeway, now):
            raise IdentityError("client assertion replayed", code="identity.replayed")
        return str(iss)
