"""The identity layer for external issuers, workload credentials and RFC 8693 delegation.

One module per specification, each quoting the words it enforces:

- :mod:`.rfc7515` strict compact JWS (size cap, shape, header) -- the low layer every verifier uses
- :mod:`.rfc7517` key sets: static JWKS and a JWKS URL on PyJWKClient (cache, cooldown, grace)
- :mod:`.rfc7519` typed claims: integer times, max TTL / age, leeway, single audience
- :mod:`.rfc9068` ``at+jwt`` access tokens
- :mod:`.svid` JWT-SVID workload credentials (``spiffe://trust-domain/path``)
- :mod:`.rfc7523` ``private_key_jwt`` client authentication with single-use ``jti``
- :mod:`.rfc8693` the token-exchange grant (delegation only)
- :mod:`.config` the YAML identity configuration; :mod:`.verifier` the guard's verifier with
  presenter binding; :mod:`.sts` the local token service; :mod:`.server` its HTTP app;
  :mod:`.client` exchanges at an external token endpoint with authlib.
"""

from memguard.tokens.config import IdentityConfig, load_identity_config
from memguard.tokens.rfc8693 import TokenExchangeError
from memguard.tokens.sts import SecurityTokenService
from memguard.tokens.verifier import IdentityVerifier, RefusingVerifier

__all__ = [
    "IdentityConfig",
    "IdentityVerifier",
    "RefusingVerifier",
    "SecurityTokenService",
    "TokenExchangeError",
    "load_identity_config",
]
