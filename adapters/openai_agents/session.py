"""An OpenAI Agents SDK ``Session`` whose items are memguard facts.

Each item the SDK adds is one fact: what the model will read of it (its strings but the
structural fields) is the text the kernel scans, digests and embeds; the session id, position,
item kind and the item itself are its metadata (one content digest over both, so a served item is
verified like its text). Its channel comes from what the item is, never from a caller's claim: a
user message is the user channel, a tool's output the tool channel (web search results the web
channel), what the model said or called is agent inference (``derived`` at most). The kernel
assigns trust from that channel and the caller's verified identity, scans the text and writes the
ledger row before the store sees anything. An item is at most 64 KiB of JSON (the metadata bound).

Each session has a namespace of its own: ``<namespace>.s-`` and 40 hex of SHA-256 over the session
id (so a read lists this session's facts only, not every session of the caller; the digest cannot
be steered to another session's namespace, and the session id's characters never reach the
namespace rules). A policy that names the adapter's namespaces uses the pattern
``openai-agents.s-*`` (or ``openai-agents*``).

Reads list only what the caller's policy scope admits, each fact verified against the ledger:
another principal's items under the same session id, quarantined items (a revoked source, turn or
writer) and items below ``min_trust`` are not in the history the model gets. ``pop_item`` and
``clear_session`` go through the kernel's delete path (tombstone, purge, audit event); a delete
the policy refuses raises, and nothing is returned as popped.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import threading
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, cast

from agents.items import TResponseInputItem
from agents.memory.session_settings import SessionSettings
from agents.tracing import get_current_trace

from memguard.errors import InvalidRequest, StoreError
from memguard.guard import FactInput, MemoryGuard, RecalledFact
from memguard.identity import Identity
from memguard.provenance import Source, Turn
from memguard.trust import SourceKind, TrustLevel

from .._toolkit import check_binding, require_identity

__all__ = ["GuardedSession", "session_namespace", "source_kind_of"]

#: what the model produced: its messages, its calls, its reasoning (agent inference, ``derived``)
_MODEL = frozenset(
    {
        "function_call",
        "computer_call",
        "custom_tool_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "reasoning",
        "mcp_approval_request",
        "mcp_list_tools",
        "compaction",
        "item_reference",
        "tool_search_call",
    }
)
#: what a tool returned (the tool channel); hosted tools whose item holds their results
_TOOL = frozenset(
    {"file_search_call", "code_interpreter_call", "image_generation_call", "mcp_call"}
)
#: results from the open web
_WEB = frozenset({"web_search_call"})
_PAGE = 1000
#: the fields that say what an item is, not what it says (not part of the scanned text)
_STRUCTURAL = frozenset({"type", "role", "id", "call_id", "status"})
_METADATA_KEYS = ("session_id", "seq", "item_type", "role")
#: the longest ``namespace=`` prefix (the fact namespace is at most 256 characters)
_MAX_PREFIX = 200


def session_namespace(prefix: str, session_id: str) -> str:
    """The namespace of one session's items: ``prefix`` + ``.s-`` + 40 hex of SHA-256 over the
    session id (UTF-8). Distinct session ids get distinct namespaces (collision resistance of the
    digest), whatever characters the session id holds."""
    return f"{prefix}.s-{hashlib.sha256(session_id.encode()).hexdigest()[:40]}"


def source_kind_of(item: Mapping[str, Any]) -> SourceKind:
    """The channel of one session item. Unknown kinds get the web channel (``untrusted``): a new
    item type of a later SDK is never trusted more than content from anywhere."""
    kind = item.get("type")
    role = item.get("role")
    if kind in (None, "message"):
        if role == "user":
            return SourceKind.USER_MESSAGE
        if role in ("assistant", "system", "developer"):
            # an item's role is the caller's say-so: `system` and `developer` text in a session
            # is not the system channel, it is at most what an agent wrote (derived)
            return SourceKind.AGENT_INFERENCE
        return SourceKind.WEB
    if kind in _WEB:
        return SourceKind.WEB
    if kind in _TOOL or (isinstance(kind, str) and kind.endswith("_output")):
        return SourceKind.TOOL_OUTPUT
    if kind in _MODEL:
        return SourceKind.AGENT_INFERENCE
    return SourceKind.WEB


def _as_dict(item: object) -> dict[str, Any]:
    dump = getattr(item, "model_dump", None)
    if callable(dump):  # an SDK output model handed over as is
        item = dump(exclude_unset=True, mode="json")
    if not isinstance(item, Mapping):
        raise InvalidRequest("a session item is a JSON object")
    return dict(item)


def _strings(value: object, out: list[str]) -> None:
    if isinstance(value, str):
        if value:
            out.append(value)
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            if key not in _STRUCTURAL:
                _strings(inner, out)
    elif isinstance(value, list | tuple):
        for inner in value:
            _strings(inner, out)


def _text(item: Mapping[str, Any]) -> str:
    """What the model will read of an item: every string in it but the structural fields (a
    message's text, a tool's output, a call's name and arguments). This is the fact's text, the
    one the kernel scans and embeds; the item itself travels in the metadata, under the same
    content digest. (The item's JSON as text would make every item look like a forged chat-role
    delimiter to the scanner.)"""
    out: list[str] = []
    _strings(item, out)
    return "\n".join(out) or str(item.get("type", "item"))


def _fact_id(seq: int) -> str:
    """An item's fact id: a UUID whose high 64 bits are its position in the session (so the
    store's fact-id order is the session's order) and whose low 64 bits are random (two writers
    that pick the same position still write two facts, ordered by those bits)."""
    return str(uuid.UUID(int=(seq << 64) | secrets.randbits(64)))


def _cursor(seq: int) -> str:
    """The smallest fact id at position ``seq``: a listing cursor."""
    return str(uuid.UUID(int=max(seq, 0) << 64))


def _seq_of(fact_id: str) -> int | None:
    try:
        return uuid.UUID(fact_id).int >> 64
    except (ValueError, TypeError, AttributeError):
        return None


def _item(fact: RecalledFact) -> TResponseInputItem:
    item = fact.metadata.get("item")
    if not isinstance(item, Mapping):  # verified, but not written by this adapter
        raise StoreError("a session fact without its item")
    return cast(TResponseInputItem, dict(item))


class GuardedSession:
    """The SDK's ``Session`` protocol (``get_items``, ``add_items``, ``pop_item``,
    ``clear_session``) over a :class:`~memguard.MemoryGuard`, for one verified identity.

    ``min_trust`` hides items below that level from the history (``None``: every item the scope
    admits); ``purpose`` is the purpose the reads declare to the policy. The guard's calls are
    synchronous and run in a worker thread, so the event loop never blocks on the ledger.
    """

    def __init__(
        self,
        session_id: str,
        *,
        guard: MemoryGuard,
        identity: Identity,
        namespace: str = "openai-agents",
        min_trust: TrustLevel | None = None,
        purpose: str = "answer",
        session_settings: SessionSettings | None = None,
    ) -> None:
        if not isinstance(session_id, str) or not 0 < len(session_id) <= 256:
            raise InvalidRequest("`session_id` is a string of 1 to 256 characters")
        if not isinstance(guard, MemoryGuard):
            raise InvalidRequest("`guard` must be a MemoryGuard")
        if not isinstance(namespace, str) or not 0 < len(namespace) <= _MAX_PREFIX:
            raise InvalidRequest(f"`namespace` is a string of 1 to {_MAX_PREFIX} characters")
        self.session_id = session_id
        self.session_settings = session_settings
        self._guard = guard
        self._identity = require_identity(guard.kernel, identity)  # as in every adapter
        self._namespace = session_namespace(namespace, session_id)
        self._min_trust = min_trust
        self._purpose = purpose
        self._lock = threading.Lock()
        self._turn: int | None = None
        self._last_seq = 0

    # -- the Session protocol ---------------------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The history in order (the latest ``limit`` items), only what the caller may read."""
        if limit is not None and limit <= 0:
            return []
        facts = await asyncio.to_thread(self._read, limit)
        return [_item(f) for f in facts]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """One turn: each item a fact, stamped with the channel its kind names."""
        if items:
            await asyncio.to_thread(self._add, [_as_dict(i) for i in items])

    async def pop_item(self) -> TResponseInputItem | None:
        """Delete the latest item through the kernel's delete path, then return it."""
        return await asyncio.to_thread(self._pop)

    async def clear_session(self) -> None:
        """Delete every item of this session the caller may delete (the ``delete`` scope)."""
        await asyncio.to_thread(self._clear)

    # -- beyond the protocol ----------------------------------------------------------------------

    @property
    def namespace(self) -> str:
        """The namespace this session's items are written to and read from."""
        return self._namespace

    async def get_facts(self, limit: int | None = None) -> list[RecalledFact]:
        """The history as memguard facts, each with its full provenance (trust, source, writer)."""
        return await asyncio.to_thread(
            self._read, limit if limit is not None and limit > 0 else None
        )

    # -- sync parts (worker thread) ---------------------------------------------------------------

    def _read(self, limit: int | None) -> list[RecalledFact]:
        check_binding(self._guard.kernel, self._identity, "list")
        with self._lock:
            return self._history() if limit is None else self._tail(limit)

    def _page(self, cursor: str, limit: int) -> tuple[list[RecalledFact], str | None]:
        return self._guard.list_facts(
            self._identity,
            namespaces=[self._namespace],
            min_trust=self._min_trust,
            limit=max(1, min(limit, _PAGE)),
            cursor=cursor,
            purpose=self._purpose,
        )

    def _mine(self, fact: RecalledFact) -> bool:
        seq = _seq_of(fact.fact_id)
        meta = fact.metadata
        return (
            seq is not None and meta.get("session_id") == self.session_id and meta.get("seq") == seq
        )

    def _range(self, start: int, stop: int | None) -> list[RecalledFact]:
        """This session's visible items at positions ``start <= seq < stop`` (``None``: to the
        end), in order; each one verified by the guard's listing."""
        out: list[RecalledFact] = []
        cursor: str | None = _cursor(start)
        while cursor is not None:
            want = _PAGE if stop is None else stop - (_seq_of(cursor) or 0)
            page, cursor = self._page(cursor, want)
            for fact in page:
                seq = _seq_of(fact.fact_id)
                if stop is not None and seq is not None and seq >= stop:
                    return out
                if self._mine(fact):
                    out.append(fact)
            if stop is not None and cursor is not None and (_seq_of(cursor) or 0) >= stop:
                break
        if out:
            self._last_seq = max(self._last_seq, int(out[-1].metadata["seq"]))
        return out

    def _exists_from(self, seq: int) -> bool:
        """Whether the store holds a point of this namespace the scope admits at ``seq`` or later."""
        page, cursor = self._page(_cursor(seq), 1)
        return bool(page) or cursor is not None

    def _end(self) -> int:
        """The last position in the session (0: empty), searched up from what this object last
        saw: one probe when nothing was added elsewhere, else a galloping and a binary search."""
        lo = self._last_seq
        if not self._exists_from(lo + 1):
            return lo
        lo, step = lo + 1, 1
        while self._exists_from(lo + step):
            lo, step = lo + step, step * 2
        hi = lo + step  # exists_from(lo) holds, exists_from(hi) does not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if self._exists_from(mid) else (lo, mid)
        self._last_seq = max(self._last_seq, lo)
        return lo

    def _history(self) -> list[RecalledFact]:
        return self._range(1, None)

    def _tail(self, n: int) -> list[RecalledFact]:
        """The latest ``n`` visible items: read from ``n`` positions before the end to the end,
        then further back (doubling) only while withheld or deleted items leave fewer than ``n``."""
        start = max(self._end() - n + 1, 1)
        out = self._range(start, None)
        span = n
        while len(out) < n and start > 1:
            span *= 2
            lower = max(start - span, 1)
            out = self._range(lower, start) + out
            start = lower
        return out[-n:]

    def _next_turn(self, starts: bool) -> int:
        """A turn is what follows one user message: a batch that opens with a user message
        starts the next turn, anything else (the model's calls, tool outputs, its answer, which
        the Runner adds in several batches) belongs to the current one."""
        if self._turn is None:  # first write of this object: go on after what is stored
            last = self._tail(1)
            self._turn = last[0].provenance.turn.turn_index if last else -1
        if starts or self._turn < 0:
            self._turn += 1
        return self._turn

    def _add(self, items: Sequence[dict[str, Any]]) -> None:
        check_binding(self._guard.kernel, self._identity, "write")
        trace = get_current_trace()
        with self._lock:
            turn = Turn(
                session_id=self.session_id,
                turn_index=self._next_turn(source_kind_of(items[0]) is SourceKind.USER_MESSAGE),
                trace_id=trace.trace_id if trace is not None else None,
            )
            facts: list[FactInput] = []
            ids: list[str] = []
            self._last_seq = self._end()  # after anything another writer added meanwhile
            for item in items:
                self._last_seq += 1
                ids.append(_fact_id(self._last_seq))
                kind = source_kind_of(item)
                item_type = item.get("type", "message")
                facts.append(
                    FactInput(
                        text=_text(item),
                        namespace=self._namespace,
                        source=Source(kind=kind, name=f"openai-agents:{item_type}"),
                        turn=turn,
                        metadata={
                            "session_id": self.session_id,
                            "seq": self._last_seq,
                            "item_type": str(item_type),
                            "role": str(item.get("role", "")),
                            "item": item,
                        },
                    )
                )
            self._guard.write_many(self._identity, facts, fact_ids=ids)

    def _pop(self) -> TResponseInputItem | None:
        check_binding(self._guard.kernel, self._identity, "delete")
        with self._lock:
            history = self._tail(1)
            if not history:
                return None
            last = history[-1]
            self._guard.delete(self._identity, last.fact_id)
            return _item(last)

    def _clear(self) -> None:
        check_binding(self._guard.kernel, self._identity, "delete")
        with self._lock:
            for fact in self._history():
                self._guard.delete(self._identity, fact.fact_id)

    def __repr__(self) -> str:
        return f"GuardedSession(session_id={self.session_id!r}, namespace={self._namespace!r})"
