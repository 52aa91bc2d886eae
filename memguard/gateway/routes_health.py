"""The health routes: liveness (``/healthz``) and readiness (``/readyz``, each dependency checked)."""

# No `from __future__ import annotations`: FastAPI reads the route signatures' aliases.
import asyncio

from fastapi.responses import JSONResponse

from memguard.gateway.context import Ctx
from memguard.gateway.responses import NO_STORE
from memguard.gateway.route_table import RouteTable
from memguard.gateway.schemas import HealthOut, ReadyOut

__all__ = ["routes"]

routes = RouteTable()


@routes.get(
    "/healthz",
    tags=["health"],
    response_model=HealthOut,
    summary="Liveness: the process serves requests",
)
async def healthz() -> dict[str, str]:
    """Always `ok` while the process serves requests (no dependency is checked)."""
    return {"status": "ok"}


@routes.get(
    "/readyz",
    tags=["health"],
    response_model=ReadyOut,
    responses={503: {"model": ReadyOut, "description": "not ready"}},
    summary="Readiness: policy, keys, ledger and store checked for real",
)
async def readyz(ctx: Ctx) -> JSONResponse:
    """Each dependency is exercised (policy loaded, keys readable, a ledger and a store
    query); 503 with the failing check while any is not ok."""
    checks = await asyncio.to_thread(ctx.stack.readiness)
    ready = all(v == "ok" for v in checks.values())
    return JSONResponse(
        {"status": "ready" if ready else "not_ready", "checks": checks},
        status_code=200 if ready else 503,
        headers=NO_STORE,
    )
