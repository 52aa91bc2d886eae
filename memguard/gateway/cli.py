"""``memguard serve``: run the gateway (HTTP API, token endpoint, MCP) or the MCP server on stdio.

Register in ``memguard/cli.py`` with ``app.command("serve")(serve)``.
Exit codes: 0 stopped normally, 3 invalid configuration, 1 other failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["serve"]


def serve(
    config: Annotated[
        Path | None,
        typer.Option("--config", help="Gateway YAML (docs/gateway.md); none: embedded."),
    ] = None,
    host: Annotated[str | None, typer.Option("--host", help="Listen address.")] = None,
    port: Annotated[int | None, typer.Option("--port", help="Listen port.")] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", min=1, max=64, help="Worker processes.")
    ] = None,
    stdio: Annotated[
        bool,
        typer.Option(
            "--stdio",
            help="Serve the MCP tools on stdin/stdout instead "
            "(credentials from MEMGUARD_TOKEN, MEMGUARD_WORKLOAD_CREDENTIAL).",
        ),
    ] = False,
    log_level: Annotated[
        str, typer.Option("--log-level", help="uvicorn's own log level.")
    ] = "warning",
    tls_cert: Annotated[
        Path | None,
        typer.Option(
            "--tls-cert", help="Serve HTTPS with this PEM certificate (chain); needs --tls-key."
        ),
    ] = None,
    tls_key: Annotated[Path | None, typer.Option("--tls-key", help="Its PEM private key.")] = None,
    tls_client_ca: Annotated[
        Path | None,
        typer.Option(
            "--tls-client-ca",
            help="Require client certificates signed by these PEM CAs (mutual TLS).",
        ),
    ] = None,
    tls_client_cert: Annotated[
        str | None,
        typer.Option(
            "--tls-client-cert", help="With --tls-client-ca: `required` (default) or `optional`."
        ),
    ] = None,
    metrics_listen: Annotated[
        str | None,
        typer.Option(
            "--metrics-listen",
            help="Serve Prometheus /metrics on this "
            "host:port (its own listener, never the API port).",
        ),
    ] = None,
) -> None:
    """Run memguard as a service: memory API, RFC 8693 token endpoint, JWKS, MCP."""
    from memguard.errors import ConfigurationError, MemguardError
    from memguard.gateway.config import load_gateway_config

    try:
        cfg = load_gateway_config(config)
        updates: dict[str, object] = {
            k: v
            for k, v in {"host": host, "port": port, "workers": workers}.items()
            if v is not None
        }
        tls = _tls(cfg.server.tls, tls_cert, tls_key, tls_client_ca, tls_client_cert)
        if tls is not None:
            updates["tls"] = tls
        server = cfg.server.model_dump()
        server.update(updates)
        base = cfg._base_dir
        sections: dict[str, object] = {"server": type(cfg.server).model_validate(server)}
        if metrics_listen is not None:
            sections["metrics"] = type(cfg.metrics).model_validate(
                {**cfg.metrics.model_dump(), "listen": metrics_listen}
            )
        cfg = cfg.model_copy(update=sections)
        cfg._base_dir = base
        if stdio:
            _stdio(cfg)
        else:
            from memguard.gateway.server import run

            run(cfg, log_level=log_level)
    except ConfigurationError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(3) from None
    except ValueError as exc:  # an option that does not validate
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(3) from None
    except MemguardError as exc:
        typer.echo(f"error: {exc} ({exc.code})", err=True)
        raise typer.Exit(1) from None


def _tls(
    current: BaseModel | None,
    cert: Path | None,
    key: Path | None,
    client_ca: Path | None,
    client_cert: str | None,
) -> dict[str, object] | None:
    """``server.tls`` with the command line's TLS options over the file's (``None``: unchanged)."""
    from memguard.errors import ConfigurationError

    if cert is None and key is None and client_ca is None and client_cert is None:
        return None
    base: dict[str, object] = current.model_dump() if current is not None else {}
    for name, value in (("cert", cert), ("key", key), ("client_ca", client_ca)):
        if value is not None:
            base[name] = str(value.resolve())
    if client_cert is not None:
        base["client_cert"] = client_cert
    if "cert" not in base or "key" not in base:
        raise ConfigurationError("TLS needs both --tls-cert and --tls-key")
    return base


def _stdio(config: object) -> None:
    import logging
    import sys

    from memguard.gateway.config import GatewayConfig
    from memguard.gateway.mcp_server import build_mcp_server
    from memguard.gateway.stack import open_stack
    from memguard.logging import configure_json_logging

    assert isinstance(config, GatewayConfig)
    configure_json_logging(logging.INFO, stream=sys.stderr)  # stdout is the MCP channel
    stack = open_stack(config)
    try:
        build_mcp_server(stack, transport="stdio").run("stdio")
    finally:
        stack.close()
