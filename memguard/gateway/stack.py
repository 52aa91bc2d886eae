"""What a gateway process runs on: the guard, its store and ledger, the token service, the policy.

:func:`open_stack` builds it from a :class:`~memguard.gateway.config.GatewayConfig`. The store is
opened lazily (:class:`LazyStore`): a Qdrant that is down at start or goes away later makes requests
fail with ``backend.store`` (503) and readiness report it, and the gateway serves again once it is
back, without a restart. The ledger is SQLite (default, one host) or PostgreSQL (several processes).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import text

from memguard.aio import AsyncMemoryGuard
from memguard.embedded import Engine, store_engine
from memguard.errors import ConfigurationError, MemguardError, StoreError
from memguard.events import AuditEvent
from memguard.gateway.config import GatewayConfig
from memguard.guard import MemoryGuard
from memguard.ledger import Ledger
from memguard.logging import get_logger
from memguard.owner_migration import migrate_exchanged_owners
from memguard.policy import PolicyResolver
from memguard.scan import builtin_scanners
from memguard.scan.stage import ScanStage
from memguard.scope import Condition, ScopeResolver
from memguard.stores.base import Hit, MemoryStore, StoredPoint
from memguard.stores.edge import QdrantEdgeStore
from memguard.stores.qdrant import QdrantStore
from memguard.tokens.config import DelegationGrant, IdentityConfig, load_identity_config
from memguard.tokens.confusables import ConfusableWatch
from memguard.tokens.denylist import DenyList
from memguard.tokens.replay_sql import SqlReplayCache
from memguard.tokens.rfc7517 import parse_jwks
from memguard.tokens.rfc7523 import MemoryReplayCache, RegisteredClient, ReplayCache
from memguard.tokens.rfc9068 import TrustedIssuer
from memguard.tokens.spiffe_client_auth import (
    SpiffeClientVerifier,
    SpiffeTrustDomain,
    bundle_source,
)
from memguard.tokens.sts import SecurityTokenService
from memguard.tokens.uses import check_distinct
from memguard.tokens.verifier import IdentityVerifier

if TYPE_CHECKING:
    from memguard.gateway.receipts import ReceiptIssuer
    from memguard.gateway.ssf import SsfReceiver
    from memguard.tokens.id_jag import IdJagIssuer
    from memguard.tokens.txn_token import ResourceTxnTokens, TxnTokenService

__all__ = ["GatewayStack", "LazyStore", "gateway_identity", "open_ledger", "open_stack"]

_PROBE_ID = "00000000-0000-0000-0000-000000000000"


class LazyStore:
    """A :class:`MemoryStore` that (re)opens its backend on demand, at most once per ``retry``
    seconds; while it cannot, every call raises :class:`StoreError` (fail closed, 503)."""

    def __init__(
        self, factory: Callable[[], MemoryStore], dimension: int, *, retry: float = 1.0
    ) -> None:
        self.dimension = dimension
        self._factory = factory
        self._retry = retry
        self._inner: MemoryStore | None = None
        self._tried_at = float("-inf")
        self._lock = threading.Lock()
        self._closed = False

    def _store(self) -> MemoryStore:
        with self._lock:
            if self._closed:
                raise StoreError("store closed")
            if self._inner is None:
                now = time.monotonic()
                if now - self._tried_at < self._retry:
                    raise StoreError("store unavailable")
                self._tried_at = now
                try:
                    self._inner = self._factory()
                except MemguardError:
                    raise
                except Exception as exc:
                    raise StoreError(f"store unavailable: {type(exc).__name__}") from exc
            return self._inner

    def disconnect(self) -> None:
        """Close the backend client; the next call opens a new one (if the backend is there)."""
        with self._lock:
            inner, self._inner = self._inner, None
            self._tried_at = float("-inf")
        if inner is not None:
            inner.close()

    @property
    def connected(self) -> bool:
        return self._inner is not None

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        self._store().upsert(points)

    def retrieve(self, fact_ids: Sequence[str]) -> list[StoredPoint]:
        return self._store().retrieve(fact_ids)

    def vectors(self, fact_ids: Sequence[str]) -> dict[str, list[float]]:
        """The backend's stored vectors, when it can return them (owner_migration.py)."""
        fetch = getattr(self._store(), "vectors", None)
        return dict(fetch(fact_ids)) if callable(fetch) else {}

    def search(
        self,
        vector: Sequence[float],
        *,
        condition: Condition | None,
        limit: int,
        offset: int = 0,
    ) -> list[Hit]:
        return self._store().search(vector, condition=condition, limit=limit, offset=offset)

    def scroll(
        self, *, condition: Condition | None, limit: int, cursor: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        return self._store().scroll(condition=condition, limit=limit, cursor=cursor)

    def set_trust(self, trust_by_id: Mapping[str, int]) -> None:
        self._store().set_trust(trust_by_id)

    def delete(self, fact_ids: Sequence[str]) -> None:
        self._store().delete(fact_ids)

    def ping(self) -> None:
        """One real round trip to the backend."""
        self._store().retrieve([_PROBE_ID])

    def close(self) -> None:
        with self._lock:
            self._closed = True
            inner, self._inner = self._inner, None
        if inner is not None:
            inner.close()


@dataclass
class GatewayStack:
    """The parts one gateway process serves with."""

    config: GatewayConfig
    guard: MemoryGuard
    store: LazyStore
    verifier: IdentityVerifier
    identity: IdentityConfig
    sts: SecurityTokenService | None
    policy: PolicyResolver | None
    replay: ReplayCache | None
    #: the SSF/CAEP receiver and its deny list (memguard.gateway.ssf), when ``ssf.enabled``
    ssf: SsfReceiver | None = None
    denylist: DenyList | None = None
    #: signs read receipts (memguard.gateway.receipts), when ``receipts.enabled``
    receipts: ReceiptIssuer | None = None
    _ready_cache: tuple[float, dict[str, str]] | None = field(default=None, repr=False)
    _jwks_checked: dict[str, tuple[float, bool]] = field(default_factory=dict, repr=False)

    @property
    def resource(self) -> str:
        return self.config.resource

    @property
    def aguard(self) -> AsyncMemoryGuard:
        return AsyncMemoryGuard(self.guard)

    # -- readiness ------------------------------------------------------------------------------

    def readiness(self, *, max_age: float = 1.0) -> dict[str, str]:
        """``{"policy": "ok"|reason, "keys": ..., "ledger": ..., "store": ...}``, each checked for
        real (a query to the ledger and the store, the signing key on disk, the issuers' JWKS)."""
        now = time.monotonic()
        if self._ready_cache is not None and now - self._ready_cache[0] < max_age:
            return dict(self._ready_cache[1])
        checks = {
            "policy": self._check(self._check_policy),
            "keys": self._check(self._check_keys),
            "ledger": self._check(self._check_ledger),
            "store": self._check(self.store.ping),
        }
        if self.denylist is not None:  # CAEP deny entries readable (memguard.gateway.ssf)
            checks["revocations"] = self._check(self._check_denylist)
        self._ready_cache = (now, checks)
        return dict(checks)

    @staticmethod
    def _check(fn: Callable[[], None]) -> str:
        try:
            fn()
        except MemguardError as exc:
            return exc.code
        except Exception as exc:  # a broken check is a failed check
            return f"error: {type(exc).__name__}"
        return "ok"

    def _check_denylist(self) -> None:
        if self.denylist is not None:
            self.denylist.entries()  # raises identity.revocation_unavailable if unreadable

    def _check_policy(self) -> None:
        if self.policy is None:
            return
        _ = self.policy.engine  # picks up a changed file, as a decision would
        if not self.policy.valid:
            raise ConfigurationError("no valid policy loaded")
        if self.policy.last_error is not None:
            # the files on disk do not validate: the last good set still decides (fail safe),
            # but this process is not ready for traffic until someone fixes the deployment
            raise self.policy.last_error

    def _check_keys(self) -> None:
        if self.sts is not None:
            for ring in (self.sts.access_keys, self.sts.workload_keys):
                kid = ring.active_kid
                if not (ring.dir / f"{kid}.pem").is_file() or not ring.jwks()["keys"]:
                    raise ConfigurationError("signing key unavailable")
        for source in (
            *self.identity.access_tokens.issuers,
            *(
                self.identity.workload_credentials.trust_domains
                if self.identity.workload_credentials
                else ()
            ),
        ):
            if source.jwks_url is not None and not self._jwks_ok(
                source.jwks_url, frozenset(source.algorithms)
            ):
                raise ConfigurationError("issuer key set unavailable")

    def _jwks_ok(self, url: str, algorithms: frozenset[str]) -> bool:
        import httpx

        now = time.monotonic()
        cached = self._jwks_checked.get(url)
        if cached is not None and now - cached[0] < 10.0:
            return cached[1]
        try:
            resp = httpx.get(
                url, timeout=self.identity.jwks.timeout, follow_redirects=False, trust_env=False
            )
            ok = resp.status_code == 200 and bool(parse_jwks(resp.json(), algorithms))
        except Exception:
            ok = False
        self._jwks_checked[url] = (now, ok)
        return ok

    def _check_ledger(self) -> None:
        try:
            with self.guard.ledger.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except Exception as exc:
            raise StoreError("ledger unavailable", code="backend.ledger") from exc

    def close(self) -> None:
        self.guard.close()
        if isinstance(self.replay, SqlReplayCache):
            self.replay.close()
        if self.denylist is not None:
            self.denylist.close()
        if (
            self.ssf is not None
            and isinstance(self.ssf.verifier.replay, SqlReplayCache)
            and (self.ssf.verifier.replay is not self.replay)
        ):
            self.ssf.verifier.replay.close()


def _store_factory(config: GatewayConfig) -> Callable[[], MemoryStore]:
    sc = config.store

    def open_store() -> MemoryStore:
        if sc.url is not None:
            api_key = os.environ.get(sc.api_key_env) if sc.api_key_env else None
            if sc.api_key_env and not api_key:
                raise ConfigurationError(f"`{sc.api_key_env}` is not set")
            return QdrantStore(
                url=sc.url,
                api_key=api_key,
                collection=sc.collection,
                dimension=sc.dimension,
                timeout=sc.timeout,
            )
        engine, base = embedded_location(config)
        if sc.per_worker_local:
            base = base / f"worker-{os.getpid()}"
        base.mkdir(parents=True, exist_ok=True)
        if engine == "edge":
            return QdrantEdgeStore(base, dimension=sc.dimension)
        return QdrantStore(
            path=str(base),
            collection=sc.collection,
            dimension=sc.dimension,
            partition_by_owner=True,
        )

    return open_store


def embedded_location(config: GatewayConfig) -> tuple[Engine, Path]:
    """The engine and folder of the gateway's embedded store (``store.url`` unset).

    Without ``store.path`` it is where :func:`memguard.open_embedded` keeps it in ``state_dir``
    (``edge/``, or ``qdrant/`` for a folder made before qdrant-edge was the default), so ``memguard
    store check`` and ``rebuild`` on the state folder see the gateway's store. With ``store.path``
    the folder is the store itself; one that holds a qdrant-client local store stays local mode
    unless ``store.engine`` says otherwise."""
    sc = config.store
    if sc.path is None:
        root = config.state_path
        engine = store_engine(root, sc.engine)
        return engine, root / ("edge" if engine == "edge" else "qdrant")
    base = config.path(sc.path)
    if sc.engine is not None:
        return sc.engine, base
    local = (base / "meta.json").exists() or (base / "collection").is_dir()
    return ("local" if local and not (base / "shard").exists() else "edge"), base


def _base_identity(config: GatewayConfig) -> IdentityConfig | None:
    """``identity.config``, checked against this gateway's audiences (one per token use)."""
    if config.identity.config is None:
        return None
    base = load_identity_config(config.path(config.identity.config))
    if base.access_tokens.audience != config.resource:
        raise ConfigurationError(
            f"identity config: `access_tokens.audience` must be the gateway resource "
            f"`{config.resource}`"
        )
    wc = base.workload_credentials
    if wc is not None and wc.audience != config.presenter_audience:
        raise ConfigurationError(
            "identity config: `workload_credentials.audience` must be the presenter audience "
            f"`{config.presenter_audience}` (`identity.presenter_audience`)"
        )
    return base


def _identity_config(
    config: GatewayConfig,
    base: IdentityConfig | None,
    sts: SecurityTokenService | None,
    grants: Sequence[DelegationGrant],
) -> IdentityConfig:
    resource = config.resource
    if base is not None:
        data: dict[str, Any] = base.model_dump(mode="json", exclude_none=True)
    else:
        data = {"version": 1, "access_tokens": {"audience": resource, "issuers": []}}
    uses: dict[str, list[str]] = {
        "access tokens": [resource],
        "presenter credentials": [config.presenter_audience],
    }
    if sts is not None:
        uses["the token endpoint"] = sorted(sts.token_audiences)
        issuers = data["access_tokens"]["issuers"]
        own = next((i for i in issuers if i["issuer"] == sts.issuer), None)
        if own is None:
            own = {"issuer": sts.issuer, "algorithms": [config.sts.alg], "jwks": sts.jwks()}
            issuers.append(own)
        # the token service names the subjects of the issuers it exchanges for (RFC 9493 sub_id)
        own["attests"] = sorted({*own.get("attests", ()), *sts.attests})
        wc = data.setdefault(
            "workload_credentials", {"audience": config.presenter_audience, "trust_domains": []}
        )
        if not any(d["trust_domain"] == sts.trust_domain for d in wc["trust_domains"]):
            wc["trust_domains"].append(
                {
                    "trust_domain": sts.trust_domain,
                    "algorithms": [config.sts.alg],
                    "jwks": sts.workload_jwks(),
                    "issuer": sts.issuer,
                }
            )
    if config.ssf.enabled:
        from memguard.gateway.ssf import ssf_audience

        uses["security events"] = [ssf_audience(config)]
    if config.sts.transaction_tokens:  # a Txn-Token's audience is its trust domain
        uses["transaction tokens"] = [t.trust_domain for t in config.sts.transaction_tokens]
    if config.sts.enabled and config.sts.id_jag.issuers and sts is not None:
        uses["identity assertion grants"] = [sts.issuer]
    check_distinct(uses)
    known = {(g["actor"], g["on_behalf_of"]) for g in data.get("delegation", [])}
    data["delegation"] = [
        *data.get("delegation", []),
        *(g.model_dump(mode="json") for g in grants if (g.actor, g.on_behalf_of) not in known),
    ]
    return IdentityConfig.from_mapping(data, where="gateway identity")


def _clients(config: GatewayConfig) -> list[RegisteredClient]:
    import json

    out = []
    for client in config.sts.clients:
        if client.jwks_file is not None:
            try:
                jwks = json.loads(config.path(client.jwks_file).read_text("utf-8"))
            except (OSError, ValueError) as exc:
                raise ConfigurationError(
                    f"sts client `{client.client_id}`: cannot read jwks_file: {exc}"
                ) from None
        else:
            jwks = client.jwks
        out.append(RegisteredClient(client.client_id, jwks or {}, frozenset(client.algorithms)))
    return out


def open_stack(
    config: GatewayConfig,
    *,
    scope: ScopeResolver | None = None,
    clock: Callable[[], float] = time.time,
) -> GatewayStack:
    """Open every part; configuration problems raise :class:`ConfigurationError` saying which."""
    ledger_url, ledger = open_ledger(config)
    try:
        return _open(config, ledger, ledger_url, scope, clock)
    except BaseException:
        ledger.close()
        raise


def open_ledger(config: GatewayConfig) -> tuple[str, Ledger]:
    """The ledger ``config`` names (default: SQLite under ``state_dir``), with its URL."""
    state = config.state_path
    state.mkdir(parents=True, exist_ok=True)
    ledger_url = config.ledger.url or f"sqlite:///{(state / 'ledger.db').resolve()}"
    from memguard.ledger.checkpoint import CheckpointSigner
    from memguard.ledger.witness import WitnessDir

    # every default stack signs: the key lives in the state dir (mode 0600), not in the database,
    # and each checkpoint is also published to the witness directory next to it
    key = config.ledger.checkpoint_key
    signer = CheckpointSigner.load_or_create(
        config.path(key) if key is not None else state / "keys" / "checkpoint.key"
    )
    witness = WitnessDir(state / "witness")
    return ledger_url, Ledger.from_url(ledger_url, checkpoint_signer=signer, witness=witness)


def gateway_identity(
    config: GatewayConfig,
    *,
    replay: ReplayCache | None = None,
    sink: Callable[[AuditEvent], None] | None = None,
    clock: Callable[[], float] = time.time,
) -> tuple[SecurityTokenService | None, IdentityConfig]:
    """The token service and the identity configuration a gateway with ``config`` runs with.

    ``memguard token ... --gateway-config`` uses it too, so the CLI mints and verifies exactly
    what the gateway issues and accepts.
    """
    sts: SecurityTokenService | None = None
    grants = config.sts.delegation
    base = _base_identity(config)
    if config.sts.enabled:
        external: dict[str, TrustedIssuer] = {}
        if base is not None:
            grants = (*base.delegation, *grants)
            external = {
                i.issuer: TrustedIssuer(
                    i.issuer,
                    frozenset(i.algorithms),
                    i.key_source(base.jwks, clock),
                    frozenset(i.attests),
                )
                for i in base.access_tokens.issuers
            }
        key_dir = (
            config.path(config.sts.key_dir) if config.sts.key_dir else config.state_path / "sts"
        )
        sts_issuer = config.sts.issuer or config.resource
        sts = SecurityTokenService(
            key_dir,
            issuer=sts_issuer,
            audiences=(config.resource,),
            trust_domain=config.sts.trust_domain,
            clients=_clients(config),
            delegation=grants,
            alg=config.sts.alg,
            max_ttl=config.sts.max_ttl,
            replay=replay,
            sink=sink,
            extra_issuers={k: v for k, v in external.items() if k != sts_issuer},
            token_endpoint=config.token_endpoint,
            presenter_audience=config.presenter_audience,
            txn_tokens=_txn_token_services(config, clock),
            actor_profiles=config.sts.actor_profiles,
            id_jag=_id_jag_issuers(config, clock),
            id_jag_ttl=config.sts.id_jag.access_ttl,
            clock=clock,
        )
        if config.sts.spiffe_trust_domains:
            sts.spiffe_clients = _spiffe_clients(config, sts, clock)
    return sts, _identity_config(config, base, sts, config.sts.delegation)


def _txn_token_services(config: GatewayConfig, clock: Callable[[], float]) -> list[TxnTokenService]:
    """The trust domains whose Transaction Tokens are subject tokens (memguard.tokens.txn_token)."""
    from memguard.gateway.ssf import config_key_source
    from memguard.tokens.txn_token import TxnTokenService

    return [
        TxnTokenService(
            t.trust_domain, frozenset(t.algorithms), config_key_source(t, config, clock), t.issuer
        )
        for t in config.sts.transaction_tokens
    ]


def _resource_txn_tokens(
    config: GatewayConfig, clock: Callable[[], float]
) -> ResourceTxnTokens | None:
    """Txn-Tokens taken directly at the resource (``at_resource``), from their ``callers``."""
    from memguard.tokens.txn_token import ResourceTxnTokens, TxnTokenVerifier

    entries = [t for t in config.sts.transaction_tokens if t.at_resource]
    if not entries:
        return None
    services = {
        s.trust_domain: s
        for s in _txn_token_services(config, clock)
        if s.trust_domain in {t.trust_domain for t in entries}
    }
    return ResourceTxnTokens(
        TxnTokenVerifier(services, clock=clock),
        {t.trust_domain: frozenset(t.callers) for t in entries},
    )


def _id_jag_issuers(config: GatewayConfig, clock: Callable[[], float]) -> list[IdJagIssuer]:
    """The enterprise IdPs whose ID-JAGs are authorization grants (memguard.tokens.id_jag)."""
    from memguard.gateway.ssf import config_key_source
    from memguard.tokens.id_jag import IdJagIssuer

    return [
        IdJagIssuer(
            i.issuer,
            frozenset(i.algorithms),
            config_key_source(i, config, clock),
            tenant=i.tenant,
            clients=frozenset(i.clients),
            scopes=frozenset(i.scopes) if i.scopes is not None else None,
        )
        for i in config.sts.id_jag.issuers
    ]


def _spiffe_clients(
    config: GatewayConfig, sts: SecurityTokenService, clock: Callable[[], float]
) -> SpiffeClientVerifier:
    """``jwt-spiffe`` client authentication for the federated trust domains of ``sts``."""
    import json

    domains = []
    for d in config.sts.spiffe_trust_domains:
        if d.trust_domain == sts.trust_domain:
            raise ConfigurationError(
                f"sts.spiffe_trust_domains: `{d.trust_domain}` is the token service's own trust "
                "domain (its workloads authenticate with its own keys)"
            )
        bundle = d.bundle
        if d.bundle_file is not None:
            try:
                bundle = json.loads(config.path(d.bundle_file).read_text("utf-8"))
            except (OSError, ValueError) as exc:
                raise ConfigurationError(
                    f"trust domain `{d.trust_domain}`: cannot read bundle_file: {exc}"
                ) from None
        algorithms = frozenset(d.algorithms)
        domains.append(
            SpiffeTrustDomain(
                d.trust_domain,
                algorithms,
                bundle_source(
                    bundle=bundle,
                    bundle_endpoint=d.bundle_endpoint,
                    algorithms=algorithms,
                    clock=clock,
                ),
                issuer=d.issuer,
                require_jti=d.require_jti,
                clients=frozenset(d.clients),
            )
        )
    return SpiffeClientVerifier(
        domains,
        audiences=sts.token_audiences,
        replay=sts.clients.replay,
        max_ttl=sts.workload_ttl,
        leeway=sts.leeway,
        clock=clock,
    )


def _open(
    config: GatewayConfig,
    ledger: Ledger,
    ledger_url: str,
    scope: ScopeResolver | None,
    clock: Callable[[], float],
) -> GatewayStack:
    replay: ReplayCache | None = None
    if config.sts.enabled:
        replay = (
            SqlReplayCache.from_url(ledger_url)
            if config.sts.replay == "sql"
            else MemoryReplayCache()
        )

    def sink(event: AuditEvent) -> None:
        ledger.record([event])  # a deny event is noted for the request's edge (denials.py)

    sts, identity = gateway_identity(config, replay=replay, sink=sink, clock=clock)
    verifier = IdentityVerifier(identity, clock=clock)
    verifier.transactions = _resource_txn_tokens(config, clock)
    policy: PolicyResolver | None = None
    if scope is None and config.policy.path is not None:
        policy = PolicyResolver.from_path(
            config.path(config.policy.path),
            clock=clock,
            reload_interval=config.policy.reload_interval,
        )
        scope = policy
    store = LazyStore(_store_factory(config), config.store.dimension)
    scan_stage = ScanStage(builtin_scanners(), config.scan.policy) if config.scan.enabled else None
    guard = MemoryGuard(
        store=store,
        ledger=ledger,
        verifier=verifier,
        scope=scope,
        clock=clock,
        recover_on_start=False,
        scan_stage=scan_stage,
    )
    if config.identity.flag_confusables:
        guard.kernel.confusables = ConfusableWatch(ledger.owners())
    if sts is not None:
        report = migrate_exchanged_owners(
            guard,
            token_service=sts.issuer,
            subject_issuers=sorted(sts.attests),
            legacy_subject_issuer=config.sts.legacy_subject_issuer,
        )
        if report.ran:
            get_logger().warning(
                "gateway.owner_migration",
                token_service=report.token_service,
                subject_issuer=report.subject_issuer,
                reowned=len(report.reowned),
            )
    stack = GatewayStack(
        config=config,
        guard=guard,
        store=store,
        verifier=verifier,
        identity=identity,
        sts=sts,
        policy=policy,
        replay=replay,
    )
    if config.ssf.enabled:
        _open_ssf(stack, ledger_url, clock)
    if config.receipts.enabled:
        from memguard.gateway.receipts import ReceiptIssuer
        from memguard.receipts import ReceiptKey

        key_path = (
            config.path(config.receipts.key)
            if config.receipts.key
            else config.state_path / "receipt-key.pem"
        )
        stack.receipts = ReceiptIssuer(
            guard, ReceiptKey.load_or_create(key_path), issuer=config.resource
        )
    return stack


def _open_ssf(stack: GatewayStack, ledger_url: str, clock: Callable[[], float]) -> None:
    """The SSF receiver and its deny list, on the ledger's database (memguard.gateway.ssf)."""
    from memguard.gateway.ssf import build_receiver

    config = stack.config
    stack.denylist = DenyList.from_url(ledger_url, refresh=config.ssf.refresh, clock=clock)
    replay = (
        stack.replay
        if isinstance(stack.replay, SqlReplayCache)
        else (SqlReplayCache.from_url(ledger_url))
    )
    stack.ssf = build_receiver(config, stack.guard, stack.denylist, replay, clock=clock)
    stack.verifier.denylist = stack.denylist
    if stack.sts is not None:
        stack.sts.denylist = stack.denylist
