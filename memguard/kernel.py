"""The store-independent half of the guard, shared by :class:`~memguard.guard.MemoryGuard` and adapters.

Every memory operation is one audited :class:`Operation` (:mod:`memguard.operation`: decide, stamp,
persist, verify, finish, alarm), opened with :meth:`Kernel.operation`::

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
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from memguard import recovery, revoking
from memguard.denials import note_principal, request_credentials
from memguard.errors import (
    IdentityError,
    InvalidRequest,
    MemguardError,
    TrustEscalation,
)
from memguard.events import AuditEvent, Decision
from memguard.identity import Identity, Principal, Verifier
from memguard.integrity import Candidate
from memguard.ledger import Ledger
from memguard.ledger.lineage import Revocation
from memguard.logging import get_logger
from memguard.operation import Operation, StampRequest, VerifiedFact
from memguard.ports import Flow
from memguard.provenance import Provenance, Turn, sha256_digest
from memguard.revocation import (
    PRINCIPAL_KINDS,
    RevocationPreview,
    RevocationReport,
    RevocationSelector,
)
from memguard.scan.stage import ScanStage
from memguard.scope import DefaultScopeResolver, ScopeResolver
from memguard.telemetry import hooks as telemetry
from memguard.tokens.confusables import ConfusableWatch
from memguard.trust import TrustLevel, TrustPolicy

#: :class:`Operation`, :class:`StampRequest` and :class:`VerifiedFact` live in
#: :mod:`memguard.operation`; this module re-exports them (their import path for adapters)
__all__ = ["Kernel", "Operation", "StampRequest", "VerifiedFact"]


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

    def authenticate(
        self, token: str, *, workload_credential: str | None = None, transaction_token: bool = False
    ) -> Identity:
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
                    raise IdentityError(
                        "a transaction token needs its workload's credential",
                        code="identity.unbound",
                    )
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
                action="authenticate",
                decision=Decision.ALARM,
                reason="identity.confusable",
                principal=principal.summary(),
                detail={"looks_like": [{"issuer": i, "subject": s} for i, s in lookalikes[:16]]},
            )
            self._emit(event)
            self.ledger.record([event])
            self.events_committed()
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
            self.events_committed()
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

    def events_committed(self) -> None:
        """Run the ``after_events`` hook (the audit-log integration) once events have committed.

        Every module that commits audit events outside the kernel's own calls (the protocol
        wrappers, revocation, recovery, the gateway's refusal recorder) calls this; a failing hook
        is logged and never turns a committed decision into an error.
        """
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
