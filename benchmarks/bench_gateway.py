"""The gateway under load on loopback: two worker processes on a PostgreSQL ledger vs the guard
in process, for writes and searches. Bounded in count and in time.

    .venv/bin/python benchmarks/bench_gateway.py            # 2,000 requests per operation, <= 60 s each
    .venv/bin/python benchmarks/bench_gateway.py --quick    # 300 per operation, <= 15 s each (< 1 min)

Set-up: a fresh PostgreSQL schema (``MEMGUARD_TEST_PG``, default the local ``test`` database), the
gateway started as ``python -m memguard.gateway --workers 2`` on 127.0.0.1, 8 users with their own
tokens, ``--concurrency`` client threads (httpx, keep-alive). No Qdrant server runs here, so each
worker has its own Qdrant local-mode store (``store.per_worker_local``): a search sees the facts its
worker stored (about half), which keeps the per-search work comparable with the in-process run.
The in-process baseline is the same guard code (PostgreSQL ledger, Qdrant local mode, one thread).

Reports requests/s sustained, p50/p99 latency, errors (must be 0), and the ratio to in-process.
Afterwards every event of a sample of facts is re-digested, and the audit log is verified with
``memguard.ledger.auditlog`` when that module exists (otherwise a note says so).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import logging
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg

from memguard import FactState, Ledger, MemoryGuard, QdrantStore, Source, SourceKind, Turn
from memguard.gateway.server import free_port
from memguard.logging import configure_json_logging
from memguard.tokens.sts import SecurityTokenService
from memguard.tokens.verifier import IdentityVerifier

PG = os.environ.get("MEMGUARD_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
USERS = 8
WORDS = ("acme", "status", "limit", "report", "deadline", "invoice", "router", "backup", "alpha",
         "beta", "gamma", "delta", "quota", "latency", "cache", "index")


@dataclass
class Result:
    name: str
    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    wall: float = 0.0

    @property
    def rps(self) -> float:
        return len(self.latencies) / self.wall if self.wall else 0.0

    def pct(self, q: float) -> float:
        data = sorted(self.latencies)
        if not data:
            return float("nan")
        return data[min(len(data) - 1, int(q * len(data)))] * 1000

    def row(self) -> str:
        errs = sum(self.errors.values())
        return (f"| {self.name} | {len(self.latencies)} | {self.rps:,.0f} | {self.pct(0.5):.1f} | "
                f"{self.pct(0.99):.1f} | {errs} |")


def text(i: int) -> str:
    return " ".join(WORDS[(i * k) % len(WORDS)] for k in (1, 3, 5, 7)) + f" fact {i}"


@contextlib.contextmanager
def pg_schema() -> Iterator[str]:
    dsn = PG.replace("postgresql+psycopg://", "postgresql://")
    schema = f"mg_bench_{secrets.token_hex(6)}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def drive(name: str, count: int, cap: float, concurrency: int,
          request: Callable[[httpx.Client, int], httpx.Response], base: str) -> Result:
    """``count`` requests on ``concurrency`` keep-alive clients, stopping early at ``cap`` seconds."""
    result = Result(name)
    lock = threading.Lock()
    next_i = iter(range(count))
    deadline = time.monotonic() + cap

    def worker() -> None:
        with httpx.Client(base_url=base, timeout=30, trust_env=False) as client:
            while time.monotonic() < deadline:
                with lock:
                    i = next(next_i, None)
                if i is None:
                    return
                t0 = time.perf_counter()
                try:
                    r = request(client, i)
                    key = None if r.status_code < 300 else str(r.status_code)
                except httpx.HTTPError as exc:
                    key = type(exc).__name__
                dt = time.perf_counter() - t0
                with lock:
                    if key is None:
                        result.latencies.append(dt)
                    else:
                        result.errors[key] = result.errors.get(key, 0) + 1

    t0 = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        for f in [pool.submit(worker) for _ in range(concurrency)]:
            f.result()
    result.wall = time.perf_counter() - t0
    return result


def in_process(name: str, count: int, cap: float, op: Callable[[int], object]) -> Result:
    result = Result(name)
    deadline = time.monotonic() + cap
    t0 = time.perf_counter()
    for i in range(count):
        if time.monotonic() > deadline:
            break
        s = time.perf_counter()
        op(i)
        result.latencies.append(time.perf_counter() - s)
    result.wall = time.perf_counter() - t0
    return result


def wait_ready(base: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"gateway exited with {proc.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise SystemExit("gateway not ready in time")


def verify_audit_log(url: str, fact_ids: list[str]) -> str:
    ledger = Ledger.from_url(url)
    try:
        bad = 0
        checked = 0
        for fact_id in fact_ids:
            for _, event, stored in ledger.events_for(fact_id):
                checked += 1
                bad += event.digest != stored
        lines = [f"event digests: {checked} events of {len(fact_ids)} facts re-digested, "
                 f"{bad} mismatches"]
        log = getattr(ledger, "log", None)
        if importlib.util.find_spec("memguard.ledger.auditlog") is None or log is None:
            lines.append("note: memguard.ledger.auditlog is not there yet; Merkle verification "
                         "skipped")
        else:
            log.flush()  # integrate what the workers queued (group commit), then verify it all
            report = log.verify()
            lines.append(f"audit log verify: {'verified' if report.ok else 'TAMPERED'}, "
                         f"{report.tree_size} leaves, {report.events} events, "
                         f"problems: {[p.kind.value for p in report.problems] or 'none'}")
            if not report.ok:
                lines.append("mismatches: audit log does not verify")
        return "\n".join(lines)
    finally:
        ledger.close()


def main() -> None:
    configure_json_logging(logging.CRITICAL)  # the in-process guard's decision log is not output
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--count", type=int)
    ap.add_argument("--cap", type=float, help="seconds per operation at most")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    count = args.count or (300 if args.quick else 2000)
    cap = args.cap or (15.0 if args.quick else 60.0)
    rows: list[Result] = []
    with tempfile.TemporaryDirectory() as tmp, pg_schema() as gw_url, pg_schema() as ip_url:
        root = Path(tmp)
        port = free_port()
        resource = f"http://127.0.0.1:{port}"
        config = {
            "version": 1, "state_dir": str(root / "gw"),
            "server": {"host": "127.0.0.1", "port": port, "workers": args.workers},
            "ledger": {"url": gw_url},
            "store": {"path": str(root / "qdrant"), "per_worker_local": True},
            "limits": {"memory_rate": None, "token_rate": None, "max_concurrency": 256},
            "mcp": {"enabled": False},
        }
        cfg_path = root / "gateway.yaml"
        cfg_path.write_text(json.dumps(config), "utf-8")  # JSON is YAML
        # keys first, so the bench can mint tokens the workers trust (same key folder)
        sts = SecurityTokenService(root / "gw" / "sts", issuer=resource, audiences=(resource,))
        tokens = [sts.issue_user_token(f"user{u}", scopes=("memory:read", "memory:write"),
                                       ttl=3600) for u in range(USERS)]
        env = {**os.environ, "PYTHONWARNINGS": "ignore"}
        errlog = (root / "gateway.stderr").open("w+b")  # one access line per request: a file,
        proc = subprocess.Popen([sys.executable, "-m", "memguard.gateway", "--config",  # not a pipe
                                 str(cfg_path)], env=env, stdout=subprocess.DEVNULL,
                                stderr=errlog)
        try:
            wait_ready(resource, proc)

            def write(client: httpx.Client, i: int) -> httpx.Response:
                return client.post("/v1/facts", headers={
                    "Authorization": f"Bearer {tokens[i % USERS]}"}, json={
                    "text": text(i), "namespace": "bench",
                    "source": {"kind": "user_message"},
                    "turn": {"session_id": f"s{i % 50}", "turn_index": i}})

            def search(client: httpx.Client, i: int) -> httpx.Response:
                return client.post("/v1/search", headers={
                    "Authorization": f"Bearer {tokens[i % USERS]}"},
                    json={"query": text(i * 7), "k": 10})

            drive("warm-up", 40, 10, 4, search, resource)
            rows.append(drive(f"gateway write ({args.workers} workers)", count, cap,
                              args.concurrency, write, resource))
            rows.append(drive(f"gateway search ({args.workers} workers)", count, cap,
                              args.concurrency, search, resource))
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            errlog.seek(0)
            err = errlog.read()
            errlog.close()
        if err and b"Traceback" in err:
            print(err.decode(errors="replace")[-2000:], file=sys.stderr)
        check = Ledger.from_url(gw_url)
        committed = [r.fact_id for r in check.in_state(FactState.COMMITTED)]
        pending = check.in_state(FactState.PENDING)
        check.close()
        acked = len(rows[0].latencies)
        if len(committed) != acked or pending:
            raise SystemExit(f"ledger: {len(committed)} committed for {acked} acknowledged "
                             f"writes, {len(pending)} pending")
        ids = committed[:: max(1, len(committed) // 200)]

        # the same guard code in process: PostgreSQL ledger, Qdrant local mode, one thread
        ip_sts = SecurityTokenService(root / "ip-sts", issuer=resource, audiences=(resource,))
        ident = {"version": 1, "access_tokens": {"audience": resource, "issuers": [
            {"issuer": resource, "algorithms": ["EdDSA"], "jwks": ip_sts.jwks()}]}}
        from memguard.tokens.config import IdentityConfig

        guard = MemoryGuard(store=QdrantStore(path=str(root / "ip-qdrant"), partition_by_owner=True),
                            ledger=Ledger.from_url(ip_url),
                            verifier=IdentityVerifier(IdentityConfig.from_mapping(ident)))
        ids_ip = [guard.authenticate(ip_sts.issue_user_token(f"user{u}", ttl=3600))
                  for u in range(USERS)]
        try:
            in_process("in-process search (warm-up)", 40, 10,
                       lambda i: guard.search(ids_ip[i % USERS], text(i), k=10))
            rows.append(in_process("in-process write", count, cap, lambda i: guard.write(
                ids_ip[i % USERS], text(i), namespace="bench",
                source=Source(kind=SourceKind.USER_MESSAGE),
                turn=Turn(session_id=f"s{i % 50}", turn_index=i))))
            rows.append(in_process("in-process search", count, cap, lambda i: guard.search(
                ids_ip[i % USERS], text(i * 7), k=10)))
        finally:
            guard.close()
        audit = verify_audit_log(gw_url, ids)

    print(f"\nbench_gateway: {count} requests per operation (cap {cap:.0f} s), "
          f"{args.concurrency} client threads, {args.workers} gateway workers, PostgreSQL ledger\n")
    print("| operation | requests | req/s | p50 ms | p99 ms | errors |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(r.row())
    by = {r.name.split(" (")[0]: r for r in rows}
    for op in ("write", "search"):
        g, i = by[f"gateway {op}"], by[f"in-process {op}"]
        print(f"\n{op}: gateway/in-process throughput {g.rps / i.rps:.2f}x, "
              f"p50 latency {g.pct(0.5) / i.pct(0.5):.2f}x")
    print("\n" + audit)
    errors = sum(sum(r.errors.values()) for r in rows)
    if errors:
        print(f"errors: {[(r.name, r.errors) for r in rows if r.errors]}", file=sys.stderr)
        raise SystemExit(1)
    if " 0 mismatches" not in audit or "does not verify" in audit:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
