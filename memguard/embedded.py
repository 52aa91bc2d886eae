"""The zero-config embedded default: Qdrant local mode, a SQLite (WAL) ledger, a local token service.

Everything lives in one project-local state folder (``.memguard/`` unless told otherwise)::

    .memguard/qdrant/      Qdrant local-mode storage, one collection per owner
    .memguard/ledger.db    provenance rows and the audit log
    .memguard/keys/        the local token service's signing key and the audit log's
                           checkpoint key (0600)

``ledger_url=`` (PostgreSQL) and ``qdrant_url=`` (a Qdrant server) switch either part to a real
engine with the same code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memguard.guard import MemoryGuard
from memguard.ledger import Ledger
from memguard.ledger.checkpoint import CheckpointSigner
from memguard.ledger.witness import WitnessDir
from memguard.scan import RuleScanner
from memguard.scan.stage import ScanStage
from memguard.scope import ScopeResolver
from memguard.tokens.local import LocalTokenService

__all__ = ["DEFAULT_STATE_DIR", "EmbeddedStack", "open_embedded"]

DEFAULT_STATE_DIR = ".memguard"


@dataclass
class EmbeddedStack:
    guard: MemoryGuard
    tokens: LocalTokenService
    state_dir: Path

    def close(self) -> None:
        self.guard.close()


def open_embedded(
    state_dir: str | os.PathLike[str] = DEFAULT_STATE_DIR,
    *,
    collection: str = "memguard_facts",
    dimension: int = 384,
    ledger_url: str | None = None,
    qdrant_url: str | None = None,
    scope: ScopeResolver | None = None,
    scan: bool = True,
) -> EmbeddedStack:
    """Open (creating if needed) the embedded stack under ``state_dir``; ``scan`` turns the
    built-in content scanner on (memguard.scan: suspicious -> untrusted, malicious -> quarantined)."""
    from memguard.stores.qdrant import QdrantStore

    root = Path(state_dir)
    root.mkdir(parents=True, exist_ok=True)
    signer = CheckpointSigner.load_or_create(root / "keys" / "checkpoint.key")
    witness = WitnessDir(root / "witness")  # checkpoints outside the database
    ledger = (
        Ledger.from_url(ledger_url, checkpoint_signer=signer, witness=witness)
        if ledger_url
        else Ledger.sqlite(root / "ledger.db", checkpoint_signer=signer, witness=witness)
    )
    if qdrant_url:
        store = QdrantStore(url=qdrant_url, collection=collection, dimension=dimension)
    else:
        # Local mode filters in Python point by point; one collection per owner keeps a scoped
        # search close to an unfiltered one (benchmarks/README.md).
        store = QdrantStore(
            path=str(root / "qdrant"),
            collection=collection,
            dimension=dimension,
            partition_by_owner=True,
        )
    tokens = LocalTokenService(root / "keys")
    guard = MemoryGuard(store=store, ledger=ledger, verifier=tokens.verifier(), scope=scope,
                        scan_stage=ScanStage(RuleScanner()) if scan else None)  # fmt: skip
    return EmbeddedStack(guard=guard, tokens=tokens, state_dir=root)
