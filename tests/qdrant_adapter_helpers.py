"""Test helpers for the guarded qdrant-client: one raw local client and guarded clients over it,
sync or async, all driven through one synchronous view so a test body covers both shells."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qdrant_client import AsyncQdrantClient, QdrantClient, models

from memguard import Identity, Ledger, LocalTokenService, Source, SourceKind, Turn
from memguard.adapters.qdrant import AsyncGuardedQdrantClient, GuardedQdrantClient
from memguard.context import CallContext
from memguard.kernel import Kernel
from memguard.scope import ScopeResolver

ALLOW_ALL_POLICY = """\
apiVersion: memguard/v1
rules:
  - id: allow-all
    effect: permit
    actions: ["*"]
"""


def context(turn: int = 0, kind: SourceKind = SourceKind.USER_MESSAGE) -> CallContext:
    return CallContext(
        source=Source(kind=kind, uri="chat://s-qdrant"),
        turn=Turn(session_id="s-qdrant", turn_index=turn, trace_id=f"trace-{turn}"),
    )


def make_kernel(
    tmp_path: Path,
    tokens: LocalTokenService,
    clock: Callable[[], float],
    scope: ScopeResolver | None = None,
) -> Kernel:
    n = len(list(tmp_path.glob("adapter-ledger-*.db")))
    return Kernel(
        ledger=Ledger.sqlite(tmp_path / f"adapter-ledger-{n}.db"),
        verifier=tokens.verifier(clock=clock),
        scope=scope,
        clock=clock,
    )


class GuardView:
    """Calls a guarded client's methods synchronously, whichever shell it is."""

    def __init__(self, side: Side, guarded: Any) -> None:
        self.side = side
        self.guarded = guarded

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.guarded, name)
        if name == "with_context":
            return lambda **kw: GuardView(self.side, attr(**kw))
        if not inspect.iscoroutinefunction(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            return self.side.wait(attr(*args, **kwargs))

        return call


class Side:
    """A raw qdrant-client in local mode (``":memory:"`` or ``path=``), sync or async."""

    def __init__(self, kind: str, tmp_path: Path, kernel: Kernel) -> None:
        self.kind = kind
        self.is_async = kind.startswith("async")
        self.kernel = kernel
        self.loop = asyncio.new_event_loop() if self.is_async else None
        where: dict[str, Any] = (
            {"path": str(tmp_path / f"qdrant-{kind}")}
            if kind.endswith("path")
            else {"location": ":memory:"}
        )
        self.raw: Any = AsyncQdrantClient(**where) if self.is_async else QdrantClient(**where)

    def wait(self, value: Any) -> Any:
        if self.loop is not None and inspect.isawaitable(value):
            return self.loop.run_until_complete(value)
        return value

    def call_raw(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self.wait(getattr(self.raw, method)(*args, **kwargs))

    def guarded(self, identity: Identity, ctx: CallContext | None = None, **kw: Any) -> Any:
        cls = AsyncGuardedQdrantClient if self.is_async else GuardedQdrantClient
        return cls(self.raw, kernel=self.kernel, identity=identity, context=ctx or context(), **kw)

    def guard(self, identity: Identity, ctx: CallContext | None = None, **kw: Any) -> GuardView:
        return GuardView(self, self.guarded(identity, ctx, **kw))

    def create(self, name: str, dim: int) -> None:
        self.call_raw(
            "create_collection",
            name,
            vectors_config=models.VectorParams(size=dim, distance=models.Distance.COSINE),
        )

    def close(self) -> None:
        self.call_raw("close")
        if self.loop is not None:
            self.loop.close()


def strip(payload: dict[str, Any] | None) -> dict[str, Any] | None:
    """A returned payload without the provenance summary."""
    if payload is None:
        return None
    return {k: v for k, v in payload.items() if k != "memguard"}
