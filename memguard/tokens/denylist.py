"""Credentials refused after a security event: subjects, sessions, tokens and agents.

An entry is keyed by what it names, always issuer-qualified (DESIGN.md: never ``sub`` alone):

========  ======================================  ===========================================
kind      ``issuer``                              ``value``
========  ======================================  ===========================================
subject   the subject's issuer                    the subject (``sub`` or RFC 9493 ``sub_id``)
session   the issuer of the session (the IdP)     the token's ``sid`` claim
token     the token's issuer (its signer)         the token's ``jti``
agent     ``spiffe://trust-domain``               a workload id anywhere in the ``act`` chain
========  ======================================  ===========================================

``not_after``: only tokens issued at or before it are refused (a credential or claims change:
a token issued after the change is good); ``None`` refuses every token it names until ``until``
(a revoked session). Entries are kept until ``until`` (the event time plus the longest token
lifetime), then dropped: every token they could name has expired by then.

:class:`DenyList` keeps the entries in a SQL table (the ledger's database, SQLite or PostgreSQL) so
they survive a restart and reach every worker. A process that adds an entry applies it in memory
first (before the write, so its own next call is refused even while the table is slow), then
persists it; the other processes learn of it at once (:mod:`memguard.tokens.denylist_watch`:
PostgreSQL ``LISTEN``/``NOTIFY``, a SQLite change counter read on every check) and, as a backstop,
re-read the table at most every ``refresh`` seconds. A table that cannot be read refuses every
call (``identity.revocation_unavailable``): fail closed.

Caches of verified tokens or identities subscribe (:meth:`DenyList.subscribe`) and drop what an
added entry names.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from sqlalchemy import (
    BigInteger,
    Column,
    Engine,
    MetaData,
    String,
    Table,
    case,
    create_engine,
    delete,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError

from memguard.errors import ConfigurationError, IdentityError, LedgerError
from memguard.identity import PrincipalId
from memguard.tokens.denylist_watch import PgNotifyWatch, SqliteVersion, bump, ensure_version_row

__all__ = ["DenyCheck", "DenyEntry", "DenyKind", "DenyList", "TokenFacts"]

DenyKind = Literal["subject", "session", "token", "agent"]
#: how long other threads keep using the last read while one thread re-reads (seconds)
_MAX_RELOAD = 1.0
_KINDS: frozenset[str] = frozenset({"subject", "session", "token", "agent"})

_META = MetaData()
DENYLIST = Table(
    "memguard_ssf_denylist",
    _META,
    Column("k", String(64), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("issuer", String(1024), nullable=False),
    Column("value", String(2048), nullable=False),
    Column("not_after", BigInteger, nullable=True),
    Column("until", BigInteger, nullable=False, index=True),
    Column("cause", String(2048), nullable=False),
)


@dataclass(frozen=True, slots=True)
class TokenFacts:
    """What a deny check needs to know of a verified credential."""

    token_issuer: str
    subject: PrincipalId
    actors: tuple[str, ...]
    jti: str
    sid: str | None
    issued_at: int

    @classmethod
    def of(
        cls,
        claims: Mapping[str, Any],
        *,
        token_issuer: str,
        subject: PrincipalId,
        actors: Iterable[str],
        jti: str,
    ) -> TokenFacts:
        sid = claims.get("sid")
        iat = claims.get("iat")
        return cls(
            token_issuer=token_issuer,
            subject=subject,
            actors=tuple(actors),
            jti=jti,
            sid=sid if isinstance(sid, str) else None,
            issued_at=iat if type(iat) is int else 0,
        )


@dataclass(frozen=True, slots=True)
class DenyEntry:
    kind: DenyKind
    issuer: str
    value: str
    not_after: int | None
    until: int
    cause: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.issuer, self.value)

    @property
    def digest(self) -> str:
        raw = "\x00".join(self.key).encode("utf-8", "surrogatepass")
        return hashlib.sha256(raw).hexdigest()

    def merged(self, other: DenyEntry) -> DenyEntry:
        """Two entries for one key: the wider refusal and the later expiry win."""
        na = (
            None
            if self.not_after is None or other.not_after is None
            else max(self.not_after, other.not_after)
        )
        newer = other if other.until >= self.until else self
        return replace(newer, not_after=na, until=max(self.until, other.until))

    def summary(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "issuer": self.issuer,
            "value": self.value,
            "not_after": self.not_after,
            "until": self.until,
        }


class DenyCheck(Protocol):
    def check(self, facts: TokenFacts) -> DenyEntry | None:
        """The entry that refuses ``facts``, or None; raises ``IdentityError`` if it cannot tell."""
        ...


def _matches(entry: DenyEntry, facts: TokenFacts) -> bool:
    if entry.not_after is not None and facts.issued_at > entry.not_after:
        return False
    if entry.kind == "subject":
        return facts.subject.issuer == entry.issuer and facts.subject.subject == entry.value
    if entry.kind == "session":
        return facts.sid == entry.value and entry.issuer in (
            facts.subject.issuer,
            facts.token_issuer,
        )
    if entry.kind == "token":
        return facts.jti == entry.value and facts.token_issuer == entry.issuer
    return entry.value in facts.actors


class DenyList:
    """The deny entries, in memory and (with ``engine``) in a shared SQL table."""

    def __init__(
        self,
        engine: Engine | None = None,
        *,
        refresh: float = 0.5,
        clock: Callable[[], float] = time.time,
        watch: bool = True,
    ) -> None:
        self.engine = engine
        self.refresh = refresh
        self._clock = clock
        self._lock = threading.Lock()
        self._reload_lock = threading.Lock()
        self._entries: dict[tuple[str, str, str], DenyEntry] = {}
        self._loaded_at = float("-inf")
        self._listeners: list[Callable[[DenyEntry], None]] = []
        self._version: SqliteVersion | None = None
        self._version_seen: int | None = None
        self._watch: PgNotifyWatch | None = None
        if engine is not None:
            if engine.dialect.name not in ("postgresql", "sqlite"):
                raise ConfigurationError(f"unsupported deny-list backend `{engine.dialect.name}`")
            try:
                _META.create_all(engine, tables=[DENYLIST], checkfirst=True)
                ensure_version_row(engine)
            except SQLAlchemyError as exc:
                raise LedgerError(f"cannot create deny-list table: {type(exc).__name__}") from exc
            database = engine.url.database
            if watch and engine.dialect.name == "sqlite" and database and database != ":memory:":
                self._version = SqliteVersion(database)
            self._load()
            if watch and engine.dialect.name == "postgresql":
                self._watch = PgNotifyWatch(engine, self._load)
                self._watch.start()

    @classmethod
    def from_url(cls, url: str, **kw: Any) -> DenyList:
        return cls(create_engine(url, pool_pre_ping=True), **kw)

    # -- readers ------------------------------------------------------------------------------

    def check(self, facts: TokenFacts) -> DenyEntry | None:
        entries = self._current()
        now = self._clock()
        for key in (
            ("subject", facts.subject.issuer, facts.subject.subject),
            ("token", facts.token_issuer, facts.jti),
        ):
            entry = entries.get(key)
            if entry is not None and entry.until > now and _matches(entry, facts):
                return entry
        if facts.sid is not None:
            for issuer in {facts.subject.issuer, facts.token_issuer}:
                entry = entries.get(("session", issuer, facts.sid))
                if entry is not None and entry.until > now and _matches(entry, facts):
                    return entry
        for actor in facts.actors:
            if actor.startswith("spiffe://"):
                domain = "spiffe://" + actor[len("spiffe://") :].split("/", 1)[0]
                entry = entries.get(("agent", domain, actor))
                if entry is not None and entry.until > now and _matches(entry, facts):
                    return entry
        return None

    def entries(self) -> list[DenyEntry]:
        now = self._clock()
        return [e for e in self._current().values() if e.until > now]

    def _current(self) -> dict[tuple[str, str, str], DenyEntry]:
        if self.engine is None:
            return self._entries
        if self._version is not None and self._changed_elsewhere():
            self._loaded_at = float("-inf")  # another process added entries: read them now
        if time.monotonic() - self._loaded_at < self.refresh:
            return self._entries
        # one thread re-reads; the others go on with the set read at most one query ago
        if not self._reload_lock.acquire(blocking=False):
            if time.monotonic() - self._loaded_at < self.refresh + _MAX_RELOAD:
                return self._entries
            self._reload_lock.acquire()  # the reader is stuck: wait for it, then read again
        try:
            self._load()
        except LedgerError:
            raise IdentityError(
                "revocation state unavailable", code="identity.revocation_unavailable"
            ) from None
        finally:
            self._reload_lock.release()
        return self._entries

    def _changed_elsewhere(self) -> bool:
        """Has the SQLite change counter moved since the last read (raises fail-closed)?"""
        assert self._version is not None
        try:
            return self._version.read() != self._version_seen
        except Exception:
            raise IdentityError(
                "revocation state unavailable", code="identity.revocation_unavailable"
            ) from None

    def _load(self) -> None:
        assert self.engine is not None
        now = int(self._clock())
        try:
            # the counter first: a write after this read moves it again, so it is never missed
            seen = self._version.read() if self._version is not None else None
            with self.engine.connect() as conn:
                rows = conn.execute(select(DENYLIST).where(DENYLIST.c.until > now)).all()
        except Exception as exc:
            raise LedgerError(f"deny list unavailable: {type(exc).__name__}") from exc
        loaded: dict[tuple[str, str, str], DenyEntry] = {}
        for row in rows:
            if row.kind not in _KINDS:
                continue
            entry = DenyEntry(
                kind=row.kind,
                issuer=row.issuer,
                value=row.value,
                not_after=row.not_after,
                until=row.until,
                cause=row.cause,
            )
            loaded[entry.key] = entry
        with self._lock:
            # entries added here since the read began stay (they are in the table already)
            for key, entry in self._entries.items():
                if key in loaded:
                    loaded[key] = loaded[key].merged(entry)
                elif entry.until > now:
                    loaded[key] = entry
            self._entries = loaded
            self._loaded_at = time.monotonic()
            if seen is not None:
                self._version_seen = seen

    # -- writers ------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[DenyEntry], None]) -> None:
        """Call ``listener`` with every entry this process adds (a cache drops what it names)."""
        self._listeners.append(listener)

    def add(self, entries: Iterable[DenyEntry]) -> list[DenyEntry]:
        """Apply and persist ``entries``; returns them as merged with what was there.

        Applied here first: this process refuses what they name from now on even if the write
        then fails (``LedgerError``; the caller reports it and the sender retries)."""
        added = list(entries)
        out: list[DenyEntry] = []
        with self._lock:
            table = dict(self._entries)
            for entry in added:
                old = table.get(entry.key)
                table[entry.key] = entry if old is None else old.merged(entry)
                out.append(table[entry.key])
            self._entries = table
        for entry in out:
            for listener in self._listeners:
                listener(entry)
        if self.engine is not None and added:
            self._persist(added)
        return out

    def _persist(self, entries: list[DenyEntry]) -> None:
        assert self.engine is not None
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        t = DENYLIST
        now = int(self._clock())
        try:
            with self.engine.begin() as conn:
                conn.execute(delete(t).where(t.c.until <= now))
                for e in entries:
                    stmt = dialect.insert(t).values(
                        k=e.digest,
                        kind=e.kind,
                        issuer=e.issuer,
                        value=e.value,
                        not_after=e.not_after,
                        until=e.until,
                        cause=e.cause,
                    )
                    ex = stmt.excluded
                    conn.execute(
                        stmt.on_conflict_do_update(
                            index_elements=["k"],
                            set_={
                                "not_after": case(
                                    (t.c.not_after.is_(None) | ex.not_after.is_(None), None),
                                    (ex.not_after > t.c.not_after, ex.not_after),
                                    else_=t.c.not_after,
                                ),
                                "until": case((ex.until > t.c.until, ex.until), else_=t.c.until),
                                "cause": ex.cause,
                            },
                        )
                    )
                bump(conn)  # wakes the other processes (memguard.tokens.denylist_watch)
        except SQLAlchemyError as exc:
            raise LedgerError(f"deny list unavailable: {type(exc).__name__}") from exc

    @property
    def listening(self) -> bool:
        """PostgreSQL: whether the ``LISTEN`` connection is up (other processes' entries at once)."""
        return self._watch is not None and self._watch.listening

    def close(self) -> None:
        if self._watch is not None:
            self._watch.stop()
        if self.engine is not None:
            self.engine.dispose()
