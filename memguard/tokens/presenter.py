"""Presenter binding, in one place: who may use a delegated token.

A token whose ``act`` chain names a current actor is usable only by that actor. The resource
checks it against the workload credential presented with the token (:class:`IdentityVerifier`),
the token service against the authenticated client that asks to re-delegate the token
(:class:`SecurityTokenService`); both call :func:`check_presenter`.

- a bare user token presented by a workload is impersonation (``identity.impersonation``): a
  workload acts for a user only through a token that names it;
- the current actor (the outermost ``act``, RFC 8693 4.1) must be the presenting workload, under
  the workload's trust domain or the token issuer's own name for it
  (``identity.presenter_mismatch``): a sub-agent holding its parent's token is refused, and so is a
  parent presenting its sub-agent's token.
"""

from __future__ import annotations

from memguard.errors import IdentityError
from memguard.identity import Principal

__all__ = ["check_presenter"]


def check_presenter(
    principal: Principal, workload_id: str, *, token_issuer: str, trust_domain_id: str
) -> None:
    """Raise unless ``workload_id`` is the current actor of ``principal``'s chain."""
    if not principal.actors:
        raise IdentityError("workload presented a user token", code="identity.impersonation")
    current = principal.actors[-1]
    if current.subject != workload_id or current.issuer not in (trust_domain_id, token_issuer):
        raise IdentityError(
            "presenter is not the current actor", code="identity.presenter_mismatch"
        )
