"""A file cache of the rule set's tables, so a new process does not analyse every rule again.

Building :class:`memguard.scan.match.RuleSet` for the built-in rules is about a second of CPU,
nearly all of it the analysis (:func:`memguard.scan.match.plan`: each branch's literal prefixes,
lead and second anchors); it runs at :class:`~memguard.scan.RuleScanner` construction, not in a
scan, which has the stage's fail-closed timeout. The analysis is plain data, so it is kept here in
a file and a process that finds a good one only compiles the branches and fills the automata.

What makes a file good (anything else is ignored and the tables are rebuilt in memory, then the
file is written again; a cache never changes a verdict, it only saves the analysis):

- its name and its key: a digest of the patterns, of the source of the modules that make the
  tables (:mod:`~memguard.scan.anchors`, :mod:`~memguard.scan.match`, this one), of the Python
  version (``re``'s parser is read) and of the ``pyahocorasick`` version; new rules, new code or
  another Python make another key, so a stale file is never read;
- its content digest: the file is ``MAGIC``, the SHA-256 of the body, then the body (JSON); a
  truncated or altered body does not match it;
- the patterns it holds are the ones asked for, its format is this one's;
- on POSIX, the file and its directory belong to this user (or root) and no one else can write
  them: the tables decide where rules are tried, so a file that others could have written is not
  trusted, as code they could have written would not be;
- its binary companion (the compiled prefilter databases, :data:`BINARY`): ``bytes`` in the tables
  are not written into the JSON (as base64 they made a 22 MB file and 70 MB more resident at
  start-up) but into ``rule-tables-<key>-<digest>.bin`` beside it, whose name, size and SHA-256
  the JSON holds (so its own digest covers them); a companion that is missing, truncated, altered,
  of another name or writable by others makes the whole file unusable, as a bad JSON body does.

Where (:func:`directories`): ``MEMGUARD_SCAN_CACHE`` names the directory (``off`` turns the cache
off); by default files shipped in the package (read only, never written at run time), then
``$XDG_CACHE_HOME/memguard`` or ``~/.cache/memguard`` (written). ``python -m
memguard.scan.cachetool DIR`` writes the built-in rules' file to ``DIR`` (e.g. into the installed
package when an image is built).
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # CPython's regular expression engine
import base64
import hashlib
import json
import logging
import os
import re
import stat
import sys
import tempfile
import time
from array import array
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

__all__ = ["BINARY", "ENV", "KEEP", "MAGIC", "code", "compiled", "directories", "key", "load", "log_rejected", "path_for", "store", "write"]

ENV = "MEMGUARD_SCAN_CACHE"
MAGIC = b"memguard-rule-tables 1\n"
_FORMAT = 2
#: the tables' entries whose ``bytes`` values (nested in dicts) go to the binary companion file
BINARY = ("prefilter",)
_BLOB = "$blob"
#: a companion with no cache file naming it is removed once it is this old (seconds)
_ORPHAN_AGE = 60.0
#: the JSON's ``blobs`` entry is written first, so it is in this many bytes of the file's head
_HEAD = 4096
_COMPANION = re.compile(r"rule-tables-[0-9a-f]{32}-[0-9a-f]{16}\.bin")
#: how many cache files a directory keeps (the newest)
KEEP = 8
_OFF = frozenset({"", "0", "off", "no", "none", "false"})
_PACKAGE = Path(__file__).resolve().parent
#: the modules whose code makes the tables (a change to any of them is another key)
_SOURCES = ("anchors.py", "match.py", "rulecache.py", "superset.py", "prefilter.py", "probes.py")
_log = logging.getLogger("memguard.scan.rulecache")


def directories() -> list[Path]:
    """Where a cache file is looked for, in order; it is written to the last one."""
    chosen = os.environ.get(ENV)
    if chosen is not None:
        return [] if chosen.strip().lower() in _OFF else [Path(chosen)]
    home = os.environ.get("XDG_CACHE_HOME")
    base = Path(home) if home and Path(home).is_absolute() else Path.home() / ".cache"
    return [_PACKAGE, base / "memguard"]


def _ahocorasick_version() -> str:
    try:
        return metadata.version("pyahocorasick")
    except metadata.PackageNotFoundError:  # pragma: no cover - installed with memguard
        return "unknown"


def _hyperscan_version() -> str:
    """The prefilter's engine (its compiled database is kept in the file too)."""
    try:
        return metadata.version("hyperscan")
    except metadata.PackageNotFoundError:  # no wheel for this platform: no database kept
        return "none"


#: the compiled form of a pattern depends on these (``re``'s engine, its code words' size and order)
_CODESIZE = getattr(_sre, "CODESIZE", None)
_ENGINE = f"{sys.implementation.name} {sys.version_info[:3]} sre {getattr(_sre, 'MAGIC', None)} {_CODESIZE} {sys.byteorder}"
#: an array type code whose items are the engine's code words (``None``: no compiled forms kept)
_WORD = next((t for t in "IL" if array(t).itemsize == _CODESIZE), None)


def code(source: str) -> list[Any] | None:
    """What ``re.compile(source, re.MULTILINE)`` compiles ``source`` to, as plain data: what
    :func:`compiled` makes the same pattern from, without parsing it again (``None``: not on this
    Python). A parse of the rule set's branches is most of what is left of its start-up."""
    if _WORD is None or sys.implementation.name != "cpython":  # pragma: no cover - CPython
        return None
    try:
        parsed = sre_parse.parse(source, re.MULTILINE)
        flags = re.MULTILINE | parsed.state.flags
        words = array(_WORD, sre_compile._code(parsed, re.MULTILINE))
        groups = parsed.state.groupdict
        return [flags, base64.b64encode(words.tobytes()).decode("ascii"), parsed.state.groups - 1, dict(groups)]
    except Exception:  # pragma: no cover - an ``re`` whose internals differ: no compiled form
        return None


def compiled(source: str, entry: list[Any] | None) -> re.Pattern[str]:
    """``re.compile(source, re.MULTILINE)``, from ``entry`` (:func:`code`) when there is one (the
    engine checks the code it is given; a pattern so made compares equal to ``re.compile``'s)."""
    if entry is None:
        return re.compile(source, re.MULTILINE)
    flags, encoded, groups, groupindex = entry
    words = array(_WORD or "I")
    words.frombytes(base64.b64decode(encoded, validate=True))
    indexgroup: list[str | None] = [None] * (groups + 1)
    for name, index in groupindex.items():
        indexgroup[index] = name
    pattern: re.Pattern[str] = _sre.compile(source, flags, words.tolist(), groups, dict(groupindex), tuple(indexgroup))
    return pattern


def key(patterns: Sequence[str]) -> str | None:
    """The key of ``patterns``' tables (``None``: the code's source cannot be read, so no cache)."""
    digest = hashlib.sha256(f"{_FORMAT}\0{_ENGINE}\0".encode())
    digest.update(f"{_ahocorasick_version()}\0{_hyperscan_version()}\0{len(patterns)}\0".encode())
    for pattern in patterns:
        encoded = pattern.encode("utf-8", "surrogatepass")
        digest.update(b"%d\0" % len(encoded) + encoded)
    try:
        for name in _SOURCES:
            digest.update((_PACKAGE / name).read_bytes())
    except OSError:
        return None
    return digest.hexdigest()


def path_for(directory: Path, patterns_key: str) -> Path:
    return directory / f"rule-tables-{patterns_key[:32]}.json"


def log_rejected(path: Path, why: str) -> None:
    _log.warning("scan rule-table cache %s not used (%s): the tables are rebuilt", path, why)


def _private(path: Path) -> bool:
    """Is ``path`` only this user's (or root's) to write? (Always, where there are no owners.)"""
    if not hasattr(os, "getuid"):  # pragma: no cover - not POSIX
        return True
    info = os.stat(path)
    return info.st_uid in (os.getuid(), 0) and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _read(path: Path, patterns: tuple[str, ...], patterns_key: str) -> dict[str, Any]:
    """The verified tables in ``path``; raises ``ValueError`` (with why) or ``OSError`` if not."""
    if not (_private(path.parent) and _private(path)) or not path.is_file():
        raise ValueError("writable by others")
    data = path.read_bytes()
    head = len(MAGIC) + 65  # the magic, 64 hex digits of SHA-256, a newline
    if not data.startswith(MAGIC) or len(data) < head or data[head - 1 : head] != b"\n":
        raise ValueError("not a cache file")
    body = data[head:]
    if hashlib.sha256(body).hexdigest().encode() != data[len(MAGIC) : head - 1]:
        raise ValueError("content digest mismatch")
    content = json.loads(body)
    if not isinstance(content, dict) or content.get("format") != _FORMAT or content.get("key") != patterns_key:
        raise ValueError("stale")
    tables = content.get("tables")
    if not isinstance(tables, dict) or tables.get("patterns") != list(patterns):
        raise ValueError("other patterns")
    blobs = content.get("blobs")
    if blobs is not None:  # (else no bytes were written: the tables hold none)
        data = _companion(path.parent, blobs)
        for name in BINARY:
            if name in tables:
                tables[name] = _joined(tables[name], memoryview(data))
    return tables


def _companion(directory: Path, blobs: Any) -> bytes:
    """The verified bytes of the binary companion that ``blobs`` (from a verified JSON body)
    names; raises ``ValueError`` if it is not that file."""
    if not isinstance(blobs, dict):
        raise ValueError("bad companion entry")
    name, size, digest = blobs.get("name"), blobs.get("size"), blobs.get("sha256")
    if not isinstance(name, str) or not _COMPANION.fullmatch(name) or not isinstance(size, int):
        raise ValueError("bad companion entry")
    path = directory / name
    if not path.is_file() or not _private(path):
        raise ValueError("companion missing or writable by others")
    data = path.read_bytes()
    if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
        raise ValueError("companion digest mismatch")
    return data


def _joined(value: Any, data: memoryview) -> Any:
    """``value`` with each ``{"$blob": [offset, length]}`` replaced by that part of ``data`` (a
    view: no copy)."""
    if isinstance(value, dict):
        place = value.get(_BLOB)
        if place is not None and len(value) == 1:
            offset, length = place
            if not (isinstance(offset, int) and isinstance(length, int)) or offset < 0 or length < 0:
                raise ValueError("bad blob place")
            if offset + length > len(data):
                raise ValueError("blob past the companion's end")
            return data[offset : offset + length]
        return {k: _joined(v, data) for k, v in value.items()}
    if isinstance(value, list):
        return [_joined(v, data) for v in value]
    return value


def _split(value: Any, out: list[bytes], size: list[int]) -> Any:
    """``value`` with each ``bytes`` (or view) replaced by its place in the companion (appended to
    ``out``; ``size``: the companion's length so far)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        part = bytes(value)
        out.append(part)
        size[0] += len(part)
        return {_BLOB: [size[0] - len(part), len(part)]}
    if isinstance(value, dict):
        return {k: _split(v, out, size) for k, v in value.items()}
    if isinstance(value, list):
        return [_split(v, out, size) for v in value]
    return value


def load(patterns: Sequence[str], places: Sequence[Path]) -> tuple[dict[str, Any], Path] | None:
    """The first good cache file's tables for ``patterns`` in ``places``, and its path."""
    patterns = tuple(patterns)
    try:
        patterns_key = key(patterns)
    except Exception as exc:  # pragma: no cover - hashing strings and reading our own source
        _log.info("scan rule-table cache not used: %s", exc)
        return None
    if patterns_key is None:
        return None
    for directory in places:
        path = path_for(directory, patterns_key)
        if not path.exists():
            continue
        try:
            return _read(path, patterns, patterns_key), path
        except Exception as exc:  # whatever is wrong with it, the tables are analysed again
            log_rejected(path, str(exc)[:200] or type(exc).__name__)
    return None


def store(patterns: Sequence[str], tables: dict[str, Any], places: Sequence[Path]) -> Path | None:
    """Write ``tables`` for the next process to the last of ``places`` (never into the package);
    the path, or ``None`` when it cannot be written (no cache then; nothing else changes)."""
    try:
        patterns_key = key(tuple(patterns))
        writable = [p for p in places if p.resolve() != _PACKAGE]
        if patterns_key is None or not writable:
            return None
        return write(writable[-1], patterns_key, tables)
    except Exception as exc:  # a cache that cannot be written changes nothing else
        _log.info("scan rule-table cache not written: %s", exc)
        return None


def write(directory: Path, patterns_key: str, tables: dict[str, Any]) -> Path | None:
    """Write the cache file atomically (a temporary file renamed over it), private to this user,
    its binary companion first (named by its digest, so a process writing the same key at the same
    time cannot replace it under another's JSON)."""
    parts: list[bytes] = []
    written = dict(tables)
    for name in BINARY:
        if name in written:
            written[name] = _split(written[name], parts, [0])
    content: dict[str, Any] = {"format": _FORMAT, "key": patterns_key, "blobs": None, "tables": written}
    path = path_for(directory, patterns_key)
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if parts:
            data = b"".join(parts)
            digest = hashlib.sha256(data).hexdigest()
            companion = path.with_name(f"{path.stem}-{digest[:16]}.bin")
            _replace(directory, companion, data)
            content["blobs"] = {"name": companion.name, "size": len(data), "sha256": digest}
        body = json.dumps(content, separators=(",", ":"), ensure_ascii=True).encode("ascii")
        _replace(directory, path, MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    except OSError as exc:
        _log.info("scan rule-table cache not written to %s: %s", directory, exc)
        return None
    _prune(directory, path)
    return path


def _replace(directory: Path, path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a private temporary file renamed over it)."""
    fd, temporary = tempfile.mkstemp(prefix=".rule-tables-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _prune(directory: Path, kept: Path) -> None:
    """Keep the :data:`KEEP` newest cache files of ``directory`` (each rule or code change makes a
    new one, about 2 MB; installations of other versions may share the directory)."""
    try:
        files = sorted(directory.glob("rule-tables-*.json"), key=lambda f: f.stat().st_mtime, reverse=True)
        for old in (f for f in files[KEEP:] if f != kept):
            old.unlink(missing_ok=True)
            for companion in directory.glob(f"{old.stem}-*.bin"):
                companion.unlink(missing_ok=True)
        # a companion whose JSON is gone (replaced by another build of the same key, or never
        # written by a process that stopped): removed once it is a minute old (a process writing
        # now writes its companion first)
        keys = {f.stem for f in directory.glob("rule-tables-*.json")}
        now = time.time()
        for companion in directory.glob("rule-tables-*.bin"):
            stem = companion.stem.rsplit("-", 1)[0]
            if stem not in keys or (stem == kept.stem and not _referenced(kept, companion)):
                if now - companion.stat().st_mtime > _ORPHAN_AGE:
                    companion.unlink(missing_ok=True)
    except OSError:  # another process pruning, or a file going away: nothing to do
        pass


def _referenced(path: Path, companion: Path) -> bool:
    """Does the cache file ``path`` name ``companion`` (a look at its head, not a parse)?"""
    try:
        with path.open("rb") as f:
            return companion.name.encode() in f.read(_HEAD)
    except OSError:
        return True  # not known: kept
