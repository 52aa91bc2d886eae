"""Lineage over the gateway, real HTTP on 127.0.0.1: list, revoke and endorse, reads that taint
their turn, and the refusals around them (scopes, policy, selector reach, other users)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from gateway_helpers import Gateway, fact, running_gateway
from helpers import BROWSER, PLANNER

from memguard import AccessDenied, FactNotFound, InvalidRequest, Source, SourceKind, Turn
from memguard.client import AsyncMemguardClient, MemguardClient
from memguard.errors import IdentityError
from memguard.revocation import RevocationSelector

ALL = ("memory:read", "memory:write", "memory:revoke", "memory:endorse")
EVIL = "https://evil.example/lisbon"
#: Delegation grants that let agents carry every scope: their refusals below come from policy.
GRANTS = {"delegation": [
    {"actor": PLANNER, "on_behalf_of": "user", "scopes": list(ALL)},
    {"actor": BROWSER, "on_behalf_of": PLANNER, "scopes": list(ALL)},
]}


@pytest.fixture
def gw(tmp_path: Path) -> Iterator[Gateway]:
    with running_gateway(tmp_path, mcp=False, sts=GRANTS) as gateway:
        yield gateway


def chain(gw: Gateway, subject: str = "alice", scope: str = " ".join(ALL)) -> dict[str, str]:
    """user -> planner -> browser through the gateway's token endpoint, with ``scope``."""
    user = gw.user_token(subject, scopes=ALL)
    client = gw.exchange_client(gw.planner)
    try:
        planner = client.exchange(user, audience=gw.resource, scope=scope).access_token
        actor = gw.svid(BROWSER, use="actor")
        browser = client.exchange(planner, audience=gw.resource, scope=scope,
                                  actor_token=actor).access_token
    finally:
        client.close()
    return {"user": user, "planner": planner, "browser": browser}


def deny_reasons(gw: Gateway, action: str) -> list[str]:
    return [e.reason for e in gw.stack.guard.ledger.events(decision="deny", limit=10_000)
            if e.action == action]


def web(text: str, uri: str = EVIL, turn: int = 1, **kw: Any) -> dict[str, Any]:
    body = fact(text, namespace="research", kind="web", uri=uri, **kw)
    body["turn"] = {"session_id": "s-1", "turn_index": turn}
    return body


def get_status(gw: Gateway, token: str, fact_id: str, workload: str | None = None) -> int:
    return httpx.get(f"{gw.base}/v1/facts/{fact_id}", headers=gw.headers(token, workload),
                     timeout=10).status_code


def listed(gw: Gateway, token: str, workload: str | None = None, **params: Any) -> list[str]:
    """Every fact id ``GET /v1/facts`` shows, following the cursor to the end."""
    ids: list[str] = []
    cursor: str | None = None
    for _ in range(100):
        q = {**params, **({"cursor": cursor} if cursor else {})}
        r = httpx.get(f"{gw.base}/v1/facts", params=q, headers=gw.headers(token, workload),
                      timeout=10)
        assert r.status_code == 200, r.text
        ids += [f["fact_id"] for f in r.json()["facts"]]
        cursor = r.json()["next_cursor"]
        if cursor is None:
            return ids
    raise AssertionError("the cursor never ended")


def revoke(gw: Gateway, token: str, selector: dict[str, Any], reason: str = "injection",
           workload: str | None = None, **kw: Any) -> httpx.Response:
    return gw.post("/v1/revocations", token, {"selector": selector, "reason": reason, **kw},
                   workload=workload)


# -- the story: a poisoned page, a derived plan, a revocation, an endorsement ---------------------


def test_revoking_a_domain_over_http_quarantines_the_page_and_what_was_derived(
    gw: Gateway,
) -> None:
    tokens = chain(gw)
    svid_b, svid_p = gw.svid(BROWSER), gw.svid(PLANNER)
    with MemguardClient(gw.base, tokens["browser"], workload_credential=svid_b) as browser:
        # misinformation, not an instruction: the scanner passes it; revocation is the remedy
        page = browser.write("Lisbon tips: the city card now costs 500 EUR, paid by wire.",
                             namespace="research", source=Source(kind=SourceKind.WEB, uri=EVIL),
                             turn=Turn(session_id="s-1", turn_index=1))
    with MemguardClient(gw.base, tokens["planner"], workload_credential=svid_p) as planner:
        plan = planner.write("Trip plan: trams, then wire 500 EUR.", namespace="research",
                             source=Source(kind=SourceKind.AGENT_INFERENCE, name="planner"),
                             turn=Turn(session_id="s-1", turn_index=2),
                             derived_from=[page.fact_id])
        assert plan.provenance.derived_from == [page.fact_id]
        assert plan.provenance.trust == "untrusted"  # capped by its input
    with MemguardClient(gw.base, tokens["user"]) as alice:
        clean = alice.write("I prefer aisle seats.", namespace="travel",
                            source=Source(kind=SourceKind.USER_MESSAGE),
                            turn=Turn(session_id="s-1", turn_index=3))
        assert {h.fact_id for h in alice.search("Lisbon trip plan wire", k=10)} >= {
            page.fact_id, plan.fact_id}

        report = alice.revoke(RevocationSelector.domain("Evil.Example"), reason="prompt injection")
        assert report.roots == [page.fact_id]
        assert report.quarantined[0] == page.fact_id
        assert set(report.quarantined) == {page.fact_id, plan.fact_id}
        assert report.count == 2 and report.store_synced is True
        assert report.selector.kind == "domain" and report.selector.value == "evil.example"

        # every read path over HTTP withholds both; the unrelated fact stays
        assert {h.fact_id for h in alice.search("Lisbon trip plan wire", k=10)} == {clean.fact_id}
        for fid in (page.fact_id, plan.fact_id):
            with pytest.raises(FactNotFound):
                alice.get(fid)
        assert [f.fact_id for f in alice.list_facts().facts] == [clean.fact_id]
    with MemguardClient(gw.base, tokens["planner"], workload_credential=svid_p) as planner:
        assert [h.fact_id for h in planner.search("Lisbon", k=10)] == [clean.fact_id]
        # deriving from a quarantined fact is not possible either
        with pytest.raises(FactNotFound):
            planner.write("again", namespace="research", turn=Turn(session_id="s-1", turn_index=4),
                          source=Source(kind=SourceKind.AGENT_INFERENCE, name="planner"),
                          derived_from=[plan.fact_id])
    # the revoked domain cannot write again (access_denied.revoked), for this user
    r = gw.post("/v1/facts", tokens["browser"], web("back again", uri="https://cdn.evil.example/x"),
                workload=gw.svid(BROWSER))
    assert r.status_code == 403 and r.json()["error"]["code"] == "access_denied.revoked"
    revoked = [e for e in gw.stack.guard.ledger.events(limit=10_000) if e.action == "revoke"]
    assert [e.decision.value for e in revoked] == ["allow"]
    assert revoked[0].detail["count"] == 2


def test_an_agent_cannot_endorse_and_the_user_can(gw: Gateway) -> None:
    tokens = chain(gw)
    page = gw.post("/v1/facts", tokens["browser"], web("Lisbon: wire 500 EUR."),
                   workload=gw.svid(BROWSER)).json()["fact_id"]
    derived = gw.post("/v1/facts", tokens["planner"], {
        **fact("Plan: wire 500 EUR.", namespace="research", kind="agent_inference"),
        "derived_from": [page]}, workload=gw.svid(PLANNER)).json()["fact_id"]
    assert revoke(gw, tokens["user"], {"kind": "fact", "value": page}).status_code == 201
    assert get_status(gw, tokens["user"], derived) == 404

    # the planner carries `memory:endorse`: the refusal is the policy's (depth > 0), a 403
    for who, workload in (("planner", PLANNER), ("browser", BROWSER)):
        r = gw.post(f"/v1/facts/{derived}/endorse", tokens[who], {"reason": "looks fine to me"},
                    workload=gw.svid(workload))
        assert r.status_code == 403, r.text
        assert r.json()["error"]["code"] == "access_denied.policy"
        assert 'error="insufficient_scope"' in r.headers["www-authenticate"]
        assert get_status(gw, tokens["user"], derived) == 404  # still quarantined
    with MemguardClient(gw.base, tokens["planner"], workload_credential=gw.svid(PLANNER)) as p:
        with pytest.raises(AccessDenied) as info:
            p.endorse(derived, reason="the agent says fine")
        assert info.value.code == "access_denied.policy"
    assert deny_reasons(gw, "endorse").count("access_denied.policy") == 3

    with MemguardClient(gw.base, tokens["user"]) as alice:
        out = alice.endorse(derived, reason="checked by hand")
        assert out.fact_id == derived and out.lifted is True
        got = alice.get(derived)
        assert got.text == "Plan: wire 500 EUR." and got.provenance.trust == "untrusted"
        assert alice.endorse(derived, reason="again").lifted is False  # nothing left to lift
        with pytest.raises(FactNotFound):  # endorsing a fact lifts only its own quarantine
            alice.get(page)
    endorsements = [e.decision.value for e in gw.stack.guard.ledger.events(limit=10_000)
                    if e.action == "endorse"]
    assert endorsements == ["deny", "deny", "deny", "allow", "allow"]


def test_endorse_refusals_unknown_and_out_of_scope_ids_are_404(gw: Gateway) -> None:
    alice, bob = gw.user_token("alice", scopes=ALL), gw.user_token("bob", scopes=ALL)
    bobs = gw.post("/v1/facts", bob, web("bob's page")).json()["fact_id"]
    assert revoke(gw, bob, {"kind": "fact", "value": bobs}).status_code == 201
    unknown = "00000000-0000-4000-8000-000000000000"
    for fid in (bobs, unknown):
        r = gw.post(f"/v1/facts/{fid}/endorse", alice, {"reason": "mine now"})
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        assert "bob" not in r.text
    assert get_status(gw, bob, bobs) == 404  # alice lifted nothing
    assert gw.stack.guard.ledger.lineage.quarantined([bobs]) == {bobs}
    with MemguardClient(gw.base, alice) as client, pytest.raises(FactNotFound):
        client.endorse(bobs, reason="mine now")
    # malformed: a bad id is 422, a blank reason 400 (the guard's check), a missing one 422
    h = gw.headers(alice)
    assert httpx.post(f"{gw.base}/v1/facts/not-an-id/endorse", json={"reason": "x"}, headers=h,
                      timeout=10).status_code == 422
    r = gw.post(f"/v1/facts/{bobs}/endorse", bob, {"reason": "   "})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request"
    assert gw.post(f"/v1/facts/{bobs}/endorse", bob, {}).status_code == 422
    assert gw.post(f"/v1/facts/{bobs}/endorse", bob, {"reason": "x", "extra": 1}
                   ).status_code == 422
    assert get_status(gw, bob, bobs) == 404


# -- scopes -----------------------------------------------------------------------------------------


def test_revoke_and_endorse_need_their_scopes(gw: Gateway) -> None:
    alice = gw.user_token("alice", scopes=ALL)
    page = gw.post("/v1/facts", alice, web("a page")).json()["fact_id"]
    plain = gw.user_token("alice")  # memory:read memory:write
    r = revoke(gw, plain, {"kind": "domain", "value": "evil.example"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "bearer.insufficient_scope"
    challenge = r.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge and 'scope="memory:revoke"' in challenge
    assert gw.stack.guard.ledger.lineage.revocations() == []  # nothing was revoked
    assert get_status(gw, alice, page) == 200
    assert revoke(gw, alice, {"kind": "fact", "value": page}).status_code == 201
    r = gw.post(f"/v1/facts/{page}/endorse", plain, {"reason": "fine"})
    assert r.status_code == 403 and 'scope="memory:endorse"' in r.headers["www-authenticate"]
    assert get_status(gw, alice, page) == 404  # still quarantined
    # endorse does not stand in for revoke, nor revoke for endorse
    only_endorse = gw.user_token("alice", scopes=("memory:read", "memory:endorse"))
    assert revoke(gw, only_endorse, {"kind": "fact", "value": page}).status_code == 403
    only_revoke = gw.user_token("alice", scopes=("memory:read", "memory:revoke"))
    assert gw.post(f"/v1/facts/{page}/endorse", only_revoke, {"reason": "x"}).status_code == 403
    assert deny_reasons(gw, "revoke").count("access_denied.insufficient_scope") == 2
    assert deny_reasons(gw, "endorse").count("access_denied.insufficient_scope") == 2
    with MemguardClient(gw.base, plain) as client, pytest.raises(AccessDenied) as info:
        client.revoke(RevocationSelector.fact(page), reason="x")
    assert info.value.code == "bearer.insufficient_scope"
    # an agent holding only read and write (the usual grant) cannot revoke either
    tokens = chain(gw, scope="memory:read memory:write")
    r = revoke(gw, tokens["planner"], {"kind": "fact", "value": page}, workload=gw.svid(PLANNER))
    assert r.status_code == 403 and r.json()["error"]["code"] == "bearer.insufficient_scope"
    prm = httpx.get(f"{gw.base}/.well-known/oauth-protected-resource", timeout=5).json()
    assert {"memory:revoke", "memory:endorse"} <= set(prm["scopes_supported"])


# -- other users ------------------------------------------------------------------------------------


def test_another_users_revocation_does_not_touch_alices_facts(gw: Gateway) -> None:
    alice, bob = chain(gw, "alice"), chain(gw, "bob")
    svid = gw.svid(BROWSER)
    a_page = gw.post("/v1/facts", alice["browser"], web("alice's page"), workload=svid).json()
    b_page = gw.post("/v1/facts", bob["browser"], web("bob's page"), workload=svid).json()
    r = revoke(gw, bob["user"], {"kind": "domain", "value": "evil.example"})
    assert r.status_code == 201, r.text
    assert r.json()["roots"] == [b_page["fact_id"]]
    assert r.json()["quarantined"] == [b_page["fact_id"]] and r.json()["count"] == 1
    # a fact selector naming alice's fact: outside bob's scope, no roots, nothing quarantined
    r = revoke(gw, bob["user"], {"kind": "fact", "value": a_page["fact_id"]})
    assert r.status_code == 201 and r.json()["roots"] == [] and r.json()["count"] == 0
    # a source pattern, a session, alice's turn: bob's scope only
    for selector in ({"kind": "source_pattern", "value": "*"}, {"kind": "session", "value": "s-1"},
                     {"kind": "turn", "value": "s-1", "turn_index": 1}):
        r = revoke(gw, bob["user"], selector)
        assert r.status_code == 201 and a_page["fact_id"] not in r.text
    assert gw.stack.guard.ledger.lineage.quarantined([a_page["fact_id"]]) == set()
    h = alice["user"]
    assert get_status(gw, h, a_page["fact_id"]) == 200
    hits = gw.post("/v1/search", h, {"query": "alice's page", "k": 5}).json()["facts"]
    assert [f["fact_id"] for f in hits] == [a_page["fact_id"]]
    assert listed(gw, h) == [a_page["fact_id"]]
    # and bob's is gone for bob
    assert get_status(gw, bob["user"], b_page["fact_id"]) == 404


def test_principal_selectors_may_not_bar_other_users(gw: Gateway) -> None:
    alice, bob = chain(gw, "alice"), chain(gw, "bob")
    svid = gw.svid(BROWSER)
    a_page = gw.post("/v1/facts", alice["browser"], web("alice's page"), workload=svid).json()
    alice_jti = a_page["provenance"]["writer"]["token_jti"]
    issuer = a_page["provenance"]["owner"]["issuer"]
    refused = [
        {"kind": "subject", "value": "alice", "issuer": issuer},   # would lock alice out
        {"kind": "workload", "value": BROWSER},                      # every user's browser agent
        {"kind": "jti", "value": alice_jti},                         # alice's browser token
    ]
    for selector in refused:
        r = revoke(gw, bob["user"], selector)
        assert r.status_code == 403, (selector, r.text)
        assert r.json()["error"]["code"] == "access_denied.selector_reach"
        assert 'error="insufficient_scope"' in r.headers["www-authenticate"]
    assert deny_reasons(gw, "revoke") == ["access_denied.selector_reach"] * 3
    assert gw.stack.guard.ledger.lineage.revocations() == []
    # alice and her agents still work
    assert get_status(gw, alice["user"], a_page["fact_id"]) == 200
    assert get_status(gw, alice["browser"], a_page["fact_id"], svid) == 200
    # a workload selector is refused to alice too: a workload serves every user
    assert revoke(gw, alice["user"], refused[1]).status_code == 403
    # bob may bar himself and his own tokens
    b_page = gw.post("/v1/facts", bob["browser"], web("bob's page"), workload=svid).json()
    r = revoke(gw, bob["user"], {"kind": "jti", "value": b_page["provenance"]["writer"]["token_jti"]})
    assert r.status_code == 201 and r.json()["roots"] == [b_page["fact_id"]]
    r = gw.post("/v1/search", bob["browser"], {"query": "x"}, workload=svid)
    assert r.status_code == 401 and r.json()["error"]["code"] == "identity.revoked"
    # alice's jti: the token that wrote alice's page is hers to revoke
    r = revoke(gw, alice["user"], refused[2])
    assert r.status_code == 201 and r.json()["roots"] == [a_page["fact_id"]]
    assert gw.post("/v1/search", alice["browser"], {"query": "x"},
                   workload=svid).status_code == 401
    r = revoke(gw, bob["user"], {"kind": "subject", "value": "bob", "issuer": issuer})
    assert r.status_code == 201
    assert gw.post("/v1/search", bob["user"], {"query": "x"}).status_code == 401
    assert gw.post("/v1/search", alice["user"], {"query": "x"}).status_code == 200


def test_another_users_revocation_does_not_bar_alices_writes(gw: Gateway) -> None:
    alice, bob = gw.user_token("alice", scopes=ALL), gw.user_token("bob", scopes=ALL)
    assert revoke(gw, bob, {"kind": "domain", "value": "evil.example"}).status_code == 201
    r = gw.post("/v1/facts", alice, web("alice reads evil.example herself"))
    assert r.status_code == 201, r.text


def test_quarantined_descendants_outside_the_callers_scope_are_counted_not_shown(
    tmp_path: Path,
) -> None:
    policy = tmp_path / "shared.yaml"
    policy.write_text("""apiVersion: memguard/v1
kind: PolicySet
rules:
  - id: own
    effect: permit
    actions: [search, get, update, delete, revoke, endorse]
    when:
      all:
        - {attr: fact.owner_iss, eq: {attr: principal.issuer}}
        - {attr: fact.owner_sub, eq: {attr: principal.subject}}
  - id: shared
    effect: permit
    actions: [search, get]
    when: {attr: fact.namespace, eq: shared}
  - id: write
    effect: permit
    actions: [write]
""", "utf-8")
    with running_gateway(tmp_path / "gw", mcp=False, sts=GRANTS,
                         policy={"path": str(policy)}) as gw:
        alice, bob = gw.user_token("alice", scopes=ALL), gw.user_token("bob", scopes=ALL)
        shared = gw.post("/v1/facts", alice, web("alice's shared page") | {
            "namespace": "shared"}).json()["fact_id"]
        r = gw.post("/v1/facts", bob, {**fact("bob's notes on it", kind="agent_inference"),
                                       "derived_from": [shared]})
        assert r.status_code == 201, r.text
        bobs = r.json()["fact_id"]
        r = revoke(gw, alice, {"kind": "fact", "value": shared})
        assert r.status_code == 201
        assert r.json()["roots"] == [shared] and r.json()["quarantined"] == [shared]
        assert r.json()["count"] == 2  # containment reached bob's fact ...
        assert bobs not in r.text      # ... whose id alice does not see
        assert get_status(gw, bob, bobs) == 404


# -- selectors --------------------------------------------------------------------------------------


def test_bad_selectors_are_422_or_400(gw: Gateway) -> None:
    alice = gw.user_token("alice", scopes=ALL)
    page = gw.post("/v1/facts", alice, web("a page")).json()["fact_id"]
    bad: list[dict[str, Any]] = [
        {"kind": "planet", "value": "earth"},
        {"kind": "turn", "value": "s-1"},                              # no turn_index
        {"kind": "domain", "value": "evil.example", "turn_index": 1},  # turn_index elsewhere
        {"kind": "subject", "value": "alice"},                         # no issuer
        {"kind": "source", "value": "https://x", "issuer": "i"},
        {"kind": "domain", "value": "https://evil.example/"},          # a URI, not a host
        {"kind": "domain", "value": "evil.example:443"},
        {"kind": "domain", "value": "..."},
        {"kind": "fact", "value": "not-a-uuid"},
        {"kind": "turn", "value": "s-1", "turn_index": -1},
        {"kind": "source", "value": ""},
        {"kind": "source", "value": "https://evil.example/\x00"},
        {"value": "evil.example"},
        {"kind": "domain"},
    ]
    for selector in bad:
        r = revoke(gw, alice, selector)
        assert r.status_code == 422, (selector, r.status_code, r.text)
    for body in ({"selector": {"kind": "domain", "value": "evil.example"}},           # no reason
                 {"selector": {"kind": "domain", "value": "evil.example"}, "reason": ""},
                 {"selector": {"kind": "domain", "value": "evil.example"}, "reason": "x",
                  "follow_context": "sometimes"},
                 {"selector": "evil.example", "reason": "x"}, {}):
        assert gw.post("/v1/revocations", alice, body).status_code == 422, body
    r = revoke(gw, alice, {"kind": "domain", "value": "evil.example"}, reason="   ")
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request"
    assert gw.stack.guard.ledger.lineage.revocations() == []
    assert get_status(gw, alice, page) == 200
    with MemguardClient(gw.base, alice) as client, pytest.raises(InvalidRequest):
        client.revoke(RevocationSelector.domain("evil.example"), reason=" ")


def test_follow_context_false_spares_what_a_tainted_turn_wrote(gw: Gateway) -> None:
    alice = gw.user_token("alice", scopes=ALL)
    page = gw.post("/v1/facts", alice, web("Lisbon page")).json()["fact_id"]
    turn = {"session_id": "s-2", "turn_index": 0}
    hits = gw.post("/v1/search", alice, {"query": "Lisbon page", "k": 5, "turn": turn}).json()
    assert [f["fact_id"] for f in hits["facts"]] == [page]
    note = gw.post("/v1/facts", alice, {**fact("note"), "turn": turn}).json()
    assert note["provenance"]["trust"] == "untrusted"  # the turn read an untrusted page
    r = revoke(gw, alice, {"kind": "fact", "value": page}, follow_context=False)
    assert r.json()["quarantined"] == [page]
    assert get_status(gw, alice, note["fact_id"]) == 200
    r = revoke(gw, alice, {"kind": "source", "value": EVIL})
    assert set(r.json()["quarantined"]) == {page, note["fact_id"]}
    assert get_status(gw, alice, note["fact_id"]) == 404


# -- reads that name their turn ---------------------------------------------------------------------


def test_search_get_and_list_with_a_turn_taint_that_turns_writes(gw: Gateway) -> None:
    alice = gw.user_token("alice", scopes=ALL)
    page = gw.post("/v1/facts", alice, web("Lisbon page")).json()["fact_id"]

    def write_in(turn: int) -> dict[str, Any]:
        body = {**fact(f"note {turn}"), "turn": {"session_id": "t", "turn_index": turn}}
        r = gw.post("/v1/facts", alice, body)
        assert r.status_code == 201, r.text
        return dict(r.json()["provenance"])

    h = gw.headers(alice)
    # turn 0: a search without a turn does not taint
    gw.post("/v1/search", alice, {"query": "Lisbon", "k": 5})
    assert write_in(0)["trust"] == "user"
    # turn 1: search with the turn in its body
    gw.post("/v1/search", alice, {"query": "Lisbon", "k": 5,
                                  "turn": {"session_id": "t", "turn_index": 1}})
    # turn 2: get with the turn in its query
    r = httpx.get(f"{gw.base}/v1/facts/{page}", headers=h, timeout=10,
                  params={"session_id": "t", "turn_index": 2})
    assert r.status_code == 200
    # turn 3: list with the turn in its query
    assert page in listed(gw, alice, session_id="t", turn_index=3)
    for turn in (1, 2, 3):
        prov = write_in(turn)
        assert prov["trust"] == "untrusted" and "turn tainted" in prov["trust_reason"], prov
    # the client sends the turn the same way
    with MemguardClient(gw.base, alice) as client:
        client.get(page, turn=Turn(session_id="t", turn_index=4))
        client.search("Lisbon", turn=Turn(session_id="t", turn_index=5))
        client.list_facts(turn=Turn(session_id="t", turn_index=6))
    for turn in (4, 5, 6):
        assert write_in(turn)["trust"] == "untrusted"
    # half a turn is refused
    for params in ({"session_id": "t"}, {"turn_index": 1}):
        r = httpx.get(f"{gw.base}/v1/facts/{page}", headers=h, params=params, timeout=10)
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request"
        r = httpx.get(f"{gw.base}/v1/facts", headers=h, params=params, timeout=10)
        assert r.status_code == 400
    r = gw.post("/v1/search", alice, {"query": "x", "turn": {"session_id": "t"}})
    assert r.status_code == 422


# -- list -------------------------------------------------------------------------------------------


def test_list_pages_through_the_callers_facts_only(gw: Gateway) -> None:
    alice, bob = gw.user_token("alice", scopes=ALL), gw.user_token("bob", scopes=ALL)
    marker = f"bob-private-{secrets.token_hex(6)}"
    mine = gw.post("/v1/facts/batch", alice, {"facts": [
        fact(f"alice {i}", namespace="a" if i % 2 else "b") for i in range(7)]}).json()["facts"]
    ids = sorted(f["fact_id"] for f in mine)
    gw.post("/v1/facts/batch", bob, {"facts": [fact(f"{marker} {i}") for i in range(6)]})
    h = gw.headers(alice)
    pages: list[list[str]] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        r = httpx.get(f"{gw.base}/v1/facts", params=params, headers=h, timeout=10)
        assert r.status_code == 200 and marker not in r.text
        body = r.json()
        assert all(f["provenance"]["owner"]["subject"] == "alice" for f in body["facts"])
        pages.append([f["fact_id"] for f in body["facts"]])
        cursor = body["next_cursor"]
        if cursor is None:
            break
        assert cursor in ids  # a cursor is one of the caller's own facts
    assert [len(p) for p in pages] == [3, 3, 1]
    assert [fid for p in pages for fid in p] == ids  # fact-id order, no repeats, none missing
    # namespace filter (repeatable), min_trust, the client's pages
    assert sorted(listed(gw, alice, namespace="a")) == sorted(
        f["fact_id"] for f in mine if f["provenance"]["namespace"] == "a")
    assert sorted(listed(gw, alice, namespace=["a", "b"])) == ids
    assert listed(gw, alice, min_trust="verified") == []
    with MemguardClient(gw.base, alice) as client:
        page = client.list_facts(limit=5)
        assert len(page.facts) == 5 and page.next_cursor is not None
        rest = client.list_facts(limit=5, cursor=page.next_cursor)
        assert [f.fact_id for f in page.facts + rest.facts] == ids and rest.next_cursor is None
        assert all(f.provenance.owner.subject == "alice" for f in page.facts)
    # a cursor is only a position: one of alice's ids as bob's cursor shows bob's facts only
    r = httpx.get(f"{gw.base}/v1/facts", params={"cursor": ids[0]}, headers=gw.headers(bob),
                  timeout=10)
    assert r.status_code == 200 and r.json()["facts"]
    assert all(f["provenance"]["owner"]["subject"] == "bob" for f in r.json()["facts"])
    assert not set(ids) & {f["fact_id"] for f in r.json()["facts"]}
    # malformed parameters
    for params in ({"limit": 0}, {"limit": 1001}, {"cursor": "nope"}, {"min_trust": "high"},
                   {"purpose": "Bad Purpose"}, {"namespace": ""}, {"turn_index": -1}):
        r = httpx.get(f"{gw.base}/v1/facts", params=params, headers=h, timeout=10)
        assert r.status_code == 422, (params, r.text)
    # reading needs memory:read
    r = httpx.get(f"{gw.base}/v1/facts", timeout=10,
                  headers=gw.headers(gw.user_token("alice", scopes=("memory:write",))))
    assert r.status_code == 403 and 'scope="memory:read"' in r.headers["www-authenticate"]
    assert "access_denied.insufficient_scope" in deny_reasons(gw, "list")


async def test_async_client_lists_revokes_and_endorses(gw: Gateway) -> None:
    alice = gw.user_token("alice", scopes=ALL)
    async with AsyncMemguardClient(gw.base, alice) as client:
        page = await client.write("async page", namespace="r",
                                  source=Source(kind=SourceKind.WEB, uri=EVIL),
                                  turn=Turn(session_id="s", turn_index=0))
        listing = await client.list_facts(namespaces=["r"], turn=Turn(session_id="s", turn_index=1))
        assert [f.fact_id for f in listing.facts] == [page.fact_id]
        report = await client.revoke(RevocationSelector.source(EVIL), reason="bad page")
        assert report.roots == [page.fact_id]
        assert (await client.list_facts()).facts == []
        with pytest.raises(FactNotFound):
            await client.get(page.fact_id, turn=Turn(session_id="s", turn_index=2))
        assert (await client.endorse(page.fact_id, reason="checked")).lifted is True
        assert (await client.get(page.fact_id)).text == "async page"
        assert [h.fact_id for h in await client.search(
            "async page", turn=Turn(session_id="s", turn_index=3))] == [page.fact_id]
        with pytest.raises(InvalidRequest):
            await client.revoke(RevocationSelector.domain("evil.example"), reason=" ")
    bob = gw.user_token("bob", scopes=ALL)
    async with AsyncMemguardClient(gw.base, bob) as client:
        with pytest.raises(AccessDenied) as info:
            await client.revoke(RevocationSelector.workload(BROWSER), reason="x")
        assert info.value.code == "access_denied.selector_reach"
        with pytest.raises(FactNotFound):
            await client.endorse(page.fact_id, reason="x")


# -- the reference policies -------------------------------------------------------------------------


def test_reference_policies_gate_revoke_and_let_a_responder_revoke_anything(
    tmp_path: Path,
) -> None:
    with running_gateway(tmp_path, mcp=False, sts=GRANTS, policy={"path": "policies"}) as gw:
        tokens = chain(gw)
        svid = gw.svid(BROWSER)
        page = gw.post("/v1/facts", tokens["browser"], web("a page"), workload=svid).json()
        # policies/lineage.yaml: an agent acting for the user may not revoke, even with the scope
        r = revoke(gw, tokens["planner"], {"kind": "domain", "value": "evil.example"},
                   workload=gw.svid(PLANNER))
        assert r.status_code == 403 and r.json()["error"]["code"] == "access_denied.policy"
        assert get_status(gw, tokens["user"], page["fact_id"]) == 200
        # another user: no roots
        bob = gw.user_token("bob", scopes=ALL)
        assert revoke(gw, bob, {"kind": "fact", "value": page["fact_id"]}).json()["roots"] == []
        assert get_status(gw, tokens["user"], page["fact_id"]) == 200
        # the incident responder revokes anyone's facts, and may bar a workload
        ops = gw.user_token("ops", scopes=("memory:revoke", "memory:endorse", "memguard:responder"))
        r = revoke(gw, ops, {"kind": "domain", "value": "evil.example"})
        assert r.status_code == 201 and r.json()["roots"] == [page["fact_id"]]
        assert r.json()["quarantined"] == [page["fact_id"]]
        assert get_status(gw, tokens["user"], page["fact_id"]) == 404
        # ... but endorses nothing
        r = gw.post(f"/v1/facts/{page['fact_id']}/endorse", ops, {"reason": "fine"})
        assert r.status_code in (403, 404)
        assert get_status(gw, tokens["user"], page["fact_id"]) == 404
        r = revoke(gw, ops, {"kind": "workload", "value": BROWSER})
        assert r.status_code == 201, r.text
        r = gw.post("/v1/search", tokens["browser"], {"query": "x"}, workload=svid)
        assert r.status_code == 401 and r.json()["error"]["code"] == "identity.revoked"


def test_openapi_lists_the_lineage_operations(gw: Gateway) -> None:
    doc = httpx.get(f"{gw.base}/openapi.json", timeout=5).json()
    assert {"get", "post"} <= set(doc["paths"]["/v1/facts"])
    assert "post" in doc["paths"]["/v1/revocations"]
    assert "post" in doc["paths"]["/v1/facts/{fact_id}/endorse"]
    selector = doc["components"]["schemas"]["RevokeIn"]["properties"]["selector"]
    assert selector["discriminator"]["propertyName"] == "kind"
    assert set(selector["discriminator"]["mapping"]) == {
        "source", "source_pattern", "domain", "session", "turn", "workload", "jti", "subject",
        "fact"}


def test_identity_errors_on_the_new_routes_are_401(gw: Gateway) -> None:
    fid = "00000000-0000-4000-8000-000000000000"
    for method, path, body in (("GET", "/v1/facts", None),
                               ("POST", "/v1/revocations",
                                {"selector": {"kind": "fact", "value": fid}, "reason": "x"}),
                               ("POST", f"/v1/facts/{fid}/endorse", {"reason": "x"})):
        r = httpx.request(method, f"{gw.base}{path}", json=body, timeout=10)
        assert r.status_code == 401 and "error=" not in r.headers["www-authenticate"]
        r = httpx.request(method, f"{gw.base}{path}", json=body, timeout=10,
                          headers=gw.headers("not-a-jwt"))
        assert r.status_code == 401 and 'error="invalid_token"' in r.headers["www-authenticate"]
    with MemguardClient(gw.base, "garbage") as client, pytest.raises(IdentityError):
        client.list_facts()


# -- MCP ----------------------------------------------------------------------------------------------


async def test_mcp_recall_with_a_turn_taints_it_and_offers_no_endorse(tmp_path: Path) -> None:
    import json

    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    with running_gateway(tmp_path, mcp=True, sts=GRANTS) as gw:
        tokens = chain(gw)
        headers = gw.headers(tokens["browser"], gw.svid(BROWSER))
        async with create_mcp_http_client(headers=headers) as http, streamable_http_client(
            f"{gw.base}/mcp", http_client=http
        ) as streams, ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            tools = {t.name for t in (await session.list_tools()).tools}
            assert "recall" in tools and not tools & {"endorse", "revoke"}

            async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
                result = await session.call_tool(name, args)
                assert not result.is_error, result.content
                data = result.structured_content
                if data is not None:
                    return dict(data.get("result", data))
                return dict(json.loads(result.content[0].text))

            await call("remember", {"text": "Lisbon page", "namespace": "web", "session_id": "m",
                                    "turn_index": 0, "source_kind": "web", "source_uri": EVIL})
            hits = await call("recall", {"query": "Lisbon", "session_id": "m", "turn_index": 1})
            assert len(hits["facts"]) == 1
            await call("recall", {"query": "Lisbon"})  # no turn: nothing tainted
            notes = {}
            for turn in (1, 2):
                notes[turn] = await call("remember", {
                    "text": f"note {turn}", "namespace": "n", "session_id": "m",
                    "turn_index": turn, "source_kind": "tool_output"})
            assert "turn tainted" in notes[1]["provenance"]["trust_reason"]
            assert "turn tainted" not in notes[2]["provenance"]["trust_reason"]
            half = await session.call_tool("recall", {"query": "x", "session_id": "m"})
            assert half.is_error and "invalid_request" in half.content[0].text


def test_the_deletion_fence_holds_over_http(gw: Gateway) -> None:
    """The fence sits in the kernel, so the gateway gets it: a turn that read a fact the user then
    deleted cannot write in that turn (403 access_denied.fenced), and nothing is stored."""
    tokens = chain(gw)
    svid_p = gw.svid(PLANNER)
    with MemguardClient(gw.base, tokens["user"]) as alice:
        note = alice.write("My door code is 4411.", namespace="travel",
                           source=Source(kind=SourceKind.USER_MESSAGE),
                           turn=Turn(session_id="s-9", turn_index=1))
    with MemguardClient(gw.base, tokens["planner"], workload_credential=svid_p) as planner:
        turn = Turn(session_id="s-9", turn_index=2)
        assert [h.fact_id for h in planner.search("door code", k=5, turn=turn)] == [note.fact_id]
        with MemguardClient(gw.base, tokens["user"]) as alice:
            alice.delete(note.fact_id)  # the user forgets it while the agent works
        with pytest.raises(AccessDenied) as refused:
            planner.write("Remember: the door code is 4411.", namespace="travel", turn=turn,
                          source=Source(kind=SourceKind.AGENT_INFERENCE, name="planner"))
        assert refused.value.code == "access_denied.fenced"
        assert planner.search("door code", k=5) == []
    assert "access_denied.fenced" in deny_reasons(gw, "write")
