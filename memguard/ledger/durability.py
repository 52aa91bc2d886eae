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

SQLite's level is a setting of the connection that cannot change inside a transaction. It is set
when a transaction begins, and only when it differs from what that pooled connection already runs:
a ``begin`` hook on the engine (:func:`_on_begin`) puts every transaction that is not marked
relaxed (whoever opens it: this module, or code that calls ``engine.begin()`` on the ledger's
engine directly) at ``FULL`` before its first statement, and a relaxed one at ``NORMAL``. A
connection may go back to the pool relaxed: the next durable transaction on it is set back first.
Consecutive reads then cost no ``PRAGMA`` round trips (each used to add two, with two commits).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, event

from memguard.errors import LedgerError
from memguard.ledger.opening import precheck

__all__ = ["ANY", "DURABILITY_OPTION", "RELAXED", "relax", "synchronous_hook", "transaction"]

#: the execution option that marks a connection's transactions (SQLite)
DURABILITY_OPTION = "memguard_durability"
#: may commit without an fsync
RELAXED = "relaxed"
#: writes nothing (a read snapshot): runs at whatever level the connection has
ANY = "any"
#: the level a pooled connection runs, in its ``info`` (which lives as long as the DBAPI
#: connection: a new connection starts at FULL, set by the ledger's connect hook)
_LEVEL = "memguard.synchronous"
_FULL, _NORMAL = "FULL", "NORMAL"

_HOOKED: weakref.WeakSet[Engine] = weakref.WeakSet()


def synchronous_hook(engine: Engine) -> None:
    """Install the ``begin`` hook on a SQLite ``engine`` (once). Done before the first relaxed
    transaction: until then no connection of the engine can run below FULL."""
    if engine.dialect.name != "sqlite" or engine in _HOOKED:
        return
    event.listen(engine, "begin", _on_begin)
    _HOOKED.add(engine)


def _on_begin(conn: Connection) -> None:
    """Before a transaction's first statement: its connection at the level it needs."""
    want = conn.get_execution_options().get(DURABILITY_OPTION)
    if want == ANY:
        return
    _set_level(conn.info, conn.connection.dbapi_connection, _NORMAL if want == RELAXED else _FULL)


def relax(info: dict[Any, Any], dbapi: Any) -> None:
    """Put a pooled SQLite driver connection (``info``: its pool record's) at ``NORMAL`` before
    a relaxed transaction run on the driver itself (memguard/ledger/readevent.py): what the
    ``begin`` hook does for SQLAlchemy's transactions, with the same bookkeeping, so the next
    durable transaction on the connection is set back to ``FULL``."""
    _set_level(info, dbapi, _NORMAL)


def _set_level(info: dict[Any, Any], dbapi: Any, level: str) -> None:
    if info.get(_LEVEL, _FULL) == level:
        return
    if dbapi is None or getattr(dbapi, "in_transaction", True):
        # SQLite refuses the change inside a transaction: never commit at the wrong level
        raise LedgerError("the ledger connection is in an unexpected transaction state")
    info[_LEVEL] = "unknown"  # until the statement has run: the next transaction sets it again
    cursor = dbapi.cursor()
    try:
        cursor.execute(f"PRAGMA synchronous={level}")
    finally:
        cursor.close()
    info[_LEVEL] = level


@contextmanager
def transaction(engine: Engine, *, durable: bool) -> Iterator[Connection]:
    """``engine.begin()``, relaxed (no fsync at commit) when not ``durable``."""
    precheck(engine)  # a read-only SQLite state: a typed error before SQLite maps anything
    if engine.dialect.name != "sqlite":
        with engine.begin() as conn:
            if not durable:
                conn.exec_driver_sql("SET LOCAL synchronous_commit TO OFF")
            yield conn
        return
    synchronous_hook(engine)
    if durable:
        with engine.begin() as conn:  # the hook sets FULL if the connection ran relaxed
            yield conn
        return
    with engine.connect() as conn:
        conn.execution_options(**{DURABILITY_OPTION: RELAXED})
        with conn.begin():  # the hook sets NORMAL if the connection ran at FULL
            yield conn
