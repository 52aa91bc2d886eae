"""One guarded operation in progress: :class:`Operation`, opened by :meth:`memguard.kernel.Kernel.operation`.

An operation decides (:meth:`~Operation.read_plan`, :meth:`~Operation.decide_write`), stamps
(:meth:`~Operation.stamp`, over :mod:`memguard.stamp`), persists and deletes through the one write
protocol (:meth:`~Operation.persist_flow`, :meth:`~Operation.delete_flow`, over
:mod:`memguard.protocol`), verifies a backend's hits against the ledger, the plan and the point
evaluator (:meth:`~Operation.verify`), records its allow event (:meth:`~Operation.finish`) and raises
integrity and scope alarms (:meth:`~Operation.alarm`). :class:`StampRequest` is one fact to stamp,
:class:`VerifiedFact` one hit that passed verification. The kernel module re-exports all three; see
:mod:`memguard.kernel` for how an operation is used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from memguard import expiry, protocol
from memguard import stamp as stamping
from memguard.errors import AccessDenied, FactNotFound, IdentityError
from memguard.events import AuditEvent, Decision
from memguard.identity import Principal, PrincipalId
from memguard.integrity import (
    Candidate,
    candidate_problem,
    ledger_problem,
    plan_admits,
    record_fields,
)
from memguard.ledger import FactState, LedgerRecord
from memguard.ledger.ledger import TurnRead
from memguard.ports import Flow, WritePort
from memguard.provenance import Provenance, ScanRecord, Source, Turn
from memguard.scan.verdict import ScanContext
from memguard.scope import (
    DefaultScopeResolver,
    FieldValue,
    PlanKind,
    ReadRequest,
    ScopePlan,
)
from memguard.telemetry import hooks as telemetry
from memguard.trust import TrustLevel

if TYPE_CHECKING:
    from memguard.kernel import Kernel

__all__ = ["Operation", "StampRequest", "VerifiedFact"]

T = TypeVar("T")


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

    def refresh_flow(
        self, facts: Sequence[VerifiedFact], port: WritePort[T]
    ) -> Flow[list[Provenance]]:
        """Renew the expiry of facts a read just verified (a ``refresh`` operation): a new
        version of each through the write protocol; see :mod:`memguard.expiry`."""
        return (yield from expiry.refresh_flow(self, facts, port))

    def expired(self, fact_ids: Sequence[str]) -> list[str]:
        """Of ``fact_ids``, those a sweep (an ``expire`` operation) deletes; see
        :mod:`memguard.expiry`."""
        return expiry.due(self, fact_ids)

    # -- verify -----------------------------------------------------------------------------------

    def visible_records(
        self,
        plan: ScopePlan,
        request: ReadRequest,
        fact_ids: Sequence[str],
        *,
        known: Mapping[str, LedgerRecord] | None = None,
    ) -> list[LedgerRecord]:
        """The ledger rows of ``fact_ids`` if every one is visible to this principal, in order.

        Unknown, uncommitted, quarantined and out-of-scope ids all raise :class:`FactNotFound`.
        ``known``: :meth:`Ledger.latest` of a set of ids that holds ``fact_ids``, read by the
        caller in this operation (a batch's inputs, read once), instead of reading them here.
        """
        records = self.kernel.ledger.latest(list(fact_ids)) if known is None else known
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
        ok_states = (
            (FactState.COMMITTED, FactState.DELETED) if allow_deleted else (FactState.COMMITTED,)
        )
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
            self.detail.setdefault("withheld", []).append(
                {"fact_id": fact_id, "state": "quarantined"}
            )
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

    def finish(
        self, reason: str = "ok", *, returned: Sequence[str] | None = None, **detail: Any
    ) -> None:
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
        self.kernel.events_committed()

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
