"""Pins the public API: adding or removing a name from `memguard` is a deliberate change."""

import memguard

EXPECTED = {
    "AUDIT_SCHEMA", "AccessDenied", "Actor", "And", "AsyncMemoryGuard", "AuditEvent",
    "BackendError", "Condition", "ConfigurationError", "Decision", "DefaultScopeResolver",
    "EmbeddedStack", "Embedder", "Eq", "FactInput", "FactNotFound", "FactState", "Gte",
    "HashEmbedder", "Identity", "IdentityError", "In", "InMemoryStore", "IntegrityError",
    "InvalidRequest", "Ledger", "LedgerError", "LocalTokenService", "LocalVerifier",
    "MemguardError", "MemoryGuard", "MemoryStore", "Not", "Or", "PlanKind", "PointDecider", "Principal",
    "PrincipalId", "Provenance", "QdrantStore", "ReadRequest", "RecalledFact", "RecoveryReport",
    "ReservedField", "ScopePlan", "ScopeResolver", "Source", "SourceKind", "StoreError",
    "TrustEscalation", "TrustLevel", "TrustPolicy", "Turn", "UntranslatableCondition",
    "Verifier", "WriteDecision", "WriterChain", "__version__", "audit_fact",
    "configure_json_logging", "open_embedded", "render_text",
    # the YAML policy engine (issue 4)
    "PolicyDecision", "PolicyError", "PolicyResolver", "PolicySet", "load_policy_path",
    "run_policy_tests", "to_sql_where",
    # identity layer (issue 3)
    "IdentityConfig", "IdentityVerifier", "RefusingVerifier", "SecurityTokenService",
    "TokenExchangeError", "load_identity_config",
    # lineage, revocation and the audit log (issue 5); the adapter kernel (issue 6)
    "AuditLog", "CallContext", "Candidate", "CheckpointSigner", "CheckpointVerifier",
    "InclusionProof", "Kernel", "Operation", "RevocationReport", "RevocationSelector",
    "StampRequest", "VerifiedFact", "VerifyReport", "audit_selector", "external_fact_id",
    "lineage_prov_json", "render_for_prompt",
    # the gateway and its client (issue 7)
    "AsyncMemguardClient", "GatewayConfig", "MemguardClient", "load_gateway_config",
}


def test_exported_members() -> None:
    assert set(memguard.__all__) == EXPECTED
    for name in memguard.__all__:
        assert hasattr(memguard, name), name


def test_every_error_has_a_stable_code() -> None:
    errors = [getattr(memguard, n) for n in memguard.__all__]
    errors = [e for e in errors if isinstance(e, type) and issubclass(e, memguard.MemguardError)]
    codes = {e.code for e in errors}
    assert len(codes) == len(errors)
    assert all(c and c == c.lower() for c in codes)


def test_adapters_package_is_importable() -> None:
    import memguard.adapters

    assert memguard.adapters.__file__.replace("\\", "/").endswith("adapters/__init__.py")
