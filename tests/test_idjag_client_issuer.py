"""Where memguard is an OAuth client (the token exchange client), its credentials are keyed by
the authorization server's issuer, the token endpoint comes from that issuer's RFC 8414 metadata
(whose ``issuer`` must be identical, RFC 8414 3.3) and a token from another issuer is refused (the
mix-up defence RFC 9207 asks of authorization responses, applied to the token response). Real
token services on 127.0.0.1, real private_key_jwt."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import jwt
import pytest
from helpers import PLANNER
from identity_helpers import GRANTS, Client, make_client

from memguard.errors import ConfigurationError
from memguard.gateway.server import free_port
from memguard.tokens.client import (
    ClientCredentials,
    IssuerCredentials,
    TokenExchangeClient,
    metadata_url,
)
from memguard.tokens.rfc8693 import TokenExchangeError
from memguard.tokens.server import create_app, serve_local
from memguard.tokens.sts import SecurityTokenService

SCOPE = "memory:read"


def _serve(stack: ExitStack, tmp: Path, name: str, planner: Client, *, port: int,
           issuer: str | None = None) -> SecurityTokenService:
    """A token service on 127.0.0.1:``port`` that calls itself ``issuer`` (default: its URL)."""
    sts = SecurityTokenService(tmp / name, issuer=issuer or f"http://127.0.0.1:{port}",
                               audiences=("memguard",), clients=[planner.registered()],
                               delegation=GRANTS,
                               token_endpoint=f"http://127.0.0.1:{port}/token")
    stack.enter_context(serve_local(create_app(sts), port=port))
    return sts


@pytest.fixture
def planner() -> Client:
    return make_client(PLANNER)


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as s:
        yield s


def _creds(planner: Client, *issuers: str) -> IssuerCredentials:
    return IssuerCredentials({i: ClientCredentials(planner.client_id, planner.pem, kid=planner.kid)
                              for i in issuers})


def test_credentials_are_looked_up_by_issuer_and_used_at_its_endpoint(
        tmp_path: Path, planner: Client, stack: ExitStack) -> None:
    a = _serve(stack, tmp_path, "a", planner, port=free_port())
    client = TokenExchangeClient.for_issuer(a.issuer, _creds(planner, a.issuer))
    try:
        assert client.token_endpoint == f"{a.issuer}/token"
        out = client.exchange(a.issue_user_token("alice", scopes=[SCOPE]), audience="memguard",
                              scope=SCOPE)
    finally:
        client.close()
    assert jwt.decode(out.access_token, options={"verify_signature": False})["iss"] == a.issuer
    # no credentials for an issuer: refused before any request goes out
    with pytest.raises(ConfigurationError, match="no client credentials"):
        TokenExchangeClient.for_issuer(a.issuer, _creds(planner, a.issuer + "/"))


def test_metadata_naming_another_issuer_is_refused(tmp_path: Path, planner: Client,
                                                   stack: ExitStack) -> None:
    a_port, b_port = free_port(), free_port()
    a_issuer = f"http://127.0.0.1:{a_port}"
    # the server at B's address claims to be A (a mix-up or a hostile server)
    _serve(stack, tmp_path, "b", planner, port=b_port, issuer=a_issuer)
    b_issuer = f"http://127.0.0.1:{b_port}"
    with pytest.raises(TokenExchangeError) as info:
        TokenExchangeClient.for_issuer(b_issuer, _creds(planner, a_issuer, b_issuer))
    assert (info.value.error, info.value.reason) == ("invalid_issuer",
                                                     "metadata issuer is not the issuer")


def test_a_token_from_another_issuer_is_refused(tmp_path: Path, planner: Client,
                                                stack: ExitStack) -> None:
    a = _serve(stack, tmp_path, "a", planner, port=free_port())
    b = _serve(stack, tmp_path, "b", planner, port=free_port())
    # a client configured for A whose token request reached B's endpoint
    client = TokenExchangeClient(b.token_endpoint, planner.client_id, planner.pem,
                                 kid=planner.kid, issuer=a.issuer)
    try:
        with pytest.raises(TokenExchangeError) as info:
            client.exchange(b.issue_user_token("alice", scopes=[SCOPE]), audience="memguard",
                            scope=SCOPE)
    finally:
        client.close()
    assert (info.value.error, info.value.reason) == ("invalid_issuer",
                                                     "access token from another issuer")


def test_an_unreachable_issuer_and_bad_issuer_urls(planner: Client) -> None:
    gone = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(TokenExchangeError) as info:
        TokenExchangeClient.for_issuer(gone, _creds(planner, gone), timeout=2)
    assert info.value.error == "invalid_issuer"
    assert metadata_url("https://as.example/tenant1") == (
        "https://as.example/.well-known/oauth-authorization-server/tenant1")
    for bad in ("http://as.example", "https://as.example/?x=1", "https://as.example/#f"):
        with pytest.raises(ConfigurationError):
            metadata_url(bad)
