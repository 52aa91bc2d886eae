"""MCP enterprise-managed authorization: the Identity Assertion JWT Authorization Grant (ID-JAG,
draft-ietf-oauth-identity-assertion-authz-grant) at memguard's token endpoint. The enterprise IdP
is the test's own P-256 key; client authentication, ledger and tokens are real."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from helpers import BROWSER, PLANNER, Clock
from identity_helpers import AUDIENCE, ISSUER, Env, make_env

from memguard.errors import ConfigurationError, IdentityError
from memguard.events import Decision
from memguard.provenance import Source, Turn
from memguard.tokens import IdentityVerifier, TokenExchangeError
from memguard.tokens.id_jag import ID_JAG_PROFILE, JWT_BEARER_GRANT, IdJagIssuer
from memguard.tokens.rfc7517 import StaticKeySource, public_jwk
from memguard.tokens.sts import SecurityTokenService
from memguard.trust import SourceKind

IDP = "https://acme.idp.example"
TOKEN_ENDPOINT = f"{ISSUER}/token"
CLIENT_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


@dataclass
class EnterpriseIdp:
    """The enterprise IdP: signs ID-JAGs for memguard's authorization server."""

    clock: Clock
    issuer: str = IDP
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))

    @property
    def jwks(self) -> dict[str, Any]:
        return {"keys": [public_jwk(self.key)]}

    def trusted(self, **kw: Any) -> IdJagIssuer:
        return IdJagIssuer(self.issuer, frozenset({"ES256"}),
                           StaticKeySource(self.jwks, frozenset({"ES256"})), **kw)

    def grant(self, *, typ: str = "oauth-id-jag+jwt", key: Any = None, alg: str = "ES256",
              headers: dict[str, Any] | None = None, aud: str = ISSUER,
              resource: object = AUDIENCE, ttl: int = 120, **over: Any) -> str:
        now = int(self.clock())
        claims: dict[str, Any] = {
            "iss": self.issuer, "sub": "U019488227", "aud": aud, "client_id": PLANNER,
            "jti": secrets.token_hex(12), "iat": now, "exp": now + ttl, "resource": resource,
            "scope": "memory:read memory:write", "amr": ["mfa"],
        }
        claims.update(over)
        head = {"typ": typ, "kid": public_jwk(self.key)["kid"], **(headers or {})}
        return jwt.encode({k: v for k, v in claims.items() if v is not None},
                          self.key if key is None else key, algorithm=alg, headers=head)


def form(env: Env, assertion: str, **over: Any) -> dict[str, list[str]]:
    fields: dict[str, Any] = {
        "grant_type": JWT_BEARER_GRANT, "assertion": assertion,
        "client_assertion_type": CLIENT_ASSERTION,
        "client_assertion": env.planner.assertion(TOKEN_ENDPOINT, int(env.clock())),
    }
    fields.update(over)
    return {k: [v] for k, v in fields.items() if v is not None}


def claims(token: str) -> dict[str, Any]:
    return jwt.decode(token, options={"verify_signature": False})


@pytest.fixture
def idp() -> EnterpriseIdp:
    return EnterpriseIdp(Clock())


@pytest.fixture
def env(tmp_path: Path, idp: EnterpriseIdp) -> Env:
    return make_env(tmp_path, idp.clock, id_jag=[idp.trusted()])


def resource_verifier(env: Env) -> IdentityVerifier:
    """The memory resource trusts memguard's token service, which names the IdP's users."""
    return IdentityVerifier(env.config(access_tokens={"audience": AUDIENCE, "issuers": [
        {"issuer": ISSUER, "algorithms": ["EdDSA"], "jwks": env.sts.jwks(), "attests": [IDP]}]}),
        clock=env.clock)


def test_an_id_jag_is_exchanged_for_a_resource_token(env: Env, idp: EnterpriseIdp) -> None:
    assertion = idp.grant()
    out = env.sts.token_request(form(env, assertion, scope="memory:read"))
    issued = claims(out["access_token"])
    assert out["token_type"] == "Bearer" and out["scope"] == "memory:read"
    assert issued["aud"] == AUDIENCE and issued["iss"] == ISSUER
    assert issued["sub"] == "U019488227" and issued["client_id"] == PLANNER
    assert issued["sub_id"] == {"format": "iss_sub", "iss": IDP, "sub": "U019488227"}
    assert "act" not in issued and issued["exp"] - issued["iat"] == 900
    assert jwt.get_unverified_header(out["access_token"])["typ"] == "at+jwt"
    event = env.events[-1]
    assert event.decision is Decision.ALLOW and event.detail["grant"] == "id-jag"
    assert event.detail["subject_issuer"] == IDP and event.detail["resource"] == AUDIENCE
    assert assertion not in event.canonical().decode()  # its digest only

    guard = env.guard(verifier=resource_verifier(env))
    identity = guard.authenticate(out["access_token"])
    subject = identity.principal.subject
    assert (subject.issuer, subject.subject) == (IDP, "U019488227")
    prov = guard.write(identity, "acme's board meets on tuesdays", namespace="notes",
                       source=Source(kind=SourceKind.USER_MESSAGE),
                       turn=Turn(session_id="s", turn_index=0))
    assert (prov.owner.issuer, prov.owner.subject) == (IDP, "U019488227")
    assert prov.writer.client_id == PLANNER
    # without a scope parameter the ID-JAG's scope is issued, never more
    whole = env.sts.token_request(form(env, idp.grant()))
    assert whole["scope"] == "memory:read memory:write"


def _refused(env: Env, data: dict[str, list[str]], error: str, reason: str) -> None:
    before = len(env.events)
    with pytest.raises(TokenExchangeError) as info:
        env.sts.token_request(data)
    assert (info.value.error, info.value.reason) == (error, reason)
    new = env.events[before:]
    assert len(new) == 1 and new[0].decision is Decision.DENY
    assert new[0].reason == f"{error}:{reason}"
    assert data["assertion"][0] not in new[0].canonical().decode()


def _hs256_with_public_key(idp: EnterpriseIdp) -> str:
    now = int(idp.clock())
    body = {"iss": IDP, "sub": "x", "aud": ISSUER, "client_id": PLANNER, "jti": "j",
            "iat": now, "exp": now + 60, "resource": AUDIENCE}
    pem = idp.key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)

    def b64(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    head = b64(json.dumps({"alg": "HS256", "typ": "oauth-id-jag+jwt",
                           "kid": public_jwk(idp.key)["kid"]}).encode())
    payload = b64(json.dumps(body).encode())
    sig = hmac.new(pem, f"{head}.{payload}".encode(), hashlib.sha256).digest()
    return f"{head}.{payload}.{b64(sig)}"


BAD = "invalid_grant"


@pytest.mark.parametrize(("case", "reason"), [
    ("wrong typ", "assertion identity.bad_type"),
    ("access token typ", "assertion identity.bad_type"),
    ("no typ", "assertion identity.bad_type"),
    ("wrong aud", "assertion identity.bad_audience"),
    ("aud is the resource", "assertion identity.bad_audience"),
    ("two audiences", "assertion identity.bad_audience"),
    ("unknown issuer", "assertion identity.bad_issuer"),
    ("expired", "assertion identity.expired"),
    ("too long-lived", "assertion identity.bad_claims"),
    ("client mismatch", "assertion identity.bad_client"),
    ("resource mismatch", "assertion identity.bad_resource"),
    ("missing resource", "assertion identity.bad_claims"),
    ("alg confusion (HS256 with the public key)", "assertion identity.bad_alg"),
    ("alg not pinned (ES384)", "assertion identity.bad_alg"),
    ("another key", "assertion identity.bad_signature"),
    ("missing sub", "assertion identity.bad_claims"),
    ("missing jti", "assertion identity.bad_claims"),
    ("missing client_id", "assertion identity.bad_claims"),
    ("string exp", "assertion identity.bad_claims"),
    ("act chain", "assertion identity.bad_chain"),
    ("jku header", "assertion identity.bad_header"),
])
def test_bad_assertions_are_refused_and_audited(env: Env, idp: EnterpriseIdp, case: str,
                                                reason: str) -> None:
    now = int(idp.clock())
    assertion = {
        "wrong typ": lambda: idp.grant(typ="JWT"),
        "access token typ": lambda: idp.grant(typ="at+jwt"),
        "no typ": lambda: jwt.encode({"iss": IDP}, idp.key, algorithm="ES256"),
        "wrong aud": lambda: idp.grant(aud="https://other-as.example"),
        "aud is the resource": lambda: idp.grant(aud=AUDIENCE),
        "two audiences": lambda: idp.grant(aud=[ISSUER, "https://other-as.example"]),
        "unknown issuer": lambda: idp.grant(iss="https://evil.idp.example"),
        "expired": lambda: idp.grant(iat=now - 290, exp=now - 100),
        "too long-lived": lambda: idp.grant(ttl=3600),
        "client mismatch": lambda: idp.grant(client_id=BROWSER),
        "resource mismatch": lambda: idp.grant(resource="https://other-mcp.example"),
        "missing resource": lambda: idp.grant(resource=None),
        "alg confusion (HS256 with the public key)": lambda: _hs256_with_public_key(idp),
        "alg not pinned (ES384)": lambda: idp.grant(alg="ES384",
                                                     key=ec.generate_private_key(ec.SECP384R1())),
        "another key": lambda: idp.grant(key=ec.generate_private_key(ec.SECP256R1())),
        "missing sub": lambda: idp.grant(sub=None),
        "missing jti": lambda: idp.grant(jti=None),
        "missing client_id": lambda: idp.grant(client_id=None),
        "string exp": lambda: idp.grant(exp=str(now + 60)),
        "act chain": lambda: idp.grant(act={"sub": BROWSER}),
        "jku header": lambda: idp.grant(headers={"jku": "https://evil.example/jwks"}),
    }[case]()
    _refused(env, form(env, assertion), BAD, reason)


def test_a_replayed_assertion_is_refused(env: Env, idp: EnterpriseIdp) -> None:
    assertion = idp.grant()
    env.sts.token_request(form(env, assertion))
    _refused(env, form(env, assertion), BAD, "assertion identity.replayed")


def test_request_level_refusals(env: Env, idp: EnterpriseIdp) -> None:
    _refused(env, form(env, idp.grant(), resource="https://other-mcp.example"),
             "invalid_target", "resource is not the assertion's")
    _refused(env, form(env, idp.grant(scope="memory:read"), scope="memory:read memory:write"),
             "invalid_scope", "scope not within the assertion's")
    _refused(env, form(env, idp.grant(scope=None)), "invalid_scope",
             "scope not within the assertion's")
    _refused(env, form(env, idp.grant(), client_assertion=None), "invalid_client",
             "no client assertion")
    # a client assertion made for the issuer is not taken: the issuer is the ID-JAGs' audience
    _refused(env, form(env, idp.grant(), client_assertion=env.planner.assertion(
        ISSUER, int(env.clock()))), "invalid_client", "identity.bad_audience")
    # the client that authenticated is the one the IdP named
    browser = form(env, idp.grant(), client_assertion=env.browser.assertion(
        TOKEN_ENDPOINT, int(env.clock())))
    _refused(env, browser, BAD, "assertion identity.bad_client")


def test_idp_settings_narrow_what_it_can_grant(tmp_path: Path, idp: EnterpriseIdp) -> None:
    env = make_env(tmp_path, idp.clock, id_jag=[idp.trusted(
        tenant="acme", clients=frozenset({PLANNER}), scopes=frozenset({"memory:read"}))])
    _refused(env, form(env, idp.grant(tenant="globex")), BAD, "assertion identity.bad_issuer")
    _refused(env, form(env, idp.grant(tenant="acme")), "invalid_scope",
             "scope not within the assertion's")
    out = env.sts.token_request(form(env, idp.grant(tenant="acme"), scope="memory:read"))
    assert out["scope"] == "memory:read"


def test_without_a_trusted_idp_the_grant_is_unsupported(tmp_path: Path, idp: EnterpriseIdp) -> None:
    env = make_env(tmp_path, idp.clock)
    data = form(env, idp.grant(), client_assertion=env.planner.assertion(
        ISSUER, int(env.clock())))
    _refused(env, data, "unsupported_grant_type", "no identity provider is trusted")


def test_a_verifier_error_fails_closed(tmp_path: Path, idp: EnterpriseIdp) -> None:
    class Broken(StaticKeySource):
        def get(self, kid: str, alg: str) -> object:
            raise RuntimeError("key store down")

    trusted = IdJagIssuer(IDP, frozenset({"ES256"}), Broken(idp.jwks, frozenset({"ES256"})))
    env = make_env(tmp_path, idp.clock, id_jag=[trusted])
    _refused(env, form(env, idp.grant()), "server_error", "RuntimeError")


def test_the_id_jag_audience_is_its_own_token_use(tmp_path: Path, idp: EnterpriseIdp) -> None:
    with pytest.raises(ConfigurationError, match="identity assertion grants"):
        SecurityTokenService(tmp_path / "a", issuer="memguard", audiences=("memguard",),
                             id_jag=[idp.trusted()])
    with pytest.raises(ConfigurationError, match="this token service"):
        SecurityTokenService(tmp_path / "b", issuer=IDP, id_jag=[idp.trusted()])


def test_an_id_jag_is_never_an_access_token(env: Env, idp: EnterpriseIdp) -> None:
    guard = env.guard(verifier=resource_verifier(env))
    with pytest.raises(IdentityError) as info:
        guard.authenticate(idp.grant(aud=AUDIENCE))
    assert info.value.code in ("identity.bad_type", "identity.bad_issuer")
    # nor an access token an ID-JAG
    user = env.user_token()
    _refused(env, form(env, user), BAD, "assertion identity.bad_type")


# -- over HTTP, with the MCP SDK's client --------------------------------------------------------

AS_ISSUER = "https://as.memguard.test"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
async def test_an_mcp_client_gets_a_token_by_id_jag_and_calls_the_mcp_server(
        tmp_path: Path) -> None:
    import httpx
    from gateway_helpers import running_gateway
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    idp = EnterpriseIdp(Clock(time.time()))
    sts = {"issuer": AS_ISSUER,
           "id_jag": {"issuers": [{"issuer": IDP, "algorithms": ["ES256"], "jwks": idp.jwks}]}}
    with running_gateway(tmp_path, mcp=True, sts=sts) as gw:
        meta = httpx.get(f"{gw.base}/.well-known/oauth-authorization-server", timeout=10).json()
        assert meta["issuer"] == AS_ISSUER
        assert JWT_BEARER_GRANT in meta["grant_types_supported"]
        assert meta["authorization_grant_profiles_supported"] == [ID_JAG_PROFILE]
        prm = httpx.get(f"{gw.base}/.well-known/oauth-protected-resource", timeout=10).json()
        assert prm["authorization_servers"][0] == AS_ISSUER

        def token_request(assertion: str) -> httpx.Response:
            data = {"grant_type": JWT_BEARER_GRANT, "assertion": assertion,
                    "client_assertion_type": CLIENT_ASSERTION,
                    "client_assertion": gw.planner.assertion(gw.sts.token_endpoint,
                                                             int(time.time()))}
            return httpx.post(f"{gw.base}/token", data=data, timeout=10)

        assertion = idp.grant(aud=AS_ISSUER, resource=gw.resource)
        r = token_request(assertion)
        assert r.status_code == 200, r.text
        assert r.headers["cache-control"] == "no-store"
        token = r.json()["access_token"]

        async with create_mcp_http_client(headers=gw.headers(token)) as http:
            transport = streamable_http_client(f"{gw.base}/mcp", http_client=http)
            async with Client(transport, mode="2026-07-28", cache=None) as client:
                wrote = await client.call_tool("remember", {
                    "text": "acme ships on fridays", "namespace": "ops", "session_id": "s",
                    "source_kind": "user_message"})
                assert not wrote.is_error, wrote.content
                recalled = await client.call_tool("recall", {"query": "when does acme ship"})
                assert not recalled.is_error, recalled.content
        data = wrote.structured_content or {}
        writer = dict(data.get("result", data))["provenance"]["writer"]
        assert writer["subject"] == {"issuer": IDP, "subject": "U019488227"}
        assert writer["client_id"] == PLANNER

        # the same assertion again, and one for another resource: refused, each audited
        again = token_request(assertion)
        assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
        other = token_request(idp.grant(aud=AS_ISSUER, resource="https://other-mcp.example"))
        assert other.status_code == 400 and other.json()["error"] == "invalid_grant"
        denies = [e for e in gw.stack.guard.ledger.events(decision="deny")
                  if e.action == "token_exchange"]
        assert {e.reason for e in denies} >= {"invalid_grant:assertion identity.replayed",
                                              "invalid_grant:assertion identity.bad_resource"}


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
async def test_the_sdk_identity_assertion_provider_gets_a_token_and_calls_mcp(
        tmp_path: Path) -> None:
    """The ``mcp`` SDK's own SEP-990 client (``IdentityAssertionOAuthProvider``): on the MCP
    server's 401 it asks for an ID-JAG for (issuer, resource), presents it at memguard's token
    endpoint and retries with the access token. Two seams are set by hand: the SDK authenticates
    with a client secret only, memguard takes ``private_key_jwt``, so the method that builds the
    token request signs a client assertion instead; and the SDK's metadata model requires an
    ``authorization_endpoint``, which memguard (no authorization-code flow) rightly does not
    advertise (RFC 8414 2: "REQUIRED unless no grant types are supported that use the
    authorization endpoint"), so the token endpoint is given rather than discovered (the metadata
    itself is checked in the test above)."""
    import httpx2
    from gateway_helpers import running_gateway
    from mcp import Client
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

    from memguard.gateway.server import free_port

    idp = EnterpriseIdp(Clock(time.time()))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    sts = {"issuer": base,
           "id_jag": {"issuers": [{"issuer": IDP, "algorithms": ["ES256"], "jwks": idp.jwks}]}}
    server = {"host": "127.0.0.1", "port": port, "resource": f"{base}/mcp"}

    class Storage:
        def __init__(self) -> None:
            self.tokens: OAuthToken | None = None

        async def get_tokens(self) -> OAuthToken | None:
            return self.tokens

        async def set_tokens(self, tokens: OAuthToken) -> None:
            self.tokens = tokens

        async def get_client_info(self) -> OAuthClientInformationFull | None:
            return None

        async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
            return None

    with running_gateway(tmp_path, mcp=True, sts=sts, server=server) as gw:
        assert gw.resource == f"{base}/mcp"
        seen: list[tuple[str, str]] = []

        async def fetch_id_jag(audience: str, resource: str) -> str:
            seen.append((audience, resource))
            return idp.grant(aud=audience, resource=resource)

        class PrivateKeyJwtProvider(IdentityAssertionOAuthProvider):
            def _build_token_request(self, scope: str | None, assertion: str) -> httpx2.Request:
                assert self._token_endpoint is not None
                data = {"grant_type": JWT_BEARER_GRANT, "assertion": assertion,
                        "resource": self._resource, "client_assertion_type": CLIENT_ASSERTION,
                        # the audience memguard derives from its resource identifier
                        "client_assertion": gw.planner.assertion(gw.sts.token_endpoint,
                                                                 int(time.time()))}
                if scope:
                    data["scope"] = scope
                return httpx2.Request("POST", self._token_endpoint, data=data)

        storage = Storage()
        provider = PrivateKeyJwtProvider(
            server_url=f"{base}/mcp", storage=storage, client_id=PLANNER,
            client_secret="unused: memguard takes private_key_jwt", issuer=base,
            assertion_provider=fetch_id_jag, scope="memory:read memory:write")
        provider._token_endpoint = f"{base}/token"  # see the docstring
        async with create_mcp_http_client(auth=provider) as http:
            transport = streamable_http_client(f"{base}/mcp", http_client=http)
            async with Client(transport, mode="2026-07-28", cache=None) as client:
                wrote = await client.call_tool("remember", {
                    "text": "globex renews in may", "namespace": "ops", "session_id": "s",
                    "source_kind": "user_message"})
                assert not wrote.is_error, wrote.content
        assert seen == [(base, f"{base}/mcp")]
        assert storage.tokens is not None and storage.tokens.scope == "memory:read memory:write"
        data = wrote.structured_content or {}
        writer = dict(data.get("result", data))["provenance"]["writer"]
        assert writer["subject"] == {"issuer": IDP, "subject": "U019488227"}
