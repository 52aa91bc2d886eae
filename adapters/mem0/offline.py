"""Offline mem0 parts for tests and examples: a hash embedder, a scripted LLM, offline memories."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import Any

# mem0 reads this once, when it is first imported, and uploads usage events from construction
# on: off unless the application turned it on itself (the shells refuse mem0 with it on)
os.environ.setdefault("MEM0_TELEMETRY", "False")

from mem0 import AsyncMemory, Memory  # type: ignore[import-untyped]
from mem0.configs.base import MemoryConfig  # type: ignore[import-untyped]
from mem0.configs.embeddings.base import BaseEmbedderConfig  # type: ignore[import-untyped]
from mem0.configs.llms.base import BaseLlmConfig  # type: ignore[import-untyped]
from mem0.embeddings.base import EmbeddingBase  # type: ignore[import-untyped]
from mem0.llms.base import LLMBase  # type: ignore[import-untyped]

from memguard.embedding import HashEmbedder


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


def _offline_config(path: str | None, dimension: int, collection: str, history_db_path: str) -> Any:
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
