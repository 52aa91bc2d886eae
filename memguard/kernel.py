"""The store-independent half of the guard, shared by :class:`~memguard.guard.MemoryGuard` and adapters.

Every memory operation is one audited :class:`Operation`, opened with :meth:`Kernel.operation`::

    with kernel.operation("write", identity, trace_id=...) as op:   # verify
        records = op.stamp([StampRequest(..., text=...)])          # decide + scan + stamp
        op.persist(records, port)        # ledger pending -> port.put (the adapter's I/O) -> committed
                                         # + allow event; abort / in-process resolution on failure

    with kernel.operation("search", identity, purpose=..., turn=...) as op:
        plan = op.read_plan(ReadRequest("search", ...))             # decide: deny | allow | residual
        rows = backend.query(translate(plan.condition))             # pushed into the store's query
        facts = op.verify(plan, request, [Candidate(...), ...])     # re-check each hit: ledger + plan
        op.finish(returned=[f.fact_id for f in facts])              # record: allow event

Any exception inside the block becomes a typed :class:`~memguard.errors.MemguardError` plus a deny
event (fail closed); leaving the block normally without :meth:`Operation.finish` records the allow.
The backend translates ``plan.condition`` itself (Qdrant filter, SQL WHERE, ...) and refuses what it
cannot express; the kernel never post-filters a top-k on the caller's behalf.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError

from memguard import expiry, protocol, recovery, revoking
from memguard import stamp as stamping
from memguard.denials import note_principal, request_credentials
from memguard.errors import (
    AccessDenied,
    FactNotFound,
    IdentityError,
    InvalidRequest,
    MemguardError,
    TrustEscalation,
)
from memguard.events import AuditEvent, Decision
from memguard.identity import Identity, Principal, PrincipalId, Verifier
from memguard.integrity import (
    Candidate,
    candidate_problem,
    ledger_problem,
    plan_admits,
    record_fields,
)
from memguard.ledger import FactState, Ledger, LedgerRecord
from memguard.ledger.ledger import TurnRead
from memguard.ledger.lineage import Revocation
from memguard.logging import get_logger
from memguard.ports import Flow, WritePort
from memguard.provenance import Provenance, ScanRecord, Source, Turn, sha256_digest
from memguard.revocation import (
    PRINCIPAL_KINDS,
    RevocationPreview,
    RevocationReport,
    RevocationSelector,
)
from memguard.scan.stage import ScanStage
from memguard.scan.verdict import ScanContext
from memguard.scope import (
    DefaultScopeResolver,
    FieldValue,
    PlanKind,
    ReadRequest,
    ScopePlan,
    ScopeResolver,
)
from memguard.telemetry import hooks as telemetry
from memguard.tokens.confusables import ConfusableWatch
from memguard.trust import TrustLevel, TrustPolicy

if TYPE_CHECKING:
    from memguard.tokens.confusables import ConfusableWatch

__all__ = ["Kernel", "Operation", "StampRequest", "VerifiedFact"]

T = TypeVar("T")

_GET = ReadRequest("get")
_UPDATE = ReadRequest("update")
_MAX_DERIVED_FROM = 256


@dataclass(frozen=True, slots=True)
class StampRequest:
    """One fact to stamp. ``content_digest`` is the adapter's digest of what it will store.

    ``fact_id`` names an existing fact to write a new version of (the caller must be allowed to
    update it) or a new id an adapter chose; ``None`` gets a fresh UUID. ``trust`` may only lower
    what the channel gives.
    """

    namespace: str
    source: Source
    turn: Turn
    content_digest: str
    trust: TrustLevel | None = None
    derived_from: tuple[str, ...] = ()
    fact_id: str | None = None
    #: the text the adapter will store, for the kernel's scan stage (``None``: not scanned)
    text: str | None = None
    #: a time-to-live: the fact expires this many seconds after the write (``None``: never)
    ttl_seconds: int | None = None


@dataclass(frozen=True, slots=True)
class VerifiedFact:
    """A backend hit that matched its ledger row, the plan and the point evaluator."""

    fact_id: str
    provenance: Provenance
    candidate: Candidate

    @property
    def score(self) -> float | None:
        return self.candidate.score


class Operation:
    """One audited operation in progress (see the module docstring)."""

    def __init__(
        self,
        kernel: Kernel,
        action: str,
        *,
        purpose: str | None = None,
        trace_id: str | None = None,
        turn: Turn | None = None,
    ) -> None:
        self.kernel = kernel
        self.action = action
        self.purpose = purpose
        self.trace_id = trace_id
        self.turn = turn
        self.principal: Principal | None = None
        self.policy_digest: str | None = None
        self.fact_ids: list[str] = []
        self.detail: dict[str, Any] = {}
        self.finished = False
        self._read_trust: dict[str, int] = {}
        self._edges: dict[str, list[tuple[str, str, str]]] = {}
        #: per written fact, what it read or derives from (newly): the deletion fence at commit
        self._fence: dict[str, set[str]] = {}
        #: fact ids this operation holds against concurrent writes in this process
        self._claims: set[str] = set()
        #: scan verdicts of this operation by (stage, text, context): a text is scanned once
        self._scanned: dict[tuple[int, str, ScanContext], ScanRecord] = {}

    # -- identity ---------------------------------------------------------------------------------

    @property
    def who(self) -> Principal:
        if self.principal is None:
            raise IdentityError("a verified identity is required", code="identity.missing")
        return self.principal

    # -- decide -----------------------------------------------------------------------------------

    def read_plan(self, request: ReadRequest) -> ScopePlan:
        """The scope of ``request`` for this principal; a deny plan raises :class:`AccessDenied`."""
        plan = self.kernel.scope.read_plan(self.who, request)
        self.policy_digest = plan.policy_digest
        self.detail["rules"] = list(plan.rule_ids)
        if plan.kind is PlanKind.DENY:
            raise AccessDenied("read not permitted", code="access_denied.policy")
        return plan

    def decide_write(self, namespace: str) -> None:
        """May this principal write into ``namespace`` at all (a collection-level call)?"""
        decision = self.kernel.scope.write_decision(self.who, namespace)
        self.policy_digest = decision.policy_digest
        if not decision.allowed:
            raise AccessDenied("write not permitted", code="access_denied.policy")

    def point_allows(self, request: ReadRequest, fields: Mapping[str, FieldValue]) -> bool:
        """Ask the resolver's independent point evaluator too, when it has one."""
        scope = self.kernel.scope
        # what isinstance(scope, PointDecider) checks (a runtime protocol: the method is there),
        # without its per-call cost (~20 us, paid for every hit)
        if type(scope) is DefaultScopeResolver and "point_allows" not in scope.__dict__:
            return True  # its plan is its whole semantics (a miss costs pydantic's __getattr__)
        decide = getattr(scope, "point_allows", None)
        if not callable(decide):
            return True  # the plan is the resolver's whole semantics (DefaultScopeResolver)
        try:
            return decide(self.who, request, fields) is True
        except Exception:
            return False  # an evaluation error is a deny

    def admits(self, plan: ScopePlan, request: ReadRequest, record: LedgerRecord) -> bool:
        """Does the plan admit this fact, and does the point evaluator agree?"""
        fields = record_fields(record.record)
        return plan_admits(plan, fields) and self.point_allows(request, fields)

    # -- stamp ------------------------------------------------------------------------------------

    def stamp(self, requests: Sequence[StampRequest]) -> list[Provenance]:
        """Decide each write and build its provenance: trust from the channel, capped by the
        writer's ceiling, policy, the inputs it was derived from, what its turn has read and the
        scan verdict (:mod:`memguard.stamp`)."""
        return stamping.stamp(self, requests)

    def stamp_adopted(
        self, requests: Sequence[tuple[StampRequest, PrincipalId]], *, operator: str
    ) -> list[Provenance | None]:
        """Stamp data that existed before memguard for the owner the operator's mapping named
        (``memguard adopt``): see :func:`memguard.stamp.stamp_adopted`. ``None`` in the result:
        the scanner refused that text (recorded in the event, nothing stamped)."""
        return stamping.stamp_adopted(self, requests, operator=operator)

    # -- store protocol: the kernel's, for every adapter --------------------------------------

    def note(self, **detail: Any) -> None:
        """Add to what this operation's event will say (``why``, ``withheld``, ...)."""
        self.detail.update(detail)

    def about(self, fact_ids: Sequence[str]) -> None:
        """The facts this operation's event names."""
        self.fact_ids = list(fact_ids)

    def persist(self, records: Sequence[Provenance], port: WritePort[T], **detail: Any) -> T:
        """:meth:`persist_flow` for a port whose flows yield no backend call (no driver)."""
        return protocol.persist(self, records, port, **detail)

    def persist_flow(
        self, records: Sequence[Provenance], port: WritePort[T], **detail: Any
    ) -> Flow[T]:
        """Stage -> store -> commit, the one write protocol: ledger rows ``pending`` (durable
        before the backend sees anything), ``port.put``, then ``committed`` with the lineage edges
        and the allow event (``detail``) in one transaction. A failed put aborts the rows; a failed
        commit is resolved in-process (the port is probed: a write that landed is committed again,
        anything else aborted); see :mod:`memguard.protocol`."""
        return (yield from protocol.persist_flow(self, records, port, **detail))

    def delete(self, fact_ids: Sequence[str], purge: Callable[[], T], **detail: Any) -> T:
        """:meth:`delete_flow` with a direct purge (no driver)."""
        return protocol.delete(self, fact_ids, purge, **detail)

    def delete_flow(
        self, fact_ids: Sequence[str], purge: Callable[[], Flow[T]], **detail: Any
    ) -> Flow[T]:
        """Delete: tombstone with the allow event (never served again, even if the purge then
        fails), ``purge()``, then mark purged (recovery redoes an unfinished purge)."""
        return (yield from protocol.delete_flow(self, fact_ids, purge, **detail))

    def refresh_flow(self, facts: Sequence[VerifiedFact], port: WritePort[T]) -> Flow[list[Provenance]]:
        """Renew the expiry of facts a read just verified (a ``refresh`` operation): a new
        version of each through the write protocol; see :mod:`memguard.expiry`."""
        return (yield from expiry.refresh_flow(self, facts, port))

    def expired(self, fact_ids: Sequence[str]) -> list[str]:
        """Of ``fact_ids``, those a sweep (an ``expire`` operation) deletes; see
        :mod:`memguard.expiry`."""
        return expiry.due(self, fact_ids)


    # -- verify -----------------------------------------------------------------------------------

    def visible_records(
        self, plan: ScopePlan, request: ReadRequest, fact_ids: Sequence[str]
    ) -> list[LedgerRecord]:
        """The ledger rows of ``fact_ids`` if every one is visible to this principal, in order.

        Unknown, uncommitted, quarantined and out-of-scope ids all raise :class:`FactNotFound`.
        """
        records = self.kernel.ledger.latest(list(fact_ids))
        out = []
        for fact_id in fact_ids:
            record = records.get(fact_id)
            if record is None:
                self.detail["why"] = "no such fact"
                raise FactNotFound("fact not found")
            self._require_visible(plan, request, record)
            if record.provenance.expired(self.kernel.clock()):
                self.detail["why"] = "expired"
                raise FactNotFound("fact not found")
            out.append(record)
        return out

    def _require_visible(
        self,
        plan: ScopePlan,
        request: ReadRequest,
        record: LedgerRecord,
        *,
        allow_deleted: bool = False,
    ) -> None:
        ok_states = (FactState.COMMITTED, FactState.DELETED) if allow_deleted else (FactState.COMMITTED,)
        if record.state not in ok_states:
            self.detail["why"] = f"state {record.state.value}"
            raise FactNotFound("fact not found")
        if record.quarantined:
            self.detail["why"] = "quarantined"
            raise FactNotFound("fact not found")
        if not self.admits(plan, request, record):
            self.detail["why"] = "out of scope"
            raise FactNotFound("fact not found")

    def verify(
        self,
        plan: ScopePlan,
        request: ReadRequest,
        candidates: Sequence[Candidate],
        *,
        expect_reserved: bool = True,
        pushed_down: bool = False,
    ) -> list[VerifiedFact]:
        """The candidates that match their ledger rows, the plan and the point evaluator, in order.

        Everything else is withheld: unknown points and tampered content raise an alarm event;
        ``pushed_down`` candidates (the store applied the plan) that the plan excludes raise a
        ``scope.pushdown_mismatch`` alarm; quarantined and uncommitted facts are withheld quietly.
        """
        # the rows and what the signed log says of them (the compare), in one transaction
        records, logged = self.kernel.ledger.latest_checked([c.fact_id for c in candidates])
        out: list[VerifiedFact] = []
        for cand in candidates:
            record = records.get(cand.fact_id)
            if record is not None and (problem := ledger_problem(record, logged.get(cand.fact_id))):
                self.alarm(cand.fact_id, problem)
                self.detail["why"] = problem
                continue
            prov = self._check(plan, request, cand, record, expect_reserved, pushed_down)
            if prov is not None:
                out.append(VerifiedFact(cand.fact_id, prov, cand))
                self._read_trust[cand.fact_id] = int(prov.trust)
        telemetry.returned(out)
        return out

    def _check(
        self,
        plan: ScopePlan,
        request: ReadRequest,
        cand: Candidate,
        record: LedgerRecord | None,
        expect_reserved: bool,
        pushed_down: bool,
    ) -> Provenance | None:
        fact_id = cand.fact_id
        if record is None:
            self.alarm(fact_id, "integrity.unknown_point")
            return None
        if record.state is not FactState.COMMITTED:
            self.detail.setdefault("withheld", []).append(
                {"fact_id": fact_id, "state": record.state.value}
            )
            self.detail["why"] = f"state {record.state.value}"
            return None
        prov = record.provenance
        fields = record_fields(record.record)  # the payload compare and the plan check
        problem = candidate_problem(cand, record, prov, expect_reserved=expect_reserved,
                                    fields=fields)  # fmt: skip
        if problem is not None:
            self.alarm(fact_id, problem)
            self.detail["why"] = problem
            return None
        if record.quarantined:
            self.detail.setdefault("withheld", []).append({"fact_id": fact_id, "state": "quarantined"})
            self.detail["why"] = "quarantined"
            return None
        if prov.expired(self.kernel.clock()):  # memguard.expiry: an expired fact is never served
            self.detail.setdefault("withheld", []).append({"fact_id": fact_id, "state": "expired"})
            self.detail["why"] = "expired"
            return None
        if not plan_admits(plan, fields):
            if pushed_down:  # the store returned what the plan excludes
                self.alarm(fact_id, "scope.pushdown_mismatch")
            self.detail["why"] = "out of scope"
            return None
        if not self.point_allows(request, fields):
            # the plan admitted it but the resolver's independent point evaluator does not
            self.alarm(fact_id, "scope.point_mismatch")
            self.detail["why"] = "point decision denied"
            return None
        return prov

    # -- record -----------------------------------------------------------------------------------

    def finish(self, reason: str = "ok", *, returned: Sequence[str] | None = None, **detail: Any) -> None:
        """Record the allow event; ``returned`` ids are what the caller got (the turn's taint)."""
        if returned is not None:
            self.fact_ids = list(returned)
        reads: list[TurnRead] = []
        if self.turn is not None and self.principal is not None:
            subject = self.principal.subject
            reads = [
                TurnRead(
                    subject.issuer,
                    subject.subject,
                    self.turn.session_id,
                    self.turn.turn_index,
                    fact_id,
                    self._read_trust[fact_id],
                )
                for fact_id in dict.fromkeys(self.fact_ids)
                if fact_id in self._read_trust
            ]
        # an allow that changes nothing (a read, an audit, a preview): no fsync of its own
        # (ledger.record); writes, denials and alarms are committed durably
        self.kernel.ledger.record(
            [self.kernel._allow_event(self, reason, **detail)], reads, durable=False
        )
        self.finished = True
        self.kernel._after_events()

    def alarm(self, fact_id: str, reason: str) -> None:
        """An integrity or scope alarm about one fact, recorded at once in its own event."""
        event = AuditEvent(
            action=self.action,
            decision=Decision.ALARM,
            reason=reason,
            principal=self.principal.summary() if self.principal else None,
            fact_ids=(fact_id,),
            trace_id=self.trace_id,
            purpose=self.purpose,
            policy_digest=self.policy_digest,
        )
        self.kernel._emit(event)
        self.kernel.ledger.record([event])


@dataclass
class _RevocationCache:
    at: float = float("-inf")
    items: list[Revocation] = field(default_factory=list)


class Kernel:
    """Identity check, decisions, trust and provenance, the ledger protocol, hit verification and
    the audit trail: everything but the store."""

    def __init__(
        self,
        *,
        ledger: Ledger,
        verifier: Verifier,
        scope: ScopeResolver | None = None,
        trust_policy: TrustPolicy | None = None,
        clock: Callable[[], float] = time.time,
        revocation_ttl: float = 1.0,
        scan_stage: ScanStage | None = None,
    ) -> None:
        """``revocation_ttl``: how long (seconds) this process may use its copy of the active
        revocations before re-reading them; revocations made through this kernel apply at once,
        those made by another process within ``revocation_ttl``. ``0`` re-reads on every call."""
        self.ledger = ledger
        self.verifier = verifier
        self.scope: ScopeResolver = scope or DefaultScopeResolver()
        self.trust_policy = trust_policy or TrustPolicy()
        self.clock = clock
        self.revocation_ttl = revocation_ttl
        #: the content scan between decide and stamp (memguard.scan); ``None``: no scanning
        self.scan_stage = scan_stage
        self._revocations = _RevocationCache()
        self._revocation_lock = threading.Lock()
        #: fact ids a live operation of this process is writing, and the condition to wait on
        self._claimed: dict[str, int] = {}
        self._claim_cond = threading.Condition()
        #: how long (seconds) a write waits for another one on the same fact id before a conflict
        self.claim_timeout = 5.0
        #: staged rows whose abort the ledger refused: aborted on their next touch
        self._stuck: dict[str, Provenance] = {}
        self._log = get_logger()
        #: optional: flags principals that look like existing ones (memguard/tokens/confusables.py)
        self.confusables: ConfusableWatch | None = None
        #: called after events were appended: the audit log's group commit (integrate the queued
        #: events into the Merkle tree when a batch is due, sign a checkpoint when one is due)
        log = getattr(ledger, "log", None)
        self.after_events: Callable[[], object] | None = getattr(log, "maybe_integrate", None)

    # -- identity ---------------------------------------------------------------------------------

    def authenticate(self, token: str, *, workload_credential: str | None = None,
                     transaction_token: bool = False) -> Identity:
        """Verify a presented token with this kernel's verifier; failures are audited.

        With ``workload_credential`` the caller is a workload: the token must name it as its
        current actor (presenter binding, see :mod:`memguard.tokens.verifier`). With
        ``transaction_token`` the token is a Txn-Token that workload passes on, never an access
        token (:meth:`memguard.tokens.verifier.IdentityVerifier.verify_transaction`).
        """
        with self.operation("authenticate", None, require_identity=False) as op:
            op.detail["token_digest"] = sha256_digest(
                token.encode("utf-8", "replace") if isinstance(token, str) else b""
            )
            if transaction_token:
                op.detail["credential"] = "txn_token"
                take = getattr(self.verifier, "verify_transaction", None)
                if take is None or workload_credential is None:
                    raise IdentityError("a transaction token needs its workload's credential",
                                        code="identity.unbound")
                identity = take(token, workload_credential)
                if not isinstance(identity, Identity):
                    raise IdentityError("verifier returned no identity", code="identity.missing")
            elif workload_credential is None:
                identity = self.verifier.verify(token)
            else:
                bind = getattr(self.verifier, "verify_presented", None)
                if bind is None:
                    raise IdentityError("verifier cannot bind a presenter", code="identity.unbound")
                identity = bind(token, workload_credential)
                if not isinstance(identity, Identity):
                    raise IdentityError("verifier returned no identity", code="identity.missing")
            op.principal = identity.principal
            self._check_not_barred(op)
            op.finished = True  # a successful authentication is not an event of its own
        note_principal(identity.principal.summary())  # a later refusal of this request names it
        if self.confusables is not None:
            self._flag_confusable(identity.principal)
        return identity

    def _flag_confusable(self, principal: Principal) -> None:
        """An alarm when a new subject's UTS #39 skeleton is an existing principal's (flag only)."""
        subject = principal.subject
        try:
            assert self.confusables is not None
            lookalikes = self.confusables.observe(subject.issuer, subject.subject)
            if not lookalikes:
                return
            event = AuditEvent(
                action="authenticate", decision=Decision.ALARM, reason="identity.confusable",
                principal=principal.summary(),
                detail={"looks_like": [{"issuer": i, "subject": s} for i, s in lookalikes[:16]]},
            )
            self._emit(event)
            self.ledger.record([event])
            self._after_events()
        except Exception as exc:  # a flag is advice: it never turns a verified call into a refusal
            self._log.error("confusable_check_failed", error=type(exc).__name__)

    def _principal(self, identity: object, op: Operation) -> Principal:
        if not isinstance(identity, Identity):
            raise IdentityError("a verified identity is required", code="identity.missing")
        if identity.expires_at <= self.clock():
            op.principal = identity.principal
            raise IdentityError("identity expired", code="identity.expired")
        if not self.verifier.minted(identity):
            raise IdentityError("identity not verified by this guard", code="identity.unverified")
        op.principal = identity.principal
        self._check_not_barred(op)
        return identity.principal

    def _check_not_barred(self, op: Operation) -> None:
        revocation = self.barring(op.who)
        if revocation is not None:
            op.detail["revocation_id"] = revocation.revocation_id
            raise IdentityError("credential revoked", code="identity.revoked")

    def barring(self, principal: Principal) -> Revocation | None:
        """The active revocation that bars ``principal`` (its subject, a hop of its chain, its
        token, ...), or ``None``."""
        subject = principal.subject
        for revocation in self.active_revocations():
            if (
                revocation.selector.kind in PRINCIPAL_KINDS
                and revocation.reaches(subject.issuer, subject.subject)
                and revocation.selector.bars(principal)
            ):
                return revocation
        return None

    # -- the write protocol's bookkeeping -----------------------------------------------------

    def _claim(self, op: Operation, fact_ids: Sequence[str]) -> None:
        recovery.claim(self, op, fact_ids)

    def resolve_stuck(self, fact_ids: Sequence[str] | None = None) -> list[str]:
        """Abort the staged rows of this process's failed writes that the ledger refused to move
        (all, or those of ``fact_ids``); idempotent. Returns the ids now resolved."""
        return recovery.resolve_stuck(self, fact_ids)

    def redo_purges(self, purge: Callable[[list[str]], object]) -> list[str]:
        """Finish deletes whose backend purge did not complete: ``purge(ids)``, then mark them."""
        return recovery.redo_purges(self, purge)

    def recover_pending(
        self,
        probe: Callable[[Sequence[str]], Flow[Sequence[Candidate]]],
        *,
        older_than: float = 0.0,
    ) -> tuple[list[str], list[str]]:
        """Reconcile ``pending`` rows with the backend after a crash: commit what ``probe`` shows
        the backend holds exactly, abort the rest (:func:`memguard.recovery.recover_pending`)."""
        return recovery.recover_pending(self, probe, older_than=older_than)


    # -- the audited operation --------------------------------------------------------------------

    @contextmanager
    def operation(
        self,
        action: str,
        identity: Identity | None,
        *,
        require_identity: bool = True,
        purpose: str | None = None,
        trace_id: str | None = None,
        turn: Turn | None = None,
        fact_ids: Sequence[str] = (),
    ) -> Iterator[Operation]:
        """Open an audited operation; every failure inside becomes a typed error plus a deny event."""
        op = Operation(self, action, purpose=purpose, trace_id=trace_id, turn=turn)
        op.fact_ids = list(fact_ids)
        watch = telemetry.observe(op)
        try:
            if turn is not None and not isinstance(turn, Turn):
                raise InvalidRequest("`turn` must be a Turn")
            if require_identity:
                self._principal(identity, op)
            yield op
            if not op.finished:
                op.finish()
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
        finally:
            recovery.release(self, op)
            watch.close()

    def _event(self, op: Operation, decision: Decision, reason: str, **detail: Any) -> AuditEvent:
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

    def _allow_event(self, op: Operation, reason: str, **detail: Any) -> AuditEvent:
        event = self._event(op, Decision.ALLOW, reason, **detail)
        self._emit(event)
        return event

    def _deny(self, op: Operation, exc: MemguardError) -> None:
        credentials = {k: v for k, v in request_credentials().items() if k not in op.detail}
        event = self._event(op, Decision.DENY, exc.code, message=str(exc), **credentials)
        self._emit(event)
        try:
            self.ledger.record([event])
            self._after_events()
        except MemguardError as ledger_exc:
            # The ledger is down: the refusal stands, the operational log keeps the event.
            self._log.error(
                "audit_event_lost", event_id=event.event_id, error=ledger_exc.code, op=op.action
            )

    def _emit(self, event: AuditEvent) -> None:
        telemetry.decided(event)
        try:
            principal = event.principal or {}
            self._log.info(
                "memguard.decision",
                op=event.action,
                decision=event.decision.value,
                reason=event.reason,
                fact_ids=list(event.fact_ids)[:64],
                trace_id=event.trace_id,
                subject=principal.get("subject"),
                issuer=principal.get("issuer"),
                actors=principal.get("actors"),
                jti=principal.get("jti"),
                policy_digest=event.policy_digest,
            )
        except Exception:  # the ledger is the record; a broken log must not flip a decision
            pass

    def _after_events(self) -> None:
        hook = self.after_events
        if hook is None:
            return
        try:
            hook()
        except Exception as exc:  # the events are committed; integration catches up later
            try:
                self._log.error("audit_log_integration_failed", error=type(exc).__name__)
            except Exception:
                pass

    # -- trust ------------------------------------------------------------------------------------

    def assign_trust(
        self, principal: Principal, req: StampRequest, policy_max: TrustLevel
    ) -> tuple[TrustLevel, str]:
        """Trust from the channel and the writer's chain; the caller may only lower it."""
        level = self.trust_policy.assign(
            req.source.kind, depth=principal.depth, scopes=principal.scopes, requested=req.trust
        )
        default = self.trust_policy.source_defaults[req.source.kind]
        ceiling = self.trust_policy.ceiling(principal.depth, principal.scopes)
        reason = (
            f"source {req.source.kind.value} default {default.label}; "
            f"writer depth {principal.depth} ceiling {ceiling.label}"
        )
        if req.trust is not None:
            reason += f"; lowered by writer to {req.trust.label}"
        if level > policy_max:
            if req.trust is not None:
                raise TrustEscalation("requested trust is above what policy allows this writer")
            level = policy_max
            reason += f"; policy cap {policy_max.label}"
        return level, reason

    # -- revocation -------------------------------------------------------------------------------

    def active_revocations(self) -> list[Revocation]:
        """The active revocations, re-read at most every ``revocation_ttl`` seconds."""
        now = time.monotonic()
        cache = self._revocations
        if now - cache.at < self.revocation_ttl:
            return cache.items
        with self._revocation_lock:
            items = self.ledger.lineage.revocations(active=True)
            self._revocations = _RevocationCache(time.monotonic(), items)
        return items

    def _refresh_revocations(self) -> None:
        self._revocations = _RevocationCache()

    def write_bars(self) -> list[Revocation]:
        """Active revocations that refuse a new write they match (all but fact revocations)."""
        return [r for r in self.active_revocations() if r.selector.kind != "fact"]

    def preview_revocation(
        self,
        identity: Identity | None,
        selector: RevocationSelector,
        *,
        follow_context: bool = True,
        operator: str | None = None,
    ) -> RevocationPreview:
        """What :meth:`revoke` would quarantine, computed the same way, without revoking anything
        (a dry run, audited as ``revoke_preview``; refused where the revocation would be)."""
        return revoking.preview_revocation(
            self, identity, selector, follow_context=follow_context, operator=operator
        )

    def revoke(
        self,
        identity: Identity | None,
        selector: RevocationSelector,
        *,
        reason: str,
        follow_context: bool = True,
        operator: str | None = None,
    ) -> RevocationReport:
        """Revoke what ``selector`` matches and quarantine every transitive descendant.

        With an ``identity``, the roots are limited to facts its ``revoke`` scope admits (the
        descendants are quarantined wherever they are: containment does not stop at the
        revoker's scope), and unless that scope is every fact, the revocation bars only the
        revoker's own owner's future writes and calls. ``operator`` (a name, with
        ``identity=None``) is the local operator's path, used by the ``memguard revoke`` command
        on a ledger it has file access to; its revocations bar everyone.
        """
        return revoking.revoke(
            self, identity, selector, reason=reason, follow_context=follow_context,
            operator=operator,
        )  # fmt: skip

    def endorse(
        self,
        identity: Identity | None,
        fact_ids: Sequence[str],
        *,
        reason: str,
        operator: str | None = None,
    ) -> list[str]:
        """Lift the quarantine of ``fact_ids`` (an explicit, audited, policy-gated endorsement).

        Each id must be in the caller's ``endorse`` scope; returns the ids whose quarantine was
        lifted. Descendants stay quarantined until endorsed themselves.
        """
        return revoking.endorse(self, identity, fact_ids, reason=reason, operator=operator)
