"""CAEP revocation latency: a session-revoked event pushed to a loaded gateway -> the first refused
call, and how long the other worker still let calls through. Bounded in count and in time.

    .venv/bin/python benchmarks/bench_caep.py            # 30 events, <= 120 s
    .venv/bin/python benchmarks/bench_caep.py --quick    # 10 events, <= 45 s
    .venv/bin/python benchmarks/bench_caep.py --check-cost   # the deny check on a warm call, in µs

Set-up: ``python -m memguard.gateway --workers 2`` on 127.0.0.1 with a PostgreSQL ledger (a fresh
schema of ``MEMGUARD_TEST_PG``), the SSF receiver on (``ssf.refresh`` = ``--refresh``, default
0.25 s; the other worker learns of an entry through ``LISTEN``/``NOTIFY``, the refresh is only the
backstop, so ``--refresh 30`` shows what the notification alone does) and a transmitter of the
benchmark's own (a P-256 key, real ES256 SETs). ``--load`` client threads, in a process of their
own (so that they do not hold the GIL of the process that measures), keep the gateway busy with
searches of 8 other users the whole time. Per round, a fresh victim user and
``--probes`` threads calling ``GET /v1/facts`` with the victim's token in a loop (each on its own
keep-alive connection, so both workers are probed); the transmitter pushes a ``session-revoked``
SET for the victim (RFC 8935) and the probes record what they got.

Reported per round, in ms (p50 / p99 / max over the rounds):
- ``push -> 202``: the receiver verified, persisted and audited the event;
- ``push -> first 401``: the first refused call after the push was sent (the goal: p99 <= 1 s);
- ``push -> last 200 sent``: the start of the last call still allowed (the other worker's refresh
  window; calls started after the 202 by the receiving worker are refused at once).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import jwt
import psycopg
from cryptography.hazmat.primitives.asymmetric import ec

from memguard.gateway.server import free_port
from memguard.tokens.rfc7517 import public_jwk
from memguard.tokens.sts import SecurityTokenService

PG = os.environ.get("MEMGUARD_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
TRANSMITTER = "https://idp.bench.test/ssf"
SESSION_REVOKED = "https://schemas.openid.net/secevent/caep/event-type/session-revoked"
SCOPES = ("memory:read", "memory:write")


@contextmanager
def pg_schema() -> Iterator[str]:
    schema = f"mg_bench_caep_{secrets.token_hex(5)}"
    dsn = PG.replace("+psycopg", "")
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def wait_ready(base: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("gateway exited")
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit("gateway not ready")


def probe(base: str, token: str, done: threading.Event, lock: threading.Lock,
          seen: list[tuple[float, float, int]]) -> None:
    """Call with the victim's token until ``done``: (start, end, status) of each call."""
    with httpx.Client(base_url=base, timeout=10) as c:
        while not done.is_set():
            t0 = time.perf_counter()
            status = c.get("/v1/facts", params={"limit": 1},
                           headers={"Authorization": f"Bearer {token}"}).status_code
            with lock:
                seen.append((t0, time.perf_counter(), status))


def load_process(base: str, tokens: list[str], threads: int, stop: Any, count: Any) -> None:
    """The background searches, in a process of their own (multiprocessing spawn target)."""

    def one(i: int) -> None:
        with httpx.Client(base_url=base, timeout=10) as c:
            n = i
            while not stop.is_set():
                try:
                    c.post("/v1/search", headers={"Authorization": f"Bearer {tokens[n % 8]}"},
                           json={"query": f"status report {n}", "k": 10})
                except httpx.HTTPError:
                    pass
                n += 1
                with count.get_lock():
                    count.value += 1

    workers = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()


def check_cost(n: int = 20000) -> None:
    """What the deny check adds to every warm authenticate (a cached token still runs it): the
    in-memory list, SQLite with and without the change counter, PostgreSQL with LISTEN."""
    from memguard.identity import PrincipalId
    from memguard.tokens.denylist import DenyEntry, DenyList, TokenFacts

    facts = TokenFacts(token_issuer="https://as.test", subject=PrincipalId(
        issuer="https://as.test", subject="alice"), actors=(), jti="j", sid="s", issued_at=1)
    entries = [DenyEntry("token", "https://as.test", f"j{i}", None, 10**10, "b") for i in range(100)]

    def per_check(deny: DenyList) -> float:
        deny.add(entries)
        deny.check(facts)
        t0 = time.perf_counter()
        for _ in range(n):
            deny.check(facts)
        return (time.perf_counter() - t0) / n * 1e6

    rows = [("in memory", per_check(DenyList()))]
    with tempfile.TemporaryDirectory() as tmp:
        for watch in (False, True):
            deny = DenyList.from_url(f"sqlite:///{tmp}/d{watch}.db", refresh=0.25, watch=watch)
            rows.append((f"SQLite, counter {'on' if watch else 'off'}", per_check(deny)))
            deny.close()
    with pg_schema() as url:
        deny = DenyList.from_url(url, refresh=0.25)
        rows.append(("PostgreSQL, LISTEN", per_check(deny)))
        deny.close()
    print(f"deny check per warm call ({n} calls, 100 entries); load average "
          f"{os.getloadavg()[0]:.2f}")
    for name, us in rows:
        print(f"{name:<26}{us:>8.2f} µs")
    warm_authenticate_cost(n // 4)


def warm_authenticate_cost(n: int) -> None:
    """A warm authenticate as the gateway does it: a cached token (CachingVerifier) whose
    identity is re-checked against the deny list, and a full verification of the token."""
    from bench_identity import ISSUER, config  # the identity benchmark's static-JWKS set-up

    from memguard.tokens.cache import CachingVerifier
    from memguard.tokens.denylist import DenyList
    from memguard.tokens.verifier import IdentityVerifier

    def per_call(fn: Any, count: int) -> float:
        fn()
        t0 = time.perf_counter()
        for _ in range(count):
            fn()
        return (time.perf_counter() - t0) / count * 1e6

    with tempfile.TemporaryDirectory() as tmp, pg_schema() as url:
        sts = SecurityTokenService(Path(tmp) / "sts", issuer=ISSUER)
        user = sts.issue_user_token("alice", scopes=["memory:read"])
        lists: list[tuple[str, DenyList | None]] = [
            ("no deny list", None), ("in memory", DenyList()),
            ("SQLite, counter off", DenyList.from_url(f"sqlite:///{tmp}/a.db", refresh=0.25,
                                                      watch=False)),
            ("SQLite, counter on", DenyList.from_url(f"sqlite:///{tmp}/b.db", refresh=0.25)),
            ("PostgreSQL, LISTEN", DenyList.from_url(url, refresh=0.25))]
        print(f"\nwarm authenticate ({n} calls; load average {os.getloadavg()[0]:.2f})")
        print(f"{'µs per call':<26}{'cached token':>14}{'full verify':>14}")
        for name, deny in lists:
            inner = IdentityVerifier(config(sts, None))
            inner.denylist = deny
            cached = CachingVerifier(inner)
            print(f"{name:<26}{per_call(partial(cached.verify, user), n):>14.1f}"
                  f"{per_call(partial(inner.verify, user), max(n // 10, 50)):>14.1f}")
            if deny is not None:
                deny.close()


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--cap", type=float, help="seconds in all at most")
    ap.add_argument("--load", type=int, default=6, help="background search threads")
    ap.add_argument("--probes", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--refresh", type=float, default=0.25, help="ssf.refresh (the backstop)")
    ap.add_argument("--check-cost", action="store_true", help="only the per-call check cost")
    args = ap.parse_args()
    if args.check_cost:
        check_cost()
        return
    rounds = args.rounds or (10 if args.quick else 30)
    cap = args.cap or (45.0 if args.quick else 120.0)
    key = ec.generate_private_key(ec.SECP256R1())
    jwk = public_jwk(key)
    with tempfile.TemporaryDirectory() as tmp, pg_schema() as ledger_url:
        root = Path(tmp)
        port = free_port()
        base = resource = f"http://127.0.0.1:{port}"
        config = {
            "version": 1, "state_dir": str(root / "gw"),
            "server": {"host": "127.0.0.1", "port": port, "workers": args.workers},
            "ledger": {"url": ledger_url},
            "store": {"path": str(root / "qdrant"), "per_worker_local": True},
            "limits": {"memory_rate": None, "token_rate": None, "max_concurrency": 256},
            "mcp": {"enabled": False},
            "logging": {"access": False},
            "ssf": {"enabled": True, "refresh": args.refresh, "transmitters": [
                {"issuer": TRANSMITTER, "jwks": {"keys": [jwk]}, "algorithms": ["ES256"]}]},
        }
        cfg_path = root / "gateway.yaml"
        cfg_path.write_text(json.dumps(config), "utf-8")
        sts = SecurityTokenService(root / "gw" / "sts", issuer=resource, audiences=(resource,))
        load_tokens = [sts.issue_user_token(f"load{u}", scopes=SCOPES, ttl=3600) for u in range(8)]
        env = {**os.environ, "PYTHONWARNINGS": "ignore"}
        errlog = (root / "gateway.stderr").open("w+b")
        proc = subprocess.Popen([sys.executable, "-m", "memguard.gateway", "--config",
                                 str(cfg_path)], env=env, stdout=subprocess.DEVNULL, stderr=errlog)
        ctx = multiprocessing.get_context("spawn")
        stop = ctx.Event()
        load_done = ctx.Value("q", 0)
        loader: Any = None
        rows: list[tuple[float, float, float]] = []
        try:
            wait_ready(base, proc)
            loader = ctx.Process(target=load_process,
                                 args=(base, load_tokens, args.load, stop, load_done))
            loader.start()
            started = time.monotonic()
            for r in range(rounds):
                if time.monotonic() - started > cap:
                    print(f"cap reached after {r} rounds", file=sys.stderr)
                    break
                victim = f"victim{r}"
                token = sts.issue_user_token(victim, scopes=SCOPES, ttl=600)
                seen: list[tuple[float, float, int]] = []
                lock = threading.Lock()
                done = threading.Event()

                probes = [threading.Thread(target=probe, args=(base, token, done, lock, seen),
                                           daemon=True) for _ in range(args.probes)]
                for t in probes:
                    t.start()
                time.sleep(0.3)  # the probes are through (and allowed) before the event
                now = int(time.time())
                set_token = jwt.encode(
                    {"iss": TRANSMITTER, "aud": f"{resource}/ssf", "iat": now,
                     "jti": secrets.token_urlsafe(12),
                     "sub_id": {"format": "iss_sub", "iss": resource, "sub": victim},
                     "events": {SESSION_REVOKED: {"event_timestamp": now}}},
                    key, algorithm="ES256", headers={"typ": "secevent+jwt", "kid": jwk["kid"]})
                pushed = time.perf_counter()
                resp = httpx.post(f"{base}/ssf/events", content=set_token,
                                  headers={"Content-Type": "application/secevent+jwt"}, timeout=10)
                acked = time.perf_counter()
                if resp.status_code != 202:
                    raise SystemExit(f"push refused: {resp.status_code} {resp.text}")
                time.sleep(1.5)  # long enough for every worker's refresh (0.25 s)
                done.set()
                for t in probes:
                    t.join(10)
                refused = [end for start, end, status in seen if status == 401 and end >= pushed]
                allowed_after = [start for start, end, status in seen
                                 if status == 200 and start >= pushed]
                late = [end for start, end, status in seen if start > acked + 1.0 and status != 401]
                if not refused or late:
                    raise SystemExit(f"round {r}: calls still allowed 1 s after the 202: {len(late)}")
                rows.append(((acked - pushed) * 1000, (min(refused) - pushed) * 1000,
                             (max(allowed_after) - pushed) * 1000 if allowed_after else 0.0))
        finally:
            stop.set()
            if loader is not None:
                loader.join(30)
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
    print(f"bench_caep: {len(rows)} events, {args.workers} workers (PostgreSQL ledger), "
          f"{args.load} load threads ({load_done.value} searches), {args.probes} probes, "
          f"ssf.refresh {args.refresh} s; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'ms':<26}{'p50':>9}{'p99':>9}{'max':>9}")
    for i, name in enumerate(("push -> 202", "push -> first 401", "push -> last 200 sent")):
        values = [row[i] for row in rows]
        print(f"{name:<26}{pct(values, 0.5):>9.1f}{pct(values, 0.99):>9.1f}{max(values):>9.1f}")
    goal = pct([row[1] for row in rows], 0.99)
    print(f"goal p99(push -> first 401) <= 1000 ms: {'met' if goal <= 1000 else 'NOT met'}")


if __name__ == "__main__":
    main()
