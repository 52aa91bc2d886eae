"""The "verified up to" marker of incremental verify, kept outside the database.

After a full :meth:`~memguard.ledger.Ledger.verify` that found nothing, the ledger records which
checkpoint that replay covered: ``WITNESS_DIR/verified.note``, a signed note (the checkpoint key,
the signed-note format of the checkpoints) whose text is::

    <key name>/verified
    <tree size>
    <root hash, base64>
    <verified at, unix seconds>

``Ledger.verify(since_checkpoint=True)`` replays only the log after that tree size, once the
marker's signature verifies and its root is the recomputed tree's root at that size (it is bound
to the checkpoint it names: a marker moved to another size, or kept across a rewritten history,
does not hold, and the replay is then full). The marker lives next to the witness's checkpoints,
not in the database an attacker edits.
"""

from __future__ import annotations

import base64
import binascii
import os
from dataclasses import dataclass
from pathlib import Path

from memguard.errors import IntegrityError, LedgerError
from memguard.ledger.checkpoint import CheckpointSigner, CheckpointVerifier

__all__ = ["VerifiedMark", "read_mark", "write_mark"]

MARK_FILE = "verified.note"
_SUFFIX = "/verified"


@dataclass(frozen=True, slots=True)
class VerifiedMark:
    """A full verify found the log and every projection row right up to ``tree_size``."""

    tree_size: int
    root_hash: bytes
    verified_at: float

    def text(self, name: str) -> str:
        root = base64.b64encode(self.root_hash).decode("ascii")
        return f"{name}{_SUFFIX}\n{self.tree_size}\n{root}\n{self.verified_at!r}\n"


def write_mark(folder: Path, mark: VerifiedMark, signer: CheckpointSigner) -> None:
    """Replace ``folder/verified.note`` atomically (write, fsync, rename)."""
    note = signer.sign_note(mark.text(signer.name))
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = folder / f".{MARK_FILE}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(note)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, folder / MARK_FILE)
    except OSError as exc:
        raise LedgerError(f"cannot record the verified marker: {type(exc).__name__}") from exc


def read_mark(folder: Path, verifier: CheckpointVerifier) -> VerifiedMark | None:
    """The marker, its signature checked (``None`` if there is none); an
    :class:`~memguard.errors.IntegrityError` if it does not verify or parse."""
    try:
        note = (folder / MARK_FILE).read_text("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise IntegrityError(
            f"the verified marker cannot be read: {type(exc).__name__}",
            code="integrity.bad_signature",
        ) from exc
    opened = verifier.open(note)
    lines = opened.text.split("\n")
    signers = {sig.name for sig in opened.signatures}
    try:
        origin, size, root, when = (
            lines[0],
            int(lines[1]),
            base64.b64decode(lines[2], validate=True),
            float(lines[3]),
        )
    except (IndexError, ValueError, binascii.Error):
        raise IntegrityError(
            "the verified marker does not parse", code="integrity.bad_signature"
        ) from None
    if not origin.endswith(_SUFFIX) or origin[: -len(_SUFFIX)] not in signers or size < 0:
        raise IntegrityError(
            "the verified marker is not one of this log's", code="integrity.bad_signature"
        )
    return VerifiedMark(size, root, when)
