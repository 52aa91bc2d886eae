"""Cost of the ID-JAG grant and of a Txn-Token at the resource, next to what they stand beside.

    nice -n 10 .venv/bin/python benchmarks/bench_idjag.py            # ~20 s
    nice -n 10 .venv/bin/python benchmarks/bench_idjag.py --quick    # fewer iterations

In process, real keys (ES256 IdP, ES256 client, EdDSA token service), no HTTP:
- ``id-jag grant``: ``SecurityTokenService.token_request`` with ``grant_type=jwt-bearer`` (client
  assertion, ID-JAG verification, ``jti`` recorded in a memory replay cache, access token signed);
- ``rfc8693 exchange``: the same service exchanging a user's access token for the planner (client
  assertion, subject token, delegation grants, access token signed);
- ``txn-token at the resource``: ``IdentityVerifier.verify_transaction`` (Txn-Token + the calling
  workload's credential);
- ``presented access token``: ``IdentityVerifier.verify_presented`` (delegated token + credential).
Inputs (fresh ``jti`` per request) are made before timing; the two cases of a pair run in
interleaved chunks. Prints a markdown table of medians and the load average.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

from memguard.logging import configure_json_logging
from memguard.tokens import IdentityConfig, IdentityVerifier, SecurityTokenService
from memguard.tokens.config import DelegationGrant
from memguard.tokens.id_jag import JWT_BEARER_GRANT, IdJagIssuer
from memguard.tokens.rfc7517 import StaticKeySource, public_jwk
from memguard.tokens.rfc7523 import RegisteredClient
from memguard.tokens.txn_token import ResourceTxnTokens, TxnTokenService, TxnTokenVerifier

ISSUER = "https://as.memguard.local"
IDP = "https://acme.idp.example"
TD = "https://corp.example/trust-domain"
PLANNER = "spiffe://memguard.local/agent/planner"
ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
SCOPES = ("memory:read", "memory:write")


def paired_us(a: Callable[[Any], object], a_inputs: list[Any], b: Callable[[Any], object],
              b_inputs: list[Any], repeats: int) -> tuple[float, float]:
    """Median µs per call of ``a`` and ``b``, their chunks interleaved so both see the same load
    and the same replay-cache size."""
    samples: tuple[list[float], list[float]] = ([], [])
    for r in range(repeats):
        for fn, inputs, out in ((a, a_inputs, samples[0]), (b, b_inputs, samples[1])):
            per = len(inputs) // repeats
            chunk = inputs[r * per:(r + 1) * per]
            start = time.perf_counter()
            for item in chunk:
                fn(item)
            out.append((time.perf_counter() - start) / len(chunk) * 1e6)
    return statistics.median(samples[0]), statistics.median(samples[1])


def es256(key: ec.EllipticCurvePrivateKey, claims: dict[str, Any], typ: str) -> str:
    return jwt.encode(claims, key, algorithm="ES256",
                      headers={"typ": typ, "kid": public_jwk(key)["kid"]})


def forms(n: int, client: ec.EllipticCurvePrivateKey, endpoint: str,
          extra: Callable[[int], dict[str, str]]) -> Iterator[dict[str, list[str]]]:
    for _ in range(n):
        now = int(time.time())
        assertion = es256(client, {"iss": PLANNER, "sub": PLANNER, "aud": endpoint, "iat": now,
                                   "exp": now + 60, "jti": uuid.uuid4().hex}, "JWT")
        yield {k: [v] for k, v in {"client_assertion_type": ASSERTION,
                                   "client_assertion": assertion, **extra(now)}.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, repeats = (200, 4) if args.quick else (1000, 5)
    configure_json_logging(level="ERROR")
    idp, client, tts = (ec.generate_private_key(ec.SECP256R1()) for _ in range(3))
    jwks = {"keys": [public_jwk(idp)]}
    with tempfile.TemporaryDirectory() as tmp:
        sts = SecurityTokenService(
            Path(tmp) / "sts", issuer=ISSUER, audiences=("memguard",),
            clients=[RegisteredClient(PLANNER, {"keys": [public_jwk(client)]},
                                      frozenset({"ES256"}))],
            delegation=[DelegationGrant(actor=PLANNER, on_behalf_of="user", scopes=SCOPES)],
            id_jag=[IdJagIssuer(IDP, frozenset({"ES256"}), StaticKeySource(jwks,
                                                                           frozenset({"ES256"})))])
        endpoint = sts.token_endpoint

        def id_jag(now: int) -> dict[str, str]:
            grant = es256(idp, {"iss": IDP, "sub": "U1", "aud": ISSUER, "client_id": PLANNER,
                                "jti": secrets.token_hex(12), "iat": now, "exp": now + 120,
                                "resource": "memguard", "scope": " ".join(SCOPES)},
                          "oauth-id-jag+jwt")
            return {"grant_type": JWT_BEARER_GRANT, "assertion": grant}

        user = sts.issue_user_token("alice", scopes=SCOPES)

        def exchange(now: int) -> dict[str, str]:
            return {"grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                    "subject_token": user, "audience": "memguard", "scope": " ".join(SCOPES),
                    "subject_token_type": "urn:ietf:params:oauth:token-type:access_token"}

        grant_us, exchange_us = paired_us(
            sts.token_request, list(forms(n, client, endpoint, id_jag)),
            sts.token_request, list(forms(n, client, endpoint, exchange)), repeats)

        verifier = IdentityVerifier(IdentityConfig.from_mapping({
            "version": 1,
            "access_tokens": {"audience": "memguard", "issuers": [
                {"issuer": ISSUER, "algorithms": ["EdDSA"], "jwks": sts.jwks()}]},
            "workload_credentials": {"audience": "memguard/workload", "trust_domains": [
                {"trust_domain": "memguard.local", "algorithms": ["EdDSA"],
                 "jwks": sts.workload_jwks()}]},
            "delegation": [{"actor": PLANNER, "on_behalf_of": "user", "scopes": list(SCOPES)}]}))
        service = TxnTokenService(TD, frozenset({"ES256"}), StaticKeySource(
            {"keys": [public_jwk(tts)]}, frozenset({"ES256"})))
        verifier.transactions = ResourceTxnTokens(TxnTokenVerifier({TD: service}),
                                                  {TD: frozenset({PLANNER})})
        now = int(time.time())
        txn = es256(tts, {"aud": TD, "iat": now, "exp": now + 300, "txn": "t-1", "sub": "alice",
                          "scope": " ".join(SCOPES), "tctx": {"action": "bench"}}, "txntoken+jwt")
        delegated = sts.token_request(next(forms(1, client, endpoint, exchange)))["access_token"]
        credential = sts.issue_workload_credential(PLANNER)
        reps = [None] * n
        txn_us, presented_us = paired_us(
            lambda _: verifier.verify_transaction(txn, credential), reps,
            lambda _: verifier.verify_presented(delegated, credential), reps, repeats)
    load = os.getloadavg()[0]
    print(f"load average {load:.1f}, {n} calls x {repeats} repeats (median per call)\n")
    print("| case | µs per call | beside | ratio |")
    print("|---|---|---|---|")
    print(f"| id-jag grant | {grant_us:.0f} | rfc8693 exchange {exchange_us:.0f} | "
          f"{grant_us / exchange_us:.2f} |")
    print(f"| txn-token at the resource | {txn_us:.0f} | presented access token "
          f"{presented_us:.0f} | {txn_us / presented_us:.2f} |")


if __name__ == "__main__":
    main()
