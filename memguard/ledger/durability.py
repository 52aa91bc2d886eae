"""Which ledger transactions pay for an fsync at commit.

A transaction whose loss on power failure is harmless may commit without waiting for the disk:
SQLite (WAL) runs it under ``PRAGMA synchronous=NORMAL``, PostgreSQL under
``SET LOCAL synchronous_commit = off``. Both logs are sequential, so the next durable commit
(``synchronous=FULL`` / ``synchronous_commit = on``) makes every earlier transaction durable too:
when the guard acknowledges a write after its commit transaction, the staging transaction before
it is on disk as well. A process crash loses nothing either way (the data is in the OS cache);
only a power or OS failure can drop a relaxed transaction that no durable one followed.

Relaxed (see docs/ledger-durability.md): staging a *new* fact's ``pending`` row (lost: the store
may hold a point no row describes, which reads withhold with an ``integrity.unknown_point`` alarm,
never serve), aborting staged rows and marking purged rows (lost: recovery redoes them), and
integrating queued leaves into the tree without a checkpoint (lost: the leaves stay queued and
are integrated again; a checkpoint is always durable, since the witness sees it).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine

from memguard.ledger.opening import precheck

__all__ = ["transaction"]


@contextmanager
def transaction(engine: Engine, *, durable: bool) -> Iterator[Connection]:
    """``engine.begin()``, relaxed (no fsync at commit) when not ``durable``."""
    precheck(engine)  # a read-only SQLite state: a typed error before SQLite maps anything
    if durable:
        with engine.begin() as conn:
            yield conn
        return
    if engine.dialect.name != "sqlite":
        with engine.begin() as conn:
            conn.exec_driver_sql("SET LOCAL synchronous_commit TO OFF")
            yield conn
        return
    with engine.connect() as conn:
        # outside any transaction: pysqlite opens its transaction at the first write
        conn.exec_driver_sql("PRAGMA synchronous=NORMAL")
        conn.commit()
        try:
            with conn.begin():
                yield conn
        finally:
            try:
                conn.exec_driver_sql("PRAGMA synchronous=FULL")
                conn.commit()
            except BaseException:
                # never hand a relaxed connection back to the pool
                conn.invalidate()
                raise
