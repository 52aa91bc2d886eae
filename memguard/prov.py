"""A fact's lineage as W3C PROV-JSON (https://www.w3.org/submissions/prov-json/).

The mapping:

- each fact is an ``entity`` (``fact:<id>``) with its trust, namespace, state, quarantine and digests;
- each injecting turn is an ``activity`` (``turn:<digest>``) that generated the facts written in it
  (``wasGeneratedBy``, at the fact's creation time) and ``used`` their inputs and their source;
- a source URI or name is an ``entity`` (``src:<digest>``, ``prov:location`` = the URI);
- ``wasDerivedFrom`` links a fact to each parent (``mg:edge`` = ``derived`` or ``context``);
- the user is a ``prov:Person`` agent, each delegate a ``prov:SoftwareAgent`` (its workload id);
  the turn ``wasAssociatedWith`` the current actor, each actor ``actedOnBehalfOf`` the previous one
  (the first on behalf of the user), and each fact ``wasAttributedTo`` the current actor.

Agent and turn identifiers are digests (qualified names cannot hold every character of a URL);
their real names are in ``prov:label``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from memguard.errors import FactNotFound
from memguard.identity import PrincipalId
from memguard.ledger import Ledger, LedgerRecord
from memguard.provenance import Provenance

__all__ = ["PROV_PREFIXES", "lineage_prov_json"]

PROV_PREFIXES = {
    "mg": "https://memguard.dev/ns/provenance#",
    "fact": "urn:memguard:fact:",
    "turn": "urn:memguard:turn:",
    "src": "urn:memguard:source:",
    "agent": "urn:memguard:agent:",
}


def _h(*parts: str) -> str:
    key = "\x1f".join(f"{len(p)}:{p}" for p in parts)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


def _agent_id(who: PrincipalId) -> str:
    return "agent:" + _h(who.issuer, who.subject)


def _time(prov: Provenance) -> dict[str, str]:
    return {"$": prov.created_at.isoformat(), "type": "xsd:dateTime"}


class _Doc:
    def __init__(self) -> None:
        self.doc: dict[str, Any] = {"prefix": dict(PROV_PREFIXES)}
        self._n = 0

    def add(self, kind: str, ident: str, attrs: dict[str, Any]) -> None:
        section = self.doc.setdefault(kind, {})
        section.setdefault(ident, {}).update(attrs)

    def relate(self, kind: str, attrs: dict[str, Any]) -> None:
        self._n += 1
        self.doc.setdefault(kind, {})[f"_:{kind}{self._n}"] = attrs


def _fact(doc: _Doc, rec: LedgerRecord) -> None:
    prov = rec.provenance
    fid = "fact:" + prov.fact_id
    doc.add(
        "entity",
        fid,
        {
            "prov:type": {"$": "mg:Fact", "type": "prov:QUALIFIED_NAME"},
            "prov:label": prov.fact_id,
            "mg:version": prov.version,
            "mg:namespace": prov.namespace,
            "mg:trust": prov.trust.label,
            "mg:trustReason": prov.trust_reason,
            "mg:state": rec.state.value,
            "mg:quarantined": rec.quarantined,
            "mg:contentDigest": prov.content_digest,
            "mg:recordDigest": rec.record_digest,
            "mg:policyDigest": prov.policy_digest,
            "mg:sourceKind": prov.source.kind.value,
        },
    )
    turn = prov.turn
    tid = "turn:" + _h(prov.owner.issuer, prov.owner.subject, turn.session_id, str(turn.turn_index))
    turn_attrs: dict[str, Any] = {
        "prov:type": {"$": "mg:Turn", "type": "prov:QUALIFIED_NAME"},
        "prov:label": f"{turn.session_id}#{turn.turn_index}",
        "mg:sessionId": turn.session_id,
        "mg:turnIndex": turn.turn_index,
    }
    if turn.trace_id:
        turn_attrs["mg:traceId"] = turn.trace_id
    doc.add("activity", tid, turn_attrs)
    doc.relate(
        "wasGeneratedBy", {"prov:entity": fid, "prov:activity": tid, "prov:time": _time(prov)}
    )
    if prov.source.uri or prov.source.name:
        where = prov.source.uri or prov.source.name or ""
        sid = "src:" + _h(prov.source.kind.value, where)
        src_attrs: dict[str, Any] = {
            "prov:type": {"$": "mg:Source", "type": "prov:QUALIFIED_NAME"},
            "prov:label": where,
            "mg:sourceKind": prov.source.kind.value,
        }
        if prov.source.uri:
            src_attrs["prov:location"] = prov.source.uri
        doc.add("entity", sid, src_attrs)
        doc.relate("used", {"prov:activity": tid, "prov:entity": sid})
        doc.relate("wasDerivedFrom", {"prov:generatedEntity": fid, "prov:usedEntity": sid,
                                      "prov:type": {"$": "prov:PrimarySource",
                                                    "type": "prov:QUALIFIED_NAME"}})  # fmt: skip
    writer = prov.writer
    user = _agent_id(writer.subject)
    doc.add(
        "agent",
        user,
        {
            "prov:type": {"$": "prov:Person", "type": "prov:QUALIFIED_NAME"},
            "prov:label": str(writer.subject),
        },
    )
    previous = user
    for actor in writer.actors:
        aid = _agent_id(actor)
        doc.add(
            "agent",
            aid,
            {
                "prov:type": {"$": "prov:SoftwareAgent", "type": "prov:QUALIFIED_NAME"},
                "prov:label": actor.subject,
            },
        )
        doc.relate(
            "actedOnBehalfOf",
            {"prov:delegate": aid, "prov:responsible": previous, "prov:activity": tid},
        )
        previous = aid
    doc.relate("wasAssociatedWith", {"prov:activity": tid, "prov:agent": previous})
    doc.relate("wasAttributedTo", {"prov:entity": fid, "prov:agent": previous})


def lineage_prov_json(ledger: Ledger, fact_id: str, *, descendants: bool = True) -> dict[str, Any]:
    """PROV-JSON of ``fact_id``, every ancestor up to the roots and (by default) every descendant."""
    if not ledger.versions(fact_id):
        raise FactNotFound("fact not found")
    edges = ledger.lineage.ancestry(fact_id)
    ids = {fact_id, *(e.child_id for e in edges), *(e.parent_id for e in edges)}
    down: list[str] = ledger.lineage.descendants([fact_id]) if descendants else []
    if down:
        ids.update(down)
        for child in down:  # the edges between descendants and into them
            edges.extend(e for e in ledger.lineage.parents(child) if e not in edges)
    records = ledger.latest(sorted(ids))
    doc = _Doc()
    for fid in sorted(ids):
        rec = records.get(fid)
        if rec is not None:
            _fact(doc, rec)
    for e in sorted(set(edges), key=lambda e: (e.child_id, e.parent_id)):
        if e.child_id not in records or e.parent_id not in records:
            continue
        child, parent = "fact:" + e.child_id, "fact:" + e.parent_id
        doc.relate(
            "wasDerivedFrom",
            {"prov:generatedEntity": child, "prov:usedEntity": parent, "mg:edge": e.kind},
        )
        turn = records[e.child_id].provenance.turn
        owner = records[e.child_id].provenance.owner
        tid = "turn:" + _h(owner.issuer, owner.subject, turn.session_id, str(turn.turn_index))
        doc.relate("used", {"prov:activity": tid, "prov:entity": parent})
    return doc.doc
