"""pytest plugin: run LangGraph's own store tests against ``GuardedStore`` (allow-all policy).

Loaded with ``-p langgraph_suite_plugin`` into a pytest run over ``tests/test_store.py`` of the
``langgraph-checkpoint`` sdist (see ``test_adapter_langgraph_suite.py``, which finds or downloads it).
The suite builds its stores as ``InMemoryStore(...)`` (also inside its ``MockAsyncBatchedStore``);
this plugin rebinds that name in the suite module to :class:`GuardedInMemoryStore`: a real
``InMemoryStore`` wrapped in a ``GuardedStore`` with a real kernel (SQLite ledger, signed token,
YAML allow-all policy). Each store gets its own user, so the suite's stores never share a tenant.
"""

from __future__ import annotations

import itertools
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import IndexConfig
from langgraph.store.memory import InMemoryStore

from memguard import Ledger, LocalTokenService, PolicyResolver, Source, SourceKind, Turn
from memguard.adapters.langgraph import GuardedStore
from memguard.context import CallContext
from memguard.kernel import Kernel

ALLOW_ALL = """\
apiVersion: memguard/v1
rules:
  - id: allow-all
    effect: permit
    actions: ["*"]
"""

_dir = Path(tempfile.mkdtemp(prefix="memguard-langgraph-suite-"))
_tokens = LocalTokenService(_dir / "keys")
_kernel = Kernel(
    ledger=Ledger.sqlite(_dir / "ledger.db"),
    verifier=_tokens.verifier(),
    scope=PolicyResolver.from_text(ALLOW_ALL),
)
_context = CallContext(
    source=Source(kind=SourceKind.USER_MESSAGE, name="langgraph-suite"),
    turn=Turn(session_id="langgraph-suite", turn_index=0),
)
_users = itertools.count()


class GuardedInMemoryStore(GuardedStore):
    """What the suite gets for ``InMemoryStore(index=...)``."""

    __slots__ = ()

    def __init__(self, *, index: IndexConfig | None = None) -> None:
        identity = _kernel.authenticate(_tokens.issue(f"suite-user-{next(_users)}", ttl=3600))
        super().__init__(
            InMemoryStore(index=index), kernel=_kernel, identity=identity, context=_context
        )


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    patched: set[int] = set()
    for item in items:
        module: Any = getattr(item, "module", None)
        if module is None or id(module) in patched:
            continue
        if getattr(module, "InMemoryStore", None) is InMemoryStore:
            module.InMemoryStore = GuardedInMemoryStore
            patched.add(id(module))
    if not patched:
        raise pytest.UsageError("langgraph_suite_plugin: no suite module uses InMemoryStore")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Write what the guard saw, so the caller can tell the suite really ran through it."""
    out = os.environ.get("MEMGUARD_SUITE_REPORT")
    if out:
        summary = {
            "guarded_stores": next(_users),
            "ledger_events": _kernel.ledger.count_events(),
        }
        Path(out).write_text(json.dumps(summary), encoding="utf-8")


def pytest_report_header(config: pytest.Config) -> str:
    return "memguard: LangGraph store suite against GuardedStore (allow-all policy)"
