"""Checks at open (and, for a SQLite file, before each use) that turn a ledger this code cannot
safely use into a typed error instead of alarms on every read or a crash.

- An old ledger: projection rows but no change entries (written before every state change was
  logged). Every read would alarm (no logged head to compare with); the open is refused with
  :class:`LedgerNeedsMigration`, naming the command that adopts it (``memguard ledger verify``,
  then ``memguard ledger repair --yes``, which logs one change entry per current row).
- Read-only or immutable state (SQLite): SQLite maps the WAL index (``-shm``) into memory and
  writes it even to read; if the file became immutable (``chattr +i``) or the file system
  read-only, that write kills the process with SIGBUS. The open and every later transaction
  check the file system (``statvfs`` read-only flag) and the state directory (the Linux
  immutable / append-only inode flags) and raise :class:`LedgerReadOnly`. The database files
  are never opened for it (closing a descriptor drops the process's POSIX locks on the file,
  SQLite's included); an immutable ``-shm`` in a writable directory is not seen.
  Once found, the open connections are told not to checkpoint when they close (SQLite's
  checkpoint on the last close writes the mapped index too). What is left: a change made
  between the check and SQLite's write (microseconds).
"""

from __future__ import annotations

import array
import os
import sys
import weakref
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, event, select

from memguard.errors import IntegrityError, LedgerError

__all__ = [
    "LedgerNeedsMigration",
    "LedgerReadOnly",
    "check_migrated",
    "precheck",
    "state_problem",
    "watch_sqlite_state",
]

_FS_IOC_GETFLAGS = 0x80086601  # _IOR('f', 1, long) on 64-bit Linux
_IMMUTABLE_FL = 0x00000010
_APPEND_FL = 0x00000020


class LedgerNeedsMigration(IntegrityError):
    """The ledger predates the change log: adopt it explicitly before use."""

    code = "integrity.unmigrated"


class LedgerReadOnly(LedgerError):
    """The ledger's files or directory cannot be written (read-only or immutable)."""

    code = "backend.ledger_read_only"


def check_migrated(conn: Connection, projections: dict[str, Any], change_action: str) -> None:
    """Refuse a ledger with projection rows and no change entry (see the module docstring)."""
    from memguard.ledger.tables import AuditEventRow

    events = AuditEventRow.__table__  # type: ignore[attr-defined]
    if conn.execute(select(events.c.seq).where(events.c.action == change_action).limit(1)).first():
        return
    for name, table in projections.items():
        if conn.execute(select(*table.primary_key).limit(1)).first() is not None:
            raise LedgerNeedsMigration(
                f"the ledger has rows ({name}) but no change entries: it was written before "
                "every state change was logged. Run `memguard ledger verify`, then "
                "`memguard ledger repair --yes --reason migrate` to adopt the current rows as "
                "logged history (itself logged), then open it again",
            )


def state_problem(db: Path, *, mapped_only: bool = False) -> str | None:
    """Why the SQLite ledger at ``db`` cannot be written, or ``None``: a read-only file system,
    or an immutable / append-only state directory. ``mapped_only`` is kept for callers; the
    files themselves are never opened here (see the comment below)."""
    folder = db.parent
    # Only the directory is opened: opening and closing a database, -wal or -shm file would
    # drop every POSIX lock this process's SQLite connections hold on it (fcntl semantics),
    # which lets another process reset the WAL index under them.
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        try:
            if os.statvfs(folder).f_flag & os.ST_RDONLY:
                return f"the file system of `{folder}` is read-only"
        except OSError:
            return f"`{folder}` cannot be read"
        return f"`{folder}` cannot be opened"
    try:
        return _dir_problem(fd, folder)
    finally:
        os.close(fd)


def _dir_problem(fd: int, folder: Path) -> str | None:
    """Why the state directory open as ``fd`` cannot be written, or ``None``: its file system is
    read-only, or it is immutable or append-only (Linux inode flags)."""
    try:
        if os.fstatvfs(fd).f_flag & os.ST_RDONLY:
            return f"the file system of `{folder}` is read-only"
    except OSError:
        return f"`{folder}` cannot be read"
    if sys.platform != "linux":
        return None
    import fcntl

    try:
        buf = array.array("l", [0])
        fcntl.ioctl(fd, _FS_IOC_GETFLAGS, buf, True)
    except OSError:  # the file system has no inode flags: nothing to see
        return None
    if int(buf[0]) & (_IMMUTABLE_FL | _APPEND_FL):
        return f"`{folder}` is immutable or append-only"
    return None


_WATCHED: weakref.WeakKeyDictionary[Engine, Path] = weakref.WeakKeyDictionary()
#: the open DBAPI connections of each watched engine (sqlite3 connections take no weak refs)
_OPEN: weakref.WeakKeyDictionary[Engine, dict[int, Any]] = weakref.WeakKeyDictionary()


def watch_sqlite_state(engine: Engine, db: Path) -> None:
    """Check the state before SQLite touches it: now (a typed error at open) and before every
    transaction of the ledger (:func:`precheck`). Not from a pool event: a connection the pool
    then discards would be closed, and SQLite's checkpoint on close writes the mapped WAL index
    (the very SIGBUS). Once the state is found unwritable, the open connections are told not to
    checkpoint when they close (:func:`_no_checkpoint_on_close`)."""
    _raise_if_read_only(db)
    _WATCHED[engine] = db
    opened: dict[int, Any] = {}
    _OPEN[engine] = opened

    def connected(dbapi_conn: Any, _record: Any) -> None:
        opened[id(dbapi_conn)] = dbapi_conn

    def closed(dbapi_conn: Any, _record: Any = None) -> None:
        opened.pop(id(dbapi_conn), None)

    event.listen(engine, "connect", connected)
    event.listen(engine, "close", closed)
    event.listen(engine, "close_detached", closed)


#: the state directory of each watched engine, held open: :func:`precheck` runs before every
#: ledger transaction, and asking an open descriptor (``fstatvfs``, the flags ``ioctl``) is two
#: system calls where opening the path each time was four (~40 us under load, twice a search).
#: A directory holds none of SQLite's POSIX locks, so keeping it open is safe (see above); it is
#: the directory SQLite's open files are in even if the path is later renamed.
_DIR_FD: weakref.WeakKeyDictionary[Engine, _HeldDir] = weakref.WeakKeyDictionary()


class _HeldDir:
    """An open directory descriptor, closed exactly once (a closed number may be reused by
    another file at once: closing it twice could close SQLite's own descriptor)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def close(self) -> None:
        fd, self.fd = self.fd, -1
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass


def precheck(engine: Engine) -> None:
    """Raise :class:`LedgerReadOnly` if ``engine``'s SQLite state became unwritable (checked
    before every transaction, never cached: the state can change under a running guard)."""
    db = _WATCHED.get(engine)
    if db is None:
        return
    try:
        problem = _held_problem(engine, db)
        if problem is not None:
            raise LedgerReadOnly(f"the ledger cannot be written: {problem}")
    except LedgerReadOnly:
        for conn in list(_OPEN.get(engine, {}).values()):
            _no_checkpoint_on_close(conn)
        raise


def _held_problem(engine: Engine, db: Path) -> str | None:
    """:func:`state_problem` through the held directory descriptor (opened at the first call)."""
    held = _DIR_FD.get(engine)
    if held is None:
        try:
            held = _HeldDir(os.open(db.parent, os.O_RDONLY | os.O_DIRECTORY))
        except OSError:
            return state_problem(db)  # the full check names what is wrong
        _DIR_FD[engine] = held
        weakref.finalize(engine, held.close)
        # closed with the engine's pool too (a later transaction opens it again)
        event.listen(engine, "engine_disposed", _drop_dir_fd, once=True)
    return _dir_problem(held.fd, db.parent)


def _drop_dir_fd(engine: Engine) -> None:
    held = _DIR_FD.pop(engine, None)
    if held is not None:
        held.close()


def _raise_if_read_only(db: Path, *, mapped_only: bool = False) -> None:
    problem = state_problem(db, mapped_only=mapped_only)
    if problem is not None:
        raise LedgerReadOnly(f"the ledger cannot be written: {problem}")


_NO_CKPT_ON_CLOSE = 1006  # SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE (SQLite 3.16)


def _no_checkpoint_on_close(conn: Any) -> bool:
    """Tell a sqlite3 connection not to checkpoint when it closes (the checkpoint writes the
    mapped WAL index: SIGBUS on an immutable ``-shm``). Python 3.12+: ``setconfig``; 3.11:
    ``sqlite3_db_config`` through ctypes, only on CPython with the shared libsqlite3 that the
    sqlite3 module is linked to (checked), else nothing. Whether it was done."""
    setconfig = getattr(conn, "setconfig", None)
    if setconfig is not None:
        try:
            setconfig(_NO_CKPT_ON_CLOSE, True)
            return True
        except Exception:
            return False
    try:
        return _db_config_ctypes(conn)
    except Exception:
        return False


def _db_config_ctypes(conn: Any) -> bool:
    import ctypes
    import platform
    import sqlite3

    if platform.python_implementation() != "CPython" or not isinstance(conn, sqlite3.Connection):
        return False
    maps = Path("/proc/self/maps")
    if not maps.exists() or "libsqlite3.so" not in maps.read_text():
        return False  # the module may carry its own SQLite: never hand it a foreign handle
    lib = ctypes.CDLL("libsqlite3.so.0")
    lib.sqlite3_libversion.restype = ctypes.c_char_p
    if lib.sqlite3_libversion().decode() != sqlite3.sqlite_version:
        return False
    # CPython's pysqlite_Connection: PyObject_HEAD, then ``sqlite3 *db``
    handle = ctypes.c_void_p.from_address(id(conn) + 2 * ctypes.sizeof(ctypes.c_void_p)).value
    if not handle:
        return False
    lib.sqlite3_db_filename.restype = ctypes.c_char_p
    lib.sqlite3_db_filename.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    if not lib.sqlite3_db_filename(handle, b"main"):
        return False
    now = ctypes.c_int(-1)
    rc = lib.sqlite3_db_config(
        ctypes.c_void_p(handle), ctypes.c_int(_NO_CKPT_ON_CLOSE), ctypes.c_int(1), ctypes.byref(now)
    )
    return bool(rc == 0 and now.value == 1)
