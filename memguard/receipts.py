"""Signed read receipts: which memories, with which provenance, a read returned -- provable offline.

A receipt is a compact JWS (``typ: read-receipt+jwt``, EdDSA) signed with the gateway's receipt
key (its own key and ``typ``: never an access token, never a checkpoint). Its claims::

    iss             the gateway (its resource identifier)
    iat, jti        when; the receipt's id
    principal       {issuer, subject, actors, client_id, token_jti}: who read
    action, purpose search | get; why (``answer``, ``planning``, ...)
    policy_digest   the policy in force for the read (from the read's audit event)
    facts           [{id, version, record_digest, content_digest}] in the order returned
    log             the read's audit event in the RFC 6962 log, when it can be found:
                    {seq, event, leaf_index, inclusion: {tree_size, root_hash, path}, checkpoint}

``event`` is the event's canonical JSON (the leaf's data): :func:`verify_receipt` recomputes the
leaf hash from it, checks that it names the same principal, action and fact ids as the receipt,
and, with an inclusion proof, that the path leads to the root of the signed checkpoint carried in
the receipt (verified with the ledger's published checkpoint key, c2sp.org/signed-note). A read
whose event was not integrated into the log yet carries ``leaf_index: null`` and no proof: the
signature and the event still verify; inclusion is then reported as ``pending``.

Everything here is offline and sans I/O; the gateway issues receipts (memguard/gateway/receipts.py).
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from memguard.errors import ConfigurationError, IdentityError, IntegrityError
from memguard.tokens.rfc7515 import check_alg, check_kid, parse_compact, verify_jws
from memguard.tokens.rfc7517 import StaticKeySource, public_jwk

__all__ = [
    "RECEIPT_TYP",
    "ReceiptFact",
    "ReceiptKey",
    "VerifiedReceipt",
    "receipt_claims",
    "verify_receipt",
]

RECEIPT_TYP = "read-receipt+jwt"
_ALGS = frozenset({"EdDSA"})


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: object) -> bytes:
    if not isinstance(text, str):
        raise IntegrityError("receipt: a hash is not a string", code="receipt.malformed")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError:
        raise IntegrityError("receipt: a hash is not base64url", code="receipt.malformed") from None


class ReceiptKey:
    """The Ed25519 key receipts are signed with (a PEM file, created on first use, mode 0600)."""

    def __init__(self, key: ed25519.Ed25519PrivateKey) -> None:
        self._key = key
        self.jwk = public_jwk(key)
        self.kid = self.jwk["kid"]

    @classmethod
    def generate(cls) -> ReceiptKey:
        return cls(ed25519.Ed25519PrivateKey.generate())

    @classmethod
    def load_or_create(cls, path: str | os.PathLike[str]) -> ReceiptKey:
        """The key in ``path``; created if missing. Several workers starting at once end up with
        the one key that won (written whole to a temporary file, then hard-linked into place)."""
        p = Path(path)
        if not p.exists():
            new = cls.generate()
            p.parent.mkdir(parents=True, exist_ok=True)
            pem = new._key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
            tmp = p.with_name(f".{p.name}.{secrets.token_hex(8)}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(pem)
            try:
                os.link(tmp, p)
            except FileExistsError:
                pass  # another worker's key won
            finally:
                tmp.unlink()
        try:
            key = serialization.load_pem_private_key(p.read_bytes(), password=None)
        except (OSError, ValueError) as exc:
            raise ConfigurationError(f"cannot read receipt key `{p}`: {exc}") from None
        if not isinstance(key, ed25519.Ed25519PrivateKey):
            raise ConfigurationError(f"receipt key `{p}` is not an Ed25519 key")
        return cls(key)

    def jwks(self) -> dict[str, list[dict[str, str]]]:
        return {"keys": [self.jwk]}

    def sign(self, claims: Mapping[str, Any]) -> str:
        return jwt.encode(
            dict(claims),
            self._key,
            algorithm="EdDSA",
            headers={"typ": RECEIPT_TYP, "kid": self.kid},
        )


@dataclass(frozen=True, slots=True)
class ReceiptFact:
    fact_id: str
    version: int
    record_digest: str
    content_digest: str

    def as_json(self) -> dict[str, object]:
        return {
            "id": self.fact_id,
            "version": self.version,
            "record_digest": self.record_digest,
            "content_digest": self.content_digest,
        }


def receipt_claims(
    *,
    issuer: str,
    principal: Mapping[str, Any],
    action: str,
    purpose: str | None,
    policy_digest: str | None,
    facts: Sequence[ReceiptFact],
    log: Mapping[str, Any] | None,
    now: float | None = None,
) -> dict[str, Any]:
    """The claims of one receipt (see the module docstring)."""
    return {
        "iss": issuer,
        "iat": int(time.time() if now is None else now),
        "jti": secrets.token_urlsafe(16),
        "principal": {
            k: principal.get(k) for k in ("issuer", "subject", "actors", "client_id", "jti")
        },
        "action": action,
        "purpose": purpose,
        "policy_digest": policy_digest,
        "facts": [f.as_json() for f in facts],
        "log": dict(log) if log is not None else None,
    }


def log_claims(
    *,
    seq: int,
    event_text: str,
    leaf_index: int | None,
    tree_size: int | None = None,
    root_hash: bytes | None = None,
    path: Sequence[bytes] = (),
    checkpoint: str | None = None,
) -> dict[str, Any]:
    """The ``log`` member: the read event, and its inclusion proof when there is one."""
    out: dict[str, Any] = {
        "seq": seq,
        "event": event_text,
        "leaf_index": leaf_index,
        "inclusion": None,
        "checkpoint": checkpoint,
    }
    if leaf_index is not None and tree_size is not None and root_hash is not None:
        out["inclusion"] = {
            "tree_size": tree_size,
            "root_hash": _b64(root_hash),
            "path": [_b64(p) for p in path],
        }
    return out


Inclusion = Literal["proven", "pending", "absent"]


@dataclass(frozen=True, slots=True)
class VerifiedReceipt:
    claims: Mapping[str, Any]
    #: ``proven``: the read event is in the log under the signed checkpoint; ``pending``: the
    #: event verifies but was not integrated when the receipt was made; ``absent``: no event
    #: (an empty read has no fact to find it by)
    inclusion: Inclusion
    checkpoint_size: int | None

    @property
    def fact_ids(self) -> list[str]:
        return [str(f["id"]) for f in self.claims["facts"]]

    def summary(self) -> dict[str, object]:
        return {
            "issuer": self.claims["iss"],
            "principal": self.claims["principal"],
            "action": self.claims["action"],
            "purpose": self.claims["purpose"],
            "policy_digest": self.claims["policy_digest"],
            "facts": self.claims["facts"],
            "inclusion": self.inclusion,
            "checkpoint_size": self.checkpoint_size,
        }


def verify_receipt(
    token: str,
    jwks: Mapping[str, Any],
    *,
    issuer: str | None = None,
    checkpoint_keys: Sequence[str] = (),
) -> VerifiedReceipt:
    """Verify a receipt offline against the published receipt key set (and, for the inclusion
    proof, the ledger's published checkpoint verifier keys). Raises :class:`IntegrityError`."""
    from memguard.ledger.checkpoint import CheckpointVerifier
    from memguard.ledger.rfc6962 import leaf_hash, verify_inclusion

    try:
        header, unverified = parse_compact(token)
        if header.get("typ") != RECEIPT_TYP:
            raise IdentityError("not a read receipt", code="identity.bad_type")
        alg = check_alg(header, _ALGS)
        claims = verify_jws(
            token, StaticKeySource(jwks, _ALGS).get(check_kid(header), alg), alg, unverified
        )
    except (IdentityError, ConfigurationError) as exc:
        raise IntegrityError(
            f"receipt signature does not verify ({exc.code})", code="receipt.bad_signature"
        ) from None
    if issuer is not None and claims.get("iss") != issuer:
        raise IntegrityError("receipt from another issuer", code="receipt.bad_issuer")
    facts = claims.get("facts")
    principal = claims.get("principal")
    if not isinstance(facts, list) or not isinstance(principal, dict):
        raise IntegrityError("receipt claims malformed", code="receipt.malformed")
    log = claims.get("log")
    if log is None:
        if facts:
            raise IntegrityError("receipt names facts but no read event", code="receipt.malformed")
        return VerifiedReceipt(claims, "absent", None)
    if not isinstance(log, dict) or not isinstance(log.get("event"), str):
        raise IntegrityError("receipt log member malformed", code="receipt.malformed")
    event_text: str = log["event"]
    try:
        event = json.loads(event_text)
    except ValueError:
        raise IntegrityError("receipt event is not JSON", code="receipt.malformed") from None
    ids = sorted(str(f.get("id")) for f in facts if isinstance(f, dict))
    ev_principal = event.get("principal") or {}
    if (
        sorted(event.get("fact_ids") or []) != ids
        or event.get("action") != claims.get("action")
        or event.get("decision") != "allow"
        or ev_principal.get("jti") != principal.get("jti")
        or ev_principal.get("subject") != principal.get("subject")
        or ev_principal.get("issuer") != principal.get("issuer")
        or event.get("policy_digest") != claims.get("policy_digest")
    ):
        raise IntegrityError("the read event does not match the receipt", code="receipt.mismatch")
    inclusion = log.get("inclusion")
    if inclusion is None:
        return VerifiedReceipt(claims, "pending", None)
    leaf = leaf_hash(event_text.encode("utf-8"))
    size, root = inclusion.get("tree_size"), _unb64(inclusion.get("root_hash"))
    path = [_unb64(p) for p in inclusion.get("path") or []]
    index = log.get("leaf_index")
    if type(size) is not int or type(index) is not int:
        raise IntegrityError("receipt inclusion proof malformed", code="receipt.malformed")
    verify_inclusion(index, size, leaf, path, root)  # IntegrityError if it does not lead there
    note = log.get("checkpoint")
    if not checkpoint_keys:
        raise IntegrityError(
            "a checkpoint verifier key is needed to prove inclusion",
            code="receipt.no_checkpoint_key",
        )
    if not isinstance(note, str):
        raise IntegrityError("receipt carries no checkpoint", code="receipt.malformed")
    checkpoint = CheckpointVerifier.from_verifier_keys(checkpoint_keys).verify_checkpoint(note)
    if checkpoint.tree_size != size or checkpoint.root_hash != root:
        raise IntegrityError(
            "the proof is not against the signed checkpoint", code="receipt.mismatch"
        )
    return VerifiedReceipt(claims, "proven", size)
