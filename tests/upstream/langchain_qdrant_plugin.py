"""pytest plugin: run langchain-qdrant's own vector store tests against ``GuardedQdrantClient``.

Loaded with ``-p langchain_qdrant_plugin`` into a pytest run over
``tests/integration_tests/qdrant_vector_store/`` of the ``langchain-qdrant`` sdist (see
``test_langchain_qdrant_suite.py``, which finds or downloads it). ``QdrantVectorStore`` builds its
client as ``QdrantClient(location=..., path=...)``; this plugin rebinds that name in
``langchain_qdrant.qdrant`` to a factory returning a real ``QdrantClient`` (local mode) wrapped in
a ``GuardedQdrantClient`` on the run's kernel (``suite_kernel``: SQLite ledger, signed token, YAML
allow-all policy). The provenance summary is off, since the suite compares ``Document.metadata``
exactly.
"""

from __future__ import annotations

from typing import Any

import langchain_qdrant.qdrant as lcq
import pytest
from qdrant_client import QdrantClient
from suite_kernel import SuiteGuard

from memguard.adapters.qdrant import GuardedQdrantClient

_guard = SuiteGuard("langchain-qdrant")


def guarded_client(*args: Any, **kwargs: Any) -> GuardedQdrantClient:
    """What ``QdrantVectorStore`` gets for ``QdrantClient(...)``."""
    return _guard.sync(QdrantClient(*args, **kwargs), provenance_summary=False)


def pytest_configure(config: pytest.Config) -> None:
    lcq.QdrantClient = guarded_client  # type: ignore[misc,assignment]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Write what the guard saw, so the caller can tell the suite really ran through it."""
    _guard.write_report()


def pytest_report_header(config: pytest.Config) -> str:
    return "memguard: langchain-qdrant vector store suite against GuardedQdrantClient (allow-all)"
