"""CAEP revocation latency over RFC 8936 poll delivery: an event queued at the transmitter -> the
first refused call, and -> the transmitter holding memguard's ack. Bounded in count and in time.

    .venv/bin/python benchmarks/bench_ssf_poll.py                  # 20 events, interval 1 s
    .venv/bin/python benchmarks/bench_ssf_poll.py --quick          # 6 events
    .venv/bin/python benchmarks/bench_ssf_poll.py --interval 0.25

Set-up: one gateway in this process on 127.0.0.1 (SQLite ledger, the defaults), the SSF receiver
with one transmitter that it polls (``poll_interval`` = ``--interval``), and that transmitter: a
loopback HTTP server of the benchmark's own (real ES256 SETs, a bearer it checks). ``--load``
threads, in a process of their own (not holding the gateway's GIL), keep it busy with searches. Per round, a fresh victim and ``--probes`` threads
calling ``GET /v1/facts`` with its token; the transmitter queues a ``session-revoked`` SET for
the victim at a random point of the poll cycle and the probes record what they got.

Expected: ``queued -> first 401`` about uniform in [0, interval] plus the receiver's own work
(a poll that finds the event applies it before the next call is verified); ``polled -> first
401`` is that work alone: from the transmitter handing the SET out in a poll answer to the first
refused call (the receive-to-refusal latency, whatever the interval).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import secrets
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from memguard.gateway.config import GatewayConfig
from memguard.gateway.server import free_port, serve_in_thread
from memguard.gateway.stack import open_stack
from memguard.tokens.rfc7517 import public_jwk
from memguard.tokens.server import serve_local

TRANSMITTER = "https://idp.bench.test/ssf"
SESSION_REVOKED = "https://schemas.openid.net/secevent/caep/event-type/session-revoked"
SCOPES = ("memory:read", "memory:write")
BEARER = secrets.token_urlsafe(16)


class Transmitter:
    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.jwk = public_jwk(self.key)
        self.pending: dict[str, str] = {}
        self.acked: dict[str, float] = {}
        self.handed: dict[str, float] = {}
        self.lock = threading.Lock()

    def app(self) -> Starlette:
        async def poll(request: Request) -> Response:
            if request.headers.get("authorization") != f"Bearer {BEARER}":
                return JSONResponse({"error": "invalid_token"}, status_code=401)
            body = await request.json()
            now = time.perf_counter()
            with self.lock:
                for jti in body.get("ack", []):
                    self.acked.setdefault(jti, now)
                    self.pending.pop(jti, None)
                out = dict(list(self.pending.items())[: int(body.get("maxEvents", 10))])
                for jti in out:
                    self.handed.setdefault(jti, time.perf_counter())
            return JSONResponse({"sets": out, "moreAvailable": False})

        return Starlette(routes=[Route("/poll", poll, methods=["POST"])])

    def queue(self, audience: str, issuer: str, victim: str) -> str:
        now, jti = int(time.time()), secrets.token_urlsafe(12)
        token = jwt.encode(
            {"iss": TRANSMITTER, "aud": audience, "iat": now, "jti": jti,
             "sub_id": {"format": "iss_sub", "iss": issuer, "sub": victim},
             "events": {SESSION_REVOKED: {"event_timestamp": now}}},
            self.key, algorithm="ES256", headers={"typ": "secevent+jwt", "kid": self.jwk["kid"]})
        with self.lock:
            self.pending[jti] = token
        return jti


def load_process(base: str, tokens: list[str], stop: Any, count: Any) -> None:
    """The background searches, in a process of their own (so their clients do not take the
    gateway's GIL; a multiprocessing spawn target)."""

    def one(token: str) -> None:
        with httpx.Client(base_url=base, timeout=10) as c:
            while not stop.is_set():
                try:
                    c.post("/v1/search", headers={"Authorization": f"Bearer {token}"},
                           json={"query": f"status {count.value}", "k": 5})
                except httpx.HTTPError:  # the gateway stopping under the load
                    continue
                with count.get_lock():
                    count.value += 1

    threads = [threading.Thread(target=one, args=(t,), daemon=True) for t in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--interval", type=float, default=1.0, help="poll_interval (seconds)")
    ap.add_argument("--cap", type=float, help="seconds in all at most")
    ap.add_argument("--load", type=int, default=2, help="background search threads")
    ap.add_argument("--probes", type=int, default=2)
    ap.add_argument("--lease-ttl", type=float, default=5.0, help="ssf.poll_lease_ttl (seconds)")
    args = ap.parse_args()
    rounds = args.rounds or (6 if args.quick else 20)
    cap = args.cap or (30.0 if args.quick else 90.0)
    tx = Transmitter()
    rows: list[tuple[float, float, float, float]] = []
    ctx = multiprocessing.get_context("spawn")
    searches = ctx.Value("q", 0)
    with tempfile.TemporaryDirectory() as tmp, serve_local(tx.app()) as tx_base:
        root = Path(tmp)
        (root / "poll-token").write_text(BEARER)
        port = free_port()
        config = GatewayConfig.from_mapping({
            "state_dir": str(root / "gw"), "server": {"host": "127.0.0.1", "port": port},
            "store": {"path": str(root / "qdrant")},
            "limits": {"memory_rate": None, "token_rate": None},
            "logging": {"access": False},
            "ssf": {"enabled": True, "poll_lease_ttl": args.lease_ttl, "transmitters": [{
                "issuer": TRANSMITTER, "jwks": {"keys": [tx.jwk]}, "algorithms": ["ES256"],
                "poll_url": f"{tx_base}/poll", "poll_token_file": str(root / "poll-token"),
                "poll_interval": args.interval}]},
        })
        stack = open_stack(config)
        assert stack.sts is not None
        sts = stack.sts
        stop = ctx.Event()
        loader: Any = None
        try:
            with serve_in_thread(stack, mcp=False) as base:
                audience = f"{stack.resource.rstrip('/')}/ssf"
                tokens = [sts.issue_user_token(f"load{i}", scopes=SCOPES, ttl=3600)
                          for i in range(args.load)]
                loader = ctx.Process(target=load_process, args=(base, tokens, stop, searches))
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

                    def probe(tok: str = token, out: Any = seen, lk: Any = lock,
                              dn: threading.Event = done) -> None:
                        with httpx.Client(base_url=base, timeout=10) as c:
                            while not dn.is_set():
                                t0 = time.perf_counter()
                                status = c.get("/v1/facts", params={"limit": 1}, headers={
                                    "Authorization": f"Bearer {tok}"}).status_code
                                with lk:
                                    out.append((t0, time.perf_counter(), status))

                    probes = [threading.Thread(target=probe, daemon=True)
                              for _ in range(args.probes)]
                    for t in probes:
                        t.start()
                    time.sleep(random.uniform(0.2, 0.2 + args.interval))  # anywhere in the cycle
                    queued = time.perf_counter()
                    jti = tx.queue(audience, stack.sts.issuer, victim)
                    deadline = queued + args.interval * 3 + 5
                    while jti not in tx.acked and time.perf_counter() < deadline:
                        time.sleep(0.01)
                    time.sleep(0.3)
                    done.set()
                    for t in probes:
                        t.join(10)
                    refused = [end for _, end, status in seen if status == 401 and end >= queued]
                    first = min((row for row in seen if row[2] == 401 and row[1] >= queued),
                                key=lambda row: row[1], default=None)
                    if not refused or jti not in tx.acked:
                        raise SystemExit(f"round {r}: not refused or not acked in time")
                    rows.append(((min(refused) - queued) * 1000, (tx.acked[jti] - queued) * 1000,
                                 (min(refused) - tx.handed[jti]) * 1000,
                                 (first[1] - first[0]) * 1000 if first else 0.0))
                stop.set()
                loader.join(15)
                failed = [e.detail.get("error") for e in stack.guard.ledger.events(limit=100000)
                          if e.action == "ssf.poll"]
                if failed:
                    print(f"failed polls (first of each run): {failed}", file=sys.stderr)
        finally:
            stop.set()
            if loader is not None and loader.is_alive():
                loader.join(15)
            stack.close()
    print(f"bench_ssf_poll: {len(rows)} events, poll_interval {args.interval} s, {args.load} "
          f"load threads in their own process ({searches.value} searches), {args.probes} probes; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'ms':<26}{'p50':>9}{'p99':>9}{'max':>9}")
    for i, name in enumerate(("queued -> first 401", "queued -> ack received",
                              "polled -> first 401", "first 401 call took")):
        values = [row[i] for row in rows]
        print(f"{name:<26}{pct(values, 0.5):>9.1f}{pct(values, 0.99):>9.1f}{max(values):>9.1f}")


if __name__ == "__main__":
    main()
