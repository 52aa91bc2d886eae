"""What each console page shows, computed through the guard's scoping for one principal.

Every page is an audited operation of the signed-in principal: the fact list and the lineage
graph show only facts its ``audit`` scope admits (the plan and the point evaluator, as every read
path), a fact page is :meth:`MemoryGuard.audit` (policy-gated; an unknown or out-of-scope id is
the same refusal), the text of a fact is a :meth:`MemoryGuard.get` (the read scope; quarantined
facts are never returned), a revocation preview is :meth:`Kernel.preview_revocation` (the same
roots a revocation would take), and facts outside the principal's scope appear only as counts,
never with their ids.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, exists, func, select
from sqlalchemy.exc import SQLAlchemyError

from memguard.console.graph import LineageGraph, lineage_graph
from memguard.errors import InvalidRequest, LedgerError
from memguard.guard import MemoryGuard
from memguard.identity import Identity
from memguard.kernel import Kernel
from memguard.ledger import FactState, LedgerRecord
from memguard.ledger.tables import ProvenanceRow, QuarantineRow
from memguard.revocation import RevocationReport, RevocationSelector
from memguard.scope import And, Eq, ReadRequest, ScopePlan
from memguard.trust import SourceKind, TrustLevel

__all__ = [
    "CONSOLE_SELECTOR_KINDS",
    "SCAN_FILTERS",
    "STATES",
    "Console",
    "FactFilters",
    "FactPage",
    "FactRow",
    "FactView",
    "HealthView",
    "PreviewView",
    "scanner_verdict",
]

_P = ProvenanceRow.__table__  # type: ignore[attr-defined]
_Q = QuarantineRow.__table__  # type: ignore[attr-defined]
_AUDIT = ReadRequest("audit")
#: Filter values of ``state``: the fact's latest version, and whether a quarantine holds it.
STATES = ("any", "committed", "quarantined", "deleted", "pending")
#: The fact list's scanner filter: a verdict that flagged the text (suspicious, malicious or a
#: scanner error), one that capped trust to quarantined (and no one lifted), a cap someone lifted
#: by endorsing, a clean verdict, no verdict recorded.
SCAN_FILTERS = ("any", "flagged", "quarantined", "endorsed", "clean", "unscanned")
#: Selectors the console offers (principal selectors also bar callers: the CLI and API have them).
CONSOLE_SELECTOR_KINDS = ("source", "domain", "session", "turn", "fact")
PAGE_SIZE = 50
_BATCH = 200
#: At most this many ledger rows are looked at for one page of the fact list.
SCAN_BUDGET = 4000
#: Columns a plan's top-level equality can be pushed into as a pre-filter.
_COLUMNS = {"owner_iss", "owner_sub", "namespace", "source_kind", "workload_id"}


@dataclass(frozen=True, slots=True)
class FactFilters:
    """The fact list's filters; every value is validated (an unknown value is a bad request)."""

    trust: str | None = None
    source_kind: str | None = None
    source: str | None = None
    session: str | None = None
    writer: str | None = None
    state: str = "any"
    scan: str = "any"

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> FactFilters:
        def text(name: str, limit: int = 512) -> str | None:
            value = (query.get(name) or "").strip()
            if len(value) > limit or any(ord(c) < 32 for c in value):
                raise InvalidRequest(f"invalid `{name}`")
            return value or None

        trust, kind, state = text("trust", 32), text("source_kind", 32), text("state", 32) or "any"
        if trust is not None:
            TrustLevel.parse(trust)  # raises InvalidRequest-like ValueError on an unknown level
        if kind is not None and kind not in {k.value for k in SourceKind}:
            raise InvalidRequest("invalid `source_kind`")
        if state not in STATES:
            raise InvalidRequest("invalid `state`")
        scan = text("scan", 32) or "any"
        if scan not in SCAN_FILTERS:
            raise InvalidRequest("invalid `scan`")
        return cls(trust, kind, text("source"), text("session", 256), text("writer"), state, scan)

    def admits(self, row: FactRow) -> bool:
        """The filters SQL does not apply: substrings of the source and of the writer chain, and
        the scanner verdict."""
        if self.source and self.source.lower() not in row.source.lower():
            return False
        if self.writer and self.writer.lower() not in row.writer.lower():
            return False
        return self.scan == "any" or self.scan in row.scan_filter_values()

    def matches(self, row: FactRow) -> bool:
        """Every filter, on a row (search results, which SQL did not select)."""
        state = "quarantined" if row.quarantined else row.state
        return (
            (self.trust is None or row.trust == self.trust)
            and (self.source_kind is None or row.source_kind == self.source_kind)
            and (self.session is None or row.session_id == self.session)
            and self.state in ("any", state)
            and self.admits(row)
        )

    def query(self) -> dict[str, str]:
        """The filters as URL query parameters (for the next page's link)."""
        pairs = {
            "trust": self.trust, "source_kind": self.source_kind, "source": self.source,
            "session": self.session, "writer": self.writer,
            "state": None if self.state == "any" else self.state,
            "scan": None if self.scan == "any" else self.scan,
        }  # fmt: skip
        return {k: v for k, v in pairs.items() if v}


@dataclass(frozen=True, slots=True)
class FactRow:
    fact_id: str
    trust: str
    state: str
    quarantined: bool
    source_kind: str
    source: str
    session_id: str
    turn_index: int
    writer: str
    namespace: str
    created_at: str
    #: the scanner's label (``None``: no verdict recorded), the cap it set, who lifted the cap
    scan: str | None = None
    scan_cap: str | None = None
    scan_endorsed_by: str | None = None

    def scan_filter_values(self) -> frozenset[str]:
        """The :data:`SCAN_FILTERS` values this row is listed under."""
        if self.scan is None:
            return frozenset({"unscanned"})
        out = {"clean"} if self.scan == "clean" else {"flagged"}
        if self.scan_endorsed_by is not None:
            out.add("endorsed")
        elif self.scan_cap == "quarantined":
            out.add("quarantined")
        return frozenset(out)


@dataclass(frozen=True, slots=True)
class FactPage:
    rows: tuple[FactRow, ...]
    #: the cursor of the next page, ``None`` at the end
    next_cursor: str | None
    scanned: int


@dataclass(frozen=True)
class FactView:
    report: dict[str, Any]
    graph: LineageGraph
    #: the scanner's verdict when one was recorded (see :func:`scanner_verdict`)
    scanner: dict[str, Any] | None


@dataclass(frozen=True)
class PreviewView:
    selector: RevocationSelector
    roots: tuple[FactRow, ...]
    #: facts inside the principal's scope that would be quarantined (roots first)
    shown: tuple[FactRow, ...]
    already: frozenset[str]
    #: facts outside the principal's scope that would be quarantined too: a count only
    hidden_count: int
    hidden_already: int
    total: int


@dataclass(frozen=True)
class HealthView:
    tree_size: int
    events: int
    pending: int
    checkpoint_size: int | None
    checkpoint_at: str | None
    checkpoint_age: float | None
    checkpoint_signature: str
    verify: dict[str, Any] | None = None
    witness: str = "none configured"
    problems: list[str] = field(default_factory=list)


def scanner_verdict(report: Mapping[str, Any]) -> dict[str, Any] | None:
    """The content scanner's verdict recorded with a fact, if any.

    The slot the scanner issue fills: a verdict is looked for under ``scan`` in the audit report
    or in the fact's provenance record; the fact page shows "no verdict recorded" otherwise.
    """
    for holder in (report, report.get("provenance") or {}):
        verdict = holder.get("scan") if isinstance(holder, Mapping) else None
        if isinstance(verdict, Mapping):
            return dict(verdict)
    return None


def _row(record: LedgerRecord) -> FactRow:
    prov = record.provenance
    chain = " -> ".join([prov.writer.subject.subject, *(a.subject for a in prov.writer.actors)])
    scan = prov.scan
    return FactRow(
        fact_id=record.fact_id,
        trust=prov.trust.label,
        state=record.state.value,
        quarantined=record.quarantined,
        source_kind=prov.source.kind.value,
        source=prov.source.uri or prov.source.name or "",
        session_id=prov.turn.session_id,
        turn_index=prov.turn.turn_index,
        writer=chain,
        namespace=prov.namespace,
        created_at=prov.created_at.isoformat(timespec="seconds"),
        scan=None if scan is None else scan.label,
        scan_cap=None if scan is None or scan.cap is None else scan.cap.label,
        scan_endorsed_by=None if scan is None else scan.endorsed_by,
    )


def _prefilters(plan: ScopePlan) -> list[Any]:
    """SQL conditions implied by the plan's top-level equalities (a necessary condition only: the
    plan and the point evaluator still decide every row)."""
    condition = plan.condition
    items = condition.items if isinstance(condition, And) else (condition,)
    return [
        getattr(_P.c, item.field) == item.value
        for item in items
        if isinstance(item, Eq) and item.field in _COLUMNS and isinstance(item.value, str)
    ]


class Console:
    """The data behind the console's pages, for one guard."""

    def __init__(self, guard: MemoryGuard) -> None:
        self.guard = guard

    @property
    def kernel(self) -> Kernel:
        return self.guard.kernel

    # -- the fact list ----------------------------------------------------------------------------

    def _batch(self, filters: FactFilters, pre: list[Any], after: str | None) -> list[LedgerRecord]:
        latest = (
            select(_P.c.fact_id.label("fid"), func.max(_P.c.version).label("v"))
            .where(_P.c.state != FactState.ABORTED.value)
            .group_by(_P.c.fact_id)
            .subquery()
        )
        held = exists().where(and_(_Q.c.fact_id == _P.c.fact_id, _Q.c.lifted.is_(False)))
        query = select(_P, held.label("quarantined")).join(
            latest, and_(_P.c.fact_id == latest.c.fid, _P.c.version == latest.c.v)
        )
        conds = list(pre)
        if after is not None:
            conds.append(_P.c.fact_id > after)
        if filters.trust is not None:
            conds.append(_P.c.trust == int(TrustLevel.parse(filters.trust)))
        if filters.source_kind is not None:
            conds.append(_P.c.source_kind == filters.source_kind)
        if filters.session is not None:
            conds.append(_P.c.session_id == filters.session)
        if filters.state == "quarantined":
            conds.append(held)
        elif filters.state != "any":
            conds.append(_P.c.state == filters.state)
            if filters.state == "committed":
                conds.append(~held)
        if conds:
            query = query.where(and_(*conds))
        query = query.order_by(_P.c.fact_id).limit(_BATCH)
        try:
            with self.guard.ledger.engine.connect() as conn:
                rows = conn.execute(query).all()
        except SQLAlchemyError as exc:
            raise LedgerError(f"ledger query failed: {type(exc).__name__}") from exc
        return [
            LedgerRecord(r.fact_id, r.version, FactState(r.state), r.record_digest,
                         r.content_digest, r.record, r.purged, bool(r.quarantined))
            for r in rows
        ]  # fmt: skip

    def facts(
        self, identity: Identity, filters: FactFilters, cursor: str | None = None,
        limit: int | None = None,
    ) -> FactPage:  # fmt: skip
        """One page of the facts the principal may audit, in fact-id order."""
        limit = limit or PAGE_SIZE
        if cursor is not None and (len(cursor) > 64 or not cursor.isprintable()):
            raise InvalidRequest("invalid cursor")
        with self.kernel.operation("audit", identity) as op:
            op.detail["console"] = "facts"
            plan = op.read_plan(_AUDIT)
            pre = _prefilters(plan) if plan.condition is not None else []
            rows: list[FactRow] = []
            scanned, after, exhausted = 0, cursor, False
            while len(rows) < limit and scanned < SCAN_BUDGET:
                batch = self._batch(filters, pre, after)
                for record in batch:
                    after, scanned = record.fact_id, scanned + 1
                    if op.admits(plan, _AUDIT, record) and filters.admits(_row(record)):
                        rows.append(_row(record))
                        if len(rows) == limit:
                            break
                if len(batch) < _BATCH and (not batch or after == batch[-1].fact_id):
                    exhausted = True  # the last rows there are were all looked at
                    break
            op.finish(returned=[r.fact_id for r in rows], listed=len(rows))
        return FactPage(tuple(rows), None if exhausted else after, scanned)

    def search(
        self, identity: Identity, query: str, filters: FactFilters, k: int = PAGE_SIZE
    ) -> FactPage:
        """A similarity search in the principal's read scope (quarantined facts are never
        returned), audited as a search with purpose ``audit``; the hits the principal may also
        audit are listed, best first, the filters applied to them."""
        if not query.strip() or len(query) > 2000 or not query.isprintable():
            raise InvalidRequest("invalid search text")
        hits = self.guard.search(identity, query, k=k, purpose="audit")
        # listed like every console list: only what the principal may also audit (a policy may
        # let it read facts it may not audit, e.g. another owner's shared ones)
        rows = self._shown(identity, [h.fact_id for h in hits])
        return FactPage(tuple(r for r in rows if filters.matches(r)), None, len(hits))

    # -- one fact ---------------------------------------------------------------------------------

    def fact(self, identity: Identity, fact_id: str) -> FactView:
        """The audit report (policy-gated) and the lineage graph, other owners' facts withheld."""
        report = self.guard.audit(identity, fact_id)
        with self.kernel.operation("audit", identity, fact_ids=[fact_id]) as op:
            op.detail["console"] = "lineage"
            plan = op.read_plan(_AUDIT)
            graph = lineage_graph(
                self.guard.ledger, fact_id, visible=lambda r: op.admits(plan, _AUDIT, r)
            )
            op.finish(returned=[n.fact_id for n in graph.nodes if n.fact_id])
        return FactView(report=report, graph=graph, scanner=scanner_verdict(report))

    def content(self, identity: Identity, fact_id: str) -> str:
        """The fact's text, if the principal's read scope returns it (a recorded read)."""
        return self.guard.get(identity, fact_id, purpose="audit").text

    # -- revocation --------------------------------------------------------------------------------

    def _shown(self, identity: Identity, fact_ids: list[str]) -> list[FactRow]:
        """The ids (order kept) inside the principal's audit scope, as rows; an audited read."""
        with self.kernel.operation("audit", identity) as op:
            op.detail["console"] = "revocation"
            plan = op.read_plan(_AUDIT)
            records = self.guard.ledger.latest(fact_ids)
            rows = [
                _row(records[f]) for f in fact_ids
                if f in records and op.admits(plan, _AUDIT, records[f])
            ]  # fmt: skip
            op.finish(returned=[r.fact_id for r in rows])
        return rows

    def preview(self, identity: Identity, selector: RevocationSelector) -> PreviewView:
        """What revoking ``selector`` as this principal would quarantine (nothing is changed)."""
        if selector.kind not in CONSOLE_SELECTOR_KINDS:
            raise InvalidRequest("the console revokes sources, domains, sessions, turns and facts")
        preview = self.kernel.preview_revocation(identity, selector)
        shown = self._shown(identity, list(preview.affected))
        ids = {r.fact_id for r in shown}
        hidden = [f for f in preview.affected if f not in ids]
        roots = set(preview.roots)
        return PreviewView(
            selector=selector,
            roots=tuple(r for r in shown if r.fact_id in roots),
            shown=tuple(shown),
            already=frozenset(preview.already_quarantined),
            hidden_count=len(hidden),
            hidden_already=sum(f in preview.already_quarantined for f in hidden),
            total=len(preview.affected),
        )

    def revoke(
        self, identity: Identity, selector: RevocationSelector, reason: str
    ) -> tuple[RevocationReport, list[FactRow]]:
        """Revoke as this principal; returns the report and the quarantined facts it may see."""
        if selector.kind not in CONSOLE_SELECTOR_KINDS:
            raise InvalidRequest("the console revokes sources, domains, sessions, turns and facts")
        report = self.guard.revoke(identity, selector, reason=reason)
        return report, self._shown(identity, list(report.quarantined))

    # -- the ledger ---------------------------------------------------------------------------------

    def health(self, *, verify: bool = False) -> HealthView:
        """Audit-log health: size, queue, the last signed checkpoint (and its age), and on
        request a full verification."""
        log = self.guard.ledger.log
        checkpoint = log.latest_checkpoint()
        signature = "none"
        if checkpoint is not None:
            signature = "unverified (no verifier key)"
            if log.verifier is not None:
                try:
                    opened = log.verifier.verify_checkpoint(checkpoint.note)
                    same = (opened.tree_size, opened.root_hash) == (
                        checkpoint.tree_size, checkpoint.root_hash)  # fmt: skip
                    signature = "valid" if same else "does not match the stored checkpoint"
                except Exception:
                    signature = "INVALID"
        report = None
        problems: list[str] = []
        if verify:  # the full replay (tree, every projection row and event column), not the tree
            result = self.guard.ledger.verify()
            report = result.as_json()
            problems = [f"{p.kind.value}: {p.message}" for p in result.problems[:50]]
        when = (
            dt.datetime.fromtimestamp(checkpoint.created_at, dt.UTC).isoformat(timespec="seconds")
            if checkpoint
            else None
        )
        return HealthView(
            tree_size=log.size(),
            events=self.guard.ledger.count_events(),
            pending=log.pending_count(),
            checkpoint_size=checkpoint.tree_size if checkpoint else None,
            checkpoint_at=when,
            checkpoint_age=(time.time() - checkpoint.created_at) if checkpoint else None,
            checkpoint_signature=signature,
            verify=report,
            problems=problems,
        )

    # -- the local console's principals ------------------------------------------------------------

    def owners(self, limit: int = 200) -> list[tuple[str, str]]:
        """Distinct (issuer, subject) owners in the ledger, for the local principal picker."""
        query = (
            select(_P.c.owner_iss, _P.c.owner_sub).distinct()
            .order_by(_P.c.owner_iss, _P.c.owner_sub).limit(limit)
        )  # fmt: skip
        try:
            with self.guard.ledger.engine.connect() as conn:
                return [(str(r[0]), str(r[1])) for r in conn.execute(query)]
        except SQLAlchemyError as exc:
            raise LedgerError(f"ledger query failed: {type(exc).__name__}") from exc
