"""The zero-config embedded default: qdrant-edge, a SQLite (WAL) ledger, a local token service.

Everything lives in one project-local state folder (``.memguard/`` unless told otherwise)::

    .memguard/edge/        the qdrant-edge shard (memguard/stores/edge.py), one process at a time
    .memguard/qdrant/      qdrant-client local-mode storage, kept for state folders made before
                           qdrant-edge was the default (one collection per owner)
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
from typing import Literal

from memguard.guard import MemoryGuard
from memguard.ledger import Ledger
from memguard.ledger.checkpoint import CheckpointSigner
from memguard.ledger.witness import WitnessDir
from memguard.scan import builtin_scanners
from memguard.scan.stage import ScanStage
from memguard.scope import ScopeResolver
from memguard.stores.base import MemoryStore
from memguard.tokens.cache import CachingVerifier
from memguard.tokens.local import LocalTokenService

__all__ = [
    "DEFAULT_STATE_DIR",
    "EmbeddedStack",
    "Engine",
    "open_embedded",
    "open_store",
    "store_engine",
]

#: ``edge``: qdrant-edge (the default); ``local``: qdrant-client local mode (slow at scale).
Engine = Literal["edge", "local"]

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
    engine: Engine | None = None,
    scan: bool = True,
) -> EmbeddedStack:
    """Open (creating if needed) the embedded stack under ``state_dir``.

    ``engine``: see :func:`open_store` (``None`` follows what the folder holds). ``scan`` turns the
    built-in content scanners on (memguard.scan: the rules and the trained model, the worse verdict
    wins; suspicious -> untrusted, malicious -> quarantined)."""
    root = Path(state_dir)
    root.mkdir(parents=True, exist_ok=True)
    signer = CheckpointSigner.load_or_create(root / "keys" / "checkpoint.key")
    witness = WitnessDir(root / "witness")  # checkpoints outside the database
    ledger = (
        Ledger.from_url(ledger_url, checkpoint_signer=signer, witness=witness)
        if ledger_url
        else Ledger.sqlite(root / "ledger.db", checkpoint_signer=signer, witness=witness)
    )
    store = open_store(
        root, collection=collection, dimension=dimension, qdrant_url=qdrant_url, engine=engine
    )
    tokens = LocalTokenService(root / "keys")
    # a warm agent presents the same token on every call: bounded by exp, size and max age; the
    # kernel still checks revocations on every authenticate (memguard/tokens/cache.py)
    verifier = CachingVerifier(tokens.verifier())
    guard = MemoryGuard(store=store, ledger=ledger, verifier=verifier, scope=scope,
                        scan_stage=ScanStage(builtin_scanners()) if scan else None)  # fmt: skip
    return EmbeddedStack(guard=guard, tokens=tokens, state_dir=root)


def store_engine(root: Path, engine: Engine | None = None) -> Engine:
    """The engine of a state folder: ``engine`` if given; else ``local`` when the folder has only a
    qdrant-client local store (made before qdrant-edge was the default: its facts stay readable),
    otherwise ``edge``."""
    if engine is not None:
        return engine
    if (root / "qdrant").is_dir() and not (root / "edge").exists():
        return "local"
    return "edge"


def open_store(
    root: Path,
    *,
    collection: str = "memguard_facts",
    dimension: int = 384,
    qdrant_url: str | None = None,
    engine: Engine | None = None,
) -> MemoryStore:
    """The vector store of a state folder: a Qdrant server (``qdrant_url``), else the embedded
    engine :func:`store_engine` picks. Every one gets the same push-down translation."""
    if qdrant_url:
        from memguard.stores.qdrant import QdrantStore

        return QdrantStore(url=qdrant_url, collection=collection, dimension=dimension)
    if store_engine(root, engine) == "edge":
        from memguard.stores.edge import QdrantEdgeStore

        return QdrantEdgeStore(root / "edge", dimension=dimension)
    from memguard.stores.qdrant import QdrantStore

    # Local mode filters in Python point by point; one collection per owner keeps a scoped
    # search close to an unfiltered one (benchmarks/README.md).
    return QdrantStore(
        path=str(root / "qdrant"),
        collection=collection,
        dimension=dimension,
        partition_by_owner=True,
    )
