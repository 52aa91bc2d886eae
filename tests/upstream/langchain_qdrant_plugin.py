"""pytest plugin: run langchain-qdrant's own vector store tests against ``GuardedQdrantClient``.

Loaded with ``-p langchain_qdrant_plugin`` into a pytest run over
``tests/integration_tests/qdrant_vector_store/`` of the ``langchain-qdrant`` sdist (see
``test_upstream_langchain_qdrant.py``, which finds or downloads it). ``QdrantVectorStore`` builds its
client as ``QdrantClient(location=..., path=...)``; this plugin rebinds that name in
``langchain_qdrant.qdrant`` to a factory returning a real ``QdrantClient`` (local mode) wrapped in
a ``GuardedQdrantClient`` with a real kernel (SQLite ledger, signed token, YAML allow-all policy:
isolation would make a single-user suite meaningless). The provenance summary is off, since the
suite compares ``Document.metadata`` exactly.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import langchain_qdrant.qdrant as lcq
import pytest
from qdrant_client import QdrantClient

from memguard import Ledger, LocalTokenService, PolicyResolver, Source, SourceKind, Turn
from memguard.adapters.qdrant import GuardedQdrantClient
from memguard.context import CallContext
from memguard.kernel import Kernel

ALLOW_ALL = """\
apiVersion: memguard/v1
rules:
  - id: allow-all
    effect: permit
    actions: ["*"]
"""

_dir = Path(tempfile.mkdtemp(prefix="memguard-langchain-qdrant-suite-"))
_tokens = LocalTokenService(_dir / "keys")
_kernel = Kernel(
    ledger=Ledger.sqlite(_dir / "ledger.db"),
    verifier=_tokens.verifier(),
    scope=PolicyResolver.from_text(ALLOW_ALL),
)
_context = CallContext(
    source=Source(kind=SourceKind.DOCUMENT, name="langchain-qdrant-suite"),
    turn=Turn(session_id="langchain-qdrant-suite", turn_index=0),
)
_made = [0]


def guarded_client(*args: Any, **kwargs: Any) -> GuardedQdrantClient:
    """What ``QdrantVectorStore`` gets for ``QdrantClient(...)``."""
    raw = QdrantClient(*args, **kwargs)
    _made[0] += 1
    identity = _kernel.authenticate(_tokens.issue("suite-user", ttl=3600))
    return GuardedQdrantClient(
        raw, kernel=_kernel, identity=identity, context=_context, provenance_summary=False
    )


def pytest_configure(config: pytest.Config) -> None:
    lcq.QdrantClient = guarded_client  # type: ignore[misc,assignment]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Write what the guard saw, so the caller can tell the suite really ran through it."""
    out = os.environ.get("MEMGUARD_SUITE_REPORT")
    if out:
        summary = {"guarded_clients": _made[0], "ledger_events": _kernel.ledger.count_events()}
        Path(out).write_text(json.dumps(summary), encoding="utf-8")


def pytest_report_header(config: pytest.Config) -> str:
    return "memguard: langchain-qdrant vector store suite against GuardedQdrantClient (allow-all)"
