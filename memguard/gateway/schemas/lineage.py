"""Lineage: revocation (selectors) and endorsement bodies."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from memguard.revocation import RevocationReport, RevocationSelector

from .common import (
    _FACT,
    _HOST,
    _PARENT,
    _PLAIN,
    FactId,
    _examples,
    _In,
    _Out,
)

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
        True,
        description="`false`: quarantine along `derived_from` edges only, not along the "
        "taint of what a turn had read.",
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
        return cls(
            revocation_id=r.revocation_id,
            selector=SelectorOut.of(r.selector),
            roots=list(r.roots),
            quarantined=visible,
            count=r.count,
            store_synced=r.store_synced,
        )


class EndorseOut(_Out):
    """``lifted``: the fact was quarantined and no longer is (``false``: it was not quarantined)."""

    model_config = ConfigDict(
        frozen=True, json_schema_extra=_examples({"fact_id": _FACT, "lifted": True})
    )

    fact_id: str = Field(description="The fact.")
    lifted: bool = Field(description="Its quarantine was lifted.")
