"""Point-decision latency of the YAML policy engine at 10, 100, 1,000 and 10,000 rules.

The rule sets look like a multi-tenant deployment: a handful of shared rules (isolation, the
quarantine and tool-argument forbids, an auditor role) plus per-tenant rules keyed on
``principal.subject`` or ``principal.workload_id`` (what the engine's index is for). Each decision is
one principal, one action and one fact's indexed fields; we time

- ``decide_env``: the decision with a prepared principal/context environment (the hot path a guard
  re-check or a batch uses), and
- ``decide``: the full call from a :class:`~memguard.Principal`, building the environment each time,
- ``read_plan``: partial evaluation into the residual condition for a search.

Run: ``python benchmarks/bench_policy.py [--decisions 20000] [--json]``. Targets (issue 4): p50 <= 10 µs
and p99 <= 50 µs at 1,000 rules, growing less than 2x from 100 to 10,000 rules.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import time
from collections.abc import Callable

from memguard import Actor, Principal, PrincipalId
from memguard.policy.evaluate import principal_env
from memguard.policy.loader import load_policy_text
from memguard.policy.resolver import PolicyResolver
from memguard.scope import ReadRequest

NOW = 1_800_000_000
SHARED = """\
  - id: isolation.read-own
    effect: permit
    actions: [search, get]
    when: [{attr: fact.owner_iss, eq: {attr: principal.issuer}}, {attr: fact.owner_sub, eq: {attr: principal.subject}}]
  - {id: isolation.no-quarantined, effect: forbid, actions: [search, get], when: {attr: fact.trust, lt: untrusted}}
  - id: purpose.no-untrusted-tool-arguments
    effect: forbid
    actions: [search, get]
    when: [{attr: context.purpose, eq: tool_argument}, {attr: fact.trust, lte: untrusted}]
  - {id: auditor.no-content, effect: forbid, actions: [search, get], when: {attr: principal.scopes, contains: "memguard:auditor"}}
  - id: subagents.trust-floor
    effect: forbid
    actions: [search, get]
    when: [{attr: principal.depth, gte: 2}, {attr: fact.trust, lt: user}]
"""
SHARED_COUNT = 5


def tenant_rule(i: int) -> str:
    if i % 2 == 0:
        return (
            f"  - id: tenant-{i}.shared-ns\n    effect: permit\n    actions: [search, get]\n"
            f"    when: [{{attr: principal.subject, eq: user-{i}}}, {{attr: fact.namespace, in: [team-{i}, shared]}},"
            f" {{attr: fact.trust, gte: tool}}]\n"
        )
    return (
        f"  - id: tenant-{i}.agent-web\n    effect: forbid\n    actions: [search, get]\n"
        f"    when: [{{attr: principal.workload_id, eq: 'spiffe://d/agent-{i}'}}, {{attr: fact.source_kind, eq: web}},"
        f" {{attr: fact.age, gt: 86400}}]\n"
    )


def policy_text(n_rules: int) -> str:
    tenants = max(n_rules - SHARED_COUNT, 0)
    body = SHARED if n_rules >= SHARED_COUNT else ""
    return "apiVersion: memguard/v1\nrules:\n" + body + "".join(tenant_rule(i) for i in range(tenants))


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timed(fn: Callable[[int], object], n: int) -> list[float]:
    clock = time.perf_counter_ns
    out = []
    for i in range(n):
        t0 = clock()
        fn(i)
        out.append((clock() - t0) / 1000.0)
    return out


def bench(n_rules: int, decisions: int, seed: int = 7) -> dict[str, object]:
    rng = random.Random(seed)
    policy = load_policy_text(policy_text(n_rules), max_bytes=8 << 20)  # 10,000 rules: 2 MB
    resolver = PolicyResolver(policy, clock=lambda: float(NOW))
    engine = resolver.engine
    tenants = max(n_rules - SHARED_COUNT, 1)
    principals = []
    for _ in range(256):
        t = rng.randrange(tenants)
        actors = (Actor(issuer="i", subject=f"spiffe://d/agent-{t | 1}"),) if rng.random() < 0.5 else ()
        principals.append(Principal(subject=PrincipalId(issuer="i", subject=f"user-{t & ~1}"), actors=actors, token_jti="j"))
    facts = []
    for _ in range(256):
        t = rng.randrange(tenants)
        facts.append({
            "fact_id": f"f{t}", "namespace": rng.choice([f"team-{t & ~1}", "shared", "private"]),
            "owner_iss": "i", "owner_sub": f"user-{t & ~1}", "trust": rng.randrange(7),
            "source_kind": rng.choice(["web", "user_message", "tool_output"]), "writer_sub": "w",
            "workload_id": None, "created_at": NOW - rng.randrange(200_000), "derived_from_count": 0,
        })  # fmt: skip
    purposes = ["answer", "tool_argument"]
    envs = [principal_env(p, purposes[i % 2]) for i, p in enumerate(principals)]
    actions = ["search", "get"]

    def env_call(i: int) -> object:
        return engine.decide_env(envs[i & 255], actions[i & 1], facts[(i * 7) & 255], NOW)

    def full_call(i: int) -> object:
        return engine.decide(principals[i & 255], actions[i & 1], facts[(i * 7) & 255], purpose=purposes[i & 1], now=NOW)

    def plan_call(i: int) -> object:
        return resolver.read_plan(principals[i & 255], ReadRequest("search", purpose=purposes[i & 1]))

    gc.collect()
    gc.freeze()  # the loaded policy is long-lived: keep it out of the collector's young generations
    timed(env_call, 2000)  # warm up
    allowed = sum(engine.decide_env(envs[i & 255], "search", facts[i & 255], NOW).allowed for i in range(256))
    out: dict[str, object] = {"rules": len(policy.rules), "allowed_of_256": allowed}
    for name, fn, n in (("decide_env", env_call, decisions), ("decide", full_call, decisions),
                        ("read_plan", plan_call, decisions // 4)):  # fmt: skip
        samples = timed(fn, n)
        out[name] = {
            "p50_us": round(percentile(samples, 0.50), 2),
            "p99_us": round(percentile(samples, 0.99), 2),
            "mean_us": round(statistics.fmean(samples), 2),
        }
    return out


def calibration_us() -> float:
    """The cost of an empty Python call on this machine right now, to scale the numbers above."""
    samples = timed(lambda i: None, 100_000)
    return round(percentile(samples, 0.5), 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--decisions", type=int, default=20000)
    parser.add_argument("--sizes", type=int, nargs="*", default=[10, 100, 1000, 10000])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [bench(n, args.decisions) for n in args.sizes]
    calib = calibration_us()
    if args.json:
        print(json.dumps({"calibration_empty_call_us": calib, "results": results}, indent=2))
        return
    print("| rules | decide_env p50 / p99 µs | decide p50 / p99 µs | read_plan p50 / p99 µs |")
    print("|------:|------------------------:|--------------------:|-----------------------:|")
    for r in results:
        cells = [f"{r[k]['p50_us']:.1f} / {r[k]['p99_us']:.1f}" for k in ("decide_env", "decide", "read_plan")]  # type: ignore[index]
        print(f"| {r['rules']} | " + " | ".join(cells) + " |")
    print(f"\ncalibration: an empty timed Python call costs {calib} µs (p50) on this machine")


if __name__ == "__main__":
    main()
