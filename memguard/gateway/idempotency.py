"""``Idempotency-Key`` on writes: a retried write is stored once and answered with the first result.

(draft-ietf-httpapi-idempotency-key-header.) A client sends the same key with every try of one
write (``POST /v1/facts``, ``POST /v1/facts/batch``, ``PUT /v1/facts/{id}``,
``DELETE /v1/facts/{id}``). Keys are per principal: the same key from another principal is another
key. The gateway keeps, per (principal, key), a digest of the request and the fact versions the
write stamped, in a table of the ledger database (``mg_idempotency``):

* a key not seen: the write runs; when it has stamped its facts, and before anything is staged,
  the reservation is inserted (a concurrent try with the same key loses the insert and is refused
  with 409 ``idempotency.in_progress``, ``Retry-After``);
* the same key and the same request: the facts it named decide, read from the ledger itself --
  all committed: the first answer again (same status, same body, ``Idempotent-Replayed: true``);
  still pending and younger than ``idempotency.lease``: 409 ``idempotency.in_progress``; pending
  and older (a worker died mid-write): recovery reconciles them with the store first; aborted or
  never staged: the write runs again (it was not stored);
* the same key with another request: 409 ``idempotency.key_reused``.

Every answer says whether this gateway honours the key (``Idempotency-Key-Honored: true``, or
``false`` with ``idempotency.enabled: false``: a write sent again then runs again), so a client
repeats a write whose answer it lost only when the gateway said it would store it once
(:class:`HonoredHeader`; the client: memguard/client/retry.py).

Why the ledger database and not Redis: the answer is rebuilt from the ledger rows the write
committed, in the same database, so the record can never say "done" for a write the ledger lacks
(or the reverse), it survives a restart, and every worker and host sharing the ledger sees it.
The key is recorded in the write's audit event (``detail.idempotency_key``).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Column,
    Engine,
    Float,
    MetaData,
    String,
    Table,
    Text,
    and_,
    delete,
    insert,
    inspect,
    select,
)
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from memguard.errors import LedgerError
from memguard.gateway.errors import GatewayError
from memguard.gateway.limits import principal_key
from memguard.ledger import FactState
from memguard.provenance import canonical_json, sha256_digest
from memguard.telemetry import metrics

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from memguard.events import AuditEvent
    from memguard.gateway.stack import GatewayStack
    from memguard.identity import Identity
    from memguard.kernel import Operation
    from memguard.ledger import Ledger
    from memguard.provenance import Provenance

__all__ = [
    "HEADER",
    "HONORED_HEADER",
    "HonoredHeader",
    "Idempotency",
    "IdempotentReplay",
    "KeyedWrite",
    "create_table",
]

HEADER = "Idempotency-Key"
#: on every answer: ``true`` if this gateway honours ``Idempotency-Key`` on writes, else ``false``
HONORED_HEADER = "Idempotency-Key-Honored"
_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
_WRITE_ROUTES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("POST", re.compile(r"^/v1/facts$")),
    ("POST", re.compile(r"^/v1/facts/batch$")),
    ("PUT", re.compile(r"^/v1/facts/[^/]+$")),
    ("DELETE", re.compile(r"^/v1/facts/[^/]+$")),
)
_METADATA = MetaData()
TABLE = Table(
    "mg_idempotency",
    _METADATA,
    Column("principal", String(64), primary_key=True),
    Column("idem_key", String(255), primary_key=True),
    Column("request_digest", String(80), nullable=False),
    Column("method", String(8), nullable=False),
    Column("refs", Text, nullable=False),
    Column("created_at", Float, nullable=False, index=True),
)


def create_table(engine: Engine) -> None:
    """Create ``mg_idempotency`` if it is missing (workers starting together may race: the one
    that loses finds the table there)."""
    try:
        _METADATA.create_all(engine, tables=[TABLE], checkfirst=True)
    except SQLAlchemyError as exc:
        try:
            if inspect(engine).has_table(TABLE.name):
                return
        except SQLAlchemyError:
            pass
        raise LedgerError(f"cannot create the idempotency table: {type(exc).__name__}") from exc


class IdempotentReplay(Exception):
    """Raised to answer a retried write with its first result (turned into the response)."""

    def __init__(self, status: int, body: object | None) -> None:
        super().__init__("replayed")
        self.status = status
        self.body = body


@dataclass
class KeyedWrite:
    """One write request that carries a key: what its reservation needs once it has stamped."""

    store: Idempotency
    principal: str
    key: str
    digest: str
    method: str
    reserved: bool = False

    # -- RequestObserver (memguard/telemetry/hooks.py) ---------------------------------------------

    def on_start(self, op: Operation) -> None:
        if op.action in ("write", "update", "delete"):
            op.detail["idempotency_key"] = self.key  # in the write's audit event

    def on_decision(self, event: AuditEvent) -> None:
        pass

    def on_stamped(self, op: Operation, records: Sequence[Provenance]) -> None:
        if self.reserved:
            return
        refs = [[p.fact_id, p.version] for p in records]
        if not self.store.reserve(self, refs):
            metrics.record("memguard.idempotency", 1.0, "in_progress")
            raise _in_progress()
        self.reserved = True


class HonoredHeader:
    """ASGI middleware: every HTTP answer carries ``Idempotency-Key-Honored`` (``true`` when the
    gateway runs with idempotency records, else ``false``), refusals of the outer layers too."""

    def __init__(self, app: ASGIApp, *, honored: bool) -> None:
        self.app = app
        self.header = (HONORED_HEADER.lower().encode(), b"true" if honored else b"false")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_said(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", ()), self.header]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_said)


def _in_progress() -> GatewayError:
    return GatewayError(
        "a request with this idempotency key is in progress; retry later",
        code="idempotency.in_progress",
        status=409,
        headers={"Retry-After": "1"},
    )


class Idempotency:
    """The gateway's idempotency records (one table in the ledger database)."""

    def __init__(
        self, stack: GatewayStack, *, lease: float, retention: float, clock: Any = time.time
    ) -> None:
        self.stack = stack
        self.lease = lease
        self.retention = retention
        self.clock = clock
        create_table(self.ledger.engine)

    @property
    def ledger(self) -> Ledger:
        return self.stack.guard.ledger

    @staticmethod
    def applies(method: str, path: str) -> bool:
        return any(method == m and p.match(path) for m, p in _WRITE_ROUTES)

    def install(self, app: Starlette) -> None:
        """Answer :class:`IdempotentReplay` with the first result."""
        from starlette.responses import JSONResponse, Response

        async def replay(request: Request, exc: Exception) -> Response:
            assert isinstance(exc, IdempotentReplay)
            headers = {"Idempotent-Replayed": "true", "Cache-Control": "no-store"}
            if exc.body is None:
                return Response(status_code=exc.status, headers=headers)
            return JSONResponse(exc.body, status_code=exc.status, headers=headers)

        app.add_exception_handler(IdempotentReplay, replay)

    async def admit_request(self, request: Request, identity: Identity) -> None:
        """The request's ``Idempotency-Key`` (if a write carries one) joins its operations."""
        from memguard.gateway.observability import RequestRecord
        from memguard.telemetry import hooks

        key = request.headers.get(HEADER)
        if key is None or not self.applies(request.method, request.url.path):
            return
        write = await self.admit(
            request.method, request.url.path, key, await request.body(), identity
        )
        record = hooks.current_observer()
        if write is not None and isinstance(record, RequestRecord):
            record.write = write
            record.extra["idempotency_key"] = key

    # -- the request side ---------------------------------------------------------------------

    async def admit(
        self, method: str, path: str, key: str | None, body: bytes, identity: Identity
    ) -> KeyedWrite | None:
        """Before a write runs: ``None`` (no key), a :class:`KeyedWrite` to run it with, or an
        exception: :class:`IdempotentReplay` (answer again) or a 409 / 400 refusal."""
        if key is None or not self.applies(method, path):
            return None
        if not _KEY.match(key):
            raise GatewayError(
                "`Idempotency-Key` must be 1 to 255 visible ASCII characters",
                code="idempotency.invalid_key",
                status=400,
            )
        try:
            normal = canonical_json(json.loads(body)) if body else b""
        except (ValueError, TypeError):
            normal = body
        digest = sha256_digest(method.encode() + b" " + path.encode() + b"\n" + normal)
        principal = sha256_digest(principal_key(identity).encode("utf-8", "surrogatepass"))[7:71]
        write = KeyedWrite(self, principal, key, digest, method)
        await asyncio.to_thread(self._resolve, write, path)
        metrics.record("memguard.idempotency", 1.0, "first")
        return write

    def _resolve(self, write: KeyedWrite, path: str) -> None:
        """Decide a key that has been seen before (or return to run the write)."""
        for _attempt in range(2):
            row = self._row(write.principal, write.key)
            if row is None:
                break
            if row.request_digest != write.digest:
                metrics.record("memguard.idempotency", 1.0, "conflict")
                raise GatewayError(
                    "this idempotency key was used for another request",
                    code="idempotency.key_reused",
                    status=409,
                )
            refs: list[list[Any]] = json.loads(row.refs)
            outcome = self._outcome(write.method, refs)
            if outcome == "done":
                metrics.record("memguard.idempotency", 1.0, "replayed")
                raise self._replay(write.method, path, refs)
            if outcome == "failed":
                self._forget(write.principal, write.key, row.created_at)
                break
            if self.clock() - row.created_at < self.lease or (outcome == "pending" and _attempt):
                metrics.record("memguard.idempotency", 1.0, "in_progress")
                raise _in_progress()
            if outcome == "unstaged":  # its worker died before staging anything
                self._forget(write.principal, write.key, row.created_at)
                break
            # a worker died with the write pending: reconcile the ledger with the store, look again
            # (with `store.per_worker_local`, against this worker's store only: a point only the
            # dead worker's store held is then aborted and written again, never served twice)
            try:
                self.stack.guard.recover(older_than=self.lease)
            except Exception:
                pass  # another process may be recovering the same rows; look again below
        if write.method == "DELETE":  # no stamp: the reservation names the fact now
            if not self.reserve(write, [[path.rsplit("/", 1)[-1], None]]):
                raise _in_progress()
            write.reserved = True
        self._purge()

    def _outcome(self, method: str, refs: list[list[Any]]) -> str:
        """``done`` (every named version stored), ``failed`` (aborted), ``pending`` (staged, not
        committed) or ``unstaged`` (reserved, nothing staged)."""
        states: list[FactState | None] = []
        for fact_id, version in refs:
            versions = {r.version: r for r in self.ledger.versions(str(fact_id))}
            if method == "DELETE":
                latest = max(versions) if versions else None
                states.append(versions[latest].state if latest is not None else None)
                continue
            record = versions.get(int(version))
            states.append(record.state if record is not None else None)
        if method == "DELETE":
            return "done" if states and all(s is FactState.DELETED for s in states) else "failed"
        stored = (FactState.COMMITTED, FactState.SUPERSEDED, FactState.DELETED)
        if states and all(s in stored for s in states):
            return "done"
        if any(s is FactState.ABORTED for s in states):
            return "failed"  # aborted: it was not stored
        if any(s is FactState.PENDING for s in states):
            return "pending"
        return "unstaged"  # reserved, not staged yet: in progress (a dead worker's, once stale)

    def _replay(self, method: str, path: str, refs: list[list[Any]]) -> IdempotentReplay:
        from memguard.gateway.schemas import BatchWriteOut, WriteOut

        if method == "DELETE":
            return IdempotentReplay(204, None)
        provs = []
        for fact_id, version in refs:
            record = next(r for r in self.ledger.versions(str(fact_id)) if r.version == version)
            provs.append(record.provenance)
        if path.endswith("/batch"):
            body = BatchWriteOut(facts=[WriteOut.of(p) for p in provs]).model_dump(mode="json")
            return IdempotentReplay(201, body)
        return IdempotentReplay(
            201 if method == "POST" else 200, WriteOut.of(provs[0]).model_dump(mode="json")
        )

    # -- the table ---------------------------------------------------------------------------

    def _row(self, principal: str, key: str) -> Any:
        with self.ledger.engine.connect() as conn:
            return conn.execute(
                select(TABLE).where(and_(TABLE.c.principal == principal, TABLE.c.idem_key == key))
            ).first()

    def reserve(self, write: KeyedWrite, refs: list[list[Any]]) -> bool:
        """Insert the reservation; ``False`` if another request holds the key."""
        try:
            with self.ledger.engine.begin() as conn:
                conn.execute(
                    insert(TABLE).values(
                        principal=write.principal,
                        idem_key=write.key,
                        request_digest=write.digest,
                        method=write.method,
                        refs=json.dumps(refs),
                        created_at=self.clock(),
                    )
                )
        except IntegrityError:
            return False
        except SQLAlchemyError as exc:
            raise LedgerError("idempotency record unavailable") from exc
        return True

    def _forget(self, principal: str, key: str, created_at: float) -> None:
        with self.ledger.engine.begin() as conn:
            conn.execute(
                delete(TABLE).where(
                    and_(
                        TABLE.c.principal == principal,
                        TABLE.c.idem_key == key,
                        TABLE.c.created_at == created_at,
                    )
                )
            )

    def _purge(self) -> None:
        """Now and then, drop keys older than the retention."""
        if random.random() >= 0.01:
            return
        try:
            with self.ledger.engine.begin() as conn:
                conn.execute(
                    delete(TABLE).where(TABLE.c.created_at < self.clock() - self.retention)
                )
        except SQLAlchemyError:
            pass
