"""A mem0 ``Memory`` (and ``AsyncMemory``) behind memguard, with mem0's own method names and signatures.

::

    guarded = GuardedMemory(memory, kernel=kernel, identity=me, context=CallContext(
        source=Source(kind=SourceKind.WEB, uri=url), turn=Turn(session_id="s-1", turn_index=3)))
    guarded.add("ACME's rate limit is 100 req/min", infer=False)
    guarded.search("rate limit", top_k=5)["results"]      # each hit carries a "provenance" summary

Scope keys come from the verified identity, never from the caller: ``user_id`` is a digest of the
subject's (issuer, subject), ``agent_id`` the current actor's workload id, ``run_id`` the context's
session. A caller value that differs (another user, ``"*"``, an operator) is refused.

Layout: each memory's mem0 payload keeps memguard's reserved block (indexed fields, record digest,
full provenance record) under the ``memguard`` key; results never show it. Reads push the scope plan
into mem0's own filter language as dotted keys (``memguard.trust``, always in operator form), next to
``user_id``; the caller's own filter goes one level down, under an ``AND`` that mem0's filter
preprocessing passes through unchanged. What that language cannot express is refused. Every hit is
verified against the ledger (content digest over the text, caller metadata and mem0's scope fields).

Writes. mem0 picks memory ids itself, and the fact id is ``external_fact_id("mem0", memory_id)``, so
``add`` runs: decide (a stamp with provisional ids) -> mem0 ``add`` with a ``pending`` reserved block
(no indexed fields: no scoped read can match it) -> stamp with the real ids -> ledger ``pending`` ->
reserved block written onto each memory -> ledger ``committed``. A failure after mem0's add deletes
what it created. ``update`` knows its id, so it is the plain protocol with one mem0 call.

Deletes tombstone the ledger row, call mem0's ``delete``, then redact the memory's rows in mem0's
history table (``old_memory``, ``new_memory`` and ``actor_id`` set to NULL; the events and their
times stay), then mark the row purged. See ``docs/adapters/mem0.md``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Final, Literal, NoReturn, TypeVar

# mem0 reads this once, when it is first imported, and uploads usage events from construction
# on: off unless the application turned it on itself (the shells refuse mem0 with it on)
os.environ.setdefault("MEM0_TELEMETRY", "False")

import mem0.memory.main as _mem0_main  # type: ignore[import-untyped]
import mem0.memory.telemetry as _mem0_telemetry  # type: ignore[import-untyped]
from mem0 import AsyncMemory, Memory
from mem0.configs.base import MemoryConfig  # type: ignore[import-untyped]
from mem0.configs.embeddings.base import BaseEmbedderConfig  # type: ignore[import-untyped]
from mem0.configs.llms.base import BaseLlmConfig  # type: ignore[import-untyped]
from mem0.configs.prompts import (  # type: ignore[import-untyped]
    ADDITIVE_EXTRACTION_PROMPT,
    generate_additive_extraction_prompt,
)
from mem0.embeddings.base import EmbeddingBase  # type: ignore[import-untyped]
from mem0.llms.base import LLMBase  # type: ignore[import-untyped]
from mem0.memory.utils import extract_json, remove_code_blocks  # type: ignore[import-untyped]

from memguard.compat import require_version
from memguard.context import CallContext, external_fact_id, principal_label
from memguard.embedding import HashEmbedder
from memguard.errors import (
    AccessDenied,
    ConfigurationError,
    FactNotFound,
    IdentityError,
    InvalidRequest,
    ReservedField,
    StoreError,
)
from memguard.identity import Identity
from memguard.integrity import Candidate
from memguard.kernel import Kernel, Operation, StampRequest, VerifiedFact
from memguard.ledger import FactState
from memguard.ports import FlowPort
from memguard.provenance import (
    Provenance,
    Source,
    Turn,
    check_metadata,
    value_digest,
)
from memguard.pushdown.mem0 import LOGICAL, scoped_filters, to_mem0_filter
from memguard.pushdown.normal import NormalForm, fold
from memguard.scope import PlanKind, ReadRequest, ScopePlan
from memguard.stores.base import RESERVED_PAYLOAD_KEY, reserved_block
from memguard.trust import TrustLevel

from ._toolkit import backend_error

__all__ = [
    "SUPPORTED_MEM0",
    "GuardedAsyncMemory",
    "GuardedMemory",
    "HashEmbedding",
    "OfflineLLM",
    "ScopeAliases",
    "ScriptedLLM",
    "check_mem0_version",
    "memory_fact_id",
    "offline_async_memory",
    "offline_memory",
    "provenance_summary",
    "scoped_filters",
    "to_mem0_filter",
    "user_scope_id",
]

#: mem0ai releases this adapter supports: ``>= [0]`` and ``< [1]``.
SUPPORTED_MEM0: Final = ("2.2.0", "2.3")

_RESERVED: Final = RESERVED_PAYLOAD_KEY
_PENDING: Final = {"state": "pending"}
_SCOPE_KEYS: Final = ("user_id", "agent_id", "run_id")
#: payload keys mem0 keeps next to the text and returns at the top level of a result
_PROMOTED: Final = ("user_id", "agent_id", "run_id", "actor_id", "role", "attributed_to", "expiration_date")
#: caller metadata may not set what mem0 itself writes into the payload
_MEM0_KEYS: Final = frozenset(
    {*_PROMOTED, "data", "hash", "created_at", "updated_at", "text_lemmatized", "id", "memory", "score"}
)
_LOGICAL: Final = LOGICAL
_MAX_TEXT: Final = 1 << 20
_MAX_TOP_K: Final = 10_000
_FILL_ROUNDS: Final = 4
#: how many of the caller's memories mem0's extraction is shown (mem0 itself shows 10)
_INFER_CONTEXT: Final = 10
#: at most this many decisions are taken from one extraction
_MAX_DECISIONS: Final = 100
_EVENTS: Final = frozenset({"ADD", "UPDATE", "DELETE", "NONE"})
_DELETE_BATCH: Final = 1000
_UNSET: Final = object()

T = TypeVar("T")


# -- versions, ids and scope keys ------------------------------------------------------------------


def check_mem0_version() -> str:
    """The installed mem0ai version, or :class:`ConfigurationError` if this adapter does not support it."""
    return require_version("mem0ai", *SUPPORTED_MEM0)


def memory_fact_id(memory_id: str) -> str:
    """The fact id of a mem0 memory (stable: the same memory id always maps to the same fact id)."""
    if not isinstance(memory_id, str) or not memory_id:
        raise InvalidRequest("`memory_id` must be a non-empty string")
    return external_fact_id("mem0", memory_id)


def user_scope_id(issuer: str, subject: str) -> str:
    """mem0 ``user_id`` of a principal: :func:`memguard.context.principal_label` (the LangGraph
    adapter's tenant label too), so two issuers never collide."""
    return principal_label(issuer, subject)


def _token(value: str, prefix: str) -> str:
    """``value`` as a mem0 entity id (mem0 trims and rejects white space): itself if already clean."""
    if value and not any(c.isspace() for c in value):
        return value
    return prefix + hashlib.sha256(value.encode()).hexdigest()[:40]


def provenance_summary(prov: Provenance) -> dict[str, Any]:
    """The compact provenance a result carries under ``"provenance"``."""
    src = prov.source
    where = src.uri or src.name
    chain = [prov.writer.subject.subject, *(a.subject for a in prov.writer.actors)]
    return {
        "fact_id": prov.fact_id,
        "version": prov.version,
        "trust": prov.trust.label,
        "source": f"{src.kind.value}:{where}" if where else src.kind.value,
        "writer": " -> ".join(chain),
    }


# -- offline parts (tests, examples, benchmarks) ---------------------------------------------------


class HashEmbedding(EmbeddingBase):  # type: ignore[misc]
    """A mem0 embedder over :class:`memguard.HashEmbedder`: deterministic, offline, not semantic."""

    def __init__(self, dimension: int = 384) -> None:
        super().__init__(BaseEmbedderConfig(embedding_dims=dimension))
        self._embedder = HashEmbedder(dimension)

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        return self._embedder.embed([text])[0]

    def embed_batch(self, texts: Sequence[str], memory_action: str = "add") -> list[list[float]]:
        return self._embedder.embed(list(texts))


class OfflineLLM(LLMBase):  # type: ignore[misc]
    """A mem0 LLM that refuses to run: with ``infer=False`` mem0 never calls it."""

    def __init__(self) -> None:
        super().__init__(BaseLlmConfig(model="memguard-offline"))

    def generate_response(self, messages: Any, *args: Any, **kwargs: Any) -> str:
        raise RuntimeError("the offline LLM cannot run; add memories with `infer=False`")


class ScriptedLLM(LLMBase):  # type: ignore[misc]
    """A deterministic mem0 LLM for tests and examples: ``respond(prompt)`` gives the answer to
    mem0's extraction prompt; by default each ``user:`` line of the new messages becomes one
    memory. Every prompt it was given is kept in :attr:`prompts`."""

    def __init__(self, respond: Callable[[str], object] | None = None) -> None:
        super().__init__(BaseLlmConfig(model="memguard-scripted"))
        self._respond = respond or _one_memory_per_user_line
        self.prompts: list[str] = []

    def generate_response(self, messages: Any, *args: Any, **kwargs: Any) -> str:
        prompt = str(messages[-1]["content"]) if messages else ""
        self.prompts.append(prompt)
        answer = self._respond(prompt)
        return answer if isinstance(answer, str) else json.dumps(answer)


def _one_memory_per_user_line(prompt: str) -> dict[str, Any]:
    section = prompt.split("## New Messages", 1)[-1].split("\n## ", 1)[0]
    lines = [ln.strip() for ln in section.splitlines()]
    facts = [ln.removeprefix("user:").strip() for ln in lines if ln.startswith("user:")]
    return {"memory": [{"id": str(i), "text": t} for i, t in enumerate(facts) if t]}


def _offline_config(
    path: str | None, dimension: int, collection: str, history_db_path: str
) -> Any:
    # The openai entries only satisfy mem0's config validation; both objects are replaced before
    # any call, and the base URL is a closed local port should anything reach them anyway.
    nowhere = {"api_key": "offline", "openai_base_url": "http://127.0.0.1:9/offline"}
    return MemoryConfig(
        vector_store={
            "provider": "qdrant",
            "config": {
                "collection_name": collection,
                "embedding_model_dims": dimension,
                "path": path or ":memory:",
            },
        },
        embedder={"provider": "openai", "config": nowhere},
        llm={"provider": "openai", "config": nowhere},
        history_db_path=history_db_path,
    )


def offline_memory(
    path: str | None = None,
    *,
    dimension: int = 384,
    collection: str = "memguard",
    history_db_path: str = ":memory:",
) -> Any:
    """A mem0 ``Memory`` that needs no network: Qdrant local mode (``path`` or in memory), a
    :class:`HashEmbedding` and an :class:`OfflineLLM`. Set ``MEM0_TELEMETRY=False`` first."""
    memory = Memory(_offline_config(path, dimension, collection, history_db_path))
    memory.embedding_model = HashEmbedding(dimension)
    memory.llm = OfflineLLM()
    return memory


def offline_async_memory(
    path: str | None = None,
    *,
    dimension: int = 384,
    collection: str = "memguard",
    history_db_path: str = ":memory:",
) -> Any:
    """The :class:`mem0.AsyncMemory` twin of :func:`offline_memory`."""
    memory = AsyncMemory(_offline_config(path, dimension, collection, history_db_path))
    memory.embedding_model = HashEmbedding(dimension)
    memory.llm = OfflineLLM()
    return memory


# -- the sync core -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Call:
    """One backend call the core needs; a shell performs it (sync, or awaited for AsyncMemory)."""

    target: Literal["memory", "store", "history", "llm"]
    method: str
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)


_Flow = Generator[_Call, Any, T]


def _one(call: _Call) -> _Flow[Any]:
    """A flow of one backend call, returning its result."""
    result = yield call
    return result


def _results(value: object) -> list[dict[str, Any]]:
    if not isinstance(value, Mapping) or not isinstance(value.get("results"), list):
        raise StoreError("mem0 returned an unexpected result")
    return [item for item in value["results"] if isinstance(item, dict)]


def _digest(text: str, metadata: Mapping[str, Any], promoted: Mapping[str, Any]) -> str:
    """Content digest of a memory: its text, caller metadata and the fields mem0 returns with it."""
    return value_digest({"memory": text, "metadata": dict(metadata), "mem0": dict(promoted)})


def _split_metadata(item: Mapping[str, Any]) -> tuple[dict[str, Any], object]:
    meta = item.get("metadata")
    caller = dict(meta) if isinstance(meta, Mapping) else {}
    return caller, caller.pop(_RESERVED, None)


def _caller_metadata(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    if metadata is None:
        return {}
    checked = check_metadata(metadata)
    for key in checked:
        if key.lower() in _MEM0_KEYS:
            raise ReservedField(f"metadata key `{key}` is reserved by mem0")
    return checked


def _expiration(value: object) -> str | None:
    """mem0's expiration date as it stores it (``YYYY-MM-DD``), normalized before mem0 sees it."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return date.fromisoformat(value).isoformat()
        except ValueError:
            raise InvalidRequest("`expiration_date` must be a YYYY-MM-DD date") from None
    raise InvalidRequest("`expiration_date` must be a YYYY-MM-DD date")


@dataclass(frozen=True, slots=True)
class _Message:
    role: str
    content: str
    name: str | None


@dataclass(frozen=True, slots=True)
class _Entry:
    """One memory to create: its text and the fields mem0 stores next to it."""

    text: str
    role: str
    name: str | None
    attributed_to: str | None = None


def _groups(entries: Sequence[_Entry]) -> list[list[_Entry]]:
    """Consecutive entries sharing ``attributed_to`` (one mem0 ``add`` each: it is metadata)."""
    out: list[list[_Entry]] = []
    for entry in entries:
        if out and out[-1][0].attributed_to == entry.attributed_to:
            out[-1].append(entry)
        else:
            out.append([entry])
    return out


@dataclass(frozen=True, slots=True)
class _Decision:
    """One entry of mem0's extraction output: ``ADD`` (mem0 2.x's only event) or, in mem0's
    update-prompt shape, ``UPDATE`` / ``DELETE`` / ``NONE`` of the shown memory ``ref``."""

    event: str
    text: str
    ref: str | None
    attributed_to: str | None


def _decisions(raw: object) -> list[_Decision]:
    """mem0's LLM answer parsed and checked; anything malformed refuses the whole extraction."""
    if not isinstance(raw, str):
        raise StoreError("mem0's LLM returned no text")
    body = remove_code_blocks(raw)
    if not body or not body.strip():
        return []
    try:
        try:
            parsed = json.loads(body, strict=False)
        except json.JSONDecodeError:
            parsed = json.loads(extract_json(body), strict=False)
    except (json.JSONDecodeError, TypeError, ValueError):
        raise StoreError("mem0's LLM answer is not JSON") from None
    entries = parsed.get("memory", []) if isinstance(parsed, Mapping) else None
    if not isinstance(entries, list) or len(entries) > _MAX_DECISIONS:
        raise StoreError("mem0's LLM answer has no valid `memory` list")
    out = []
    targets: set[str] = set()
    for entry in entries:
        if not isinstance(entry, Mapping):
            raise StoreError("mem0's LLM answer has a malformed memory")
        event = entry.get("event", "ADD")
        text = entry.get("text")
        ref = entry.get("id")
        who = entry.get("attributed_to")
        if not isinstance(event, str) or event.upper() not in _EVENTS:
            raise StoreError("mem0's LLM answer has an unknown event")
        event = event.upper()
        if event == "NONE":
            continue
        if event != "DELETE" and (not isinstance(text, str) or not text or len(text) > _MAX_TEXT):
            raise StoreError("mem0's LLM answer has a memory without text")
        if event in ("UPDATE", "DELETE") and not isinstance(ref, str | int):
            raise StoreError("mem0's LLM answer updates or deletes without an id")
        if event in ("UPDATE", "DELETE"):
            if str(ref) in targets:
                raise StoreError("mem0's LLM answer changes one memory twice")
            targets.add(str(ref))
        if who is not None and not (isinstance(who, str) and _clean(who) and len(who) <= 64):
            who = None
        out.append(
            _Decision(
                event,
                text if isinstance(text, str) else "",
                None if event == "ADD" else str(ref),
                who,
            )
        )
    return out


def _inferred_cap(cap: TrustLevel | None) -> TrustLevel:
    """An LLM-derived fact never exceeds ``derived``."""
    return TrustLevel.DERIVED if cap is None else min(cap, TrustLevel.DERIVED)


def _messages(messages: object) -> list[_Message]:
    """The messages mem0 turns into memories with ``infer=False`` (system messages are skipped)."""
    if isinstance(messages, str):
        raw: list[object] = [{"role": "user", "content": messages}]
    elif isinstance(messages, Mapping):
        raw = [messages]
    elif isinstance(messages, list):
        raw = list(messages)
    else:
        raise InvalidRequest("`messages` must be a string, a message dict or a list of them")
    out = []
    for msg in raw:
        if not isinstance(msg, Mapping):
            raise InvalidRequest("each message must be a dict with `role` and `content`")
        role, content, name = msg.get("role"), msg.get("content"), msg.get("name")
        if not isinstance(role, str) or not role:
            raise InvalidRequest("each message needs a `role`")
        if role == "system":
            continue
        if not isinstance(content, str) or not content or len(content) > _MAX_TEXT:
            raise InvalidRequest("message `content` must be a non-empty string (at most 1 MiB)")
        if name is not None and not isinstance(name, str):
            raise InvalidRequest("message `name` must be a string")
        out.append(_Message(role, content, name or None))
    return out


def _id_of(fact: VerifiedFact) -> str:
    return str((fact.candidate.payload or {})["id"])


def _top_k(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= _MAX_TOP_K:
        raise InvalidRequest(f"`top_k` must be an integer between 0 and {_MAX_TOP_K}")
    return value


def _target(op: Operation, memory_id: object) -> tuple[str, str]:
    """The memory id and fact id an id-based call names (inside the operation, so a malformed
    id is audited like any other refusal)."""
    if not isinstance(memory_id, str) or not memory_id or len(memory_id) > 256:
        raise InvalidRequest("`memory_id` must be a non-empty string")
    fact_id = memory_fact_id(memory_id)
    op.about([fact_id])
    return memory_id, fact_id


@dataclass(frozen=True, slots=True)
class ScopeAliases:
    """What existing call sites may pass as mem0 scope keys for the caller, besides memguard's own.

    ``users`` maps an application's ``user_id`` to the principal ``(issuer, subject)`` it names;
    ``agents`` maps an application's ``agent_id`` to a workload id. With ``subject_is_user_id``
    (the default) the caller's own subject (``"alice"``) is accepted as its ``user_id`` too. What a
    memory stores stays memguard's issuer-qualified key; results show the id the call site used.
    """

    users: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    agents: Mapping[str, str] = field(default_factory=dict)
    subject_is_user_id: bool = True

    def __post_init__(self) -> None:
        for name, table in (("users", self.users), ("agents", self.agents)):
            if not isinstance(table, Mapping):
                raise ConfigurationError(f"`{name}` must be a mapping")
            for key in table:
                if not isinstance(key, str) or not _clean(key):
                    raise ConfigurationError(f"`{name}` keys must be non-empty ids without spaces")
        for value in self.users.values():
            if not (
                isinstance(value, tuple)
                and len(value) == 2
                and all(isinstance(v, str) and v for v in value)
            ):
                raise ConfigurationError("`users` values must be (issuer, subject) pairs")
        if not all(isinstance(v, str) and v for v in self.agents.values()):
            raise ConfigurationError("`agents` values must be workload ids")


def _clean(value: str) -> bool:
    return bool(value) and len(value) <= 256 and not any(c.isspace() for c in value)


_NO_ALIASES: Final = ScopeAliases()


def _scope_refusal(key: str) -> AccessDenied:
    return AccessDenied(
        f"`{key}` does not name the caller: it must be the verified identity's own id "
        "(or an alias configured in `ScopeAliases`)",
        code="access_denied.scope_key",
    )


class _Core:
    """Everything but I/O to mem0: each public operation is a generator yielding :class:`_Call`."""

    __slots__ = (
        "accepted",
        "agent_id",
        "aliases",
        "cap",
        "context",
        "identity",
        "kernel",
        "namespace",
        "run_id",
        "user_id",
    )

    def __init__(
        self,
        kernel: Kernel,
        identity: Identity,
        context: CallContext,
        namespace: str,
        aliases: ScopeAliases = _NO_ALIASES,
        cap: TrustLevel | None = None,
    ) -> None:
        if not isinstance(kernel, Kernel):
            raise ConfigurationError("`kernel` must be a memguard Kernel")
        if not isinstance(identity, Identity):
            raise IdentityError("a verified identity is required", code="identity.missing")
        if not isinstance(context, CallContext):
            raise ConfigurationError("`context` must be a CallContext")
        if not isinstance(namespace, str) or not namespace:
            raise ConfigurationError("`namespace` must be a non-empty string")
        if not isinstance(aliases, ScopeAliases):
            raise ConfigurationError("`aliases` must be a ScopeAliases")
        principal = identity.principal
        subject = principal.subject
        self.kernel = kernel
        self.identity = identity
        self.context = context
        self.namespace = namespace
        self.aliases = aliases
        #: an upper bound on the trust of every write (mem0's LLM output: ``derived``)
        self.cap = cap
        self.user_id = user_scope_id(subject.issuer, subject.subject)
        workload = principal.workload_id
        self.agent_id = _token(workload, "mga_") if workload else None
        self.run_id = _token(context.turn.session_id, "mgr_")
        users = {self.user_id}
        if aliases.subject_is_user_id and _clean(subject.subject):
            users.add(subject.subject)
        users.update(
            k for k, v in aliases.users.items() if v == (subject.issuer, subject.subject)
        )
        agents: set[str] = set()
        if workload and self.agent_id is not None:
            agents = {self.agent_id, workload}
            agents.update(k for k, v in aliases.agents.items() if v == workload)
        self.accepted: dict[str, frozenset[str]] = {
            "user_id": frozenset(users),
            "agent_id": frozenset(agents),
            "run_id": frozenset({self.run_id, context.turn.session_id}),
        }

    def replace(self, context: CallContext, cap: TrustLevel | None = None) -> _Core:
        return _Core(self.kernel, self.identity, context, self.namespace, self.aliases, cap)

    # -- scope keys and filters ------------------------------------------------------------------

    def _expected(self, key: str) -> str | None:
        return {"user_id": self.user_id, "agent_id": self.agent_id, "run_id": self.run_id}[key]

    def canonical(self, key: str, value: object, shown: dict[str, str] | None = None) -> str:
        """The stored scope key a caller's ``value`` names, or a refusal if it names anyone else."""
        if not isinstance(value, str) or value not in self.accepted[key]:
            raise _scope_refusal(key)
        expected = self._expected(key)
        assert expected is not None  # an accepted agent id implies a workload
        if shown is not None:
            shown[key] = value
        return expected

    def check_scope_args(
        self, shown: dict[str, str] | None = None, **given: object
    ) -> dict[str, str]:
        """Scope keys a caller passed: each must name the identity's own; returns them stored-shaped."""
        return {
            key: self.canonical(key, value, shown)
            for key, value in given.items()
            if value is not None
        }

    def _rewrite_filter_tree(
        self, node: Mapping[str, Any], shown: dict[str, str], depth: int = 0
    ) -> dict[str, Any]:
        """The caller's filter checked, with each scope key replaced by its stored value."""
        if depth > 16:
            raise InvalidRequest("filters are nested too deeply")
        out: dict[str, Any] = {}
        for key, value in node.items():
            if not isinstance(key, str):
                raise InvalidRequest("filter keys must be strings")
            if _RESERVED in key.lower():  # also quoted paths such as '"memguard".trust'
                raise ReservedField(f"filter key `{key}` is reserved for provenance")
            if key in _SCOPE_KEYS:
                out[key] = self.canonical(key, value, shown)
            elif key in _LOGICAL:
                if not isinstance(value, list):
                    raise InvalidRequest(f"`{key}` takes a list of filters")
                subs = []
                for sub in value:
                    if not isinstance(sub, Mapping):
                        raise InvalidRequest(f"`{key}` takes a list of filters")
                    subs.append(self._rewrite_filter_tree(sub, shown, depth + 1))
                out[key] = subs
            else:
                out[key] = value
        return out

    def _without_owner(self, cond: NormalForm) -> NormalForm:
        """``cond`` with the owner fields decided: ``user_id`` (always in the filter) is a digest of
        the owner, so on every memory the guard wrote it says the same, for no payload condition
        instead of three (local mode evaluates each in Python). A memory whose ``user_id`` and
        owner disagree was edited, and verification withholds it with an alarm."""
        subject = self.identity.principal.subject
        return fold(cond, {"owner_iss": subject.issuer, "owner_sub": subject.subject})

    def filters(
        self,
        plan: ScopePlan,
        caller: Mapping[str, Any] | None = None,
        *,
        extra: dict[str, Any] | None = None,
        narrow: Mapping[str, str] | None = None,
        shown: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """mem0 filters for a read under ``plan``, narrowed by the caller's checked ``filters``
        (its scope keys rewritten to the stored ones; ``shown`` collects what the caller used)."""
        condition: NormalForm | None = None
        if plan.kind is not PlanKind.ALLOW:
            if plan.condition is None:
                raise AccessDenied("read not permitted", code="access_denied.policy")
            condition = self._without_owner(plan.condition)
            if condition is True:
                condition = None
        nested = [extra] if extra else []
        keys = dict(narrow or {})
        if caller is not None:
            if not isinstance(caller, Mapping):
                raise InvalidRequest("`filters` must be a dict")
            caller = self._rewrite_filter_tree(caller, {} if shown is None else shown)
            keys.update({k: v for k, v in caller.items() if k in _SCOPE_KEYS and k != "user_id"})
            rest = {k: v for k, v in caller.items() if k not in _SCOPE_KEYS}
            if rest:
                nested.append(rest)
        return scoped_filters(self.user_id, condition, narrow=keys, nested=nested)

    # -- candidates and results --------------------------------------------------------------------

    def promoted(
        self, role: str, name: str | None, expiration: object, attributed_to: str | None = None
    ) -> dict[str, Any]:
        """The fields mem0 stores next to a new memory's text, as it returns them."""
        out: dict[str, Any] = {"user_id": self.user_id, "run_id": self.run_id, "role": role}
        if self.agent_id is not None:
            out["agent_id"] = self.agent_id
        if name is not None:
            out["actor_id"] = name
        if attributed_to is not None:
            out["attributed_to"] = attributed_to
        if expiration is not None:
            out["expiration_date"] = expiration
        return out

    @staticmethod
    def candidate(item: Mapping[str, Any]) -> Candidate | None:
        """A hit as mem0 returned it; ``None`` for a memory whose add has not finished."""
        memory_id = item.get("id")
        if not isinstance(memory_id, str) or not memory_id:
            raise StoreError("mem0 returned a memory without an id")
        caller, reserved = _split_metadata(item)
        if reserved == _PENDING:
            return None  # an add in flight (or one that crashed): never served, no ledger row yet
        text = item.get("memory")
        promoted = {k: item[k] for k in _PROMOTED if k in item}
        try:
            digest = _digest(text, caller, promoted) if isinstance(text, str) else None
        except (TypeError, ValueError):
            digest = None
        score = item.get("score")
        return Candidate(
            memory_fact_id(memory_id),
            digest,
            reserved if isinstance(reserved, Mapping) else None,
            float(score) if isinstance(score, int | float) else None,
            item,
        )

    def show(self, item: dict[str, Any], shown: Mapping[str, str] | None) -> dict[str, Any]:
        """``item`` with the scope keys the call site used in place of the stored ones."""
        for key, alias in (shown or {}).items():
            if item.get(key) == self._expected(key):
                item[key] = alias
        return item

    def present(self, fact: VerifiedFact, shown: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The result mem0 gave, minus the reserved block, plus a provenance summary."""
        item = dict(fact.candidate.payload or {})
        caller, _ = _split_metadata(item)
        item["metadata"] = caller or None
        item["provenance"] = provenance_summary(fact.provenance)
        return self.show(item, shown)

    def _verified_page(
        self,
        op: Operation,
        plan: ScopePlan,
        request: ReadRequest,
        top_k: int,
        call: Callable[[int], _Call],
    ) -> _Flow[list[VerifiedFact]]:
        """Up to ``top_k`` verified hits of a pushed-down query. Withheld hits (tampered,
        quarantined, uncommitted) are replaced by asking mem0 for more, never by widening."""
        seen: dict[str, VerifiedFact | None] = {}
        out: list[VerifiedFact] = []
        limit = top_k
        for _ in range(_FILL_ROUNDS):
            items = _results((yield call(limit)))
            order: dict[str, None] = {}
            fresh: list[Candidate] = []
            for item in items:
                cand = self.candidate(item)
                if cand is None or cand.fact_id in order:
                    continue
                order[cand.fact_id] = None
                if cand.fact_id not in seen:
                    seen[cand.fact_id] = None
                    fresh.append(cand)
            for fact in op.verify(plan, request, fresh, pushed_down=True):
                seen[fact.fact_id] = fact
            out = [f for f in (seen[i] for i in order) if f is not None][:top_k]
            if len(out) >= top_k or len(items) < limit or limit >= _MAX_TOP_K:
                break
            limit = min(_MAX_TOP_K, limit + 2 * (top_k - len(out)))
        return out

    def _current(
        self, op: Operation, plan: ScopePlan, request: ReadRequest, memory_id: str
    ) -> _Flow[VerifiedFact]:
        """The verified current version of one memory, or :class:`FactNotFound`."""
        item = yield _Call("memory", "get", (memory_id,))
        cand = self.candidate(item) if isinstance(item, Mapping) else None
        if cand is None:
            op.note(why="no such memory")
            raise FactNotFound("fact not found")
        verified = op.verify(plan, request, [cand])
        if not verified:
            raise FactNotFound("fact not found")
        return verified[0]

    def _read(self, action: str) -> ReadRequest:
        # like MemoryGuard's reads without `namespaces`: the policy decides which namespaces show
        return ReadRequest(action, purpose=self.context.purpose)

    def _write_request(
        self, digest: str, fact_id: str | None = None, text: str | None = None
    ) -> StampRequest:
        ctx = self.context
        return StampRequest(
            namespace=self.namespace,
            source=ctx.source,
            turn=ctx.turn,
            content_digest=digest,
            trust=ctx.trust,
            derived_from=tuple(i for i in ctx.derived_from if i != fact_id),
            fact_id=fact_id,
            text=text,
        )

    def stamp(self, op: Operation, requests: Sequence[StampRequest]) -> list[Provenance]:
        """``op.stamp``, each level capped at :attr:`cap` when set: the first pass finds what the
        channel, the inputs and the turn allow, the second asks for the lower of that and the cap
        (the kernel lets a writer lower its trust, never raise it)."""
        first = op.stamp(requests)
        cap = self.cap
        if cap is None or all(p.trust <= cap for p in first):
            return first
        return op.stamp(
            [
                dataclasses.replace(r, trust=min(p.trust, cap))
                for r, p in zip(requests, first, strict=True)
            ]
        )

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
                    self.show({**item, "provenance": provenance_summary(prov)}, shown)
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
        self.stamp(op, [self._write_request(d, None, e.text) for d, e in zip(digests, entries, strict=True)])
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
                        "store", "update", (), {"vector_id": by_fact[prov.fact_id], "payload": payload}
                    )

            yield from op.persist_flow(
                records, FlowPort(mark, self._probe(by_fact)), memory_ids=created
            )
        except Exception:
            yield from self._discard(created)
            raise
        return items, records

    def _probe(self, memories: Mapping[str, str]) -> Callable[[Sequence[str]], _Flow[Sequence[Candidate]]]:
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
                raise InvalidRequest("procedural memories (`memory_type`) are not supported by the guard")
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
                    "memory", "search", (parsed,), {"top_k": limit, "filters": filters, "threshold": 0.0}
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
                    results.append({**out, "provenance": provenance_summary(prov)})
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
                        "provenance": updated["provenance"],
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
                records, FlowPort(lambda _: _one(call), self._probe({fact_id: mid})), memory_ids=[mid]
            )
            out = dict(result) if isinstance(result, Mapping) else {}
            out["provenance"] = provenance_summary(records[0])
            return out

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

    def delete_all(self, *, user_id: object, agent_id: object, run_id: object) -> _Flow[dict[str, Any]]:
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
                    c for c in map(self.candidate, items) if c is not None and c.fact_id not in skipped
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

    # -- reads -----------------------------------------------------------------------------------

    def search(
        self,
        query: object,
        *,
        top_k: object,
        filters: Mapping[str, Any] | None,
        options: Mapping[str, Any],
        extra: Mapping[str, Any],
    ) -> _Flow[dict[str, Any]]:
        ctx = self.context
        with self.kernel.operation(
            "search", self.identity, purpose=ctx.purpose, trace_id=ctx.turn.trace_id, turn=ctx.turn
        ) as op:
            filters = self._merge_extra(filters, extra)
            k = _top_k(top_k)
            request = self._read("search")
            plan = op.read_plan(request)
            shown: dict[str, str] = {}
            mem0_filters = self.filters(plan, filters, shown=shown)
            facts = yield from self._verified_page(
                op,
                plan,
                request,
                k,
                lambda limit: _Call(
                    "memory", "search", (query,), {"top_k": limit, "filters": mem0_filters, **options}
                ),
            )
            op.finish(returned=[f.fact_id for f in facts], top_k=k, returned_count=len(facts))
            return {"results": [self.present(f, shown) for f in facts]}

    def get_all(
        self,
        *,
        filters: Mapping[str, Any] | None,
        top_k: object,
        show_expired: bool,
        extra: Mapping[str, Any],
    ) -> _Flow[dict[str, Any]]:
        ctx = self.context
        with self.kernel.operation(
            "list", self.identity, purpose=ctx.purpose, trace_id=ctx.turn.trace_id, turn=ctx.turn
        ) as op:
            filters = self._merge_extra(filters, extra)
            k = _top_k(top_k)
            request = self._read("search")  # a listing is a search without a query
            plan = op.read_plan(request)
            shown: dict[str, str] = {}
            mem0_filters = self.filters(plan, filters, shown=shown)
            facts = yield from self._verified_page(
                op,
                plan,
                request,
                k,
                lambda limit: _Call(
                    "memory",
                    "get_all",
                    (),
                    {"filters": mem0_filters, "top_k": limit, "show_expired": show_expired},
                ),
            )
            op.finish(returned=[f.fact_id for f in facts], returned_count=len(facts))
            return {"results": [self.present(f, shown) for f in facts]}

    def get(self, memory_id: object) -> _Flow[dict[str, Any] | None]:
        ctx = self.context
        try:
            with self.kernel.operation(
                "get", self.identity, purpose=ctx.purpose, turn=ctx.turn
            ) as op:
                mid, _ = _target(op, memory_id)
                request = self._read("get")
                fact = yield from self._current(op, op.read_plan(request), request, mid)
                op.finish(returned=[fact.fact_id])
                return self.present(fact)
        except FactNotFound:
            return None  # mem0's own "not found"; the deny event is recorded

    def history(self, memory_id: object) -> _Flow[list[dict[str, Any]]]:
        ctx = self.context
        try:
            with self.kernel.operation("history", self.identity, purpose=ctx.purpose) as op:
                mid, fact_id = _target(op, memory_id)
                request = self._read("get")
                plan = op.read_plan(request)
                record = self.kernel.ledger.latest([fact_id]).get(fact_id)
                # a deleted memory's (redacted) trail stays readable by whoever could read it
                if record is None or record.state not in (FactState.COMMITTED, FactState.DELETED):
                    op.note(why="no such fact")
                    raise FactNotFound("fact not found")
                if record.quarantined or not op.admits(plan, request, record):
                    op.note(why="quarantined") if record.quarantined else "out of scope"
                    raise FactNotFound("fact not found")
                rows = yield _Call("memory", "history", (mid,))
                op.finish(returned=[fact_id], rows=len(rows) if isinstance(rows, list) else 0)
                return list(rows) if isinstance(rows, list) else []
        except FactNotFound:
            return []  # mem0's answer for an unknown id

    def memory_id_of(self, fact_id: object) -> _Flow[str]:
        ctx = self.context
        with self.kernel.operation("get", self.identity, purpose=ctx.purpose) as op:
            if not isinstance(fact_id, str) or not 0 < len(fact_id) <= 64:
                raise InvalidRequest("`fact_id` must be a fact id")
            op.about([fact_id])
            request = self._read("get")
            plan = op.read_plan(request)
            by_fact = {f"{_RESERVED}.fact_id": {"eq": fact_id}}
            filters = self.filters(plan, extra=by_fact)
            items = _results(
                (yield _Call("memory", "get_all", (), {"filters": filters, "top_k": 2, "show_expired": True}))
            )
            cands = [c for c in map(self.candidate, items) if c is not None and c.fact_id == fact_id]
            verified = op.verify(plan, request, cands, pushed_down=True)
            if len(verified) != 1:
                raise FactNotFound("fact not found")
            op.finish()
            return _id_of(verified[0])

    @staticmethod
    def _merge_extra(
        filters: Mapping[str, Any] | None, extra: Mapping[str, Any]
    ) -> Mapping[str, Any] | None:
        """Scope keys given as arguments (mem0 1.x call sites) join ``filters``; nothing else may."""
        if not extra:
            return filters
        for key in extra:
            if key not in _SCOPE_KEYS:
                raise InvalidRequest(f"unexpected argument `{key}`")
        if filters is not None and not isinstance(filters, Mapping):
            raise InvalidRequest("`filters` must be a dict")
        merged = dict(filters or {})
        for key, value in extra.items():
            if key in merged and merged[key] != value:
                raise InvalidRequest(f"`{key}` is given twice with different values")
            merged[key] = value
        return merged


# -- performing the calls --------------------------------------------------------------------------


def _redact_history(db: Any, memory_id: str) -> None:
    """Null the text of one memory's rows in mem0's history table (the events and times stay)."""
    conn = getattr(db, "connection", None)
    lock = getattr(db, "_lock", None)  # mem0's SQLiteManager serializes its connection with it
    if conn is None or lock is None:
        raise StoreError("mem0's history store is closed or unknown")
    with lock:
        conn.execute("BEGIN")
        try:
            conn.execute(
                "UPDATE history SET old_memory = NULL, new_memory = NULL, actor_id = NULL "
                "WHERE memory_id = ?",
                (memory_id,),
            )
            conn.execute("COMMIT")
        except Exception:
            conn.execute("ROLLBACK")
            raise


def _perform(memory: Any, call: _Call) -> Any:
    if call.target == "memory":
        return getattr(memory, call.method)(*call.args, **call.kwargs)
    if call.target == "store":
        return getattr(memory.vector_store, call.method)(*call.args, **call.kwargs)
    if call.target == "llm":
        return getattr(memory.llm, call.method)(*call.args, **call.kwargs)
    return _redact_history(memory.db, *call.args)


def _drive(memory: Any, flow: _Flow[T]) -> T:
    """Run a core flow against a sync ``Memory``; backend errors go back into the flow (fail closed)."""
    send: Any = None
    error: Exception | None = None
    try:
        while True:
            try:
                call = flow.throw(error) if error is not None else flow.send(send)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            send, error = None, None
            try:
                send = _perform(memory, call)
            except Exception as exc:  # the one error table
                error = backend_error("mem0", f"{call.target}.{call.method}", exc)
    finally:
        flow.close()


def _step(flow: _Flow[T], send: Any, error: Exception | None) -> tuple[bool, Any]:
    # StopIteration cannot cross a Future, so the end of the flow is returned as a value
    try:
        return False, (flow.throw(error) if error is not None else flow.send(send))
    except StopIteration as stop:
        return True, stop.value


async def _adrive(memory: Any, flow: _Flow[T]) -> T:
    """Run a core flow against an ``AsyncMemory``: mem0's coroutines are awaited, the core's own
    steps (ledger I/O) and mem0's sync parts run in a worker thread."""
    send: Any = None
    error: Exception | None = None
    try:
        while True:
            done, value = await asyncio.to_thread(_step, flow, send, error)
            if done:
                return value  # type: ignore[no-any-return]
            call: _Call = value
            send, error = None, None
            try:
                if call.target == "memory":
                    send = await getattr(memory, call.method)(*call.args, **call.kwargs)
                else:
                    send = await asyncio.to_thread(_perform, memory, call)
            except Exception as exc:  # the one error table
                error = backend_error("mem0", f"{call.target}.{call.method}", exc)
    finally:
        try:
            flow.close()
        except ValueError:  # still running in a worker thread after a cancellation
            pass


def _check_backend(memory: Any, allow_telemetry: bool) -> None:
    provider = getattr(getattr(getattr(memory, "config", None), "vector_store", None), "provider", None)
    if provider != "qdrant":
        raise ConfigurationError(
            f"the mem0 adapter supports the `qdrant` vector store, not `{provider}`"
        )
    if (_mem0_telemetry.MEM0_TELEMETRY or _mem0_main.MEM0_TELEMETRY) and not allow_telemetry:
        raise ConfigurationError(
            "mem0 telemetry is on: set MEM0_TELEMETRY=False before importing mem0 "
            "(or pass `allow_telemetry=True`)"
        )


# -- the shells ------------------------------------------------------------------------------------


class _Shell:
    """What both shells share: construction, context, identity-derived keys, and no pass-through.

    The mem0 object and the core live in name-mangled slots; nothing public returns them.
    """

    __slots__ = ("__core", "__memory")

    _expects: type = object

    def __init__(
        self,
        memory: Any,
        *,
        kernel: Kernel,
        identity: Identity,
        context: CallContext,
        namespace: str = "mem0",
        aliases: ScopeAliases | None = None,
        allow_telemetry: bool = False,
    ) -> None:
        check_mem0_version()
        if not isinstance(memory, self._expects):
            raise ConfigurationError(f"`memory` must be a mem0 `{self._expects.__name__}`")
        _check_backend(memory, allow_telemetry)
        self.__memory = memory
        self.__core = _Core(kernel, identity, context, namespace, aliases or _NO_ALIASES)

    @classmethod
    def _bound(cls: type[_S], memory: Any, core: _Core) -> _S:
        self = object.__new__(cls)
        self.__memory = memory
        self.__core = core
        return self

    def with_context(
        self: _S,
        context: CallContext | None = None,
        *,
        source: Source | None = None,
        turn: Turn | None = None,
        purpose: str | None = None,
        trust: TrustLevel | None = None,
        derived_from: tuple[str, ...] | None = None,
    ) -> _S:
        """The same guarded memory for another turn, source or purpose."""
        core = self.__core
        base = context if context is not None else core.context
        if not isinstance(base, CallContext):
            raise ConfigurationError("`context` must be a CallContext")
        new = base.replace(
            source=source, turn=turn, purpose=purpose, trust=trust, derived_from=derived_from
        )
        return type(self)._bound(self.__memory, core.replace(new))

    @property
    def identity(self) -> Identity:
        return self.__core.identity

    @property
    def context(self) -> CallContext:
        return self.__core.context

    @property
    def namespace(self) -> str:
        return self.__core.namespace

    @property
    def user_id(self) -> str:
        """The mem0 ``user_id`` this identity's memories carry."""
        return self.__core.user_id

    @property
    def agent_id(self) -> str | None:
        """The mem0 ``agent_id`` of the current actor's workload (``None`` for the user directly)."""
        return self.__core.agent_id

    @property
    def run_id(self) -> str:
        """The mem0 ``run_id`` of the context's session."""
        return self.__core.run_id

    def __getattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"`{name}` is not available through the memguard mem0 adapter")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(identity={self.identity!r}, namespace={self.namespace!r})"


_S = TypeVar("_S", bound=_Shell)


def _unwrap(shell: _Shell) -> tuple[Any, _Core]:
    # a module function, not a method: the inner objects are not reachable through the shell
    return shell._Shell__memory, shell._Shell__core


def _options(
    threshold: float, rerank: bool, explain: bool, reference_date: object, show_expired: bool
) -> dict[str, Any]:
    return {
        "threshold": threshold,
        "rerank": rerank,
        "explain": explain,
        "reference_date": reference_date,
        "show_expired": show_expired,
    }


class GuardedMemory(_Shell):
    """A mem0 ``Memory`` behind memguard: every call is one audited kernel operation."""

    __slots__ = ()
    _expects = Memory

    def add(
        self,
        messages: str | Mapping[str, Any] | list[Mapping[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: object = None,
        expiration_date: str | date | None = None,
        infer: bool = True,
        memory_type: str | None = None,
        prompt: str | None = None,
    ) -> dict[str, Any]:
        """mem0's ``add``: messages verbatim with ``infer=False``; with ``infer=True`` mem0's LLM
        extracts memories from them, stamped as derived (see :meth:`_Core._infer`)."""
        memory, core = _unwrap(self)
        flow = core.add(
            messages,
            user_id=user_id,
            agent_id=agent_id,
            run_id=run_id,
            metadata=metadata,
            timestamp=timestamp,
            expiration_date=expiration_date,
            infer=infer,
            memory_type=memory_type,
            prompt=prompt,
            instructions=getattr(memory, "custom_instructions", None),
        )
        return _drive(memory, flow)

    def search(
        self,
        query: str,
        *,
        top_k: int = 20,
        filters: Mapping[str, Any] | None = None,
        threshold: float = 0.1,
        rerank: bool = False,
        explain: bool = False,
        reference_date: object = None,
        show_expired: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """mem0's search within the caller's scope; every hit verified against the ledger."""
        memory, core = _unwrap(self)
        options = _options(threshold, rerank, explain, reference_date, show_expired)
        flow = core.search(query, top_k=top_k, filters=filters, options=options, extra=kwargs)
        return _drive(memory, flow)

    def get(self, memory_id: str) -> dict[str, Any] | None:
        """One memory by id; ``None`` if it does not exist or is outside the caller's scope."""
        memory, core = _unwrap(self)
        return _drive(memory, core.get(memory_id))

    def get_all(
        self,
        *,
        filters: Mapping[str, Any] | None = None,
        top_k: int = 20,
        show_expired: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The caller's memories (the ``search`` scope), each verified."""
        memory, core = _unwrap(self)
        flow = core.get_all(filters=filters, top_k=top_k, show_expired=show_expired, extra=kwargs)
        return _drive(memory, flow)

    def update(
        self,
        memory_id: str,
        text: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expiration_date: Any = _UNSET,
        data: str | None = None,
    ) -> dict[str, Any]:
        """A new version of one of the caller's memories, with provenance from this context."""
        memory, core = _unwrap(self)
        return _drive(memory, core.update(memory_id, text, metadata, expiration_date, data))

    def delete(self, memory_id: str) -> dict[str, Any]:
        """Delete one of the caller's memories and redact its text from mem0's history."""
        memory, core = _unwrap(self)
        return _drive(memory, core.delete(memory_id))

    def delete_all(
        self, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> dict[str, Any]:
        """Delete every memory of the caller the ``delete`` scope admits (narrowed by the ids given)."""
        memory, core = _unwrap(self)
        return _drive(memory, core.delete_all(user_id=user_id, agent_id=agent_id, run_id=run_id))

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        """mem0's change log of one of the caller's memories (``[]`` if not visible)."""
        memory, core = _unwrap(self)
        return _drive(memory, core.history(memory_id))

    def memory_id_of(self, fact_id: str) -> str:
        """The mem0 memory id of a fact id (the inverse of :func:`memory_fact_id`), in scope."""
        memory, core = _unwrap(self)
        return _drive(memory, core.memory_id_of(fact_id))


class GuardedAsyncMemory(_Shell):
    """The async twin of :class:`GuardedMemory`, over a mem0 ``AsyncMemory``; same checks."""

    __slots__ = ()
    _expects = AsyncMemory

    async def add(
        self,
        messages: str | Mapping[str, Any] | list[Mapping[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: object = None,
        expiration_date: str | date | None = None,
        infer: bool = True,
        memory_type: str | None = None,
        prompt: str | None = None,
        llm: object = None,
    ) -> dict[str, Any]:
        memory, core = _unwrap(self)
        flow = core.add(
            messages,
            user_id=user_id,
            agent_id=agent_id,
            run_id=run_id,
            metadata=metadata,
            timestamp=timestamp,
            expiration_date=expiration_date,
            infer=infer,
            memory_type=memory_type,
            prompt=prompt,
            llm=llm,
            instructions=getattr(memory, "custom_instructions", None),
        )
        return await _adrive(memory, flow)

    async def search(
        self,
        query: str,
        *,
        top_k: int = 20,
        filters: Mapping[str, Any] | None = None,
        threshold: float = 0.1,
        rerank: bool = False,
        explain: bool = False,
        reference_date: object = None,
        show_expired: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        memory, core = _unwrap(self)
        options = _options(threshold, rerank, explain, reference_date, show_expired)
        flow = core.search(query, top_k=top_k, filters=filters, options=options, extra=kwargs)
        return await _adrive(memory, flow)

    async def get(self, memory_id: str) -> dict[str, Any] | None:
        memory, core = _unwrap(self)
        return await _adrive(memory, core.get(memory_id))

    async def get_all(
        self,
        *,
        filters: Mapping[str, Any] | None = None,
        top_k: int = 20,
        show_expired: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        memory, core = _unwrap(self)
        flow = core.get_all(filters=filters, top_k=top_k, show_expired=show_expired, extra=kwargs)
        return await _adrive(memory, flow)

    async def update(
        self,
        memory_id: str,
        text: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expiration_date: Any = _UNSET,
        data: str | None = None,
    ) -> dict[str, Any]:
        memory, core = _unwrap(self)
        return await _adrive(memory, core.update(memory_id, text, metadata, expiration_date, data))

    async def delete(self, memory_id: str) -> dict[str, Any]:
        memory, core = _unwrap(self)
        return await _adrive(memory, core.delete(memory_id))

    async def delete_all(
        self, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> dict[str, Any]:
        memory, core = _unwrap(self)
        flow = core.delete_all(user_id=user_id, agent_id=agent_id, run_id=run_id)
        return await _adrive(memory, flow)

    async def history(self, memory_id: str) -> list[dict[str, Any]]:
        memory, core = _unwrap(self)
        return await _adrive(memory, core.history(memory_id))

    async def memory_id_of(self, fact_id: str) -> str:
        memory, core = _unwrap(self)
        return await _adrive(memory, core.memory_id_of(fact_id))
