"""RFC 9493 subject identifiers: ``sub_id`` in the ``iss_sub`` format keeps the original subject's
issuer in a token that another issuer (the token service) signed.

RFC 8693 2.2.1 leaves the issued token's ``iss`` to the authorization server that issued it, and
keeps ``sub`` as the subject's; with several trusted issuers, ``(sts, sub)`` would merge users of
different issuers that share a ``sub``. RFC 9493 3.2.4: "The Issuer and Subject Identifier Format
identifies a subject using a pair of 'iss' and 'sub' members ... Subject Identifiers in this format
MUST contain an 'iss' member and a 'sub' member, and MUST NOT contain any other members" (besides
``format``, 3: "Every Subject Identifier MUST contain a 'format' member"); RFC 9493 4.1 registers
``sub_id`` as the JWT claim that carries one. memguard's token service adds
``sub_id: {"format": "iss_sub", "iss": <subject's issuer>, "sub": <sub>}`` to every exchanged
token, and the verifier maps it back to the principal ``(sub_id.iss, sub)`` only when

- the token's issuer is configured to attest subjects of that issuer (``attests``; every issuer
  attests its own subjects), so an issuer cannot claim another issuer's users unless trusted to;
- ``sub_id.sub`` equals the token's ``sub``, and the format is exactly ``iss_sub`` with exactly
  those members;

anything else is ``identity.bad_subject_id``. A token without ``sub_id`` names ``(iss, sub)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memguard.errors import IdentityError
from memguard.identity import PrincipalId, check_identifier

__all__ = ["ISS_SUB", "attested_subject", "subject_identifier"]

ISS_SUB = "iss_sub"
_MEMBERS = frozenset({"format", "iss", "sub"})


def subject_identifier(subject: PrincipalId) -> dict[str, str]:
    """The ``sub_id`` claim naming ``subject`` (RFC 9493 3.2.4)."""
    return {"format": ISS_SUB, "iss": subject.issuer, "sub": subject.subject}


def _refuse(message: str) -> IdentityError:
    return IdentityError(message, code="identity.bad_subject_id")


def attested_subject(
    claims: Mapping[str, Any], *, token_issuer: str, attests: frozenset[str]
) -> PrincipalId:
    """The principal a verified token names: ``(iss, sub)``, or ``(sub_id.iss, sub)`` when the
    token's issuer may attest subjects of ``sub_id.iss``."""
    sub = check_identifier(claims.get("sub"), "sub")
    if "sub_id" not in claims:
        return PrincipalId(issuer=token_issuer, subject=sub)
    sub_id = claims["sub_id"]
    if not isinstance(sub_id, dict) or set(sub_id) != _MEMBERS or sub_id["format"] != ISS_SUB:
        raise _refuse("sub_id must be an iss_sub subject identifier")
    issuer = check_identifier(sub_id["iss"], "sub_id.iss")
    if sub_id["sub"] != sub:
        raise _refuse("sub_id.sub differs from sub")
    if issuer != token_issuer and issuer not in attests:
        raise _refuse("the token's issuer may not attest subjects of this issuer")
    return PrincipalId(issuer=issuer, subject=sub)
