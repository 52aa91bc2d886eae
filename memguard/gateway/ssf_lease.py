"""One RFC 8936 poller per transmitter across all gateway processes: a lease in the ledger's database.

Every gateway worker builds a poller for each transmitter with a ``poll_url``; before each poll it
asks the lease. Only its holder polls and acknowledges; the others wait. Every process still
applies what the holder received, through the shared deny list (memguard.tokens.denylist, which
tells them at once), so nothing depends on which process polls.

- PostgreSQL: a session advisory lock (``pg_try_advisory_lock``) on a connection of its own,
  keyed by the schema and the transmitter. The server drops it when the holder's connection ends,
  so a process that dies hands over at the next poll interval of another one.
- SQLite: a row (``memguard_ssf_poll_lease``) with a holder and an expiry, taken or renewed by
  one conditional upsert (the holder renews, anyone takes an expired row); a holder that dies
  hands over after ``ttl`` seconds. The holder writes only when a third of ``ttl`` has passed
  since its last renewal (not on every poll: SQLite has one writer, the ledger's).

A lease that cannot be read or renewed is not held: the process does not poll (events wait at
the transmitter, which is where RFC 8936 keeps them), never two pollers on a broken lease. Two
pollers for a moment (an expiry during a slow poll) apply nothing twice: the SET's ``jti`` is
claimed once in the shared replay table, and the loser's acks are dropped with its lease.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from sqlalchemy import Column, Engine, Float, MetaData, String, Table, text
from sqlalchemy.dialects import postgresql, sqlite

from memguard.logging import get_logger

__all__ = ["LEASES", "PgAdvisoryLease", "PollLease", "SqlLease", "lease_for", "process_holder"]

_META = MetaData()
LEASES = Table(
    "memguard_ssf_poll_lease",
    _META,
    Column("name", String(1100), primary_key=True),
    Column("holder", String(256), nullable=False),
    Column("expires_at", Float, nullable=False),
)


def process_holder() -> str:
    """This process, as a lease holder: host, pid and a random part (pids are reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class PollLease(Protocol):
    holder: str
    #: the last ``acquire`` failed on the database (not: another process holds the lease)
    failing: bool

    def acquire(self) -> bool:
        """Take or renew the lease; True while this process holds it. Never raises."""
        ...

    def release(self) -> None: ...


class SqlLease:
    """A lease row with an expiry (SQLite; works on PostgreSQL too)."""

    def __init__(
        self,
        engine: Engine,
        name: str,
        *,
        ttl: float = 5.0,
        holder: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.engine, self.name, self.ttl, self._clock = engine, name, ttl, clock
        self.holder = holder or process_holder()
        self._dialect: Any = postgresql if engine.dialect.name == "postgresql" else sqlite
        self._created = False
        self.failing = False
        self._renewed_at = float("-inf")
        self._log = get_logger()

    def acquire(self) -> bool:
        now = self._clock()
        if now - self._renewed_at < self.ttl / 3:  # held, and good for 2/3 ttl more: no write
            return True
        try:
            if not self._created:
                _META.create_all(self.engine, tables=[LEASES], checkfirst=True)
                self._created = True
            now = self._clock()
            stmt = self._dialect.insert(LEASES).values(
                name=self.name, holder=self.holder, expires_at=now + self.ttl
            )
            stmt = stmt.on_conflict_do_update(
                index_elements=["name"],
                set_={"holder": stmt.excluded.holder, "expires_at": stmt.excluded.expires_at},
                where=(LEASES.c.holder == self.holder) | (LEASES.c.expires_at < now),
            )
            with self.engine.begin() as conn:
                held = int(conn.execute(stmt).rowcount) == 1
            self.failing = False
        except Exception as exc:  # not held: this process does not poll
            self._log.warning("ssf.lease_failed", lease=self.name, error=type(exc).__name__)
            held, self.failing = False, True
        self._renewed_at = now if held else float("-inf")
        return held

    def release(self) -> None:
        self._renewed_at = float("-inf")
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    LEASES.delete().where(
                        (LEASES.c.name == self.name) & (LEASES.c.holder == self.holder)
                    )
                )
        except Exception as exc:  # it expires on its own
            self._log.warning("ssf.lease_release_failed", lease=self.name, error=type(exc).__name__)


class PgAdvisoryLease:
    """A PostgreSQL session advisory lock on a connection that only this lease uses."""

    def __init__(self, engine: Engine, name: str, *, holder: str | None = None) -> None:
        self.engine, self.name = engine, name
        self.holder = holder or process_holder()
        self._conn: Any = None
        self._held = False
        self.failing = False
        self._lock = threading.Lock()
        self._log = get_logger()

    def _key_sql(self) -> str:
        return "hashtextextended(current_schema() || ':memguard-ssf-poll:' || %s, 0)"

    def acquire(self) -> bool:
        with self._lock:
            try:
                if self._conn is None:
                    raw = self.engine.raw_connection()
                    conn = raw.driver_connection
                    raw.detach()  # the lock lives as long as this connection: not pooled
                    if conn is None:
                        raise RuntimeError("no driver connection")
                    conn.autocommit = True
                    # who holds it, for operators (pg_stat_activity) and tests
                    conn.execute(
                        "SELECT set_config('application_name', %s, false)",
                        (f"memguard-ssf-poll {self.holder}"[:63],),
                    )
                    self._conn, self._held = conn, False
                if self._held:
                    self._conn.execute("SELECT 1")  # still connected, so still held
                else:
                    row = self._conn.execute(
                        f"SELECT pg_try_advisory_lock({self._key_sql()})", (self.name,)
                    ).fetchone()
                    self._held = bool(row and row[0])
                self.failing = False
                return self._held
            except Exception as exc:  # the connection is gone, and the lock with it
                self._log.warning("ssf.lease_failed", lease=self.name, error=type(exc).__name__)
                self._drop()
                self.failing = True
                return False

    def _drop(self) -> None:
        conn, self._conn, self._held = self._conn, None, False
        if conn is not None:
            try:
                conn.close()
            except Exception:  # already broken: the server has dropped the lock
                pass

    def release(self) -> None:
        with self._lock:
            self._drop()  # closing the session releases its advisory locks


def lease_for(engine: Engine, issuer: str, *, ttl: float) -> PollLease:
    """The lease of ``issuer``'s poller on the ledger database ``engine``."""
    name = f"poll:{issuer}"
    if engine.dialect.name == "postgresql":
        return PgAdvisoryLease(engine, name)
    return SqlLease(engine, name, ttl=ttl)


def holders(engine: Engine) -> dict[str, str]:
    """The SQLite lease rows (name -> holder), for tools and tests."""
    with engine.connect() as conn:
        return {
            r.name: r.holder
            for r in conn.execute(text("SELECT name, holder FROM memguard_ssf_poll_lease"))
        }
