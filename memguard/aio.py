"""The async shell: the same guard, each call run in a worker thread so the event loop never blocks."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from memguard.guard import FactInput, MemoryGuard, RecalledFact, RecoveryReport, RescanReport
from memguard.identity import Identity
from memguard.provenance import Provenance, Source, Turn
from memguard.revocation import RevocationReport, RevocationSelector
from memguard.sweep import SweepReport
from memguard.trust import TrustLevel

__all__ = ["AsyncMemoryGuard"]


class AsyncMemoryGuard:
    """Async twin of :class:`~memguard.guard.MemoryGuard`; same checks, same audit events."""

    def __init__(self, guard: MemoryGuard) -> None:
        self.guard = guard

    async def authenticate(
        self,
        token: str,
        *,
        workload_credential: str | None = None,
        transaction_token: bool = False,
    ) -> Identity:
        return await asyncio.to_thread(
            lambda: self.guard.authenticate(
                token, workload_credential=workload_credential, transaction_token=transaction_token
            )
        )

    async def write(
        self,
        identity: Identity,
        text: str,
        *,
        namespace: str,
        source: Source,
        turn: Turn,
        metadata: Mapping[str, Any] | None = None,
        trust: TrustLevel | None = None,
        derived_from: Sequence[str] = (),
        vector: Sequence[float] | None = None,
        ttl: float | timedelta | None = None,
    ) -> Provenance:
        return await asyncio.to_thread(
            lambda: self.guard.write(
                identity,
                text,
                namespace=namespace,
                source=source,
                turn=turn,
                metadata=metadata,
                trust=trust,
                derived_from=derived_from,
                vector=vector,
                ttl=ttl,
            )
        )

    async def write_many(
        self,
        identity: Identity,
        facts: Sequence[FactInput],
        *,
        fact_ids: Sequence[str] | None = None,
        ttl: float | timedelta | None = None,
    ) -> list[Provenance]:
        return await asyncio.to_thread(
            lambda: self.guard.write_many(identity, facts, fact_ids=fact_ids, ttl=ttl)
        )

    async def get(
        self, identity: Identity, fact_id: str, *, purpose: str = "answer", turn: Turn | None = None
    ) -> RecalledFact:
        return await asyncio.to_thread(
            lambda: self.guard.get(identity, fact_id, purpose=purpose, turn=turn)
        )

    async def search(
        self,
        identity: Identity,
        query: str | None = None,
        *,
        vector: Sequence[float] | None = None,
        k: int = 10,
        namespaces: Sequence[str] | None = None,
        min_trust: TrustLevel | None = None,
        purpose: str = "answer",
        trace_id: str | None = None,
        turn: Turn | None = None,
    ) -> list[RecalledFact]:
        return await asyncio.to_thread(
            lambda: self.guard.search(
                identity,
                query,
                vector=vector,
                k=k,
                namespaces=namespaces,
                min_trust=min_trust,
                purpose=purpose,
                trace_id=trace_id,
                turn=turn,
            )
        )

    async def list_facts(
        self,
        identity: Identity,
        *,
        namespaces: Sequence[str] | None = None,
        min_trust: TrustLevel | None = None,
        limit: int = 100,
        cursor: str | None = None,
        purpose: str = "answer",
        turn: Turn | None = None,
    ) -> tuple[list[RecalledFact], str | None]:
        return await asyncio.to_thread(
            lambda: self.guard.list_facts(
                identity,
                namespaces=namespaces,
                min_trust=min_trust,
                limit=limit,
                cursor=cursor,
                purpose=purpose,
                turn=turn,
            )
        )

    async def update(
        self,
        identity: Identity,
        fact_id: str,
        text: str,
        *,
        source: Source,
        turn: Turn,
        metadata: Mapping[str, Any] | None = None,
        trust: TrustLevel | None = None,
        vector: Sequence[float] | None = None,
        ttl: float | timedelta | None = None,
    ) -> Provenance:
        return await asyncio.to_thread(
            lambda: self.guard.update(
                identity,
                fact_id,
                text,
                source=source,
                turn=turn,
                metadata=metadata,
                trust=trust,
                vector=vector,
                ttl=ttl,
            )
        )

    async def delete(self, identity: Identity, fact_id: str) -> None:
        await asyncio.to_thread(self.guard.delete, identity, fact_id)

    async def revoke(
        self,
        identity: Identity | None,
        selector: RevocationSelector,
        *,
        reason: str,
        follow_context: bool = True,
        operator: str | None = None,
    ) -> RevocationReport:
        return await asyncio.to_thread(
            lambda: self.guard.revoke(
                identity, selector, reason=reason, follow_context=follow_context, operator=operator
            )
        )

    async def endorse(
        self,
        identity: Identity | None,
        fact_ids: Sequence[str],
        *,
        reason: str,
        operator: str | None = None,
    ) -> list[str]:
        return await asyncio.to_thread(
            lambda: self.guard.endorse(identity, fact_ids, reason=reason, operator=operator)
        )

    async def audit(self, identity: Identity, fact_id: str) -> dict[str, Any]:
        return await asyncio.to_thread(self.guard.audit, identity, fact_id)

    async def rescan(
        self,
        *,
        operator: str,
        batch: int = 200,
        on_batch: Callable[[int], object] | None = None,
    ) -> RescanReport:
        return await asyncio.to_thread(
            lambda: self.guard.rescan(operator=operator, batch=batch, on_batch=on_batch)
        )

    async def sweep_expired(
        self,
        *,
        operator: str,
        dry_run: bool = False,
        batch: int = 256,
        on_batch: Callable[[int], object] | None = None,
    ) -> SweepReport:
        return await asyncio.to_thread(
            lambda: self.guard.sweep_expired(
                operator=operator, dry_run=dry_run, batch=batch, on_batch=on_batch
            )
        )

    async def recover(self, *, older_than: float = 0.0) -> RecoveryReport:
        return await asyncio.to_thread(lambda: self.guard.recover(older_than=older_than))

    async def close(self) -> None:
        await asyncio.to_thread(self.guard.close)
