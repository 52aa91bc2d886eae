"""The verified identity that every guarded call needs, and the verifier seam that mints it.

An :class:`Identity` cannot be built by application code: only a :class:`Verifier` mints one, after a
real signature check, and a guard accepts an identity only if its own verifier minted it (the verifier
remembers what it minted). Copying or pickling an identity is refused, so it cannot leave the process.
"""

from __future__ import annotations

import json
import time
import unicodedata
import weakref
from collections.abc import Callable
from typing import NoReturn, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from memguard.errors import IdentityError

__all__ = ["Actor", "Identity", "Principal", "PrincipalId", "Verifier", "check_identifier"]

# General categories an identifier may never contain (Unicode 15.1 / UAX #44): controls (Cc),
# format characters (Cf: bidi controls, zero-width joiners, soft hyphen, BOM), lone surrogates (Cs),
# private use (Co), unassigned code points and noncharacters (Cn), line and paragraph separators.
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Default_Ignorable_Code_Point (Unicode 15.1 DerivedCoreProperties.txt) outside those categories:
# rendered as nothing (the combining grapheme joiner, Hangul fillers, Khmer inherent vowels,
# Mongolian free variation selectors, variation selectors), so `alice` + one of them looks like
# `alice`. PRECIS (RFC 8264 9.13) disallows them in every string class.
_INVISIBLE = frozenset(
    chr(c)
    for first, last in (
        (0x034F, 0x034F),
        (0x115F, 0x1160),
        (0x17B4, 0x17B5),
        (0x180B, 0x180F),
        (0x3164, 0x3164),
        (0xFE00, 0xFE0F),
        (0xFFA0, 0xFFA0),
        (0xE0100, 0xE01EF),
    )
    for c in range(first, last + 1)
)
MAX_IDENTIFIER = 1024


def check_identifier(
    value: object, what: str, *, code: str = "identity.bad_identifier", recorded: bool = False
) -> str:
    """Return ``value`` if it is a safe identifier, else raise :class:`IdentityError` (``code``).

    The one identifier check of every path (tokens, workload ids, namespaces, fact ids,
    configuration): a non-empty string of at most 1024 characters without control, format (bidi,
    zero-width), surrogate, private-use, unassigned, separator or default-ignorable code points,
    whose only whitespace is single inner spaces (U+0020: none leading or trailing, no run of two,
    no other space character: ``"alice "``, ``" alice"`` and ``"a  b"`` would look like ``alice``
    and ``a b`` in the console, logs and audit output; RFC 8266's rule, refused rather than
    folded), and that NFKC leaves unchanged (so fullwidth letters, ligatures and compatibility
    forms are refused, not folded: identifiers are compared byte-exactly and must not merely look
    like another one).

    ``recorded``: the identifier is already in the ledger (a stored fact's id or namespace, named
    again by an update): the spacing and default-ignorable rules, added after identifiers were
    first stored, are not applied, so a fact stored before them stays readable, updatable and
    deletable; every other rule is. A new identifier is always checked in full.
    """
    if not isinstance(value, str) or not value:
        raise IdentityError(f"{what} must be a non-empty string", code=code)
    if len(value) > MAX_IDENTIFIER:
        raise IdentityError(f"{what} is too long", code=code)
    if value.isascii() and value.isprintable():
        # printable ASCII is NFKC-stable and has no forbidden code point; U+0020 is its one space
        if not recorded and (value[0] == " " or value[-1] == " " or "  " in value):
            raise IdentityError(f"{what} has leading, trailing or repeated spaces", code=code)
        return value
    for ch in value:
        if unicodedata.category(ch) in _FORBIDDEN_CATEGORIES:
            raise IdentityError(f"{what} contains a forbidden character", code=code)
        if not recorded and (ch in _INVISIBLE or (ch != " " and ch.isspace())):
            raise IdentityError(f"{what} contains a forbidden character", code=code)
    if unicodedata.normalize("NFKC", value) != value:
        raise IdentityError(f"{what} is not NFKC-normalized", code=code)
    if not recorded and (value[0] == " " or value[-1] == " " or "  " in value):
        raise IdentityError(f"{what} has leading, trailing or repeated spaces", code=code)
    return value


class PrincipalId(BaseModel):
    """A principal is (issuer, subject), never ``sub`` alone."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    issuer: str
    subject: str

    def __str__(self) -> str:
        return f"{self.subject} @ {self.issuer}"


def _empty(value: tuple[str, ...]) -> bool:
    return not value


class Actor(PrincipalId):
    """One delegation hop. Agents are named by their workload id (``spiffe://...``) as ``subject``.

    ``profile``: the hop's entity profile (the ``sub_profile`` of its ``act`` entry, e.g.
    ``ai_agent``, ``service``, ``user``), as the token's issuer asserted it; left out of
    serialized records when there is none, so records written before it keep their digests."""

    profile: tuple[str, ...] = Field(default=(), exclude_if=_empty)

    @property
    def workload_id(self) -> str | None:
        return self.subject if self.subject.startswith("spiffe://") else None


class Principal(BaseModel):
    """Who is acting: the originating subject and the actors in delegation order (first -> current)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subject: PrincipalId
    actors: tuple[Actor, ...] = ()
    client_id: str | None = None
    token_jti: str
    scopes: frozenset[str] = frozenset()
    #: the subject's entity profile (the token's ``sub_profile``), e.g. ``user`` for a human
    subject_profile: tuple[str, ...] = ()
    #: the Transaction Token transaction id (``txn``) the token was exchanged under, if any
    txn: str | None = None
    #: that Txn-Token's ``tctx`` / ``rctx`` as canonical JSON (memguard.tokens.txn_token), if any
    txn_context: str | None = None

    @property
    def depth(self) -> int:
        return len(self.actors)

    @property
    def current_actor(self) -> PrincipalId:
        return self.actors[-1] if self.actors else self.subject

    @property
    def workload_id(self) -> str | None:
        return self.actors[-1].workload_id if self.actors else None

    def summary(self) -> dict[str, object]:
        """What audit events and logs record of a principal: identifiers only, never the token."""
        return {
            "subject": self.subject.subject,
            "issuer": self.subject.issuer,
            "actors": [a.subject for a in self.actors],
            "workload_id": self.workload_id,
            "client_id": self.client_id,
            "jti": self.token_jti,
            **({"txn": self.txn} if self.txn else {}),
            **({"txn_context": json.loads(self.txn_context)} if self.txn_context else {}),
        }


class Identity:
    """A principal that a verifier has checked, valid until ``expires_at`` (epoch seconds)."""

    __slots__ = ("__weakref__", "_expires_at", "_principal", "_verifier_id")
    _principal: Principal
    _expires_at: int
    _verifier_id: int

    def __init__(self, *_: object, **__: object) -> None:
        raise TypeError("an Identity is minted by a Verifier; call `verifier.verify(token)`")

    @classmethod
    def _mint(cls, principal: Principal, expires_at: int, verifier_id: int) -> Identity:
        self = object.__new__(cls)
        object.__setattr__(self, "_principal", principal)
        object.__setattr__(self, "_expires_at", expires_at)
        object.__setattr__(self, "_verifier_id", verifier_id)
        return self

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("Identity is immutable")

    def __reduce__(self) -> NoReturn:
        raise TypeError("an Identity cannot be pickled or copied")

    def __copy__(self) -> NoReturn:
        raise TypeError("an Identity cannot be copied")

    def __deepcopy__(self, memo: object) -> NoReturn:
        raise TypeError("an Identity cannot be copied")

    @property
    def principal(self) -> Principal:
        return self._principal

    @property
    def expires_at(self) -> int:
        return self._expires_at

    def __repr__(self) -> str:
        p = self._principal
        chain = " -> ".join([p.subject.subject, *(a.subject for a in p.actors)])
        return f"Identity({chain!r}, jti={p.token_jti!r})"


@runtime_checkable
class Verifier(Protocol):
    """Turns a presented credential into an :class:`Identity`, or raises :class:`IdentityError`."""

    def verify(self, token: str) -> Identity: ...

    def minted(self, identity: Identity) -> bool:
        """True only for identities this verifier produced and that have not expired."""
        ...


class MintingVerifier:
    """Base for verifiers: mints identities and remembers them (weakly) so a guard can check origin."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._minted: weakref.WeakSet[Identity] = weakref.WeakSet()

    def _mint(self, principal: Principal, expires_at: int) -> Identity:
        identity = Identity._mint(principal, expires_at, id(self))
        self._minted.add(identity)
        return identity

    def minted(self, identity: Identity) -> bool:
        return (
            isinstance(identity, Identity)
            and identity in self._minted
            and identity.expires_at > self._clock()
        )
