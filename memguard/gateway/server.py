"""Running the gateway with uvicorn: in this process, in several worker processes, or in a thread.

Several workers: the parent prepares the state once (keys, ledger tables, recovery), then uvicorn
starts N processes that each build their own stack from the same configuration (passed in the
environment) and share the listening socket; a worker that dies is replaced. Every process is
stateless apart from the shared ledger (idempotency records included), the shared Qdrant server
and, with ``limits.storage: redis://...``, the shared rate counters; concurrency slots are per
process. The parent also serves ``/metrics`` (``metrics.listen``), summing the workers' files.

TLS (``server.tls`` or ``memguard serve --tls-cert/--tls-key``): uvicorn terminates it in every
worker; with ``client_ca`` a client certificate signed by those CAs is required (mutual TLS).
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

from memguard.errors import ConfigurationError
from memguard.gateway.config import GatewayConfig
from memguard.gateway.stack import GatewayStack, open_ledger, open_stack
from memguard.logging import get_logger

__all__ = ["app_from_environment", "free_port", "prepare", "run", "serve_in_thread", "tls_options"]

_ENV_CONFIG = "MEMGUARD_GATEWAY_CONFIG_JSON"
_ENV_BASE = "MEMGUARD_GATEWAY_BASE_DIR"


def free_port(host: str = "127.0.0.1") -> int:
    """A port that was free a moment ago (for tests and examples that must know it in advance)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def prepare(config: GatewayConfig) -> None:
    """One-time start-up work before workers exist: keys, tables, and recovery of pending writes."""
    stack = open_stack(config)
    try:
        if config.idempotency.enabled:  # before workers race to create it
            from memguard.gateway.idempotency import create_table

            create_table(stack.guard.ledger.engine)
        if config.recover_on_start and not config.store.per_worker_local:
            report = stack.guard.recover(older_than=config.recover_older_than)
            get_logger().info(
                "gateway.recovered",
                committed=len(report.committed),
                aborted=len(report.aborted),
                purged=len(report.purged),
            )
    finally:
        stack.close()


def tls_options(config: GatewayConfig) -> dict[str, Any]:
    """uvicorn's TLS arguments for ``server.tls`` (none without it); files are checked now."""
    tls = config.server.tls
    if tls is None:
        return {}
    cert, key = config.path(tls.cert), config.path(tls.key)
    ca = config.path(tls.client_ca) if tls.client_ca is not None else None
    for name, path in (("cert", cert), ("key", key), ("client_ca", ca)):
        if path is not None and not path.is_file():
            raise ConfigurationError(f"`server.tls.{name}`: `{path}` is not a readable file")
    password = os.environ.get(tls.key_password_env) if tls.key_password_env else None
    options: dict[str, Any] = {
        "ssl_certfile": str(cert),
        "ssl_keyfile": str(key),
        "ssl_keyfile_password": password,
    }
    if ca is not None:
        options["ssl_ca_certs"] = str(ca)
        options["ssl_cert_reqs"] = (
            ssl.CERT_REQUIRED if tls.client_cert == "required" else ssl.CERT_OPTIONAL
        )
    try:  # a bad certificate, key or password fails here, before any worker starts
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(str(cert), str(key), password)
        if ca is not None:
            context.load_verify_locations(str(ca))
    except (ssl.SSLError, OSError) as exc:
        raise ConfigurationError(
            f"`server.tls`: cannot load the certificate or key: {exc}"
        ) from None
    return options


def app_from_environment() -> FastAPI:
    """The uvicorn factory of a worker process (configuration from the parent's environment)."""
    from memguard.gateway.app import create_app
    from memguard.gateway.observability import configure_logging

    raw = os.environ.get(_ENV_CONFIG)
    if raw is None:
        raise ConfigurationError(f"`{_ENV_CONFIG}` is not set")
    config = GatewayConfig.from_mapping(json.loads(raw), where="gateway config")
    config._base_dir = Path(os.environ.get(_ENV_BASE, "."))
    configure_logging(config)
    return create_app(open_stack(config))


def _metrics(config: GatewayConfig, workers: int, ledger: Any) -> Any:
    """Multi-process files for several workers; the listener (in this process), if configured."""
    if not config.metrics.enabled:
        return None
    if workers > 1:
        from memguard.gateway.metrics_server import prepare_multiprocess

        prepare_multiprocess(config.state_path / "prometheus")
    if config.metrics.listen is None:
        return None
    from memguard.gateway.metrics_server import serve_metrics
    from memguard.telemetry.metrics import LedgerGauges

    token = None
    if config.metrics.token_env is not None:
        token = os.environ.get(config.metrics.token_env)
        if not token:
            raise ConfigurationError(f"`metrics.token_env`: `{config.metrics.token_env}` is empty")
    gauges = LedgerGauges(ledger, verify_interval=config.metrics.verify_interval)
    return serve_metrics(config.metrics.listen, gauges=gauges, token=token)


def run(config: GatewayConfig, *, workers: int | None = None, log_level: str = "warning") -> None:
    """Serve until interrupted. ``workers`` > 1 starts that many processes on one socket."""
    from memguard.gateway.observability import configure_logging

    n = workers or config.server.workers
    if n > 1 and config.store.url is None and not config.store.per_worker_local:
        raise ConfigurationError(
            "the embedded store (qdrant-edge, or Qdrant local mode) cannot be shared by several "
            "workers: one process holds its folder; set `store.url` "
            "(or `store.per_worker_local: true` for development)"
        )
    if (
        n > 1
        and config.limits.storage == "memory"
        and (config.limits.memory_rate or config.limits.token_rate or config.limits.route_rates)
    ):
        get_logger().warning(
            "gateway.rate_limits_per_process",
            workers=n,
            note="set `limits.storage: redis://...` to share them",
        )
    if n > 1 and (config.ledger.url is None or config.ledger.url.startswith("sqlite")):
        get_logger().warning("gateway.sqlite_multiprocess", note="one host only")
    configure_logging(config)
    tls = tls_options(config)
    prepare(config)
    host, port = config.server.host, config.server.port
    if n == 1:
        from memguard.gateway.app import create_app

        stack = open_stack(config)
        metrics = _metrics(config, n, stack.guard.ledger)
        try:
            uvicorn.run(
                create_app(stack),
                host=host,
                port=port,
                log_level=log_level,
                access_log=False,
                lifespan="on",
                **tls,
            )
        finally:
            if metrics is not None:
                metrics.close()
            stack.close()
        return
    _, ledger = open_ledger(config)
    metrics = _metrics(config, n, ledger)
    os.environ[_ENV_CONFIG] = json.dumps(config.model_dump(mode="json"))
    os.environ[_ENV_BASE] = str(config.path("."))
    try:
        uvicorn.run(
            "memguard.gateway.server:app_from_environment",
            factory=True,
            host=host,
            port=port,
            workers=n,
            log_level=log_level,
            access_log=False,
            lifespan="on",
            **tls,
        )
    finally:
        if metrics is not None:
            metrics.close()
        ledger.close(drain=True)  # the workers' queued events, integrated and signed


@contextmanager
def serve_in_thread(stack: GatewayStack, *, mcp: bool | None = None) -> Iterator[str]:
    """Serve ``stack`` on its configured loopback host and port in a thread; yields the base URL.

    For tests, examples and development; refuses non-loopback addresses.
    """
    from memguard.gateway.app import create_app

    host, port = stack.config.server.host, stack.config.server.port
    if not ipaddress.ip_address(host).is_loopback:
        raise ConfigurationError("serve_in_thread binds loopback addresses only")
    tls = tls_options(stack.config)
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(stack, mcp=mcp),
            host=host,
            port=port,
            log_level="warning",
            access_log=False,
            lifespan="on",
            **tls,
        )
    )
    thread = threading.Thread(target=server.run, name="memguard-gateway", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            raise ConfigurationError("gateway did not start")
        time.sleep(0.01)
    try:
        yield f"{'https' if tls else 'http'}://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(15)
