"""Trust levels, source kinds, and trust assignment from the channel (never from the caller).

Levels, high to low: ``system > verified > user > derived > tool > untrusted > quarantined``.
The level a fact gets is ``min(default for its source kind, the writer's ceiling)``; a caller may
ask for a lower level, never a higher one (that raises :class:`~memguard.errors.TrustEscalation`).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from memguard.errors import AccessDenied, ConfigurationError, TrustEscalation

__all__ = ["DEFAULT_SOURCE_TRUST", "SourceKind", "TrustLevel", "TrustPolicy"]


class TrustLevel(enum.IntEnum):
    """Ordered trust; a larger value is more trusted. Stored as its name, compared as its value."""

    QUARANTINED = 0
    UNTRUSTED = 1
    TOOL = 2
    DERIVED = 3
    USER = 4
    VERIFIED = 5
    SYSTEM = 6

    @classmethod
    def parse(cls, value: str | int | TrustLevel) -> TrustLevel:
        """Accept a level, its lowercase name or its integer value; anything else is an error."""
        if isinstance(value, TrustLevel):
            return value
        if isinstance(value, bool):
            raise ValueError(f"unknown trust level `{value!r}`")
        if isinstance(value, int):
            return cls(value)
        if isinstance(value, str) and value == value.lower():
            try:
                return cls[value.upper()]
            except KeyError:
                pass
        raise ValueError(f"unknown trust level `{value!r}`")

    @property
    def label(self) -> str:
        return self.name.lower()


class SourceKind(enum.StrEnum):
    """The channel a fact came through."""

    SYSTEM = "system"
    USER_MESSAGE = "user_message"
    DOCUMENT = "document"
    TOOL_OUTPUT = "tool_output"
    WEB = "web"
    AGENT_INFERENCE = "agent_inference"
    SUBAGENT_REPORT = "subagent_report"
    #: data that existed before memguard and was adopted by the operator (``memguard adopt``)
    LEGACY = "legacy"


DEFAULT_SOURCE_TRUST: Mapping[SourceKind, TrustLevel] = {
    SourceKind.SYSTEM: TrustLevel.SYSTEM,
    SourceKind.USER_MESSAGE: TrustLevel.USER,
    # A document is content the user pointed at, not words the user said: it can carry injections.
    SourceKind.DOCUMENT: TrustLevel.TOOL,
    SourceKind.TOOL_OUTPUT: TrustLevel.TOOL,
    SourceKind.WEB: TrustLevel.UNTRUSTED,
    # Model output never exceeds `derived` (DESIGN.md: an LLM-derived fact never exceeds derived).
    SourceKind.AGENT_INFERENCE: TrustLevel.DERIVED,
    SourceKind.SUBAGENT_REPORT: TrustLevel.DERIVED,
    # Adopted data has no verified channel: nobody knows who wrote it or what it read.
    SourceKind.LEGACY: TrustLevel.UNTRUSTED,
}


class TrustPolicy(BaseModel):
    """How trust is assigned: per-kind defaults and a ceiling by delegation depth.

    ``depth_ceilings[d]`` caps what a chain of ``d`` actors may write (0 = the user directly);
    depths beyond the list use the last entry. ``system`` facts need the ``system_scope`` scope.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    source_defaults: dict[SourceKind, TrustLevel] = Field(
        default_factory=lambda: dict(DEFAULT_SOURCE_TRUST)
    )
    depth_ceilings: tuple[TrustLevel, ...] = (
        TrustLevel.USER,  # the user writing directly
        TrustLevel.USER,  # an agent relaying its user's own words
        TrustLevel.DERIVED,  # sub-agents and deeper: never above derived
    )
    system_scope: str = "memguard:system"

    def model_post_init(self, __context: object) -> None:
        missing = set(SourceKind) - set(self.source_defaults)
        if missing:
            names = ", ".join(sorted(k.value for k in missing))
            raise ConfigurationError(f"trust policy has no default for source kinds `{names}`")
        if not self.depth_ceilings:
            raise ConfigurationError("trust policy needs at least one depth ceiling")

    def ceiling(self, depth: int, scopes: frozenset[str]) -> TrustLevel:
        """The highest level a writer at this chain depth with these scopes may write."""
        cap = self.depth_ceilings[min(depth, len(self.depth_ceilings) - 1)]
        if self.system_scope in scopes:
            cap = TrustLevel.SYSTEM
        return cap

    def assign(
        self,
        kind: SourceKind,
        *,
        depth: int,
        scopes: frozenset[str],
        requested: TrustLevel | None = None,
    ) -> TrustLevel:
        """Trust for a new fact. Raises instead of silently clamping a request to raise trust."""
        if kind is SourceKind.SYSTEM and self.system_scope not in scopes:
            raise AccessDenied(
                "source kind `system` needs a system credential",
                code="access_denied.source_kind",
            )
        if kind is SourceKind.LEGACY:  # the operator's `memguard adopt` stamps it (kernel)
            raise AccessDenied(
                "source kind `legacy` is stamped only by `memguard adopt`",
                code="access_denied.source_kind",
            )
        assigned = min(self.source_defaults[kind], self.ceiling(depth, scopes))
        if requested is None:
            return assigned
        if requested > assigned:
            raise TrustEscalation(
                f"requested trust `{requested.label}` is above `{assigned.label}` for this channel"
            )
        return requested
