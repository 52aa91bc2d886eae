"""Facts: write, batch write, update, search, audit and list bodies, and the provenance shape."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import ConfigDict, Field, StrictInt, model_validator

from memguard.expiry import MAX_TTL_SECONDS
from memguard.guard import RecalledFact
from memguard.provenance import Provenance, Source, Turn
from memguard.trust import SourceKind, TrustLevel

from .common import (
    _DIGEST,
    _FACT,
    _PLAIN,
    _PROVENANCE,
    _SOURCE,
    _SUMMARY,
    _TURN,
    FactId,
    Namespace,
    TrustName,
    _examples,
    _In,
    _Out,
)


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
        return Turn(
            session_id=self.session_id,
            turn_index=self.turn_index,
            trace_id=self.trace_id,
            span_id=self.span_id,
        )


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
    ttl_seconds: Annotated[StrictInt, Field(ge=1, le=MAX_TTL_SECONDS)] | None = Field(
        None,
        description="A time-to-live in seconds: once it has passed the fact is never served "
        "and is swept. In a batch, every fact must give the same value.",
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

    @model_validator(mode="after")
    def _one_ttl(self) -> BatchWriteIn:
        if len({f.ttl_seconds for f in self.facts}) > 1:
            raise ValueError("every fact of a batch must give the same ttl_seconds")
        return self


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
    ttl_seconds: Annotated[StrictInt, Field(ge=1, le=MAX_TTL_SECONDS)] | None = Field(
        None,
        description="The new version's time-to-live in seconds; without it, a version "
        "that had one keeps it (counted from the update).",
    )

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
        "answer",
        description="Why the agent reads (`answer`, `planning`, `tool_argument`, ...); "
        "policies can decide by purpose.",
    )
    trace_id: Annotated[str, Field(max_length=128, pattern=_PLAIN)] | None = Field(
        None, description="The trace this read belongs to (recorded with the read)."
    )
    #: The agent turn this search belongs to: what it returns taints that turn's later writes.
    turn: TurnIn | None = Field(
        None,
        description="The agent turn this search belongs to: what it returns taints the "
        "writes made later in that turn.",
    )
    receipt: bool = Field(
        False,
        description="Return a signed read receipt (`receipt`): the facts returned, their "
        "provenance digests and the read's audit-log entry (docs/standards.md).",
    )


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
    txn_context: dict[str, Any] | None = Field(
        default=None,
        description="That Transaction Token's `tctx` / `rctx` (canonical, at most "
        "2 KiB), if it had any.",
    )
    txn: str | None = Field(
        default=None,
        description="The Transaction Token `txn` of the call "
        "chain the token was exchanged under, if any.",
    )


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

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples(
            {
                "label": "suspicious",
                "score": 0.6,
                "reasons": ["exfil.markdown_image"],
                "scanner": "memguard.rules",
                "version": "1",
                "cap": "untrusted",
                "endorsed_by": None,
            }
        ),
    )

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
    scan: ScanOut | None = Field(
        default=None, description="The write-time content scan, when the fact was scanned."
    )
    expires_at: datetime | None = Field(
        default=None, description="When it expires (a fact written with a time-to-live)."
    )

    @classmethod
    def of(cls, p: Provenance) -> ProvenanceOut:
        w = p.writer
        return cls(
            fact_id=p.fact_id,
            version=p.version,
            namespace=p.namespace,
            trust=p.trust.label,  # a TrustLevel label is a TrustName
            trust_reason=p.trust_reason,
            source=SourceOut(kind=p.source.kind.value, uri=p.source.uri, name=p.source.name),
            turn=TurnOut(
                session_id=p.turn.session_id,
                turn_index=p.turn.turn_index,
                trace_id=p.turn.trace_id,
                span_id=p.turn.span_id,
            ),
            writer=WriterOut(
                subject=PrincipalOut(issuer=w.subject.issuer, subject=w.subject.subject),
                actors=[PrincipalOut(issuer=a.issuer, subject=a.subject) for a in w.actors],
                chain=[w.subject.subject, *(a.subject for a in w.actors)],
                workload_id=w.workload_id,
                client_id=w.client_id,
                token_jti=w.token_jti,
                txn=w.txn,
                txn_context=w.txn_context,
            ),
            owner=PrincipalOut(issuer=p.owner.issuer, subject=p.owner.subject),
            derived_from=list(p.derived_from),
            created_at=p.created_at,
            content_digest=p.content_digest,
            policy_digest=p.policy_digest,
            scan=None
            if p.scan is None
            else ScanOut(
                label=p.scan.label,
                score=p.scan.score,
                reasons=list(p.scan.reasons),
                scanner=p.scan.scanner,
                version=p.scan.version,
                cap=p.scan.cap.label if p.scan.cap is not None else None,
                endorsed_by=p.scan.endorsed_by,
            ),
            expires_at=p.expires_at,
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
        return cls(
            fact_id=f.fact_id,
            text=f.text,
            metadata=dict(f.metadata),
            score=f.score,
            summary=summary_line(f.provenance),
            provenance=ProvenanceOut.of(f.provenance),
        )


class SearchOut(_Out):
    """The best matches inside the caller's scope, best first."""

    model_config = ConfigDict(frozen=True, json_schema_extra=_examples({"facts": [_FACT_OUT]}))

    facts: list[FactOut] = Field(description="At most `k` facts.")
    receipt: str | None = Field(
        None,
        description="With `receipt: true`: a signed read receipt (`read-receipt+jwt`), "
        "verifiable offline with `memguard receipt verify`.",
    )


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
