"""Client side: obtain exchanged tokens from a token endpoint with authlib's OAuth2 client (httpx).

The request is the RFC 8693 2.1 form; client authentication is ``private_key_jwt`` (RFC 7523) signed
by authlib. authlib's errors are translated at this seam into :class:`TokenExchangeError` with the
server's RFC error code, so callers see one exception type.

Credentials keyed by the authorization server's issuer (mix-up defence, RFC 9207 / RFC 8414 3.3):
:meth:`TokenExchangeClient.for_issuer` looks the client's credentials up by the issuer it means to
talk to (:class:`IssuerCredentials`, byte-exact), discovers the token endpoint from that issuer's
RFC 8414 metadata and refuses metadata whose ``issuer`` is not that issuer ("MUST be identical",
3.3). RFC 9207 ``iss`` is an *authorization response* parameter; memguard never runs an
authorization-code flow, so the response it checks instead is the token endpoint's: an access
token in JWT form whose ``iss`` is not the expected issuer is refused (never used, never
returned). Nothing here trusts what it reads unverified; it only refuses mismatches.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

import httpx
from authlib.integrations.base_client.errors import OAuthError  # type: ignore[import-untyped]
from authlib.oauth2.rfc7523 import PrivateKeyJWT  # type: ignore[import-untyped]

with warnings.catch_warnings():
    # authlib >= 1.7 prefers the `httpx2` fork and warns when it falls back to httpx
    warnings.simplefilter("ignore")
    from authlib.integrations.httpx_client import OAuth2Client  # type: ignore[import-untyped]
from joserfc.jwk import ECKey, OKPKey

from memguard.errors import ConfigurationError, IdentityError
from memguard.tokens.rfc7515 import parse_compact
from memguard.tokens.rfc8693 import (
    ACCESS_TOKEN_TYPE,
    GRANT_TYPE,
    JWT_TOKEN_TYPE,
    TokenExchangeError,
)

__all__ = [
    "ClientCredentials",
    "ExchangedToken",
    "IssuerCredentials",
    "TokenExchangeClient",
    "metadata_url",
]

ASSERTION_LIFETIME = 60
MAX_METADATA = 64 * 1024


@dataclass(frozen=True, slots=True)
class ClientCredentials:
    """One client registration at one authorization server."""

    client_id: str
    private_key_pem: bytes
    alg: str = "ES256"
    kid: str | None = None


class IssuerCredentials:
    """Client credentials keyed by authorization-server issuer (byte-exact, no normalisation):
    credentials registered at one server are never sent to another."""

    def __init__(self, by_issuer: Mapping[str, ClientCredentials]) -> None:
        self._by_issuer = dict(by_issuer)

    def for_issuer(self, issuer: str) -> ClientCredentials:
        found = self._by_issuer.get(issuer)
        if found is None:
            raise ConfigurationError(f"no client credentials for the issuer `{issuer}`")
        return found


def metadata_url(issuer: str) -> str:
    """RFC 8414 3.1: the well-known suffix goes between the host and the issuer's path."""
    parts = urlsplit(issuer)
    if parts.scheme != "https" and not (
        parts.scheme == "http" and parts.hostname in ("127.0.0.1", "::1", "localhost")
    ):
        raise ConfigurationError(f"the issuer `{issuer}` must be https (or loopback http)")
    if parts.query or parts.fragment:
        raise ConfigurationError(f"the issuer `{issuer}` has a query or fragment (RFC 8414 2)")
    path = parts.path.rstrip("/")
    return f"{parts.scheme}://{parts.netloc}/.well-known/oauth-authorization-server{path}"


class _ShortLivedPrivateKeyJWT(PrivateKeyJWT):  # type: ignore[misc]
    """authlib's private_key_jwt with a 60 s assertion (its default is an hour; RFC 7523 3 lets
    servers reject "unreasonably far" ``exp`` values, and memguard's STS does above 300 s)."""

    def sign(self, auth: Any, token_endpoint: str) -> Any:
        self.claims = {"exp": int(time.time()) + ASSERTION_LIFETIME}  # fresh dict: fresh jti
        return super().sign(auth, token_endpoint)


@dataclass(frozen=True, slots=True)
class ExchangedToken:
    access_token: str
    scope: str
    expires_in: int
    issued_token_type: str


class TokenExchangeClient:
    """One OAuth client (``client_id`` + private key) exchanging tokens at ``token_endpoint``."""

    def __init__(
        self,
        token_endpoint: str,
        client_id: str,
        private_key_pem: bytes,
        *,
        alg: str = "ES256",
        kid: str | None = None,
        timeout: float = 5.0,
        issuer: str | None = None,
    ) -> None:
        #: the authorization server this client means to talk to; tokens from another are refused
        self.issuer = issuer
        key_cls = ECKey if alg == "ES256" else OKPKey
        params = {"kid": kid} if kid else None
        key = key_cls.import_key(private_key_pem, cast(Any, params))
        self.token_endpoint = token_endpoint
        self._client = OAuth2Client(
            client_id=client_id,
            client_secret=key,
            token_endpoint_auth_method=PrivateKeyJWT.name,
            timeout=timeout,
            trust_env=False,
        )
        headers = {"kid": kid} if kid else None
        self._client.register_client_auth_method(
            _ShortLivedPrivateKeyJWT(token_endpoint, alg=alg, headers=headers)
        )

    @classmethod
    def for_issuer(
        cls, issuer: str, credentials: IssuerCredentials, *, timeout: float = 5.0
    ) -> TokenExchangeClient:
        """A client for the authorization server ``issuer``: its credentials looked up by that
        issuer, its token endpoint from that issuer's RFC 8414 metadata (whose ``issuer`` must be
        ``issuer`` exactly); raises :class:`TokenExchangeError` (``invalid_issuer``) otherwise."""
        creds = credentials.for_issuer(issuer)  # before any request: nothing goes out unkeyed
        try:
            with httpx.Client(timeout=timeout, trust_env=False, follow_redirects=False) as http:
                r = http.get(metadata_url(issuer), headers={"Accept": "application/json"})
            if r.status_code != 200 or len(r.content) > MAX_METADATA:
                raise TokenExchangeError("invalid_issuer", f"metadata status {r.status_code}")
            meta = r.json()
        except TokenExchangeError:
            raise
        except (httpx.HTTPError, ValueError) as exc:
            raise TokenExchangeError("invalid_issuer", type(exc).__name__) from None
        if not isinstance(meta, dict) or meta.get("issuer") != issuer:
            raise TokenExchangeError("invalid_issuer", "metadata issuer is not the issuer")
        endpoint = meta.get("token_endpoint")
        if not isinstance(endpoint, str):
            raise TokenExchangeError("invalid_issuer", "no token endpoint")
        try:
            metadata_url(endpoint)  # the same https-or-loopback rule for the endpoint
        except ConfigurationError:
            raise TokenExchangeError("invalid_issuer", "token endpoint scheme") from None
        return cls(
            endpoint,
            creds.client_id,
            creds.private_key_pem,
            alg=creds.alg,
            kid=creds.kid,
            timeout=timeout,
            issuer=issuer,
        )

    def _check_issuer(self, access_token: str) -> None:
        """A JWT access token must come from the issuer this client meant (mix-up defence)."""
        if self.issuer is None or access_token.count(".") != 2:
            return  # no expected issuer, or an opaque token: nothing to compare
        try:
            _, claims = parse_compact(access_token)
        except IdentityError:
            raise TokenExchangeError("invalid_issuer", "unparseable access token") from None
        if claims.get("iss") != self.issuer:
            raise TokenExchangeError("invalid_issuer", "access token from another issuer")

    def exchange(
        self,
        subject_token: str,
        *,
        audience: str,
        scope: str,
        actor_token: str | None = None,
    ) -> ExchangedToken:
        params: dict[str, Any] = {
            "subject_token": subject_token,
            "subject_token_type": ACCESS_TOKEN_TYPE,
            "requested_token_type": ACCESS_TOKEN_TYPE,
            "audience": audience,
            "scope": scope,
        }
        if actor_token is not None:
            params["actor_token"] = actor_token
            params["actor_token_type"] = JWT_TOKEN_TYPE
        try:
            token = self._client.fetch_token(self.token_endpoint, grant_type=GRANT_TYPE, **params)
        except OAuthError as exc:
            raise TokenExchangeError(
                str(exc.error or "invalid_request"), "remote refusal"
            ) from None
        except Exception as exc:
            raise TokenExchangeError("server_error", type(exc).__name__) from None
        self._check_issuer(str(token["access_token"]))
        return ExchangedToken(
            access_token=str(token["access_token"]),
            scope=str(token.get("scope", "")),
            expires_in=int(token.get("expires_in", 0)),
            issued_token_type=str(token.get("issued_token_type", "")),
        )

    def close(self) -> None:
        self._client.close()
