"""The guard: every memory operation passes verify -> decide -> stamp -> store -> record.

Reads: verify identity -> scope plan -> push the plan into the store's query -> re-check every hit
against the ledger (digests, state, quarantine) and the plan (point evaluation) -> record. Writes:
verify -> decide -> assign trust and stamp provenance -> ledger ``pending`` -> store -> ledger
``committed`` + lineage + audit event.

:class:`MemoryGuard` is the :class:`~memguard.kernel.Kernel` (everything store-independent) plus
one :class:`~memguard.stores.base.MemoryStore`. Every refusal raises a
:class:`~memguard.errors.MemguardError` *and* appends a deny event; an unexpected exception anywhere
is a refusal too (fail closed), never a partial answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from memguard.embedding import Embedder, HashEmbedder
from memguard.errors import FactNotFound, InvalidRequest
from memguard.expiry import ttl_seconds_of
from memguard.identity import Identity, Verifier
from memguard.integrity import payload_candidate
from memguard.kernel import Kernel, Operation, StampRequest, VerifiedFact
from memguard.ledger import FactState, Ledger, LedgerRecord
from memguard.ports import StorePort
from memguard.provenance import (
    Provenance,
    Source,
    Turn,
    check_metadata,
    content_digest,
    now_utc,
)
from memguard.readargs import check_min_trust, check_purpose
from memguard.revocation import RevocationReport, RevocationSelector
from memguard.scan.stage import ScanStage
from memguard.scan.verdict import ScanContext
from memguard.scope import PlanKind, ReadRequest, ScopePlan, ScopeResolver
from memguard.stores.base import (
    RESERVED_PAYLOAD_KEY,
    MemoryStore,
    StoredPoint,
    build_payload,
    store_reserved_block,
)
from memguard.sweep import SweepReport, sweep_expired
from memguard.trust import TrustLevel, TrustPolicy

__all__ = ["FactInput", "MemoryGuard", "RecalledFact", "RecoveryReport", "RescanReport"]

_MAX_TEXT = 1 << 20
_MAX_K = 1000
_FILL_ROUNDS = 6


class FactInput(BaseModel):
    """One fact to write. ``trust`` may only lower what the channel gives."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    text: str = Field(min_length=1, max_length=_MAX_TEXT)
    namespace: str = Field(min_length=1, max_length=256)
    source: Source
    turn: Turn
    metadata: dict[str, Any] = Field(default_factory=dict)
    trust: TrustLevel | None = None
    derived_from: tuple[str, ...] = ()
    vector: tuple[float, ...] | None = None


@dataclass(frozen=True, slots=True)
class RecalledFact:
    """A fact as a read returns it: content, full provenance, and the similarity score for searches."""

    fact_id: str
    text: str
    metadata: Mapping[str, Any]
    provenance: Provenance
    score: float | None = None

    @property
    def trust(self) -> TrustLevel:
        return self.provenance.trust

    def summary(self) -> str:
        """One line an agent harness can show a model next to the text."""
        p = self.provenance
        where = p.source.uri or p.source.name or "-"
        return f"[trust={p.trust.label} source={p.source.kind.value}:{where} fact={self.fact_id}]"


@dataclass(frozen=True, slots=True)
class RescanReport:
    """What :meth:`MemoryGuard.rescan` did: the scanner, the facts it re-versioned, and those
    whose trust the new verdict lowered."""

    scanner: str
    version: str
    rescanned: tuple[str, ...] = ()
    lowered: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RecoveryReport:
    committed: tuple[str, ...] = ()
    aborted: tuple[str, ...] = ()
    purged: tuple[str, ...] = ()
    resynced: tuple[str, ...] = ()


def _recalled(fact: VerifiedFact) -> RecalledFact:
    payload = fact.candidate.payload or {}
    return RecalledFact(
        fact.fact_id,
        str(payload["text"]),
        dict(payload["metadata"]),
        fact.provenance,
        fact.candidate.score,
    )


class MemoryGuard:
    """A provenance-stamping, scope-enforcing layer over one store and one ledger (sync)."""

    def __init__(
        self,
        *,
        store: MemoryStore,
        ledger: Ledger,
        verifier: Verifier,
        embedder: Embedder | None = None,
        scope: ScopeResolver | None = None,
        trust_policy: TrustPolicy | None = None,
        clock: Callable[[], float] = time.time,
        recover_on_start: bool = True,
        revocation_ttl: float = 1.0,
        scan_stage: ScanStage | None = None,
    ) -> None:
        """``scan_stage``: the write-time content scan (:mod:`memguard.scan`); off unless given
        (:func:`memguard.embedded.open_embedded` turns the built-in scanner on)."""
        self.store = store
        self.kernel = Kernel(
            ledger=ledger,
            verifier=verifier,
            scope=scope,
            trust_policy=trust_policy,
            clock=clock,
            revocation_ttl=revocation_ttl,
            scan_stage=scan_stage,
        )
        observe = getattr(scope, "observe", None)
        if callable(observe):  # policy reloads and failures go into the ledger (policy_event)
            observe(ledger.policy_event)
        self.embedder: Embedder = embedder or HashEmbedder(store.dimension)
        if self.embedder.dimension != store.dimension:
            raise InvalidRequest("embedder and store dimensions differ")
        if recover_on_start:
            self.recover()

    @property
    def ledger(self) -> Ledger:
        return self.kernel.ledger

    @property
    def verifier(self) -> Verifier:
        return self.kernel.verifier

    @property
    def scope(self) -> ScopeResolver:
        return self.kernel.scope

    @property
    def trust_policy(self) -> TrustPolicy:
        return self.kernel.trust_policy

    # -- identity -------------------------------------------------------------------------------

    def authenticate(
        self, token: str, *, workload_credential: str | None = None, transaction_token: bool = False
    ) -> Identity:
        """Verify a presented token with this guard's verifier; failures are audited.

        With ``workload_credential`` the caller is a workload: the token must name it as its
        current actor (presenter binding, see :mod:`memguard.tokens.verifier`). With
        ``transaction_token=True``, ``token`` is a Txn-Token that workload passes on inside its
        trust domain (only when the verifier is configured for it).
        """
        return self.kernel.authenticate(
            token, workload_credential=workload_credential, transaction_token=transaction_token
        )

    # -- writes -----------------------------------------------------------------------------------

    def write(
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
        """Store one fact and return its provenance.

        ``derived_from`` names the facts this one was derived from (a summary, a merge, an
        extraction): each must be visible to the caller, the new fact's trust is at most the
        lowest of theirs and never above ``derived``, and the lineage edges go to the ledger.
        ``ttl``: a time-to-live (seconds or a timedelta, see :func:`memguard.expiry.ttl_seconds_of`)
        recorded in the provenance; once it has passed the fact is never served and is swept.
        """
        trace = turn.trace_id if isinstance(turn, Turn) else None
        with self.kernel.operation("write", identity, trace_id=trace) as op:
            ttl_seconds = ttl_seconds_of(ttl)  # a bad ttl is refused inside the op: audited
            fact = FactInput(
                text=text,
                namespace=namespace,
                source=source,
                turn=turn,
                metadata=dict(metadata or {}),
                trust=trust,
                derived_from=tuple(derived_from),
                vector=tuple(vector) if vector is not None else None,
            )
            return self._write(op, [fact], ttl_seconds=ttl_seconds)[0]

    def write_many(
        self,
        identity: Identity,
        facts: Sequence[FactInput],
        *,
        fact_ids: Sequence[str] | None = None,
        ttl: float | timedelta | None = None,
    ) -> list[Provenance]:
        """Store a batch atomically per phase: one ledger transaction each side of one store upsert.

        ``fact_ids`` (one per fact) are ids the caller chose, e.g. ones that sort in an order it
        pages by; an id that exists writes a new version, which the kernel allows only as an update.
        ``ttl``: the time-to-live of every fact of the batch (as for :meth:`write`).
        """
        first = facts[0] if facts else None
        trace = first.turn.trace_id if isinstance(first, FactInput) else None
        with self.kernel.operation("write", identity, trace_id=trace) as op:
            ttl_seconds = ttl_seconds_of(ttl)
            if not facts:
                raise InvalidRequest("empty batch")
            if fact_ids is not None and (
                len(fact_ids) != len(facts) or not all(isinstance(i, str) for i in fact_ids)
            ):
                raise InvalidRequest("`fact_ids` names one id (a string) per fact")
            ids = None if fact_ids is None else list(fact_ids)
            return self._write(op, list(facts), ids, ttl_seconds=ttl_seconds)

    def _write(
        self,
        op: Operation,
        facts: list[FactInput],
        fact_ids: Sequence[str | None] | None = None,
        *,
        ttl_seconds: int | None = None,
    ) -> list[Provenance]:
        metas = [check_metadata(f.metadata) for f in facts]
        requests = [
            StampRequest(
                namespace=f.namespace,
                source=f.source,
                turn=f.turn,
                content_digest=content_digest(f.text, meta),
                trust=f.trust,
                derived_from=f.derived_from,
                fact_id=fact_ids[i] if fact_ids is not None else None,
                text=f.text,
                ttl_seconds=ttl_seconds,
            )
            for i, (f, meta) in enumerate(zip(facts, metas, strict=True))
        ]
        records = op.stamp(requests)
        vectors = self._vectors(facts)
        points = [
            StoredPoint(p.fact_id, build_payload(f.text, meta, p), vec)
            for f, meta, p, vec in zip(facts, metas, records, vectors, strict=True)
        ]
        op.persist(records, StorePort(self.store, lambda _: points))
        return records

    def _vectors(self, facts: Sequence[FactInput]) -> list[Sequence[float]]:
        missing = [f.text for f in facts if f.vector is None]
        embedded = iter(self.embedder.embed(missing) if missing else [])
        out: list[Sequence[float]] = []
        for fact in facts:
            vec = fact.vector if fact.vector is not None else next(embedded)
            if len(vec) != self.store.dimension:
                raise InvalidRequest("vector has the wrong dimension")
            out.append(vec)
        return out

    def update(
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
        """Replace a fact's content; a new version with fresh provenance from the update's channel.

        The lineage stays: the new version is still capped by the trust of its inputs.
        ``ttl``: the new version's time-to-live; without one, a version that had a time-to-live
        keeps it (counted from the update), so an update never makes an expiring fact permanent.
        """
        trace = turn.trace_id if isinstance(turn, Turn) else None
        with self.kernel.operation("update", identity, trace_id=trace, fact_ids=[fact_id]) as op:
            ttl_seconds = ttl_seconds_of(ttl)  # a bad ttl is refused inside the op: audited
            request = ReadRequest("update")
            current = self._visible(op, op.read_plan(request), request, [fact_id])[0].provenance
            if ttl_seconds is None:
                ttl_seconds = current.ttl_seconds
            fact = FactInput(
                text=text,
                namespace=current.namespace,
                source=source,
                turn=turn,
                metadata=dict(metadata or {}),
                trust=trust,
                derived_from=current.derived_from,
                vector=tuple(vector) if vector is not None else None,
            )
            return self._write(op, [fact], [fact_id], ttl_seconds=ttl_seconds)[0]

    def delete(self, identity: Identity, fact_id: str) -> None:
        """Delete a fact: tombstone in the ledger first, then purge it from the store."""
        with self.kernel.operation("delete", identity, fact_ids=[fact_id]) as op:
            request = ReadRequest("delete")
            self._visible(op, op.read_plan(request), request, [fact_id])
            op.delete([fact_id], lambda: self.store.delete([fact_id]))

    # -- reads ------------------------------------------------------------------------------------

    def get(
        self,
        identity: Identity,
        fact_id: str,
        *,
        purpose: str = "answer",
        turn: Turn | None = None,
    ) -> RecalledFact:
        """Fetch one fact by id. Unknown, quarantined and out-of-scope ids all raise
        :class:`FactNotFound`. With ``turn``, the read taints later writes in that turn."""
        purpose = check_purpose(purpose)  # before the operation opens (memguard/readargs.py)
        with self.kernel.operation(
            "get", identity, purpose=purpose, turn=turn, fact_ids=[fact_id]
        ) as op:
            request = ReadRequest("get", purpose=purpose)
            fact = self._visible(op, op.read_plan(request), request, [fact_id])[0]
            op.finish()
            return fact

    def search(
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
        """The ``k`` most similar facts the caller may read, each verified against the ledger.

        With ``turn``, what this search returns taints the writes made later in that turn (a
        turn that read an ``untrusted`` fact writes ``untrusted`` facts).
        """
        trace = trace_id or (turn.trace_id if isinstance(turn, Turn) else None)
        min_trust, purpose = check_min_trust(min_trust), check_purpose(purpose)
        with self.kernel.operation(
            "search", identity, purpose=purpose, trace_id=trace, turn=turn
        ) as op:
            if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= _MAX_K:
                raise InvalidRequest(f"k must be between 1 and {_MAX_K}")
            if (query is None) == (vector is None):
                raise InvalidRequest("give exactly one of `query` or `vector`")
            request = ReadRequest(
                "search",
                namespaces=self._namespaces(namespaces),
                min_trust=min_trust,
                purpose=purpose,
            )
            plan = op.read_plan(request)
            qvec = list(vector) if vector is not None else self.embedder.embed([query or ""])[0]
            results = self._search_verified(op, plan, request, qvec, k)
            op.finish(returned=[r.fact_id for r in results], k=k, returned_count=len(results))
            return results

    @staticmethod
    def _namespaces(namespaces: Sequence[str] | None) -> tuple[str, ...] | None:
        if namespaces is not None and (isinstance(namespaces, str) or not namespaces):
            raise InvalidRequest("`namespaces` must be a non-empty list of names")
        return tuple(namespaces) if namespaces is not None else None

    def list_facts(
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
        """Page through the facts the caller may read, in fact-id order (the ``search`` scope).

        Returns the page and the cursor of the next page (``None`` at the end). A page can be
        shorter than ``limit`` when facts were withheld.
        """
        min_trust, purpose = check_min_trust(min_trust), check_purpose(purpose)
        with self.kernel.operation("list", identity, purpose=purpose, turn=turn) as op:
            if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= _MAX_K:
                raise InvalidRequest(f"limit must be between 1 and {_MAX_K}")
            if cursor is not None and (not isinstance(cursor, str) or len(cursor) > 64):
                raise InvalidRequest("invalid cursor")
            request = ReadRequest(
                "search",
                namespaces=self._namespaces(namespaces),
                min_trust=min_trust,
                purpose=purpose,
            )
            plan = op.read_plan(request)
            condition = None if plan.kind is PlanKind.ALLOW else plan.condition
            points, next_cursor = self.store.scroll(condition=condition, limit=limit, cursor=cursor)
            verified = op.verify(
                plan,
                request,
                [payload_candidate(p.fact_id, p.payload) for p in points],
                pushed_down=True,
            )
            results = [_recalled(v) for v in verified]
            op.finish(returned=[r.fact_id for r in results], returned_count=len(results))
            return results, next_cursor

    def _search_verified(
        self, op: Operation, plan: ScopePlan, request: ReadRequest, qvec: list[float], k: int
    ) -> list[RecalledFact]:
        condition = None if plan.kind is PlanKind.ALLOW else plan.condition
        results: list[RecalledFact] = []
        offset, limit = 0, k
        for _ in range(_FILL_ROUNDS):
            hits = self.store.search(qvec, condition=condition, limit=limit, offset=offset)
            verified = op.verify(
                plan,
                request,
                [payload_candidate(h.fact_id, h.payload, h.score) for h in hits],
                pushed_down=True,
            )
            results.extend(_recalled(v) for v in verified)
            if len(results) >= k or len(hits) < limit:
                break
            # some hits were withheld: page on until k verified facts or the store runs out
            offset += len(hits)
            limit = max(k - len(results), 1) * 2
        return results[:k]

    def _visible(
        self, op: Operation, plan: ScopePlan, request: ReadRequest, fact_ids: list[str]
    ) -> list[RecalledFact]:
        points = {p.fact_id: p for p in self.store.retrieve(fact_ids)}
        out = []
        for fact_id in fact_ids:
            point = points.get(fact_id)
            if point is None:
                op.note(why="no such point")
                raise FactNotFound("fact not found")
            verified = op.verify(plan, request, [payload_candidate(fact_id, point.payload)])
            if not verified:
                raise FactNotFound("fact not found")
            out.append(_recalled(verified[0]))
        return out

    # -- lineage, revocation, audit --------------------------------------------------------------

    def revoke(
        self,
        identity: Identity | None,
        selector: RevocationSelector,
        *,
        reason: str,
        follow_context: bool = True,
        operator: str | None = None,
    ) -> RevocationReport:
        """Revoke a source, turn, principal or fact: quarantine it and every descendant.

        Quarantined facts are never returned by any read; their store copies are marked
        (``trust = quarantined``) so pushed-down queries skip them. ``follow_context=False``
        follows only explicit ``derived_from`` edges, not the taint of a turn's reads.
        """
        report = self.kernel.revoke(
            identity, selector, reason=reason, follow_context=follow_context, operator=operator
        )
        synced = self._sync_quarantine() is not None
        return replace(report, store_synced=synced)

    def endorse(
        self,
        identity: Identity | None,
        fact_ids: Sequence[str],
        *,
        reason: str,
        operator: str | None = None,
    ) -> list[str]:
        """Lift the quarantine of ``fact_ids``: an explicit, audited, policy-gated endorsement."""
        lifted = self.kernel.endorse(identity, fact_ids, reason=reason, operator=operator)
        uncapped = self._lift_scan_caps(identity, fact_ids, reason, operator)
        self._sync_quarantine()
        return [*lifted, *(f for f in uncapped if f not in lifted)]

    def _lift_scan_caps(
        self,
        identity: Identity | None,
        fact_ids: Sequence[str],
        reason: str,
        operator: str | None,
    ) -> list[str]:
        """After an endorsement: a new version of each fact whose trust a scanner verdict capped,
        with the trust it would have had and the endorser named in its scan record (the caller's
        ``endorse`` scope admitted every id already). Returns the ids it re-versioned."""
        ids = [f for f in dict.fromkeys(fact_ids) if isinstance(f, str)]
        records = self.ledger.latest(ids)
        todo = [
            r for r in records.values()
            if r.state is FactState.COMMITTED and r.provenance.scan is not None
            and r.provenance.scan.uncapped is not None and r.provenance.scan.cap is not None
            and r.provenance.scan.endorsed_by is None
        ]  # fmt: skip
        if not todo:
            return []
        with self.kernel.operation(
            "endorse", identity, require_identity=operator is None,
            fact_ids=[r.fact_id for r in todo],
        ) as op:  # fmt: skip
            if operator is not None:
                op.note(operator=operator)
            who = op.principal
            endorser = (operator if operator.startswith("operator:") else f"operator:{operator}") \
                if operator is not None else " -> ".join(
                [op.who.subject.subject, *(a.subject for a in op.who.actors)]
            ) if who is not None else "operator"  # fmt: skip
            changes = [
                (rec, {
                    "trust": rec.provenance.scan.uncapped.label,
                    "trust_reason": f"{rec.provenance.trust_reason}; scan cap lifted by {endorser}",
                    "scan": {**rec.provenance.scan.summary(), "cap": None, "endorsed_by": endorser},
                })
                for rec in todo
                if rec.provenance.scan is not None and rec.provenance.scan.uncapped is not None
            ]  # fmt: skip
            return self._reversion(
                op, changes, scan_cap_lifted=True, endorser=endorser, endorsement_reason=reason
            )

    def _reversion(
        self, op: Operation, changes: Sequence[tuple[LedgerRecord, dict[str, Any]]], **detail: Any
    ) -> list[str]:
        """New versions of committed facts with ``changes`` applied to their provenance (trust,
        its reason, the scan record), through the ledger and the store like any write; ``detail``
        goes into the commit event. Returns the ids it re-versioned."""
        ids = [rec.fact_id for rec, _ in changes]
        points = {p.fact_id: p for p in self.store.retrieve(ids)}
        next_versions = self.ledger.next_versions(ids)
        staged: list[Provenance] = []
        moved: list[StoredPoint] = []
        for rec, update in changes:
            point = points.get(rec.fact_id)
            if point is None:
                continue  # the store lost it: left to recovery and `store rebuild`
            data = rec.provenance.json_dict()
            data.update(update)
            data.update(version=next_versions[rec.fact_id], created_at=now_utc().isoformat())
            prov = Provenance.model_validate(data)
            reserved = store_reserved_block(prov)
            if rec.quarantined:  # a lineage quarantine still withholds it
                reserved["trust"] = int(TrustLevel.QUARANTINED)
            vector = point.vector
            if vector is None:
                text = point.payload.get("text")
                vector = self.embedder.embed([text if isinstance(text, str) else ""])[0]
            staged.append(prov)
            moved.append(StoredPoint(
                rec.fact_id, {**point.payload, RESERVED_PAYLOAD_KEY: reserved}, list(vector)
            ))  # fmt: skip
        if not staged:
            op.finish("nothing to change")
            return []
        op.persist(staged, StorePort(self.store, lambda _: moved), **detail)
        return [p.fact_id for p in staged]

    def rescan(
        self,
        *,
        operator: str,
        batch: int = 200,
        on_batch: Callable[[int], object] | None = None,
    ) -> RescanReport:
        """Re-scan every committed fact that this guard's scanner (name and version) has not
        scanned yet, ``batch`` facts per ledger transaction, as the local operator.

        Each re-scanned fact gets a new version recording the new verdict; a verdict whose cap is
        below the fact's trust lowers it (a rescan never raises trust: that is an endorsement).
        Facts a person endorsed keep their version. Resumable: a finished batch is never scanned
        again, so an interrupted rescan continues where it stopped. ``on_batch(n)`` is called
        after each batch (a progress display)."""
        stage = self.kernel.scan_stage
        if stage is None:
            raise InvalidRequest("no scan stage is configured")
        if not isinstance(batch, int) or not 1 <= batch <= 10_000:
            raise InvalidRequest("batch must be between 1 and 10000")
        ids = sorted({r.fact_id for r in self.ledger.in_state(FactState.COMMITTED)})
        lowered: list[str] = []
        rescanned: list[str] = []
        for start in range(0, len(ids), batch):
            records = self.ledger.latest(ids[start : start + batch])
            todo = [
                r for r in records.values()
                if r.state is FactState.COMMITTED and (r.provenance.scan is None or (
                    r.provenance.scan.endorsed_by is None
                    and (r.provenance.scan.scanner, r.provenance.scan.version)
                    != (stage.name, stage.version)
                ))
            ]  # fmt: skip
            if todo:
                done, low = self._rescan_batch(stage, todo, operator)
                rescanned.extend(done)
                lowered.extend(low)
            if on_batch is not None:
                on_batch(len(records))
        return RescanReport(stage.name, stage.version, tuple(rescanned), tuple(lowered))

    def _rescan_batch(
        self, stage: ScanStage, todo: list[LedgerRecord], operator: str
    ) -> tuple[list[str], list[str]]:
        points = {p.fact_id: p for p in self.store.retrieve([r.fact_id for r in todo])}
        todo = [r for r in todo if r.fact_id in points]
        texts = [points[r.fact_id].payload.get("text") for r in todo]
        items = [
            (t if isinstance(t, str) else "",
             ScanContext(r.provenance.namespace, r.provenance.source.kind,
                         bool(r.provenance.derived_from)))
            for r, t in zip(todo, texts, strict=True)
        ]  # fmt: skip
        verdicts = stage.scan_batch(items)
        changes: list[tuple[LedgerRecord, dict[str, Any]]] = []
        lowered: list[str] = []
        for rec, verdict in zip(todo, verdicts, strict=True):
            prov = rec.provenance
            trust, base = prov.trust, prov.trust
            if prov.scan is not None and prov.scan.uncapped is not None:
                base = max(base, prov.scan.uncapped)  # what the channel gave, before any cap
            reason = (
                f"{prov.trust_reason}; rescanned by {stage.name} v{stage.version}: {verdict.label}"
            )
            # a label the policy refuses cannot un-write the fact: the lowest level holds it
            cap = TrustLevel.QUARANTINED if verdict.refused else verdict.cap
            if cap is not None and cap < trust:
                trust = cap
                lowered.append(rec.fact_id)
                reason += f" cap {trust.label}"
            scan = {**verdict.summary(), "uncapped": base.label if trust < base else None}
            changes.append((rec, {"trust": trust.label, "trust_reason": reason, "scan": scan}))
        with self.kernel.operation("rescan", None, require_identity=False) as op:
            op.note(operator=operator)
            done = self._reversion(op, changes, scanner=stage.name, scanner_version=stage.version,
                                   lowered=len(lowered))  # fmt: skip
        return done, [f for f in lowered if f in set(done)]

    def sweep_expired(
        self,
        *,
        operator: str,
        dry_run: bool = False,
        batch: int = 256,
        on_batch: Callable[[int], object] | None = None,
    ) -> SweepReport:
        """Delete the facts of this guard's store whose latest ledger version has expired, through
        the kernel's ``expire`` operation (a tombstone and an audit event per batch, then the
        purge), as the local operator; ``dry_run`` only lists them. See :mod:`memguard.sweep`."""
        return sweep_expired(self.kernel, self.store, operator=operator, dry_run=dry_run,
                             batch=batch, on_batch=on_batch)  # fmt: skip

    def _sync_quarantine(self) -> list[str] | None:
        """Bring the store's indexed trust in line with the ledger's quarantine rows; returns the
        ids it synced, or ``None`` if the sync failed (recovery retries it)."""
        try:
            pending = self.ledger.lineage.unsynced()
            if not pending:
                return []
            records = self.ledger.latest([fact_id for fact_id, _ in pending])
            trust = {
                fact_id: 0 if held else int(records[fact_id].provenance.trust)
                for fact_id, held in pending
                if fact_id in records
            }
            self.store.set_trust(trust)
            synced = [fact_id for fact_id, _ in pending]
            self.ledger.lineage.mark_synced(synced)
            return synced
        except Exception:  # the ledger already withholds them; recovery retries the sync
            return None

    def audit(self, identity: Identity, fact_id: str) -> dict[str, Any]:
        """The audit report of one fact (``memguard.audit/v1``) if the caller's ``audit`` scope
        admits it. Quarantined facts can be audited; unknown and out-of-scope ids raise
        :class:`FactNotFound`."""
        from memguard.audit import audit_fact, reader_visibility

        with self.kernel.operation("audit", identity, fact_ids=[fact_id]) as op:
            request = ReadRequest("audit")
            plan = op.read_plan(request)
            record = self.ledger.latest([fact_id]).get(fact_id)
            if record is None:
                op.note(why="no such fact")
                raise FactNotFound("fact not found")
            if not op.admits(plan, request, record):
                op.note(why="out of scope")
                raise FactNotFound("fact not found")
            # related facts the caller may neither read nor audit appear only as counts
            visible = reader_visibility(op, "get", "audit")
            report = audit_fact(self.ledger, self.store, fact_id, visible=visible)
            op.finish()
            return report

    # -- recovery ---------------------------------------------------------------------------------

    def recover(self, *, older_than: float = 0.0) -> RecoveryReport:
        """Reconcile the ledger with the store after a crash.

        A ``pending`` row whose point the store holds with the same record digest is committed (the
        store has exactly that version); any other pending row is aborted. Deleted facts the store still
        holds are purged, and unfinished quarantine syncs are redone. ``older_than`` skips rows
        younger than that many seconds, for deployments where other processes may have writes in
        flight.

        Several processes on one ledger: recovery runs under the ledger's lease (a process that
        finds another live one recovering returns an empty report), and only rows whose staging
        process is gone are touched (memguard/ledger/recovery.py).
        """
        with self.ledger.recovery_lease() as held:
            if not held:
                return RecoveryReport((), (), (), ())
            probe = StorePort(self.store, lambda _: ()).probe
            committed, aborted = self.kernel.recover_pending(probe, older_than=older_than)
            purged = self.kernel.redo_purges(self.store.delete)
        resynced = self._sync_quarantine() or []
        return RecoveryReport(tuple(committed), tuple(aborted), tuple(purged), tuple(resynced))

    def close(self) -> None:
        """Integrate the audit events still queued (and sign a checkpoint), then close."""
        try:
            try:
                self.ledger.log.flush()
            except Exception:  # the events are durable; the next process integrates them
                pass
            self.store.close()
        finally:
            self.ledger.close()
            if self.kernel.scan_stage is not None:
                self.kernel.scan_stage.close()

    def __enter__(self) -> MemoryGuard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
