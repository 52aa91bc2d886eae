"""A change entry as the read path uses it, found in the entry's text without parsing all of it.

Verifying a hit against the signed log needs the operations of *one* fact in each change entry
that names it, but a ``write_many`` of 512 facts is one entry of ~400 KB of canonical JSON:
``json.loads`` of it cost ~5 ms on the read path, paid by the first read of any fact of the
batch in a process (at 10^5 facts a benchmark's searches, or a fresh process, parsed a new entry
for most hits). Here the text is only scanned (``str.find``, C speed) for where each fact's
operations start, and the operations of a fact are decoded when that fact is read
(``raw_decode`` of one ~800-byte object).

Why the scan finds exactly the operations (of the prov and quarantine tables, the ones a head
is computed from): the text was produced by :func:`~memguard.provenance.canonical_json` (sorted
keys, compact, every ``"`` inside a string escaped) and hashed against its leaf by the caller
before it gets here. In such a text ``{"key":{"fact_id":"`` can only be the start of an object
whose first key is ``key`` holding an object whose first key is ``fact_id`` (a quote preceded
by ``{`` or ``:`` cannot be an escaped one, nor a string's closing quote followed by a key): the
change operations, whose keys are flat columns sorted by name (``fact_id`` sorts before
``version`` and ``revocation_id``). The signed ``fact_ids`` are the outermost object's list,
which is checked: what follows it must close the outermost object (it parses as the rest of
that object, keys sorted after ``fact_ids``). Anything else (not a change entry, another
layout) takes the full parse, as before.

What a full parse would also notice, and this one does not, is text that is not JSON at all
after its leaf hash matched: only a queued leaf (``mg_log_pending``), which whoever can write
the database can rewrite together with its event anyway (docs/audit-log.md: the window before
integration), so a valid JSON entry of their choosing gives them the same; ``memguard ledger
verify`` parses every entry fully.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memguard.ledger.changelinks import links_of
from memguard.ledger.changelog import CHANGE_ACTION, ops_of

__all__ = ["Entry", "entry_cost", "parse_entry"]

_DECODER = json.JSONDecoder()
#: the C string scanner ``json`` decodes strings with (not in the stubs: the module's own name)
_scanstring: Any = json.decoder.scanstring  # type: ignore[attr-defined]
_OP = '{"key":{"fact_id":"'
_PREFIX = '{"action":' + json.dumps(CHANGE_ACTION, ensure_ascii=False) + ","
_NAMES = ',"fact_ids":['


@dataclass(frozen=True, slots=True)
class Entry:
    """A change entry: where each fact's operations start in its ``text`` (or, from the full
    parse, the operations themselves), and the facts its signed ``fact_ids`` name (empty when
    it is not a change entry)."""

    names: frozenset[str]
    text: str = ""
    at: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    parsed: Mapping[str, list[Any]] | None = None
    #: estimated memory the entry keeps alive (:func:`entry_cost`), what ``EntryCache`` bounds
    cost: int = 0

    def ops(self, fact_id: str) -> list[Any]:
        """The operations on ``fact_id``'s rows, in log order."""
        if self.parsed is not None:
            return self.parsed.get(fact_id, [])
        return [_DECODER.raw_decode(self.text, pos)[0] for pos in self.at.get(fact_id, ())]


def entry_cost(text_chars: int, ops: int) -> int:
    """An estimate of a fully parsed entry's memory in bytes: fitted with ``tracemalloc`` on
    CPython 3.11 over 64- and 512-fact entries of both kinds (``put`` rows, ``set`` states): about
    1.8 bytes per character of the entry's JSON text plus ~770 per operation (the dicts), within 2%
    of the measured size; rounded up here to 2 and 800, plus 1 KiB for the entry itself."""
    return 2 * text_chars + 800 * ops + 1024


def _scanned_cost(text: str, positions: int, facts: int) -> int:
    """A scanned entry keeps its text (``sys.getsizeof``: 1, 2 or 4 bytes a character) and the
    offsets and the names: a dict slot, a key string, a tuple and a set member per fact (~320 bytes
    measured with ``tracemalloc``), an int per operation."""
    return sys.getsizeof(text) + 320 * facts + 40 * positions + 1024


def parse_entry(text: str) -> Entry | None:
    """The entry of an event text whose leaf hash the caller checked (None: not JSON)."""
    if text.startswith(_PREFIX):
        found = _scan(text)
        if found is not None:
            return found
    return _parse_full(text)


def _parse_full(text: str) -> Entry | None:
    try:
        ev = json.loads(text)
    except ValueError:
        return None
    if not isinstance(ev, dict):
        return None
    grouped: dict[str, list[Any]] = {}
    for op in ops_of(ev.get("detail") or {}):
        key = op.get("key") if isinstance(op, Mapping) else None
        if isinstance(key, Mapping) and isinstance(key.get("fact_id"), str):
            grouped.setdefault(key["fact_id"], []).append(op)
    kept = sum(len(v) for v in grouped.values())
    return Entry(frozenset(links_of(ev)), parsed=grouped, cost=entry_cost(len(text), kept))


def _scan(text: str) -> Entry | None:
    names = _names(text)
    if names is None:
        return None
    at: dict[str, list[int]] = {}
    pos = text.find(_OP)
    try:
        while pos != -1:
            fact_id, end = _scanstring(text, pos + len(_OP))
            at.setdefault(fact_id, []).append(pos)
            pos = text.find(_OP, end)
    except ValueError:
        return None
    positions = sum(len(p) for p in at.values())
    cost = _scanned_cost(text, positions, len(at))
    return Entry(names, text, {f: tuple(p) for f, p in at.items()}, cost=cost)


def _names(text: str) -> frozenset[str] | None:
    """The outermost object's ``fact_ids`` (None: not found where a change entry has them)."""
    pos = text.rfind(_NAMES)
    if pos == -1:
        return None
    try:
        names, end = _DECODER.raw_decode(text, pos + len(_NAMES) - 1)
        rest = text[end:]
        if rest != "}":
            # the keys after it, closing the outermost object exactly: else it was nested
            tail = json.loads("{" + rest[1:]) if rest.startswith(",") else None
            if not isinstance(tail, dict) or any(k <= "fact_ids" for k in tail):
                return None
    except ValueError:
        return None
    if not isinstance(names, list):
        return None
    return frozenset(str(f) for f in names)  # (a list or an object there: an edited entry)
