"""Shared test helpers: a settable clock, PostgreSQL schemas, and a sync view of the async guard."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

PG_BASE = os.environ.get("MEMGUARD_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
PLANNER = "spiffe://memguard.local/agent/planner"
BROWSER = "spiffe://memguard.local/agent/browser"


class Clock:
    """A clock tests move by hand."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def pg_available() -> bool:
    try:
        import psycopg

        with psycopg.connect(_dsn(), connect_timeout=3):
            return True
    except Exception:
        return False


def _dsn() -> str:
    return PG_BASE.replace("postgresql+psycopg://", "postgresql://")


def require_pg() -> None:
    if not pg_available():
        if os.environ.get("MEMGUARD_REQUIRE_POSTGRES") == "1":
            pytest.fail("PostgreSQL on 127.0.0.1:5432 is required (MEMGUARD_REQUIRE_POSTGRES=1)")
        pytest.skip("PostgreSQL on 127.0.0.1:5432 is not reachable")


@contextmanager
def pg_schema_url() -> Iterator[str]:
    """A SQLAlchemy URL whose search_path is a fresh schema, dropped afterwards."""
    import psycopg

    require_pg()
    schema = f"mg_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(_dsn(), autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_BASE}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(_dsn(), autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


class SyncView:
    """Calls an AsyncMemoryGuard's coroutines to completion, so one test body covers both shells."""

    def __init__(self, async_guard: Any) -> None:
        self._async = async_guard
        self._loop = asyncio.new_event_loop()

    def __getattr__(self, name: str) -> Callable[..., Any]:
        attr = getattr(self._async, name)
        if not asyncio.iscoroutinefunction(attr):
            return attr  # type: ignore[no-any-return]

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._loop.run_until_complete(attr(*args, **kwargs))

        return call

    def close(self) -> None:
        self._loop.close()


class CountingStore:
    """A real in-memory store that counts the calls the guard makes to it."""

    def __init__(self, inner: Any = None) -> None:
        from memguard import InMemoryStore

        self.inner = inner if inner is not None else InMemoryStore(384)
        self.calls: list[str] = []

    @property
    def dimension(self) -> int:
        return int(self.inner.dimension)

    def upsert(self, points: Any) -> None:
        self.calls.append("upsert")
        self.inner.upsert(points)

    def retrieve(self, fact_ids: Any) -> Any:
        self.calls.append("retrieve")
        return self.inner.retrieve(fact_ids)

    def search(self, vector: Any, **kw: Any) -> Any:
        self.calls.append("search")
        return self.inner.search(vector, **kw)

    def delete(self, fact_ids: Any) -> None:
        self.calls.append("delete")
        self.inner.delete(fact_ids)

    def close(self) -> None:
        self.inner.close()


def load_script(path: Path, name: str | None = None) -> ModuleType:
    """A standalone script (a corpus builder, a benchmark, a tool) loaded as a module named
    ``name`` (default: after its file), and registered under that name if it is free (its
    dataclasses resolve their module)."""
    name = name or path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module
