"""The backend's half of a write: the port through which the kernel runs an adapter's store I/O.

The kernel owns the protocol (stage -> store -> commit, abort, recovery); an adapter owns only its
backend's call shapes. It hands :meth:`~memguard.kernel.Operation.persist` a :class:`WritePort`:

- ``put(records)`` stores the stamped facts (their reserved blocks built from ``records``);
- ``probe(fact_ids)`` reads back what the backend holds for those ids, as
  :class:`~memguard.integrity.Candidate`\\ s, so the kernel can tell a write that landed from one
  that did not when the ledger failed after the store (in-process recovery);
- ``purge(fact_ids)`` removes them (the second half of a delete).

Each method returns a *flow*: a generator that yields the adapter's own backend calls and returns
the result, so one kernel implementation serves sync and async shells alike (the adapter's driver
runs the calls; see ``adapters/qdrant``). A backend without a driver returns a flow that yields
nothing (:func:`done`), and :meth:`~memguard.kernel.Operation.persist` runs it directly.

:class:`MemoryPort` is the in-memory fake (a dict of payloads with switches to make each step fail),
in the way httpx ships ``MockTransport``; :class:`StorePort` serves a
:class:`~memguard.stores.base.MemoryStore`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from memguard.integrity import Candidate, candidate_problem, payload_candidate
from memguard.ledger.ledger import FactState, LedgerRecord
from memguard.provenance import Provenance

__all__ = [
    "Flow",
    "FlowPort",
    "MemoryPort",
    "StorePort",
    "WritePort",
    "done",
    "holds",
    "run_flow",
]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

#: a sans-I/O step sequence: yields backend calls, receives their results, returns a value
Flow = Generator[Any, Any, T]


class WritePort(Protocol[T_co]):
    """What an adapter gives the kernel for one write or delete (see the module docstring)."""

    def put(self, records: Sequence[Provenance]) -> Flow[T_co]: ...

    def probe(self, fact_ids: Sequence[str]) -> Flow[Sequence[Candidate]]: ...


def done(value: T) -> Flow[T]:
    """A flow that yields no backend call and returns ``value`` (a port without a driver)."""
    return value
    yield  # pragma: no cover - makes this a generator


def run_flow(flow: Flow[T]) -> T:
    """Run a flow that must not yield (a sync port's); one that does is a programming error."""
    try:
        step = next(flow)
    except StopIteration as stop:
        out: T = stop.value
        return out
    flow.close()
    raise TypeError(f"a direct port yielded a backend call ({type(step).__name__}); use a driver")


def holds(candidate: Candidate, prov: Provenance) -> bool:
    """Does the backend's copy carry exactly this staged version (content, record, indexed fields)?
    The same check a read makes (:func:`~memguard.integrity.candidate_problem`)."""
    if candidate.fact_id != prov.fact_id:
        return False
    reserved = candidate.reserved
    if not isinstance(reserved, Mapping) or reserved.get("version") != prov.version:
        return False  # a backend without the reserved block cannot prove which version it holds
    staged = LedgerRecord(
        prov.fact_id, prov.version, FactState.PENDING, prov.record_digest, prov.content_digest,
        "", False,
    )  # fmt: skip
    return candidate_problem(candidate, staged, prov) is None


@dataclass(frozen=True, slots=True)
class FlowPort(Generic[T]):
    """A port from two callables (the usual adapter shape: closures over its call arguments)."""

    put_flow: Callable[[Sequence[Provenance]], Flow[T]]
    probe_flow: Callable[[Sequence[str]], Flow[Sequence[Candidate]]]

    def put(self, records: Sequence[Provenance]) -> Flow[T]:
        return self.put_flow(records)

    def probe(self, fact_ids: Sequence[str]) -> Flow[Sequence[Candidate]]:
        return self.probe_flow(fact_ids)


class StorePort:
    """A :class:`~memguard.stores.base.MemoryStore` as a port: ``build(records)`` makes the points."""

    def __init__(self, store: Any, build: Callable[[Sequence[Provenance]], Sequence[Any]]) -> None:
        self._store = store
        self._build = build

    def put(self, records: Sequence[Provenance]) -> Flow[None]:
        self._store.upsert(list(self._build(records)))
        return done(None)

    def probe(self, fact_ids: Sequence[str]) -> Flow[Sequence[Candidate]]:
        points = self._store.retrieve(list(fact_ids))
        return done([payload_candidate(p.fact_id, p.payload) for p in points])


@dataclass
class MemoryPort:
    """The in-memory fake: payloads by fact id, built by ``build(prov)``; each ``fail_*`` switch
    makes the next call of that step raise ``ConnectionError`` (then resets)."""

    build: Callable[[Provenance], dict[str, Any]]
    points: dict[str, dict[str, Any]] = field(default_factory=dict)
    fail_put: bool = False
    fail_probe: bool = False
    #: the put stores the points, then raises (the write landed, the answer was lost)
    fail_after_put: bool = False
    calls: list[str] = field(default_factory=list)

    def put(self, records: Sequence[Provenance]) -> Flow[int]:
        self.calls.append("put")
        if self.fail_put:
            self.fail_put = False
            raise ConnectionError("backend down")
        for prov in records:
            self.points[prov.fact_id] = self.build(prov)
        if self.fail_after_put:
            self.fail_after_put = False
            raise ConnectionError("backend answer lost")
        return done(len(records))

    def probe(self, fact_ids: Sequence[str]) -> Flow[Sequence[Candidate]]:
        self.calls.append("probe")
        if self.fail_probe:
            self.fail_probe = False
            raise ConnectionError("backend down")
        return done([payload_candidate(f, self.points[f]) for f in fact_ids if f in self.points])

    def purge(self, fact_ids: Sequence[str]) -> Flow[None]:
        self.calls.append("purge")
        for fact_id in fact_ids:
            self.points.pop(fact_id, None)
        return done(None)
