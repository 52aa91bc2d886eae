"""The write flows: put (stamp, then the kernel's persist protocol over the inner store) and
delete (tombstone what the delete scope admits, then purge)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from langgraph.store.base import GetOp, Item, Op, PutOp

from memguard.errors import InvalidRequest, ReservedField
from memguard.expiry import renewable as expiry_renewable
from memguard.expiry import ttl_seconds_of_minutes
from memguard.integrity import Candidate
from memguard.kernel import StampRequest, VerifiedFact
from memguard.ledger import FactState
from memguard.ports import FlowPort
from memguard.provenance import Provenance, value_digest
from memguard.pushdown.langgraph import RESERVED_PREFIX
from memguard.scope import ReadRequest

from .._toolkit import scan_text
from .base import (
    _DOC_KEY,
    Flow,
    _candidate,
    _expiry_item,
    _is_reserved,
    _json_copy,
    _reserved_items,
    namespace_name,
)
from .call import _CallBase


class _Writes(_CallBase):
    __slots__ = ()

    def _index(self, index: Literal[False] | list[str] | None) -> tuple[Any, bool]:
        """The inner put's ``index`` and whether it embeds the value copy (in place of ``$``)."""
        config = self.index_config
        if isinstance(index, list):
            for path in index:
                if not isinstance(path, str) or RESERVED_PREFIX in path.lower():
                    raise ReservedField("index paths may not name reserved keys")
        if not config or index is False:
            return index, False
        paths = index if index is not None else list(config.get("fields") or ["$"])
        if not any(p in ("$", "") for p in paths):
            return index, False
        return [_DOC_KEY if p in ("$", "") else p for p in paths], True

    def _write_flow(self, puts: list[PutOp]) -> Flow[None]:
        ctx = self.ctx
        with self.kernel.operation("write", self.identity, trace_id=ctx.turn.trace_id) as op:
            prepared: list[tuple[PutOp, dict[str, Any], str]] = []
            requests: list[StampRequest] = []
            for put in puts:
                if not isinstance(put.value, Mapping):
                    raise InvalidRequest("a value must be a mapping")
                for key in put.value:
                    if not isinstance(key, str):
                        raise InvalidRequest("value keys must be strings")
                    if _is_reserved(key):
                        raise ReservedField(f"value key `{key}` is reserved for provenance")
                value: dict[str, Any] = _json_copy(dict(put.value))
                namespace = tuple(put.namespace)
                fact_id = self.fact_id(namespace, put.key)
                prepared.append((put, value, fact_id))
                requests.append(
                    StampRequest(
                        namespace=namespace_name(namespace),
                        source=ctx.source,
                        turn=ctx.turn,
                        content_digest=value_digest(value),
                        trust=ctx.trust,
                        derived_from=ctx.derived_from,
                        fact_id=fact_id,
                        text=scan_text(value),
                        ttl_seconds=ttl_seconds_of_minutes(put.ttl),
                    )
                )
            records = op.stamp(requests)
            inner_ops: list[Op] = []
            for (put, value, _), prov in zip(prepared, records, strict=True):
                index, embed_copy = self._index(put.index)
                stored = {**value, **_reserved_items(prov), **_expiry_item(prov)}
                if embed_copy:
                    stored[_DOC_KEY] = _json_copy(value)
                # no inner ttl: the inner store's own expiry would delete facts unlogged
                inner_ops.append(
                    PutOp(self._inner_ns(tuple(put.namespace)), put.key, stored, index)
                )
            inner_keys = {
                fact_id: (self._inner_ns(tuple(put.namespace)), put.key)
                for put, _, fact_id in prepared
            }

            def put_flow(_: Sequence[Provenance]) -> Flow[None]:
                yield inner_ops
                return None

            yield from op.persist_flow(records, FlowPort(put_flow, self._probe(inner_keys)))
        return None

    @staticmethod
    def _probe(
        inner_keys: Mapping[str, tuple[tuple[str, ...], str]],
    ) -> Callable[[Sequence[str]], Flow[Sequence[Candidate]]]:
        """The write protocol's probe: what the inner store holds under each fact's key."""

        def probe(fact_ids: Sequence[str]) -> Flow[Sequence[Candidate]]:
            found = yield [GetOp(*inner_keys[f], refresh_ttl=False) for f in fact_ids]
            return [
                _candidate(f, item.value)
                for f, item in zip(fact_ids, found, strict=True)
                if isinstance(item, Item)
            ]

        return probe

    def _refresh_flow(self, hits: Sequence[tuple[VerifiedFact, Item]]) -> Flow[None]:
        """Refresh on read: renew the expiry of the items a read just returned (``hits``: the
        verified fact and the inner item as stored), as the kernel's ``refresh`` operation (a
        new version of each through the write protocol, logged; :mod:`memguard.expiry`). The
        inner copy is re-put with the new reserved block and ``index=False`` (vectors kept)."""
        now = self.kernel.clock()
        renewable = {
            f.fact_id: (f, item) for f, item in hits if expiry_renewable(f.provenance, now)
        }
        if not renewable:  # nothing the kernel would renew: no `refresh` operation, no event
            return None
        with self.kernel.operation("refresh", self.identity, trace_id=self.ctx.turn.trace_id) as op:

            def put_flow(records: Sequence[Provenance]) -> Flow[None]:
                ops: list[Op] = []
                for prov in records:
                    item = renewable[prov.fact_id][1]
                    kept = {k: v for k, v in item.value.items() if not _is_reserved(k)}
                    if _DOC_KEY in item.value:
                        kept[_DOC_KEY] = item.value[_DOC_KEY]
                    value = {**kept, **_reserved_items(prov), **_expiry_item(prov)}
                    ops.append(PutOp(tuple(item.namespace), item.key, value, False))
                yield ops
                return None

            keys = {f: (tuple(i.namespace), i.key) for f, (_, i) in renewable.items()}
            port = FlowPort(put_flow, self._probe(keys))
            yield from op.refresh_flow([f for f, _ in renewable.values()], port)
        return None

    def _delete_flow(self, deletes: list[PutOp]) -> Flow[None]:
        """Tombstone what the caller may delete, then purge it. A key with no live fact is passed
        to the store (a no-op, or a stray object in the caller's own partition); a fact the delete
        scope does not admit (quarantined, out of scope, being written) is left as it is, audited,
        with no error: unknown and out-of-scope keys are indistinguishable."""
        kernel = self.kernel
        ids = [self.fact_id(tuple(d.namespace), d.key) for d in deletes]
        with self._read_op("delete", ids) as op:
            request = ReadRequest("delete", purpose=self.ctx.purpose)
            plan = op.read_plan(request)
            records = kernel.ledger.latest(ids)
            doomed: list[str] = []
            forward: list[Op] = []
            kept: list[str] = []
            for put, fact_id in zip(deletes, ids, strict=True):
                record = records.get(fact_id)
                inner = PutOp(self._inner_ns(tuple(put.namespace)), put.key, None)
                if record is None or record.state is FactState.DELETED:
                    forward.append(inner)
                    continue
                if (
                    record.state is FactState.COMMITTED
                    and not record.quarantined
                    and op.admits(plan, request, record)
                ):
                    doomed.append(fact_id)
                    forward.append(inner)
                else:
                    kept.append(fact_id)
            if kept:
                op.note(withheld=kept)
            op.about(doomed)

            def purge() -> Flow[None]:
                if forward:
                    yield forward
                return None

            if doomed:
                yield from op.delete_flow(doomed, purge)
            else:
                yield from purge()
        return None
