"""The gateway over real HTTP on 127.0.0.1: the delegation chain through its token endpoint (authlib),
provenance in responses, owner isolation, RFC 6750 refusals, limits, metadata and readiness."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from gateway_helpers import Gateway, fact, running_gateway
from helpers import BROWSER, PLANNER

from memguard import AccessDenied, FactNotFound, IdentityError, Source, SourceKind, Turn
from memguard.client import MemguardClient, RateLimited, RetryPolicy
from memguard.errors import ConfigurationError
from memguard.gateway.config import GatewayConfig, load_gateway_config
from memguard.ledger import FactState
from memguard.tokens import TokenExchangeError


@pytest.fixture
def gw(tmp_path: Path) -> Iterator[Gateway]:
    with running_gateway(tmp_path, mcp=False) as gateway:
        yield gateway


def deny_reasons(gw: Gateway) -> list[str]:
    return [e.reason for e in gw.stack.guard.ledger.events(decision="deny", limit=10_000)]


def test_delegation_chain_writes_and_searches_with_provenance(gw: Gateway) -> None:
    tokens = gw.chain()
    svid = gw.svid(BROWSER)
    with MemguardClient(gw.base, tokens["browser"], workload_credential=svid) as browser:
        out = browser.write("ACME status page: all systems operational.", namespace="web",
                            source=Source(kind=SourceKind.WEB, uri="https://status.acme.example"),
                            turn=Turn(session_id="s-1", turn_index=3))
        assert out.provenance.writer.chain == ["alice", PLANNER, BROWSER]
        assert out.provenance.trust == "untrusted"  # a web page, whatever the caller says
        assert out.provenance.writer.workload_id == BROWSER
        assert out.summary.startswith("[trust=untrusted source=web:https://status.acme.example")
        hits = browser.search("ACME status", k=5)
        assert [h.fact_id for h in hits] == [out.fact_id]
        assert hits[0].provenance.source.uri == "https://status.acme.example"
        got = browser.get(out.fact_id)
        assert got.text.startswith("ACME status") and got.provenance.owner.subject == "alice"
    # the user herself sees it too (same owner), through a bare user token
    with MemguardClient(gw.base, tokens["user"]) as alice:
        assert [h.fact_id for h in alice.search("ACME", k=5)] == [out.fact_id]
    record = gw.stack.guard.ledger.latest([out.fact_id])[out.fact_id]
    assert record.state is FactState.COMMITTED
    assert [a.subject for a in record.provenance.writer.actors] == [PLANNER, BROWSER]


def test_batch_write_update_delete_and_audit(gw: Gateway) -> None:
    token = gw.user_token()
    r = gw.post("/v1/facts/batch", token, {"facts": [fact("one"), fact("two", namespace="b")]})
    assert r.status_code == 201, r.text
    ids = [f["fact_id"] for f in r.json()["facts"]]
    assert all(f["provenance"]["trust"] == "user" for f in r.json()["facts"])
    h = gw.headers(token)
    r = httpx.put(f"{gw.base}/v1/facts/{ids[0]}", headers=h, timeout=10, json={
        "text": "one, revised", "source": {"kind": "tool_output", "name": "calc"},
        "turn": {"session_id": "s-1", "turn_index": 1}})
    assert r.status_code == 200 and r.json()["provenance"]["version"] == 2
    assert r.json()["provenance"]["trust"] == "tool"
    audit = httpx.get(f"{gw.base}/v1/facts/{ids[0]}/audit", headers=h, timeout=10)
    assert audit.status_code == 200, audit.text
    body = audit.json()
    assert body["schema"] == "memguard.audit/v1" and body["verification"]["verified"] is True
    assert [v["state"] for v in body["versions"]] == ["superseded", "committed"]
    assert httpx.delete(f"{gw.base}/v1/facts/{ids[1]}", headers=h, timeout=10).status_code == 204
    assert httpx.get(f"{gw.base}/v1/facts/{ids[1]}", headers=h, timeout=10).status_code == 404


def test_another_users_chain_cannot_touch_alices_facts(gw: Gateway) -> None:
    alice = gw.chain("alice")
    bob = gw.chain("bob")
    svid = gw.svid(BROWSER)
    marker = f"alice-secret-{secrets.token_hex(6)}"
    with MemguardClient(gw.base, alice["browser"], workload_credential=svid) as a:
        fact_id = a.write(marker, namespace="notes", source=Source(kind=SourceKind.USER_MESSAGE),
                          turn=Turn(session_id="s", turn_index=0)).fact_id
    with MemguardClient(gw.base, bob["browser"], workload_credential=svid) as b:
        assert all(marker not in h.text for h in b.search(marker, k=50))
        with pytest.raises(FactNotFound):
            b.get(fact_id)
        with pytest.raises(FactNotFound):
            b.update(fact_id, "overwritten by bob", source=Source(kind=SourceKind.USER_MESSAGE),
                     turn=Turn(session_id="s", turn_index=1))
        with pytest.raises(FactNotFound):
            b.delete(fact_id)
        with pytest.raises(FactNotFound):
            b.audit(fact_id)
    # bob's user token, no agents: same
    h = gw.headers(bob["user"])
    for method, path in [("GET", f"/v1/facts/{fact_id}"), ("DELETE", f"/v1/facts/{fact_id}"),
                         ("GET", f"/v1/facts/{fact_id}/audit")]:
        r = httpx.request(method, f"{gw.base}{path}", headers=h, timeout=10)
        assert r.status_code == 404 and marker not in r.text
    with MemguardClient(gw.base, alice["user"]) as a:
        assert a.get(fact_id).text == marker  # untouched
        assert a.get(fact_id).provenance.version == 1


def test_missing_bad_and_expired_tokens_are_401_with_a_challenge(gw: Gateway) -> None:
    r = gw.post("/v1/search", None, {"query": "x"})
    assert r.status_code == 401
    challenge = r.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and "error=" not in challenge  # RFC 6750 3.1
    assert f'resource_metadata="{gw.base}/.well-known/oauth-protected-resource"' in challenge
    before = len(deny_reasons(gw))
    for token in ["not-a-jwt", gw.user_token()[:-4] + "AAAA", "a.b.c"]:
        r = gw.post("/v1/search", token, {"query": "x"})
        assert r.status_code == 401, r.text
        assert 'error="invalid_token"' in r.headers["www-authenticate"]
        assert token not in r.text
    assert len(deny_reasons(gw)) >= before + 3  # refusals are audited
    now = int(time.time())
    expired = gw.sts.access_keys.sign({
        "iss": gw.sts.issuer, "sub": "alice", "aud": gw.resource, "iat": now - 3600,
        "exp": now - 600, "jti": "old", "client_id": "c", "scope": "memory:read"}, "at+jwt")
    r = gw.post("/v1/search", expired, {"query": "x"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "identity.expired"
    assert 'error="invalid_token"' in r.headers["www-authenticate"]
    other_aud = gw.user_token(audience="https://elsewhere.example")
    r = gw.post("/v1/search", other_aud, {"query": "x"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "identity.bad_audience"
    r = httpx.post(f"{gw.base}/v1/search", json={"query": "x"}, timeout=10,
                   headers={"Authorization": f"Basic {gw.user_token()}"})
    assert r.status_code == 401


def test_presenter_binding_over_http(gw: Gateway) -> None:
    tokens = gw.chain()
    # a delegated token without its actor's workload credential
    r = gw.post("/v1/search", tokens["browser"], {"query": "x"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "identity.unbound"
    # the planner's credential presented with the browser's token
    r = gw.post("/v1/search", tokens["browser"], {"query": "x"}, workload=gw.svid(PLANNER))
    assert r.status_code == 401 and r.json()["error"]["code"] == "identity.presenter_mismatch"
    # a bare user token presented by a workload
    r = gw.post("/v1/search", tokens["user"], {"query": "x"}, workload=gw.svid(BROWSER))
    assert r.status_code == 401 and r.json()["error"]["code"] == "identity.impersonation"


def test_token_in_query_or_form_is_refused(gw: Gateway) -> None:
    token = gw.user_token()
    r = httpx.post(f"{gw.base}/v1/search?access_token={token}", json={"query": "x"}, timeout=10)
    assert r.status_code == 400
    assert 'error="invalid_request"' in r.headers["www-authenticate"]
    # even with the header present as well (RFC 6750 3.1: more than one method)
    r = httpx.post(f"{gw.base}/v1/search?access_token={token}", json={"query": "x"},
                   headers=gw.headers(token), timeout=10)
    assert r.status_code == 400
    r = httpx.get(f"{gw.base}/v1/facts/00000000-0000-4000-8000-000000000000",
                  params={"ACCESS_TOKEN": token}, timeout=10)
    assert r.status_code == 400
    r = httpx.post(f"{gw.base}/v1/search", data={"access_token": token, "query": "x"}, timeout=10)
    assert r.status_code == 400 and "invalid_request" in r.headers["www-authenticate"]
    assert token not in r.text
    # two Authorization headers
    r = httpx.post(f"{gw.base}/v1/search", json={"query": "x"}, timeout=10,
                   headers=[("Authorization", f"Bearer {token}"), ("Authorization", "Bearer x")])
    assert r.status_code == 400


def test_insufficient_scope_is_403_with_challenge(gw: Gateway) -> None:
    read_only = gw.user_token(scopes=("memory:read",))
    r = gw.post("/v1/facts", read_only, fact("x"))
    assert r.status_code == 403
    assert 'error="insufficient_scope"' in r.headers["www-authenticate"]
    assert 'scope="memory:write"' in r.headers["www-authenticate"]
    assert "access_denied.insufficient_scope" in deny_reasons(gw)
    # a trust escalation is a 403 from the guard
    r = gw.post("/v1/facts", gw.user_token(), fact("x", kind="web", trust="user"))
    assert r.status_code == 403 and r.json()["error"]["code"] == "access_denied.trust_escalation"
    r = gw.post("/v1/facts", gw.user_token(), fact("x", metadata={"trust": "system"}))
    assert r.status_code == 403 and r.json()["error"]["code"] == "access_denied.reserved_field"


def test_time_to_live_over_http(gw: Gateway) -> None:
    token = gw.user_token()
    h = gw.headers(token)
    r = gw.post("/v1/facts", token, {**fact("the door code is 4411"), "ttl_seconds": 60})
    assert r.status_code == 201, r.text
    one = r.json()
    assert one["provenance"]["expires_at"] is not None
    record = gw.stack.guard.ledger.latest([one["fact_id"]])[one["fact_id"]]
    assert record.provenance.ttl_seconds == 60
    r = httpx.put(f"{gw.base}/v1/facts/{one['fact_id']}", headers=h, timeout=10, json={
        "text": "the door code is 5522", "source": {"kind": "user_message", "name": "chat"},
        "turn": {"session_id": "s-1", "turn_index": 2}})
    assert r.status_code == 200, r.text
    assert r.json()["provenance"]["expires_at"] is not None  # an update keeps the time-to-live
    r = gw.post("/v1/facts/batch", token, {"facts": [{**fact("a"), "ttl_seconds": 30},
                                                     {**fact("b"), "ttl_seconds": 30}]})
    assert r.status_code == 201, r.text
    ids = [f["fact_id"] for f in r.json()["facts"]]
    heads = gw.stack.guard.ledger.latest(ids)
    assert {heads[i].provenance.ttl_seconds for i in ids} == {30}
    plain = gw.post("/v1/facts", token, fact("no expiry")).json()
    assert plain["provenance"]["expires_at"] is None
    for bad in [{"facts": [{**fact("a"), "ttl_seconds": 30}, fact("b")]},  # one ttl per batch
                {"facts": [{**fact("a"), "ttl_seconds": 0}]}]:
        assert gw.post("/v1/facts/batch", token, bad).status_code == 422
    for ttl in [0, -1, True, 10**12, "60"]:
        assert gw.post("/v1/facts", token, {**fact("x"), "ttl_seconds": ttl}).status_code == 422


def test_invalid_requests_are_400_or_422_never_500(gw: Gateway) -> None:
    token = gw.user_token()
    for body in [{"query": ""}, {"query": "x", "k": 0}, {"query": "x", "k": 10_000},
                 {"query": "x", "namespaces": []}, {"nope": 1}]:
        assert gw.post("/v1/search", token, body).status_code == 422
    r = gw.post("/v1/facts", token, fact("x", namespace="bad\u200bname"))
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request"
    r = httpx.get(f"{gw.base}/v1/facts/not-a-uuid", headers=gw.headers(token), timeout=10)
    assert r.status_code == 422
    r = gw.post("/v1/facts", token, fact("x", derived_from=["00000000-0000-4000-8000-000000000000"]))
    assert r.status_code == 404


def test_oversize_body_is_413(gw: Gateway) -> None:
    token = gw.user_token()
    big = fact("x" * (2 << 20))
    r = gw.post("/v1/facts", token, big)
    assert r.status_code == 413 and r.json()["error"]["code"] == "limits.body_too_large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while streaming
        yield b'{"text": "'
        for _ in range(40):
            yield b"y" * 65536
        yield b'"}'

    r = httpx.post(f"{gw.base}/v1/facts", content=chunks(), timeout=10,
                   headers={**gw.headers(token), "content-type": "application/json"})
    assert r.status_code == 413


def test_memory_rate_limit_is_429_with_retry_after(tmp_path: Path) -> None:
    with running_gateway(tmp_path, mcp=False,
                         limits={"memory_rate": {"per_minute": 6, "burst": 3}}) as gw:
        alice, bob = gw.user_token("alice"), gw.user_token("bob")
        codes = [gw.post("/v1/search", alice, {"query": "x"}).status_code for _ in range(5)]
        assert codes[:3] == [200, 200, 200] and codes[3:] == [429, 429]
        r = gw.post("/v1/search", alice, {"query": "x"})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        assert gw.post("/v1/search", bob, {"query": "x"}).status_code == 200  # per principal
        with MemguardClient(gw.base, alice, retry=RetryPolicy.none()) as client, pytest.raises(
                RateLimited) as info:
            client.search("x")
        assert info.value.retry_after >= 1


def test_token_endpoint_rate_limit_per_authenticated_client(tmp_path: Path) -> None:
    with running_gateway(tmp_path, mcp=False,
                         limits={"token_rate": {"per_minute": 2, "burst": 2}}) as gw:
        # requests that only claim the planner's id are not the planner's: they spend nothing
        for _ in range(3):
            r = httpx.post(f"{gw.base}/token", data={"client_id": PLANNER, "grant_type": "x"},
                           timeout=10)
            assert r.status_code == 400 and r.json()["error"] == "unsupported_grant_type"
        planner = gw.exchange_client(gw.planner)
        for _ in range(2):
            planner.exchange(gw.user_token(), audience=gw.resource, scope="memory:read")
        with pytest.raises(TokenExchangeError) as limited:
            planner.exchange(gw.user_token(), audience=gw.resource, scope="memory:read")
        assert limited.value.error == "temporarily_unavailable"
        planner.close()
        events = [e for e in gw.stack.guard.ledger.events(decision="deny")
                  if e.action == "token_exchange"]
        assert [e.reason for e in events][-1] == "temporarily_unavailable:limits.rate_limited"
        # another client is not affected
        browser = gw.exchange_client(gw.browser)
        with pytest.raises(TokenExchangeError) as info:  # refused by the STS, not the limiter
            browser.exchange(gw.user_token(), audience=gw.resource, scope="memory:read")
        assert info.value.error == "invalid_grant"
        browser.close()


def test_timeout_is_504_and_overload_is_503(tmp_path: Path) -> None:
    with running_gateway(tmp_path, mcp=False, limits={"request_timeout": 0.001}) as gw:
        r = gw.post("/v1/facts/batch", gw.user_token(), {"facts": [fact(f"f{i}") for i in range(64)]})
        assert r.status_code == 504 and r.json()["error"]["code"] == "limits.timeout"
        assert httpx.get(f"{gw.base}/healthz", timeout=5).status_code == 200  # not limited
    with running_gateway(tmp_path / "b", mcp=False,
                         limits={"max_concurrency": 1, "queue_timeout": 0}) as gw:
        token = gw.user_token()
        codes: list[int] = []

        def hit() -> None:
            r = gw.post("/v1/facts/batch", token, {"facts": [fact(f"f{i}") for i in range(32)]})
            codes.append(r.status_code)
            if r.status_code == 503:
                assert r.headers["retry-after"] == "1"

        threads = [threading.Thread(target=hit) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert 503 in codes and 201 in codes and set(codes) <= {201, 503}


def test_metadata_jwks_openapi_health(gw: Gateway) -> None:
    prm = httpx.get(f"{gw.base}/.well-known/oauth-protected-resource", timeout=5).json()
    assert prm["resource"] == gw.resource
    assert prm["authorization_servers"][0] == gw.sts.issuer
    assert prm["bearer_methods_supported"] == ["header"]
    assert set(prm["scopes_supported"]) == {"memory:read", "memory:write", "memory:revoke",
                                            "memory:endorse"}
    jwks = httpx.get(f"{gw.base}/.well-known/jwks.json", timeout=5).json()
    assert jwks == gw.sts.jwks() and all("d" not in k for k in jwks["keys"])
    meta = httpx.get(f"{gw.base}/.well-known/oauth-authorization-server", timeout=5).json()
    assert meta["token_endpoint"] == f"{gw.base}/token"
    doc = httpx.get(f"{gw.base}/openapi.json", timeout=5).json()
    assert {"/v1/facts", "/v1/search", "/v1/facts/{fact_id}", "/v1/facts/{fact_id}/audit"} <= set(
        doc["paths"])
    assert "HTTPBearer" in doc["components"]["securitySchemes"]
    assert httpx.get(f"{gw.base}/healthz", timeout=5).json() == {"status": "ok"}
    ready = httpx.get(f"{gw.base}/readyz", timeout=5)
    assert ready.status_code == 200 and ready.json()["checks"] == {
        "policy": "ok", "keys": "ok", "ledger": "ok", "store": "ok"}


def test_readiness_fails_without_keys_or_policy(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(Path("policies/isolation.yaml").read_text("utf-8"), "utf-8")
    with running_gateway(tmp_path, mcp=False,
                         policy={"path": str(policy), "reload_interval": 0.01}) as gw:
        assert httpx.get(f"{gw.base}/readyz", timeout=5).status_code == 200
        ring = gw.sts.access_keys
        pem = ring.dir / f"{ring.active_kid}.pem"
        pem.rename(pem.with_suffix(".gone"))
        time.sleep(1.1)
        r = httpx.get(f"{gw.base}/readyz", timeout=5)
        assert r.status_code == 503 and r.json()["checks"]["keys"] != "ok"
        pem.with_suffix(".gone").rename(pem)
        time.sleep(1.1)
        assert httpx.get(f"{gw.base}/readyz", timeout=5).status_code == 200
        # a policy file that stops validating: the last good set still decides, not ready
        policy.write_text("apiVersion: memguard/v1\nkind: PolicySet\nrules: [{id: x, bogus: 1}]\n",
                          "utf-8")
        time.sleep(1.1)
        r = httpx.get(f"{gw.base}/readyz", timeout=5)
        assert r.status_code == 503 and r.json()["checks"]["policy"] == "configuration.policy"
        token = gw.user_token()
        assert gw.post("/v1/facts", token, fact("still governed")).status_code == 201
    resolver_cfg: dict[str, Any] = {"path": str(tmp_path / "missing-policies")}
    with pytest.raises(ConfigurationError):
        with running_gateway(tmp_path / "p", mcp=False, policy=resolver_cfg):
            pass


def test_policy_gates_audit_and_reads(tmp_path: Path) -> None:
    with running_gateway(tmp_path, mcp=False, policy={"path": "policies"},
                         scopes={"audit": None}) as gw:
        token = gw.user_token()
        fact_id = gw.post("/v1/facts", token, fact("mine")).json()["fact_id"]
        h = gw.headers(token)
        assert httpx.get(f"{gw.base}/v1/facts/{fact_id}", headers=h, timeout=5).status_code == 200
        # the reference policies grant `audit` to the auditor scope only
        r = httpx.get(f"{gw.base}/v1/facts/{fact_id}/audit", headers=h, timeout=5)
        assert r.status_code == 403 and r.json()["error"]["code"] == "access_denied.policy"
        auditor = gw.user_token("carol", scopes=("memory:read", "memguard:auditor"))
        ha = gw.headers(auditor)
        r = httpx.get(f"{gw.base}/v1/facts/{fact_id}/audit", headers=ha, timeout=5)
        assert r.status_code == 200 and r.json()["fact_id"] == fact_id
        assert "mine" not in r.text  # provenance and readers, never the content
        assert httpx.get(f"{gw.base}/v1/facts/{fact_id}", headers=ha, timeout=5).status_code in (
            403, 404)
        actions = [(e.action, e.decision.value) for e in gw.stack.guard.ledger.events(limit=1000)]
        assert ("audit", "deny") in actions and ("audit", "allow") in actions


def test_config_errors_are_clear(tmp_path: Path) -> None:
    bad = tmp_path / "gw.yaml"
    bad.write_text("version: 1\nlimits:\n  max_body: 10\n", "utf-8")
    with pytest.raises(ConfigurationError, match=r"gw.yaml:3:3: key `limits.max_body`: unknown key"):
        load_gateway_config(bad)
    bad.write_text("version: 1\nserver: {port: 0}\n", "utf-8")
    with pytest.raises(ConfigurationError, match=r"server\.port"):
        load_gateway_config(bad)
    bad.write_text("sts: {enabled: false}\n", "utf-8")
    with pytest.raises(ConfigurationError, match=r"identity\.config"):
        load_gateway_config(bad)
    bad.write_text("- a\n", "utf-8")
    with pytest.raises(ConfigurationError, match="mapping"):
        load_gateway_config(bad)
    ident = tmp_path / "identity.yaml"
    ident.write_text(
        "version: 1\naccess_tokens:\n  audience: something-else\n  issuers:\n"
        "    - {issuer: https://idp.example, jwks: {keys: []}}\n", "utf-8")
    from memguard.gateway.stack import open_stack

    cfg = GatewayConfig.from_mapping({"state_dir": str(tmp_path / "s"),
                                      "identity": {"config": str(ident)}})
    with pytest.raises(ConfigurationError, match="audience"):
        open_stack(cfg)
    assert load_gateway_config(None) == GatewayConfig()


def test_client_maps_errors(gw: Gateway) -> None:
    with MemguardClient(gw.base, "garbage") as client, pytest.raises(IdentityError):
        client.search("x")
    with MemguardClient(gw.base, gw.user_token(scopes=("memory:read",))) as client:
        with pytest.raises(AccessDenied) as info:
            client.write("x", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                         turn=Turn(session_id="s", turn_index=0))
        assert info.value.code == "bearer.insufficient_scope"
