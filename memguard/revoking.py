"""Revoke (quarantine every descendant), its dry run, and endorse (lift a quarantine): the bodies
of :meth:`memguard.kernel.Kernel.revoke`, ``preview_revocation`` and ``endorse``."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memguard.errors import FactNotFound, InvalidRequest
from memguard.events import Decision
from memguard.identity import Identity
from memguard.ledger import FactState
from memguard.revocation import RevocationPreview, RevocationReport, RevocationSelector
from memguard.scope import PlanKind, ReadRequest

if TYPE_CHECKING:
    from memguard.kernel import Kernel, Operation

__all__ = ["endorse", "preview_revocation", "revocation_roots", "revoke"]

_MAX_LATE_ROUNDS = 16


def revocation_roots(
    kernel: Kernel, op: Operation, selector: RevocationSelector
) -> tuple[list[str], tuple[str, str] | None]:
    """The facts a revocation by ``op``'s caller roots at, and whose calls it bars (``None``:
    everyone's). The operator's path (no principal) roots at every match."""
    if not isinstance(selector, RevocationSelector):
        raise InvalidRequest("`selector` must be a RevocationSelector")
    matched = kernel.ledger.lineage.match(selector)
    if op.principal is None:
        return matched, None
    reach: tuple[str, str] | None = None
    revoke_request = ReadRequest("revoke")
    plan = op.read_plan(revoke_request)
    if plan.kind is not PlanKind.ALLOW:
        # a revoker whose scope is not every fact bars only its own owner's future
        # writes and calls: one user's revocation must not lock another user out
        reach = (op.who.subject.issuer, op.who.subject.subject)
    records = kernel.ledger.latest(matched)
    roots = [
        fid for fid in matched if fid in records and op.admits(plan, revoke_request, records[fid])
    ]
    return roots, reach


def preview_revocation(
    kernel: Kernel,
    identity: Identity | None,
    selector: RevocationSelector,
    *,
    follow_context: bool = True,
    operator: str | None = None,
) -> RevocationPreview:
    """:meth:`memguard.kernel.Kernel.preview_revocation`."""
    with kernel.operation("revoke_preview", identity, require_identity=operator is None) as op:
        if operator is not None:
            op.detail["operator"] = operator
        roots, reach = revocation_roots(kernel, op, selector)
        affected = kernel.ledger.lineage.plan_revocation(roots, follow_context=follow_context)
        op.fact_ids = affected
        quarantined = kernel.ledger.lineage.quarantined(affected)
        op.finish(
            "previewed",
            selector=selector.model_dump(mode="json", exclude_none=True),
            roots=len(roots),
            count=len(affected),
        )
    return RevocationPreview(selector, tuple(roots), tuple(affected), frozenset(quarantined), reach)


def revoke(
    kernel: Kernel,
    identity: Identity | None,
    selector: RevocationSelector,
    *,
    reason: str,
    follow_context: bool = True,
    operator: str | None = None,
) -> RevocationReport:
    """:meth:`memguard.kernel.Kernel.revoke`."""
    with kernel.operation("revoke", identity, require_identity=operator is None) as op:
        if not isinstance(reason, str) or not reason.strip() or len(reason) > 2000:
            raise InvalidRequest("a revocation needs a reason (at most 2000 characters)")
        if operator is not None:
            op.detail["operator"] = operator
        roots, reach = revocation_roots(kernel, op, selector)
        affected = kernel.ledger.lineage.plan_revocation(roots, follow_context=follow_context)
        revocation_id = str(uuid.uuid4())
        op.fact_ids = affected
        event = kernel._allow_event(
            op,
            "revoked",
            revocation_id=revocation_id,
            selector=selector.model_dump(mode="json", exclude_none=True),
            revocation_reason=reason,
            roots=roots,
            count=len(affected),
            follow_context=follow_context,
            reach=list(reach) if reach is not None else "everyone",
        )
        actor = operator or (
            " -> ".join([op.who.subject.subject, *(a.subject for a in op.who.actors)])
        )
        kernel.ledger.lineage.revoke(selector, reason=reason, actor=actor, event=event, reach=reach)
        # The deletion fence: a derived write that commits after the quarantine above is refused
        # at its commit; one that committed between the plan and it is found here and joins
        # the quarantine (until no new descendant appears: each round's are already committed)
        for _ in range(_MAX_LATE_ROUNDS):
            known = set(affected)
            late = [
                f
                for f in kernel.ledger.lineage.plan_revocation(roots, follow_context=follow_context)
                if f not in known
            ]
            if not late:
                break
            extra = kernel._event(op, Decision.ALLOW, "revoked.late_descendants",
                                  revocation_id=revocation_id, count=len(late))  # fmt: skip
            extra = extra.model_copy(update={"fact_ids": tuple(late)})
            kernel.ledger.lineage.extend(revocation_id, late, extra)
            kernel._emit(extra)
            affected = [*affected, *late]
        op.fact_ids = affected
        op.finished = True
        kernel._refresh_revocations()
        kernel.events_committed()
        shown = affected
        if op.principal is not None:  # the report shows what the revoker may see, counts the rest
            from memguard.audit import reader_visibility

            visible = reader_visibility(op, "get", "revoke")
            records = kernel.ledger.latest(affected)
            shown = [f for f in affected if f in records and visible(records[f])]
    return RevocationReport(
        revocation_id, selector, tuple(roots), tuple(shown), False, len(affected) - len(shown)
    )


def endorse(
    kernel: Kernel,
    identity: Identity | None,
    fact_ids: Sequence[str],
    *,
    reason: str,
    operator: str | None = None,
) -> list[str]:
    """:meth:`memguard.kernel.Kernel.endorse`."""
    ids = [f for f in dict.fromkeys(fact_ids) if isinstance(f, str)]
    with kernel.operation(
        "endorse", identity, require_identity=operator is None, fact_ids=ids
    ) as op:
        if not isinstance(reason, str) or not reason.strip() or len(reason) > 2000:
            raise InvalidRequest("an endorsement needs a reason (at most 2000 characters)")
        if not ids or len(ids) != len(list(fact_ids)):
            raise InvalidRequest("give distinct fact ids to endorse")
        if operator is not None:
            op.detail["operator"] = operator
        if op.principal is not None:
            request = ReadRequest("endorse")
            plan = op.read_plan(request)
            records = kernel.ledger.latest(ids)
            for fact_id in ids:
                record = records.get(fact_id)
                if record is None or record.state is not FactState.COMMITTED:
                    raise FactNotFound("fact not found")
                if not op.admits(plan, request, record):
                    op.detail["why"] = "out of scope"
                    raise FactNotFound("fact not found")
        event = kernel._allow_event(op, "endorsed", endorsement_reason=reason)
        lifted = kernel.ledger.lineage.lift(ids, event)
        op.finished = True
        kernel.events_committed()
    return lifted
