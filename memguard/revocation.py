"""What a revocation selects: a source, a turn, a principal or a fact; and what it did.

A revocation quarantines every fact its selector matches (any stored version of it) and every
transitive descendant of those facts in the lineage graph. While it is active it also refuses new
writes that it would match (a revoked source, turn or principal cannot write again), and a revoked
principal cannot read either. Quarantined facts are never returned by any read path; ``audit`` still
shows them. Lifting a quarantine is an explicit, audited endorsement.

Selectors, by ``kind``:

- ``source``: ``value`` is an exact source URI;
- ``source_pattern``: ``value`` is a shell-style glob over the source URI (``https://evil.example/*``);
- ``domain``: ``value`` is a host; matches URIs on that host and its subdomains;
- ``session``: every turn of session ``value``; ``turn``: session ``value``, turn ``turn_index``;
- ``workload``: ``value`` is a workload id anywhere in the writer's actor chain;
- ``jti``: ``value`` is a token id (the credential the fact was written with);
- ``subject``: ``value`` is the subject of issuer ``issuer`` (the user the facts belong to);
- ``fact``: ``value`` is a fact id.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memguard.identity import Principal
from memguard.provenance import Provenance, canonical_json

__all__ = [
    "RevocationPreview",
    "RevocationReport",
    "RevocationSelector",
    "SelectorKind",
    "uri_host",
]

SelectorKind = Literal[
    "source", "source_pattern", "domain", "session", "turn", "workload", "jti", "subject", "fact"
]

#: Kinds that also bar the matching principal from acting at all while the revocation is active.
PRINCIPAL_KINDS: frozenset[str] = frozenset({"workload", "jti", "subject"})


def uri_host(uri: str | None) -> str | None:
    """The lowercase host of a URI, or ``None`` if it has none (a malformed URI has none)."""
    if not uri:
        return None
    try:
        host = urlsplit(uri).hostname
    except ValueError:
        return None
    return host.rstrip(".").lower() if host else None


class RevocationSelector(BaseModel):
    """What to revoke. Build one with the class methods (``RevocationSelector.domain("x.example")``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: SelectorKind
    value: str = Field(min_length=1, max_length=4096)
    turn_index: int | None = Field(default=None, ge=0)
    issuer: str | None = Field(default=None, max_length=1024)

    @model_validator(mode="after")
    def _shape(self) -> RevocationSelector:
        if (self.kind == "turn") != (self.turn_index is not None):
            raise ValueError("`turn_index` is required for a turn selector and only there")
        if (self.kind == "subject") != (self.issuer is not None):
            raise ValueError("`issuer` is required for a subject selector and only there")
        if self.kind == "domain" and (
            "/" in self.value or ":" in self.value or self.value.strip(".") == ""
        ):
            raise ValueError("a domain selector takes a host name, not a URI")
        return self

    # -- constructors ---------------------------------------------------------------------------

    @classmethod
    def source(cls, uri: str) -> RevocationSelector:
        return cls(kind="source", value=uri)

    @classmethod
    def source_pattern(cls, pattern: str) -> RevocationSelector:
        return cls(kind="source_pattern", value=pattern)

    @classmethod
    def domain(cls, host: str) -> RevocationSelector:
        return cls(kind="domain", value=host.rstrip(".").lower())

    @classmethod
    def session(cls, session_id: str) -> RevocationSelector:
        return cls(kind="session", value=session_id)

    @classmethod
    def turn(cls, session_id: str, turn_index: int) -> RevocationSelector:
        return cls(kind="turn", value=session_id, turn_index=turn_index)

    @classmethod
    def workload(cls, workload_id: str) -> RevocationSelector:
        return cls(kind="workload", value=workload_id)

    @classmethod
    def jti(cls, token_id: str) -> RevocationSelector:
        return cls(kind="jti", value=token_id)

    @classmethod
    def subject(cls, issuer: str, subject: str) -> RevocationSelector:
        return cls(kind="subject", value=subject, issuer=issuer)

    @classmethod
    def fact(cls, fact_id: str) -> RevocationSelector:
        return cls(kind="fact", value=fact_id)

    # -- matching -------------------------------------------------------------------------------

    def canonical(self) -> str:
        return canonical_json(self.model_dump(mode="json", exclude_none=True)).decode("utf-8")

    def describe(self) -> str:
        if self.kind == "turn":
            return f"turn {self.value}#{self.turn_index}"
        if self.kind == "subject":
            return f"subject {self.value} @ {self.issuer}"
        return f"{self.kind.replace('_', ' ')} {self.value}"

    def matches_uri(self, uri: str | None) -> bool:
        if uri is None:
            return False
        if self.kind == "source":
            return uri == self.value
        if self.kind == "source_pattern":
            return fnmatch.fnmatchcase(uri, self.value)
        if self.kind == "domain":
            host = uri_host(uri)
            return host is not None and (host == self.value or host.endswith("." + self.value))
        return False

    def matches(self, prov: Provenance) -> bool:
        """Does this selector select one version of a fact (by its provenance record)?"""
        kind = self.kind
        if kind in ("source", "source_pattern", "domain"):
            return self.matches_uri(prov.source.uri)
        if kind == "session":
            return prov.turn.session_id == self.value
        if kind == "turn":
            return prov.turn.session_id == self.value and prov.turn.turn_index == self.turn_index
        if kind == "workload":
            return prov.writer.workload_id == self.value or any(
                a.subject == self.value for a in prov.writer.actors
            )
        if kind == "jti":
            return prov.writer.token_jti == self.value
        if kind == "subject":
            return prov.owner.issuer == self.issuer and prov.owner.subject == self.value
        return prov.fact_id == self.value

    def bars(self, principal: Principal) -> bool:
        """Does this (principal) selector bar ``principal`` from acting?"""
        if self.kind == "workload":
            return any(a.subject == self.value for a in principal.actors)
        if self.kind == "jti":
            return principal.token_jti == self.value
        if self.kind == "subject":
            return (
                principal.subject.issuer == self.issuer and principal.subject.subject == self.value
            )
        return False


@dataclass(frozen=True, slots=True)
class RevocationReport:
    """What a revocation did. ``quarantined`` lists the facts it quarantined (roots first) that the
    revoker may see; ``hidden`` counts the others (another owner's descendants under sharing:
    containment does not stop at the revoker's scope, their ids are not shown)."""

    revocation_id: str
    selector: RevocationSelector
    roots: tuple[str, ...]
    quarantined: tuple[str, ...]
    store_synced: bool
    hidden: int = 0

    @property
    def count(self) -> int:
        """Every fact the revocation quarantined, shown or not."""
        return len(self.quarantined) + self.hidden


@dataclass(frozen=True, slots=True)
class RevocationPreview:
    """What a revocation would do (a dry run): ``affected`` lists every fact it would quarantine
    (roots first), ``already_quarantined`` those of them an earlier revocation already holds,
    ``reach`` the one owner whose calls it would bar (``None``: everyone)."""

    selector: RevocationSelector
    roots: tuple[str, ...]
    affected: tuple[str, ...]
    already_quarantined: frozenset[str]
    reach: tuple[str, str] | None
