"""Prometheus ``/metrics`` for the gateway, on a listener of its own.

Who may scrape: the metrics listener is never the API port. It binds ``metrics.listen``
(configure a loopback or cluster-internal address; put it on a network only the scraper reaches)
and, with ``metrics.token_env``, also requires ``Authorization: Bearer <token>`` (compared in
constant time). Reasons: the API port faces agents and every request on it is authenticated and
audited; metrics name reason codes and traffic patterns an agent has no business reading; and a
separate listener keeps answering while every worker is busy or restarting.

Several workers: each records into its own files under ``PROMETHEUS_MULTIPROC_DIR``; the
supervising process serves the sum (``prometheus_client`` multi-process mode) plus the ledger-wide
gauges, which it reads from the ledger itself at scrape time.
"""

from __future__ import annotations

import hmac
import os
import shutil
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from memguard.errors import ConfigurationError
from memguard.telemetry.metrics import LedgerGauges

__all__ = [
    "LedgerCollector",
    "MetricsServer",
    "prepare_multiprocess",
    "process_registry",
    "scrape_registry",
    "serve_metrics",
]

_ENV = "PROMETHEUS_MULTIPROC_DIR"
_registry: Any = None
_registry_lock = threading.Lock()


def process_registry() -> Any:
    """This process's registry (single-process mode): memguard's instruments register here."""
    global _registry
    with _registry_lock:
        if _registry is None:
            from prometheus_client import CollectorRegistry

            _registry = CollectorRegistry(auto_describe=True)
        return _registry


def prepare_multiprocess(directory: Path) -> Path:
    """Use ``PROMETHEUS_MULTIPROC_DIR`` (set it to ``directory`` if unset), emptied: files a
    previous run left would be summed into this one's counters. Call before workers start."""
    path = Path(os.environ.get(_ENV) or directory)
    if path.exists():
        for child in path.iterdir():
            if child.is_file() and child.suffix == ".db":
                child.unlink()
            elif child.is_dir():
                shutil.rmtree(child)
    path.mkdir(parents=True, exist_ok=True)
    os.environ[_ENV] = str(path)
    return path


class LedgerCollector:
    """A ``prometheus_client`` collector of the ledger-wide gauges (read when scraped)."""

    def __init__(self, gauges: LedgerGauges) -> None:
        self.gauges = gauges

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        for name, help_text, value in self.gauges.samples():
            family = GaugeMetricFamily(name, help_text)
            family.add_metric([], value)
            yield family

    def describe(self) -> Iterable[Any]:
        return []


def scrape_registry(gauges: LedgerGauges | None) -> Any:
    """The registry a scrape collects: every worker's files in multi-process mode, else this
    process's instruments; plus the ledger gauges."""
    from prometheus_client import CollectorRegistry
    from prometheus_client.multiprocess import MultiProcessCollector

    directory = os.environ.get(_ENV)
    if directory:
        registry = CollectorRegistry(auto_describe=False)
        MultiProcessCollector(registry, path=directory)  # type: ignore[no-untyped-call]
    else:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Forward(process_registry()))
    if gauges is not None:
        registry.register(LedgerCollector(gauges))
    return registry


class _Forward:
    """Collects another registry (so the ledger gauges are never registered in it)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def collect(self) -> Iterator[Any]:
        yield from self.inner.collect()

    def describe(self) -> Iterable[Any]:
        return []


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


class _Server6(_Server):
    address_family = socket.AF_INET6


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _wsgi(registry: Any, token: str | None) -> Callable[..., Iterable[bytes]]:
    from prometheus_client import make_wsgi_app

    metrics = make_wsgi_app(registry)

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != "/metrics":
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"not found\n"]
        if token is not None:
            given = str(environ.get("HTTP_AUTHORIZATION", ""))
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                start_response(
                    "401 Unauthorized",
                    [("Content-Type", "text/plain"), ("WWW-Authenticate", "Bearer")],
                )
                return [b"unauthorized\n"]
        return metrics(environ, start_response)  # type: ignore[no-any-return]

    return app


class MetricsServer:
    """A running metrics listener (a thread); :meth:`close` stops it."""

    def __init__(self, server: _Server, thread: threading.Thread, gauges: LedgerGauges | None):
        self._server = server
        self._thread = thread
        self.gauges = gauges

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        host = str(self._server.server_address[0])
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}/metrics"

    def close(self) -> None:
        if self.gauges is not None:
            self.gauges.stop()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


def serve_metrics(
    listen: str,
    *,
    gauges: LedgerGauges | None = None,
    token: str | None = None,
) -> MetricsServer:
    """Serve ``/metrics`` on ``listen`` (``host:port``; port 0 picks a free one)."""
    host, _, port_text = listen.rpartition(":")
    if not host or not port_text.isdigit():
        raise ConfigurationError(f"`metrics.listen`: `{listen}` is not host:port")
    host = host.strip("[]")
    server_class = _Server6 if ":" in host else _Server
    try:
        server = make_server(
            host,
            int(port_text),
            _wsgi(scrape_registry(gauges), token),
            server_class=server_class,
            handler_class=_Quiet,
        )
    except OSError as exc:
        raise ConfigurationError(
            f"`metrics.listen`: cannot bind `{listen}`: {exc.strerror}"
        ) from None
    thread = threading.Thread(target=server.serve_forever, name="memguard-metrics", daemon=True)
    thread.start()
    if gauges is not None:
        gauges.start()
    return MetricsServer(server, thread, gauges)
