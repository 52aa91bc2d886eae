"""`PolicyResolver`: the YAML policy engine behind the guard's :class:`~memguard.scope.ScopeResolver` seam.

``MemoryGuard(scope=PolicyResolver.from_path("policies/"))``. Files are re-read when they change
(checked at most every ``reload_interval`` seconds, on the next decision); a reload that does not
validate keeps the last good set, logs the problems and exposes them as :attr:`last_error`. With no
valid policy at all, every request is denied. Every plan and decision carries the set's digest.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from memguard.identity import Principal
from memguard.logging import get_logger
from memguard.policy.capability import refuse
from memguard.policy.compile import plan_for_rules
from memguard.policy.evaluate import Engine, principal_env
from memguard.policy.loader import load_policy_path, load_policy_text, policy_files
from memguard.policy.model import PolicyDecision, PolicyError, PolicySet, Problem
from memguard.provenance import canonical_json, sha256_digest
from memguard.pushdown.normal import conj, normalize
from memguard.scope import (
    Condition,
    FieldValue,
    Gte,
    In,
    PlanKind,
    ReadRequest,
    ScopePlan,
    WriteDecision,
)
from memguard.trust import TrustLevel

__all__ = ["NO_POLICY_DIGEST", "PolicyObserver", "PolicyResolver"]

#: ``(status, policy_digest, problems)``: see :meth:`PolicyResolver.observe`
PolicyObserver = Callable[[str, str, Sequence[str]], None]

#: The digest recorded when no valid policy is loaded (and everything is denied).
NO_POLICY_DIGEST = sha256_digest(canonical_json({"kind": "memguard.policy/none"}))


def _fingerprint(path: Path) -> tuple[tuple[str, int, int], ...]:
    out = []
    for f in policy_files(path):
        st = f.stat()
        out.append((str(f), st.st_mtime_ns, st.st_size))
    return tuple(out)


class PolicyResolver:
    """Read plans, write decisions and point decisions from a validated YAML policy set."""

    def __init__(
        self,
        policy: PolicySet | None,
        *,
        source: Path | None = None,
        clock: Callable[[], float] = time.time,
        reload_interval: float = 1.0,
        backends: Iterable[str] = (),
    ) -> None:
        self._backends: tuple[str, ...] = tuple(dict.fromkeys(backends))
        if policy is not None and self._backends:
            refuse(policy, self._backends)
        self._engine = Engine(policy if policy is not None else PolicySet((), NO_POLICY_DIGEST))
        self._valid = policy is not None
        self._source = source
        self._clock = clock
        self._reload_interval = reload_interval
        self._checked_at = clock()
        self._fingerprint: tuple[tuple[str, int, int], ...] | None = None
        self._lock = threading.Lock()
        self.last_error: PolicyError | None = None
        self._observers: list[PolicyObserver] = []
        self._eval_failures: set[tuple[str, str]] = set()

    @classmethod
    def from_path(
        cls,
        path: Path | str,
        *,
        clock: Callable[[], float] = time.time,
        reload_interval: float = 1.0,
        strict: bool = True,
        backends: Iterable[str] = (),
    ) -> PolicyResolver:
        """Load a policy file or folder. ``strict=False`` starts deny-all on a bad set and keeps watching.

        ``backends``: push-down backends the set must be translatable for
        (:mod:`memguard.policy.capability`); a set one of them cannot express does not load.
        Adapters add theirs with :meth:`require_backend`."""
        source = Path(path)
        resolver = cls(
            None, source=source, clock=clock, reload_interval=reload_interval, backends=backends
        )
        error = resolver.reload()
        if error is not None and strict:
            raise error
        return resolver

    @classmethod
    def from_text(
        cls, text: str, *, clock: Callable[[], float] = time.time, backends: Iterable[str] = ()
    ) -> PolicyResolver:
        return cls(load_policy_text(text), clock=clock, backends=backends)

    @property
    def backends(self) -> tuple[str, ...]:
        """The push-down backends every loaded set must be translatable for."""
        return self._backends

    def require_backend(self, backend: str) -> None:
        """From now on every loaded set must be translatable for ``backend``; the current one is
        checked at once (:class:`PolicyError` if it is not, and the backend is not added)."""
        if backend in self._backends:
            return
        with self._lock:
            if self._valid:
                refuse(self._engine.policy, [backend])
            self._backends = (*self._backends, backend)

    # -- loading ----------------------------------------------------------------------------------

    @property
    def policy(self) -> PolicySet:
        return self._engine.policy

    @property
    def engine(self) -> Engine:
        self._maybe_reload()
        return self._engine

    @property
    def valid(self) -> bool:
        """False while no valid policy set has ever loaded (everything is denied)."""
        return self._valid

    def reload(self) -> PolicyError | None:
        """Re-read the source now; on a problem keep the last good set and return the error."""
        if self._source is None:
            return None
        with self._lock:
            error = self._reload_locked()
        if error is None:
            self._notify("loaded", self._engine.policy.digest, ())
        else:
            self._notify("failed", self._engine.policy.digest, [str(p) for p in error.problems])
        return error

    def _reload_locked(self) -> PolicyError | None:
        assert self._source is not None
        try:
            fingerprint = _fingerprint(self._source)
            policy = load_policy_path(self._source)
            refuse(policy, self._backends)
        except PolicyError as exc:
            return self._failed(exc)
        except (OSError, ValueError) as exc:
            return self._failed(PolicyError([Problem(str(self._source), 0, str(exc))]))
        self._engine = Engine(policy)
        self._valid = True
        self._fingerprint = fingerprint
        self.last_error = None
        self._note("info", "policy_loaded", policy_digest=policy.digest, rules=len(policy.rules))
        return None

    # -- observers: the ledger logs loads and failures (Ledger.policy_event) ---------------------

    def observe(self, observer: PolicyObserver) -> None:
        """Call ``observer(status, policy_digest, problems)`` on every load (``loaded``), failed
        reload (``failed``: the last good set stays) and failed evaluation
        (``evaluation_failed``: that decision is a deny; once per set and error type). Called
        at once if the set failed to load before (the set in force at start is named in every
        decision's event already). An observer that raises is logged, never changes a
        decision."""
        self._observers.append(observer)
        if self.last_error is not None:
            problems = [str(p) for p in self.last_error.problems]
            self._notify("failed", self._engine.policy.digest, problems, only=observer)

    def _notify(
        self,
        status: str,
        digest: str,
        problems: Sequence[str],
        *,
        only: PolicyObserver | None = None,
    ) -> None:
        for observer in [only] if only is not None else list(self._observers):
            try:
                observer(status, digest, problems)
            except Exception as exc:
                self._note("error", "policy_observer_failed", status=status,
                           error=type(exc).__name__)  # fmt: skip

    def _evaluation_failed(self, digest: str, exc: BaseException) -> None:
        key = (digest, type(exc).__name__)
        if key in self._eval_failures:
            return
        self._eval_failures.add(key)
        self._notify("evaluation_failed", digest, [f"evaluation error: {type(exc).__name__}"])

    def _note(self, level: str, event: str, **fields: object) -> None:
        """Log, but never let a broken log sink change a decision or a reload."""
        try:
            getattr(get_logger(), level)(event, **fields)
        except Exception:  # pragma: no cover - depends on the host's logging setup
            pass

    def _failed(self, error: PolicyError) -> PolicyError:
        self.last_error = error
        self._note(
            "error",
            "policy_reload_failed",
            problems=[str(p) for p in error.problems],
            kept_policy_digest=self._engine.policy.digest,
        )
        try:
            self._fingerprint = _fingerprint(self._source) if self._source else None
        except (OSError, ValueError):
            self._fingerprint = None
        return error

    def _maybe_reload(self) -> None:
        try:
            self._check_source()
        except Exception as exc:  # a reload problem never takes the last good set away
            self.last_error = PolicyError([Problem(str(self._source), 0, type(exc).__name__)])

    def _check_source(self) -> None:
        if self._source is None:
            return
        now = self._clock()
        if now - self._checked_at < self._reload_interval:
            return
        self._checked_at = now
        try:
            changed = _fingerprint(self._source) != self._fingerprint
        except (OSError, ValueError):
            changed = True
        if changed:
            self.reload()

    # -- the ScopeResolver seam -------------------------------------------------------------------

    @property
    def digest(self) -> str:
        self._maybe_reload()
        return self._engine.policy.digest

    def _now(self) -> int:
        return int(self._clock())

    def read_plan(self, principal: Principal, request: ReadRequest) -> ScopePlan:
        """Partially evaluate the rules for ``request.action`` with this principal and purpose."""
        engine = self.engine
        digest = engine.policy.digest
        try:
            penv = principal_env(principal, request.purpose)
            plan, _ = plan_for_rules(
                engine.candidates(request.action, penv), penv, self._now(), digest
            )
            if plan.kind is PlanKind.DENY:
                return plan
            narrow: list[Condition | bool] = [
                plan.condition if plan.condition is not None else True
            ]
            if request.namespaces is not None:
                narrow.append(normalize(In("namespace", tuple(request.namespaces))))
            if request.min_trust is not None:
                narrow.append(normalize(Gte("trust", int(request.min_trust))))
            if len(narrow) == 1:
                return plan
            cond = conj(narrow)
            if cond is False:
                return ScopePlan(
                    PlanKind.DENY,
                    digest,
                    rule_ids=plan.rule_ids,
                    reason="the request admits nothing",
                )
            if cond is True:
                return plan
            return ScopePlan(
                PlanKind.RESIDUAL,
                digest,
                condition=cond,
                rule_ids=plan.rule_ids,
                reason=plan.reason,
            )
        except Exception as exc:  # any evaluation error is a deny (and logged in the ledger)
            self._evaluation_failed(digest, exc)
            return ScopePlan(
                PlanKind.DENY, digest, reason=f"evaluation error: {type(exc).__name__}"
            )

    def write_decision(self, principal: Principal, namespace: str) -> WriteDecision:
        d = self.decide(principal, "write", {"namespace": namespace}, purpose=None)
        extra = {"errors": "; ".join(d.errors)} if d.errors else {}
        return WriteDecision(
            d.allowed,
            d.policy_digest,
            d.rule_ids,
            reason=d.reason,
            max_trust=d.max_trust if d.max_trust is not None else TrustLevel.SYSTEM,
            extra=extra,
        )

    # -- point decisions --------------------------------------------------------------------------

    def decide(
        self,
        principal: Principal,
        action: str,
        fact: Mapping[str, FieldValue] | None = None,
        *,
        purpose: str | None = "answer",
    ) -> PolicyDecision:
        """A point decision on one fact's indexed fields (see :func:`memguard.scope.index_fields`)."""
        return self.engine.decide(principal, action, fact, purpose=purpose, now=self._now())

    def point_allows(
        self, principal: Principal, request: ReadRequest, fields: Mapping[str, FieldValue]
    ) -> bool:
        """The point evaluator's verdict on one fact (the guard re-checks every hit with it)."""
        try:
            return self.decide(principal, request.action, fields, purpose=request.purpose).allowed
        except Exception as exc:  # any evaluation error is a deny (and logged in the ledger)
            self._evaluation_failed(self._engine.policy.digest, exc)
            return False

    def rules(self) -> Sequence[str]:
        return [r.id for r in self._engine.policy.rules]
