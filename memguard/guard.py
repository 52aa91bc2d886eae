"""The guard: every memory operation passes verify -> decide -> stamp -> store -> record.

Reads: verify identity -> scope plan -> push the plan into the store's query -> re-check every hit
against the ledger (digests) and the plan (point evaluation) -> record. Writes: verify -> decide ->
assign trust and stamp provenance -> ledger ``pending`` -> store -> ledger ``committed`` + audit event.

Every refusal raises a :class:`~memguard.errors.MemguardError` *and* appends a deny event; an
unexpected exception anywhere is a refusal too (fail closed), never a partial answer.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memguard.embedding import Embedder, HashEmbedder
from memguard.errors import (
    AccessDenied,
    FactNotFound,
    IdentityError,
    InvalidRequest,
    MemguardError,
    TrustEscalation,
)
from memguard.events import AuditEvent, Decision
from memguard.identity import Identity, Principal, Verifier, check_identifier
from memguard.integrity import payload_problem
from memguard.ledger import FactState, Ledger, LedgerRecord
from memguard.logging import get_logger
from memguard.provenance import (
    Provenance,
    Source,
    Turn,
    WriterChain,
    check_metadata,
    content_digest,
    now_utc,
    sha256_digest,
)
from memguard.scope import (
    DefaultScopeResolver,
    FieldValue,
    PlanKind,
    PointDecider,
    ReadRequest,
    ScopePlan,
    ScopeResolver,
    index_fields,
)
from memguard.stores.base import MemoryStore, StoredPoint, build_payload
from memguard.trust import TrustLevel, TrustPolicy

__all__ = ["FactInput", "MemoryGuard", "RecalledFact", "RecoveryReport"]

_MAX_TEXT = 1 << 20
_MAX_K = 1000
_FILL_ROUNDS = 6
_GET = ReadRequest("get")


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
class RecoveryReport:
    committed: tuple[str, ...] = ()
    aborted: tuple[str, ...] = ()
    purged: tuple[str, ...] = ()


@dataclass(slots=True)
class _Op:
    """What the audit event of the operation in progress will say."""

    action: str
    principal: Principal | None = None
    trace_id: str | None = None
    purpose: str | None = None
    policy_digest: str | None = None
    fact_ids: list[str] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)


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
    ) -> None:
        self.store = store
        self.ledger = ledger
        self.verifier = verifier
        self.embedder: Embedder = embedder or HashEmbedder(store.dimension)
        if self.embedder.dimension != store.dimension:
            raise InvalidRequest("embedder and store dimensions differ")
        self.scope: ScopeResolver = scope or DefaultScopeResolver()
        self.trust_policy = trust_policy or TrustPolicy()
        self._clock = clock
        self._log = get_logger()
        if recover_on_start:
            self.recover()

    # -- identity -------------------------------------------------------------------------------

    def authenticate(self, token: str, *, workload_credential: str | None = None) -> Identity:
        """Verify a presented token with this guard's verifier; failures are audited.

        With ``workload_credential`` the caller is a workload: the token must name it as its
        current actor (presenter binding, see :mod:`memguard.tokens.verifier`).
        """
        op = _Op("authenticate")
        with self._operation(op):
            op.detail["token_digest"] = sha256_digest(
                token.encode("utf-8", "replace") if isinstance(token, str) else b""
            )
            if workload_credential is None:
                identity = self.verifier.verify(token)
            else:
                bind = getattr(self.verifier, "verify_presented", None)
                if bind is None:
                    raise IdentityError("verifier cannot bind a presenter", code="identity.unbound")
                identity = bind(token, workload_credential)
                if not isinstance(identity, Identity):
                    raise IdentityError("verifier returned no identity", code="identity.missing")
            op.principal = identity.principal
        return identity

    def _principal(self, identity: object, op: _Op) -> Principal:
        if not isinstance(identity, Identity):
            raise IdentityError("a verified identity is required", code="identity.missing")
        if identity.expires_at <= self._clock():
            op.principal = identity.principal
            raise IdentityError("identity expired", code="identity.expired")
        if not self.verifier.minted(identity):
            raise IdentityError("identity not verified by this guard", code="identity.unverified")
        op.principal = identity.principal
        return identity.principal

    # -- the audited operation wrapper ------------------------------------------------------------

    @contextmanager
    def _operation(self, op: _Op) -> Iterator[None]:
        """Turn every failure into a typed error plus a deny event; nothing escapes un-audited."""
        try:
            yield
        except MemguardError as exc:
            self._deny(op, exc)
            raise
        except (ValidationError, ValueError, TypeError) as exc:
            err = InvalidRequest("invalid request")
            op.detail["error"] = type(exc).__name__
            self._deny(op, err)
            raise err from exc
        except Exception as exc:
            internal = MemguardError("internal error; request refused", code="internal")
            op.detail["error"] = type(exc).__name__
            self._deny(op, internal)
            raise internal from exc

    def _event(self, op: _Op, decision: Decision, reason: str, **detail: Any) -> AuditEvent:
        return AuditEvent(
            action=op.action,
            decision=decision,
            reason=reason,
            principal=op.principal.summary() if op.principal else None,
            fact_ids=tuple(op.fact_ids),
            trace_id=op.trace_id,
            purpose=op.purpose,
            policy_digest=op.policy_digest,
            detail={**op.detail, **detail},
        )

    def _deny(self, op: _Op, exc: MemguardError) -> None:
        event = self._event(op, Decision.DENY, exc.code, message=str(exc))
        self._emit(event)
        try:
            self.ledger.record([event])
        except MemguardError as ledger_exc:
            # The ledger is down: the refusal stands, the operational log keeps the event.
            self._log.error(
                "audit_event_lost", event_id=event.event_id, error=ledger_exc.code, op=op.action
            )

    def _emit(self, event: AuditEvent) -> None:
        try:
            self._log_decision(event)
        except Exception:  # the ledger is the record; a broken log must not flip a decision
            pass

    def _log_decision(self, event: AuditEvent) -> None:
        principal = event.principal or {}
        self._log.info(
            "memguard.decision",
            op=event.action,
            decision=event.decision.value,
            reason=event.reason,
            fact_ids=list(event.fact_ids),
            trace_id=event.trace_id,
            subject=principal.get("subject"),
            actors=principal.get("actors"),
            jti=principal.get("jti"),
            policy_digest=event.policy_digest,
        )

    def _allow(self, op: _Op, reason: str = "ok", **detail: Any) -> AuditEvent:
        event = self._event(op, Decision.ALLOW, reason, **detail)
        self._emit(event)
        return event

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
    ) -> Provenance:
        """Store one fact and return its provenance."""
        op = _Op("write", trace_id=turn.trace_id if isinstance(turn, Turn) else None)
        with self._operation(op):
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
            return self._write(identity, [fact], op)[0]

    def write_many(self, identity: Identity, facts: Sequence[FactInput]) -> list[Provenance]:
        """Store a batch atomically per phase: one ledger transaction each side of one store upsert."""
        op = _Op("write")
        with self._operation(op):
            if not facts:
                raise InvalidRequest("empty batch")
            op.trace_id = facts[0].turn.trace_id
            return self._write(identity, list(facts), op)

    def _write(self, identity: Identity, facts: list[FactInput], op: _Op) -> list[Provenance]:
        principal = self._principal(identity, op)
        read_plan: ScopePlan | None = None
        stamped: list[tuple[FactInput, dict[str, Any], Provenance]] = []
        vectors = self._vectors(facts)
        now = now_utc()
        for fact in facts:
            try:
                check_identifier(fact.namespace, "namespace")
            except IdentityError:  # the same character rules as identifiers, but it is not identity
                raise InvalidRequest("namespace has forbidden characters") from None
            decision = self.scope.write_decision(principal, fact.namespace)
            op.policy_digest = decision.policy_digest
            if not decision.allowed:
                raise AccessDenied("write not permitted", code="access_denied.policy")
            metadata = check_metadata(fact.metadata)
            level, reason = self._assign_trust(principal, fact, decision.max_trust)
            if fact.derived_from:
                read_plan = read_plan or self.scope.read_plan(principal, _GET)
                inputs = self._visible(read_plan, _GET, list(fact.derived_from), op)
                weakest = min(r.provenance.trust for r in inputs)
                if weakest < level:
                    level, reason = weakest, f"{reason}; min of inputs = {weakest.label}"
            prov = Provenance(
                fact_id=str(uuid.uuid4()),
                version=1,
                namespace=fact.namespace,
                owner=principal.subject,
                source=fact.source,
                turn=fact.turn,
                trust=level,
                trust_reason=reason,
                writer=WriterChain.from_principal(principal),
                derived_from=tuple(dict.fromkeys(fact.derived_from)),
                created_at=now,
                content_digest=content_digest(fact.text, metadata),
                policy_digest=decision.policy_digest,
            )
            stamped.append((fact, metadata, prov))
        self._persist(op, [(f.text, m, p) for f, m, p in stamped], vectors)
        return [p for _, _, p in stamped]

    def _assign_trust(
        self, principal: Principal, fact: FactInput, policy_max: TrustLevel
    ) -> tuple[TrustLevel, str]:
        level = self.trust_policy.assign(
            fact.source.kind, depth=principal.depth, scopes=principal.scopes, requested=fact.trust
        )
        default = self.trust_policy.source_defaults[fact.source.kind]
        ceiling = self.trust_policy.ceiling(principal.depth, principal.scopes)
        reason = (
            f"source {fact.source.kind.value} default {default.label}; "
            f"writer depth {principal.depth} ceiling {ceiling.label}"
        )
        if fact.trust is not None:
            reason += f"; lowered by writer to {fact.trust.label}"
        if level > policy_max:
            if fact.trust is not None:
                raise TrustEscalation("requested trust is above what policy allows this writer")
            level = policy_max
            reason += f"; policy cap {policy_max.label}"
        return level, reason

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

    def _persist(
        self,
        op: _Op,
        items: Sequence[tuple[str, Mapping[str, Any], Provenance]],
        vectors: Sequence[Sequence[float]],
    ) -> None:
        records = [p for _, _, p in items]
        op.fact_ids = [p.fact_id for p in records]
        points = [
            StoredPoint(p.fact_id, build_payload(text, meta, p), vec)
            for (text, meta, p), vec in zip(items, vectors, strict=True)
        ]
        self.ledger.begin(records)  # durable before the store sees anything
        try:
            self.store.upsert(points)
        except Exception:  # any store failure, typed or not: the rows must not stay pending
            self._safe_abort(records)
            raise
        self.ledger.commit(records, [self._allow(op, versions=[p.version for p in records])])

    def _safe_abort(self, records: Sequence[Provenance]) -> None:
        try:
            self.ledger.abort(records)
        except MemguardError:
            pass  # recovery aborts it later: the row stays pending, so it is never served

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
    ) -> Provenance:
        """Replace a fact's content; a new version with fresh provenance from the update's channel."""
        op = _Op("update", trace_id=turn.trace_id if isinstance(turn, Turn) else None)
        op.fact_ids = [fact_id]
        with self._operation(op):
            principal = self._principal(identity, op)
            request = ReadRequest("update")
            plan = self._plan(principal, request, op)
            current = self._visible(plan, request, [fact_id], op)[0].provenance
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
            decision = self.scope.write_decision(principal, current.namespace)
            op.policy_digest = decision.policy_digest
            if not decision.allowed:
                raise AccessDenied("write not permitted", code="access_denied.policy")
            meta = check_metadata(fact.metadata)
            level, reason = self._assign_trust(principal, fact, decision.max_trust)
            if current.derived_from:  # the lineage stays, so trust stays capped by its inputs
                inputs_plan = self.scope.read_plan(principal, _GET)
                inputs = self._visible(inputs_plan, _GET, list(current.derived_from), op)
                weakest = min(r.provenance.trust for r in inputs)
                if weakest < level:
                    level, reason = weakest, f"{reason}; min of inputs = {weakest.label}"
            prov = current.model_copy(
                update={
                    "version": current.version + 1,
                    "source": source,
                    "turn": turn,
                    "trust": level,
                    "trust_reason": reason,
                    "writer": WriterChain.from_principal(principal),
                    "created_at": now_utc(),
                    "content_digest": content_digest(text, meta),
                    "policy_digest": decision.policy_digest,
                }
            )
            prov = Provenance.model_validate(prov.model_dump())
            self._persist(op, [(text, meta, prov)], self._vectors([fact]))
            return prov

    def delete(self, identity: Identity, fact_id: str) -> None:
        """Delete a fact: tombstone in the ledger first, then purge it from the store."""
        op = _Op("delete", fact_ids=[fact_id])
        with self._operation(op):
            principal = self._principal(identity, op)
            request = ReadRequest("delete")
            plan = self._plan(principal, request, op)
            self._visible(plan, request, [fact_id], op)
            self.ledger.mark_deleted([fact_id], [self._allow(op)])
            self.store.delete([fact_id])
            self.ledger.mark_purged([fact_id])

    # -- reads ------------------------------------------------------------------------------------

    def _plan(self, principal: Principal, request: ReadRequest, op: _Op) -> ScopePlan:
        plan = self.scope.read_plan(principal, request)
        op.policy_digest = plan.policy_digest
        op.detail["rules"] = list(plan.rule_ids)
        if plan.kind is PlanKind.DENY:
            raise AccessDenied("read not permitted", code="access_denied.policy")
        return plan

    def get(self, identity: Identity, fact_id: str, *, purpose: str = "answer") -> RecalledFact:
        """Fetch one fact by id. Unknown and out-of-scope ids both raise :class:`FactNotFound`."""
        op = _Op("get", purpose=purpose, fact_ids=[fact_id])
        with self._operation(op):
            principal = self._principal(identity, op)
            request = ReadRequest("get", purpose=purpose)
            plan = self._plan(principal, request, op)
            fact = self._visible(plan, request, [fact_id], op)[0]
            self.ledger.record([self._allow(op)])
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
    ) -> list[RecalledFact]:
        """The ``k`` most similar facts the caller may read, each verified against the ledger."""
        op = _Op("search", purpose=purpose, trace_id=trace_id)
        with self._operation(op):
            principal = self._principal(identity, op)
            if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= _MAX_K:
                raise InvalidRequest(f"k must be between 1 and {_MAX_K}")
            if (query is None) == (vector is None):
                raise InvalidRequest("give exactly one of `query` or `vector`")
            if namespaces is not None and (isinstance(namespaces, str) or not namespaces):
                raise InvalidRequest("`namespaces` must be a non-empty list of names")
            request = ReadRequest(
                "search",
                namespaces=tuple(namespaces) if namespaces is not None else None,
                min_trust=min_trust,
                purpose=purpose,
            )
            plan = self._plan(principal, request, op)
            qvec = list(vector) if vector is not None else self.embedder.embed([query or ""])[0]
            results = self._search_verified(plan, request, qvec, k, op)
            op.fact_ids = [r.fact_id for r in results]
            self.ledger.record([self._allow(op, k=k, returned=len(results))])
            return results

    def _search_verified(
        self, plan: ScopePlan, request: ReadRequest, qvec: list[float], k: int, op: _Op
    ) -> list[RecalledFact]:
        condition = None if plan.kind is PlanKind.ALLOW else plan.condition
        results: list[RecalledFact] = []
        offset, limit = 0, k
        for _ in range(_FILL_ROUNDS):
            hits = self.store.search(qvec, condition=condition, limit=limit, offset=offset)
            records = self.ledger.latest([h.fact_id for h in hits])
            for hit in hits:
                fact = self._check(
                    plan, request, hit.fact_id, hit.payload, records.get(hit.fact_id), op
                )
                if fact is not None:
                    results.append(
                        RecalledFact(
                            fact.fact_id, fact.text, fact.metadata, fact.provenance, hit.score
                        )
                    )
            if len(results) >= k or len(hits) < limit:
                break
            # some hits were withheld: page on until k verified facts or the store runs out
            offset += len(hits)
            limit = max(k - len(results), 1) * 2
        return results[:k]

    def _visible(
        self, plan: ScopePlan, request: ReadRequest, fact_ids: list[str], op: _Op
    ) -> list[RecalledFact]:
        points = {p.fact_id: p for p in self.store.retrieve(fact_ids)}
        records = self.ledger.latest(fact_ids)
        out = []
        for fact_id in fact_ids:
            point = points.get(fact_id)
            if point is None:
                op.detail["why"] = "no such point"
                raise FactNotFound("fact not found")
            fact = self._check(plan, request, fact_id, point.payload, records.get(fact_id), op)
            if fact is None:
                raise FactNotFound("fact not found")
            out.append(fact)
        return out

    def _check(
        self,
        plan: ScopePlan,
        request: ReadRequest,
        fact_id: str,
        payload: Mapping[str, Any],
        record: LedgerRecord | None,
        op: _Op,
    ) -> RecalledFact | None:
        """Verify one point against its ledger row and the plan; withhold (and maybe alarm) if not."""
        if record is None:
            self._alarm(op, fact_id, "integrity.unknown_point")
            return None
        if record.state is not FactState.COMMITTED:
            op.detail.setdefault("withheld", []).append(
                {"fact_id": fact_id, "state": record.state.value}
            )
            op.detail["why"] = f"state {record.state.value}"
            return None
        prov = record.provenance
        problem = payload_problem(payload, record, prov)
        if problem is not None:
            self._alarm(op, fact_id, problem)
            op.detail["why"] = problem
            return None
        fields = index_fields(prov)
        if not plan.allows(fields):
            if op.action == "search":  # the store returned what the plan excludes
                self._alarm(op, fact_id, "scope.pushdown_mismatch")
            op.detail["why"] = "out of scope"
            return None
        if not self._point_allows(request, fields, op):
            # the plan admitted it but the resolver's independent point evaluator does not
            self._alarm(op, fact_id, "scope.point_mismatch")
            op.detail["why"] = "point decision denied"
            return None
        return RecalledFact(fact_id, str(payload["text"]), dict(payload["metadata"]), prov)

    def _point_allows(
        self, request: ReadRequest, fields: Mapping[str, FieldValue], op: _Op
    ) -> bool:
        """Ask the resolver's point evaluator too, when it has one (see :class:`PointDecider`)."""
        if not isinstance(self.scope, PointDecider):
            return True  # the plan is the resolver's whole semantics (DefaultScopeResolver)
        if op.principal is None:
            return False
        try:
            return self.scope.point_allows(op.principal, request, fields) is True
        except Exception:
            return False  # an evaluation error is a deny

    def _alarm(self, op: _Op, fact_id: str, reason: str) -> None:
        event = AuditEvent(
            action=op.action,
            decision=Decision.ALARM,
            reason=reason,
            principal=op.principal.summary() if op.principal else None,
            fact_ids=(fact_id,),
            trace_id=op.trace_id,
            purpose=op.purpose,
            policy_digest=op.policy_digest,
        )
        self._emit(event)
        self.ledger.record([event])

    # -- recovery ---------------------------------------------------------------------------------

    def recover(self, *, older_than: float = 0.0) -> RecoveryReport:
        """Reconcile the ledger with the store after a crash.

        A ``pending`` row whose point the store holds with the same record digest is committed (the
        store has exactly that version); any other pending row is aborted. Deleted facts the store still
        holds are purged. ``older_than`` skips rows younger than that many seconds, for deployments
        where other processes may have writes in flight.
        """
        committed: list[str] = []
        aborted: list[str] = []
        cutoff = self._clock() - older_than
        op = _Op("recover")
        for rec in self.ledger.in_state(FactState.PENDING):
            prov = rec.provenance
            if prov.created_at.timestamp() > cutoff:
                continue
            points = self.store.retrieve([rec.fact_id])
            matches = bool(points) and payload_problem(points[0].payload, rec, prov) is None
            if matches:
                op.fact_ids = [rec.fact_id]
                self.ledger.commit(
                    [prov], [self._allow(op, "recovered_commit", version=rec.version)]
                )
                committed.append(rec.fact_id)
            else:
                self.ledger.abort([prov])
                op.fact_ids = [rec.fact_id]
                self.ledger.record([self._allow(op, "recovered_abort", version=rec.version)])
                aborted.append(rec.fact_id)
        purged = [r.fact_id for r in self.ledger.in_state(FactState.DELETED, purged=False)]
        if purged:
            self.store.delete(purged)
            self.ledger.mark_purged(purged)
        return RecoveryReport(tuple(committed), tuple(aborted), tuple(dict.fromkeys(purged)))

    def close(self) -> None:
        self.store.close()
        self.ledger.close()
