"""The lowest channel in a fact's lineage (``lineage_trust``): a provenance field policies can read.

A fact's ``trust`` says what it may be used for now; its ``lineage_trust`` says which channels its
content passed through: the lowest *channel class* of its own source and, transitively, of every
input it was derived from and every fact its turn had read when it was written. Channel classes
are fixed (a deployment's :class:`~memguard.trust.TrustPolicy` may raise the trust a channel
*grants*, not what the channel *is*)::

    system          system            user_message    user
    agent_inference derived           subagent_report derived
    document        tool              tool_output     tool
    web             untrusted

So ``lineage_trust >= user`` means: no tool output, web page, document, sub-agent report or model
inference anywhere upstream. The reference policies (``policies/purpose.yaml``) require it, with
``trust >= user``, for every purpose that feeds actions (``tool_argument``, ``planning``).

Endorsement (``endorse``) lifts a quarantine; it changes neither ``trust`` nor ``lineage_trust``.
Content that came in through a tool does not become the user's word by being un-quarantined: to
let it feed an action, the user states it (a ``user_message`` written in a turn that read nothing
below ``user``). Records written before this field existed carry none: their index has no
``lineage_trust``, so a policy that reads it treats them as missing (a forbid on it denies).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from memguard.provenance import Provenance
from memguard.trust import SourceKind, TrustLevel

__all__ = ["CHANNEL_CLASS", "channel_class", "lineage_trust_of", "lowest"]

CHANNEL_CLASS: Final[Mapping[SourceKind, TrustLevel]] = {
    SourceKind.SYSTEM: TrustLevel.SYSTEM,
    SourceKind.USER_MESSAGE: TrustLevel.USER,
    SourceKind.AGENT_INFERENCE: TrustLevel.DERIVED,
    SourceKind.SUBAGENT_REPORT: TrustLevel.DERIVED,
    SourceKind.DOCUMENT: TrustLevel.TOOL,
    SourceKind.TOOL_OUTPUT: TrustLevel.TOOL,
    SourceKind.WEB: TrustLevel.UNTRUSTED,
    SourceKind.LEGACY: TrustLevel.UNTRUSTED,
}


def channel_class(kind: SourceKind) -> TrustLevel:
    """What a channel is worth as a lineage, independent of deployment trust settings."""
    return CHANNEL_CLASS[kind]


def lineage_trust_of(prov: Provenance) -> TrustLevel:
    """A record's lineage trust; for a record written before the field existed, the lower of its
    channel class and its trust (its inputs capped its trust, so that bounds them)."""
    if prov.lineage_trust is not None:
        return prov.lineage_trust
    return min(channel_class(prov.source.kind), prov.trust)


def lowest(own: SourceKind, upstream: Iterable[TrustLevel]) -> TrustLevel:
    """The lineage trust of a new fact from its own channel and its inputs' lineage trust."""
    return min((channel_class(own), *upstream))
