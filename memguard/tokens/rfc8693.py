"""RFC 8693, OAuth 2.0 Token Exchange -- delegation only, never impersonation.

2.1: "grant_type REQUIRED. The value 'urn:ietf:params:oauth:grant-type:token-exchange'";
"subject_token REQUIRED"; "subject_token_type REQUIRED"; "actor_token OPTIONAL ... represents the
identity of the acting party"; "resource OPTIONAL"; "audience OPTIONAL"; "scope OPTIONAL" (memguard:
required, so nothing is narrowed silently). 2.2.2: "If the authorization server is unwilling or
unable to issue a token for any target service indicated by the 'resource' or 'audience'
parameters, the 'invalid_target' error code SHOULD be used". 4.1: "The 'act' (actor) claim provides a
means within a JWT to express that delegation has occurred"; 4.4 ``may_act``: "makes a statement
that one party is authorized to become the actor and act on behalf of another party".
RFC 6749 5.2 error codes: invalid_request, invalid_client (401), invalid_grant, unauthorized_client,
unsupported_grant_type, invalid_scope. Descriptions are generic; the reason goes to the audit sink.

Rules memguard adds: client authentication is mandatory; the new ``act`` chain is built only from
the *verified* subject token; a hop needs ``may_act`` naming the new actor, or a delegation grant;
re-delegating a delegated token is done only by its current actor; the issued scope is the requested
scope only if it is a subset of the subject's, the actor's and the grant's, else ``invalid_scope``;
exactly one audience; ``exp = min(subject exp, actor exp, now + max_ttl)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memguard.errors import IdentityError

__all__ = [
    "ACCESS_TOKEN_TYPE",
    "GRANT_TYPE",
    "JWT_TOKEN_TYPE",
    "TXN_TOKEN_TYPE",
    "ExchangeRequest",
    "TokenExchangeError",
    "parse_exchange_request",
]

GRANT_TYPE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"
JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt"
#: draft-ietf-oauth-transaction-tokens: a Txn-Token as the subject (memguard.tokens.txn_token)
TXN_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:txn_token"
_TOKEN_TYPES = frozenset({ACCESS_TOKEN_TYPE, JWT_TOKEN_TYPE, TXN_TOKEN_TYPE})
_MULTI = frozenset({"resource", "audience"})

_DESCRIPTIONS = {
    "invalid_request": "the request is missing a parameter or is malformed",
    "invalid_client": "client authentication failed",
    "invalid_grant": "the provided grant is invalid",
    "unauthorized_client": "the client is not authorized for this request",
    "unsupported_grant_type": "the grant type is not supported",
    "invalid_scope": "the requested scope is invalid",
    "invalid_target": "the requested target is invalid",
    "server_error": "the request could not be processed",
}


class TokenExchangeError(IdentityError):
    """A refused token request: ``error`` is the RFC 6749/8693 code, ``reason`` stays server-side."""

    code = "identity.token_exchange"

    def __init__(self, error: str, reason: str) -> None:
        super().__init__(_DESCRIPTIONS.get(error, "the request was refused"))
        self.error = error
        self.reason = reason

    @property
    def status(self) -> int:
        return (
            401 if self.error == "invalid_client" else 500 if self.error == "server_error" else 400
        )

    def body(self) -> dict[str, str]:
        return {"error": self.error, "error_description": str(self)}


@dataclass(frozen=True, slots=True)
class ExchangeRequest:
    subject_token: str
    actor_token: str | None
    scopes: frozenset[str]
    targets: tuple[str, ...]
    client_id: str | None
    client_assertion_type: str | None
    client_assertion: str | None
    subject_token_type: str = ACCESS_TOKEN_TYPE


def parse_exchange_request(form: Mapping[str, list[str]]) -> ExchangeRequest:
    """Validate the form parameters; RFC 6749 3.2: parameters "MUST NOT be included more than once"."""
    for name, values in form.items():
        if len(values) != 1 and name not in _MULTI:
            raise TokenExchangeError("invalid_request", f"repeated parameter {name}")

    def one(name: str) -> str | None:
        values = form.get(name)
        return values[0] if values else None

    if one("grant_type") != GRANT_TYPE:
        raise TokenExchangeError("unsupported_grant_type", "grant_type")
    if "client_secret" in form or one("client_assertion") is None:
        raise TokenExchangeError("invalid_client", "no client assertion")
    subject_token, subject_type = one("subject_token"), one("subject_token_type")
    if not subject_token or subject_type not in _TOKEN_TYPES:
        raise TokenExchangeError("invalid_request", "subject_token / subject_token_type")
    actor_token, actor_type = one("actor_token"), one("actor_token_type")
    if (actor_token is None) != (actor_type is None) or (
        actor_type is not None and actor_type != JWT_TOKEN_TYPE
    ):
        raise TokenExchangeError("invalid_request", "actor_token / actor_token_type")
    requested = one("requested_token_type")
    if requested is not None and requested != ACCESS_TOKEN_TYPE:
        raise TokenExchangeError("invalid_request", "requested_token_type")
    scope = one("scope")
    if not scope or any(not s for s in scope.split(" ")):
        raise TokenExchangeError("invalid_scope", "scope missing or malformed")
    targets = tuple(dict.fromkeys([*form.get("resource", []), *form.get("audience", [])]))
    if len(targets) != 1:
        raise TokenExchangeError("invalid_target", "exactly one resource/audience is required")
    return ExchangeRequest(
        subject_token=subject_token,
        actor_token=actor_token,
        scopes=frozenset(scope.split(" ")),
        targets=targets,
        client_id=one("client_id"),
        client_assertion_type=one("client_assertion_type"),
        client_assertion=one("client_assertion"),
        subject_token_type=str(subject_type),
    )


def may_act_allows(claims: Mapping[str, Any], actor: str, actor_issuer: str) -> bool | None:
    """None if the subject token has no ``may_act``; else whether it names this actor."""
    may_act = claims.get("may_act")
    if may_act is None:
        return None
    if not isinstance(may_act, dict) or not isinstance(may_act.get("sub"), str):
        return False
    if "iss" in may_act and may_act["iss"] != actor_issuer:
        return False
    return bool(may_act["sub"] == actor)
