"""Test helpers for code that uses memguard, the way ``structlog.testing`` ships with structlog.

A :class:`GuardHarness` is a real guard (SQLite ledger, in-memory vector store, local Ed25519
tokens) in a folder you give it (pytest's ``tmp_path``), with a builder for principals and chains and
a one-line write; the assertions check what a security test wants to see::

    from memguard.testing import assert_audited, assert_denied, assert_provenance, guard_harness

    def test_bob_cannot_read_alice(tmp_path):
        with guard_harness(tmp_path) as h:
            alice, bob = h.identity("alice"), h.identity("bob")
            fact = h.write(alice, "alice likes tea")
            assert_provenance(fact, trust="user", owner="alice", source_kind="user_message")
            assert_denied(lambda: h.guard.get(bob, fact.fact_id), code="not_found")
            assert_audited(h.guard, action="get", decision="deny", fact_id=fact.fact_id)

Nothing here is mocked: the tokens are signed and verified, the ledger is a real SQLite file, and the
policy (``policies=``, a file or folder of YAML) is loaded by the same resolver the library uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memguard.errors import AccessDenied, IdentityError, MemguardError
from memguard.events import AuditEvent
from memguard.guard import MemoryGuard, RecalledFact
from memguard.identity import Identity
from memguard.ledger import Ledger
from memguard.provenance import Provenance, Source, Turn
from memguard.scope import ScopeResolver
from memguard.stores.memory import InMemoryStore
from memguard.tokens.local import LocalTokenService
from memguard.trust import SourceKind, TrustLevel

__all__ = [
    "GuardHarness",
    "assert_audited",
    "assert_denied",
    "assert_provenance",
    "guard_harness",
]

#: the scopes a harness identity carries unless told otherwise
DEFAULT_SCOPES = ("memory:read", "memory:write", "memory:audit")


@dataclass
class GuardHarness:
    """A real guard and the local token service whose tokens it trusts."""

    guard: MemoryGuard
    tokens: LocalTokenService
    session_id: str = "test-session"
    _turns: int = 0

    def identity(
        self, subject: str, *actors: str, scopes: Sequence[str] = DEFAULT_SCOPES
    ) -> Identity:
        """A verified identity: ``subject`` (a user), acting through ``actors`` (SPIFFE ids, first
        delegate -> current), from a signed token the guard verifies as it would any other."""
        return self.guard.authenticate(self.tokens.issue(subject, actors=actors, scopes=scopes))

    def turn(self) -> Turn:
        """The next turn of the harness's session (turn indexes count up from 0)."""
        turn = Turn(session_id=self.session_id, turn_index=self._turns)
        self._turns += 1
        return turn

    def write(
        self,
        identity: Identity,
        text: str,
        *,
        source: SourceKind | str = SourceKind.USER_MESSAGE,
        uri: str | None = None,
        namespace: str = "notes",
        turn: Turn | None = None,
        **kwargs: Any,
    ) -> Provenance:
        """Write one fact through the guard (the next turn unless ``turn=`` is given)."""
        return self.guard.write(
            identity,
            text,
            namespace=namespace,
            source=Source(kind=SourceKind(source), uri=uri),
            turn=turn or self.turn(),
            **kwargs,
        )

    def events(self, **filters: Any) -> list[AuditEvent]:
        """The audit events recorded so far, oldest first (see :func:`assert_audited`)."""
        return _matching(self.guard, **filters)

    def close(self) -> None:
        self.guard.close()


@contextmanager
def guard_harness(
    directory: str | Path,
    *,
    policies: str | Path | None = None,
    scope: ScopeResolver | None = None,
    clock: Callable[[], float] | None = None,
    dimension: int = 384,
    scan: bool = True,
    **guard_options: Any,
) -> Iterator[GuardHarness]:
    """A :class:`GuardHarness` in ``directory`` (keys, ledger), closed on exit.

    ``policies``: a YAML policy file or folder (loaded strictly: a bad set raises). Without it (or
    ``scope=``), the library's default scope (each user reads only their own facts) applies.
    ``scan``: the built-in content scanner, on as in the embedded default."""
    from memguard.policy.resolver import PolicyResolver
    from memguard.scan import builtin_scanners
    from memguard.scan.stage import ScanStage

    if policies is not None and scope is not None:
        raise ValueError("give `policies` or `scope`, not both")
    root = Path(directory)
    options: dict[str, Any] = {} if clock is None else {"clock": clock}
    tokens = LocalTokenService(root / "keys", **options)
    resolver = PolicyResolver.from_path(policies, **options) if policies is not None else scope
    guard = MemoryGuard(
        store=InMemoryStore(dimension=dimension),
        ledger=Ledger.sqlite(root / "ledger.db"),
        verifier=tokens.verifier(),
        scope=resolver,
        scan_stage=ScanStage(builtin_scanners()) if scan else None,
        **options,
        **guard_options,
    )
    harness = GuardHarness(guard, tokens)
    try:
        yield harness
    finally:
        harness.close()


def assert_denied(
    call: Callable[[], object], *, code: str | None = None
) -> AccessDenied | IdentityError:
    """Run ``call`` and require a refusal: :class:`AccessDenied` (incl. not found) or
    :class:`IdentityError`, with ``code`` (exact, or a prefix ending in ``.``) if given.

    Anything else fails the test: a result (the call was allowed), or another error (a crash is not
    a deny)."""
    try:
        result = call()
    except (AccessDenied, IdentityError) as exc:
        if code is not None and not _code_matches(exc.code, code):
            raise AssertionError(f"denied with {exc.code!r}, expected {code!r}: {exc}") from exc
        return exc
    except MemguardError as exc:
        got = f"{type(exc).__name__} {exc.code!r}"
        raise AssertionError(f"expected a deny, got {got}: {exc}") from exc
    raise AssertionError(f"expected a deny, the call returned {result!r}")


def _code_matches(found: str, expected: str) -> bool:
    return found.startswith(expected) if expected.endswith(".") else found == expected


def assert_provenance(
    fact: Provenance | RecalledFact,
    *,
    trust: TrustLevel | str | None = None,
    source_kind: SourceKind | str | None = None,
    source_uri: str | None = None,
    owner: str | None = None,
    owner_issuer: str | None = None,
    writer_actors: Sequence[str] | None = None,
    derived_from: Sequence[str] | None = None,
    session_id: str | None = None,
) -> Provenance:
    """Require the provenance of a written or recalled fact to say what is given; returns it."""
    prov = fact.provenance if isinstance(fact, RecalledFact) else fact
    problems: list[str] = []

    def check(what: str, found: object, expected: object) -> None:
        if expected is not None and found != expected:
            problems.append(f"{what}: expected {expected!r}, found {found!r}")

    check("trust", prov.trust, TrustLevel.parse(trust) if isinstance(trust, str) else trust)
    check("source kind", prov.source.kind, SourceKind(source_kind) if source_kind else None)
    check("source uri", prov.source.uri, source_uri)
    check("owner", prov.owner.subject, owner)
    check("owner issuer", prov.owner.issuer, owner_issuer)
    actors = [a.subject for a in prov.writer.actors]
    check("writer actors", actors, list(writer_actors) if writer_actors is not None else None)
    inputs = sorted(derived_from) if derived_from is not None else None
    check("derived_from", sorted(prov.derived_from), inputs)
    check("session", prov.turn.session_id, session_id)
    if problems:
        raise AssertionError(f"provenance of {prov.fact_id}: " + "; ".join(problems))
    return prov


def _matching(
    guard: MemoryGuard,
    *,
    action: str | None = None,
    decision: str | None = None,
    reason: str | None = None,
    fact_id: str | None = None,
    subject: str | None = None,
) -> list[AuditEvent]:
    def fits(e: AuditEvent) -> bool:
        principal: Mapping[str, Any] = e.principal or {}
        return (
            (action is None or e.action == action)
            and (decision is None or e.decision == decision)
            and (reason is None or _code_matches(e.reason, reason))
            and (fact_id is None or fact_id in e.fact_ids)
            and (subject is None or principal.get("subject") == subject)
        )

    return [e for e in guard.ledger.events(limit=100_000) if fits(e)]


def assert_audited(
    guard: MemoryGuard,
    *,
    action: str | None = None,
    decision: str | None = None,
    reason: str | None = None,
    fact_id: str | None = None,
    subject: str | None = None,
) -> AuditEvent:
    """Require an audit event in the guard's ledger that matches every filter given (``reason``
    exact, or a prefix ending in ``.``); returns the latest such event."""
    found = _matching(
        guard, action=action, decision=decision, reason=reason, fact_id=fact_id, subject=subject
    )
    if not found:
        latest = [(e.action, e.decision, e.reason) for e in guard.ledger.events(limit=5)]
        raise AssertionError(
            f"no audit event with action={action} decision={decision} reason={reason} "
            f"fact_id={fact_id} subject={subject}; the latest are {latest}"
        )
    return found[-1]
