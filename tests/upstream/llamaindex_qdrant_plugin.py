"""pytest plugin: run llama-index-vector-stores-qdrant's own tests against the guarded clients.

Loaded with ``-p llamaindex_qdrant_plugin`` into a pytest run over that package's ``tests/`` (see
``test_llamaindex_qdrant_suite.py``). The suite builds its clients as
``qdrant_client.QdrantClient(":memory:")`` / ``AsyncQdrantClient(":memory:")`` (in its conftest and
in test bodies, which import the names from ``qdrant_client``); this plugin rebinds those two
names, before the suite is imported, to subclasses whose construction returns a real local-mode
client wrapped in ``GuardedQdrantClient`` / ``AsyncGuardedQdrantClient`` on the run's kernel
(``suite_kernel``: SQLite ledger, signed token, YAML allow-all policy). They stay subclasses so the
suite's ``MagicMock(spec=QdrantClient)`` cases keep their spec. The provenance summary is off:
the suite compares node metadata exactly.
"""

from __future__ import annotations

from typing import Any

import pytest
import qdrant_client
from suite_kernel import SuiteGuard

# the suite pairs two independent ":memory:" clients holding the same node ids (its conftest:
# "in-memory client does not share data between instances"): one ledger per client, as two
# separate deployments would have
_guard = SuiteGuard("llamaindex-qdrant", ledger_per_client=True)
_RawSync = qdrant_client.QdrantClient
_RawAsync = qdrant_client.AsyncQdrantClient


class GuardedSyncFactory(_RawSync):  # type: ignore[misc]
    """``QdrantClient(...)`` for the suite: a guarded client over a raw one."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return _guard.sync(_RawSync(*args, **kwargs), provenance_summary=False)


class GuardedAsyncFactory(_RawAsync):  # type: ignore[misc]
    """``AsyncQdrantClient(...)`` for the suite: a guarded client over a raw one."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return _guard.asynchronous(_RawAsync(*args, **kwargs), provenance_summary=False)


def pytest_configure(config: pytest.Config) -> None:
    qdrant_client.QdrantClient = GuardedSyncFactory  # type: ignore[misc]
    qdrant_client.AsyncQdrantClient = GuardedAsyncFactory  # type: ignore[misc]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _guard.write_report()


def pytest_report_header(config: pytest.Config) -> str:
    return "memguard: llama-index-vector-stores-qdrant suite against the guarded clients (allow-all)"
