"""A bounded cache of verified tokens in front of any :class:`~memguard.identity.Verifier`.

A warm agent presents the same access token on every call; verifying it again (JWS parse, signature,
claims) costs far more than a lookup. :class:`CachingVerifier` keeps the identity a token verified
to, keyed by the token's SHA-256, and is bounded three ways:

- by expiry: an entry is served only while ``now < min(identity.expires_at, cached_at + max_age)``
  (``max_age`` also bounds how long a change of the inner verifier's keys or issuers takes to apply);
- by size: at most ``max_entries`` tokens, least recently used evicted first;
- by revocation: revocations are checked by the kernel on *every* ``authenticate``, after this
  verifier returns (``Kernel._check_not_barred``), so a cached identity of a revoked principal or
  token is still refused; :meth:`clear` drops everything at once (e.g. on key rotation).

A refusal is never cached: a token that failed once is verified in full the next time.
Presenter-bound verification (``verify_presented``) is passed through, uncached.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from memguard.errors import IdentityError
from memguard.identity import Identity, Verifier

__all__ = ["CachingVerifier"]


class CachingVerifier:
    """``verify`` through a bounded cache of successful verifications; everything else delegated."""

    def __init__(
        self,
        inner: Verifier,
        *,
        max_entries: int = 1024,
        max_age: float = 60.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_entries < 1 or max_age <= 0:
            raise ValueError("max_entries and max_age must be positive")
        self.inner = inner
        self.max_entries = max_entries
        self.max_age = max_age
        self._clock = clock
        self._entries: OrderedDict[bytes, tuple[Identity, float]] = OrderedDict()
        self._lock = threading.Lock()

    def verify(self, token: str) -> Identity:
        key = (
            hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
            if isinstance(token, str)
            else None
        )
        now = self._clock()
        if key is not None:
            with self._lock:
                entry = self._entries.get(key)
                if entry is not None:
                    identity, until = entry
                    if now < until and self.inner.minted(identity):
                        self._entries.move_to_end(key)
                        return identity
                    del self._entries[key]
        identity = self.inner.verify(token)  # raises on refusal: nothing is cached
        if key is not None:
            until = min(float(identity.expires_at), now + self.max_age)
            with self._lock:
                self._entries[key] = (identity, until)
                self._entries.move_to_end(key)
                while len(self._entries) > self.max_entries:
                    self._entries.popitem(last=False)
        return identity

    def minted(self, identity: Identity) -> bool:
        return self.inner.minted(identity)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def verify_presented(self, token: str, workload_credential: str) -> Identity:
        """Presenter-bound verification, uncached (the inner verifier's, if it has one)."""
        bind = getattr(self.inner, "verify_presented", None)
        if bind is None:
            raise IdentityError("verifier cannot bind a presenter", code="identity.unbound")
        identity = bind(token, workload_credential)
        if not isinstance(identity, Identity):
            raise IdentityError("verifier returned no identity", code="identity.missing")
        return identity
