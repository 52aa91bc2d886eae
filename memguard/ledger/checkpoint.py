"""Signed checkpoints of the audit log: c2sp.org/tlog-checkpoint in a c2sp.org/signed-note.

A checkpoint commits to the Merkle tree of the audit log at one size::

    memguard.local/audit-log          <- origin (also the signing key's name)
    1024                              <- tree size, decimal
    CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=   <- RFC 6962 root hash, base64

    — memguard.local/audit-log 3V2l...base64(key id || Ed25519 signature)...

Keys use the text encodings of Go's ``golang.org/x/mod/sumdb/note`` (which implements the same
signed-note format), so a checkpoint can be checked with standard tooling:

- verifier key: ``<name>+<key id, 8 hex digits>+<base64(0x01 || 32-byte public key)>``
- signer key (the file on disk, mode 0600): ``PRIVATE+KEY+<name>+<key id>+<base64(0x01 || seed)>``

Every verification failure raises :class:`~memguard.errors.IntegrityError` with a stable code:
``integrity.malformed_note``, ``integrity.bad_signature`` or ``integrity.unknown_key``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from memguard.errors import ConfigurationError, IntegrityError
from memguard.ledger.rfc6962 import HASH_SIZE

__all__ = [
    "DEFAULT_ORIGIN",
    "Checkpoint",
    "CheckpointSigner",
    "CheckpointVerifier",
    "NoteSignature",
    "SignedNote",
    "note_key_id",
]

DEFAULT_ORIGIN = "memguard.local/audit-log"

#: signed-note: "`0x01` — Ed25519 signatures as specified by this document."
ED25519_SIGNATURE_TYPE = 0x01
_ED25519_SIG_SIZE = 64
_EM_DASH = "\u2014"
#: signed-note: verifiers "MUST accept at least up to 16 signatures"; a cap bounds the work.
MAX_SIGNATURES = 100
MAX_NOTE_BYTES = 1 << 20
_DECIMAL = re.compile(r"(0|[1-9][0-9]*)\Z")
_HEX8 = re.compile(r"[0-9a-f]{8}\Z")


def _malformed(message: str) -> IntegrityError:
    return IntegrityError(message, code="integrity.malformed_note")


def _b64decode(value: str, what: str) -> bytes:
    """Strict standard base64 (RFC 4648 §4): canonical padding, no other characters."""
    try:
        raw = base64.b64decode(value.encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error, ValueError):
        raise _malformed(f"{what} is not standard base64") from None
    if base64.b64encode(raw).decode("ascii") != value:
        raise _malformed(f"{what} is not canonical base64")
    return raw


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _check_key_name(name: str) -> None:
    # signed-note: "Key names MUST be non-empty and MUST NOT contain any Unicode spaces or plus
    # (U+002B) characters."
    if not name or "+" in name or any(ch.isspace() for ch in name):
        raise _malformed(f"invalid key name `{name}`")
    _check_note_chars(name)


def _check_note_chars(text: str) -> None:
    # signed-note: "Signed notes MUST be valid UTF-8 and MUST NOT contain any ASCII control
    # characters (those below U+0020) other than newline."
    if any(ch < " " and ch != "\n" for ch in text):
        raise _malformed("note contains a control character")


def note_key_id(name: str, public_key: bytes) -> int:
    """signed-note: "key ID = SHA-256(key name || 0x0A || 0x01 || 32-byte Ed25519 public key)[:4]",
    read as a big-endian uint32."""
    digest = hashlib.sha256(
        name.encode("utf-8") + b"\n" + bytes([ED25519_SIGNATURE_TYPE]) + public_key
    ).digest()
    return int.from_bytes(digest[:4], "big")


def _raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The note text of c2sp.org/tlog-checkpoint: origin, tree size, root hash (+ extension lines)."""

    origin: str
    tree_size: int
    root_hash: bytes
    extensions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.origin or "\n" in self.origin:
            raise _malformed("checkpoint origin must be one non-empty line")
        _check_note_chars(self.origin)
        if isinstance(self.tree_size, bool) or self.tree_size < 0:
            raise _malformed("checkpoint tree size must be a non-negative int")
        if len(self.root_hash) != HASH_SIZE:
            raise _malformed(f"checkpoint root hash must be {HASH_SIZE} bytes")
        for line in self.extensions:
            if not line or "\n" in line:
                raise _malformed("checkpoint extension lines must be non-empty single lines")
            _check_note_chars(line)

    def text(self) -> str:
        """The note text: one line each, every line ending in a newline."""
        lines = [self.origin, str(self.tree_size), _b64(self.root_hash), *self.extensions]
        return "".join(line + "\n" for line in lines)

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        """Parse a checkpoint note text strictly (it must come from a verified note)."""
        # tlog-checkpoint: "The note text is a sequence of at least three non-empty lines,
        # separated by newlines (U+000A)."
        if not text.endswith("\n"):
            raise _malformed("checkpoint text must end with a newline")
        lines = text[:-1].split("\n")
        if len(lines) < 3 or any(not line for line in lines):
            raise _malformed("checkpoint text needs at least three non-empty lines")
        origin, size, root, *extensions = lines
        # "The second line is the tree size, the ASCII decimal representation of the number of
        # leaves in the tree, with no leading zeroes (unless the tree is empty [...])."
        if not _DECIMAL.match(size):
            raise _malformed("checkpoint tree size is not a canonical decimal")
        # "The third line is the root hash, the base64 encoding of the root of the [RFC 6962]
        # Merkle hash tree at the specified tree size."
        root_hash = _b64decode(root, "checkpoint root hash")
        return cls(origin, int(size), root_hash, tuple(extensions))


@dataclass(frozen=True, slots=True)
class NoteSignature:
    """One signature line: ``— <key name> base64(32-bit key ID || signature)``."""

    name: str
    key_id: int
    signature: bytes

    def line(self) -> str:
        blob = self.key_id.to_bytes(4, "big") + self.signature
        return f"{_EM_DASH} {self.name} {_b64(blob)}\n"


@dataclass(frozen=True, slots=True)
class SignedNote:
    """A c2sp.org/signed-note: a text and its signature lines (not yet verified)."""

    text: str
    signatures: tuple[NoteSignature, ...]

    def format(self) -> str:
        return self.text + "\n" + "".join(sig.line() for sig in self.signatures)

    @classmethod
    def parse(cls, note: str | bytes) -> SignedNote:
        """Split a signed note into text and signature lines; strict about the format."""
        if isinstance(note, bytes):
            if len(note) > MAX_NOTE_BYTES:
                raise _malformed("note is too large")
            try:
                note = note.decode("utf-8")
            except UnicodeDecodeError:
                raise _malformed("note is not valid utf-8") from None
        if len(note.encode("utf-8", "surrogatepass")) > MAX_NOTE_BYTES:
            raise _malformed("note is too large")
        _check_note_chars(note)
        # "A signed note consists of a text ending in newline (U+000A), followed by a blank line
        # (only a newline), followed by one or more signature lines [...]" and "the text is
        # separated from the signatures by the last empty line in the note."
        split = note.rfind("\n\n")
        if split < 0 or not note.endswith("\n"):
            raise _malformed("note has no signature block")
        text, block = note[: split + 1], note[split + 2 :]
        lines = block[:-1].split("\n") if block else []
        if not lines:
            raise _malformed("note has no signature lines")
        if len(lines) > MAX_SIGNATURES:
            raise _malformed("note has too many signatures")
        sigs = []
        for line in lines:
            # "em dash (U+2014), space (U+0020), key name, space, base64-encoded signature, newline"
            parts = line.split(" ")
            if len(parts) != 3 or parts[0] != _EM_DASH:
                raise _malformed("malformed signature line")
            name, blob64 = parts[1], parts[2]
            _check_key_name(name)
            blob = _b64decode(blob64, "signature")
            # "Signatures are the base64 encoding of 4+n bytes. The first four bytes in the
            # signature are the uint32 key ID stored in big-endian order."
            if len(blob) < 5:
                raise _malformed("signature is too short")
            sigs.append(NoteSignature(name, int.from_bytes(blob[:4], "big"), blob[4:]))
        return cls(text, tuple(sigs))


def _check_origin(origin: str) -> None:
    # tlog-checkpoint: the origin "SHOULD be a schema-less URL containing neither Unicode spaces
    # nor plus (U+002B)", and "The log's key name in its signature line SHOULD match the origin
    # line." memguard signs under the origin, so the origin must be a valid key name.
    try:
        _check_key_name(origin)
    except IntegrityError:
        raise ConfigurationError(f"invalid checkpoint origin `{origin}`") from None


class CheckpointVerifier:
    """Holds trusted Ed25519 note keys and opens signed checkpoints with them."""

    def __init__(self, keys: Iterable[tuple[str, Ed25519PublicKey]]) -> None:
        self._keys: dict[tuple[str, int], Ed25519PublicKey] = {}
        for name, key in keys:
            _check_origin(name)
            ident = (name, note_key_id(name, _raw_public(key)))
            if ident in self._keys:
                raise ConfigurationError(f"ambiguous checkpoint key `{name}+{ident[1]:08x}`")
            self._keys[ident] = key
        if not self._keys:
            raise ConfigurationError("a checkpoint verifier needs at least one key")

    @classmethod
    def from_verifier_keys(cls, vkeys: Iterable[str]) -> CheckpointVerifier:
        """From ``<name>+<key id>+<base64(0x01 || public key)>`` strings."""
        keys = []
        for vkey in vkeys:
            parts = vkey.strip().split("+", 2)
            if len(parts) != 3 or not _HEX8.match(parts[1]):
                raise ConfigurationError("malformed checkpoint verifier key")
            name, id_hex, key64 = parts
            try:
                raw = _b64decode(key64, "verifier key")
            except IntegrityError:
                raise ConfigurationError("malformed checkpoint verifier key") from None
            if len(raw) != 33 or raw[0] != ED25519_SIGNATURE_TYPE:
                raise ConfigurationError("checkpoint verifier key is not an ed25519 note key")
            if note_key_id(name, raw[1:]) != int(id_hex, 16):
                raise ConfigurationError("checkpoint verifier key id does not match the key")
            keys.append((name, Ed25519PublicKey.from_public_bytes(raw[1:])))
        return cls(keys)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(name for name, _ in self._keys)

    def open(self, note: str | bytes) -> SignedNote:
        """Verify a signed note; returns it with only the signatures that verified.

        signed-note: "Verifiers MUST ignore signatures from unknown keys [...] If the key name and
        ID match a known key, verifiers MUST verify the signature. If a signature from a known key
        fails to verify, clients SHOULD reject the whole note. If no signature from a known key
        verifies successfully, clients MUST reject the note."
        """
        parsed = SignedNote.parse(note)
        message = parsed.text.encode("utf-8")
        verified = []
        for sig in parsed.signatures:
            key = self._keys.get((sig.name, sig.key_id))
            if key is None:
                continue
            try:
                if len(sig.signature) != _ED25519_SIG_SIZE:
                    raise InvalidSignature
                key.verify(sig.signature, message)
            except InvalidSignature:
                raise IntegrityError(
                    f"invalid signature for key `{sig.name}+{sig.key_id:08x}`",
                    code="integrity.bad_signature",
                ) from None
            verified.append(sig)
        if not verified:
            raise IntegrityError(
                "note has no signature from a trusted key", code="integrity.unknown_key"
            )
        return SignedNote(parsed.text, tuple(verified))

    def verify_checkpoint(self, note: str | bytes, *, origin: str | None = None) -> Checkpoint:
        """Open a signed checkpoint; its origin must be the name of a key that signed it."""
        opened = self.open(note)
        checkpoint = Checkpoint.parse(opened.text)
        signers = {sig.name for sig in opened.signatures}
        if checkpoint.origin not in signers:
            raise IntegrityError(
                f"checkpoint origin `{checkpoint.origin}` is not the name of its signing key",
                code="integrity.bad_signature",
            )
        if origin is not None and checkpoint.origin != origin:
            raise IntegrityError(
                f"checkpoint is for origin `{checkpoint.origin}`, not `{origin}`",
                code="integrity.bad_signature",
            )
        return checkpoint


class CheckpointSigner:
    """Signs checkpoints with one Ed25519 note key; the key name is the log's origin."""

    def __init__(self, private_key: Ed25519PrivateKey, name: str = DEFAULT_ORIGIN) -> None:
        _check_origin(name)
        self.name = name
        self._private = private_key
        self.public_key = _raw_public(private_key.public_key())
        self.key_id = note_key_id(name, self.public_key)

    @classmethod
    def generate(cls, name: str = DEFAULT_ORIGIN) -> CheckpointSigner:
        return cls(Ed25519PrivateKey.generate(), name)

    @classmethod
    def from_private_key_string(cls, skey: str) -> CheckpointSigner:
        """From ``PRIVATE+KEY+<name>+<key id>+<base64(0x01 || seed)>``."""
        parts = skey.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"] or not _HEX8.match(parts[3]):
            raise ConfigurationError("malformed checkpoint signer key")
        name, id_hex, key64 = parts[2], parts[3], parts[4]
        try:
            raw = _b64decode(key64, "signer key")
        except IntegrityError:
            raise ConfigurationError("malformed checkpoint signer key") from None
        if len(raw) != 33 or raw[0] != ED25519_SIGNATURE_TYPE:
            raise ConfigurationError("checkpoint signer key is not an ed25519 note key")
        signer = cls(Ed25519PrivateKey.from_private_bytes(raw[1:]), name)
        if signer.key_id != int(id_hex, 16):
            raise ConfigurationError("checkpoint signer key id does not match the key")
        return signer

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> CheckpointSigner:
        """Load a key file; refuse one that group or others may read."""
        p = Path(path)
        try:
            mode = p.stat().st_mode
            if mode & (stat.S_IRWXG | stat.S_IRWXO):
                raise ConfigurationError(
                    f"checkpoint key `{p}` is accessible by other users (chmod 600 it)"
                )
            return cls.from_private_key_string(p.read_text("ascii"))
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigurationError(
                f"cannot read checkpoint key `{p}`: {type(exc).__name__}"
            ) from exc

    @classmethod
    def load_or_create(
        cls, path: str | os.PathLike[str], *, name: str = DEFAULT_ORIGIN
    ) -> CheckpointSigner:
        """Load the key at ``path``, creating it (mode 0600, folder 0700) if absent.

        Creation is atomic: the key is written to a temporary file and hard-linked into place, so
        two processes racing to create it end up with the same complete key.
        """
        p = Path(path)
        if p.exists():
            return cls.load(p)
        signer = cls.generate(name)
        try:
            p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            tmp = p.with_name(f".{p.name}.{os.getpid()}.{os.urandom(4).hex()}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                with os.fdopen(fd, "w", encoding="ascii") as fh:
                    fh.write(signer.private_key_string() + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())
                try:
                    os.link(tmp, p)
                except FileExistsError:
                    return cls.load(p)
            finally:
                tmp.unlink(missing_ok=True)
        except OSError as exc:
            raise ConfigurationError(
                f"cannot create checkpoint key `{p}`: {type(exc).__name__}"
            ) from exc
        return signer

    def private_key_string(self) -> str:
        seed = self._private.private_bytes_raw()
        blob = _b64(bytes([ED25519_SIGNATURE_TYPE]) + seed)
        return f"PRIVATE+KEY+{self.name}+{self.key_id:08x}+{blob}"

    def verifier_key(self) -> str:
        """The public verifier key string, to hand to witnesses and auditors."""
        blob = _b64(bytes([ED25519_SIGNATURE_TYPE]) + self.public_key)
        return f"{self.name}+{self.key_id:08x}+{blob}"

    def verifier(self) -> CheckpointVerifier:
        return CheckpointVerifier([(self.name, self._private.public_key())])

    def sign_note(self, text: str) -> str:
        """Sign a note text (signed-note: Ed25519 "according to [RFC 8032] over the note text")."""
        if not text.endswith("\n"):
            raise _malformed("a note text must end with a newline")
        _check_note_chars(text)
        sig = self._private.sign(text.encode("utf-8"))
        return SignedNote(text, (NoteSignature(self.name, self.key_id, sig),)).format()

    def sign(self, tree_size: int, root_hash: bytes) -> str:
        """A signed checkpoint of the tree at ``tree_size`` under this signer's origin."""
        return self.sign_note(Checkpoint(self.name, tree_size, root_hash).text())
