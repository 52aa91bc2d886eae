"""The same ``sub`` at two issuers is two tenants, on every path (issue 12).

alice at ``login-a`` and alice at ``login-b`` each write through their own token and through their
planner agent (whose token the token service exchanged: ``iss`` = the token service, ``sub_id`` =
her issuer). On every path -- the Python API, each adapter (Qdrant, LangGraph, mem0, SQL), HTTP and
MCP -- the scenario plants, searches, gets, lists, audits, updates, deletes, derives, revokes and
endorses, and checks that nothing crosses between the two, while each alice still reaches her own
facts through her own agent (the agent reads, derives from and updates what she wrote herself).
"""

from __future__ import annotations

import abc
import os
import tempfile

# mem0 reads these when it is imported: no telemetry, and its config file in a scratch folder
os.environ["MEM0_TELEMETRY"] = "False"
os.environ.setdefault("MEM0_DIR", tempfile.mkdtemp(prefix="memguard-mem0-"))
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
from helpers import PLANNER, Clock
from identity_helpers import LOGIN_A, LOGIN_B, USER_SCOPES, TwoIssuers, two_issuers

from memguard import (
    FactNotFound,
    Ledger,
    MemguardError,
    MemoryGuard,
    QdrantStore,
    RevocationSelector,
    Source,
    SourceKind,
    Turn,
)
from memguard.context import CallContext
from memguard.identity import Identity
from memguard.kernel import Kernel
from memguard.scope import ReadRequest

ISSUERS = (LOGIN_A, LOGIN_B)
Who = Any  # an Identity in process; (token, presenter credential) over HTTP and MCP
Handle = Any  # a path's own name for a fact: a fact id, (collection, point id), (ns, key), ...


#: updates run in a turn of their own: a write in a turn that read other facts is tainted by them
#: (a ``context`` lineage edge), and the scenario's revocation must reach the revoked fact only
UPDATE_TURN = 7


def context(turn: int = 0, derived_from: Sequence[str] = ()) -> CallContext:
    return CallContext(source=Source(kind=SourceKind.USER_MESSAGE, name="chat"),
                       turn=Turn(session_id="s-tenant", turn_index=turn),
                       derived_from=tuple(derived_from))


class TenantPath(abc.ABC):
    """One way into memguard, with the ten operations the scenario needs."""

    #: operations this path does not offer at all (MCP has no update tool, ...), with why
    missing: ClassVar[dict[str, str]] = {}

    @abc.abstractmethod
    def user(self, issuer: str) -> Who: ...

    @abc.abstractmethod
    def agent(self, issuer: str) -> Who: ...

    @abc.abstractmethod
    def plant(self, who: Who, key: str, text: str, derived_from: Sequence[str] = ()) -> Handle: ...

    @abc.abstractmethod
    def fact_id(self, handle: Handle) -> str: ...

    @abc.abstractmethod
    def search(self, who: Who) -> set[str]: ...

    @abc.abstractmethod
    def listing(self, who: Who) -> set[str]: ...

    @abc.abstractmethod
    def text(self, who: Who, handle: Handle) -> str | None:
        """The fact's text as ``who`` reads it, ``None`` when not visible."""

    @abc.abstractmethod
    def audit(self, who: Who, handle: Handle) -> None: ...

    @abc.abstractmethod
    def update(self, who: Who, handle: Handle, text: str) -> None: ...

    @abc.abstractmethod
    def delete(self, who: Who, handle: Handle) -> None: ...

    @abc.abstractmethod
    def revoke(self, who: Who, handle: Handle) -> None: ...

    @abc.abstractmethod
    def endorse(self, who: Who, handle: Handle) -> None: ...


def refused(action: Callable[[], object]) -> bool:
    """True if memguard refused the call (the effect is checked separately)."""
    try:
        action()
    except MemguardError:
        return True
    except (httpx.HTTPStatusError, RuntimeError) as exc:
        return "refused" in str(exc)
    return False


def run_scenario(path: TenantPath) -> None:
    users = {iss: path.user(iss) for iss in ISSUERS}
    agents = {iss: path.agent(iss) for iss in ISSUERS}
    facts: dict[str, list[Handle]] = {}
    texts: dict[str, str] = {}
    for n, iss in enumerate(ISSUERS):  # plant: alice herself, and her agent
        mine = [path.plant(users[iss], f"note-{n}", f"alice {n} own note"),
                path.plant(agents[iss], f"plan-{n}", f"alice {n} plan from her agent")]
        facts[iss] = mine
        texts.update({path.fact_id(mine[0]): f"alice {n} own note",
                      path.fact_id(mine[1]): f"alice {n} plan from her agent"})
    if "derive" not in path.missing:
        for n, iss in enumerate(ISSUERS):  # derive: the agent summarizes what alice wrote herself
            derived = path.plant(agents[iss], f"summary-{n}", f"alice {n} summary",
                                 derived_from=[path.fact_id(facts[iss][0])])
            facts[iss].append(derived)
            texts[path.fact_id(derived)] = f"alice {n} summary"
    ids = {iss: {path.fact_id(h) for h in facts[iss]} for iss in ISSUERS}
    assert not ids[LOGIN_A] & ids[LOGIN_B]

    for iss, other in ((LOGIN_A, LOGIN_B), (LOGIN_B, LOGIN_A)):
        for who in (users[iss], agents[iss]):
            assert path.search(who) == ids[iss], f"search as {iss}"
            if "list" not in path.missing:
                assert path.listing(who) == ids[iss], f"list as {iss}"
            for h in facts[iss]:  # her own facts, through herself and through her agent
                assert path.text(who, h) == texts[path.fact_id(h)]
            for h in facts[other]:  # nothing of the other alice, by any operation
                assert path.text(who, h) is None
                assert refused(lambda h=h, who=who: path.audit(who, h))
                if "update" not in path.missing:
                    path_refuses_or_ignores(lambda h=h, who=who: path.update(who, h, "taken over"))
                path_refuses_or_ignores(lambda h=h, who=who: path.delete(who, h))
                if "endorse" not in path.missing:
                    assert refused(lambda h=h, who=who: path.endorse(who, h))
                if "revoke" not in path.missing:
                    path_refuses_or_ignores(lambda h=h, who=who: path.revoke(who, h))
            if "derive" not in path.missing:
                assert refused(lambda who=who, other=other: path.plant(
                    who, "stolen", "a summary of the other alice",
                    derived_from=[path.fact_id(facts[other][0])]))
        path.audit(users[iss], facts[iss][0])
        path.audit(agents[iss], facts[iss][0])
    # the cross attempts changed nothing: every fact reads as it was written, by its owner
    for iss in ISSUERS:
        for h in facts[iss]:
            assert path.text(users[iss], h) == texts[path.fact_id(h)]
        assert path.search(users[iss]) == ids[iss]

    a_note, a_plan = facts[LOGIN_A][0], facts[LOGIN_A][1]
    if "update" not in path.missing:  # her agent updates the note she wrote herself
        path.update(agents[LOGIN_A], a_note, "alice 0 note, updated by her agent")
        assert path.text(users[LOGIN_A], a_note) == "alice 0 note, updated by her agent"
    if "revoke" not in path.missing:  # she revokes and endorses her agent's plan
        path.revoke(users[LOGIN_A], a_plan)
        assert path.text(users[LOGIN_A], a_plan) is None
        assert path.text(users[LOGIN_B], facts[LOGIN_B][1]) == texts[path.fact_id(facts[LOGIN_B][1])]
        path.endorse(users[LOGIN_A], a_plan)
        assert path.text(agents[LOGIN_A], a_plan) == texts[path.fact_id(a_plan)]
    path.delete(agents[LOGIN_A], a_plan)  # her agent deletes its own plan
    assert path.text(users[LOGIN_A], a_plan) is None
    assert path.search(users[LOGIN_B]) == ids[LOGIN_B]
    assert path.search(users[LOGIN_A]) == ids[LOGIN_A] - {path.fact_id(a_plan)}


def path_refuses_or_ignores(action: Callable[[], object]) -> None:
    """A cross-tenant change is refused or reaches nothing; the effect is checked afterwards."""
    refused(action)


# -- the Python API and the adapters (in process) ---------------------------------------------------


class InProcess(TenantPath):
    def __init__(self, world: TwoIssuers, kernel: Kernel) -> None:
        self.world = world
        self.kernel = kernel

    def user(self, issuer: str) -> Identity:
        identity = self.kernel.authenticate(self.world.user_token(issuer))
        assert (identity.principal.subject.issuer, identity.principal.depth) == (issuer, 0)
        return identity

    def agent(self, issuer: str) -> Identity:
        identity = self.kernel.authenticate(self.world.agent_token(issuer),
                                            workload_credential=self.world.presenter())
        p = identity.principal
        assert (p.subject.issuer, p.subject.subject) == (issuer, "alice")  # sub_id, mapped back
        assert [a.subject for a in p.actors] == [PLANNER]
        return identity

    def revoke(self, who: Identity, handle: Handle) -> None:
        self.kernel.revoke(who, RevocationSelector.fact(self.fact_id(handle)), reason="test")

    def endorse(self, who: Identity, handle: Handle) -> None:
        self.kernel.endorse(who, [self.fact_id(handle)], reason="checked")

    def audit(self, who: Identity, handle: Handle) -> None:
        """The audit decision of the kernel (MemoryGuard.audit adds the store report)."""
        fid = self.fact_id(handle)
        with self.kernel.operation("audit", who, fact_ids=[fid]) as op:
            plan = op.read_plan(ReadRequest("audit"))
            record = self.kernel.ledger.latest([fid]).get(fid)
            if record is None or not op.admits(plan, ReadRequest("audit"), record):
                raise FactNotFound("fact not found")


class ApiPath(InProcess):
    """``MemoryGuard`` over Qdrant local mode with one partition per (issuer, subject)."""

    def __init__(self, world: TwoIssuers, tmp: Path) -> None:
        self.guard = MemoryGuard(store=QdrantStore(location=":memory:", partition_by_owner=True),
                                 ledger=Ledger.sqlite(tmp / "api.db"), verifier=world.verifier(),
                                 clock=world.clock)
        super().__init__(world, self.guard.kernel)

    def plant(self, who: Identity, key: str, text: str, derived_from: Sequence[str] = ()) -> str:
        return self.guard.write(who, text, namespace="notes", source=context().source,
                                turn=context().turn, derived_from=derived_from).fact_id

    def fact_id(self, handle: str) -> str:
        return handle

    def search(self, who: Identity) -> set[str]:
        return {h.fact_id for h in self.guard.search(who, "alice note plan summary", k=100)}

    def listing(self, who: Identity) -> set[str]:
        return {f.fact_id for f in self.guard.list_facts(who, limit=100)[0]}

    def text(self, who: Identity, handle: str) -> str | None:
        try:
            return self.guard.get(who, handle).text
        except FactNotFound:
            return None

    def audit(self, who: Identity, handle: str) -> None:
        self.guard.audit(who, handle)

    def update(self, who: Identity, handle: str, text: str) -> None:
        self.guard.update(who, handle, text, source=context().source, turn=context(UPDATE_TURN).turn)

    def delete(self, who: Identity, handle: str) -> None:
        self.guard.delete(who, handle)

    def close(self) -> None:
        self.guard.close()


class QdrantAdapterPath(InProcess):
    """``GuardedQdrantClient`` over a local Qdrant client."""

    def __init__(self, world: TwoIssuers, tmp: Path) -> None:
        from qdrant_client import QdrantClient, models

        self.models = models
        self.raw = QdrantClient(location=":memory:")
        self.raw.create_collection("notes", vectors_config=models.VectorParams(
            size=4, distance=models.Distance.COSINE))
        super().__init__(world, Kernel(ledger=Ledger.sqlite(tmp / "qdrant.db"),
                                       verifier=world.verifier(), clock=world.clock))
        self.ids: dict[str, int] = {}

    def client(self, who: Identity, derived_from: Sequence[str] = (), turn: int = 0) -> Any:
        from memguard.adapters.qdrant import GuardedQdrantClient

        return GuardedQdrantClient(self.raw, kernel=self.kernel, identity=who,
                                   context=context(turn, derived_from))

    def plant(self, who: Identity, key: str, text: str, derived_from: Sequence[str] = ()) -> int:
        pid = self.ids.setdefault(key, len(self.ids) + 1)
        point = self.models.PointStruct(id=pid, vector=[1.0, 0.5, 0.25, float(pid)],
                                        payload={"text": text})
        self.client(who, derived_from).upsert("notes", points=[point])
        return pid

    def fact_id(self, handle: int) -> str:
        from memguard.adapters.qdrant import fact_id_of

        return fact_id_of("notes", handle)

    def search(self, who: Identity) -> set[str]:
        got = self.client(who).query_points("notes", query=[1.0, 0.5, 0.25, 1.0], limit=100)
        return {self.fact_id(p.id) for p in got.points}

    def listing(self, who: Identity) -> set[str]:
        page, _ = self.client(who).scroll("notes", limit=100)
        return {self.fact_id(p.id) for p in page}

    def text(self, who: Identity, handle: int) -> str | None:
        got = self.client(who).retrieve("notes", [handle])
        return str(got[0].payload["text"]) if got and got[0].payload else None

    def update(self, who: Identity, handle: int, text: str) -> None:
        self.client(who, turn=UPDATE_TURN).set_payload("notes", payload={"text": text},
                                                       points=[handle])

    def delete(self, who: Identity, handle: int) -> None:
        self.client(who).delete("notes", points_selector=self.models.PointIdsList(points=[handle]))

    def close(self) -> None:
        self.raw.close()
        self.kernel.ledger.close()


class LangGraphPath(InProcess):
    """``GuardedStore`` over LangGraph's ``InMemoryStore``. LangGraph names an item by
    (namespace, key) inside the caller's own tenant segment, so the same key of the two alices is
    two facts, and one alice cannot even address the other's item: a cross "update" would be a
    write of her own copy. Handles carry the writer so fact ids can be computed from outside."""

    def __init__(self, world: TwoIssuers, tmp: Path) -> None:
        from langgraph.store.memory import InMemoryStore

        from memguard import HashEmbedder

        self.inner = InMemoryStore(index={"dims": 64, "embed": HashEmbedder(64).embed})
        super().__init__(world, Kernel(ledger=Ledger.sqlite(tmp / "langgraph.db"),
                                       verifier=world.verifier(), clock=world.clock))

    def store(self, who: Identity, derived_from: Sequence[str] = (), turn: int = 0) -> Any:
        from memguard.adapters.langgraph import GuardedStore

        return GuardedStore(self.inner, kernel=self.kernel, identity=who,
                            context=context(turn, derived_from))

    def plant(self, who: Identity, key: str, text: str, derived_from: Sequence[str] = ()) -> Any:
        self.store(who, derived_from).put(("notes",), key, {"text": text})
        return who, key

    def fact_id(self, handle: Any) -> str:
        who, key = handle
        return str(self.store(who).fact_id(("notes",), key))

    def search(self, who: Identity) -> set[str]:
        store = self.store(who)
        return {store.fact_id(tuple(i.namespace), i.key) for i in store.search(("notes",), limit=100)}

    def listing(self, who: Identity) -> set[str]:
        store = self.store(who)
        return {store.fact_id(tuple(i.namespace), i.key) for i in store.search((), limit=100)}

    def text(self, who: Identity, handle: Any) -> str | None:
        item = self.store(who).get(("notes",), handle[1])
        if item is None or self.store(who).fact_id(("notes",), handle[1]) != self.fact_id(handle):
            return None  # nothing, or her own item of that key: not the other alice's fact
        return str(item.value["text"])

    def audit(self, who: Identity, handle: Any) -> None:
        if self.store(who).fact_id(("notes",), handle[1]) != self.fact_id(handle):
            raise FactNotFound("another tenant's item cannot be named")
        self.store(who).provenance(("notes",), handle[1])

    def update(self, who: Identity, handle: Any, text: str) -> None:
        if self.store(who).fact_id(("notes",), handle[1]) != self.fact_id(handle):
            raise FactNotFound("another tenant's item cannot be named")
        self.store(who, turn=UPDATE_TURN).put(("notes",), handle[1], {"text": text})

    def delete(self, who: Identity, handle: Any) -> None:
        self.store(who).delete(("notes",), handle[1])  # names her own tenant's item, if any

    def close(self) -> None:
        self.kernel.ledger.close()


class Mem0Path(InProcess):
    """``GuardedMemory`` over an offline mem0 ``Memory`` (Qdrant local mode, hash embeddings)."""

    missing: ClassVar[dict[str, str]] = {"list": "get_all is the listing and is checked as search"}

    def __init__(self, world: TwoIssuers, tmp: Path) -> None:
        from memguard.adapters.mem0 import offline_memory

        self.memory = offline_memory(str(tmp / "mem0"), dimension=64,
                                     history_db_path=str(tmp / "history.db"))
        super().__init__(world, Kernel(ledger=Ledger.sqlite(tmp / "mem0.db"),
                                       verifier=world.verifier(), clock=world.clock))
        self.fact_ids: dict[str, str] = {}

    def mem(self, who: Identity, derived_from: Sequence[str] = (), turn: int = 0) -> Any:
        from memguard.adapters.mem0 import GuardedMemory

        return GuardedMemory(self.memory, kernel=self.kernel, identity=who,
                             context=context(turn, derived_from))

    def plant(self, who: Identity, key: str, text: str, derived_from: Sequence[str] = ()) -> str:
        item = self.mem(who, derived_from).add(text, infer=False)["results"][0]
        self.fact_ids[item["id"]] = item["provenance"]["fact_id"]
        return str(item["id"])

    def fact_id(self, handle: str) -> str:
        return self.fact_ids[handle]

    def search(self, who: Identity) -> set[str]:
        hits = self.mem(who).search("alice own note plan from her agent summary", top_k=100,
                                    threshold=0.0)["results"]
        listed = {i["provenance"]["fact_id"] for i in self.mem(who).get_all(top_k=100)["results"]}
        found = {h["provenance"]["fact_id"] for h in hits}
        assert found == listed
        return found

    def listing(self, who: Identity) -> set[str]:
        return self.search(who)

    def text(self, who: Identity, handle: str) -> str | None:
        try:
            item = self.mem(who).get(handle)
        except FactNotFound:
            return None
        return None if item is None else str(item["memory"])

    def audit(self, who: Identity, handle: str) -> None:
        if not self.mem(who).history(handle):
            raise FactNotFound("no history")

    def update(self, who: Identity, handle: str, text: str) -> None:
        self.mem(who, turn=UPDATE_TURN).update(handle, text)

    def delete(self, who: Identity, handle: str) -> None:
        self.mem(who).delete(handle)

    def close(self) -> None:
        self.kernel.ledger.close()


class SqlPath(InProcess):
    """``GuardedSqlMemory`` over a ``MemoryGuard`` on a SQL store (SQLite)."""

    def __init__(self, world: TwoIssuers, tmp: Path) -> None:
        from memguard.adapters.sql import SqlStore

        ledger = Ledger.sqlite(tmp / "sql-ledger.db")
        self.guard = MemoryGuard(store=SqlStore(f"sqlite:///{tmp / 'facts.db'}"), ledger=ledger,
                                 verifier=world.verifier(), clock=world.clock)
        super().__init__(world, self.guard.kernel)

    def sql(self, who: Identity, derived_from: Sequence[str] = (), turn: int = 0) -> Any:
        from memguard.adapters.sql import GuardedSqlMemory

        return GuardedSqlMemory(self.guard, identity=who, context=context(turn, derived_from))

    def plant(self, who: Identity, key: str, text: str, derived_from: Sequence[str] = ()) -> str:
        return str(self.sql(who, derived_from).add(text, namespace="notes").id)

    def fact_id(self, handle: str) -> str:
        return handle

    def search(self, who: Identity) -> set[str]:
        return {r.id for r in self.sql(who).search("alice note plan summary", k=100)}

    def listing(self, who: Identity) -> set[str]:
        rows, _ = self.sql(who).list(limit=100)
        return {r.id for r in rows}

    def text(self, who: Identity, handle: str) -> str | None:
        try:
            return str(self.sql(who).get(handle).text)
        except FactNotFound:
            return None

    def audit(self, who: Identity, handle: str) -> None:
        self.guard.audit(who, handle)

    def update(self, who: Identity, handle: str, text: str) -> None:
        self.sql(who, turn=UPDATE_TURN).update(handle, text)

    def delete(self, who: Identity, handle: str) -> None:
        self.sql(who).delete(handle)

    def close(self) -> None:
        self.guard.close()


IN_PROCESS: dict[str, Callable[[TwoIssuers, Path], Any]] = {
    "api": ApiPath,
    "qdrant": QdrantAdapterPath,
    "langgraph": LangGraphPath,
    "mem0": Mem0Path,
    "sql": SqlPath,
}


@pytest.mark.parametrize("name", sorted(IN_PROCESS))
def test_two_issuers_never_share_a_tenant_in_process(tmp_path: Path, name: str) -> None:
    if name == "mem0":
        pytest.importorskip("mem0", reason="mem0ai is not installed (the `mem0` extra)")
    world = two_issuers(tmp_path, Clock())
    path = IN_PROCESS[name](world, tmp_path)
    try:
        run_scenario(path)
    finally:
        path.close()


# -- HTTP and MCP ------------------------------------------------------------------------------------


class HttpPath(TenantPath):
    """The gateway's HTTP API; agents' tokens come from its /token endpoint (authlib client)."""

    def __init__(self, gw: Any, idps: dict[str, Any], subject: str) -> None:
        self.gw = gw
        self.idps = idps
        self.subject = subject  # the same at both issuers; one per test on the shared gateway

    def user(self, issuer: str) -> tuple[str, None]:
        return self.idps[issuer].issue_user_token(self.subject, scopes=USER_SCOPES), None

    def agent(self, issuer: str) -> tuple[str, str]:
        user, _ = self.user(issuer)
        client = self.gw.exchange_client(self.gw.planner)
        try:
            token = client.exchange(user, audience=self.gw.resource,
                                    scope="memory:read memory:write").access_token
        finally:
            client.close()
        return token, self.gw.svid(PLANNER)

    def call(self, who: tuple[str, str | None], method: str, path: str, **kw: Any) -> httpx.Response:
        headers = self.gw.headers(*who)
        return httpx.request(method, f"{self.gw.base}{path}", headers=headers, timeout=10, **kw)

    def ok(self, r: httpx.Response) -> httpx.Response:
        if r.status_code >= 400:
            raise RuntimeError(f"refused {r.status_code} {r.text[:200]}")
        return r

    def plant(self, who: Any, key: str, text: str, derived_from: Sequence[str] = ()) -> str:
        body = {"text": text, "namespace": "notes", "source": {"kind": "user_message"},
                "turn": {"session_id": "s-tenant", "turn_index": 0},
                "derived_from": list(derived_from)}
        return str(self.ok(self.call(who, "POST", "/v1/facts", json=body)).json()["fact_id"])

    def fact_id(self, handle: str) -> str:
        return handle

    def search(self, who: Any) -> set[str]:
        r = self.ok(self.call(who, "POST", "/v1/search", json={"query": "alice note", "k": 100}))
        return {f["fact_id"] for f in r.json()["facts"]}

    def listing(self, who: Any) -> set[str]:
        r = self.ok(self.call(who, "GET", "/v1/facts", params={"limit": 100}))
        return {f["fact_id"] for f in r.json()["facts"]}

    def text(self, who: Any, handle: str) -> str | None:
        r = self.call(who, "GET", f"/v1/facts/{handle}")
        return str(r.json()["text"]) if r.status_code == 200 else None

    def audit(self, who: Any, handle: str) -> None:
        self.ok(self.call(who, "GET", f"/v1/facts/{handle}/audit"))

    def update(self, who: Any, handle: str, text: str) -> None:
        body = {"text": text, "source": {"kind": "user_message"},
                "turn": {"session_id": "s-tenant", "turn_index": UPDATE_TURN}}
        self.ok(self.call(who, "PUT", f"/v1/facts/{handle}", json=body))

    def delete(self, who: Any, handle: str) -> None:
        self.ok(self.call(who, "DELETE", f"/v1/facts/{handle}"))

    def revoke(self, who: Any, handle: str) -> None:
        body = {"selector": {"kind": "fact", "value": handle}, "reason": "test"}
        self.ok(self.call(who, "POST", "/v1/revocations", json=body))

    def endorse(self, who: Any, handle: str) -> None:
        self.ok(self.call(who, "POST", f"/v1/facts/{handle}/endorse", json={"reason": "checked"}))


class McpPath(HttpPath):
    """The gateway's MCP tools (remember, recall, forget, audit) over streamable HTTP."""

    missing: ClassVar[dict[str, str]] = {
        "list": "MCP has recall, no listing tool",
        "update": "MCP has no update tool (by design, docs/gateway.md)",
        "derive": "remember takes no derived_from",
        "revoke": "no revoke tool (by design)",
        "endorse": "no endorse tool (by design)",
    }

    def tool(self, who: Any, name: str, **arguments: Any) -> Any:
        token, credential = who
        headers = {"authorization": f"Bearer {token}", "accept": "application/json, text/event-stream"}
        if credential:
            headers["workload-identity-token"] = credential
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}}
        r = httpx.post(f"{self.gw.base}/mcp", json=body, headers=headers, timeout=10)
        result = self.ok(r).json()["result"]
        if result.get("isError"):
            raise RuntimeError(f"refused {result['content'][0]['text']}")
        return result["structuredContent"]

    def plant(self, who: Any, key: str, text: str, derived_from: Sequence[str] = ()) -> str:
        assert not derived_from
        out = self.tool(who, "remember", text=text, namespace="notes", session_id="s-tenant")
        return str(out["fact_id"])

    def search(self, who: Any) -> set[str]:
        out = self.tool(who, "recall", query="alice note", k=100)
        return {f["fact_id"] for f in out["facts"]}

    def text(self, who: Any, handle: str) -> str | None:
        out = self.tool(who, "recall", query="alice note", k=100)
        return next((f["text"] for f in out["facts"] if f["fact_id"] == handle), None)

    def audit(self, who: Any, handle: str) -> None:
        self.tool(who, "audit", fact_id=handle)

    def delete(self, who: Any, handle: str) -> None:
        self.tool(who, "forget", fact_id=handle)


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, Any]]]:
    import json

    from gateway_helpers import gateway_config, running_gateway

    from memguard.tokens import SecurityTokenService

    tmp = tmp_path_factory.mktemp("tenants-gw")
    probe = gateway_config(tmp, *[__import__("identity_helpers").make_client(PLANNER)] * 2)
    resource, port = probe.resource, probe.server.port
    idps = {iss: SecurityTokenService(tmp / f"idp-{n}", issuer=iss, audiences=(resource,))
            for n, iss in enumerate(ISSUERS)}
    identity = tmp / "identity.yaml"
    identity.write_text(json.dumps({"version": 1, "access_tokens": {"audience": resource, "issuers": [
        {"issuer": i.issuer, "algorithms": ["EdDSA"], "jwks": i.jwks()} for i in idps.values()]}}))
    with running_gateway(tmp, server={"host": "127.0.0.1", "port": port},
                         identity={"config": str(identity)}) as gw:
        assert gw.sts.attests == frozenset(ISSUERS)
        yield gw, idps


def test_two_issuers_never_share_a_tenant_over_http(gateway: tuple[Any, dict[str, Any]]) -> None:
    gw, idps = gateway
    path = HttpPath(gw, idps, "alice")
    token, credential = path.agent(LOGIN_A)
    me = path.call((token, credential), "POST", "/v1/search", json={"query": "x"})
    assert me.status_code == 200
    run_scenario(path)


def test_two_issuers_never_share_a_tenant_over_mcp(gateway: tuple[Any, dict[str, Any]]) -> None:
    gw, idps = gateway
    run_scenario(McpPath(gw, idps, "alice-mcp"))


def test_an_exchanged_token_names_the_subjects_issuer(gateway: tuple[Any, dict[str, Any]]) -> None:
    """What the agent's token says: ``iss`` = the token service, ``sub_id`` = her own issuer."""
    import jwt as pyjwt

    gw, idps = gateway
    token, _ = HttpPath(gw, idps, "alice-claims").agent(LOGIN_B)
    claims = pyjwt.decode(token, options={"verify_signature": False})
    assert claims["iss"] == gw.sts.issuer and claims["sub"] == "alice-claims"
    assert claims["sub_id"] == {"format": "iss_sub", "iss": LOGIN_B, "sub": "alice-claims"}
