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
import threading
import time
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
_TOOL = frozenset({"file_search_call", "code_interpreter_call", "image_generation_call", "mcp_call"})
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
        self._identity = identity
        self._namespace = session_namespace(namespace, session_id)
        self._min_trust = min_trust
        self._purpose = purpose
        self._lock = threading.Lock()
        self._turn: int | None = None
        self._last_seq = 0

    # -- the Session protocol ---------------------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The history in order (the latest ``limit`` items), only what the caller may read."""
        facts = await asyncio.to_thread(self._history)
        if limit is not None:
            facts = facts[-limit:] if limit > 0 else []
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
        facts = await asyncio.to_thread(self._history)
        return facts[-limit:] if limit is not None and limit > 0 else facts

    # -- sync parts (worker thread) ---------------------------------------------------------------

    def _history(self) -> list[RecalledFact]:
        out: list[RecalledFact] = []
        cursor: str | None = None
        while True:
            page, cursor = self._guard.list_facts(
                self._identity,
                namespaces=[self._namespace],
                min_trust=self._min_trust,
                limit=_PAGE,
                cursor=cursor,
                purpose=self._purpose,
            )
            out.extend(f for f in page if f.metadata.get("session_id") == self.session_id)
            if cursor is None:
                break
        out.sort(key=lambda f: (int(f.metadata.get("seq", 0)), f.fact_id))
        return out

    def _next_turn(self, starts: bool) -> int:
        """A turn is what follows one user message: a batch that opens with a user message
        starts the next turn, anything else (the model's calls, tool outputs, its answer, which
        the Runner adds in several batches) belongs to the current one."""
        if self._turn is None:  # first write of this object: go on after what is stored
            stored = self._history()
            self._turn = max((f.provenance.turn.turn_index for f in stored), default=-1)
            self._last_seq = max((int(f.metadata.get("seq", 0)) for f in stored), default=0)
        if starts or self._turn < 0:
            self._turn += 1
        return self._turn

    def _add(self, items: Sequence[dict[str, Any]]) -> None:
        trace = get_current_trace()
        with self._lock:
            turn = Turn(
                session_id=self.session_id,
                turn_index=self._next_turn(source_kind_of(items[0]) is SourceKind.USER_MESSAGE),
                trace_id=trace.trace_id if trace is not None else None,
            )
            facts: list[FactInput] = []
            for item in items:
                self._last_seq = max(time.time_ns(), self._last_seq + 1)
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
            self._guard.write_many(self._identity, facts)

    def _pop(self) -> TResponseInputItem | None:
        with self._lock:
            history = self._history()
            if not history:
                return None
            last = history[-1]
            self._guard.delete(self._identity, last.fact_id)
            return _item(last)

    def _clear(self) -> None:
        with self._lock:
            for fact in self._history():
                self._guard.delete(self._identity, fact.fact_id)

    def __repr__(self) -> str:
        return f"GuardedSession(session_id={self.session_id!r}, namespace={self._namespace!r})"
