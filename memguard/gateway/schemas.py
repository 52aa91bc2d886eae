"""The HTTP API's request and response bodies (the OpenAPI document is generated from these)."""

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
    "BatchWriteIn",
    "BatchWriteOut",
    "EndorseIn",
    "EndorseOut",
    "FactListOut",
    "FactOut",
    "ProvenanceOut",
    "RevocationOut",
    "RevokeIn",
    "SearchIn",
    "SearchOut",
    "SelectorIn",
    "SelectorOut",
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


class _In(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SourceIn(_In):
    kind: SourceKind
    uri: Annotated[str, Field(max_length=4096, pattern=_PLAIN)] | None = None
    name: Annotated[str, Field(max_length=512, pattern=_PLAIN)] | None = None

    def to_source(self) -> Source:
        return Source(kind=self.kind, uri=self.uri, name=self.name)


class TurnIn(_In):
    session_id: Annotated[str, Field(min_length=1, max_length=256, pattern=_PLAIN)]
    turn_index: Annotated[int, Field(ge=0, le=2**31 - 1)]
    trace_id: Annotated[str, Field(max_length=128, pattern=_PLAIN)] | None = None
    span_id: Annotated[str, Field(max_length=128, pattern=_PLAIN)] | None = None

    def to_turn(self) -> Turn:
        return Turn(session_id=self.session_id, turn_index=self.turn_index,
                    trace_id=self.trace_id, span_id=self.span_id)


class WriteIn(_In):
    """One fact. ``trust`` may only lower what the channel gives; memguard assigns the rest."""

    text: Annotated[str, Field(min_length=1, max_length=256 * 1024)]
    namespace: Annotated[str, Field(min_length=1, max_length=256, pattern=_PLAIN)]
    source: SourceIn
    turn: TurnIn
    metadata: dict[str, Any] = Field(default_factory=dict)
    trust: TrustName | None = None
    derived_from: Annotated[list[FactId], Field(max_length=64)] = Field(default_factory=list)

    def trust_level(self) -> TrustLevel | None:
        return TrustLevel.parse(self.trust) if self.trust is not None else None


class BatchWriteIn(_In):
    facts: Annotated[list[WriteIn], Field(min_length=1, max_length=256)]


class UpdateIn(_In):
    text: Annotated[str, Field(min_length=1, max_length=256 * 1024)]
    source: SourceIn
    turn: TurnIn
    metadata: dict[str, Any] = Field(default_factory=dict)
    trust: TrustName | None = None

    def trust_level(self) -> TrustLevel | None:
        return TrustLevel.parse(self.trust) if self.trust is not None else None


class SearchIn(_In):
    query: Annotated[str, Field(min_length=1, max_length=8192)]
    k: Annotated[int, Field(ge=1, le=100)] = 10
    namespaces: Annotated[list[Namespace], Field(min_length=1, max_length=32)] | None = None
    min_trust: TrustName | None = None
    purpose: Annotated[str, Field(pattern=r"^[a-z_]{1,32}$")] = "answer"
    trace_id: Annotated[str, Field(max_length=128, pattern=_PLAIN)] | None = None
    #: The agent turn this search belongs to: what it returns taints that turn's later writes.
    turn: TurnIn | None = None


# -- lineage: revocation and endorsement -------------------------------------------------------------

_SelectorValue = Annotated[str, Field(min_length=1, max_length=4096, pattern=_PLAIN)]


class _SelectorBase(_In):
    def to_selector(self) -> RevocationSelector:
        return RevocationSelector.model_validate(self.model_dump(exclude_none=True))


class ValueSelectorIn(_SelectorBase):
    """``source`` (an exact URI), ``source_pattern`` (a shell glob over URIs), ``session`` (a
    session id), ``workload`` (a workload id in the writer's chain), ``jti`` (a token id)."""

    kind: Literal["source", "source_pattern", "session", "workload", "jti"]
    value: _SelectorValue


class DomainSelectorIn(_SelectorBase):
    """``domain``: URIs on this host or any subdomain of it."""

    kind: Literal["domain"]
    value: Annotated[str, Field(min_length=1, max_length=253, pattern=_HOST)]

    def to_selector(self) -> RevocationSelector:
        return RevocationSelector.domain(self.value)


class TurnSelectorIn(_SelectorBase):
    """``turn``: one turn (``turn_index``) of session ``value``."""

    kind: Literal["turn"]
    value: Annotated[str, Field(min_length=1, max_length=256, pattern=_PLAIN)]
    turn_index: Annotated[int, Field(ge=0, le=2**31 - 1)]


class SubjectSelectorIn(_SelectorBase):
    """``subject``: every fact of user ``value`` at ``issuer``."""

    kind: Literal["subject"]
    value: _SelectorValue
    issuer: Annotated[str, Field(min_length=1, max_length=1024, pattern=_PLAIN)]


class FactSelectorIn(_SelectorBase):
    """``fact``: one fact (and its descendants)."""

    kind: Literal["fact"]
    value: FactId


SelectorIn = Annotated[
    ValueSelectorIn | DomainSelectorIn | TurnSelectorIn | SubjectSelectorIn | FactSelectorIn,
    Field(discriminator="kind"),
]


class RevokeIn(_In):
    """What to revoke, and why. The selector's shape depends on its ``kind`` (docs/lineage.md)."""

    selector: SelectorIn
    reason: Annotated[str, Field(min_length=1, max_length=2000, pattern=_PLAIN)]
    #: ``false``: follow only ``derived_from`` edges, not the taint of a turn's reads.
    follow_context: bool = True


class EndorseIn(_In):
    reason: Annotated[str, Field(min_length=1, max_length=2000, pattern=_PLAIN)]


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class PrincipalOut(_Out):
    issuer: str
    subject: str


class WriterOut(_Out):
    """Who wrote the fact: the user, then each agent in delegation order."""

    subject: PrincipalOut
    actors: list[PrincipalOut]
    chain: list[str]
    workload_id: str | None
    client_id: str | None
    token_jti: str


class SourceOut(_Out):
    kind: str
    uri: str | None
    name: str | None


class TurnOut(_Out):
    session_id: str
    turn_index: int
    trace_id: str | None
    span_id: str | None


class ProvenanceOut(_Out):
    """A fact's provenance: where it came from, who wrote it for whom, how much it is trusted."""

    fact_id: str
    version: int
    namespace: str
    trust: TrustName
    trust_reason: str
    source: SourceOut
    turn: TurnOut
    writer: WriterOut
    owner: PrincipalOut
    derived_from: list[str]
    created_at: datetime
    content_digest: str
    policy_digest: str

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
            ),
            owner=PrincipalOut(issuer=p.owner.issuer, subject=p.owner.subject),
            derived_from=list(p.derived_from), created_at=p.created_at,
            content_digest=p.content_digest, policy_digest=p.policy_digest,
        )


def summary_line(p: Provenance) -> str:
    where = p.source.uri or p.source.name or "-"
    return f"[trust={p.trust.label} source={p.source.kind.value}:{where} fact={p.fact_id}]"


class WriteOut(_Out):
    fact_id: str
    summary: str
    provenance: ProvenanceOut

    @classmethod
    def of(cls, p: Provenance) -> WriteOut:
        return cls(fact_id=p.fact_id, summary=summary_line(p), provenance=ProvenanceOut.of(p))


class BatchWriteOut(_Out):
    facts: list[WriteOut]


class FactOut(_Out):
    fact_id: str
    text: str
    metadata: dict[str, Any]
    score: float | None
    summary: str
    provenance: ProvenanceOut

    @classmethod
    def of(cls, f: RecalledFact) -> FactOut:
        return cls(fact_id=f.fact_id, text=f.text, metadata=dict(f.metadata), score=f.score,
                   summary=summary_line(f.provenance), provenance=ProvenanceOut.of(f.provenance))


class SearchOut(_Out):
    facts: list[FactOut]


class AuditOut(_Out):
    """``memguard.audit/v1`` (docs/audit-json.md): provenance, versions, reads, verification."""

    model_config = ConfigDict(frozen=True, extra="allow")

    schema_: str = Field(alias="schema")
    fact_id: str
    state: str
    version: int
    provenance: dict[str, Any]
    versions: list[dict[str, Any]]
    reads: list[dict[str, Any]]
    events: list[dict[str, Any]]
    verification: dict[str, Any]


class FactListOut(_Out):
    """One page of ``GET /v1/facts``; ``next_cursor`` is ``null`` on the last page."""

    facts: list[FactOut]
    next_cursor: str | None


class SelectorOut(_Out):
    kind: str
    value: str
    turn_index: int | None = None
    issuer: str | None = None

    @classmethod
    def of(cls, s: RevocationSelector) -> SelectorOut:
        return cls(kind=s.kind, value=s.value, turn_index=s.turn_index, issuer=s.issuer)


class RevocationOut(_Out):
    """What a revocation did. ``roots``: the facts the selector matched inside the caller's
    ``revoke`` scope; ``quarantined``: the quarantined facts (roots first) inside that scope;
    ``count``: every fact quarantined, descendants outside the caller's scope included
    (containment does not stop at the revoker's scope, their ids are not shown)."""

    revocation_id: str
    selector: SelectorOut
    roots: list[str]
    quarantined: list[str]
    count: int
    store_synced: bool

    @classmethod
    def of(cls, r: RevocationReport, visible: list[str]) -> RevocationOut:
        return cls(revocation_id=r.revocation_id, selector=SelectorOut.of(r.selector),
                   roots=list(r.roots), quarantined=visible, count=r.count,
                   store_synced=r.store_synced)


class EndorseOut(_Out):
    """``lifted``: the fact was quarantined and no longer is (``false``: it was not quarantined)."""

    fact_id: str
    lifted: bool
