"""``memguard audit``: where a fact came from, who wrote it for whom, who read it, and whether it verifies.

The JSON form is stable (``schema: memguard.audit/v1``); see docs/audit-json.md.
"""

from __future__ import annotations

from typing import Any

from memguard.errors import FactNotFound
from memguard.integrity import payload_problem
from memguard.ledger import FactState, Ledger
from memguard.provenance import canonical_json, sha256_digest
from memguard.stores.base import MemoryStore

__all__ = ["AUDIT_SCHEMA", "audit_fact", "render_text"]

AUDIT_SCHEMA = "memguard.audit/v1"


def audit_fact(ledger: Ledger, store: MemoryStore, fact_id: str) -> dict[str, Any]:
    """Build the audit report of one fact; raises :class:`FactNotFound` if the ledger has no such id."""
    versions = ledger.versions(fact_id)
    if not versions:
        raise FactNotFound("fact not found")
    live = [v for v in versions if v.state is not FactState.ABORTED]
    current = live[-1] if live else versions[-1]
    prov = current.provenance
    record_ok = sha256_digest(canonical_json(prov.model_dump(mode="json"))) == current.record_digest
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
    events = ledger.events_for(fact_id)
    event_rows = [
        {
            "seq": seq,
            "ts": ev.ts.isoformat(),
            "action": ev.action,
            "decision": ev.decision.value,
            "reason": ev.reason,
            "subject": (ev.principal or {}).get("subject"),
            "actors": (ev.principal or {}).get("actors", []),
            "purpose": ev.purpose,
            "digest_ok": ev.digest == stored_digest,
        }
        for seq, ev, stored_digest in events
    ]
    reads = [e for e in event_rows if e["action"] in ("get", "search")]
    verified = record_ok and store_problem is None and all(e["digest_ok"] for e in event_rows)
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
        "reads": reads,
        "events": event_rows,
        "verification": {
            "ledger_record_digest": "ok" if record_ok else "mismatch",
            "store_payload": "ok" if store_problem is None else store_problem,
            "event_digests": "ok" if all(e["digest_ok"] for e in event_rows) else "mismatch",
            "verified": verified,
        },
    }


def render_text(report: dict[str, Any]) -> str:
    """A human-readable rendering of :func:`audit_fact`'s report."""
    p = report["provenance"]
    writer = p["writer"]
    chain = " -> ".join([writer["subject"]["subject"], *(a["subject"] for a in writer["actors"])])
    turn = p["turn"]
    src = p["source"]
    v = report["verification"]
    lines = [
        f"fact {report['fact_id']}  (version {report['version']}, {report['state']})",
        f"  namespace     {p['namespace']}",
        f"  owner         {p['owner']['subject']} @ {p['owner']['issuer']}",
        f"  source        {src['kind']} {src.get('uri') or src.get('name') or ''}".rstrip(),
        f"  turn          session {turn['session_id']} turn {turn['turn_index']}"
        + (f" trace {turn['trace_id']}" if turn.get("trace_id") else ""),
        f"  trust         {p['trust']}  ({p['trust_reason']})",
        f"  writer chain  {chain}",
        f"  workload      {writer.get('workload_id') or '-'}   token jti {writer['token_jti']}",
        f"  derived from  {', '.join(p['derived_from']) or '-'}",
        f"  created       {p['created_at']}",
        f"  content       {p['content_digest']}",
        f"  policy        {p['policy_digest']}",
        f"  reads         {len(report['reads'])}",
    ]
    for r in report["reads"]:
        who = " -> ".join([r["subject"] or "?", *r["actors"]])
        lines.append(
            f"    #{r['seq']} {r['ts']} {r['action']} {r['decision']} by {who} ({r['purpose']})"
        )
    lines.append(
        "  verification  "
        + ("OK" if v["verified"] else "FAILED")
        + f"  (ledger record {v['ledger_record_digest']}, store payload {v['store_payload']},"
        + f" event digests {v['event_digests']})"
    )
    return "\n".join(lines)
