"""The guard every upstream-suite plugin hands the framework: one real kernel per pytest run.

A SQLite ledger in a temporary folder, a signed token from a local token service, the YAML
allow-all policy (the suites are single-user: owner isolation would make their assertions
meaningless; isolation is tested in tests/test_adapter_*). :func:`write_report` records what the
guard saw, so the runner can tell the suite really went through it.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from qdrant_client import AsyncQdrantClient, QdrantClient

from memguard import Ledger, LocalTokenService, PolicyResolver, Source, SourceKind, Turn
from memguard.adapters.qdrant import AsyncGuardedQdrantClient, GuardedQdrantClient
from memguard.context import CallContext
from memguard.kernel import Kernel

ALLOW_ALL = """\
apiVersion: memguard/v1
rules:
  - id: allow-all
    effect: permit
    actions: ["*"]
"""


class SuiteGuard:
    """Wraps raw clients of one suite run in guarded ones, all on one kernel."""

    def __init__(self, name: str) -> None:
        folder = Path(tempfile.mkdtemp(prefix=f"memguard-{name}-suite-"))
        self.tokens = LocalTokenService(folder / "keys")
        self.kernel = Kernel(
            ledger=Ledger.sqlite(folder / "ledger.db"),
            verifier=self.tokens.verifier(),
            scope=PolicyResolver.from_text(ALLOW_ALL),
        )
        self.context = CallContext(
            source=Source(kind=SourceKind.DOCUMENT, name=f"{name}-suite"),
            turn=Turn(session_id=f"{name}-suite", turn_index=0),
        )
        self.made = 0

    def sync(self, raw: QdrantClient, **options: Any) -> GuardedQdrantClient:
        self.made += 1
        identity = self.kernel.authenticate(self.tokens.issue("suite-user", ttl=3600))
        return GuardedQdrantClient(
            raw, kernel=self.kernel, identity=identity, context=self.context, **options
        )

    def asynchronous(self, raw: AsyncQdrantClient, **options: Any) -> AsyncGuardedQdrantClient:
        self.made += 1
        identity = self.kernel.authenticate(self.tokens.issue("suite-user", ttl=3600))
        return AsyncGuardedQdrantClient(
            raw, kernel=self.kernel, identity=identity, context=self.context, **options
        )

    def write_report(self) -> None:
        out = os.environ.get("MEMGUARD_SUITE_REPORT")
        if out:
            summary = {"guarded_clients": self.made, "ledger_events": self.kernel.ledger.count_events()}
            Path(out).write_text(json.dumps(summary), encoding="utf-8")
