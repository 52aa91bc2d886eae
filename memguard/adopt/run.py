"""Adoption: legacy rows become guarded facts, batch by batch, as the local operator.

Two targets:

- :func:`adopt_into_guard` copies each row into a :class:`~memguard.guard.MemoryGuard`'s store
  (the embedded state folder): text from ``text_field``, the rest of the record under the
  metadata key ``legacy``; served afterwards by ``MemoryGuard.search`` / ``get`` / ``list_facts``.
- :func:`adopt_qdrant_in_place` stamps the points of an existing Qdrant collection where they
  are (the reserved ``memguard`` payload key, nothing else changes), so the application's own
  code, with its client wrapped in ``GuardedQdrantClient``, serves them.

Both follow the write protocol of every guarded write: the kernel stamps the batch
(:meth:`~memguard.kernel.Operation.stamp_adopted`: owner from the mapping, source ``legacy``,
trust ``untrusted`` unless stated, the scan stage on the text), the ledger stages it, the store
is written, the ledger commits it with one allow event ``adopt`` per batch and its change entry.
Fact ids are derived from the source and the row key, so a rerun skips what a previous run
adopted (the ledger is the cursor): an interrupted adoption continues where it stopped.
``dry_run`` reads and counts and writes nothing. Rows without a clear owner, text or valid
metadata are skipped and counted, never adopted under a default owner.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memguard.adopt.rows import AdoptReport, LegacyRow, OwnerMapping, Skip, lookup
from memguard.context import external_fact_id
from memguard.errors import InvalidRequest, ReservedField
from memguard.identity import PrincipalId
from memguard.integrity import Candidate
from memguard.kernel import Kernel, StampRequest
from memguard.ports import Flow, done
from memguard.provenance import (
    Provenance,
    Source,
    Turn,
    check_metadata,
    content_digest,
    value_digest,
)
from memguard.stores.base import RESERVED_PAYLOAD_KEY, StoredPoint, build_payload, reserved_block
from memguard.trust import SourceKind, TrustLevel

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

    from memguard.guard import MemoryGuard
    from memguard.ledger import Ledger

__all__ = ["adopt_into_guard", "adopt_qdrant_in_place", "legacy_source"]

_MAX_BATCH = 10_000


def legacy_source(uri: str, name: str | None = None) -> Source:
    """The provenance source of facts adopted from ``uri`` (``memguard revoke --source URI``
    quarantines all of them)."""
    return Source(kind=SourceKind.LEGACY, uri=uri, name=name)


def _turn(uri: str) -> Turn:
    # one session per legacy source: `memguard revoke --session adopt:...` reaches all of it too
    return Turn(session_id="adopt:" + hashlib.sha256(uri.encode()).hexdigest()[:24], turn_index=0)


@dataclass(frozen=True, slots=True)
class _Item:
    row: LegacyRow
    fact_id: str
    owner: PrincipalId
    namespace: str
    text: str
    digest: str
    extra: Any = None


def _batches(rows: Iterable[LegacyRow], size: int) -> Iterator[list[LegacyRow]]:
    batch: list[LegacyRow] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _text(row: LegacyRow, text_field: str | None) -> str | Skip:
    if text_field is None:
        return _canonical_text(row.record)
    value = lookup(row.record, text_field)
    if not isinstance(value, str) or not value.strip():
        return "text.missing"
    return value


def _canonical_text(record: Any) -> str:
    import json

    return json.dumps(record, sort_keys=True, ensure_ascii=False, default=str)


def _known(kernel: Kernel | None, ledger: Ledger | None) -> Callable[[list[str]], set[str]]:
    """The ids the ledger already holds (a dry run without a ledger: none)."""
    source = kernel.ledger if kernel is not None else ledger

    def known(fact_ids: list[str]) -> set[str]:
        return set(source.latest(fact_ids)) if source is not None and fact_ids else set()

    return known


def _run(
    kernel: Kernel | None,
    known: Callable[[list[str]], set[str]],
    rows: Iterable[LegacyRow],
    *,
    source: Source,
    prepare: Callable[[LegacyRow], _Item | Skip],
    write: Callable[[list[_Item], list[Provenance]], None],
    operator: str,
    trust: TrustLevel | None,
    batch: int,
    dry_run: bool,
    on_batch: Callable[[int], object] | None,
) -> AdoptReport:
    if not isinstance(batch, int) or not 1 <= batch <= _MAX_BATCH:
        raise InvalidRequest(f"batch must be between 1 and {_MAX_BATCH}")
    if kernel is None and not dry_run:
        raise InvalidRequest("adoption needs a guard (or a kernel) unless it is a dry run")
    uri = source.uri or source.name or "-"
    report = AdoptReport(uri, dry_run)
    turn = _turn(uri)
    for rows_batch in _batches(rows, batch):
        report.seen += len(rows_batch)
        skipped_before = dict(report.skipped)
        items: list[_Item] = []
        for row in rows_batch:
            item = prepare(row)
            if isinstance(item, str):
                report.skip(row.key, item)
            else:
                items.append(item)
        if len({i.fact_id for i in items}) != len(items):  # two rows with one key: neither
            seen: dict[str, int] = {}
            for i in items:
                seen[i.fact_id] = seen.get(i.fact_id, 0) + 1
            for i in items:
                if seen[i.fact_id] > 1:
                    report.skip(i.row.key, "key.duplicate")
            items = [i for i in items if seen[i.fact_id] == 1]
        held = known([i.fact_id for i in items])
        todo = [i for i in items if i.fact_id not in held]
        report.already += len(items) - len(todo)
        if dry_run or not todo or kernel is None:
            for i in todo:
                owner = str(i.owner)
                report.owners[owner] = report.owners.get(owner, 0) + 1
            report.adopted += len(todo) if dry_run else 0
            if on_batch is not None:
                on_batch(len(rows_batch))
            continue
        requests = [
            (StampRequest(namespace=i.namespace, source=source, turn=turn, content_digest=i.digest,
                          trust=trust, fact_id=i.fact_id, text=i.text), i.owner)
            for i in todo
        ]  # fmt: skip
        with kernel.operation(
            "adopt", None, require_identity=False, fact_ids=[i.fact_id for i in todo]
        ) as op:
            stamped = op.stamp_adopted(requests, operator=operator)
            kept = [(i, p) for i, p in zip(todo, stamped, strict=True) if p is not None]
            for i, p in zip(todo, stamped, strict=True):
                if p is None:
                    report.skip(i.row.key, "scanner.refused")
            if not kept:
                op.finish("nothing adopted", source=uri, refused=len(todo))
            else:
                records = [p for _, p in kept]
                skipped = {r: n - skipped_before.get(r, 0) for r, n in report.skipped.items()
                           if n != skipped_before.get(r, 0)}  # fmt: skip
                # the kernel stages, stores through `write`, commits; no probe: after a failed
                # commit the batch is aborted (an adoption is re-run, never committed blind)
                op.persist(records, _WritePort(write, [i for i, _ in kept]), source=uri, adopted=len(records), seen=len(rows_batch),
                           skipped=skipped, owners=sorted({str(p.owner) for p in records}))  # fmt: skip
        for i, _ in kept:
            owner = str(i.owner)
            report.owners[owner] = report.owners.get(owner, 0) + 1
        report.adopted += len(kept)
        report.batches += 1
        if on_batch is not None:
            on_batch(len(rows_batch))
    if kernel is not None and not dry_run:
        # one closing event with the totals and the rows it skipped (never adopted, so no fact
        # event names them): what the operator was told is in the audit log too
        with kernel.operation("adopt", None, require_identity=False) as op:
            op.detail["operator"] = operator
            summary = report.as_json()
            op.finish("adoption finished", **{k: v for k, v in summary.items() if k != "dry_run"})
    return report


def adopt_into_guard(
    guard: MemoryGuard | None,
    rows: Iterable[LegacyRow],
    *,
    source: Source,
    mapping: OwnerMapping,
    namespace: str | Callable[[LegacyRow], str],
    operator: str,
    text_field: str | None = "text",
    trust: TrustLevel | None = None,
    keep_vectors: bool = False,
    batch: int = 256,
    dry_run: bool = False,
    on_batch: Callable[[int], object] | None = None,
    ledger: Ledger | None = None,
) -> AdoptReport:
    """Adopt ``rows`` into ``guard``'s store (module docstring). ``text_field`` ``None`` adopts
    the whole record as JSON text. ``keep_vectors`` reuses a row's vector when its dimension is
    the store's (only when the legacy store used the same embedding model as the guard);
    otherwise the guard's embedder embeds the text. A dry run needs no guard: ``ledger`` (if
    any) tells what an earlier run adopted."""
    if source.kind is not SourceKind.LEGACY:
        raise InvalidRequest("adopted facts have source kind `legacy`")
    uri = source.uri or source.name or "-"

    def prepare(row: LegacyRow) -> _Item | Skip:
        owner = mapping.owner_of(row)
        if isinstance(owner, str):
            return owner
        text = _text(row, text_field)
        if text == "text.missing":
            return text
        record = {k: v for k, v in row.record.items() if k != text_field}
        try:
            meta = check_metadata({"legacy": record, "legacy_key": row.key})
        except ReservedField:
            return "metadata.reserved"
        except (ValueError, TypeError):
            return "metadata.invalid"
        ns = namespace(row) if callable(namespace) else namespace
        return _Item(row, external_fact_id("adopt", uri, row.key), owner, ns, text,
                     content_digest(text, meta), meta)  # fmt: skip

    def write(items: list[_Item], records: list[Provenance]) -> None:
        assert guard is not None
        dim = guard.store.dimension
        reuse = [
            list(i.row.vector) if keep_vectors and i.row.vector is not None
            and len(i.row.vector) == dim else None
            for i in items
        ]  # fmt: skip
        missing = [i.text for i, v in zip(items, reuse, strict=True) if v is None]
        embedded = iter(guard.embedder.embed(missing) if missing else [])
        points = [
            StoredPoint(p.fact_id, build_payload(i.text, i.extra, p),
                        v if v is not None else list(next(embedded)))
            for i, p, v in zip(items, records, reuse, strict=True)
        ]  # fmt: skip
        guard.store.upsert(points)

    kernel = guard.kernel if guard is not None else None
    return _run(kernel, _known(kernel, ledger), rows, source=source, prepare=prepare, write=write,
                operator=operator, trust=trust, batch=batch, dry_run=dry_run,
                on_batch=on_batch)  # fmt: skip


def adopt_qdrant_in_place(
    kernel: Kernel | None,
    client: QdrantClient,
    collection: str,
    *,
    mapping: OwnerMapping,
    operator: str,
    text_field: str | None = "text",
    trust: TrustLevel | None = None,
    source_uri: str | None = None,
    batch: int = 256,
    dry_run: bool = False,
    on_batch: Callable[[int], object] | None = None,
    ledger: Ledger | None = None,
) -> AdoptReport:
    """Stamp the points of ``collection`` where they are, in the layout of
    ``memguard.adapters.qdrant`` (fact id from the collection and point id, namespace the
    collection, digest over the caller payload): afterwards ``GuardedQdrantClient`` over the
    same client serves each point to its owner only. Points that already carry a ``memguard``
    payload key and are not in the ledger are skipped (``payload.reserved``)."""
    uri = source_uri or f"qdrant:{collection}"
    source = legacy_source(uri, name=collection)
    known = _known(kernel, ledger)

    def prepare(row: LegacyRow) -> _Item | Skip:
        if any(k.casefold() == RESERVED_PAYLOAD_KEY for k in row.record):
            fact_id = external_fact_id("qdrant", collection, row.key)
            return "already" if known([fact_id]) else "payload.reserved"
        owner = mapping.owner_of(row)
        if isinstance(owner, str):
            return owner
        text = _text(row, text_field)
        if text == "text.missing":
            return text
        pid: int | str = int(row.key) if row.key.isdigit() else row.key
        return _Item(row, external_fact_id("qdrant", collection, row.key), owner, collection,
                     text, value_digest({"payload": dict(row.record)}), (pid, {}))  # fmt: skip

    return stamp_points_in_place(
        kernel, known, client, collection, prepare, source=source, operator=operator,
        trust=trust, batch=batch, dry_run=dry_run, on_batch=on_batch,
    )  # fmt: skip


def stamp_points_in_place(
    kernel: Kernel | None,
    known: Callable[[list[str]], set[str]],
    client: Any,
    collection: str,
    prepare: Callable[[LegacyRow], _Item | Skip],
    *,
    source: Source,
    operator: str,
    trust: TrustLevel | None,
    batch: int,
    dry_run: bool,
    on_batch: Callable[[int], object] | None,
) -> AdoptReport:
    """The in-place adoption of a Qdrant collection's points (Qdrant's and mem0's layouts): each
    prepared item's ``extra`` is (point id, payload changes); the changes and the reserved block
    are set on the point where it is. Rows already adopted are counted as ``already``."""
    from qdrant_client import models

    from memguard.adopt.sources import qdrant_rows

    def write(items: list[_Item], records: list[Provenance]) -> None:
        ops: list[Any] = [
            models.SetPayloadOperation(set_payload=models.SetPayload(
                payload={**i.extra[1], RESERVED_PAYLOAD_KEY: reserved_block(p)}, points=[i.extra[0]]
            ))
            for i, p in zip(items, records, strict=True)
        ]  # fmt: skip
        client.batch_update_points(collection, ops, wait=True)

    report = _run(kernel, known, qdrant_rows(client, collection), source=source, prepare=prepare,
                  write=write, operator=operator, trust=trust, batch=batch, dry_run=dry_run,
                  on_batch=on_batch)  # fmt: skip
    already = report.skipped.pop("already", 0)
    report.already += already
    report.examples = [(k, r) for k, r in report.examples if r != "already"]
    return report


class _WritePort:
    """The kernel's port for one adoption batch: ``write(items, records)`` stores it."""

    def __init__(
        self, write: Callable[[list[Any], list[Provenance]], object], items: list[Any]
    ) -> None:
        self._write, self._items = write, items

    def put(self, records: Sequence[Provenance]) -> Flow[None]:
        self._write(self._items, list(records))
        return done(None)

    def probe(self, fact_ids: Sequence[str]) -> Flow[Sequence[Candidate]]:
        return done([])
