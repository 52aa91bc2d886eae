"""The memory routes: write, batch write, search, list, get, update, delete and audit a fact.

Each route checks its token scope first (an audited 403), then calls the guard; the guard's
errors map to HTTP in :mod:`memguard.gateway.errors`.
"""

# No `from __future__ import annotations`: FastAPI reads the route signatures' aliases.
import asyncio
from typing import Annotated

from fastapi import Query
from fastapi.responses import JSONResponse, Response

from memguard.gateway.context import Caller, Ctx
from memguard.gateway.responses import NO_STORE
from memguard.gateway.route_params import (
    ERRORS,
    NOT_FOUND,
    FactIdPath,
    PurposeQuery,
    SessionQuery,
    TurnIndexQuery,
    query_turn,
)
from memguard.gateway.route_table import RouteTable
from memguard.gateway.schemas import (
    FACT_ID,
    AuditOut,
    BatchWriteIn,
    BatchWriteOut,
    FactListOut,
    FactOut,
    Namespace,
    SearchIn,
    SearchOut,
    TrustName,
    UpdateIn,
    WriteIn,
    WriteOut,
)
from memguard.guard import FactInput
from memguard.trust import TrustLevel

__all__ = ["RECEIPT_HEADER", "routes"]

#: The response header a get with ``?receipt=true`` carries its read receipt in.
RECEIPT_HEADER = "Memguard-Receipt"

routes = RouteTable()


@routes.post(
    "/v1/facts",
    status_code=201,
    response_model=WriteOut,
    responses=ERRORS,
    tags=["memory"],
    summary="Write one fact",
)
async def write(body: WriteIn, identity: Caller, ctx: Ctx) -> WriteOut:
    """Store one fact. memguard assigns its trust from the channel (`source.kind`) and the
    writer's delegation chain, caps it by what it was derived from and what the turn read,
    and returns the provenance record it stamped. Needs the write scope."""
    await ctx.need(identity, ctx.scopes.write, "write")
    prov = await ctx.aguard.write(
        identity,
        body.text,
        namespace=body.namespace,
        source=body.source.to_source(),
        turn=body.turn.to_turn(),
        metadata=body.metadata,
        trust=body.trust_level(),
        derived_from=body.derived_from,
        ttl=body.ttl_seconds,
    )
    return WriteOut.of(prov)


@routes.post(
    "/v1/facts/batch",
    status_code=201,
    response_model=BatchWriteOut,
    responses=ERRORS,
    tags=["memory"],
    summary="Write a batch of facts",
)
async def write_batch(body: BatchWriteIn, identity: Caller, ctx: Ctx) -> BatchWriteOut:
    """Store several facts in one request: one ledger transaction per phase, all or none
    decided before anything is stored."""
    await ctx.need(identity, ctx.scopes.write, "write")
    facts = [
        FactInput(
            text=f.text,
            namespace=f.namespace,
            source=f.source.to_source(),
            turn=f.turn.to_turn(),
            metadata=f.metadata,
            trust=f.trust_level(),
            derived_from=tuple(f.derived_from),
        )
        for f in body.facts
    ]
    provs = await ctx.aguard.write_many(identity, facts, ttl=body.facts[0].ttl_seconds)
    return BatchWriteOut(facts=[WriteOut.of(p) for p in provs])


@routes.post(
    "/v1/search",
    response_model=SearchOut,
    responses=ERRORS,
    tags=["memory"],
    summary="Search the facts the caller may read",
)
async def search(body: SearchIn, identity: Caller, ctx: Ctx) -> SearchOut:
    """Similarity search inside the caller's scope: the scope is pushed into the store's
    query and every hit re-checked against the ledger. Quarantined facts never come back."""
    await ctx.need(identity, ctx.scopes.read, "search")
    turn = body.turn.to_turn() if body.turn is not None else None
    hits = await ctx.aguard.search(
        identity,
        body.query,
        k=body.k,
        namespaces=body.namespaces,
        min_trust=TrustLevel.parse(body.min_trust) if body.min_trust else None,
        purpose=body.purpose,
        trace_id=body.trace_id,
        turn=turn,
    )
    receipt = None
    if body.receipt:  # memguard/gateway/receipts.py
        receipt = await asyncio.to_thread(ctx.issue_receipt, identity, "search", body.purpose, hits)
    return SearchOut(facts=[FactOut.of(h) for h in hits], receipt=receipt)


@routes.get(
    "/v1/facts",
    response_model=FactListOut,
    responses=ERRORS,
    tags=["memory"],
    summary="Page through the facts the caller may read, in fact-id order",
)
async def list_facts(
    identity: Caller,
    ctx: Ctx,
    namespace: Annotated[
        list[Namespace] | None,
        Query(
            max_length=32,
            examples=[["travel"]],
            description="Only these namespaces (repeat the parameter).",
        ),
    ] = None,
    min_trust: Annotated[
        TrustName | None,
        Query(examples=["user"], description="Leave out facts below this trust."),
    ] = None,
    limit: Annotated[
        int, Query(ge=1, le=1000, examples=[50], description="Facts per page at most.")
    ] = 100,
    cursor: Annotated[
        str | None,
        Query(
            pattern=FACT_ID,
            examples=["3f1c2a9e-8b7d-4c6e-9a51-2d4b7e0c1f88"],
            description="`next_cursor` of the previous page.",
        ),
    ] = None,
    purpose: PurposeQuery = "answer",
    session_id: SessionQuery = None,
    turn_index: TurnIndexQuery = None,
) -> FactListOut:
    """Page through the facts the caller may read, in fact-id order; pass `next_cursor` as
    `cursor` for the next page."""
    await ctx.need(identity, ctx.scopes.read, "list")
    turn = query_turn(session_id, turn_index)
    facts, next_cursor = await ctx.aguard.list_facts(
        identity,
        namespaces=namespace,
        min_trust=TrustLevel.parse(min_trust) if min_trust else None,
        limit=limit,
        cursor=cursor,
        purpose=purpose,
        turn=turn,
    )
    return FactListOut(facts=[FactOut.of(f) for f in facts], next_cursor=next_cursor)


@routes.get(
    "/v1/facts/{fact_id}",
    response_model=FactOut,
    responses=NOT_FOUND,
    tags=["memory"],
    summary="Get one fact",
)
async def get(
    fact_id: FactIdPath,
    identity: Caller,
    ctx: Ctx,
    response: Response,
    purpose: PurposeQuery = "answer",
    session_id: SessionQuery = None,
    turn_index: TurnIndexQuery = None,
    receipt: Annotated[
        bool,
        Query(
            examples=[True],
            description="Return a signed read receipt in the `Memguard-Receipt` header.",
        ),
    ] = False,
) -> FactOut:
    """One fact by id. An unknown id, a quarantined fact and a fact outside the caller's
    scope are the same 404, so ids cannot be probed."""
    await ctx.need(identity, ctx.scopes.read, "get")
    turn = query_turn(session_id, turn_index)
    recalled = await ctx.aguard.get(identity, fact_id, purpose=purpose, turn=turn)
    if receipt:
        response.headers[RECEIPT_HEADER] = await asyncio.to_thread(
            ctx.issue_receipt, identity, "get", purpose, [recalled]
        )
    return FactOut.of(recalled)


@routes.put(
    "/v1/facts/{fact_id}",
    response_model=WriteOut,
    responses=NOT_FOUND,
    tags=["memory"],
    summary="Write a new version of a fact",
)
async def update(fact_id: FactIdPath, body: UpdateIn, identity: Caller, ctx: Ctx) -> WriteOut:
    """Write a new version of a fact the caller may update; it keeps the inputs of the
    version it replaces, so an overwrite cannot raise a derived fact's trust."""
    await ctx.need(identity, ctx.scopes.write, "update")
    prov = await ctx.aguard.update(
        identity,
        fact_id,
        body.text,
        source=body.source.to_source(),
        turn=body.turn.to_turn(),
        metadata=body.metadata,
        trust=body.trust_level(),
        ttl=body.ttl_seconds,
    )
    return WriteOut.of(prov)


@routes.delete(
    "/v1/facts/{fact_id}",
    status_code=204,
    responses=NOT_FOUND,
    tags=["memory"],
    summary="Delete a fact",
)
async def delete(fact_id: FactIdPath, identity: Caller, ctx: Ctx) -> Response:
    """Delete a fact (its ledger history stays)."""
    await ctx.need(identity, ctx.scopes.write, "delete")
    await ctx.aguard.delete(identity, fact_id)
    return Response(status_code=204)


@routes.get(
    "/v1/facts/{fact_id}/audit",
    response_model=AuditOut,
    responses={**ERRORS, 404: {"description": "no such fact, or not auditable by the caller"}},
    tags=["memory"],
    summary="Audit a fact: provenance, readers, verification",
)
async def audit(fact_id: FactIdPath, identity: Caller, ctx: Ctx) -> JSONResponse:
    """The `memguard.audit/v1` report: provenance, lineage, who read it, revocations, and
    whether its digests, store copy and audit-log inclusion proofs verify. Quarantined
    facts can be audited."""
    await ctx.need(identity, ctx.scopes.audit, "audit")
    report = await ctx.aguard.audit(identity, fact_id)
    return JSONResponse(report, headers=NO_STORE)
