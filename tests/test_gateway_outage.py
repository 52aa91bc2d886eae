"""Store and ledger outages through the gateway: 503 with Retry-After, readiness says why, and
afterwards nothing acknowledged is lost and nothing is half-written (no committed row without its
point, no pending row left after recovery)."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from gateway_helpers import Gateway, fact, running_gateway
from helpers import _dsn, pg_schema_url

from memguard.gateway.server import free_port
from memguard.ledger import FactState
from memguard.stores.edge import QdrantEdgeStore
from memguard.tokens import TokenExchangeError
from memguard.tokens.replay_sql import SqlReplayCache


def states(gw: Gateway) -> dict[str, int]:
    out: dict[str, int] = {}
    for state in FactState:
        out[state.value] = len(gw.stack.guard.ledger.in_state(state))
    return out


def assert_consistent(gw: Gateway, acked: list[str], token: str) -> None:
    """Every acknowledged write is readable; recovery leaves no pending row; no row is committed
    unless the store holds exactly its version."""
    gw.stack.guard.recover()
    assert gw.stack.guard.ledger.in_state(FactState.PENDING) == []
    h = gw.headers(token)
    for fact_id in acked:
        r = httpx.get(f"{gw.base}/v1/facts/{fact_id}", headers=h, timeout=10)
        assert r.status_code == 200, (fact_id, r.text)
    committed = gw.stack.guard.ledger.in_state(FactState.COMMITTED)
    assert {r.fact_id for r in committed} == set(acked)
    points = {p.fact_id for p in gw.stack.guard.store.retrieve([r.fact_id for r in committed])}
    assert points == set(acked)


@pytest.mark.filterwarnings("ignore:Failed to obtain server version")
def test_qdrant_server_unreachable_gives_503(tmp_path: Path) -> None:
    closed = free_port()  # nothing listens there
    with running_gateway(tmp_path, mcp=False,
                         store={"url": f"http://127.0.0.1:{closed}", "path": None}) as gw:
        token = gw.user_token()
        r = gw.post("/v1/facts", token, fact("lost?"))
        assert r.status_code == 503 and r.json()["error"]["code"] == "backend.store"
        assert r.headers["retry-after"] == "5"
        assert gw.post("/v1/search", token, {"query": "x"}).status_code == 503
        ready = httpx.get(f"{gw.base}/readyz", timeout=10)
        assert ready.status_code == 503 and ready.json()["checks"]["store"] == "backend.store"
        assert ready.json()["checks"]["ledger"] == "ok"
        assert httpx.get(f"{gw.base}/healthz", timeout=5).status_code == 200
        assert states(gw)["committed"] == 0 and states(gw)["pending"] == 0
        reasons = {e.reason for e in gw.stack.guard.ledger.events(decision="deny", limit=100)}
        assert "backend.store" in reasons


def test_local_store_taken_away_and_back(tmp_path: Path) -> None:
    with running_gateway(tmp_path, mcp=False) as gw:
        token = gw.user_token()
        acked = [gw.post("/v1/facts", token, fact(f"before {i}")).json()["fact_id"]
                 for i in range(3)]
        # the store goes away: its engine is closed and another opener holds the folder's lock
        gw.stack.store.disconnect()
        thief = QdrantEdgeStore(tmp_path / "qdrant")
        try:
            for i in range(3):
                r = gw.post("/v1/facts", token, fact(f"during {i}"))
                assert r.status_code == 503, r.text
            r = gw.post("/v1/facts/batch", token, {"facts": [fact("b1"), fact("b2")]})
            assert r.status_code == 503
            assert gw.post("/v1/search", token, {"query": "before"}).status_code == 503
            r = httpx.get(f"{gw.base}/v1/facts/{acked[0]}", headers=gw.headers(token), timeout=10)
            assert r.status_code == 503
            assert httpx.get(f"{gw.base}/readyz", timeout=10).status_code == 503
        finally:
            thief.close()
        # back: the gateway reopens the store by itself (after its one-second retry interval)
        import time

        time.sleep(1.1)
        r = gw.post("/v1/facts", token, fact("after"))
        assert r.status_code == 201, r.text
        acked.append(r.json()["fact_id"])
        assert states(gw)["aborted"] == 5  # every refused write was rolled back, none half-done
        assert_consistent(gw, acked, token)


def _role_url(url: str, role: str) -> str:
    return url.replace("postgres@", f"{role}@", 1)


@pytest.fixture
def pg_role() -> Iterator[tuple[str, str]]:
    """A schema and a login role of its own, so the test can cut exactly this gateway off."""
    role = f"mg_gw_{secrets.token_hex(5)}"
    with pg_schema_url() as url:
        schema = url.rsplit("%3D", 1)[1]
        with psycopg.connect(_dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE ROLE "{role}" LOGIN')
            conn.execute(f'GRANT ALL ON SCHEMA "{schema}" TO "{role}"')
        try:
            yield _role_url(url, role), role
        finally:
            with psycopg.connect(_dsn(), autocommit=True) as conn:
                conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s",
                    (role,))
                conn.execute(f'DROP OWNED BY "{role}" CASCADE')
                conn.execute(f'DROP ROLE "{role}"')


def _cut(role: str, *, login: bool) -> int:
    with psycopg.connect(_dsn(), autocommit=True) as conn:
        conn.execute(f'ALTER ROLE "{role}" {"LOGIN" if login else "NOLOGIN"}')
        if login:
            return 0
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s", (role,)
        ).fetchall()
        return len(rows)


@pytest.mark.postgres
def test_postgres_ledger_connection_dropped(tmp_path: Path, pg_role: tuple[str, str]) -> None:
    url, role = pg_role
    with running_gateway(tmp_path, mcp=False, ledger={"url": url}) as gw:
        token = gw.user_token()
        acked = [gw.post("/v1/facts", token, fact(f"before {i}")).json()["fact_id"]
                 for i in range(3)]
        assert _cut(role, login=False) >= 1  # live connections were terminated
        try:
            r = gw.post("/v1/facts", token, fact("during"))
            assert r.status_code == 503 and r.json()["error"]["code"] == "backend.ledger", r.text
            assert gw.post("/v1/search", token, {"query": "before"}).status_code == 503
            r = httpx.get(f"{gw.base}/v1/facts/{acked[0]}", headers=gw.headers(token), timeout=10)
            assert r.status_code == 503
            ready = httpx.get(f"{gw.base}/readyz", timeout=10)
            assert ready.status_code == 503 and ready.json()["checks"]["ledger"] == "backend.ledger"
            # token exchanges need the shared replay table: refused, never issued unchecked
            planner = gw.exchange_client(gw.planner)
            with pytest.raises(TokenExchangeError) as info:
                planner.exchange(gw.user_token(), audience=gw.resource, scope="memory:read")
            assert info.value.error == "server_error"
            planner.close()
        finally:
            _cut(role, login=True)
        r = gw.post("/v1/facts", token, fact("after"))
        assert r.status_code == 201, r.text
        acked.append(r.json()["fact_id"])
        assert_consistent(gw, acked, token)


@pytest.mark.postgres
def test_sql_replay_cache_is_shared_between_processes_views() -> None:
    with pg_schema_url() as url:
        a, b = SqlReplayCache.from_url(url), SqlReplayCache.from_url(url)
        try:
            key = f"client\x00{uuid.uuid4()}"
            assert a.use(key, 2_000_000_000, 1_800_000_000.0) is True
            assert b.use(key, 2_000_000_000, 1_800_000_000.0) is False  # replay via another engine
            assert a.use(key, 2_000_000_000, 1_800_000_000.0) is False
            assert b.use(key + "x", 2_000_000_000, 1_800_000_000.0) is True
        finally:
            a.close()
            b.close()


def test_sql_replay_cache_concurrent_uses_admit_one(tmp_path: Path) -> None:
    import threading

    url = f"sqlite:///{tmp_path / 'replay.db'}"
    caches = [SqlReplayCache.from_url(url) for _ in range(4)]
    results: list[bool] = []
    lock = threading.Lock()

    def use(cache: SqlReplayCache) -> None:
        ok = cache.use("c\x00same-jti", 2_000_000_000, 1_800_000_000.0)
        with lock:
            results.append(ok)

    threads = [threading.Thread(target=use, args=(c,)) for c in caches for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert sorted(results) == [False] * 11 + [True]
    for c in caches:
        c.close()


@pytest.mark.postgres
def test_two_gateways_on_one_postgres_share_single_use_checks(
    tmp_path: Path, pg_role: tuple[str, str]
) -> None:
    """An assertion used at one gateway process is refused at another (shared replay table)."""
    from urllib.parse import urlencode

    url, _ = pg_role
    with running_gateway(tmp_path / "a", mcp=False, ledger={"url": url},
                         sts={"key_dir": str(tmp_path / "keys")}) as one:
        clients = {"planner": one.planner, "browser": one.browser}
        from gateway_helpers import gateway_config

        from memguard.gateway.server import serve_in_thread
        from memguard.gateway.stack import open_stack

        cfg = gateway_config(tmp_path / "b", clients["planner"], clients["browser"],
                             ledger={"url": url}, sts={"key_dir": str(tmp_path / "keys")})
        cfg = cfg.model_copy(update={"server": cfg.server.model_copy(
            update={"resource": one.resource})})
        stack_b = open_stack(cfg)
        try:
            with serve_in_thread(stack_b, mcp=False) as base_b:
                now = int(__import__("time").time())
                assertion = one.planner.assertion(one.sts.token_audience, now, jti=f"j-{uuid.uuid4()}")
                form = {
                    "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                    "client_assertion_type":
                        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                    "client_assertion": assertion,
                    "subject_token": one.user_token(),
                    "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
                    "audience": one.resource, "scope": "memory:read",
                }
                ctype = {"content-type": "application/x-www-form-urlencoded"}
                first = httpx.post(f"{one.base}/token", content=urlencode(form), headers=ctype)
                assert first.status_code == 200, first.text
                replay = httpx.post(f"{base_b}/token", content=urlencode(form), headers=ctype)
                assert replay.status_code == 401 and replay.json()["error"] == "invalid_client"
        finally:
            stack_b.close()
