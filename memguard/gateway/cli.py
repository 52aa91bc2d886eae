"""``memguard serve``: run the gateway (HTTP API, token endpoint, MCP) or the MCP server on stdio.

Register in ``memguard/cli.py`` with ``app.command("serve")(serve)``.
Exit codes: 0 stopped normally, 3 invalid configuration, 1 other failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["serve"]


def serve(
    config: Annotated[
        Path | None, typer.Option("--config", help="Gateway YAML (docs/gateway.md); none: embedded.")
    ] = None,
    host: Annotated[str | None, typer.Option("--host", help="Listen address.")] = None,
    port: Annotated[int | None, typer.Option("--port", help="Listen port.")] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", min=1, max=64, help="Worker processes.")
    ] = None,
    stdio: Annotated[
        bool, typer.Option("--stdio", help="Serve the MCP tools on stdin/stdout instead "
                           "(credentials from MEMGUARD_TOKEN, MEMGUARD_WORKLOAD_CREDENTIAL).")
    ] = False,
    log_level: Annotated[str, typer.Option("--log-level")] = "warning",
) -> None:
    """Run memguard as a service: memory API, RFC 8693 token endpoint, JWKS, MCP."""
    from memguard.errors import ConfigurationError, MemguardError
    from memguard.gateway.config import load_gateway_config

    try:
        cfg = load_gateway_config(config)
        server = cfg.server.model_copy(update={
            k: v for k, v in {"host": host, "port": port, "workers": workers}.items()
            if v is not None
        })
        base = cfg._base_dir
        cfg = cfg.model_copy(update={"server": type(cfg.server).model_validate(
            server.model_dump())})
        cfg._base_dir = base
        if stdio:
            _stdio(cfg)
        else:
            from memguard.gateway.server import run

            run(cfg, log_level=log_level)
    except ConfigurationError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(3) from None
    except MemguardError as exc:
        typer.echo(f"error: {exc} ({exc.code})", err=True)
        raise typer.Exit(1) from None


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
