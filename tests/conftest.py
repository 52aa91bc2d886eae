"""Fixtures: real stores (in-memory, Qdrant local), real ledgers (SQLite file, PostgreSQL), real keys."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from helpers import Clock, SyncView, pg_schema_url

from memguard import (
    AsyncMemoryGuard,
    InMemoryStore,
    Ledger,
    LocalTokenService,
    MemoryGuard,
    QdrantStore,
)


@pytest.fixture(autouse=True)
def _structlog_config_does_not_leak() -> Iterator[None]:
    """A test that runs a memguard program in-process (the CLI is a host: it configures JSON logging
    at its level) must not change what the next test's ``capture_logs`` sees: with ``--dist loadfile``
    the order of files on a worker varies, and a leaked WARNING filter hid the access lines."""
    import structlog

    configured, saved = structlog.is_configured(), structlog.get_config()
    yield
    if configured:
        structlog.configure(**saved)
    else:
        structlog.reset_defaults()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def tokens(tmp_path: Path, clock: Clock) -> LocalTokenService:
    return LocalTokenService(tmp_path / "keys", clock=clock)


@pytest.fixture
def sqlite_ledger(tmp_path: Path) -> Iterator[Ledger]:
    ledger = Ledger.sqlite(tmp_path / "ledger.db")
    yield ledger
    ledger.close()


@pytest.fixture
def pg_url() -> Iterator[str]:
    with pg_schema_url() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A ledger database on SQLite (a file in ``tmp_path``) and on PostgreSQL (a fresh schema)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.db'}"
    else:
        with pg_schema_url() as url:
            yield url


def _store(kind: str, tmp_path: Path) -> Any:
    if kind == "memory":
        return InMemoryStore(dimension=384)
    if kind == "qdrant-memory":
        return QdrantStore(location=":memory:")
    if kind == "qdrant-path":
        return QdrantStore(path=str(tmp_path / "qdrant"))
    if kind == "edge":  # the embedded default (memguard/stores/edge.py)
        from memguard.stores.edge import QdrantEdgeStore

        return QdrantEdgeStore(tmp_path / "edge", dimension=384)
    raise AssertionError(kind)


# "edge" is the embedded default; qdrant-client local mode on disk ("qdrant-path") shares its
# translation with "qdrant-memory" and keeps its own tests (make_guard("qdrant-path")), so the
# parametrization runs the default instead of it rather than beside it (CI time)
@pytest.fixture(params=["memory", "qdrant-memory", "edge"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_guard(
    tmp_path: Path, tokens: LocalTokenService, clock: Clock
) -> Iterator[Callable[..., MemoryGuard]]:
    """Build guards on real backends; all are closed at teardown."""
    made: list[MemoryGuard] = []

    def make(store: str = "qdrant-memory", ledger: Ledger | None = None, **kw: Any) -> MemoryGuard:
        guard = MemoryGuard(
            store=_store(store, tmp_path),
            ledger=ledger or Ledger.sqlite(tmp_path / f"ledger-{len(made)}.db"),
            verifier=tokens.verifier(clock=clock),
            clock=clock,
            **kw,
        )
        made.append(guard)
        return guard

    yield make
    for guard in made:
        guard.close()


@pytest.fixture
def guard(make_guard: Callable[..., MemoryGuard], store_kind: str) -> MemoryGuard:
    """A guard over each store backend, SQLite ledger."""
    return make_guard(store_kind)


@pytest.fixture(params=["sync", "async"])
def api(request: pytest.FixtureRequest, make_guard: Callable[..., MemoryGuard]) -> Iterator[Any]:
    """The guard through its sync shell or its async shell: same calls, same assertions."""
    guard = make_guard("qdrant-memory")
    if request.param == "sync":
        yield guard
    else:
        view = SyncView(AsyncMemoryGuard(guard))
        yield view
        view.close()
