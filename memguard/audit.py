"""``memguard audit``: where a fact came from, who wrote it for whom, what it touched, who read it, and
whether it all still verifies.

:func:`audit_fact` builds the report of one fact (JSON form stable: ``schema: memguard.audit/v1``,
fields are only ever added; see docs/audit-json.md): its provenance, its lineage up to the roots and
down to every descendant, every event that names it (reads with who, when, decision and purpose),
its quarantine state, and the verification of its record digest, its store copy, its events' digests
and each event's inclusion in the audit log's Merkle tree (against the latest signed checkpoint).
:func:`audit_selector` lists what a source, a turn or a principal touched.

Under sharing a fact's lineage reaches other owners' facts. A report made for a reader
(``visible``, see :func:`reader_visibility`) shows a related fact (an ancestor, a descendant, an
edge to it) only if the reader may read or audit it; every other one appears only in counts
(``hidden_*``), never by id, source or writer. The operator's command (no reader) sees everything.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from memguard.agentauth import agent_auth_record
from memguard.errors import FactNotFound, MemguardError
from memguard.integrity import payload_problem
from memguard.ledger import FactState, Ledger, LedgerRecord
from memguard.ledger.lineage import is_read_set
from memguard.ledger.rfc6962 import leaf_hash
from memguard.provenance import canonical_json, sha256_digest
from memguard.revocation import RevocationSelector
from memguard.scope import PlanKind, ReadRequest
from memguard.stores.base import MemoryStore

if TYPE_CHECKING:
    from memguard.kernel import Operation

#: May the report's reader see this fact (by id, source, writer)? ``None``: every fact.
Visible = Callable[[LedgerRecord], bool]

__all__ = [
    "AUDIT_LIST_SCHEMA",
    "AUDIT_SCHEMA",
    "audit_fact",
    "audit_selector",
    "lineage_report",
    "reader_visibility",
    "render_selector_text",
    "render_text",
]

AUDIT_SCHEMA = "memguard.audit/v1"
AUDIT_LIST_SCHEMA = "memguard.audit-list/v1"

READ_ACTIONS = frozenset({"get", "search", "list"})
_MAX_TREE_NODES = 500
_MAX_DESCENDANTS = 1000


def _chain(principal: dict[str, Any] | None) -> list[str]:
    if not principal:
        return []
    return [str(principal.get("subject")), *(str(a) for a in principal.get("actors", []))]


def _node(fact_id: str, records: dict[str, LedgerRecord]) -> dict[str, Any]:
    rec = records.get(fact_id)
    if rec is None:
        return {"fact_id": fact_id, "state": "unknown"}
    prov = rec.provenance
    return {
        "fact_id": fact_id,
        "state": rec.state.value,
        "quarantined": rec.quarantined,
        "trust": prov.trust.label,
        "source": {
            "kind": prov.source.kind.value,
            "uri": prov.source.uri,
            "name": prov.source.name,
        },
        "turn": {"session_id": prov.turn.session_id, "turn_index": prov.turn.turn_index},
        "writer": [prov.writer.subject.subject, *(a.subject for a in prov.writer.actors)],
    }


def reader_visibility(op: Operation, *actions: str) -> Visible:
    """Facts the operation's principal may see in a report: those one of ``actions``' scopes (the
    plan and the point evaluator) admits. A resolver error admits nothing (fail closed)."""
    checks = []
    for action in actions:
        request = ReadRequest(action)
        try:
            plan = op.kernel.scope.read_plan(op.who, request)
        except Exception:
            continue
        if plan.kind is not PlanKind.DENY:
            checks.append((plan, request))

    def visible(record: LedgerRecord) -> bool:
        return any(op.admits(plan, request, record) for plan, request in checks)

    return visible


def _shown(
    ids: Sequence[str], records: dict[str, LedgerRecord], visible: Visible | None
) -> tuple[list[str], int]:
    """The ids a reader may see (read sets are not facts: shown) and how many are hidden."""
    if visible is None:
        return list(ids), 0
    shown = [i for i in ids if is_read_set(i) or (i in records and visible(records[i]))]
    return shown, len(ids) - len(shown)


def lineage_report(
    ledger: Ledger, fact_id: str, *, visible: Visible | None = None
) -> dict[str, Any]:
    """The fact's lineage: the tree up to its roots, and every descendant (capped, with a count).

    With ``visible``, facts the reader may not see are left out and counted (``hidden_*``)."""
    edges = ledger.lineage.ancestry(fact_id)
    descendants = ledger.lineage.descendants([fact_id])
    shown_desc = descendants[:_MAX_DESCENDANTS]
    ids = {fact_id, *(e.parent_id for e in edges), *(e.child_id for e in edges), *shown_desc}
    records = ledger.latest(sorted(ids))
    allowed, _ = _shown(sorted(ids - {fact_id}), records, visible)
    seen = {fact_id, *allowed}
    kept_edges = [e for e in edges if e.child_id in seen and e.parent_id in seen]
    parents: dict[str, list[tuple[str, str]]] = {}
    hidden_parents: dict[str, int] = {}
    for e in edges:
        if e.child_id not in seen:
            continue
        if e.parent_id in seen:
            parents.setdefault(e.child_id, []).append((e.parent_id, e.kind))
        else:
            hidden_parents[e.child_id] = hidden_parents.get(e.child_id, 0) + 1
    budget = [_MAX_TREE_NODES]

    def up(node_id: str, path: frozenset[str]) -> dict[str, Any]:
        node = _node(node_id, records)
        budget[0] -= 1
        kids = []
        for parent_id, kind in sorted(parents.get(node_id, [])):
            if parent_id in path or budget[0] <= 0:
                kids.append({"fact_id": parent_id, "edge": kind, "truncated": True})
                continue
            child = up(parent_id, path | {parent_id})
            child["edge"] = kind
            kids.append(child)
        node["parents"] = kids
        if hidden_parents.get(node_id):
            node["hidden_parents"] = hidden_parents[node_id]
        return node

    all_roots = sorted({e.parent_id for e in edges} - {e.child_id for e in edges})
    roots, hidden_roots = _shown(all_roots, records, visible)
    desc, hidden_desc = _shown(shown_desc, records, visible)
    report: dict[str, Any] = {
        "up": up(fact_id, frozenset({fact_id})),
        "roots": [_node(r, records) for r in roots],
        "edges": [{"child": e.child_id, "parent": e.parent_id, "kind": e.kind} for e in kept_edges],
        "descendants": [_node(d, records) for d in desc],
        "descendant_count": len(descendants),
    }
    if visible is not None:
        report["hidden"] = {
            "roots": hidden_roots,
            "edges": len(edges) - len(kept_edges),
            "descendants": hidden_desc,
        }
    return report


def _inclusion(
    ledger: Ledger, events: Sequence[tuple[int, Any, str]]
) -> tuple[list[dict[str, Any]], str]:
    """Each event's place in the Merkle tree and whether its inclusion proof verifies."""
    log = ledger.log
    checkpoint = log.latest_checkpoint()
    signed_root: bytes | None = None
    checkpoint_state = "none"
    if checkpoint is not None:
        checkpoint_state = "unverified"
        verifier = log.verifier
        if verifier is not None:
            try:
                opened = verifier.verify_checkpoint(checkpoint.note)
                if (
                    opened.tree_size == checkpoint.tree_size
                    and opened.root_hash == checkpoint.root_hash
                ):
                    signed_root = opened.root_hash
                    checkpoint_state = "ok"
                else:
                    checkpoint_state = "mismatch"
            except MemguardError:
                checkpoint_state = "bad_signature"
    size = log.size()
    located = log.leaves_for_events([seq for seq, _ev, _digest in events])
    signed = [s for s, (leaf, _) in located.items()
              if checkpoint is not None and signed_root is not None and leaf < checkpoint.tree_size]  # fmt: skip
    unsigned = [s for s in located if s not in set(signed)]
    proofs: dict[int, Any] = {}
    errors: dict[int, str] = {}
    for group, tree_size, root in (
        (signed, checkpoint.tree_size if checkpoint is not None else 0, signed_root),
        (unsigned, size, None),
    ):
        if not group:
            continue
        try:
            batch = log.inclusion_proofs([located[s][0] for s in group], tree_size)
            for seq, proof in zip(group, batch, strict=True):
                proofs[seq] = (proof, root)
        except MemguardError as exc:
            errors.update({seq: exc.code for seq in group})
    rows = []
    for seq, _ev, _digest in events:
        row: dict[str, Any] = {"seq": seq}
        if seq not in located:
            row.update(leaf_index=None, inclusion="pending")
            rows.append(row)
            continue
        index, text = located[seq]
        row["leaf_index"] = index
        if seq in errors:
            row.update(inclusion="failed", error=errors[seq])
            rows.append(row)
            continue
        proof, root = proofs[seq]
        row["tree_size"] = proof.tree_size
        try:
            proof.verify(root)  # against the signed root, or (unsigned) its own recomputed root
            row["inclusion"] = "ok" if root is not None else "ok_unsigned"
            if leaf_hash(text.encode("utf-8")) != proof.leaf_hash:
                row["inclusion"] = "leaf_mismatch"
        except MemguardError as exc:
            row.update(inclusion="failed", error=exc.code)
        rows.append(row)
    return rows, checkpoint_state


def audit_fact(
    ledger: Ledger,
    store: MemoryStore | None,
    fact_id: str,
    *,
    proofs: bool = True,
    visible: Visible | None = None,
) -> dict[str, Any]:
    """Build the audit report of one fact; raises :class:`FactNotFound` if the ledger has no such id.

    ``store``: the store whose copy of the fact is checked (``None``: not checked, e.g. a fact an
    adapter keeps in its own backend). ``proofs``: verify each event's inclusion in the audit log.
    ``visible``: the reader's view (:func:`reader_visibility`); related facts it may not see are
    counted, not shown.
    """
    versions = ledger.versions(fact_id)
    if not versions:
        raise FactNotFound("fact not found")
    live = [v for v in versions if v.state is not FactState.ABORTED]
    current = live[-1] if live else versions[-1]
    latest = ledger.latest([fact_id]).get(fact_id)
    quarantined = latest.quarantined if latest is not None else False
    if latest is not None and latest.version == current.version:
        current = latest  # carries the quarantine flag the store check needs
    prov = current.provenance
    record_ok = sha256_digest(canonical_json(prov.model_dump(mode="json"))) == current.record_digest
    store_problem: str | None
    if store is None:
        store_problem = None
        store_state = "not_checked"
    else:
        points = store.retrieve([fact_id])
        if current.state is FactState.COMMITTED:
            store_problem = (
                payload_problem(points[0].payload, current, prov)
                if points
                else "integrity.missing_point"
            )
        elif current.state is FactState.DELETED:
            store_problem = "integrity.deleted_point_present" if points else None
        else:
            store_problem = None
        store_state = "ok" if store_problem is None else store_problem
    events = ledger.events_for(fact_id)
    inclusion, checkpoint_state = _inclusion(ledger, events) if proofs else ([], "not_checked")
    by_seq = {r["seq"]: r for r in inclusion}
    event_rows = []
    for seq, ev, stored_digest in events:
        row = {
            "seq": seq,
            "ts": ev.ts.isoformat(),
            "action": ev.action,
            "decision": ev.decision.value,
            "reason": ev.reason,
            "subject": (ev.principal or {}).get("subject"),
            "issuer": (ev.principal or {}).get("issuer"),
            "actors": (ev.principal or {}).get("actors", []),
            "purpose": ev.purpose,
            "digest_ok": ev.digest == stored_digest,
            "agent_auth": agent_auth_record(ev),
        }
        if seq in by_seq:
            row["leaf_index"] = by_seq[seq].get("leaf_index")
            row["inclusion"] = by_seq[seq]["inclusion"]
        event_rows.append(row)
    reads = [e for e in event_rows if e["action"] in READ_ACTIONS]
    entries = ledger.lineage.quarantine_entries(fact_id)
    revocation = {
        "quarantined": quarantined,
        "entries": [
            {
                "revocation_id": rev.revocation_id,
                "selector": rev.selector.model_dump(mode="json", exclude_none=True),
                "reason": rev.reason,
                "actor": rev.actor,
                "created_at": rev.created_at.isoformat(),
                "revocation_active": rev.active,
                "lifted": entry.lifted,
                "lifted_event_id": entry.lifted_event_id,
            }
            for entry, rev in entries
        ],
    }
    inclusion_ok = all(r["inclusion"] in ("ok", "ok_unsigned", "pending") for r in inclusion)
    events_ok = all(e["digest_ok"] for e in event_rows)
    verified = (
        record_ok
        and store_problem is None
        and events_ok
        and inclusion_ok
        and checkpoint_state in ("ok", "none", "not_checked")
    )
    return {
        "schema": AUDIT_SCHEMA,
        "fact_id": fact_id,
        "state": current.state.value,
        "version": current.version,
        "provenance": prov.model_dump(mode="json"),
        "versions": [
            {"version": v.version, "state": v.state.value, "record_digest": v.record_digest}
            for v in versions
        ],
        "lineage": lineage_report(ledger, fact_id, visible=visible),
        "revocation": revocation,
        "reads": reads,
        "events": event_rows,
        "verification": {
            "ledger_record_digest": "ok" if record_ok else "mismatch",
            "store_payload": store_state,
            "event_digests": "ok" if events_ok else "mismatch",
            "event_inclusion": (
                "not_checked" if not proofs else "ok" if inclusion_ok else "failed"
            ),
            "checkpoint": checkpoint_state,
            "verified": verified,
        },
    }


def audit_selector(
    ledger: Ledger, selector: RevocationSelector, *, visible: Visible | None = None
) -> dict[str, Any]:
    """What a source, turn, session, principal or fact touched: the facts it matches (any version)
    and every descendant of those, with their state and quarantine. With ``visible``, facts the
    reader may not see are counted, not shown."""
    matched = ledger.lineage.match(selector)
    descendants = [d for d in ledger.lineage.descendants(matched) if d not in set(matched)]
    records = ledger.latest([*matched, *descendants[:_MAX_DESCENDANTS]])
    shown_matched, hidden_matched = _shown(matched, records, visible)
    shown_desc, hidden_desc = _shown(descendants[:_MAX_DESCENDANTS], records, visible)
    report: dict[str, Any] = {
        "schema": AUDIT_LIST_SCHEMA,
        "selector": selector.model_dump(mode="json", exclude_none=True),
        "matched": [_node(f, records) for f in shown_matched],
        "descendants": [_node(d, records) for d in shown_desc],
        "descendant_count": len(descendants),
    }
    if visible is not None:
        report["hidden"] = {"matched": hidden_matched, "descendants": hidden_desc}
    return report


def _tree_lines(node: dict[str, Any], depth: int, out: list[str]) -> None:
    pad = "    " + "  " * depth
    edge = f"[{node['edge']}] " if "edge" in node else ""
    if node.get("truncated"):
        out.append(f"{pad}{edge}{node['fact_id']} ...")
        return
    if node.get("state") == "unknown":
        out.append(f"{pad}{edge}{node['fact_id']} (unknown)")
        return
    src = node["source"]
    where = src.get("uri") or src.get("name") or ""
    flag = " QUARANTINED" if node.get("quarantined") else ""
    out.append(
        f"{pad}{edge}{node['fact_id']} {node['trust']} {src['kind']} {where}".rstrip()
        + f" turn {node['turn']['session_id']}#{node['turn']['turn_index']}{flag}"
    )
    for parent in node.get("parents", []):
        _tree_lines(parent, depth + 1, out)


def _scan_lines(scan: dict[str, Any] | None) -> list[str]:
    """The write-time scan verdict (memguard.scan), if the fact was scanned."""
    if not scan:
        return []
    cap = f", cap {scan['cap']}" if scan.get("cap") else ""
    reasons = ", ".join(scan.get("reasons", [])[:6]) or "-"
    return [f"  scan          {scan['label']} {scan['score']:.2f} by {scan['scanner']} "
            f"v{scan['version']}{cap}  ({reasons})"]  # fmt: skip


def _txn_lines(writer: dict[str, Any]) -> list[str]:
    """The Transaction Token the fact was written under (``txn``, ``tctx``/``rctx``), if any."""
    if not writer.get("txn") and not writer.get("txn_context"):
        return []
    context = json.dumps(writer.get("txn_context") or {}, sort_keys=True, ensure_ascii=True)
    return [f"  transaction   {writer.get('txn') or '-'}  {context}"]


def render_text(report: dict[str, Any]) -> str:
    """A human-readable rendering of :func:`audit_fact`'s report."""
    p = report["provenance"]
    writer = p["writer"]
    chain = " -> ".join([writer["subject"]["subject"], *(a["subject"] for a in writer["actors"])])
    turn = p["turn"]
    src = p["source"]
    v = report["verification"]
    rev = report.get("revocation", {})
    lines = [
        f"fact {report['fact_id']}  (version {report['version']}, {report['state']})"
        + ("  QUARANTINED" if rev.get("quarantined") else ""),
        f"  namespace     {p['namespace']}",
        f"  owner         {p['owner']['subject']} @ {p['owner']['issuer']}",
        f"  source        {src['kind']} {src.get('uri') or src.get('name') or ''}".rstrip(),
        f"  turn          session {turn['session_id']} turn {turn['turn_index']}"
        + (f" trace {turn['trace_id']}" if turn.get("trace_id") else ""),
        f"  trust         {p['trust']}  ({p['trust_reason']})",
        *_scan_lines(p.get("scan")),
        f"  writer chain  {chain}",
        f"  workload      {writer.get('workload_id') or '-'}   token jti {writer['token_jti']}",
        *_txn_lines(writer),
        f"  derived from  {', '.join(p['derived_from']) or '-'}",
        f"  created       {p['created_at']}",
        f"  content       {p['content_digest']}",
        f"  policy        {p['policy_digest']}",
    ]
    lineage = report.get("lineage")
    if lineage:
        lines.append("  lineage (up to the roots)")
        _tree_lines(lineage["up"], 0, lines)
        lines.append(f"  descendants   {lineage['descendant_count']}")
        hidden = lineage.get("hidden") or {}
        if any(hidden.values()):
            lines.append(
                f"  not shown     {hidden.get('roots', 0)} roots, {hidden.get('edges', 0)} edges,"
                f" {hidden.get('descendants', 0)} descendants outside your scope"
            )
        for d in lineage["descendants"][:20]:
            flag = " QUARANTINED" if d.get("quarantined") else ""
            lines.append(f"    {d['fact_id']} {d.get('trust', '?')} {d.get('state', '?')}{flag}")
        if lineage["descendant_count"] > 20:
            lines.append(f"    ... {lineage['descendant_count'] - 20} more (see --json)")
    for entry in rev.get("entries", []):
        state = "lifted" if entry["lifted"] else "active"
        lines.append(
            f"  revocation    {entry['revocation_id']} {state}: {entry['reason']}"
            f" (by {entry['actor']} at {entry['created_at']})"
        )
    lines.append(f"  reads         {len(report['reads'])}")
    for r in report["reads"]:
        subject = f"{r['subject']} @ {r['issuer']}" if r.get("issuer") else (r["subject"] or "?")
        who = " -> ".join([subject, *r["actors"]])
        lines.append(
            f"    #{r['seq']} {r['ts']} {r['action']} {r['decision']} by {who} ({r['purpose']})"
        )
    lines.append(
        "  verification  "
        + ("OK" if v["verified"] else "FAILED")
        + f"  (ledger record {v['ledger_record_digest']}, store payload {v['store_payload']},"
        + f" event digests {v['event_digests']}, inclusion {v.get('event_inclusion', '-')},"
        + f" checkpoint {v.get('checkpoint', '-')})"
    )
    return "\n".join(lines)


def render_selector_text(report: dict[str, Any]) -> str:
    """A human-readable rendering of :func:`audit_selector`'s report."""
    sel = report["selector"]
    lines = [f"{sel['kind']} {sel['value']}: {len(report['matched'])} facts matched,"
             f" {report['descendant_count']} descendants"]  # fmt: skip
    hidden = report.get("hidden") or {}
    if any(hidden.values()):
        lines.append(f"  not shown: {hidden.get('matched', 0)} matched and"
                     f" {hidden.get('descendants', 0)} descendants outside your scope")  # fmt: skip
    for title, nodes in (("matched", report["matched"]), ("descendants", report["descendants"])):
        if nodes:
            lines.append(f"  {title}")
        for n in nodes:
            flag = " QUARANTINED" if n.get("quarantined") else ""
            src = n.get("source", {})
            lines.append(
                f"    {n['fact_id']} {n.get('trust', '?')} {n.get('state', '?')}"
                f" {src.get('kind', '')} {src.get('uri') or src.get('name') or ''}".rstrip()
                + flag
            )
    return "\n".join(lines)
