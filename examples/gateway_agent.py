"""An agent talking to memguard as a service: user -> planner -> browser through the gateway.

Run: python examples/gateway_agent.py   (offline; binds 127.0.0.1 on a free port; state in a temp dir)

1. The gateway starts (HTTP API, RFC 8693 token endpoint, JWKS) in a thread; the planner and the
   browser are registered as OAuth clients with their public keys (private_key_jwt).
2. alice logs in (the gateway's development token service mints her token).
3. The planner exchanges alice's token at the gateway's /token with authlib (memguard.tokens.client);
   then re-delegates to the browser (second exchange, the browser's workload credential as actor).
4. The browser writes a web page's claim and recalls it through memguard.client, with provenance.
5. The planner, writing what alice said, is trusted more than the browser's web page.
6. bob's chain cannot see alice's facts; the browser holding the planner's token is refused.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from memguard import FactNotFound, IdentityError, Source, SourceKind, Turn
from memguard.client import MemguardClient
from memguard.gateway.config import GatewayConfig
from memguard.gateway.server import free_port, serve_in_thread
from memguard.gateway.stack import open_stack
from memguard.tokens.client import TokenExchangeClient
from memguard.tokens.sts import public_jwk

PLANNER = "spiffe://memguard.local/agent/planner"
BROWSER = "spiffe://memguard.local/agent/browser"
SCOPE = "memory:read memory:write"


def _pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def run(state: Path) -> dict[str, object]:
    """The whole story; returns what happened (tests assert on it)."""
    keys = {PLANNER: ec.generate_private_key(ec.SECP256R1()),
            BROWSER: ec.generate_private_key(ec.SECP256R1())}
    config = GatewayConfig.from_mapping({
        "state_dir": str(state),
        "server": {"host": "127.0.0.1", "port": free_port()},
        "sts": {
            "clients": [{"client_id": cid, "jwks": {"keys": [public_jwk(k)]},
                         "algorithms": ["ES256"]} for cid, k in keys.items()],
            "delegation": [
                {"actor": PLANNER, "on_behalf_of": "user", "scopes": SCOPE.split()},
                {"actor": BROWSER, "on_behalf_of": PLANNER, "scopes": SCOPE.split()},
            ],
        },
    })
    out: dict[str, object] = {}
    stack = open_stack(config)
    sts = stack.sts
    assert sts is not None
    try:
        with serve_in_thread(stack, mcp=False) as base:
            resource = stack.resource
            alice = sts.issue_user_token("alice", scopes=SCOPE.split())  # development login
            planner = TokenExchangeClient(f"{base}/token", PLANNER, _pem(keys[PLANNER]),
                                          kid=public_jwk(keys[PLANNER])["kid"])
            planner_token = planner.exchange(alice, audience=resource, scope=SCOPE).access_token
            actor = sts.issue_workload_credential(BROWSER, use="actor")
            browser_token = planner.exchange(planner_token, audience=resource, scope=SCOPE,
                                             actor_token=actor).access_token
            planner.close()

            browser_svid = sts.issue_workload_credential(BROWSER)
            with MemguardClient(base, browser_token, workload_credential=browser_svid) as browser:
                page = browser.write(
                    "ACME's status page: all systems operational; support moved to +1-555-0100.",
                    namespace="research",
                    source=Source(kind=SourceKind.WEB, uri="https://status.acme.example"),
                    turn=Turn(session_id="s-7", turn_index=3, trace_id="4bf92f35"))
                out["browser_write"] = page.summary
                out["writer_chain"] = page.provenance.writer.chain
            planner_svid = sts.issue_workload_credential(PLANNER)
            with MemguardClient(base, planner_token, workload_credential=planner_svid) as plan:
                said = plan.write("Alice wants the ACME report by Friday.", namespace="research",
                                  source=Source(kind=SourceKind.USER_MESSAGE, name="chat"),
                                  turn=Turn(session_id="s-7", turn_index=1))
                out["planner_write"] = said.summary
                hits = plan.search("ACME status and deadline", k=5)
                out["recall"] = [(h.provenance.trust, h.provenance.writer.chain, h.text[:40])
                                 for h in hits]
                audit = plan.audit(page.fact_id)
                out["audit_verified"] = audit.verification["verified"]

            bob = sts.issue_user_token("bob", scopes=SCOPE.split())
            with MemguardClient(base, bob) as bob_client:
                out["bob_sees"] = len(bob_client.search("ACME", k=10))
                try:
                    bob_client.get(page.fact_id)
                    out["bob_get"] = "visible"
                except FactNotFound as exc:
                    out["bob_get"] = exc.code
            with MemguardClient(base, planner_token, workload_credential=browser_svid) as stolen:
                try:
                    stolen.search("ACME")
                    out["stolen_token"] = "accepted"
                except IdentityError as exc:
                    out["stolen_token"] = exc.code
    finally:
        stack.close()
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as state:
        result = run(Path(state))
    print("browser wrote:  ", result["browser_write"])
    print("writer chain:   ", " -> ".join(map(str, result["writer_chain"])))  # type: ignore[call-overload]
    print("planner wrote:  ", result["planner_write"])
    print("planner recalls:")
    for trust, chain, text in result["recall"]:  # type: ignore[attr-defined]
        print(f"  [{trust:9}] {' -> '.join(chain)}: {text}...")
    print("audit verified: ", result["audit_verified"])
    print("bob sees:       ", result["bob_sees"], "facts; get of alice's fact:", result["bob_get"])
    print("browser with the planner's token:", result["stolen_token"])
    assert result["stolen_token"] == "identity.presenter_mismatch"
    assert result["bob_sees"] == 0 and result["bob_get"] == "not_found"


if __name__ == "__main__":
    main()
