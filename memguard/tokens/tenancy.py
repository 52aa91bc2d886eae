"""Which issuers share one tenant space: none, unless configuration says so.

A principal is ``(issuer, subject)``; the same ``sub`` at two issuers is two principals. Some
deployments do have one user population behind several issuer identifiers (a regional login
endpoint, an issuer URL that changed). The ``tenancy`` section maps such aliases to the one issuer
their principals are recorded under::

    tenancy:
      - issuer: https://login.example.com              # principals are recorded as (this, sub)
        aliases: [https://login-eu.example.com]        # tokens of these name the same users

An issuer may appear once in the whole section (as an ``issuer`` or as an alias), and every name
must be an issuer the configuration trusts (directly or through an attesting issuer); anything
else is refused when the configuration loads, so there is never a question which tenant a token
belongs to.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from memguard.errors import ConfigurationError
from memguard.identity import PrincipalId

__all__ = ["TenancyMap"]


class TenancyMap:
    """``alias -> tenant issuer``; issuers not named map to themselves."""

    def __init__(self, groups: Mapping[str, Iterable[str]], *, known: Iterable[str] | None = None):
        self._canonical: dict[str, str] = {}
        seen: set[str] = set()
        known_set = None if known is None else frozenset(known)
        for issuer, aliases in groups.items():
            names = [issuer, *aliases]
            for name in names:
                if name in seen:
                    raise ConfigurationError(
                        f"tenancy: issuer `{name}` appears more than once; each issuer belongs to "
                        "exactly one tenant space"
                    )
                seen.add(name)
                if known_set is not None and name not in known_set:
                    raise ConfigurationError(f"tenancy: `{name}` is not a trusted issuer")
            for alias in aliases:
                self._canonical[alias] = issuer

    def canonical(self, issuer: str) -> str:
        return self._canonical.get(issuer, issuer)

    def principal(self, subject: PrincipalId) -> PrincipalId:
        """``subject`` under its tenant issuer (itself when its issuer is no alias)."""
        issuer = self.canonical(subject.issuer)
        return (
            subject
            if issuer == subject.issuer
            else PrincipalId(issuer=issuer, subject=subject.subject)
        )

    @property
    def aliases(self) -> Mapping[str, str]:
        return dict(self._canonical)
