"""Hot-path caches stay exact: the default scope's digest is cached by value, never by instance."""

from __future__ import annotations

from memguard.provenance import canonical_json, sha256_digest
from memguard.scope import DefaultScopeResolver
from memguard.trust import TrustLevel


def test_default_scope_digest_is_cached_by_value() -> None:
    r = DefaultScopeResolver(namespaces=("a", "b*"), min_trust=TrustLevel.USER)
    config = {"kind": "memguard.default-scope/v1", **r.model_dump(mode="json")}
    assert r.digest == sha256_digest(canonical_json(config))  # the uncached definition
    assert r.digest is r.digest
    other = r.model_copy(update={"namespaces": ("c",)})
    assert other.digest != r.digest  # a copy with other values never reuses the cached digest
    assert DefaultScopeResolver().digest != r.digest
