"""RFC 8936 poll delivery with several gateway processes (``python -m memguard.gateway`` with 3
workers), on SQLite and on PostgreSQL: one poller at a time (memguard.gateway.ssf_lease), each SET
applied once and acknowledged once, every worker refusing what it names, and a killed poller
handing over to another process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from helpers import pg_schema_url
from sqlalchemy import create_engine, select, text
from ssf_helpers import CREDENTIAL_CHANGE, PollingTransmitter, event, iss_sub

from memguard.gateway.server import free_port
from memguard.ledger.tables import AuditEventRow
from memguard.tokens.server import serve_local
from memguard.tokens.sts import SecurityTokenService

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
SCOPES = ("memory:read", "memory:write")


def wait(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out: {what}"
        time.sleep(0.05)


def holder_pid(url: str) -> int | None:
    """The pid of the process that holds the poll lease (SQLite row / PostgreSQL lock session)."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                row = conn.execute(text("SELECT holder, expires_at FROM memguard_ssf_poll_lease"
                                        )).first()
                return int(row[0].split(":")[1]) if row and row[1] > time.time() else None
            row = conn.execute(text(
                "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a "
                "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
                "AND a.application_name LIKE 'memguard-ssf-poll %' "
                "AND a.datname = current_database()")).all()
            mine = [r[0] for r in row]
            return int(mine[0].split(":")[1]) if len(mine) == 1 else None
    except Exception:
        return None
    finally:
        engine.dispose()


def applied(url: str, jti: str) -> int:
    """How many ``ssf.receive`` allow events name the SET ``jti`` (its effects applied)."""
    t = AuditEventRow.__table__  # type: ignore[attr-defined]
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(t.c.event).where(
                (t.c.action == "ssf.receive") & (t.c.decision == "allow"))).all()
    finally:
        engine.dispose()
    return sum(1 for (raw,) in rows if json.loads(raw)["detail"].get("set_jti") == jti)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_one_poller_across_processes_and_a_killed_poller_hands_over(
        tmp_path: Path, backend: str) -> None:
    tx = PollingTransmitter()
    (tmp_path / "poll-token").write_text(tx.bearer)
    with ExitStack() as stack:
        url = (f"sqlite:///{tmp_path / 'ledger.db'}" if backend == "sqlite"
               else stack.enter_context(pg_schema_url()))
        poll_base = stack.enter_context(serve_local(tx.app()))
        port = free_port()
        resource = f"http://127.0.0.1:{port}"
        config = {
            "version": 1, "state_dir": str(tmp_path / "gw"),
            "server": {"host": "127.0.0.1", "port": port, "workers": 3},
            "ledger": {"url": url},
            "store": {"path": str(tmp_path / "qdrant"), "per_worker_local": True},
            "mcp": {"enabled": False}, "logging": {"access": False},
            "ssf": {"enabled": True, "poll_lease_ttl": 1.0, "transmitters": [
                {**tx.config(), "poll_url": f"{poll_base}/poll",
                 "poll_token_file": str(tmp_path / "poll-token"), "poll_interval": 0.1}]},
        }
        cfg = tmp_path / "gateway.yaml"
        cfg.write_text(json.dumps(config))
        sts = SecurityTokenService(tmp_path / "gw" / "sts", issuer=resource,
                                   audiences=(resource,))
        errlog = (tmp_path / "gateway.stderr").open("w+b")
        proc = subprocess.Popen([sys.executable, "-m", "memguard.gateway", "--config", str(cfg)],
                                env={**os.environ, "PYTHONWARNINGS": "ignore"},
                                stdout=subprocess.DEVNULL, stderr=errlog)

        def stop() -> None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

        stack.callback(stop)

        def ready() -> bool:
            assert proc.poll() is None, "gateway exited"
            try:
                return httpx.get(f"{resource}/readyz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        wait(ready, 90, "gateway ready")
        wait(lambda: holder_pid(url) is not None, 30, "a poller holds the lease")
        first = holder_pid(url)
        assert first is not None and first != proc.pid  # a worker, not the supervisor

        def revoke(user: str) -> str:
            return tx.queue(tx.set(f"{resource}/ssf", {CREDENTIAL_CHANGE: event()},
                                   sub_id=iss_sub(resource, user)))

        def refused_everywhere(token: str) -> bool:
            # a new connection per call: the calls spread over the 3 workers
            codes = {httpx.get(f"{resource}/v1/facts", timeout=10,
                               headers={"Authorization": f"Bearer {token}"}).status_code
                     for _ in range(12)}
            return codes == {401}

        old = [sts.issue_user_token(f"u{i}", scopes=SCOPES, ttl=600) for i in range(3)]
        time.sleep(1.1)  # tokens issued strictly before the events' timestamp
        jtis = [revoke(f"u{i}") for i in range(3)]
        wait(lambda: all(j in tx.acked for j in jtis), 30, "first SETs acked")
        for token in old:
            assert refused_everywhere(token)
        assert holder_pid(url) == first  # one poller all along

        os.kill(first, signal.SIGKILL)
        later = [sts.issue_user_token(f"v{i}", scopes=SCOPES, ttl=600) for i in range(2)]
        time.sleep(1.1)
        more = [revoke(f"v{i}") for i in range(2)]
        wait(lambda: all(j in tx.acked for j in more), 45, "SETs acked after the kill")
        second = holder_pid(url)
        assert second is not None and second != first
        for token in later:
            assert refused_everywhere(token)
        fresh = sts.issue_user_token("w0", scopes=SCOPES, ttl=600)
        assert httpx.get(f"{resource}/v1/facts", timeout=10,
                         headers={"Authorization": f"Bearer {fresh}"}).status_code == 200

        time.sleep(0.5)  # a duplicate ack would come with the next polls
        counts = Counter(tx.acked)
        for jti in jtis + more:
            assert counts[jti] == 1, f"{jti} acked {counts[jti]} times"
            assert applied(url, jti) == 1
        assert not tx.errors
