"""In-place adoption of a LangGraph store: its items become guarded facts in the same store
(``memguard adopt``'s rules, :mod:`memguard.adopt`; here because it writes this adapter's layout).

:func:`adopt_langgraph_in_place` moves each legacy item of a LangGraph ``BaseStore`` into its
owner's partition of that store, in the layout of ``memguard.adapters.langgraph`` (the tenant
label first, the caller's value with the reserved ``__memguard_*`` keys), so the application's
own call sites, with the store wrapped in ``GuardedStore``, keep reading them by the same
namespace and key, each for its owner only. The rules are those of every adoption
(:mod:`memguard.adopt.run`): owner from the mapping (never a default), source ``legacy``, trust
``untrusted`` unless stated, the scan stage on the item's strings, one ``adopt`` event per batch,
dry run, resumable (the ledger is the cursor).

Order, so a crash never loses an item: the guarded copy is written and committed through the
kernel's write protocol first; only then is the legacy copy removed. A rerun adopts what is left
and removes the legacy copies of facts the ledger already holds (an interrupted cleanup).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from langgraph.store.base import BaseStore, PutOp

from memguard.adopt.rows import AdoptReport, LegacyRow, OwnerMapping, Skip
from memguard.adopt.run import _Item, _known, _run, legacy_source
from memguard.adopt.sources import langgraph_store_rows
from memguard.context import external_fact_id, principal_label
from memguard.errors import InvalidRequest
from memguard.kernel import Kernel
from memguard.provenance import Provenance, value_digest
from memguard.trust import TrustLevel

from .._toolkit import scan_text
from .base import _DOC_KEY, _expiry_item, _is_reserved, _json_copy, _reserved_items, namespace_name

if TYPE_CHECKING:
    from memguard.ledger import Ledger

__all__ = ["adopt_langgraph_in_place"]

_TENANT_PREFIX = "mg-"  # memguard.context.principal_label: the guard's tenant labels


def adopt_langgraph_in_place(
    kernel: Kernel | None,
    store: BaseStore,
    *,
    mapping: OwnerMapping,
    operator: str,
    prefix: tuple[str, ...] = (),
    trust: TrustLevel | None = None,
    source_uri: str | None = None,
    batch: int = 256,
    dry_run: bool = False,
    on_batch: Callable[[int], object] | None = None,
    ledger: Ledger | None = None,
) -> AdoptReport:
    """Adopt the items under ``prefix`` of ``store`` where they are (module docstring).

    Skipped, never adopted: items already in a guard partition (``namespace.reserved``), values
    with ``__memguard_*`` keys (``payload.reserved``), items without a clear owner. The item list
    is read once up front (moving items while paging would skip some)."""
    if not isinstance(store, BaseStore):
        raise InvalidRequest("`store` must be a langgraph BaseStore")
    uri = source_uri or f"langgraph-store:{type(store).__name__}"
    source = legacy_source(uri, name=type(store).__name__)
    known = _known(kernel, ledger)
    legacy = [r for r in langgraph_store_rows(store, prefix=prefix)]
    config = getattr(store, "index_config", None) or {}
    fields = list(config.get("fields") or ["$"]) if config else []
    embeds_whole = any(p in ("$", "") for p in fields)

    def prepare(row: LegacyRow) -> _Item | Skip:
        if not row.path or row.path[0].startswith(_TENANT_PREFIX):
            return "namespace.reserved"
        if any(not isinstance(k, str) or _is_reserved(k) for k in row.record):
            return "payload.reserved"
        owner = mapping.owner_of(row)
        if isinstance(owner, str):
            return owner
        key = _item_key(row)
        tenant = principal_label(owner.issuer, owner.subject)
        value: dict[str, Any] = _json_copy(dict(row.record))
        fact_id = external_fact_id("langgraph", tenant, namespace_name(row.path), key)
        return _Item(row, fact_id, owner, namespace_name(row.path), scan_text(value),
                     value_digest(value), (tenant, key, value))  # fmt: skip

    def write(items: list[_Item], records: list[Provenance]) -> None:
        ops: list[Any] = []
        for item, prov in zip(items, records, strict=True):
            tenant, key, value = item.extra
            stored = {**value, **_reserved_items(prov), **_expiry_item(prov)}
            index: list[str] | None = None
            if embeds_whole:  # what GuardedStore.put does: embed a copy in place of `$`
                stored[_DOC_KEY] = _json_copy(value)
                index = [_DOC_KEY if p in ("$", "") else p for p in fields]
            ops.append(PutOp((tenant, *item.row.path), key, stored, index))
        store.batch(ops)

    report = _run(kernel, known, iter(legacy), source=source, prepare=prepare, write=write,
                  operator=operator, trust=trust, batch=batch, dry_run=dry_run,
                  on_batch=on_batch)  # fmt: skip
    if dry_run or kernel is None:
        return report
    # the legacy copies of every fact the ledger now holds (this run's and an interrupted one's),
    # removed inside one audited operation (a failure is a deny event; a rerun finishes it)
    with kernel.operation("adopt", None, require_identity=False) as op:
        op.note(operator=operator)
        removed = 0
        for start in range(0, len(legacy), batch):
            prepared = [(r, prepare(r)) for r in legacy[start : start + batch]]
            ids = {r.key: p.fact_id for r, p in prepared if isinstance(p, _Item)}
            held = known(list(ids.values()))
            gone = [r for r, _ in prepared if ids.get(r.key) in held]
            if gone:
                store.batch([PutOp(r.path, _item_key(r), None) for r in gone])
                removed += len(gone)
        op.finish("legacy copies removed", source=uri, removed=removed)
    return report


def _item_key(row: LegacyRow) -> str:
    """The item's own key (the row key is the JSON list of its namespace and key)."""
    import json

    parts = json.loads(row.key)
    key = parts[-1]
    assert isinstance(key, str)
    return key
