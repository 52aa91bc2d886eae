"""Several processes on one ledger: who owns a staged row, and one recovery at a time.

- ``mg_pending_owner``: written with each ``pending`` row (same transaction, memguard/ledger/
  ledger.py ``begin``) and deleted when the row is committed or aborted. It names the staging
  process (host, boot id, pid, the pid's start time) so that recovery touches only rows whose
  owner is gone: on this host (same boot), a process that no longer runs (or a reused pid); after
  a reboot of this host, every process of the old boot; on another host, a row staged longer ago
  than ``foreign_ttl`` seconds (liveness cannot be checked from here). A pending row without an
  owner row (staged by older code) counts as orphaned, as it did before; so do the calling
  process's own rows (a write of its own that failed: ``recover(older_than=...)`` skips young ones).
- ``mg_recovery_lease``: one row while a recovery runs, taken in a locked transaction (SQLite
  ``BEGIN IMMEDIATE``; PostgreSQL ``SELECT ... FOR UPDATE`` on the row, after an insert that does
  nothing if it exists). A process that finds the lease held by a live process skips its recovery
  instead of racing it: several processes starting at once all start, one of them recovers.

Neither table is a projection of the signed log (they only steer which process recovers what;
a forged owner row can only keep a pending row pending: never served, reported by ``verify``).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    and_,
    delete,
    select,
    tuple_,
)

__all__ = [
    "LEASE",
    "OWNER",
    "ProcessId",
    "alive",
    "ops_metadata",
    "orphaned",
    "this_process",
]

ops_metadata = MetaData()

OWNER = Table(
    "mg_pending_owner",
    ops_metadata,
    Column("fact_id", String(64), primary_key=True),
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("host", String(255), nullable=False),
    Column("boot_id", String(64), nullable=False),
    Column("pid", BigInteger, nullable=False),
    Column("pid_start", String(32), nullable=False),
    Column("staged_at", Float, nullable=False),
)
LEASE = Table(
    "mg_recovery_lease",
    ops_metadata,
    Column("name", String(32), primary_key=True),
    Column("host", String(255), nullable=False),
    Column("boot_id", String(64), nullable=False),
    Column("pid", BigInteger, nullable=False),
    Column("pid_start", String(32), nullable=False),
    Column("expires_at", Float, nullable=False),
)


@dataclass(frozen=True, slots=True)
class ProcessId:
    host: str
    boot_id: str
    pid: int
    pid_start: str

    def row(self) -> dict[str, Any]:
        return {"host": self.host, "boot_id": self.boot_id, "pid": self.pid,
                "pid_start": self.pid_start}  # fmt: skip


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


@cache
def _boot_id() -> str:
    return _read("/proc/sys/kernel/random/boot_id") or ""


def _pid_start(pid: int) -> str | None:
    """The pid's start time (clock ticks since boot, /proc), ``""`` where /proc is missing,
    ``None`` if no such process."""
    stat = _read(f"/proc/{pid}/stat")
    if stat is None:
        if Path("/proc/self/stat").exists():
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return ""
        return ""
    # the command name (field 2) may hold spaces and parentheses: split after its last ")"
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else ""


def this_process() -> ProcessId:
    pid = os.getpid()  # not cached: a fork is another process
    return ProcessId(socket.gethostname(), _boot_id(), pid, _pid_start(pid) or "")


def alive(owner: ProcessId, *, staged_at: float, now: float, foreign_ttl: float) -> bool:
    """Whether the process that staged a row may still be writing it."""
    me = this_process()
    if owner.host != me.host:
        return now - staged_at < foreign_ttl
    if owner.boot_id != me.boot_id:
        return False  # this host rebooted since
    start = _pid_start(owner.pid)
    return start is not None and (start == owner.pid_start or "" in (start, owner.pid_start))


def orphaned(
    conn: Connection,
    keys: Sequence[tuple[str, int]],
    *,
    now: float,
    foreign_ttl: float,
) -> set[tuple[str, int]]:
    """The ``(fact_id, version)`` keys whose staging process is gone (or unknown), and those
    this process staged (its own failed writes; its in-flight ones are the caller's to skip)."""
    owners: dict[tuple[str, int], Any] = {}
    for start in range(0, len(keys), 500):
        chunk = list(keys[start : start + 500])
        for found in conn.execute(
            select(OWNER).where(tuple_(OWNER.c.fact_id, OWNER.c.version).in_(chunk))
        ):
            owners[(found.fact_id, int(found.version))] = found
    me = this_process()
    out = set()
    for key in keys:
        row = owners.get(key)
        if row is None:
            out.add(key)
            continue
        owner = ProcessId(row.host, row.boot_id, int(row.pid), row.pid_start)
        # this process's own rows: the caller decides (``recover(older_than=...)``), as before
        if owner == me or not alive(
            owner, staged_at=float(row.staged_at), now=now, foreign_ttl=foreign_ttl
        ):
            out.add(key)
    return out


@contextmanager
def lease(
    tx: Any, dialect: str, *, name: str = "recovery", ttl: float = 600.0
) -> Iterator[bool]:
    """Hold the ``name`` lease while the block runs (yields ``True``), or yield ``False`` at once
    if a live process holds it. ``tx``: a callable returning a transaction context manager."""
    me = this_process()
    now = time.time()
    with tx() as conn:
        if dialect == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            held = conn.execute(select(LEASE).where(LEASE.c.name == name)).first()
        else:
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            conn.execute(
                pg_insert(LEASE)
                .values(name=name, expires_at=0.0, host="", boot_id="", pid=0, pid_start="")
                .on_conflict_do_nothing()
            )
            held = conn.execute(
                select(LEASE).where(LEASE.c.name == name).with_for_update()
            ).first()
        if held is not None and held.expires_at > now:
            holder = ProcessId(held.host, held.boot_id, int(held.pid), held.pid_start)
            if holder != me and alive(holder, staged_at=now, now=now, foreign_ttl=1.0):
                got = False
            else:
                got = True
        else:
            got = True
        if got:
            conn.execute(delete(LEASE).where(LEASE.c.name == name))
            conn.execute(LEASE.insert(), {"name": name, "expires_at": now + ttl, **me.row()})
    if not got:
        yield False
        return
    try:
        yield True
    finally:
        with tx() as conn:
            conn.execute(
                delete(LEASE).where(
                    and_(LEASE.c.name == name, LEASE.c.pid == me.pid, LEASE.c.host == me.host)
                )
            )
