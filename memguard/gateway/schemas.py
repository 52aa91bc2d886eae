"""The HTTP API's request and response bodies (the OpenAPI document is generated from these).

Every model and field has a description and every model an example, so the OpenAPI document
(``/openapi.json``, rendered at ``/docs``) reads as the reference; tests/test_gateway_docs.py
checks that none is missing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memguard.guard import RecalledFact
from memguard.provenance import Provenance, Source, Turn
from memguard.revocation import RevocationReport, RevocationSelector
from memguard.trust import SourceKind, TrustLevel

__all__ = [
    "AuditOut",
    "AuthServerMetadataOut",
    "BatchWriteIn",
    "BatchWriteOut",
    "EndorseIn",
    "EndorseOut",
    "FactListOut",
    "FactOut",
    "HealthOut",
    "JwkOut",
    "JwksOut",
    "OAuthErrorOut",
    "ProtectedResourceOut",
    "ProvenanceOut",
    "ReadyOut",
    "RevocationOut",
    "RevokeIn",
    "SearchIn",
    "SearchOut",
    "SelectorIn",
    "SelectorOut",
    "TokenExchangeForm",
    "TokenResponseOut",
    "UpdateIn",
    "WriteIn",
    "WriteOut",
]

FACT_ID = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
#: No C0/C1 control characters: the ledger stores these in SQL text columns.
_PLAIN = r"^[^\x00-\x1f\x7f-\x9f]*$"
PLAIN = _PLAIN
#: A host name for a ``domain`` selector: no scheme, port or path, not only dots.
_HOST = r"^[^/:.\s\x00-\x1f\x7f-\x9f][^/:\s\x00-\x1f\x7f-\x9f]*$"
TrustName = Literal["system", "verified", "user", "derived", "tool", "untrusted", "quarantined"]
Plain = Annotated[str, Field(pattern=_PLAIN)]
FactId = Annotated[str, Field(pattern=FACT_ID)]
Namespace = Annotated[str, Field(min_length=1, max_length=256, pattern=_PLAIN)]

# examples used across the document (one consistent story: alice's agent stores a web page)
_FACT = "3f1c2a9e-8b7d-4c6e-9a51-2d4b7e0c1f88"
_PARENT = "9b2e4d6f-1a3c-4e5f-8a7b-6c5d4e3f2a1b"
_DIGEST = "sha256:5120aa7c9802aaec57dc3a3516aec2c22d95a09d7692f515bb0aadc6dab62db9"
_POLICY = "sha256:45737103be30a6788622a65fb9c2119de04ba78bdde3b10792655507c8d2d43f"
_SOURCE = {"kind": "web", "uri": "https://lisbon-travel-tips.example/may"}
_TURN = {"session_id": "s-42", "turn_index": 3, "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736"}
_PROVENANCE: dict[str, Any] = {
    "fact_id": _FACT, "version": 1, "namespace": "travel", "trust": "untrusted",
    "trust_reason": "source web default untrusted; writer depth 2 ceiling derived",
    "source": {**_SOURCE, "name": None},
    "turn": {**_TURN, "span_id": None},
    "writer": {
        "subject": {"issuer": "https://gateway.example", "subject": "alice"},
        "actors": [{"issuer": "https://gateway.example",
                    "subject": "spiffe://example.org/agent/planner"},
                   {"issuer": "https://gateway.example",
                    "subject": "spiffe://example.org/agent/browser"}],
        "chain": ["alice", "spiffe://example.org/agent/planner",
                  "spiffe://example.org/agent/browser"],
        "workload_id": "spiffe://example.org/agent/browser", "client_id": None,
        "token_jti": "pfuaqbylbP03Flj6cHJAOg",
    },
    "owner": {"issuer": "https://gateway.example", "subject": "alice"},
    "derived_from": [], "created_at": "2026-05-02T09:14:36.955401Z",
    "content_digest": _DIGEST, "policy_digest": _POLICY,
}  # fmt: skip
_SUMMARY = f"[trust=untrusted source=web:https://lisbon-travel-tips.example/may fact={_FACT}]"


def _examples(*items: dict[str, Any]) -> dict[str, Any]:
    return {"examples": list(items)}


class _In(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SourceIn(_In):
    """Where the fact came from. The kind sets the trust a fact can get (`web` is untrusted,
    `user_message` user, ...); the caller can only lower it."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra=_examples(_SOURCE))

    kind: SourceKind = Field(description="The channel: user_message, web, tool_output, ...")
    uri: Annotated[str, Field(max_length=4096, pattern=_PLAIN)] | None = Field(
        None, description="The source's URI (revocations select on it: source, domain, glob)."
    )
    name: Annotated[str, Field(max_length=512, pattern=_PLAIN)] | None = Field(
        None, description="A name when there is no URI (a tool, a chat, an agent)."
    )

    def to_source(self) -> Source:
        return Source(kind=self.kind, uri=self.uri, name=self.name)


class TurnIn(_In):
    """The agent turn that injected the fact (session, turn, and the trace it ran in)."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra=_examples(_TURN))

    session_id: Annotated[str, Field(min_length=1, max_length=256, pattern=_PLAIN)] = Field(
        description="The agent session."
    )
    turn_index: Annotated[int, Field(ge=0, le=2**31 - 1)] = Field(
        description="The turn within the session."
    )
    trace_id: Annotated[str, Field(max_length=128, pattern=_PLAIN)] | None = Field(
        None, description="The W3C trace id of the turn (links the fact to its trace)."
    )
    span_id: Annotated[str, Field(max_length=128, pattern=_PLAIN)] | None = Field(
        None, description="The span that wrote the fact."
    )

    def to_turn(self) -> Turn:
        return Turn(session_id=self.session_id, turn_index=self.turn_index,
                    trace_id=self.trace_id, span_id=self.span_id)


_WRITE_EXAMPLE: dict[str, Any] = {
    "text": "Lisbon in May: trams, pasteis de nata and the Alfama.",
    "namespace": "travel", "source": _SOURCE, "turn": _TURN, "metadata": {"lang": "en"},
}  # fmt: skip


class WriteIn(_In):
    """One fact. ``trust`` may only lower what the channel gives; memguard assigns the rest."""

    model_config = ConfigDict(
        frozen=True, extra="forbid",
        json_schema_extra=_examples(_WRITE_EXAMPLE, {
            "text": "Lisbon in May: trams and pastries.", "namespace": "travel",
            "source": {"kind": "agent_inference", "name": "planner"},
            "turn": {"session_id": "s-42", "turn_index": 4}, "derived_from": [_FACT],
        }),
    )  # fmt: skip

    text: Annotated[str, Field(min_length=1, max_length=256 * 1024)] = Field(
        description="The fact's text (stored in the store; the ledger keeps its digest)."
    )
    namespace: Annotated[str, Field(min_length=1, max_length=256, pattern=_PLAIN)] = Field(
        description="The namespace (policies can allow or deny by namespace)."
    )
    source: SourceIn = Field(description="Where the fact came from.")
    turn: TurnIn = Field(description="The turn that wrote it.")
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Free metadata kept with the fact (no reserved keys)."
    )
    trust: TrustName | None = Field(
        None, description="Ask for a lower trust than the channel gives (never a higher one)."
    )
    derived_from: Annotated[list[FactId], Field(max_length=64)] = Field(
        default_factory=list,
        description="Facts this one was derived from: its trust is at most theirs, and revoking "
        "one of them quarantines this one.",
    )

    def trust_level(self) -> TrustLevel | None:
        return TrustLevel.parse(self.trust) if self.trust is not None else None


class BatchWriteIn(_In):
    """Several facts written in one request (one ledger transaction per phase)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", json_schema_extra=_examples({"facts": [_WRITE_EXAMPLE]})
    )

    facts: Annotated[list[WriteIn], Field(min_length=1, max_length=256)] = Field(
        description="The facts, written in this order."
    )


class UpdateIn(_In):
    """A new version of a fact (it keeps the inputs of the version it replaces)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid",
        json_schema_extra=_examples({
            "text": "Lisbon in May: trams, pastries, the Alfama.", "source": _SOURCE,
            "turn": {"session_id": "s-42", "turn_index": 5},
        }),
    )  # fmt: skip

    text: Annotated[str, Field(min_length=1, max_length=256 * 1024)] = Field(
        description="The new text."
    )
    source: SourceIn = Field(description="Where the new version came from.")
    turn: TurnIn = Field(description="The turn that wrote it.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Free metadata.")
    trust: TrustName | None = Field(None, description="Ask for a lower trust (never higher).")

    def trust_level(self) -> TrustLevel | None:
        return TrustLevel.parse(self.trust) if self.trust is not None else None


class SearchIn(_In):
    """A similarity search inside the caller's scope (pushed into the store's query, every hit
    re-checked against the ledger)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid",
        json_schema_extra=_examples({
            "query": "Lisbon trip in May", "k": 5, "namespaces": ["travel"], "min_trust": "user",
            "purpose": "planning", "turn": {"session_id": "s-42", "turn_index": 6},
        }),
    )  # fmt: skip

    query: Annotated[str, Field(min_length=1, max_length=8192)] = Field(
        description="The text to search for."
    )
    k: Annotated[int, Field(ge=1, le=100)] = Field(10, description="How many facts at most.")
    namespaces: Annotated[list[Namespace], Field(min_length=1, max_length=32)] | None = Field(
        None, description="Only these namespaces (default: every one the scope allows)."
    )
    min_trust: TrustName | None = Field(
        None, description="Leave out facts below this trust (e.g. `user` before acting)."
    )
    purpose: Annotated[str, Field(pattern=r"^[a-z_]{1,32}$")] = Field(
        "answer", description="Why the agent reads (`answer`, `planning`, `tool_argument`, ...); "
        "policies can decide by purpose."
    )
    trace_id: Annotated[str, Field(max_length=128, pattern=_PLAIN)] | None = Field(
        None, description="The trace this read belongs to (recorded with the read)."
    )
    #: The agent turn this search belongs to: what it returns taints that turn's later writes.
    turn: TurnIn | None = Field(
        None, description="The agent turn this search belongs to: what it returns taints the "
        "writes made later in that turn."
    )
    receipt: bool = Field(
        False, description="Return a signed read receipt (`receipt`): the facts returned, their "
        "provenance digests and the read's audit-log entry (docs/standards.md)."
    )


# -- lineage: revocation and endorsement -------------------------------------------------------------

_SelectorValue = Annotated[str, Field(min_length=1, max_length=4096, pattern=_PLAIN)]


class _SelectorBase(_In):
    def to_selector(self) -> RevocationSelector:
        return RevocationSelector.model_validate(self.model_dump(exclude_none=True))


class ValueSelectorIn(_SelectorBase):
    """``source`` (an exact URI), ``source_pattern`` (a shell glob over URIs), ``session`` (a
    session id), ``workload`` (a workload id in the writer's chain), ``jti`` (a token id)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid",
        json_schema_extra=_examples({"kind": "source_pattern", "value": "https://evil.example/*"}),
    )  # fmt: skip

    kind: Literal["source", "source_pattern", "session", "workload", "jti"] = Field(
        description="What `value` names."
    )
    value: _SelectorValue = Field(description="The URI, glob, session id, workload id or jti.")


class DomainSelectorIn(_SelectorBase):
    """``domain``: URIs on this host or any subdomain of it."""

    model_config = ConfigDict(
        frozen=True, extra="forbid",
        json_schema_extra=_examples({"kind": "domain", "value": "lisbon-travel-tips.example"}),
    )  # fmt: skip

    kind: Literal["domain"] = Field(description="`domain`.")
    value: Annotated[str, Field(min_length=1, max_length=253, pattern=_HOST)] = Field(
        description="A host name: no scheme, port or path."
    )

    def to_selector(self) -> RevocationSelector:
        return RevocationSelector.domain(self.value)


class TurnSelectorIn(_SelectorBase):
    """``turn``: one turn (``turn_index``) of session ``value``."""

    model_config = ConfigDict(
        frozen=True, extra="forbid",
        json_schema_extra=_examples({"kind": "turn", "value": "s-42", "turn_index": 3}),
    )  # fmt: skip

    kind: Literal["turn"] = Field(description="`turn`.")
    value: Annotated[str, Field(min_length=1, max_length=256, pattern=_PLAIN)] = Field(
        description="The session id."
    )
    turn_index: Annotated[int, Field(ge=0, le=2**31 - 1)] = Field(description="The turn.")


class SubjectSelectorIn(_SelectorBase):
    """``subject``: every fact of user ``value`` at ``issuer``."""

    model_config = ConfigDict(
        frozen=True, extra="forbid",
        json_schema_extra=_examples(
            {"kind": "subject", "value": "alice", "issuer": "https://gateway.example"}),
    )  # fmt: skip

    kind: Literal["subject"] = Field(description="`subject`.")
    value: _SelectorValue = Field(description="The user's subject.")
    issuer: Annotated[str, Field(min_length=1, max_length=1024, pattern=_PLAIN)] = Field(
        description="The issuer of the subject (a principal is issuer and subject)."
    )


class FactSelectorIn(_SelectorBase):
    """``fact``: one fact (and its descendants)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", json_schema_extra=_examples({"kind": "fact", "value": _FACT})
    )

    kind: Literal["fact"] = Field(description="`fact`.")
    value: FactId = Field(description="The fact id.")


SelectorIn = Annotated[
    ValueSelectorIn | DomainSelectorIn | TurnSelectorIn | SubjectSelectorIn | FactSelectorIn,
    Field(discriminator="kind"),
]


class RevokeIn(_In):
    """What to revoke, and why. The selector's shape depends on its ``kind`` (docs/lineage.md)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid",
        json_schema_extra=_examples({
            "selector": {"kind": "domain", "value": "lisbon-travel-tips.example"},
            "reason": "prompt injection in the page",
        }),
    )  # fmt: skip

    selector: SelectorIn = Field(description="What to revoke.")
    reason: Annotated[str, Field(min_length=1, max_length=2000, pattern=_PLAIN)] = Field(
        description="Why (kept in the audit log)."
    )
    #: ``false``: follow only ``derived_from`` edges, not the taint of a turn's reads.
    follow_context: bool = Field(
        True, description="`false`: quarantine along `derived_from` edges only, not along the "
        "taint of what a turn had read."
    )


class EndorseIn(_In):
    """Why a quarantine is lifted (an audited, policy-gated endorsement)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid",
        json_schema_extra=_examples({"reason": "checked by hand: the page was not the injection"}),
    )  # fmt: skip

    reason: Annotated[str, Field(min_length=1, max_length=2000, pattern=_PLAIN)] = Field(
        description="Why (kept in the audit log)."
    )


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class PrincipalOut(_Out):
    """A principal: an issuer (or trust domain) and a subject, compared byte for byte."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({"issuer": "https://gateway.example", "subject": "alice"}),
    )

    issuer: str = Field(description="The token issuer or SPIFFE trust domain.")
    subject: str = Field(description="The subject at that issuer.")


class WriterOut(_Out):
    """Who wrote the fact: the user, then each agent in delegation order."""

    model_config = ConfigDict(frozen=True, json_schema_extra=_examples(_PROVENANCE["writer"]))

    subject: PrincipalOut = Field(description="The user the chain acts for.")
    actors: list[PrincipalOut] = Field(description="Each agent in delegation order.")
    chain: list[str] = Field(description="The subjects, user first: `alice -> planner -> ...`.")
    workload_id: str | None = Field(description="The writing agent's verified workload id.")
    client_id: str | None = Field(description="The OAuth client that obtained the token.")
    token_jti: str = Field(description="The id of the token the fact was written with.")
    txn: str | None = Field(default=None, description="The Transaction Token `txn` of the call "
                            "chain the token was exchanged under, if any.")


class SourceOut(_Out):
    """Where a fact came from."""

    model_config = ConfigDict(frozen=True, json_schema_extra=_examples(_PROVENANCE["source"]))

    kind: str = Field(description="The channel.")
    uri: str | None = Field(description="The source URI.")
    name: str | None = Field(description="The source's name when it has no URI.")


class TurnOut(_Out):
    """The turn that wrote a fact."""

    model_config = ConfigDict(frozen=True, json_schema_extra=_examples(_PROVENANCE["turn"]))

    session_id: str = Field(description="The agent session.")
    turn_index: int = Field(description="The turn within the session.")
    trace_id: str | None = Field(description="The W3C trace id.")
    span_id: str | None = Field(description="The span id.")


class ScanOut(_Out):
    """The write-time content scan (memguard.scan): the verdict and the trust cap it set."""

    model_config = ConfigDict(frozen=True, json_schema_extra=_examples({
        "label": "suspicious", "score": 0.6, "reasons": ["exfil.markdown_image"],
        "scanner": "memguard.rules", "version": "1", "cap": "untrusted", "endorsed_by": None}))

    label: str = Field(description="clean, suspicious, malicious, or error (the scanner failed).")
    score: float = Field(description="The scanner's score, 0 to 1.")
    reasons: list[str] = Field(description="The rules or families that matched.")
    scanner: str = Field(description="Scanner id.")
    version: str = Field(description="Scanner version.")
    cap: TrustName | None = Field(description="The trust cap the verdict set, if any.")
    endorsed_by: str | None = Field(description="Who lifted the cap, if anyone did.")


class ProvenanceOut(_Out):
    """A fact's provenance: where it came from, who wrote it for whom, how much it is trusted."""

    model_config = ConfigDict(frozen=True, json_schema_extra=_examples(_PROVENANCE))

    fact_id: str = Field(description="The fact id.")
    version: int = Field(description="The version (1 for a new fact).")
    namespace: str = Field(description="The namespace.")
    trust: TrustName = Field(description="The trust memguard assigned.")
    trust_reason: str = Field(description="Why: the channel's default, the writer's ceiling, "
                              "the inputs' minimum, the turn's taint.")  # fmt: skip
    source: SourceOut = Field(description="Where it came from.")
    turn: TurnOut = Field(description="The turn that wrote it.")
    writer: WriterOut = Field(description="Who wrote it, for whom.")
    owner: PrincipalOut = Field(description="Whose memory it is (the chain's user).")
    derived_from: list[str] = Field(description="The facts it was derived from.")
    created_at: datetime = Field(description="When it was written.")
    content_digest: str = Field(description="The SHA-256 of the stored text.")
    policy_digest: str = Field(description="The policy in force when it was written.")
    scan: ScanOut | None = Field(default=None, description="The write-time content scan, when "
                                 "the fact was scanned.")

    @classmethod
    def of(cls, p: Provenance) -> ProvenanceOut:
        w = p.writer
        return cls(
            fact_id=p.fact_id, version=p.version, namespace=p.namespace,
            trust=p.trust.label,  # a TrustLevel label is a TrustName
            trust_reason=p.trust_reason,
            source=SourceOut(kind=p.source.kind.value, uri=p.source.uri, name=p.source.name),
            turn=TurnOut(session_id=p.turn.session_id, turn_index=p.turn.turn_index,
                         trace_id=p.turn.trace_id, span_id=p.turn.span_id),
            writer=WriterOut(
                subject=PrincipalOut(issuer=w.subject.issuer, subject=w.subject.subject),
                actors=[PrincipalOut(issuer=a.issuer, subject=a.subject) for a in w.actors],
                chain=[w.subject.subject, *(a.subject for a in w.actors)],
                workload_id=w.workload_id, client_id=w.client_id, token_jti=w.token_jti,
                txn=w.txn,
            ),
            owner=PrincipalOut(issuer=p.owner.issuer, subject=p.owner.subject),
            derived_from=list(p.derived_from), created_at=p.created_at,
            content_digest=p.content_digest, policy_digest=p.policy_digest,
            scan=None if p.scan is None else ScanOut(
                label=p.scan.label, score=p.scan.score, reasons=list(p.scan.reasons),
                scanner=p.scan.scanner, version=p.scan.version,
                cap=p.scan.cap.label if p.scan.cap is not None else None,
                endorsed_by=p.scan.endorsed_by),
        )


def summary_line(p: Provenance) -> str:
    where = p.source.uri or p.source.name or "-"
    return f"[trust={p.trust.label} source={p.source.kind.value}:{where} fact={p.fact_id}]"


class WriteOut(_Out):
    """A written fact: its id and the provenance memguard stamped on it."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples(
            {"fact_id": _FACT, "summary": _SUMMARY, "provenance": _PROVENANCE}),
    )  # fmt: skip

    fact_id: str = Field(description="The fact id.")
    summary: str = Field(description="One line: trust, source and id.")
    provenance: ProvenanceOut = Field(description="The provenance record.")

    @classmethod
    def of(cls, p: Provenance) -> WriteOut:
        return cls(fact_id=p.fact_id, summary=summary_line(p), provenance=ProvenanceOut.of(p))


class BatchWriteOut(_Out):
    """The written facts, in request order."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples(
            {"facts": [{"fact_id": _FACT, "summary": _SUMMARY, "provenance": _PROVENANCE}]}),
    )  # fmt: skip

    facts: list[WriteOut] = Field(description="One entry per fact written.")


_FACT_OUT: dict[str, Any] = {
    "fact_id": _FACT, "text": "Lisbon in May: trams, pasteis de nata and the Alfama.",
    "metadata": {"lang": "en"}, "score": 0.83, "summary": _SUMMARY, "provenance": _PROVENANCE,
}  # fmt: skip


class FactOut(_Out):
    """A fact the caller may read, verified against the ledger, with its provenance."""

    model_config = ConfigDict(frozen=True, json_schema_extra=_examples(_FACT_OUT))

    fact_id: str = Field(description="The fact id.")
    text: str = Field(description="The text (untrusted facts are data, never instructions).")
    metadata: dict[str, Any] = Field(description="The metadata written with it.")
    score: float | None = Field(description="Similarity (search only).")
    summary: str = Field(description="One line: trust, source and id.")
    provenance: ProvenanceOut = Field(description="The provenance record.")

    @classmethod
    def of(cls, f: RecalledFact) -> FactOut:
        return cls(fact_id=f.fact_id, text=f.text, metadata=dict(f.metadata), score=f.score,
                   summary=summary_line(f.provenance), provenance=ProvenanceOut.of(f.provenance))


class SearchOut(_Out):
    """The best matches inside the caller's scope, best first."""

    model_config = ConfigDict(frozen=True, json_schema_extra=_examples({"facts": [_FACT_OUT]}))

    facts: list[FactOut] = Field(description="At most `k` facts.")
    receipt: str | None = Field(
        None, description="With `receipt: true`: a signed read receipt (`read-receipt+jwt`), "
        "verifiable offline with `memguard receipt verify`.")


class AuditOut(_Out):
    """``memguard.audit/v1`` (docs/audit-json.md): provenance, versions, reads, verification."""

    model_config = ConfigDict(
        frozen=True, extra="allow",
        json_schema_extra=_examples({
            "schema": "memguard.audit/v1", "fact_id": _FACT, "state": "committed", "version": 1,
            "provenance": _PROVENANCE,
            "versions": [{"version": 1, "state": "committed", "record_digest": _DIGEST}],
            "reads": [{"seq": 12, "ts": "2026-05-02T09:15:02Z", "action": "search",
                       "decision": "allow", "subject": "alice",
                       "actors": ["spiffe://example.org/agent/planner"], "purpose": "answer"}],
            "events": [],
            "verification": {"ledger_record_digest": "ok", "store_payload": "ok",
                             "event_digests": "ok", "event_inclusion": "ok",
                             "checkpoint": "ok", "verified": True},
        }),
    )  # fmt: skip

    schema_: str = Field(alias="schema", description="`memguard.audit/v1`.")
    fact_id: str = Field(description="The fact id.")
    state: str = Field(description="committed, deleted, ...")
    version: int = Field(description="The current version.")
    provenance: dict[str, Any] = Field(description="The provenance record.")
    versions: list[dict[str, Any]] = Field(description="Every version with its record digest.")
    reads: list[dict[str, Any]] = Field(description="Who read it, when, why, and the decision.")
    events: list[dict[str, Any]] = Field(
        description="Every audit event that names it, with its inclusion in the audit log."
    )
    verification: dict[str, Any] = Field(
        description="Record digest, store copy, event digests, inclusion proofs, checkpoint."
    )


class FactListOut(_Out):
    """One page of ``GET /v1/facts``; ``next_cursor`` is ``null`` on the last page."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({"facts": [_FACT_OUT], "next_cursor": _FACT}),
    )

    facts: list[FactOut] = Field(description="The page.")
    next_cursor: str | None = Field(description="The `cursor` of the next page; `null` at the end.")


class SelectorOut(_Out):
    """What a revocation selected."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({"kind": "domain", "value": "lisbon-travel-tips.example",
                                     "turn_index": None, "issuer": None}),
    )  # fmt: skip

    kind: str = Field(description="The selector kind.")
    value: str = Field(description="What it names.")
    turn_index: int | None = Field(None, description="The turn (`turn` selectors).")
    issuer: str | None = Field(None, description="The issuer (`subject` selectors).")

    @classmethod
    def of(cls, s: RevocationSelector) -> SelectorOut:
        return cls(kind=s.kind, value=s.value, turn_index=s.turn_index, issuer=s.issuer)


class RevocationOut(_Out):
    """What a revocation did. ``roots``: the facts the selector matched inside the caller's
    ``revoke`` scope; ``quarantined``: the quarantined facts (roots first) inside that scope;
    ``count``: every fact quarantined, descendants outside the caller's scope included
    (containment does not stop at the revoker's scope, their ids are not shown)."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({
            "revocation_id": "0c4f1d7e-5b2a-4e8c-9d3f-7a6b5c4d3e2f",
            "selector": {"kind": "domain", "value": "lisbon-travel-tips.example",
                         "turn_index": None, "issuer": None},
            "roots": [_FACT], "quarantined": [_FACT, _PARENT], "count": 2, "store_synced": True,
        }),
    )  # fmt: skip

    revocation_id: str = Field(description="The revocation's id (in the audit log).")
    selector: SelectorOut = Field(description="What was revoked.")
    roots: list[str] = Field(description="The matched facts inside the caller's revoke scope.")
    quarantined: list[str] = Field(description="The quarantined facts inside that scope.")
    count: int = Field(description="Every fact quarantined, other owners' included.")
    store_synced: bool = Field(description="The store's copies are marked (else recovery does it).")

    @classmethod
    def of(cls, r: RevocationReport, visible: list[str]) -> RevocationOut:
        return cls(revocation_id=r.revocation_id, selector=SelectorOut.of(r.selector),
                   roots=list(r.roots), quarantined=visible, count=r.count,
                   store_synced=r.store_synced)


class EndorseOut(_Out):
    """``lifted``: the fact was quarantined and no longer is (``false``: it was not quarantined)."""

    model_config = ConfigDict(
        frozen=True, json_schema_extra=_examples({"fact_id": _FACT, "lifted": True})
    )

    fact_id: str = Field(description="The fact.")
    lifted: bool = Field(description="Its quarantine was lifted.")


# -- health and metadata ------------------------------------------------------------------------------


class HealthOut(_Out):
    """The process is serving requests."""

    model_config = ConfigDict(frozen=True, json_schema_extra=_examples({"status": "ok"}))

    status: Literal["ok"] = Field(description="Always `ok`.")


class ReadyOut(_Out):
    """Whether the gateway can serve: each dependency checked for real."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({"status": "ready", "checks": {
            "policy": "ok", "keys": "ok", "ledger": "ok", "store": "ok"}}),
    )  # fmt: skip

    status: Literal["ready", "not_ready"] = Field(description="`ready` when every check is ok.")
    checks: dict[str, str] = Field(description="Each check and its result (`ok` or a reason).")


class ProtectedResourceOut(_Out):
    """OAuth 2.0 Protected Resource Metadata (RFC 9728) of this gateway."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({
            "resource": "https://gateway.example", "authorization_servers":
            ["https://gateway.example"], "bearer_methods_supported": ["header"],
            "scopes_supported": ["memory:endorse", "memory:read", "memory:revoke", "memory:write"],
            "resource_name": "memguard gateway",
        }),
    )  # fmt: skip

    resource: str = Field(description="This resource's identifier (the token audience).")
    authorization_servers: list[str] = Field(description="Issuers whose tokens are accepted.")
    bearer_methods_supported: list[str] = Field(description="`header` only (RFC 6750 2.1).")
    scopes_supported: list[str] = Field(description="The scopes operations need.")
    resource_name: str = Field(description="A human-readable name.")


# -- the token service (RFC 8693, RFC 7517, RFC 8414) ----------------------------------------------------

_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
_ACCESS = "urn:ietf:params:oauth:token-type:access_token"
_JWT = "urn:ietf:params:oauth:token-type:jwt"


class TokenExchangeForm(_In):
    """An RFC 8693 token exchange request (``application/x-www-form-urlencoded``) with
    ``private_key_jwt`` client authentication (RFC 7523)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid",
        json_schema_extra=_examples({
            "grant_type": _EXCHANGE, "subject_token": "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9...",
            "subject_token_type": _ACCESS, "audience": "https://gateway.example",
            "scope": "memory:read memory:write",
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": "eyJhbGciOiJFUzI1NiJ9...",
            "client_id": "spiffe://example.org/agent/planner",
        }),
    )  # fmt: skip

    grant_type: Literal["urn:ietf:params:oauth:grant-type:token-exchange"] = Field(
        description="The token-exchange grant."
    )
    subject_token: str = Field(description="The token of the user or the previous hop.")
    subject_token_type: Literal[
        "urn:ietf:params:oauth:token-type:access_token", "urn:ietf:params:oauth:token-type:jwt"
    ] = Field(description="Its type.")
    actor_token: str | None = Field(
        None, description="The next agent's workload credential: it becomes the current actor."
    )
    actor_token_type: Literal["urn:ietf:params:oauth:token-type:jwt"] | None = Field(
        None, description="Required with `actor_token`."
    )
    audience: str | None = Field(None, description="The one resource the token is for.")
    resource: str | None = Field(None, description="Or the resource as a URI (one of the two).")
    scope: str = Field(description="Space-separated scopes; a subset of what every input allows.")
    requested_token_type: str | None = Field(None, description="Only access tokens are issued.")
    client_id: str | None = Field(None, description="The client (with `private_key_jwt`).")
    client_assertion_type: Literal["urn:ietf:params:oauth:client-assertion-type:jwt-bearer"] = (
        Field(description="RFC 7523 client authentication.")
    )
    client_assertion: str = Field(description="The client's signed assertion (single use).")


class TokenResponseOut(_Out):
    """The issued token (RFC 8693 2.2.1); the response has ``Cache-Control: no-store``."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({
            "access_token": "eyJhbGciOiJFZERTQSIsInR5cCI6ImF0K2p3dCJ9...",
            "issued_token_type": _ACCESS, "token_type": "Bearer", "expires_in": 600,
            "scope": "memory:read memory:write",
        }),
    )  # fmt: skip

    access_token: str = Field(description="An `at+jwt` whose `act` claim names the delegates.")
    issued_token_type: str = Field(description="`urn:ietf:params:oauth:token-type:access_token`.")
    token_type: Literal["Bearer"] = Field(description="Use it as a bearer token.")
    expires_in: int = Field(description="Seconds until it expires (never after its inputs).")
    scope: str = Field(description="The scopes granted (exactly those asked for).")


class OAuthErrorOut(_Out):
    """A refused token request (RFC 6749 5.2, RFC 8693 2.2.2)."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({"error": "invalid_scope",
                                     "error_description": "the requested scope is invalid"}),
    )  # fmt: skip

    error: Literal[
        "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client",
        "unsupported_grant_type", "invalid_scope", "invalid_target", "server_error",
    ] = Field(description="The error code.")  # fmt: skip
    error_description: str = Field(description="A short, generic description.")


_JWK = {"kty": "OKP", "crv": "Ed25519", "x": "gYvDWPFwsqG8Du6GaaKGDkq-viBf2QMnDkgTBGifCXU",
        "kid": "QlDNZbtQaEC7NkTk-_-znEDOD1vNHRB4Ok_aGsFo6y4", "alg": "EdDSA", "use": "sig"}  # fmt: skip


class JwkOut(_Out):
    """A public key (RFC 7517)."""

    model_config = ConfigDict(frozen=True, extra="allow", json_schema_extra=_examples(_JWK))

    kty: str = Field(description="Key type (`OKP`, `EC`).")
    kid: str = Field(description="Key id (the `kid` header of the tokens it verifies).")
    alg: str = Field(description="The one algorithm it is used with.")
    use: str = Field(description="`sig`.")
    crv: str | None = Field(None, description="The curve.")
    x: str | None = Field(None, description="Public key material (base64url).")
    y: str | None = Field(None, description="Public key material, EC keys (base64url).")


class JwksOut(_Out):
    """A JSON Web Key Set (RFC 7517 5)."""

    model_config = ConfigDict(frozen=True, json_schema_extra=_examples({"keys": [_JWK]}))

    keys: list[JwkOut] = Field(description="The current keys.")


class AuthServerMetadataOut(_Out):
    """Authorization server metadata (RFC 8414) of the gateway's token service."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({
            "issuer": "https://gateway.example",
            "token_endpoint": "https://gateway.example/token",
            "jwks_uri": "https://gateway.example/.well-known/jwks.json",
            "grant_types_supported": [_EXCHANGE],
            "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": ["ES256", "EdDSA"],
        }),
    )  # fmt: skip

    issuer: str = Field(description="The issuer of the tokens.")
    token_endpoint: str = Field(description="Where to exchange tokens.")
    jwks_uri: str = Field(description="Where its public keys are.")
    grant_types_supported: list[str] = Field(description="Token exchange only.")
    token_endpoint_auth_methods_supported: list[str] = Field(description="`private_key_jwt`.")
    token_endpoint_auth_signing_alg_values_supported: list[str] = Field(
        description="Client assertion algorithms."
    )
