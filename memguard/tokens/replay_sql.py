"""A replay cache on a shared SQL database, so several token-service processes (on several hosts)
accept each client-assertion ``jti`` once (RFC 7523 3: "maintaining the set of used 'jti' values for
the length of time for which the JWT would be considered valid").

The check is one ``INSERT ... ON CONFLICT DO NOTHING RETURNING`` on a primary key: the database decides which
of two concurrent uses wins, whichever process they arrive at. Keys are stored as SHA-256 digests
(PostgreSQL text cannot hold the NUL separator of the cache keys, and no raw ``jti`` is kept).
Expired rows are pruned now and then, never before their ``exp``. Any database failure raises
:class:`~memguard.errors.LedgerError`, so the token request is refused (fail closed).
"""

from __future__ import annotations

import hashlib
import threading

from sqlalchemy import BigInteger, Column, Engine, MetaData, String, Table, create_engine, delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError

from memguard.errors import ConfigurationError, LedgerError

__all__ = ["SqlReplayCache"]

_META = MetaData()
USED_JTI = Table(
    "memguard_used_jti",
    _META,
    Column("k", String(64), primary_key=True),
    Column("exp", BigInteger, nullable=False, index=True),
)


class SqlReplayCache:
    """Used assertion ids in a table of a SQLite or PostgreSQL database (e.g. the ledger's)."""

    def __init__(self, engine: Engine, *, prune_every: int = 256) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        if self.dialect not in ("postgresql", "sqlite"):
            raise ConfigurationError(f"unsupported replay cache backend `{self.dialect}`")
        self._prune_every = prune_every
        self._uses = 0
        self._lock = threading.Lock()
        try:
            _META.create_all(engine, tables=[USED_JTI], checkfirst=True)
        except SQLAlchemyError as exc:
            raise LedgerError(f"cannot create replay table: {type(exc).__name__}") from exc

    @classmethod
    def from_url(cls, url: str) -> SqlReplayCache:
        return cls(create_engine(url, pool_pre_ping=True))

    def use(self, key: str, expires_at: int, now: float) -> bool:
        """Record ``key`` until ``expires_at``; False if it was already recorded (a replay)."""
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        dialect = postgresql if self.dialect == "postgresql" else sqlite
        stmt = (
            dialect.insert(USED_JTI)
            .values(k=digest, exp=int(expires_at))
            .on_conflict_do_nothing(index_elements=["k"])
            .returning(USED_JTI.c.k)  # rowcount is not reliable here across drivers
        )
        with self._lock:
            self._uses += 1
            prune = self._uses % self._prune_every == 1
        try:
            with self.engine.begin() as conn:
                if prune:
                    conn.execute(delete(USED_JTI).where(USED_JTI.c.exp < int(now)))
                inserted = conn.execute(stmt).first() is not None
        except SQLAlchemyError as exc:
            raise LedgerError(f"replay cache unavailable: {type(exc).__name__}") from exc
        return inserted

    def close(self) -> None:
        self.engine.dispose()
