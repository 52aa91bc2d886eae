"""A witness outside the ledger database: a directory that keeps the signed checkpoints.

An attacker who can rewrite the database can also delete its checkpoint rows, cut the log or drop
the ``mg_log_*`` tables; the copy in the witness directory survives that (put it on another
filesystem, a write-once mount or a host that only receives files, see docs/audit-log.md).
:meth:`WitnessDir.publish` replaces ``latest.note`` atomically and never with a smaller tree
(a checkpoint smaller than the one held means the database was rolled back, an
:class:`~memguard.errors.IntegrityError`), and appends the checkpoint to ``history.jsonl`` (tree
size, creation time, note), so ``verify`` also finds a deleted or edited checkpoint row.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from memguard.errors import IntegrityError, LedgerError
from memguard.ledger.checkpoint import Checkpoint, SignedNote

__all__ = ["CheckpointWitness", "WitnessDir", "WitnessedCheckpoint", "note_size"]


class CheckpointWitness(Protocol):
    """Where checkpoints are published outside the database (a directory, or e.g. an HTTP
    witness implementing the same two calls)."""

    def publish(self, note: str, created_at: float) -> None: ...

    def latest(self) -> str | None: ...

    def history(self) -> list[WitnessedCheckpoint]: ...


@dataclass(frozen=True, slots=True)
class WitnessedCheckpoint:
    tree_size: int
    created_at: float
    note: str


def note_size(note: str) -> int:
    """The tree size a signed checkpoint note states (signature not checked here)."""
    return Checkpoint.parse(SignedNote.parse(note).text).tree_size


def _root(note: str) -> bytes:
    return Checkpoint.parse(SignedNote.parse(note).text).root_hash


class WitnessDir:
    """``path/latest.note``: the signed checkpoint of the largest tree published so far."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    @property
    def file(self) -> Path:
        return self.path / "latest.note"

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def latest(self) -> str | None:
        try:
            return self.file.read_text("utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise LedgerError(f"cannot read the checkpoint witness: {type(exc).__name__}") from exc

    @property
    def history_file(self) -> Path:
        return self.path / "history.jsonl"

    def history(self) -> list[WitnessedCheckpoint]:
        """Every checkpoint published here, oldest first (a torn last line is skipped)."""
        try:
            lines = self.history_file.read_text("utf-8").splitlines()
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as exc:
            raise LedgerError(f"cannot read the checkpoint witness: {type(exc).__name__}") from exc
        out = []
        for line in lines:
            try:
                item = json.loads(line)
                out.append(
                    WitnessedCheckpoint(
                        int(item["tree_size"]), float(item["created_at"]), str(item["note"])
                    )
                )
            except (ValueError, KeyError, TypeError):
                continue
        return out

    def publish(self, note: str, created_at: float) -> None:
        size = note_size(note)
        try:
            with self._locked():
                held = self.latest()
                if held is not None:
                    held_size = note_size(held)
                    if held_size > size:
                        raise IntegrityError(
                            f"the witness holds a checkpoint of {held_size} leaves, the ledger "
                            f"signs {size}: the ledger was rolled back or truncated",
                            code="integrity.rollback",
                        )
                    if held_size == size:
                        if _root(held) != _root(note):
                            raise IntegrityError(
                                f"the witness holds another tree of {size} leaves: the log forked",
                                code="integrity.rollback",
                            )
                        return
                tmp = self.path / f".latest.{os.getpid()}.tmp"
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(note)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.file)
                entry = {"tree_size": size, "created_at": created_at, "note": note}
                with open(self.history_file, "a", encoding="utf-8") as f:
                    f.write(json.dumps(entry, sort_keys=True) + "\n")
                    f.flush()
                    os.fsync(f.fileno())
                dir_fd = os.open(self.path, os.O_RDONLY)
                try:
                    os.fsync(dir_fd)
                finally:
                    os.close(dir_fd)
        except OSError as exc:
            raise LedgerError(f"cannot publish to the checkpoint witness: {type(exc).__name__}") from exc
