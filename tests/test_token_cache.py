"""The bounded verified-token cache (memguard/tokens/cache.py): bounded by expiry, max age, size and
revocation; a refusal is never cached."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers import Clock

from memguard import Identity, IdentityError, LocalTokenService, MemoryGuard
from memguard.revocation import RevocationSelector
from memguard.tokens.cache import CachingVerifier


class Counting:
    """The local verifier, counting full verifications."""

    def __init__(self, tokens: LocalTokenService, clock: Clock) -> None:
        self.inner = tokens.verifier(clock=clock)
        self.calls = 0

    def verify(self, token: str) -> Identity:
        self.calls += 1
        return self.inner.verify(token)

    def minted(self, identity: Identity) -> bool:
        return self.inner.minted(identity)


def test_a_hit_skips_verification_and_a_refusal_is_never_cached(
    tokens: LocalTokenService, clock: Clock
) -> None:
    inner = Counting(tokens, clock)
    cache = CachingVerifier(inner, clock=clock)
    token = tokens.issue("alice", ttl=300)
    first = cache.verify(token)
    assert cache.verify(token) is first and inner.calls == 1 and cache.minted(first)
    bad = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    for _ in range(2):
        with pytest.raises(IdentityError):
            cache.verify(bad)
    assert inner.calls == 3 and len(cache) == 1  # both refusals verified in full, none kept


def test_entries_end_at_expiry_and_at_max_age(tokens: LocalTokenService, clock: Clock) -> None:
    inner = Counting(tokens, clock)
    cache = CachingVerifier(inner, max_age=30, clock=clock)
    late = CachingVerifier(inner, max_age=3000, clock=clock)
    long_lived = tokens.issue("alice", ttl=300)
    cache.verify(long_lived)
    clock.advance(31)  # past max_age: verified again
    cache.verify(long_lived)
    assert inner.calls == 2
    short = tokens.issue("bob", ttl=10)
    late.verify(short)
    late.verify(short)
    assert inner.calls == 3
    clock.advance(11)  # past exp: verified in full again (the verifier's own leeway decides)
    try:
        late.verify(short)
    except IdentityError:
        pass
    assert inner.calls == 4
    clock.advance(120)  # beyond any leeway: refused, and not cached
    for _ in range(2):
        with pytest.raises(IdentityError):
            late.verify(short)
    assert inner.calls == 6


def test_size_is_bounded_least_recently_used_first(tokens: LocalTokenService, clock: Clock) -> None:
    inner = Counting(tokens, clock)
    cache = CachingVerifier(inner, max_entries=2, clock=clock)
    a, b, c = (tokens.issue(s, ttl=300) for s in ("a", "b", "c"))
    cache.verify(a)
    cache.verify(b)
    cache.verify(a)  # a is now the most recent
    cache.verify(c)  # evicts b
    assert len(cache) == 2 and inner.calls == 3
    cache.verify(a)
    assert inner.calls == 3
    cache.verify(b)
    assert inner.calls == 4


def test_a_cached_identity_of_a_revoked_principal_is_refused(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, clock: Clock
) -> None:
    guard = make_guard("memory")
    inner = Counting(tokens, clock)
    guard.kernel.verifier = CachingVerifier(inner, clock=clock)
    token = tokens.issue("mallory", ttl=300)
    me = guard.authenticate(token)
    guard.revoke(me, RevocationSelector.subject(tokens.issuer, "mallory"), reason="compromised")
    with pytest.raises(IdentityError) as refused:
        guard.authenticate(token)  # served from the cache, then barred by the kernel
    assert refused.value.code == "identity.revoked" and inner.calls == 1
