"""Pins the public API: adding or removing a name from `memguard` is a deliberate change."""

import memguard

EXPECTED = {
    # the guard and its inputs and outputs
    "AsyncMemoryGuard", "CallContext", "EmbeddedStack", "FactInput", "MemoryGuard", "RecalledFact",
    "RecoveryReport", "open_embedded",
    # facts and provenance
    "FactState", "Provenance", "Source", "SourceKind", "TrustLevel", "TrustPolicy", "Turn", "WriterChain",
    # identity
    "Actor", "Identity", "IdentityConfig", "IdentityVerifier", "LocalTokenService", "Principal",
    "PrincipalId", "SecurityTokenService", "load_identity_config",
    # policies
    "PolicyError", "PolicyResolver", "PolicySet", "load_policy_path", "run_policy_tests",
    # lineage, revocation, audit
    "AuditEvent", "Decision", "Ledger", "RevocationReport", "RevocationSelector", "audit_fact",
    "render_for_prompt", "configure_json_logging",
    # stores, embedding, the gateway's client
    "AsyncMemguardClient", "Embedder", "HashEmbedder", "InMemoryStore", "MemguardClient", "MemoryStore",
    "QdrantStore",
    # errors
    "AccessDenied", "BackendError", "ConfigurationError", "FactNotFound", "IdentityError",
    "IntegrityError", "InvalidRequest", "LedgerError", "MemguardError", "ReservedField", "StoreError", "StoreUnavailable",
    "TokenExchangeError", "TrustEscalation", "UntranslatableCondition",
    "__version__",
}

# Extension points: importable from their modules, deliberately not exported by `memguard` (issue 14).
INTERNAL = {
    "Kernel": "memguard.kernel", "Operation": "memguard.kernel", "StampRequest": "memguard.kernel",
    "ScopeResolver": "memguard.scope", "ReadRequest": "memguard.scope", "ScopePlan": "memguard.scope",
    "AuditLog": "memguard.ledger.auditlog", "CheckpointSigner": "memguard.ledger.checkpoint",
    "GatewayConfig": "memguard.gateway", "lineage_prov_json": "memguard.prov",
}


def test_exported_members() -> None:
    assert set(memguard.__all__) == EXPECTED
    for name in memguard.__all__:
        assert hasattr(memguard, name), name


def test_extension_points_live_in_their_modules_not_in_the_package() -> None:
    import importlib

    for name, module in INTERNAL.items():
        assert name not in memguard.__all__, name
        assert not hasattr(memguard, name), name
        assert hasattr(importlib.import_module(module), name), (module, name)


def test_every_error_has_a_stable_code() -> None:
    errors = [getattr(memguard, n) for n in memguard.__all__]
    errors = [e for e in errors if isinstance(e, type) and issubclass(e, memguard.MemguardError)]
    codes = {e.code for e in errors}
    assert len(codes) == len(errors)
    assert all(c and c == c.lower() for c in codes)


def test_adapters_package_is_importable() -> None:
    import memguard.adapters

    assert memguard.adapters.__file__.replace("\\", "/").endswith("adapters/__init__.py")
