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
    """Wraps raw clients of one suite run in guarded ones, all on one kernel, or with
    ``ledger_per_client`` each on its own (for suites whose clients are independent in-memory
    stores holding the same point ids: one ledger over two diverging stores would rightly
    withhold the copy that is not the current version)."""

    def __init__(self, name: str, *, ledger_per_client: bool = False) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix=f"memguard-{name}-suite-"))
        self.tokens = LocalTokenService(self.folder / "keys")
        self.ledger_per_client = ledger_per_client
        self.kernels: list[Kernel] = []
        self.kernel = self._new_kernel()
        self.context = CallContext(
            source=Source(kind=SourceKind.DOCUMENT, name=f"{name}-suite"),
            turn=Turn(session_id=f"{name}-suite", turn_index=0),
        )
        self.made = 0

    def _new_kernel(self) -> Kernel:
        kernel = Kernel(
            ledger=Ledger.sqlite(self.folder / f"ledger-{len(self.kernels)}.db"),
            verifier=self.tokens.verifier(),
            scope=PolicyResolver.from_text(ALLOW_ALL),
        )
        self.kernels.append(kernel)
        return kernel

    def _next(self) -> Kernel:
        self.made += 1
        return self._new_kernel() if self.ledger_per_client and self.made > 1 else self.kernel

    def sync(self, raw: QdrantClient, **options: Any) -> GuardedQdrantClient:
        kernel = self._next()
        identity = kernel.authenticate(self.tokens.issue("suite-user", ttl=3600))
        return GuardedQdrantClient(
            raw, kernel=kernel, identity=identity, context=self.context, **options
        )

    def asynchronous(self, raw: AsyncQdrantClient, **options: Any) -> AsyncGuardedQdrantClient:
        kernel = self._next()
        identity = kernel.authenticate(self.tokens.issue("suite-user", ttl=3600))
        return AsyncGuardedQdrantClient(
            raw, kernel=kernel, identity=identity, context=self.context, **options
        )

    def write_report(self) -> None:
        out = os.environ.get("MEMGUARD_SUITE_REPORT")
        if out:
            events = sum(k.ledger.count_events() for k in self.kernels)
            summary = {"guarded_clients": self.made, "ledger_events": events}
            Path(out).write_text(json.dumps(summary), encoding="utf-8")
