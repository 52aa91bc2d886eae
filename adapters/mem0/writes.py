"""The core without I/O: writes, each through the kernel (stamp, then ``persist_flow``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

# mem0 reads this once, when it is first imported, and uploads usage events from construction
# on: off unless the application turned it on itself (the shells refuse mem0 with it on)
os.environ.setdefault("MEM0_TELEMETRY", "False")

from mem0.configs.prompts import (  # type: ignore[import-untyped]
    ADDITIVE_EXTRACTION_PROMPT,
    generate_additive_extraction_prompt,
)

from memguard.errors import (
    AccessDenied,
    InvalidRequest,
    StoreError,
)
from memguard.integrity import Candidate
from memguard.kernel import Operation, StampRequest
from memguard.ports import FlowPort
from memguard.provenance import (
    Provenance,
)
from memguard.stores.base import reserved_block

from .._toolkit import SUMMARY_KEY
from .base import (
    _DELETE_BATCH,
    _INFER_CONTEXT,
    _MAX_TEXT,
    _MAX_TOP_K,
    _PENDING,
    _PROMOTED,
    _RESERVED,
    _UNSET,
    LEGACY_SUMMARY_KEY,
    _Call,
    _caller_metadata,
    _digest,
    _expiration,
    _Flow,
    _id_of,
    _one,
    _results,
    _split_metadata,
    _target,
    memory_fact_id,
    summarized,
)
from .messages import _decisions, _Entry, _groups, _inferred_cap, _messages
from .scope import _CoreBase


class _Writes(_CoreBase):
    """mem0's writes (``add`` with and without inference, ``update``, ``delete``, ``delete_all``)."""

    __slots__ = ()

    # -- writes ----------------------------------------------------------------------------------

    def add(
        self,
        messages: object,
        *,
        user_id: object,
        agent_id: object,
        run_id: object,
        metadata: Mapping[str, Any] | None,
        timestamp: object,
        expiration_date: object,
        infer: object,
        memory_type: object,
        prompt: object,
        llm: object = None,
        instructions: object = None,
    ) -> _Flow[dict[str, Any]]:
        if infer is not False:
            return (
                yield from self._infer(
                    messages,
                    scope={"user_id": user_id, "agent_id": agent_id, "run_id": run_id},
                    metadata=metadata,
                    timestamp=timestamp,
                    expiration_date=expiration_date,
                    memory_type=memory_type,
                    prompt=prompt,
                    llm=llm,
                    instructions=instructions,
                )
            )
        ctx = self.context
        with self.kernel.operation("write", self.identity, trace_id=ctx.turn.trace_id) as op:
            shown: dict[str, str] = {}
            self.check_scope_args(shown, user_id=user_id, agent_id=agent_id, run_id=run_id)
            if memory_type is not None or prompt is not None or llm is not None:
                raise InvalidRequest("`memory_type`, `prompt` and `llm` need inference")
            if timestamp is not None:
                raise InvalidRequest("`timestamp` is not supported by mem0 open source")
            msgs = _messages(messages)
            meta = _caller_metadata(metadata)
            expiration = _expiration(expiration_date)
            if not msgs:
                op.finish("empty")
                return {"results": []}
            entries = [_Entry(m.content, m.role, m.name) for m in msgs]
            items, records = yield from self._insert(op, entries, meta, expiration)
            return {
                "results": [
                    self.show(summarized(item, prov), shown)
                    for item, prov in zip(items, records, strict=True)
                ]
            }

    def _insert(
        self,
        op: Operation,
        entries: Sequence[_Entry],
        meta: Mapping[str, Any],
        expiration: str | None,
    ) -> _Flow[tuple[list[dict[str, Any]], list[Provenance]]]:
        """New memories through mem0's verbatim path: decide -> mem0 ``add`` with a ``pending``
        block -> stamp with the real ids -> ledger ``pending`` -> reserved blocks -> ``committed``."""
        digests = [
            _digest(e.text, meta, self.promoted(e.role, e.name, expiration, e.attributed_to))
            for e in entries
        ]
        # decide (policy, trust, revocations, scan) before mem0 sees anything; these ids are dropped
        self.stamp(
            op,
            [self._write_request(d, None, e.text) for d, e in zip(digests, entries, strict=True)],
        )
        items: list[dict[str, Any]] = []
        created: list[str] = []
        try:
            for group in _groups(entries):
                backend = [
                    {"role": e.role, "content": e.text, **({"name": e.name} if e.name else {})}
                    for e in group
                ]
                extra = {"attributed_to": group[0].attributed_to} if group[0].attributed_to else {}
                kwargs: dict[str, Any] = {
                    "user_id": self.user_id,
                    "agent_id": self.agent_id,
                    "run_id": self.run_id,
                    "metadata": {**meta, **extra, _RESERVED: dict(_PENDING)},
                    "infer": False,
                    "expiration_date": expiration,
                }
                got = _results((yield _Call("memory", "add", (backend,), kwargs)))
                ids = [str(i.get("id")) for i in got if isinstance(i.get("id"), str)]
                created.extend(ids)
                items.extend(got)
                if len(ids) != len(group) or any(
                    i.get("memory") != e.text for i, e in zip(got, group, strict=False)
                ):
                    raise StoreError("mem0 stored something other than the messages given")
            records = self.stamp(
                op,
                [
                    self._write_request(d, memory_fact_id(mid), e.text)
                    for d, mid, e in zip(digests, created, entries, strict=True)
                ],
            )
            by_fact = {memory_fact_id(m): m for m in created}

            def mark(records: Sequence[Provenance]) -> _Flow[None]:
                for prov in records:
                    payload = {_RESERVED: reserved_block(prov)}
                    yield _Call(
                        "store",
                        "update",
                        (),
                        {"vector_id": by_fact[prov.fact_id], "payload": payload},
                    )

            yield from op.persist_flow(
                records, FlowPort(mark, self._probe(by_fact)), memory_ids=created
            )
        except Exception:
            yield from self._discard(created)
            raise
        return items, records

    def _probe(
        self, memories: Mapping[str, str]
    ) -> Callable[[Sequence[str]], _Flow[Sequence[Candidate]]]:
        """The kernel's probe: the memories of these fact ids as mem0 now holds them."""

        def probe(fact_ids: Sequence[str]) -> _Flow[Sequence[Candidate]]:
            out: list[Candidate] = []
            for fact_id in fact_ids:
                item = yield _Call("memory", "get", (memories[fact_id],))
                cand = self.candidate(item) if isinstance(item, Mapping) else None
                if cand is not None:
                    out.append(cand)
            return out

        return probe

    # -- inference (mem0's default ``infer=True``) ----------------------------------------------

    def _infer(
        self,
        messages: object,
        *,
        scope: Mapping[str, object],
        metadata: Mapping[str, Any] | None,
        timestamp: object,
        expiration_date: object,
        memory_type: object,
        prompt: object,
        llm: object,
        instructions: object,
    ) -> _Flow[dict[str, Any]]:
        """mem0's extraction with the guard in each step: the LLM sees only the caller's verified
        memories; what it extracts is stamped as derived from them and this turn (trust at most
        ``derived`` and at most the messages'); its UPDATE and DELETE decisions may only name
        memories it was shown, and each runs as the guarded ``update`` / ``delete``."""
        ctx = self.context
        shown: dict[str, str] = {}
        # 1. the context mem0 gives its LLM, read through the guard (the turn records the read)
        with self.kernel.operation(
            "search", self.identity, purpose=ctx.purpose, trace_id=ctx.turn.trace_id, turn=ctx.turn
        ) as op:
            narrow = self.check_scope_args(shown, **scope)
            narrow.pop("user_id", None)
            if memory_type is not None:
                raise InvalidRequest(
                    "procedural memories (`memory_type`) are not supported by the guard"
                )
            if llm is not None:
                raise InvalidRequest("`llm` is not supported by the guard: configure mem0's LLM")
            if timestamp is not None:
                raise InvalidRequest("`timestamp` is not supported by mem0 open source")
            if prompt is not None and not isinstance(prompt, str):
                raise InvalidRequest("`prompt` must be a string")
            msgs = _messages(messages)
            meta = _caller_metadata(metadata)
            expiration = _expiration(expiration_date)
            if not msgs:
                op.finish("empty")
                return {"results": []}
            parsed = "".join(f"{m.role}: {m.content}\n" for m in msgs)
            request = self._read("search")
            plan = op.read_plan(request)
            filters = self.filters(plan, narrow=narrow)
            seen = yield from self._verified_page(
                op,
                plan,
                request,
                _INFER_CONTEXT,
                lambda limit: _Call(
                    "memory",
                    "search",
                    (parsed,),
                    {"top_k": limit, "filters": filters, "threshold": 0.0},
                ),
            )
            op.finish(returned=[f.fact_id for f in seen], returned_count=len(seen), inference=True)
        existing = {str(i): f for i, f in enumerate(seen)}
        custom = prompt if prompt is not None else instructions
        user_prompt = generate_additive_extraction_prompt(
            existing_memories=[
                {"id": key, "text": str((f.candidate.payload or {}).get("memory", ""))}
                for key, f in existing.items()
            ],
            new_messages=parsed,
            last_k_messages=[],  # mem0's raw message log is not provenance-checked: not shown
            custom_instructions=custom if isinstance(custom, str) and custom else None,
        )
        inputs = tuple(dict.fromkeys((*ctx.derived_from, *(f.fact_id for f in seen))))
        derived = self.replace(ctx.replace(derived_from=inputs), cap=_inferred_cap(self.cap))
        # 2. extraction, checked, and the ADDs, in one audited write
        with self.kernel.operation("write", self.identity, trace_id=ctx.turn.trace_id) as op:
            try:
                raw = yield _Call(
                    "llm",
                    "generate_response",
                    (),
                    {
                        "messages": [
                            {"role": "system", "content": ADDITIVE_EXTRACTION_PROMPT},
                            {"role": "user", "content": user_prompt},
                        ],
                        "response_format": {"type": "json_object"},
                    },
                )
            except Exception as exc:
                op.note(error=type(exc).__name__)
                raise StoreError("mem0's LLM failed; nothing was written") from exc
            decisions = _decisions(raw)
            op.note(decisions=[d.event for d in decisions])
            for d in decisions:  # before anything is written: a decision naming an unseen memory
                if d.event in ("UPDATE", "DELETE") and d.ref not in existing:
                    op.note(why="the LLM named a memory it was not shown")
                    raise AccessDenied(
                        "mem0's LLM named a memory outside the caller's verified context",
                        code="access_denied.out_of_scope",
                    )
            texts = {str((f.candidate.payload or {}).get("memory")) for f in seen}
            adds: list[_Entry] = []
            for d in decisions:
                if d.event == "ADD" and d.text not in texts:
                    texts.add(d.text)  # mem0 drops exact duplicates of what it already has
                    adds.append(_Entry(d.text, "user", None, d.attributed_to))
            results: list[dict[str, Any]] = []
            if adds:
                items, records = yield from derived._insert(op, adds, meta, expiration)
                for item, entry, prov in zip(items, adds, records, strict=True):
                    out = {"id": item.get("id"), "memory": entry.text, "event": "ADD"}
                    if entry.attributed_to:
                        out["attributed_to"] = entry.attributed_to
                    results.append(summarized(out, prov))
            else:
                op.finish("nothing extracted")
        # 3. UPDATE / DELETE, each the guarded operation (an invisible target is refused there too)
        for d in decisions:
            if d.event not in ("UPDATE", "DELETE"):
                continue
            target = existing[str(d.ref)]
            mid = _id_of(target)
            old = (target.candidate.payload or {}).get("memory")
            if d.event == "UPDATE":
                if d.text == old:
                    continue
                updated = yield from derived.update(mid, d.text, None, _UNSET, None)
                results.append(
                    {
                        "id": mid,
                        "memory": d.text,
                        "event": "UPDATE",
                        "previous_memory": old,
                        SUMMARY_KEY: updated[SUMMARY_KEY],
                        LEGACY_SUMMARY_KEY: updated[LEGACY_SUMMARY_KEY],
                    }
                )
            else:
                yield from self.delete(mid)
                results.append({"id": mid, "memory": old, "event": "DELETE"})
        return {"results": results}

    def _discard(self, memory_ids: Sequence[str]) -> _Flow[None]:
        """Best-effort removal of memories mem0 created for a write that then failed; what stays
        has a ``pending`` block (never served) and no committed ledger row."""
        for mid in memory_ids:
            try:
                yield _Call("memory", "delete", (mid,))
                yield _Call("history", "redact", (mid,))
            except Exception:
                continue

    def update(
        self,
        memory_id: object,
        text: str | None,
        metadata: Mapping[str, Any] | None,
        expiration_date: object,
        data: str | None,
    ) -> _Flow[dict[str, Any]]:
        ctx = self.context
        with self.kernel.operation("update", self.identity, trace_id=ctx.turn.trace_id) as op:
            mid, fact_id = _target(op, memory_id)
            new_text = text if text is not None else data
            if new_text is None and metadata is None and expiration_date is _UNSET:
                raise InvalidRequest("give at least one of `text`, `metadata` or `expiration_date`")
            if new_text is not None and (not new_text or len(new_text) > _MAX_TEXT):
                raise InvalidRequest("`text` must be a non-empty string (at most 1 MiB)")
            request = self._read("update")
            current = yield from self._current(op, op.read_plan(request), request, mid)
            item = current.candidate.payload or {}
            meta, _ = _split_metadata(item)
            added = _caller_metadata(metadata)
            meta.update(added)  # mem0 merges new metadata into the stored payload
            promoted = {k: item[k] for k in _PROMOTED if k in item}
            kwargs: dict[str, Any] = {}
            if expiration_date is not _UNSET:
                promoted["expiration_date"] = kwargs["expiration_date"] = _expiration(
                    expiration_date
                )
            final_text = new_text if new_text is not None else str(item.get("memory"))
            req = self._write_request(_digest(final_text, meta, promoted), fact_id)
            records = self.stamp(
                op,
                [
                    StampRequest(
                        namespace=current.provenance.namespace,
                        source=req.source,
                        turn=req.turn,
                        content_digest=req.content_digest,
                        trust=req.trust,
                        derived_from=tuple(
                            dict.fromkeys((*current.provenance.derived_from, *req.derived_from))
                        ),
                        fact_id=fact_id,
                        text=final_text,
                    )
                ],
            )
            call = _Call(
                "memory",
                "update",
                (mid,),
                {
                    "text": new_text,
                    "metadata": {**added, _RESERVED: reserved_block(records[0])},
                    **kwargs,
                },
            )
            result = yield from op.persist_flow(
                records,
                FlowPort(lambda _: _one(call), self._probe({fact_id: mid})),
                memory_ids=[mid],
            )
            out = dict(result) if isinstance(result, Mapping) else {}
            return summarized(out, records[0])

    def delete(self, memory_id: object) -> _Flow[dict[str, Any]]:
        with self.kernel.operation("delete", self.identity) as op:
            mid, _ = _target(op, memory_id)
            request = self._read("delete")
            yield from self._current(op, op.read_plan(request), request, mid)
            result = yield from self._purge(op, [mid])
            return dict(result) if isinstance(result, Mapping) else {}

    def _purge(self, op: Operation, memory_ids: Sequence[str]) -> _Flow[object]:
        """Tombstone, delete in mem0, redact mem0's history rows, mark purged."""
        fact_ids = [memory_fact_id(m) for m in memory_ids]
        # the same two steps as MemoryGuard.delete: the allow event commits with the tombstone

        def purge() -> _Flow[object]:
            result: object = None
            for mid in memory_ids:
                result = yield _Call("memory", "delete", (mid,))
                yield _Call("history", "redact", (mid,))
            return result

        return (yield from op.delete_flow(fact_ids, purge, memory_ids=list(memory_ids)))

    def delete_all(
        self, *, user_id: object, agent_id: object, run_id: object
    ) -> _Flow[dict[str, Any]]:
        with self.kernel.operation("delete", self.identity) as op:
            narrow = self.check_scope_args(user_id=user_id, agent_id=agent_id, run_id=run_id)
            narrow.pop("user_id", None)
            request = self._read("delete")
            plan = op.read_plan(request)
            filters = self.filters(plan, narrow=narrow)
            skipped: set[str] = set()
            deleted = 0
            while True:
                limit = min(_MAX_TOP_K, _DELETE_BATCH + len(skipped))
                items = _results(
                    (
                        yield _Call(
                            "memory",
                            "get_all",
                            (),
                            {"filters": filters, "top_k": limit, "show_expired": True},
                        )
                    )
                )
                cands = [
                    c
                    for c in map(self.candidate, items)
                    if c is not None and c.fact_id not in skipped
                ]
                verified = op.verify(plan, request, cands, pushed_down=True)
                ok = {v.fact_id for v in verified}
                skipped.update(c.fact_id for c in cands if c.fact_id not in ok)
                if not verified:
                    break
                yield from self._purge(op, [_id_of(v) for v in verified])
                deleted += len(verified)
                if len(items) < limit:
                    break
            if deleted == 0:
                op.finish(deleted=0)
            return {"message": "Memories deleted successfully!"}
