"""The async shell: :class:`AsyncGuardedQdrantClient`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from qdrant_client import AsyncQdrantClient
from qdrant_client.conversions import common_types as types

from memguard.context import CallContext
from memguard.identity import Identity
from memguard.kernel import Kernel
from memguard.provenance import Source, Turn
from memguard.trust import TrustLevel

from .base import _T, Flow
from .driver import _STATE, _checked, _no_extra, _refuse_kwargs, _run_async, _Shell
from .payload import SummaryPlacement, _PayloadChange
from .points import _batch_steps, _collection_points, _keys, _upload_batches, _with_shard
from .query import _query_kwargs


class AsyncGuardedQdrantClient(_Shell):
    """The async twin over an ``AsyncQdrantClient``: the same core, the same checks and events."""

    __slots__ = ()

    def __init__(
        self,
        client: AsyncQdrantClient,
        *,
        kernel: Kernel,
        identity: Identity,
        context: CallContext,
        provenance_summary: bool = True,
        summary_in: SummaryPlacement = "payload",
    ) -> None:
        self._init(
            client, AsyncQdrantClient, kernel, identity, context, provenance_summary, summary_in
        )

    def with_context(
        self,
        *,
        source: Source | None = None,
        turn: Turn | None = None,
        purpose: str | None = None,
        trust: TrustLevel | None = None,
        derived_from: Sequence[str] | None = None,
    ) -> AsyncGuardedQdrantClient:
        clone: AsyncGuardedQdrantClient = super().with_context(
            source=source, turn=turn, purpose=purpose, trust=trust, derived_from=derived_from
        )
        return clone

    async def _go(self, flow: Flow[_T]) -> _T:
        bound = _STATE[self]
        return await _run_async(bound.raw, flow)

    async def upsert(
        self,
        collection_name: str,
        points: types.Points,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        update_filter: types.Filter | None = None,
        update_mode: types.UpdateMode | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        return await self._go(
            _STATE[self].planner.upsert(
                collection_name,
                points,
                wait,
                ordering,
                shard_key_selector,
                update_filter,
                update_mode,
                timeout,
            )
        )

    async def set_payload(
        self,
        collection_name: str,
        payload: types.Payload,
        points: types.PointsSelector,
        key: str | None = None,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        change = _PayloadChange("set", payload=payload, key=key)
        return await self._go(
            _STATE[self].planner.update_payload(
                collection_name, _with_shard(points, shard_key_selector), change, ordering, timeout
            )
        )

    async def overwrite_payload(
        self,
        collection_name: str,
        payload: types.Payload,
        points: types.PointsSelector,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        change = _PayloadChange("overwrite", payload=payload)
        return await self._go(
            _STATE[self].planner.update_payload(
                collection_name, _with_shard(points, shard_key_selector), change, ordering, timeout
            )
        )

    async def delete_payload(
        self,
        collection_name: str,
        keys: Sequence[str],
        points: types.PointsSelector,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        change = _PayloadChange("delete", keys=_keys(keys))
        return await self._go(
            _STATE[self].planner.update_payload(
                collection_name, _with_shard(points, shard_key_selector), change, ordering, timeout
            )
        )

    async def clear_payload(
        self,
        collection_name: str,
        points_selector: types.PointsSelector,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        change = _PayloadChange("clear")
        return await self._go(
            _STATE[self].planner.update_payload(
                collection_name,
                _with_shard(points_selector, shard_key_selector),
                change,
                ordering,
                timeout,
            )
        )

    async def delete(
        self,
        collection_name: str,
        points_selector: types.PointsSelector,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        return await self._go(
            _STATE[self].planner.delete(
                collection_name, _with_shard(points_selector, shard_key_selector), ordering, timeout
            )
        )

    async def query_points(
        self,
        collection_name: str,
        query: Any = None,
        using: str | None = None,
        prefetch: types.Prefetch | list[types.Prefetch] | None = None,
        query_filter: types.Filter | None = None,
        search_params: types.SearchParams | None = None,
        limit: int = 10,
        offset: int | None = None,
        with_payload: types.WithPayloadInterface = True,
        with_vectors: types.WithVector = False,
        score_threshold: float | None = None,
        lookup_from: types.LookupLocation | None = None,
        consistency: types.ReadConsistency | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.QueryResponse:
        result: types.QueryResponse = await self._go(
            _STATE[self].planner.query_points(
                collection_name,
                False,
                query=query,
                using=using,
                prefetch=prefetch,
                query_filter=query_filter,
                search_params=search_params,
                limit=limit,
                offset=offset,
                with_payload=with_payload,
                with_vectors=with_vectors,
                score_threshold=score_threshold,
                lookup_from=lookup_from,
                consistency=consistency,
                shard_key_selector=shard_key_selector,
                timeout=timeout,
            )
        )
        return result

    async def query_points_groups(
        self,
        collection_name: str,
        group_by: str,
        query: Any = None,
        using: str | None = None,
        prefetch: types.Prefetch | list[types.Prefetch] | None = None,
        query_filter: types.Filter | None = None,
        search_params: types.SearchParams | None = None,
        limit: int = 10,
        group_size: int = 3,
        with_payload: types.WithPayloadInterface = True,
        with_vectors: types.WithVector = False,
        score_threshold: float | None = None,
        with_lookup: types.WithLookupInterface | None = None,
        lookup_from: types.LookupLocation | None = None,
        consistency: types.ReadConsistency | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.GroupsResult:
        result: types.GroupsResult = await self._go(
            _STATE[self].planner.query_points(
                collection_name,
                True,
                group_by=group_by,
                query=query,
                using=using,
                prefetch=prefetch,
                query_filter=query_filter,
                search_params=search_params,
                limit=limit,
                group_size=group_size,
                with_payload=with_payload,
                with_vectors=with_vectors,
                score_threshold=score_threshold,
                with_lookup=with_lookup,
                lookup_from=lookup_from,
                consistency=consistency,
                shard_key_selector=shard_key_selector,
                timeout=timeout,
            )
        )
        return result

    async def retrieve(
        self,
        collection_name: str,
        ids: Sequence[types.PointId],
        with_payload: types.WithPayloadInterface = True,
        with_vectors: types.WithVector = False,
        consistency: types.ReadConsistency | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> list[types.Record]:
        return await self._go(
            _STATE[self].planner.retrieve(
                collection_name,
                ids,
                with_payload,
                with_vectors,
                consistency=consistency,
                shard_key_selector=shard_key_selector,
                timeout=timeout,
            )
        )

    async def scroll(
        self,
        collection_name: str,
        scroll_filter: types.Filter | None = None,
        limit: int = 10,
        order_by: types.OrderBy | None = None,
        offset: types.PointId | None = None,
        with_payload: types.WithPayloadInterface = True,
        with_vectors: types.WithVector = False,
        consistency: types.ReadConsistency | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> tuple[list[types.Record], types.PointId | None]:
        return await self._go(
            _STATE[self].planner.scroll(
                collection_name,
                scroll_filter,
                limit,
                with_payload,
                order_by=order_by,
                offset=offset,
                with_vectors=with_vectors,
                consistency=consistency,
                shard_key_selector=shard_key_selector,
                timeout=timeout,
            )
        )

    async def count(
        self,
        collection_name: str,
        count_filter: types.Filter | None = None,
        exact: bool = True,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.CountResult:
        return await self._go(
            _STATE[self].planner.count(collection_name, count_filter, shard_key_selector, timeout)
        )

    async def get_collection(self, collection_name: str) -> types.CollectionInfo:
        return await self._go(_STATE[self].planner.get_collection(collection_name))

    async def get_collections(self) -> types.CollectionsResponse:
        result: types.CollectionsResponse = await self._go(
            _STATE[self].planner.passthrough("get_collections")
        )
        return result

    async def collection_exists(self, collection_name: str) -> bool:
        return bool(
            await self._go(
                _STATE[self].planner.passthrough(
                    "collection_exists", collection_name=collection_name
                )
            )
        )

    async def create_collection(
        self,
        collection_name: str,
        vectors_config: types.VectorParams | Mapping[str, types.VectorParams] | None = None,
        sparse_vectors_config: Mapping[str, types.SparseVectorParams] | None = None,
        shard_number: int | None = None,
        sharding_method: types.ShardingMethod | None = None,
        replication_factor: int | None = None,
        write_consistency_factor: int | None = None,
        on_disk_payload: bool | None = None,
        hnsw_config: types.HnswConfigDiff | None = None,
        optimizers_config: types.OptimizersConfigDiff | None = None,
        wal_config: types.WalConfigDiff | None = None,
        quantization_config: types.QuantizationConfig | None = None,
        timeout: int | None = None,
        strict_mode_config: types.StrictModeConfig | None = None,
        metadata: types.Payload | None = None,
    ) -> bool:
        return await self._go(
            _STATE[self].planner.create_collection(
                collection_name,
                vectors_config=vectors_config,
                sparse_vectors_config=sparse_vectors_config,
                shard_number=shard_number,
                sharding_method=sharding_method,
                replication_factor=replication_factor,
                write_consistency_factor=write_consistency_factor,
                on_disk_payload=on_disk_payload,
                hnsw_config=hnsw_config,
                optimizers_config=optimizers_config,
                wal_config=wal_config,
                quantization_config=quantization_config,
                timeout=timeout,
                strict_mode_config=strict_mode_config,
                metadata=metadata,
            )
        )

    async def create_payload_index(
        self,
        collection_name: str,
        field_name: str,
        field_schema: types.PayloadSchemaType | None = None,
        field_type: types.PayloadSchemaType | None = None,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        return await self._go(
            _STATE[self].planner.create_payload_index(
                collection_name,
                field_name=field_name,
                field_schema=field_schema,
                field_type=field_type,
                wait=wait,
                ordering=ordering,
                timeout=timeout,
            )
        )

    # -- composite calls: as on GuardedQdrantClient ------------------------------------------------

    async def upload_points(
        self,
        collection_name: str,
        points: Iterable[types.PointStruct],
        batch_size: int = 64,
        parallel: int = 1,
        method: str | None = None,
        max_retries: int = 3,
        wait: bool = False,
        shard_key_selector: types.ShardKeySelector | None = None,
        update_filter: types.Filter | None = None,
        update_mode: types.UpdateMode | None = None,
        **kwargs: Any,
    ) -> None:
        planner = _STATE[self].planner
        _checked(planner, "write", lambda: _refuse_kwargs(kwargs))
        batches = _upload_batches(points, batch_size)
        while True:
            batch = _checked(planner, "write", lambda: next(batches, None))
            if batch is None:
                return
            await self.upsert(
                collection_name,
                points=batch,
                shard_key_selector=shard_key_selector,
                update_filter=update_filter,
                update_mode=update_mode,
            )

    async def upload_collection(
        self,
        collection_name: str,
        vectors: Any,
        payload: Iterable[dict[Any, Any]] | None = None,
        ids: Iterable[types.PointId] | None = None,
        batch_size: int = 64,
        parallel: int = 1,
        method: str | None = None,
        max_retries: int = 3,
        wait: bool = False,
        shard_key_selector: types.ShardKeySelector | None = None,
        update_filter: types.Filter | None = None,
        update_mode: types.UpdateMode | None = None,
        **kwargs: Any,
    ) -> None:
        planner = _STATE[self].planner
        points = _checked(
            planner,
            "write",
            lambda: _no_extra(kwargs, lambda: _collection_points(vectors, payload, ids)),
        )
        await self.upload_points(
            collection_name,
            points,
            batch_size=batch_size,
            shard_key_selector=shard_key_selector,
            update_filter=update_filter,
            update_mode=update_mode,
        )

    async def batch_update_points(
        self,
        collection_name: str,
        update_operations: Sequence[types.UpdateOperation],
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        timeout: int | None = None,
        **kwargs: Any,
    ) -> list[types.UpdateResult]:
        planner = _STATE[self].planner
        steps = _checked(
            planner, "write", lambda: _no_extra(kwargs, lambda: _batch_steps(update_operations))
        )
        out: list[types.UpdateResult] = []
        for name, step in steps:
            call = getattr(self, name)
            out.append(await call(collection_name, **step, ordering=ordering, timeout=timeout))
        return out

    async def query_batch_points(
        self,
        collection_name: str,
        requests: Sequence[types.QueryRequest],
        consistency: types.ReadConsistency | None = None,
        timeout: int | None = None,
        **kwargs: Any,
    ) -> list[types.QueryResponse]:
        planner = _STATE[self].planner
        queries = _checked(
            planner,
            "search",
            lambda: _no_extra(kwargs, lambda: [_query_kwargs(r) for r in requests]),
        )
        return [
            await self.query_points(collection_name, **q, consistency=consistency, timeout=timeout)
            for q in queries
        ]

    async def close(self) -> None:
        await _STATE[self].raw.close()
