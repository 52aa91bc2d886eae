"""Bounded, safe YAML for every configuration file memguard reads (policies, identity, gateway).

Built on PyYAML's event parser (libyaml when present); the node tree is composed here, one event at
a time, so every limit is checked as soon as the input reaches it and nothing recurses:

- **size**: at most ``max_bytes`` (1 MiB by default; ``MEMGUARD_YAML_MAX_BYTES`` or the argument),
  checked before parsing, and a file is never read past that;
- **no aliases**: an alias (``*a``) is refused where it appears, so an alias bomb costs nothing;
  anchors alone are harmless and allowed, merge keys (``<<``) need aliases and so never work;
- **depth**: at most ``max_depth`` (64) nested collections;
- **tags**: only the YAML core tags (``!!str !!int !!float !!bool !!null !!map !!seq``); Python tags
  (``!!python/...``), ``!!timestamp``, ``!!binary``, ``!!set`` and unknown tags are refused;
- **one document**, mapping keys are strings, **duplicate keys refused**;
- **scalars** resolve by the YAML 1.2 core schema (``yes``/``no``/``on``/``off`` stay strings, no
  sexagesimal or YAML 1.1 octal integers); integers must fit in int64 and floats must be finite.

Every problem is a :class:`YamlError` (a :class:`~memguard.errors.ConfigurationError`) that names
``file:line:column`` and the key path, and never the offending value: a configuration may hold a
password (a database URL), and error text ends up in logs.
"""

from __future__ import annotations

import gc
import math
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, cast

import yaml
from pydantic import ValidationError
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    Event,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from memguard.errors import ConfigurationError

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "MAX_BYTES",
    "MAX_DEPTH",
    "Document",
    "YamlError",
    "compose",
    "load",
    "mark_of",
    "read",
    "scalar_value",
    "to_data",
    "validate",
]

T = TypeVar("T")

MAX_BYTES = 1 << 20
MAX_DEPTH = 64
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
ENV_MAX_BYTES = "MEMGUARD_YAML_MAX_BYTES"

_CORE = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL = (_CORE + t for t in ("str", "int", "float", "bool", "null"))
MAP, SEQ = _CORE + "map", _CORE + "seq"
_SCALAR_TAGS = frozenset({STR, INT, FLOAT, BOOL, NULL})

# YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution)
_NULL = re.compile(r"~|null|Null|NULL|")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT10 = re.compile(r"[-+]?[0-9]+")
_INT8 = re.compile(r"0o[0-7]+")
_INT16 = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)")
_SCHEMA_KEY = re.compile(r"[a-z_][a-z0-9_]{0,63}")
_KEY_NAME = re.compile(r"[A-Za-z_$<][A-Za-z0-9_$<>-]{0,63}")
_MAX_DIGITS = 24  # an int64 has at most 19 digits (plus sign, prefix, leading zeros)
_QUOTED = re.compile(r"""\s*(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")

Scalar = str | int | float | bool | None
Key = str | int


class YamlError(ConfigurationError):
    """A configuration file is not bounded, safe YAML; names file, line, column and key only."""

    code = "configuration.yaml"

    def __init__(
        self, file: str, line: int, column: int, problem: str, key: Sequence[Key] = ()
    ) -> None:
        self.file = file
        self.line = line
        self.column = column
        self.problem = problem
        self.key = tuple(key)
        where = f"{file}:{line}:{column}"
        path = key_path(self.key)
        super().__init__(f"{where}: key `{path}`: {problem}" if path else f"{where}: {problem}")


def key_path(path: Sequence[Key], limit: int = 12) -> str:
    """``a.b[2].c`` for a key path (a very deep one shortened in the middle)."""
    if len(path) > limit:
        head, tail = key_path(path[: limit // 2]), key_path(path[-(limit // 2) :])
        return f"{head}...({len(path) - limit} more)...{tail}"
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        # a key that does not look like a key name (a URL, a password pasted one line too far
        # left) is not printed: error text must never carry a value
        name = part if _KEY_NAME.fullmatch(part) else "<key>"
        out += f".{name}" if out else name
    return out


def mark_of(node: Node) -> tuple[int, int]:
    """The 1-based (line, column) where ``node`` starts."""
    return node.start_mark.line + 1, node.start_mark.column + 1


def _m(mark: object) -> yaml.Mark | None:
    """libyaml's marks are its own type; both have ``line`` and ``column``."""
    return cast(yaml.Mark | None, mark)


class _Scalar(ScalarNode):
    """A scalar node that carries its checked value (``data``) next to its source text."""

    data: Scalar = None


def scalar_value(node: Node) -> Scalar:
    """The value of a scalar node composed by :func:`compose` (``TypeError`` for anything else)."""
    if not isinstance(node, _Scalar):
        raise TypeError("not a scalar node of a bounded YAML document")
    return node.data


def _env_max_bytes() -> int:
    raw = os.environ.get(ENV_MAX_BYTES)
    if raw is None:
        return MAX_BYTES
    try:
        value = int(raw)
    except ValueError:
        raise ConfigurationError(f"`{ENV_MAX_BYTES}` must be a positive integer") from None
    if value <= 0:
        raise ConfigurationError(f"`{ENV_MAX_BYTES}` must be a positive integer")
    return value


def _resolve(event: ScalarEvent) -> str:
    """The tag of a scalar: its explicit core tag, or the YAML 1.2 core schema's implicit one."""
    tag = event.tag
    if tag is not None and tag != "!":
        return tag
    if tag == "!" or not event.implicit[0]:  # quoted, or the non-specific tag: a string
        return STR
    value = event.value
    if _NULL.fullmatch(value):
        return NULL
    if value in _BOOL:
        return BOOL
    if _INT10.fullmatch(value) or _INT8.fullmatch(value) or _INT16.fullmatch(value):
        return INT
    if _FLOAT.fullmatch(value) or _INF.fullmatch(value) or _NAN.fullmatch(value):
        return FLOAT
    return STR


def _construct(tag: str, text: str) -> Scalar:
    """The value of a scalar; ``ValueError`` with a message that never quotes ``text``."""
    if tag == STR:
        return text
    if tag == NULL:
        if not _NULL.fullmatch(text):
            raise ValueError("not a null")
        return None
    if tag == BOOL:
        if text not in _BOOL:
            raise ValueError("not a boolean")
        return _BOOL[text]
    if tag == INT:
        if len(text) > _MAX_DIGITS:
            raise ValueError("integer out of range (int64)")
        if _INT10.fullmatch(text):
            number = int(text, 10)
        elif _INT8.fullmatch(text):
            number = int(text[2:], 8)
        elif _INT16.fullmatch(text):
            number = int(text[2:], 16)
        else:
            raise ValueError("not an integer")
        if not INT64_MIN <= number <= INT64_MAX:
            raise ValueError("integer out of range (int64)")
        return number
    if tag == FLOAT:
        if _NAN.fullmatch(text) or _INF.fullmatch(text):
            raise ValueError("floats must be finite")
        if not (_FLOAT.fullmatch(text) or _INT10.fullmatch(text)):
            raise ValueError("not a float")
        value = float(text)
        if not math.isfinite(value):
            raise ValueError("floats must be finite")
        return value
    raise ValueError("tag not allowed")  # pragma: no cover - _check_tag runs first


def _check_tag(tag: str | None, allowed: frozenset[str]) -> str | None:
    """``None`` if the (explicit) tag may stand here, else the problem (never the tag's text:
    a tag is part of the input, and the input may be a secret)."""
    if tag is None or tag == "!" or tag in allowed:
        return None
    if tag.startswith(_CORE + "python/"):
        return "python tags are not allowed"
    if tag.startswith(_CORE):
        return "this YAML tag is not allowed (only str, int, float, bool, null, map, seq)"
    return "unknown YAML tag"


def _sanitize(problem: str | None) -> str:
    """PyYAML's problem text, without quoted input (the pure-Python scanner quotes characters)."""
    text = _QUOTED.sub("", problem or "invalid YAML").replace("\n", " ").strip()
    return (text or "invalid YAML")[:120]


@dataclass(slots=True)
class _Frame:
    node: SequenceNode | MappingNode
    key: Key | None  # the key of this collection in its parent (None for the root)
    pending: _Scalar | None = None  # a mapping's key waiting for its value
    keys: set[str] | None = None


class _Composer:
    def __init__(self, source: str, max_depth: int) -> None:
        self.source = source
        self.max_depth = max_depth
        self.stack: list[_Frame] = []
        self.root: Node | None = None
        self.documents = 0

    def path(self, extra: Key | None = None) -> list[Key]:
        out: list[Key] = [f.key for f in self.stack[1:] if f.key is not None]
        if self.stack:
            top = self.stack[-1]
            if isinstance(top.node, MappingNode) and top.pending is not None:
                out.append(str(top.pending.data))
        if extra is not None:
            out.append(extra)
        return out

    def fail(self, event: Event | None, problem: str, mark: yaml.Mark | None = None) -> YamlError:
        m = mark if mark is not None else (event.start_mark if event is not None else None)
        line, column = (m.line + 1, m.column + 1) if m is not None else (0, 0)
        return YamlError(self.source, line, column, problem, self.path())

    def _slot_key(self) -> Key | None:
        """The key the next node takes in the open collection."""
        if not self.stack:
            return None
        top = self.stack[-1]
        if isinstance(top.node, SequenceNode):
            return len(top.node.value)
        return str(top.pending.data) if top.pending is not None else None

    def _attach(self, node: Node, event: Event) -> None:
        if not self.stack:
            self.root = node
            return
        top = self.stack[-1]
        if isinstance(top.node, SequenceNode):
            top.node.value.append(node)
            return
        if top.pending is None:  # this node is a key
            if not isinstance(node, _Scalar):
                raise self.fail(event, "a mapping key must be a string, not a collection")
            if not isinstance(node.data, str):
                raise self.fail(event, "a mapping key must be a string")
            assert top.keys is not None
            if node.data in top.keys:
                top.pending = node  # so the error names the key
                raise self.fail(event, "duplicate key")
            top.keys.add(node.data)
            top.pending = node
            return
        top.node.value.append((top.pending, node))
        top.pending = None

    def feed(self, event: Event) -> None:
        if isinstance(event, ScalarEvent):
            tag = _resolve(event)
            problem = _check_tag(event.tag, _SCALAR_TAGS)
            if problem is None and tag not in _SCALAR_TAGS:
                problem = "a scalar cannot have a collection tag"
            if problem is not None:
                raise self.fail(event, problem)
            node = _Scalar(tag, event.value, _m(event.start_mark), _m(event.end_mark), event.style)
            try:
                node.data = _construct(tag, event.value)
            except ValueError as exc:
                raise self.fail(event, str(exc)) from None
            self._attach(node, event)
        elif isinstance(event, SequenceStartEvent | MappingStartEvent):
            is_map = isinstance(event, MappingStartEvent)
            problem = _check_tag(event.tag, frozenset({MAP if is_map else SEQ}))
            if problem is not None:
                raise self.fail(event, problem)
            if len(self.stack) >= self.max_depth:
                raise self.fail(event, f"nested deeper than {self.max_depth} levels")
            if self.stack and isinstance(self.stack[-1].node, MappingNode):
                if self.stack[-1].pending is None:
                    raise self.fail(event, "a mapping key must be a string, not a collection")
            key = self._slot_key()
            coll: SequenceNode | MappingNode = (
                MappingNode(MAP, [], _m(event.start_mark), None, event.flow_style)
                if is_map
                else SequenceNode(SEQ, [], _m(event.start_mark), None, event.flow_style)
            )
            self.stack.append(_Frame(coll, key, keys=set() if is_map else None))
        elif isinstance(event, SequenceEndEvent | MappingEndEvent):
            frame = self.stack.pop()
            frame.node.end_mark = event.end_mark
            self._attach(frame.node, event)
        elif isinstance(event, AliasEvent):
            raise self.fail(event, "aliases are not allowed")
        elif isinstance(event, DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise self.fail(event, "only one YAML document is allowed")
        elif not isinstance(event, StreamStartEvent | StreamEndEvent | DocumentEndEvent):
            raise self.fail(event, "unsupported YAML construct")  # pragma: no cover


def _events(text: str) -> Iterator[Event]:
    # the parser half of a loader only (no constructor runs); libyaml's when it is available
    parser = yaml.CBaseLoader(text) if yaml.__with_libyaml__ else yaml.BaseLoader(text)
    try:
        while parser.check_event():
            event = parser.get_event()
            if event is not None:
                yield event
    finally:
        parser.dispose()


def _text(data: str | bytes, source: str, max_bytes: int) -> str:
    size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
    if size > max_bytes:
        raise YamlError(source, 0, 0, f"larger than {max_bytes} bytes")
    if isinstance(data, bytes):
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise YamlError(source, 1, 1, "not UTF-8") from None
    return data


def compose(
    data: str | bytes,
    source: str = "<string>",
    *,
    max_bytes: int | None = None,
    max_depth: int = MAX_DEPTH,
) -> Node | None:
    """Parse one bounded YAML document into nodes with line marks; ``None`` for an empty one."""
    text = _text(data, source, max_bytes if max_bytes is not None else _env_max_bytes())
    composer = _Composer(source, max_depth)
    # the node tree is acyclic and bounded: pausing the cyclic GC while it grows halves the time
    # (otherwise every collection walks the whole partial tree again)
    paused = gc.isenabled()
    gc.disable()
    try:
        for event in _events(text):
            composer.feed(event)
    except yaml.MarkedYAMLError as exc:
        raise composer.fail(None, _sanitize(exc.problem), exc.problem_mark) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (never quoted back)
        pos = exc.position if isinstance(exc.position, int) else 0
        line = text.count("\n", 0, pos)
        mark = yaml.Mark("", pos, line, pos - (text.rfind("\n", 0, pos) + 1), None, 0)
        raise composer.fail(None, _sanitize(exc.reason), mark) from None
    except yaml.YAMLError:
        raise composer.fail(None, "invalid YAML") from None
    except (RecursionError, MemoryError):  # pragma: no cover - the depth cap comes first
        raise composer.fail(None, "input too complex") from None
    finally:
        if paused:
            gc.enable()
    return composer.root


def to_data(node: Node | None) -> object:
    """Plain Python data (dict, list, scalars) of a composed node tree."""
    if node is None:
        return None
    if isinstance(node, _Scalar):
        return node.data
    if isinstance(node, SequenceNode):
        return [to_data(n) for n in node.value]
    if isinstance(node, MappingNode):
        return {scalar_value(k): to_data(v) for k, v in node.value}
    raise TypeError("not a node of a bounded YAML document")


@dataclass(frozen=True, slots=True)
class Document:
    """A loaded YAML document: its data, its node tree (for positions) and where it came from."""

    source: str
    root: Node | None
    data: object

    def node_at(
        self, path: Sequence[object], *, key_node: bool = False
    ) -> tuple[Node | None, list[Key]]:
        """The deepest node along ``path`` (keys and list indexes) and the path that reached it;
        ``key_node``: for a last part that is a mapping key, the key's node, not its value's."""
        node, reached = self.root, []
        for i, part in enumerate(path):
            child: Node | None = None
            if isinstance(node, MappingNode):
                for k, v in node.value:
                    if scalar_value(k) == part:
                        child = k if key_node and i == len(path) - 1 else v
                        break
            elif isinstance(node, SequenceNode) and isinstance(part, int):
                if 0 <= part < len(node.value):
                    child = node.value[part]
            if child is None:
                break
            node = child
            reached.append(part if isinstance(part, int) else str(part))
        return node, reached

    def error(
        self,
        path: Sequence[object],
        problem: str,
        *,
        at_key: bool = False,
        position_at_key: bool = False,
    ) -> YamlError:
        """A :class:`YamlError` at ``path`` (the position of the deepest node the path reaches).

        ``at_key``: the last part is a key that should not be there; the error points at it and
        names its parent only (a key a schema does not know may be a pasted value).
        ``position_at_key``: point at the last part's key rather than at its value."""
        node, _ = self.node_at(path, key_node=at_key or position_at_key)
        line, column = mark_of(node) if node is not None else (0, 0)
        named = path[:-1] if at_key else path
        key = [p if isinstance(p, int) else str(p) for p in named]
        return YamlError(self.source, line, column, problem, key)


def load(
    data: str | bytes,
    source: str = "<string>",
    *,
    max_bytes: int | None = None,
    max_depth: int = MAX_DEPTH,
) -> Document:
    """Parse one bounded YAML document into a :class:`Document`."""
    root = compose(data, source, max_bytes=max_bytes, max_depth=max_depth)
    return Document(source, root, to_data(root))


def read_bytes(path: str | os.PathLike[str], max_bytes: int | None = None) -> bytes:
    """A file's bytes, refusing (without reading on) one larger than ``max_bytes``."""
    cap = max_bytes if max_bytes is not None else _env_max_bytes()
    p = Path(path)
    try:
        with p.open("rb") as fh:
            raw = fh.read(cap + 1)
    except OSError as exc:
        raise ConfigurationError(
            f"`{p}` cannot be read: {exc.strerror or type(exc).__name__}"
        ) from None
    if len(raw) > cap:
        raise YamlError(str(p), 0, 0, f"larger than {cap} bytes")
    return raw


def read(
    path: str | os.PathLike[str], *, max_bytes: int | None = None, max_depth: int = MAX_DEPTH
) -> Document:
    """Read and parse a bounded YAML file (never reads more than ``max_bytes`` + 1 bytes)."""
    cap = max_bytes if max_bytes is not None else _env_max_bytes()
    return load(read_bytes(path, cap), str(path), max_bytes=cap, max_depth=max_depth)


def validate(doc: Document, build: Callable[[object], T]) -> T:
    """``build(doc.data)``; a pydantic validation error becomes a :class:`YamlError` at the position
    of the key it names (pydantic's messages name the expected type, never the input)."""
    if not isinstance(doc.data, dict):
        raise doc.error([], "must be a mapping")
    try:
        return build(doc.data)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False, include_context=False)[0]
        loc = list(first["loc"])
        if first["type"] == "extra_forbidden":
            # named if it looks like a configuration key (snake_case); anything else may be a
            # value pasted one line too far left (a password), so it is pointed at, not printed
            named = bool(loc) and isinstance(loc[-1], str) and _SCHEMA_KEY.fullmatch(loc[-1])
            raise doc.error(loc, "unknown key", at_key=not named, position_at_key=True) from None
        message = str(first["msg"])
        raise doc.error(loc, _sanitize(message[:1].lower() + message[1:])) from None
