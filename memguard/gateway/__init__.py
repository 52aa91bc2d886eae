"""memguard as a service: an HTTP API, the RFC 8693 token endpoint, and an MCP server.

- :mod:`.config` the YAML configuration (frozen models, unknown keys are errors)
- :mod:`.stack` the guard, store, ledger, token service and policy one process serves with
- :mod:`.app` the FastAPI application, assembled from :mod:`.routes_facts`, :mod:`.routes_lineage`,
  :mod:`.routes_discovery` and :mod:`.routes_health` over one :mod:`.context`; :mod:`.mcp_server`
  the MCP tools
- :mod:`.auth` RFC 6750 bearer handling; :mod:`.errors` the error tree mapped to HTTP;
  :mod:`.limits` body size, time, concurrency and rate limits
- :mod:`.server` running it with uvicorn; :mod:`.cli` ``memguard serve``

Importing this package does not import FastAPI or ``mcp``; :mod:`.app` does. docs/gateway.md.
"""

from memguard.gateway.config import GatewayConfig, load_gateway_config

__all__ = ["GatewayConfig", "load_gateway_config"]
