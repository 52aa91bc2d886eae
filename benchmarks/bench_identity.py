"""Identity verification cost per token (µs), with and without a JWKS cache, and its share of a read.

    /work/venv/bin/python benchmarks/bench_identity.py            # ~20 s
    /work/venv/bin/python benchmarks/bench_identity.py --quick    # fewer iterations

Cases (all EdDSA / Ed25519, PyJWT + cryptography, real keys):
- static JWKS: keys from configuration (the warm-cache steady state);
- JWKS URL, warm: keys fetched once from the STS on 127.0.0.1, then cached;
- JWKS URL, cold: a fresh source per token, so every verification fetches the JWKS over HTTP;
- presented: a delegated token plus the presenter's workload credential (two signatures);
- LocalVerifier: the embedded default (IdentityVerifier with a static key set), for comparison;
- guarded read: ``MemoryGuard.search`` (k=10, 1000 facts, InMemoryStore, SQLite ledger) with an
  identity already verified; share = verify / (verify + read).
Prints a markdown table of medians over repeats.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memguard import InMemoryStore, Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.logging import configure_json_logging
from memguard.tokens import IdentityConfig, IdentityVerifier, SecurityTokenService
from memguard.tokens.config import DelegationGrant
from memguard.tokens.rfc7515 import check_kid, parse_compact, parse_jws, verify_jws, verify_parsed
from memguard.tokens.server import create_app, serve_local

ISSUER = "https://sts.memguard.local"
PLANNER = "spiffe://memguard.local/agent/planner"


def per_call_us(fn: Callable[[], object], n: int, repeats: int = 5) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - start) / n * 1e6)
    return statistics.median(samples)


def config(sts: SecurityTokenService, base: str | None) -> IdentityConfig:
    keys = {"jwks_url": f"{base}/.well-known/jwks.json"} if base else {"jwks": sts.jwks()}
    return IdentityConfig.from_mapping({
        "version": 1,
        "access_tokens": {"audience": "memguard", "issuers": [
            {"issuer": ISSUER, "algorithms": ["EdDSA"], **keys}]},
        "workload_credentials": {"audience": sts.presenter_audience, "trust_domains": [
            {"trust_domain": "memguard.local", "algorithms": ["EdDSA"], "jwks": sts.workload_jwks()}]},
        "delegation": [DelegationGrant(actor=PLANNER, on_behalf_of="user",
                                       scopes=("memory:read",)).model_dump(mode="json")],
    })


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n = 300 if args.quick else 2000
    configure_json_logging(logging.WARNING)
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        sts = SecurityTokenService(state / "sts", issuer=ISSUER)
        user = sts.issue_user_token("alice", scopes=["memory:read"])
        with serve_local(create_app(sts)) as base:
            static = IdentityVerifier(config(sts, None))
            rows.append(("verify, static JWKS (warm)", per_call_us(lambda: static.verify(user), n)))
            warm = IdentityVerifier(config(sts, base))
            warm.verify(user)
            rows.append(("verify, JWKS URL warm cache", per_call_us(lambda: warm.verify(user), n)))
            cold_cfg = config(sts, base)
            rows.append(("verify, JWKS URL no cache (fetch each)",
                         per_call_us(lambda: IdentityVerifier(cold_cfg).verify(user), max(n // 20, 20), 3)))
        # a delegated token + the presenter's credential (made directly, no HTTP needed)
        now = int(time.time())
        delegated = sts.access_keys.sign({  # what the token service issues: with sub_id (RFC 9493)
            "iss": ISSUER, "sub": "alice", "aud": "memguard", "iat": now, "exp": now + 600,
            "sub_id": {"format": "iss_sub", "iss": ISSUER, "sub": "alice"},
            "jti": "j1", "client_id": PLANNER, "scope": "memory:read",
            "act": {"sub": PLANNER, "iss": "spiffe://memguard.local"}}, "at+jwt")
        svid = sts.issue_workload_credential(PLANNER)
        rows.append(("verify_presented (token + workload credential)",
                     per_call_us(lambda: static.verify_presented(delegated, svid), n)))
        raw_key = sts.access_keys._keys[sts.access_keys.active_kid]
        raw_pub, raw_sig = raw_key.public_key(), raw_key.sign(user.rpartition(".")[0].encode())
        msg = user.rpartition(".")[0].encode()
        rows.append(("reference: raw Ed25519 signature check (cryptography)",
                     per_call_us(lambda: raw_pub.verify(raw_sig, msg), n)))  # type: ignore[call-arg]
        # the verify path's parse: the text decoded twice (parse_compact, then verify_jws splits and
        # decodes the signature again) vs once (parse_jws keeps the bytes verify_parsed checks)
        pub = static.access.issuers[ISSUER].keys.get(check_kid(parse_jws(user).header), "EdDSA")

        def twice() -> object:
            _, claims = parse_compact(user)
            return verify_jws(user, pub, "EdDSA", claims)

        def once() -> object:
            return verify_parsed(parse_jws(user), pub, "EdDSA")

        a, b = [], []
        for _ in range(5):  # interleaved, so a load change hits both alike
            a.append(per_call_us(twice, n, 1))
            b.append(per_call_us(once, n, 1))
        rows.append(("parse + signature, token decoded twice (before)", statistics.median(a)))
        rows.append(("parse + signature, decoded once (parse_jws + verify_parsed)", statistics.median(b)))
        local = LocalTokenService(state / "local")
        lv, ltoken = local.verifier(), local.issue("alice")
        rows.append(("LocalVerifier (embedded default)", per_call_us(lambda: lv.verify(ltoken), n)))

        guard = MemoryGuard(store=InMemoryStore(384), ledger=Ledger.sqlite(state / "ledger.db"),
                            verifier=static)
        me = guard.authenticate(user)
        for i in range(1000):
            guard.write(me, f"fact number {i} about topic {i % 17}", namespace="notes",
                        source=Source(kind=SourceKind.USER_MESSAGE),
                        turn=Turn(session_id="bench", turn_index=i))
        read = per_call_us(lambda: guard.search(me, "topic 3", k=10), max(n // 10, 30), 3)
        rows.append(("guarded read: search k=10 over 1000 facts (identity pre-verified)", read))
        guard.close()
    verify = rows[0][1]
    print("| case | µs per call |")
    print("|---|---:|")
    for name, us in rows:
        print(f"| {name} | {us:,.1f} |")
    print(f"\nshare of a guarded read spent verifying (static/warm JWKS): "
          f"{verify / (verify + read):.1%}  (verify {verify:.1f} µs, read {read:.1f} µs)")
    print(f"presented (two signatures) share: {rows[3][1] / (rows[3][1] + read):.1%}")
    print(f"memguard overhead above the raw signature check: {verify - rows[4][1]:.1f} µs")
    print(f"one decode instead of two: {rows[5][1] - rows[6][1]:.1f} µs per token "
          f"({(rows[5][1] - rows[6][1]) / rows[5][1]:.1%} of parse + signature)")
    print("target: <= 100 µs per verification with warm caches:",
          "met" if verify <= 100 and rows[1][1] <= 100 else "NOT met")


if __name__ == "__main__":
    main()
