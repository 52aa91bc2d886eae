"""The database engine a ledger URL names: SQLite (a file, WAL, ``synchronous=FULL``) or PostgreSQL.

Kept apart from :class:`~memguard.ledger.Ledger` so that the one place that decides how a ledger
connects (pragmas, pool order, the read-only watch, the default witness directory) reads on its
own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

from memguard.errors import ConfigurationError
from memguard.ledger.opening import watch_sqlite_state
from memguard.ledger.witness import CheckpointWitness, WitnessDir

__all__ = ["engine_for"]


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    # FULL: a committed transaction survives power loss, not only a process crash.
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


def engine_for(
    url: str, witness: CheckpointWitness | str | None
) -> tuple[Engine, CheckpointWitness | None]:
    """The engine for ``url`` and the witness to use (``"default"``: a SQLite ledger's
    ``witness/`` directory next to its file, none for PostgreSQL)."""
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise ConfigurationError("invalid ledger url") from exc
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        database = parsed.database or ""
        if database in ("", ":memory:"):
            raise ConfigurationError(
                "the ledger needs a file: an in-memory SQLite ledger loses writes"
            )
        Path(database).parent.mkdir(parents=True, exist_ok=True)
        if witness == "default":
            witness = WitnessDir(Path(database).parent / "witness")
        # LIFO: a thread's reads and events share one connection (readcache.py: data_version)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 10}, pool_use_lifo=True
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        watch_sqlite_state(engine, Path(database))  # read-only: a typed error, not SIGBUS
    elif backend == "postgresql":
        engine = create_engine(url, pool_pre_ping=True)
    else:
        raise ConfigurationError(f"unsupported ledger backend `{backend}`")
    return engine, None if isinstance(witness, str) else witness
