"""The token service (RFC 8693, RFC 7517, RFC 8414)."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from .common import (
    _examples,
    _In,
    _Out,
)

_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
_ACCESS = "urn:ietf:params:oauth:token-type:access_token"
_JWT = "urn:ietf:params:oauth:token-type:jwt"


class TokenExchangeForm(_In):
    """An RFC 8693 token exchange request (``application/x-www-form-urlencoded``) with
    ``private_key_jwt`` client authentication (RFC 7523)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid",
        json_schema_extra=_examples({
            "grant_type": _EXCHANGE, "subject_token": "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9...",
            "subject_token_type": _ACCESS, "audience": "https://gateway.example",
            "scope": "memory:read memory:write",
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": "eyJhbGciOiJFUzI1NiJ9...",
            "client_id": "spiffe://example.org/agent/planner",
        }),
    )  # fmt: skip

    grant_type: Literal["urn:ietf:params:oauth:grant-type:token-exchange"] = Field(
        description="The token-exchange grant."
    )
    subject_token: str = Field(description="The token of the user or the previous hop.")
    subject_token_type: Literal[
        "urn:ietf:params:oauth:token-type:access_token", "urn:ietf:params:oauth:token-type:jwt"
    ] = Field(description="Its type.")
    actor_token: str | None = Field(
        None, description="The next agent's workload credential: it becomes the current actor."
    )
    actor_token_type: Literal["urn:ietf:params:oauth:token-type:jwt"] | None = Field(
        None, description="Required with `actor_token`."
    )
    audience: str | None = Field(None, description="The one resource the token is for.")
    resource: str | None = Field(None, description="Or the resource as a URI (one of the two).")
    scope: str = Field(description="Space-separated scopes; a subset of what every input allows.")
    requested_token_type: str | None = Field(None, description="Only access tokens are issued.")
    client_id: str | None = Field(None, description="The client (with `private_key_jwt`).")
    client_assertion_type: Literal["urn:ietf:params:oauth:client-assertion-type:jwt-bearer"] = (
        Field(description="RFC 7523 client authentication.")
    )
    client_assertion: str = Field(description="The client's signed assertion (single use).")


class TokenResponseOut(_Out):
    """The issued token (RFC 8693 2.2.1); the response has ``Cache-Control: no-store``."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({
            "access_token": "eyJhbGciOiJFZERTQSIsInR5cCI6ImF0K2p3dCJ9...",
            "issued_token_type": _ACCESS, "token_type": "Bearer", "expires_in": 600,
            "scope": "memory:read memory:write",
        }),
    )  # fmt: skip

    access_token: str = Field(description="An `at+jwt` whose `act` claim names the delegates.")
    issued_token_type: str = Field(description="`urn:ietf:params:oauth:token-type:access_token`.")
    token_type: Literal["Bearer"] = Field(description="Use it as a bearer token.")
    expires_in: int = Field(description="Seconds until it expires (never after its inputs).")
    scope: str = Field(description="The scopes granted (exactly those asked for).")


class OAuthErrorOut(_Out):
    """A refused token request (RFC 6749 5.2, RFC 8693 2.2.2)."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({"error": "invalid_scope",
                                     "error_description": "the requested scope is invalid"}),
    )  # fmt: skip

    error: Literal[
        "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client",
        "unsupported_grant_type", "invalid_scope", "invalid_target", "server_error",
    ] = Field(description="The error code.")  # fmt: skip
    error_description: str = Field(description="A short, generic description.")


_JWK = {"kty": "OKP", "crv": "Ed25519", "x": "gYvDWPFwsqG8Du6GaaKGDkq-viBf2QMnDkgTBGifCXU",
        "kid": "QlDNZbtQaEC7NkTk-_-znEDOD1vNHRB4Ok_aGsFo6y4", "alg": "EdDSA", "use": "sig"}  # fmt: skip


class JwkOut(_Out):
    """A public key (RFC 7517)."""

    model_config = ConfigDict(frozen=True, extra="allow", json_schema_extra=_examples(_JWK))

    kty: str = Field(description="Key type (`OKP`, `EC`).")
    kid: str = Field(description="Key id (the `kid` header of the tokens it verifies).")
    alg: str = Field(description="The one algorithm it is used with.")
    use: str = Field(description="`sig`.")
    crv: str | None = Field(None, description="The curve.")
    x: str | None = Field(None, description="Public key material (base64url).")
    y: str | None = Field(None, description="Public key material, EC keys (base64url).")


class JwksOut(_Out):
    """A JSON Web Key Set (RFC 7517 5)."""

    model_config = ConfigDict(frozen=True, json_schema_extra=_examples({"keys": [_JWK]}))

    keys: list[JwkOut] = Field(description="The current keys.")


class AuthServerMetadataOut(_Out):
    """Authorization server metadata (RFC 8414) of the gateway's token service."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({
            "issuer": "https://gateway.example",
            "token_endpoint": "https://gateway.example/token",
            "jwks_uri": "https://gateway.example/.well-known/jwks.json",
            "grant_types_supported": [_EXCHANGE],
            "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": ["ES256", "EdDSA"],
        }),
    )  # fmt: skip

    issuer: str = Field(description="The issuer of the tokens.")
    token_endpoint: str = Field(description="Where to exchange tokens.")
    jwks_uri: str = Field(description="Where its public keys are.")
    grant_types_supported: list[str] = Field(description="Token exchange only.")
    token_endpoint_auth_methods_supported: list[str] = Field(description="`private_key_jwt`.")
    token_endpoint_auth_signing_alg_values_supported: list[str] = Field(
        description="Client assertion algorithms."
    )
