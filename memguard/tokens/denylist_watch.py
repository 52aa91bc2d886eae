"""How a process learns at once that another process added deny entries (memguard.tokens.denylist).

Without these, each process re-reads the deny table every ``refresh`` seconds, so an entry added by
one gateway worker reaches the others up to ``refresh`` plus one read later. With them:

- PostgreSQL: the writer sends ``NOTIFY`` in the transaction that adds the entries (delivered on
  commit) and every process keeps one connection in ``LISTEN`` (:class:`PgNotifyWatch`, a daemon
  thread) that re-reads the table the moment a notification arrives. The channel is named after
  the schema, so processes on other schemas of the same database are not woken.
- SQLite: the writer bumps a counter row in the same transaction; every check reads it
  (:class:`SqliteVersion`, one primary-key lookup on a per-thread ``sqlite3`` connection, a few
  microseconds) and re-reads the table when it moved.

Neither replaces the periodic re-read: that stays, so a table that cannot be read still refuses
every call (fail closed). A watch that breaks (the listening connection is lost) only means the
slower path applies until it reconnects; it reconnects and re-reads at once.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import BigInteger, Column, Engine, Integer, MetaData, Table, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from memguard.logging import get_logger

__all__ = ["VERSION", "PgNotifyWatch", "SqliteVersion", "bump", "ensure_version_row"]

_META = MetaData()
VERSION = Table(
    "memguard_ssf_denylist_version",
    _META,
    Column("id", Integer, primary_key=True),
    Column("n", BigInteger, nullable=False),
)
_CHANNEL_SQL = "SELECT 'mg_deny_' || md5(current_schema())"


def ensure_version_row(engine: Engine) -> None:
    """The counter table and its one row (idempotent, safe when processes race)."""
    _META.create_all(engine, tables=[VERSION], checkfirst=True)
    dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
    with engine.begin() as conn:
        conn.execute(
            dialect.insert(VERSION).values(id=1, n=0).on_conflict_do_nothing(index_elements=["id"])
        )


def bump(conn: Connection) -> None:
    """In the writer's transaction: move the counter and (PostgreSQL) notify the listeners."""
    conn.execute(update(VERSION).where(VERSION.c.id == 1).values(n=VERSION.c.n + 1))
    if conn.dialect.name == "postgresql":
        conn.execute(text(f"SELECT pg_notify(({_CHANNEL_SQL}), '')"))


class SqliteVersion:
    """The SQLite counter, read on every check through a per-thread read connection."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._local = threading.local()

    def read(self) -> int:
        """The counter; raises ``sqlite3.Error`` if it cannot be read (the caller fails closed)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, timeout=5.0, check_same_thread=True, isolation_level=None
            )
            self._local.conn = conn
        try:
            row = conn.execute(
                "SELECT n FROM memguard_ssf_denylist_version WHERE id = 1"
            ).fetchone()
        except sqlite3.Error:
            conn.close()
            self._local.conn = None
            raise
        if row is None:
            raise sqlite3.OperationalError("deny-list version row missing")
        return int(row[0])


class PgNotifyWatch:
    """A daemon thread in ``LISTEN`` on the deny list's channel; ``on_change`` runs per wake-up."""

    def __init__(
        self, engine: Engine, on_change: Callable[[], None], *, retry: float = 1.0
    ) -> None:
        self.engine, self.on_change, self.retry = engine, on_change, retry
        self._stop = threading.Event()
        self._listening = threading.Event()
        self._conn: Any = None
        self._log = get_logger()
        self._thread = threading.Thread(
            target=self._run, name="memguard-denylist-listen", daemon=True
        )

    @property
    def listening(self) -> bool:
        return self._listening.is_set()

    def start(self, wait: float = 5.0) -> None:
        self._thread.start()
        self._listening.wait(wait)

    def _connect(self) -> Any:
        raw = self.engine.raw_connection()
        conn = raw.driver_connection
        raw.detach()  # this connection lives in LISTEN: never back into the pool
        if conn is None:
            raise RuntimeError("no driver connection")
        conn.autocommit = True
        channel = conn.execute(_CHANNEL_SQL).fetchone()[0]
        conn.execute(f'LISTEN "{channel}"')
        return conn

    def _run(self) -> None:
        failing = False
        while not self._stop.is_set():
            try:
                self._conn = self._connect()
                self.on_change()  # whatever was added while not listening
                self._listening.set()
                if failing:
                    self._log.info("denylist.listen_recovered")
                    failing = False
                while not self._stop.is_set():
                    woken = False
                    for _ in self._conn.notifies(timeout=1.0, stop_after=1):
                        woken = True
                    if woken:
                        self.on_change()
            except Exception as exc:
                self._listening.clear()
                if not failing:
                    self._log.warning("denylist.listen_failed", error=type(exc).__name__)
                    failing = True
                self._close()
                self._stop.wait(self.retry)
        self._listening.clear()
        self._close()

    def _close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # already broken: nothing left to release
                pass

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5.0)


def read_version(engine: Engine) -> int:
    """The counter through SQLAlchemy (tests and tools)."""
    with engine.connect() as conn:
        return int(conn.execute(select(VERSION.c.n).where(VERSION.c.id == 1)).scalar_one())
