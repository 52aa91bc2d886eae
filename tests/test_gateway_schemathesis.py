"""schemathesis against the gateway's published OpenAPI document, over real HTTP on 127.0.0.1.

Bounded: ``GATEWAY_FUZZ_EXAMPLES`` examples per operation (default 100; about half a minute here).
Every request carries alice's token, with every memory scope (read, write, revoke, endorse); every
``{fact_id}`` in a path is replaced by the id of a fact that bob owns, whose text, metadata and
source carry a unique marker (for ``/endorse``: a second such fact, which bob has quarantined).
Checks: no 5xx at all, every response conforms to the document (statuses, headers, bodies), the
marker never appears in any response, and afterwards bob's facts are as he left them (alice's
revocations and endorsements never reached them, nor barred bob).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from gateway_helpers import Gateway, fact, running_gateway
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import positive_data_acceptance

EXAMPLES = int(os.environ.get("GATEWAY_FUZZ_EXAMPLES", "100"))
MARKER = f"bob-private-{secrets.token_hex(8)}"


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("fuzz")
    with running_gateway(Path(tmp), mcp=False, limits={
            "memory_rate": None, "token_rate": None, "max_concurrency": 256}) as gw:
        bob = gw.user_token("bob")
        body = fact(MARKER, namespace="notes", uri=f"https://bob.example/{MARKER}",
                    metadata={"note": MARKER})
        r = gw.post("/v1/facts", bob, body)
        assert r.status_code == 201, r.text
        bob_fact = r.json()["fact_id"]
        # a second one, which bob quarantines: the target of alice's endorsements
        r = gw.post("/v1/facts", bob, {**body, "turn": {"session_id": "s-2", "turn_index": 0}})
        assert r.status_code == 201, r.text
        held = r.json()["fact_id"]
        r = gw.post("/v1/revocations", gw.user_token("bob", scopes=("memory:revoke",)),
                    {"selector": {"kind": "fact", "value": held}, "reason": "planted"})
        assert r.status_code == 201 and r.json()["roots"] == [held], r.text
        alice = gw.user_token("alice", ttl=3600, scopes=(
            "memory:read", "memory:write", "memory:revoke", "memory:endorse"))
        yield {"gw": gw, "alice": alice, "bob_fact": bob_fact, "bob_held": held, "bob": bob}


def test_api_never_fails_and_never_leaks(planted: dict[str, Any]) -> None:
    # schemathesis's pytest plugin does not run on this pytest; its strategies drive hypothesis here
    gw: Gateway = planted["gw"]
    schema = schemathesis.openapi.from_url(f"{gw.base}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 12
    seen: list[tuple[str, str, int]] = []
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def check(case: Any) -> None:
            if case.path_parameters and "fact_id" in case.path_parameters:
                held = case.path.endswith("/endorse")
                case.path_parameters["fact_id"] = planted["bob_held" if held else "bob_fact"]
            response = case.call(headers={"Authorization": f"Bearer {planted['alice']}"},
                                 timeout=20)
            seen.append((case.method, case.path, response.status_code))
            assert response.status_code < 500, (case.method, case.path, response.text[:500])
            assert MARKER not in response.text, (case.method, case.path)
            # the guard checks more than JSON Schema can say (NFC, invisible characters, reserved
            # metadata keys), so a schema-valid request may be a 400/403: not a conformance failure
            case.validate_response(response, excluded_checks=[positive_data_acceptance])

        check()
    statuses = {s for _, _, s in seen}
    assert 200 in statuses and 201 in statuses and 404 in statuses  # it reached real behaviour
    reached = {(m, p, s) for m, p, s in seen}
    assert {("GET", "/v1/facts", 200), ("POST", "/v1/revocations", 201),
            ("POST", "/v1/revocations", 403),  # a principal selector beyond alice's reach
            ("POST", "/v1/facts/{fact_id}/endorse", 404)} <= reached, sorted(reached)


def test_bob_fact_survived_the_fuzzing(planted: dict[str, Any]) -> None:
    gw: Gateway = planted["gw"]
    r = httpx.get(f"{gw.base}/v1/facts/{planted['bob_fact']}", headers=gw.headers(planted["bob"]),
                  timeout=10)
    assert r.status_code == 200 and r.json()["text"] == MARKER
    assert r.json()["provenance"]["version"] == 1  # never updated by alice
    # alice's revocations never reached it, and her endorsements never lifted bob's quarantine
    lineage = gw.stack.guard.ledger.lineage
    assert lineage.quarantined([planted["bob_fact"], planted["bob_held"]]) == {planted["bob_held"]}
    r = httpx.get(f"{gw.base}/v1/facts/{planted['bob_held']}", headers=gw.headers(planted["bob"]),
                  timeout=10)
    assert r.status_code == 404
    endorsed = [e for e in gw.stack.guard.ledger.events(decision="allow", limit=100_000)
                if e.action == "endorse"]
    assert endorsed == []
