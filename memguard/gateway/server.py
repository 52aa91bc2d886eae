"""Running the gateway with uvicorn: in this process, in several worker processes, or in a thread.

Several workers: the parent prepares the state once (keys, ledger tables, recovery), then uvicorn
starts N processes that each build their own stack from the same configuration (passed in the
environment) and share the listening socket. Every process is stateless apart from the shared
ledger (and the shared Qdrant server); rate buckets and concurrency slots are per process.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from fastapi import FastAPI

from memguard.errors import ConfigurationError
from memguard.gateway.config import GatewayConfig
from memguard.gateway.stack import GatewayStack, open_stack
from memguard.logging import get_logger

__all__ = ["app_from_environment", "free_port", "prepare", "run", "serve_in_thread"]

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
        if config.recover_on_start and not config.store.per_worker_local:
            report = stack.guard.recover(older_than=config.recover_older_than)
            get_logger().info("gateway.recovered", committed=len(report.committed),
                              aborted=len(report.aborted), purged=len(report.purged))
    finally:
        stack.close()


def app_from_environment() -> FastAPI:
    """The uvicorn factory of a worker process (configuration from the parent's environment)."""
    from memguard.gateway.app import create_app

    raw = os.environ.get(_ENV_CONFIG)
    if raw is None:
        raise ConfigurationError(f"`{_ENV_CONFIG}` is not set")
    config = GatewayConfig.from_mapping(json.loads(raw), where="gateway config")
    config._base_dir = Path(os.environ.get(_ENV_BASE, "."))
    return create_app(open_stack(config))


def run(config: GatewayConfig, *, workers: int | None = None, log_level: str = "warning") -> None:
    """Serve until interrupted. ``workers`` > 1 starts that many processes on one socket."""
    n = workers or config.server.workers
    if n > 1 and config.store.url is None and not config.store.per_worker_local:
        raise ConfigurationError(
            "Qdrant local mode cannot be shared by several workers: set `store.url` "
            "(or `store.per_worker_local: true` for development)"
        )
    if n > 1 and (config.ledger.url is None or config.ledger.url.startswith("sqlite")):
        get_logger().warning("gateway.sqlite_multiprocess", note="one host only")
    prepare(config)
    host, port = config.server.host, config.server.port
    if n == 1:
        from memguard.gateway.app import create_app

        stack = open_stack(config)
        try:
            uvicorn.run(create_app(stack), host=host, port=port, log_level=log_level,
                        access_log=False, lifespan="on")
        finally:
            stack.close()
        return
    os.environ[_ENV_CONFIG] = json.dumps(config.model_dump(mode="json"))
    os.environ[_ENV_BASE] = str(config.path("."))
    uvicorn.run("memguard.gateway.server:app_from_environment", factory=True, host=host,
                port=port, workers=n, log_level=log_level, access_log=False, lifespan="on")


@contextmanager
def serve_in_thread(stack: GatewayStack, *, mcp: bool | None = None) -> Iterator[str]:
    """Serve ``stack`` on its configured loopback host and port in a thread; yields the base URL.

    For tests, examples and development; refuses non-loopback addresses.
    """
    from memguard.gateway.app import create_app

    host, port = stack.config.server.host, stack.config.server.port
    if not ipaddress.ip_address(host).is_loopback:
        raise ConfigurationError("serve_in_thread binds loopback addresses only")
    server = uvicorn.Server(uvicorn.Config(create_app(stack, mcp=mcp), host=host, port=port,
                                           log_level="warning", access_log=False, lifespan="on"))
    thread = threading.Thread(target=server.run, name="memguard-gateway", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            raise ConfigurationError("gateway did not start")
        time.sleep(0.01)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(15)
