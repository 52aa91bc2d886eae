"""memguard: provenance and scoped, fail-closed reads for AI agents' memory."""

from typing import TYPE_CHECKING

from memguard.aio import AsyncMemoryGuard
from memguard.audit import AUDIT_SCHEMA, audit_fact, audit_selector, render_text
from memguard.client import AsyncMemguardClient, MemguardClient
from memguard.context import CallContext, external_fact_id
from memguard.embedded import EmbeddedStack, open_embedded
from memguard.embedding import Embedder, HashEmbedder
from memguard.errors import (
    AccessDenied,
    BackendError,
    ConfigurationError,
    FactNotFound,
    IdentityError,
    IntegrityError,
    InvalidRequest,
    LedgerError,
    MemguardError,
    ReservedField,
    StoreError,
    TrustEscalation,
    UntranslatableCondition,
)
from memguard.events import AuditEvent, Decision
from memguard.gateway import GatewayConfig, load_gateway_config
from memguard.guard import FactInput, MemoryGuard, RecalledFact, RecoveryReport
from memguard.identity import Actor, Identity, Principal, PrincipalId, Verifier
from memguard.integrity import Candidate
from memguard.kernel import Kernel, Operation, StampRequest, VerifiedFact
from memguard.ledger import FactState, Ledger
from memguard.ledger.auditlog import AuditLog, InclusionProof, VerifyReport
from memguard.ledger.checkpoint import CheckpointSigner, CheckpointVerifier
from memguard.logging import configure_json_logging
from memguard.policy import (
    PolicyDecision,
    PolicyError,
    PolicyResolver,
    PolicySet,
    load_policy_path,
    run_policy_tests,
    to_sql_where,
)
from memguard.prompt import render_for_prompt
from memguard.prov import lineage_prov_json
from memguard.provenance import Provenance, Source, Turn, WriterChain
from memguard.revocation import RevocationReport, RevocationSelector
from memguard.scope import (
    And,
    Condition,
    DefaultScopeResolver,
    Eq,
    Gte,
    In,
    Not,
    Or,
    PlanKind,
    PointDecider,
    ReadRequest,
    ScopePlan,
    ScopeResolver,
    WriteDecision,
)
from memguard.stores import InMemoryStore, MemoryStore
from memguard.tokens import (
    IdentityConfig,
    IdentityVerifier,
    RefusingVerifier,
    SecurityTokenService,
    TokenExchangeError,
    load_identity_config,
)
from memguard.tokens.local import LocalTokenService, LocalVerifier
from memguard.trust import SourceKind, TrustLevel, TrustPolicy

if TYPE_CHECKING:
    from memguard.stores.qdrant import QdrantStore

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # qdrant-client is imported on first use of QdrantStore (it takes about a second to import)
    if name == "QdrantStore":
        from memguard.stores.qdrant import QdrantStore

        return QdrantStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "AUDIT_SCHEMA",
    "AccessDenied",
    "Actor",
    "And",
    "AsyncMemguardClient",
    "AsyncMemoryGuard",
    "AuditEvent",
    "AuditLog",
    "BackendError",
    "CallContext",
    "Candidate",
    "CheckpointSigner",
    "CheckpointVerifier",
    "Condition",
    "ConfigurationError",
    "Decision",
    "DefaultScopeResolver",
    "EmbeddedStack",
    "Embedder",
    "Eq",
    "FactInput",
    "FactNotFound",
    "FactState",
    "GatewayConfig",
    "Gte",
    "HashEmbedder",
    "Identity",
    "IdentityConfig",
    "IdentityError",
    "IdentityVerifier",
    "In",
    "InMemoryStore",
    "InclusionProof",
    "IntegrityError",
    "InvalidRequest",
    "Kernel",
    "Ledger",
    "LedgerError",
    "LocalTokenService",
    "LocalVerifier",
    "MemguardClient",
    "MemguardError",
    "MemoryGuard",
    "MemoryStore",
    "Not",
    "Operation",
    "Or",
    "PlanKind",
    "PointDecider",
    "PolicyDecision",
    "PolicyError",
    "PolicyResolver",
    "PolicySet",
    "Principal",
    "PrincipalId",
    "Provenance",
    "QdrantStore",
    "ReadRequest",
    "RecalledFact",
    "RecoveryReport",
    "RefusingVerifier",
    "ReservedField",
    "RevocationReport",
    "RevocationSelector",
    "ScopePlan",
    "ScopeResolver",
    "SecurityTokenService",
    "Source",
    "SourceKind",
    "StampRequest",
    "StoreError",
    "TokenExchangeError",
    "TrustEscalation",
    "TrustLevel",
    "TrustPolicy",
    "Turn",
    "UntranslatableCondition",
    "VerifiedFact",
    "Verifier",
    "VerifyReport",
    "WriteDecision",
    "WriterChain",
    "__version__",
    "audit_fact",
    "audit_selector",
    "configure_json_logging",
    "external_fact_id",
    "lineage_prov_json",
    "load_gateway_config",
    "load_identity_config",
    "load_policy_path",
    "open_embedded",
    "render_for_prompt",
    "render_text",
    "run_policy_tests",
    "to_sql_where",
]
