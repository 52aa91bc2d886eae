"""What memguard knows of its SSF streams, in a table of the ledger's database: one row per
transmitter with the stream id, delivery, the status the transmitter last reported, and the
verification memguard is waiting for.

The ``memguard ssf stream`` commands (memguard.gateway.ssf_cli) write it when they create, read or
verify a stream; the receiver (memguard.gateway.ssf) writes it when a stream event arrives:

- SSF 1.0 8.1.4 verification SET: matched by the digest of its ``state`` against the one the
  command asked for (compare-and-set, so a state is matched once); an unsolicited or stale one
  ("a Transmitter MAY send a Verification Event at any time") is recorded and changes nothing;
- SSF 1.0 8.1.5 stream-updated SET: the status and reason, with the time.

Only digests of ``state`` are kept (DESIGN.md: events hold digests).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import (
    BigInteger,
    Column,
    Engine,
    MetaData,
    String,
    Table,
    create_engine,
    delete,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError

from memguard.errors import LedgerError

__all__ = ["STREAMS", "StreamRecord", "StreamStates"]

_META = MetaData()
STREAMS = Table(
    "memguard_ssf_stream",
    _META,
    Column("transmitter", String(1024), primary_key=True),
    Column("stream_id", String(1024), nullable=False),
    Column("delivery_method", String(64), nullable=False),
    Column("endpoint_url", String(2048), nullable=True),
    Column("audience", String(2048), nullable=True),
    Column("status", String(16), nullable=True),
    Column("reason", String(256), nullable=True),
    Column("status_at", BigInteger, nullable=True),
    Column("verify_digest", String(80), nullable=True),
    Column("verify_requested_at", BigInteger, nullable=True),
    Column("verified_at", BigInteger, nullable=True),
)


@dataclass(frozen=True)
class StreamRecord:
    transmitter: str
    stream_id: str
    delivery_method: str
    endpoint_url: str | None
    audience: str | None
    status: str | None
    reason: str | None
    status_at: int | None
    verify_requested_at: int | None
    verified_at: int | None

    def summary(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


class StreamStates:
    """The stream table; every failure is a :class:`~memguard.errors.LedgerError`."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
        try:
            _META.create_all(engine, tables=[STREAMS], checkfirst=True)
        except SQLAlchemyError as exc:
            raise LedgerError(f"cannot create the stream table: {type(exc).__name__}") from exc

    @classmethod
    def from_url(cls, url: str) -> StreamStates:
        return cls(create_engine(url, pool_pre_ping=True))

    def close(self) -> None:
        self.engine.dispose()

    def _run(self, stmt: object) -> int:
        try:
            with self.engine.begin() as conn:
                return int(conn.execute(stmt).rowcount)  # type: ignore[call-overload]
        except SQLAlchemyError as exc:
            raise LedgerError(f"stream table unavailable: {type(exc).__name__}") from exc

    def get(self, transmitter: str) -> StreamRecord | None:
        try:
            with self.engine.connect() as conn:
                row = conn.execute(
                    select(STREAMS).where(STREAMS.c.transmitter == transmitter)
                ).first()
        except SQLAlchemyError as exc:
            raise LedgerError(f"stream table unavailable: {type(exc).__name__}") from exc
        if row is None:
            return None
        return StreamRecord(
            row.transmitter,
            row.stream_id,
            row.delivery_method,
            row.endpoint_url,
            row.audience,
            row.status,
            row.reason,
            row.status_at,
            row.verify_requested_at,
            row.verified_at,
        )

    def save(
        self,
        transmitter: str,
        stream_id: str,
        *,
        delivery_method: str,
        endpoint_url: str | None,
        audience: str | None,
    ) -> None:
        """The stream memguard created or read (a new stream id resets status and verification)."""
        values = {
            "stream_id": stream_id,
            "delivery_method": delivery_method,
            "endpoint_url": endpoint_url,
            "audience": audience,
        }
        stmt = self._dialect.insert(STREAMS).values(transmitter=transmitter, **values)
        old = self.get(transmitter)
        if old is not None and old.stream_id != stream_id:
            values.update(
                status=None,
                reason=None,
                status_at=None,
                verify_digest=None,
                verify_requested_at=None,
                verified_at=None,
            )
        self._run(stmt.on_conflict_do_update(index_elements=["transmitter"], set_=values))

    def forget(self, transmitter: str) -> None:
        self._run(delete(STREAMS).where(STREAMS.c.transmitter == transmitter))

    def set_status(
        self, transmitter: str, stream_id: str | None, status: str, reason: str | None, at: int
    ) -> bool:
        """The status the transmitter reported; False if it names a stream that is not ours."""
        where = STREAMS.c.transmitter == transmitter
        if stream_id is not None:
            where = where & (STREAMS.c.stream_id == stream_id)
        return (
            self._run(
                update(STREAMS).where(where).values(status=status, reason=reason, status_at=at)
            )
            == 1
        )

    def expect_verification(
        self, transmitter: str, stream_id: str, state_digest: str, at: int
    ) -> None:
        n = self._run(
            update(STREAMS)
            .where((STREAMS.c.transmitter == transmitter) & (STREAMS.c.stream_id == stream_id))
            .values(verify_digest=state_digest, verify_requested_at=at)
        )
        if n != 1:
            raise LedgerError(
                "no such stream recorded; create or read it first", code="ssf.stream_unknown"
            )

    def verification_arrived(
        self, transmitter: str, stream_id: str | None, state_digest: str, at: int
    ) -> bool:
        """Did memguard ask for this one? Matched at most once (compare-and-set)."""
        where = (STREAMS.c.transmitter == transmitter) & (STREAMS.c.verify_digest == state_digest)
        if stream_id is not None:
            where = where & (STREAMS.c.stream_id == stream_id)
        return (
            self._run(update(STREAMS).where(where).values(verify_digest=None, verified_at=at)) == 1
        )

    def pending_verification(self, transmitter: str, stream_id: str) -> bool:
        """Is a requested verification still unmatched (its digest is cleared only by the
        matching event)?"""
        try:
            with self.engine.connect() as conn:
                pending = conn.execute(
                    select(STREAMS.c.verify_digest).where(
                        (STREAMS.c.transmitter == transmitter) & (STREAMS.c.stream_id == stream_id)
                    )
                ).scalar()
        except SQLAlchemyError as exc:
            raise LedgerError(f"stream table unavailable: {type(exc).__name__}") from exc
        return pending is not None
