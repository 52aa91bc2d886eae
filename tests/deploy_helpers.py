"""A real multi-worker gateway for tests: ``python -m memguard.gateway --workers N`` on the
PostgreSQL ledger and the Redis on 127.0.0.1, each test with its own schema and Redis key prefix."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import pg_schema_url

from memguard.gateway.server import free_port
from memguard.tokens.sts import SecurityTokenService

REDIS_URL = "redis://127.0.0.1:6379/0"


def redis_available() -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except Exception:
        return False


def require_redis() -> None:
    if not redis_available():
        if os.environ.get("CI"):
            pytest.fail("Redis on 127.0.0.1:6379 is required in CI")
        pytest.skip("no Redis on 127.0.0.1:6379")


def drop_redis_prefix(prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(match=f"{prefix}*", count=500):
        client.delete(key)


@dataclass
class Deployment:
    base: str
    proc: subprocess.Popen[bytes]
    sts: SecurityTokenService
    config: dict[str, Any]
    ledger_url: str
    state: Path
    metrics: str
    log: Path

    def token(self, subject: str = "alice", **kw: Any) -> str:
        kw.setdefault("scopes", ("memory:read", "memory:write"))
        return self.sts.issue_user_token(subject, **kw)

    def workers(self) -> list[int]:
        """The worker processes (children of the supervisor started by multiprocessing)."""
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        out = []
        for pid in children.read_text().split():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"spawn_main" in cmdline:
                out.append(int(pid))
        return sorted(out)

    def stop(self) -> None:
        """Stop the gateway as an operator would (SIGTERM to the supervisor)."""
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def kill_worker(self) -> int:
        pid = self.workers()[0]
        os.kill(pid, signal.SIGKILL)
        return pid

    def access_lines(self) -> list[dict[str, Any]]:
        out = []
        for line in self.log.read_text("utf-8", "replace").splitlines():
            if line.startswith("{"):
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("event") == "gateway.request":
                    out.append(entry)
        return out


def wait_ready(base: str, proc: subprocess.Popen[bytes], log: Path, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while True:
        assert proc.poll() is None, log.read_text("utf-8", "replace")[-4000:]
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "gateway did not become ready"
        time.sleep(0.2)


def wait_every_worker(dep: Deployment, workers: int, seconds: float = 180) -> None:
    """Until each of the ``workers`` processes has answered a ``/readyz`` (a new connection each
    time: the workers share the socket, the kernel picks one). One ready worker is not all of them:
    a worker still building its scanner rules would leave the other to answer everything."""
    deadline = time.monotonic() + seconds
    while True:
        answered = {a["worker"] for a in dep.access_lines() if a["route"] == "/readyz"}
        if len(answered) >= workers:
            return
        assert dep.proc.poll() is None, dep.log.read_text("utf-8", "replace")[-4000:]
        assert time.monotonic() < deadline, f"only {len(answered)} of {workers} workers answered"
        try:
            httpx.get(f"{dep.base}/readyz", timeout=2)
        except httpx.HTTPError:
            pass
        time.sleep(0.05)


@contextmanager
def deployment(tmp: Path, *, workers: int = 2, **over: Any) -> Iterator[Deployment]:
    """Start the gateway as an operator would; stopped (SIGTERM) and cleaned up afterwards."""
    require_redis()
    prefix = f"mgtest-{uuid.uuid4().hex[:10]}"
    with pg_schema_url() as url:
        port, metrics_port = free_port(), free_port()
        resource = f"http://127.0.0.1:{port}"
        config: dict[str, Any] = {
            "state_dir": "state",
            "ledger": {"url": url, "checkpoint_key": "state/checkpoint.key"},
            # no Qdrant server here: each worker has its own local store (the ledger is shared)
            "store": {"path": "qdrant", "per_worker_local": True},
            "server": {"port": port},
            "mcp": {"enabled": False},
            "limits": {"storage": REDIS_URL, "key_prefix": prefix,
                       "memory_rate": {"per_minute": 600000, "burst": 100000},
                       "max_concurrency": 256},
            "metrics": {"listen": f"127.0.0.1:{metrics_port}", "verify_interval": 0},
            "idempotency": {"lease": 2.0},
        }
        for key, value in over.items():
            if isinstance(value, dict) and isinstance(config.get(key), dict):
                config[key] = {**config[key], **value}
            else:
                config[key] = value
        cfg = tmp / "gateway.yaml"
        cfg.write_text(json.dumps(config), "utf-8")
        sts = SecurityTokenService(tmp / "state" / "sts", issuer=resource, audiences=(resource,))
        log = tmp / "gateway.log"
        env = {**os.environ, "PYTHONWARNINGS": "ignore"}
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        with log.open("wb") as sink:
            proc = subprocess.Popen(
                [sys.executable, "-m", "memguard.gateway", "--config", str(cfg),
                 "--workers", str(workers)], cwd=tmp, env=env, stdout=subprocess.DEVNULL,
                stderr=sink)
        dep = Deployment(resource, proc, sts, config, url, tmp / "state",
                         f"http://127.0.0.1:{metrics_port}/metrics", log)
        try:
            wait_ready(resource, proc, log)
            wait_every_worker(dep, workers)
            yield dep
        finally:
            dep.stop()
            drop_redis_prefix(prefix)
