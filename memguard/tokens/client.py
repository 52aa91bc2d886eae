"""Client side: obtain exchanged tokens from a token endpoint with authlib's OAuth2 client (httpx).

The request is the RFC 8693 2.1 form; client authentication is ``private_key_jwt`` (RFC 7523) signed
by authlib. authlib's errors are translated at this seam into :class:`TokenExchangeError` with the
server's RFC error code, so callers see one exception type.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any, cast

from authlib.integrations.base_client.errors import OAuthError  # type: ignore[import-untyped]
from authlib.oauth2.rfc7523 import PrivateKeyJWT  # type: ignore[import-untyped]

with warnings.catch_warnings():
    # authlib >= 1.7 prefers the `httpx2` fork and warns when it falls back to httpx
    warnings.simplefilter("ignore")
    from authlib.integrations.httpx_client import OAuth2Client  # type: ignore[import-untyped]
from joserfc.jwk import ECKey, OKPKey

from memguard.tokens.rfc8693 import (
    ACCESS_TOKEN_TYPE,
    GRANT_TYPE,
    JWT_TOKEN_TYPE,
    TokenExchangeError,
)

__all__ = ["ExchangedToken", "TokenExchangeClient"]

ASSERTION_LIFETIME = 60


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
    ) -> None:
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
            raise TokenExchangeError(str(exc.error or "invalid_request"), "remote refusal") from None
        except Exception as exc:
            raise TokenExchangeError("server_error", type(exc).__name__) from None
        return ExchangedToken(
            access_token=str(token["access_token"]),
            scope=str(token.get("scope", "")),
            expires_in=int(token.get("expires_in", 0)),
            issued_token_type=str(token.get("issued_token_type", "")),
        )

    def close(self) -> None:
        self._client.close()
