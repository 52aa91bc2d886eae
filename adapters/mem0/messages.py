"""Messages given to ``add`` and the decisions mem0's LLM returns, checked."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# mem0 reads this once, when it is first imported, and uploads usage events from construction
# on: off unless the application turned it on itself (the shells refuse mem0 with it on)
os.environ.setdefault("MEM0_TELEMETRY", "False")

from mem0.memory.utils import extract_json, remove_code_blocks  # type: ignore[import-untyped]

from memguard.errors import (
    InvalidRequest,
    StoreError,
)
from memguard.trust import TrustLevel

from .base import _EVENTS, _MAX_DECISIONS, _MAX_TEXT, _clean


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
