"""The audit console's pages over HTTP (Starlette's test client, real guard, ledger and keys):
sign-in, scoping (another owner's facts refused, withheld or counted, never named), filters, the
fact page, the revocation preview and its CSRF-protected confirmation, ledger health, headers,
and the console mounted in the gateway behind its bearer token."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from console_helpers import World, world
from starlette.testclient import TestClient
from test_console_graph import contrast

from memguard.console.app import create_console_app
from memguard.console.graph import TRUST_STYLE
from memguard.console.signin import LocalSignIn
from memguard.events import Decision

CSS = Path(__file__).resolve().parent.parent / "memguard" / "console" / "static" / "console.css"


@pytest.fixture
def w(tmp_path: Path) -> Iterator[World]:
    with world(tmp_path) as built:
        yield built


@pytest.fixture
def signin(w: World) -> LocalSignIn:
    return LocalSignIn(w.guard, w.tokens)


@pytest.fixture
def app(w: World, signin: LocalSignIn) -> Any:
    return create_console_app(w.guard, signin, allowed_hosts=["testserver"])


def _csrf(html: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match, html[:2000]
    return match.group(1)


def sign_in(client: TestClient, signin: LocalSignIn | None, subject: str = "alice",
            scopes: str = "memory") -> TestClient:  # fmt: skip
    if signin is not None:
        res = client.get(signin.sign_in_path())
        assert res.status_code == 303 and res.headers["location"] == "/signin/pick"
    pick = client.get("/signin/pick")
    assert pick.status_code == 200
    res = client.post("/signin/pick", data={"csrf": _csrf(pick.text), "subject": subject,
                                            "other": "", "scopes": scopes})  # fmt: skip
    assert res.status_code == 303 and res.headers["location"] == "/facts", res.text[:500]
    return client


@pytest.fixture
def alice(app: Any, signin: LocalSignIn) -> TestClient:
    return sign_in(TestClient(app, follow_redirects=False), signin)


def _fact_ids(html: str) -> list[str]:
    return re.findall(r'class="fact-link mono" href="[^"]+" data-fact-id="([^"]+)"', html)


def _denials(w: World, reason: str) -> int:
    return sum(e.reason == reason for e in w.guard.ledger.events(decision=Decision.DENY.value))


# -- sign-in ------------------------------------------------------------------------------------------


def test_pages_need_a_session_and_the_link_works_once(app: Any, signin: LocalSignIn, w: World) -> None:
    client = TestClient(app, follow_redirects=False)
    for path in ("/facts", f"/facts/{w.a_page}", "/health", "/revoke/preview?kind=fact&value=x"):
        res = client.get(path)
        assert res.status_code == 303 and res.headers["location"] == "/signin", path
    assert client.post("/revoke", data={"kind": "fact", "value": w.a_page}).status_code == 303
    assert client.get("/signin?code=guess").status_code == 403
    assert _denials(w, "console.signin_link") == 1
    path = signin.sign_in_path()
    res = client.get(path)
    cookie = res.headers["set-cookie"]
    assert res.status_code == 303 and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert TestClient(app, follow_redirects=False).get(path).status_code == 403  # spent
    assert client.get("/facts").headers["location"] == "/signin"  # no principal chosen yet
    sign_in(client, None)
    assert client.get("/facts").status_code == 200


def test_picking_a_principal_is_csrf_protected(app: Any, signin: LocalSignIn, w: World) -> None:
    client = TestClient(app, follow_redirects=False)
    client.get(signin.sign_in_path())
    res = client.post("/signin/pick", data={"csrf": "forged", "subject": "alice"})
    assert res.status_code == 403 and _denials(w, "console.csrf") == 1
    pick = client.get("/signin/pick").text
    assert "alice" in pick and "bob" in pick
    res = client.post("/signin/pick", data={"csrf": _csrf(pick), "subject": "alice"},
                      headers={"origin": "https://evil.example"})  # fmt: skip
    assert res.status_code == 403 and _denials(w, "console.csrf") == 2
    res = client.post("/signin/pick", data={"csrf": _csrf(pick), "subject": "al\u200bice"})
    assert res.status_code == 401  # the identifier is refused by the verifier, not signed in
    assert client.get("/facts").status_code == 303


def test_sign_out(alice: TestClient) -> None:
    csrf = _csrf(alice.get("/facts").text)
    assert alice.post("/signout", data={"csrf": csrf}).status_code == 303
    assert alice.get("/facts").headers["location"] == "/signin"


# -- scoping -------------------------------------------------------------------------------------------


def test_facts_are_the_principals_own(alice: TestClient, w: World) -> None:
    res = alice.get("/facts")
    assert res.status_code == 200
    assert set(_fact_ids(res.text)) == {w.a_page, w.a_summary, w.a_mixed}
    assert w.b_shared not in res.text and w.b_after not in res.text
    assert 'id="principal">alice<' in res.text


def test_another_owners_fact_is_a_refusal(alice: TestClient, w: World) -> None:
    before = _denials(w, "not_found")
    for fact_id in (w.b_shared, w.b_after, "00000000-0000-0000-0000-000000000000"):
        res = alice.get(f"/facts/{fact_id}")
        assert res.status_code == 404 and 'id="refusal"' in res.text
        assert "outside your scope" in res.text and "Bob" not in res.text
    assert _denials(w, "not_found") == before + 3  # each refusal is an audit event


def test_filters(alice: TestClient, w: World) -> None:
    def ids(**query: str) -> set[str]:
        res = alice.get("/facts", params=query)
        assert res.status_code == 200, res.text[:500]
        return set(_fact_ids(res.text))

    # the page is untrusted, and so is everything written from it (its summary, and the note
    # written in a turn that had read it)
    assert ids(trust="untrusted") == {w.a_page, w.a_summary, w.a_mixed}
    assert ids(trust="user") == set()
    assert ids(source_kind="web") == {w.a_page}
    assert ids(source="lisbon-travel") == {w.a_page}
    assert ids(session="a-1") == {w.a_page, w.a_summary, w.a_mixed}
    assert ids(session="b-1") == set()
    assert ids(writer="alice") == {w.a_page, w.a_summary, w.a_mixed}
    assert ids(state="quarantined") == set()
    assert ids(state="committed") == {w.a_page, w.a_summary, w.a_mixed}
    for bad in ({"trust": "godlike"}, {"state": "gone"}, {"source_kind": "dream"}):
        assert alice.get("/facts", params=bad).status_code == 400, bad


def test_paging(w: World, alice: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    import memguard.console.pages as pages

    monkeypatch.setattr(pages, "PAGE_SIZE", 2)
    first = alice.get("/facts")
    assert len(_fact_ids(first.text)) == 2
    link = re.search(r'href="(/facts\?[^"]+)" rel="next"', first.text)
    assert link
    second = alice.get(link.group(1).replace("&amp;", "&"))
    assert len(_fact_ids(second.text)) == 1 and 'rel="next"' not in second.text
    assert set(_fact_ids(first.text) + _fact_ids(second.text)) == {w.a_page, w.a_summary, w.a_mixed}


# -- the fact page -----------------------------------------------------------------------------------------


def test_fact_page(alice: TestClient, w: World) -> None:
    res = alice.get(f"/facts/{w.a_mixed}")
    assert res.status_code == 200
    html = res.text
    assert 'id="writer-chain">alice<' in html and "user_message" in html
    assert 'id="scanner-verdict"' in html and "No scanner verdict" in html
    # the graph: alice's page is linked, bob's shared fact is an anonymous withheld node
    assert f'data-fact-id="{w.a_page}"' in html and f'href="/facts/{w.a_page}"' in html
    assert w.b_shared not in html and 'class="node ancestor withheld"' in html
    assert 'id="withheld-note">1 linked fact' in html
    edges = re.findall(r'data-from="([^"]+)" data-to="([^"]+)" data-kind="([a-z]+)"', html)
    assert (w.a_page, w.a_mixed, "context") in edges and len(edges) == 2
    # the audit trail, with the inclusion of each event checked
    assert re.search(r'id="inclusion">(ok|ok_unsigned)<', html)
    assert "Show the text" in html and "Pack light" not in html


def test_text_on_request_is_a_recorded_read(alice: TestClient, w: World) -> None:
    reads_before = len(w.guard.audit(_alice(w), w.a_summary)["reads"])
    res = alice.get(f"/facts/{w.a_summary}", params={"text": "1"})
    assert 'id="fact-text">Lisbon: trams and pastries.<' in res.text
    assert len(w.guard.audit(_alice(w), w.a_summary)["reads"]) == reads_before + 1


def _alice(w: World) -> Any:
    return w.guard.authenticate(w.tokens.issue("alice", scopes=["memory"]))


# -- revocation --------------------------------------------------------------------------------------------


def test_revocation_preview_counts_other_owners_without_naming_them(alice: TestClient, w: World) -> None:
    res = alice.get(f"/facts/{w.a_page}")
    links = re.findall(r'class="preview-link" data-kind="([a-z]+)" href="([^"]+)"', res.text)
    kinds = [k for k, _ in links]
    assert kinds == ["fact", "source", "domain", "session", "turn"]
    href = dict(links)["domain"].replace("&amp;", "&")
    preview = alice.get(href)
    assert preview.status_code == 200
    assert set(_fact_ids(preview.text)) == {w.a_page, w.a_summary, w.a_mixed}
    assert w.b_after not in preview.text
    assert re.search(r'id="hidden-count"><strong>1</strong> fact\(s\) of other owners', preview.text)
    assert "would quarantine <strong>4</strong>" in preview.text
    # a preview changes nothing
    assert not w.guard.ledger.lineage.quarantined([w.a_page, w.b_after])
    events = [e for e in w.guard.ledger.events() if e.action == "revoke_preview"]
    assert len(events) == 1 and events[0].decision is Decision.ALLOW


def test_revoke_needs_the_csrf_token_and_the_same_origin(alice: TestClient, w: World) -> None:
    preview = alice.get("/revoke/preview", params={"kind": "fact", "value": w.a_page})
    form = {"csrf": _csrf(preview.text), "kind": "fact", "value": w.a_page, "reason": "injection"}
    assert alice.post("/revoke", data={**form, "csrf": "x"}).status_code == 403
    res = alice.post("/revoke", data=form, headers={"origin": "https://evil.example"})
    assert res.status_code == 403
    res = alice.post("/revoke", data=form, headers={"sec-fetch-site": "cross-site"})
    assert res.status_code == 403
    assert _denials(w, "console.csrf") == 3
    assert not w.guard.ledger.lineage.quarantined([w.a_page])
    assert alice.post("/revoke", data={**form, "reason": ""}).status_code == 400
    res = alice.post("/revoke", data=form, headers={"origin": "http://testserver",
                                                    "sec-fetch-site": "same-origin"})  # fmt: skip
    assert res.status_code == 200 and 'id="revoked-summary"' in res.text
    held = w.guard.ledger.lineage.quarantined([w.a_page, w.a_summary, w.a_mixed, w.b_after])
    assert held == {w.a_page, w.a_summary, w.a_mixed, w.b_after}  # containment crosses owners
    assert w.b_after not in res.text and "1 fact(s) of other owners" in res.text


def test_the_console_offers_no_principal_selectors(alice: TestClient, w: World) -> None:
    res = alice.get("/revoke/preview", params={"kind": "subject", "value": "bob"})
    assert res.status_code == 400
    res = alice.get("/revoke/preview", params={"kind": "turn", "value": "a-1"})
    assert res.status_code == 400  # a turn needs its index


def test_bob_cannot_preview_or_revoke_alices_fact(app: Any, w: World) -> None:
    signin = LocalSignIn(w.guard, w.tokens)
    bob = sign_in(TestClient(create_console_app(w.guard, signin), follow_redirects=False),
                  signin, "bob")  # fmt: skip
    preview = bob.get("/revoke/preview", params={"kind": "fact", "value": w.a_page})
    # bob's revoke scope admits none of alice's facts: nothing is a root, nothing is named
    assert preview.status_code == 200 and "would quarantine <strong>0</strong>" in preview.text
    assert _fact_ids(preview.text) == [] and 'id="hidden-count"' not in preview.text


# -- health, headers, contrast ---------------------------------------------------------------------------------


def test_health(alice: TestClient, w: World) -> None:
    w.guard.ledger.log.flush()
    res = alice.get("/health")
    assert res.status_code == 200 and 'id="checkpoint-signature">valid<' in res.text
    assert "not run" in res.text
    res = alice.get("/health", params={"verify": "1"})
    assert '<span class="verify ok">verified</span>' in res.text


def test_security_headers_and_hosts(alice: TestClient, app: Any) -> None:
    res = alice.get("/facts")
    csp = res.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp and "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp and res.headers["cache-control"] == "no-store"
    assert res.headers["x-content-type-options"] == "nosniff"
    assert res.headers["referrer-policy"] == "same-origin"
    assert ' style="' not in res.text and "<script>" not in res.text  # nothing inline
    rebound = TestClient(app, base_url="http://evil.example", follow_redirects=False)
    assert rebound.get("/facts").status_code == 400  # DNS rebinding: a foreign Host is refused
    css = alice.get("/static/console.css")
    assert css.status_code == 200 and "text/css" in css.headers["content-type"]
    assert alice.get("/static/console.js").status_code == 200


def _css_vars() -> dict[str, str]:
    return dict(re.findall(r"--([a-z-]+):\s*(#[0-9a-f]{6});", CSS.read_text()))


def test_page_colours_meet_wcag_aa() -> None:
    v = _css_vars()
    for fg, bg in (("fg", "bg"), ("muted", "bg"), ("link", "bg"), ("header-fg", "header-bg"),
                   ("header-link", "header-bg"), ("th-fg", "th-bg"), ("kbd-fg", "kbd-bg"),
                   ("error-fg", "error-bg"), ("ok", "bg"), ("bad", "bg"), ("muted", "th-bg"),
                   ("danger-fg", "danger-bg"), ("button-fg", "button-bg")):
        assert contrast(v[fg], v[bg]) >= 4.5, (fg, bg)
    for ring, bg in (("focus", "bg"), ("focus-dark", "header-bg"), ("focus", "th-bg")):
        assert contrast(v[ring], v[bg]) >= 3.0, (ring, bg)  # non-text contrast (WCAG 1.4.11)
    badges = dict(re.findall(r"\.trust-([a-z]+) \{ background: (#[0-9a-f]{6}); color: #ffffff; \}",
                             CSS.read_text()))  # fmt: skip
    assert badges == {level: fill for level, (fill, _) in TRUST_STYLE.items()}


# -- in the gateway --------------------------------------------------------------------------------------------


def test_console_in_the_gateway_behind_its_bearer_token(tmp_path: Path) -> None:
    from gateway_helpers import fact, running_gateway

    with running_gateway(tmp_path, mcp=False) as gw:
        token = gw.user_token("alice")
        bob = gw.user_token("bob")
        mine = gw.post("/v1/facts", token, fact("alice's note")).json()["fact_id"]
        theirs = gw.post("/v1/facts", bob, fact("bob's note")).json()["fact_id"]
        client = httpx.Client(base_url=f"{gw.base}/console", follow_redirects=False, timeout=10)
        assert client.get("/facts").headers["location"] == "/console/signin"
        form = client.get("/signin")
        assert form.status_code == 200 and 'name="token"' in form.text
        bad = client.post("/signin", data={"token": token[:-3] + "AAA"})
        assert bad.status_code == 401 and "refused" in bad.text
        no_scope = client.post("/signin", data={"token": gw.user_token("alice", scopes=())})
        assert no_scope.status_code == 401 and "scope" in no_scope.text
        res = client.post("/signin", data={"token": token})
        assert res.status_code == 303 and res.headers["location"] == "/console/facts"
        cookie = res.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/console" in cookie
        page = client.get("/facts")
        assert page.status_code == 200 and mine in page.text and theirs not in page.text
        assert client.get(f"/facts/{theirs}").status_code == 404
        assert client.get(f"/facts/{mine}").status_code == 200
        # revocation needs the gateway's revoke scope, which this token lacks
        assert client.get("/revoke/preview", params={"kind": "fact", "value": mine}).status_code == 403
        # the cookie is not a bearer token for the API, and the API's token never sits in a URL
        assert httpx.get(f"{gw.base}/v1/facts", cookies={"memguard_console": token},
                         timeout=10).status_code == 401  # fmt: skip
        csrf = _csrf(page.text)
        assert client.post("/signout", data={"csrf": csrf}).status_code == 303
        client.cookies.clear()
        assert client.get("/facts").status_code == 303


def test_text_search_is_a_recorded_read_in_the_read_scope(alice: TestClient, w: World) -> None:
    searches = sum(e.action == "search" for e in w.guard.ledger.events())
    res = alice.get("/facts", params={"q": "packing list Lisbon"})
    assert res.status_code == 200 and 'id="search-note"' in res.text
    found = _fact_ids(res.text)
    # her read scope returns bob's shared packing list too; the console lists only what she may
    # audit (her own facts), as everywhere else
    assert w.a_mixed in found and w.b_shared not in found and w.b_shared not in res.text
    assert sum(e.action == "search" for e in w.guard.ledger.events()) == searches + 1  # recorded
    assert set(_fact_ids(alice.get("/facts", params={"q": "Lisbon", "source_kind": "web"}).text)) == {
        w.a_page}
    assert alice.get("/facts", params={"q": "x" * 3000}).status_code == 400
    assert w.b_shared in {h.fact_id for h in w.guard.search(_alice(w), "packing list Lisbon", k=50)}
