"""memguard: provenance and scoped, fail-closed reads for AI agents' memory."""

import ast
from pathlib import Path
from typing import TYPE_CHECKING

# Every public name is imported on first use (PEP 562), so that `import memguard` (and with it the
# `memguard` command's start-up) loads no store, ledger or HTTP code it does not use. Type checkers
# and documentation tools read the imports below; at run time they are the table of what to load.
if TYPE_CHECKING:
    from memguard.aio import AsyncMemoryGuard
    from memguard.audit import audit_fact
    from memguard.client import AsyncMemguardClient, MemguardClient
    from memguard.context import CallContext
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
        StoreUnavailable,
        TrustEscalation,
        UntranslatableCondition,
    )
    from memguard.events import AuditEvent, Decision
    from memguard.guard import FactInput, MemoryGuard, RecalledFact, RecoveryReport
    from memguard.identity import Actor, Identity, Principal, PrincipalId
    from memguard.ledger import FactState, Ledger
    from memguard.logging import configure_json_logging
    from memguard.policy import (
        PolicyError,
        PolicyResolver,
        PolicySet,
        load_policy_path,
        run_policy_tests,
    )
    from memguard.prompt import render_for_prompt
    from memguard.provenance import Provenance, Source, Turn, WriterChain
    from memguard.revocation import RevocationReport, RevocationSelector
    from memguard.stores import InMemoryStore, MemoryStore
    from memguard.stores.qdrant import QdrantStore
    from memguard.tokens import (
        IdentityConfig,
        IdentityVerifier,
        SecurityTokenService,
        TokenExchangeError,
        load_identity_config,
    )
    from memguard.tokens.local import LocalTokenService
    from memguard.trust import SourceKind, TrustLevel, TrustPolicy

__version__ = "0.1.0"


_LAZY: dict[str, str] = {}


def _lazy_table() -> dict[str, str]:
    """Public name -> defining module, read from the ``TYPE_CHECKING`` imports of this file."""
    if not _LAZY:
        tree = ast.parse(Path(__file__).read_text("utf-8"))
        for node in tree.body:
            if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
                for imp in node.body:
                    if isinstance(imp, ast.ImportFrom) and imp.module:
                        _LAZY.update((a.asname or a.name, imp.module) for a in imp.names)
    return _LAZY


def __getattr__(name: str) -> object:
    module = _lazy_table().get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups do not come back here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "AccessDenied",
    "Actor",
    "AsyncMemguardClient",
    "AsyncMemoryGuard",
    "AuditEvent",
    "BackendError",
    "CallContext",
    "ConfigurationError",
    "Decision",
    "EmbeddedStack",
    "Embedder",
    "FactInput",
    "FactNotFound",
    "FactState",
    "HashEmbedder",
    "Identity",
    "IdentityConfig",
    "IdentityError",
    "IdentityVerifier",
    "InMemoryStore",
    "IntegrityError",
    "InvalidRequest",
    "Ledger",
    "LedgerError",
    "LocalTokenService",
    "MemguardClient",
    "MemguardError",
    "MemoryGuard",
    "MemoryStore",
    "PolicyError",
    "PolicyResolver",
    "PolicySet",
    "Principal",
    "PrincipalId",
    "Provenance",
    "QdrantStore",
    "RecalledFact",
    "RecoveryReport",
    "ReservedField",
    "RevocationReport",
    "RevocationSelector",
    "SecurityTokenService",
    "Source",
    "SourceKind",
    "StoreError",
    "StoreUnavailable",
    "TokenExchangeError",
    "TrustEscalation",
    "TrustLevel",
    "TrustPolicy",
    "Turn",
    "UntranslatableCondition",
    "WriterChain",
    "__version__",
    "audit_fact",
    "configure_json_logging",
    "load_identity_config",
    "load_policy_path",
    "open_embedded",
    "render_for_prompt",
    "run_policy_tests",
]
