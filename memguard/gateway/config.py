"""The gateway's configuration: one YAML file, loaded with :mod:`memguard.yamlsafe` into frozen models.

Unknown keys, wrong types and out-of-range values are :class:`~memguard.errors.ConfigurationError`\\ s
naming the field. Every section is optional; with no file at all the gateway runs the embedded stack
(qdrant-edge, a SQLite ledger and the built-in token service) under ``state_dir``. Example::

    version: 1
    state_dir: /var/lib/memguard
    server:
      resource: https://memory.example.com     # this protected resource's identifier (token `aud`)
      host: 127.0.0.1
      port: 8700
    ledger:
      url: postgresql+psycopg://memguard@db/memguard
    store:
      url: http://qdrant:6333                  # or `path:` (the embedded qdrant-edge store, one process)
      api_key_env: QDRANT_API_KEY
      collection: memguard_facts
    identity:
      config: /etc/memguard/identity.yaml      # memguard.tokens.config: issuers via JWKS, trust domains
    sts:
      enabled: true                            # the RFC 8693 token endpoint at /token
      clients:
        - client_id: spiffe://example.org/agent/planner
          jwks_file: /etc/memguard/clients/planner.jwks.json
      replay: sql                              # single-use checks shared through the ledger database
    policy:
      path: /etc/memguard/policies
    limits:
      max_body_bytes: 1048576
      request_timeout: 10
      max_concurrency: 64
      token_rate: {per_minute: 60, burst: 20}
      memory_rate: {per_minute: 600, burst: 100}
      storage: redis://redis:6379/0            # shared by every worker; default: per process
    metrics:
      listen: 127.0.0.1:9464                   # Prometheus /metrics on its own listener
    logging:
      sample_allows: 0.1                       # one access line in ten for allowed requests
    tracing:
      capture_content: false                   # query text and records on spans: opt-in
    idempotency:
      retention: 86400
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from memguard import yamlsafe
from memguard.errors import ConfigurationError
from memguard.scan.stage import ScanPolicy
from memguard.tokens.config import DelegationGrant

__all__ = [
    "GatewayConfig",
    "IdempotencySection",
    "IdentitySection",
    "LedgerSection",
    "LimitsSection",
    "LoggingSection",
    "McpSection",
    "MetricsSection",
    "PolicySection",
    "RateLimit",
    "ScopesSection",
    "ServerSection",
    "StoreSection",
    "StsClient",
    "StsSection",
    "TlsSection",
    "TracingSection",
    "load_gateway_config",
]


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TlsSection(_Section):
    """TLS on the gateway's listener (PEM files). ``client_ca``: verify client certificates
    against these CAs (mutual TLS); ``client_cert``: ``required`` refuses a handshake without
    one, ``optional`` asks for one."""

    cert: str
    key: str
    key_password_env: str | None = Field(default=None, pattern=r"^[A-Z_][A-Z0-9_]*$")
    client_ca: str | None = None
    client_cert: Literal["required", "optional"] = "required"


class ServerSection(_Section):
    """Where the gateway listens and what it calls itself."""

    host: str = "127.0.0.1"
    port: int = Field(default=8700, ge=1, le=65535)
    workers: int = Field(default=1, ge=1, le=64)
    tls: TlsSection | None = None
    #: The resource identifier (RFC 8707 / RFC 9728): access tokens must carry exactly this
    #: audience. Default: ``http://{host}:{port}``.
    resource: str | None = Field(default=None, min_length=1, max_length=2048)

    @model_validator(mode="after")
    def _resource_is_url(self) -> ServerSection:
        if self.resource is not None and not self.resource.startswith(("https://", "http://")):
            raise ValueError("`resource` must be an http(s) URL")
        if self.resource is not None and ("?" in self.resource or "#" in self.resource):
            raise ValueError("`resource` must not have a query or a fragment")
        return self

    def resource_url(self) -> str:
        scheme = "https" if self.tls is not None else "http"
        return (self.resource or f"{scheme}://{self.host}:{self.port}").rstrip("/")


class LedgerSection(_Section):
    """``url``: ``postgresql+psycopg://...`` or ``sqlite:///...``; default: SQLite under ``state_dir``."""

    url: str | None = None
    #: Ed25519 key that signs the audit log's checkpoints (created 0600 if absent); without one
    #: the log is still a Merkle tree, but its checkpoints are unsigned.
    checkpoint_key: str | None = None


class StoreSection(_Section):
    """Qdrant: ``url`` (a server or cluster) or ``path`` (an embedded store folder); default: the
    embedded store in ``state_dir``, as :func:`memguard.open_embedded` opens it.

    The embedded engine (``engine``) is qdrant-edge (``edge``, the default) or qdrant-client local
    mode (``local``, slow at scale). Unset, a folder that holds only a local-mode store (made before
    qdrant-edge was the default) keeps it; ``memguard store rebuild`` moves it to qdrant-edge."""

    url: str | None = None
    path: str | None = None
    engine: Literal["edge", "local"] | None = None
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Z_][A-Z0-9_]*$")
    collection: str = Field(default="memguard_facts", pattern=r"^[A-Za-z0-9_-]{1,64}$")
    dimension: int = Field(default=384, ge=1, le=65536)
    timeout: int = Field(default=5, ge=1, le=120)
    #: An embedded store cannot be shared by processes. ``true`` gives each worker its own store
    #: under ``path`` (facts written through one worker are invisible to the others): for
    #: development and loopback benchmarks only, never for a deployment.
    per_worker_local: bool = False

    @model_validator(mode="after")
    def _one_location(self) -> StoreSection:
        if self.url is not None and self.path is not None:
            raise ValueError("give `url` or `path`, not both")
        if self.per_worker_local and self.url is not None:
            raise ValueError("`per_worker_local` is for an embedded store (`path`)")
        if self.engine is not None and self.url is not None:
            raise ValueError("`engine` is for an embedded store (`path`), not a server (`url`)")
        return self


class IdentitySection(_Section):
    """``config``: a :mod:`memguard.tokens.config` YAML file (external issuers via JWKS, trust domains,
    delegation grants, tenancy). Its ``access_tokens.audience`` must be the gateway's resource
    identifier and its ``workload_credentials.audience`` the presenter audience."""

    config: str | None = None
    #: The audience of the workload credentials agents present with delegated tokens
    #: (``Workload-Identity-Token``); default ``{resource}/workload``. Never the resource itself
    #: nor a token-endpoint audience (memguard/tokens/uses.py).
    presenter_audience: str | None = Field(default=None, min_length=1, max_length=2048)
    #: Record an ``alarm`` when a new subject's UTS #39 skeleton is an existing principal's
    #: (needs the `confusables` extra; memguard/tokens/confusables.py).
    flag_confusables: bool = False


class StsClient(_Section):
    """An OAuth client of the token endpoint, authenticated by ``private_key_jwt`` (RFC 7523)."""

    client_id: str = Field(min_length=1, max_length=1024)
    jwks: dict[str, Any] | None = None
    jwks_file: str | None = None
    algorithms: tuple[str, ...] = ("ES256", "EdDSA")

    @model_validator(mode="after")
    def _one_source(self) -> StsClient:
        if (self.jwks is None) == (self.jwks_file is None):
            raise ValueError("exactly one of `jwks` or `jwks_file` is required")
        return self


class SpiffeTrustDomainConfig(_Section):
    """A federated SPIFFE trust domain whose workloads may authenticate at ``/token`` with their
    JWT-SVIDs (draft-ietf-oauth-spiffe-client-auth; memguard.tokens.spiffe_client_auth)."""

    trust_domain: str = Field(pattern=r"^[a-z0-9._-]{1,255}$")
    #: the trust bundle (a JWK Set with ``use: jwt-svid`` keys), inline, as a file, or its endpoint
    bundle: dict[str, Any] | None = None
    bundle_file: str | None = None
    bundle_endpoint: str | None = None
    algorithms: tuple[str, ...] = ("ES256", "RS256", "EdDSA")
    issuer: str | None = None
    require_jti: bool = True
    #: SPIFFE IDs allowed to authenticate (empty: any workload of the domain; grants still apply)
    clients: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _one_source(self) -> SpiffeTrustDomainConfig:
        if sum(x is not None for x in (self.bundle, self.bundle_file, self.bundle_endpoint)) != 1:
            raise ValueError("give exactly one of `bundle`, `bundle_file`, `bundle_endpoint`")
        return self


class TxnTokenTrust(_Section):
    """A trust domain whose Transaction Tokens the token service takes as subject tokens
    (memguard.tokens.txn_token): its identifier (the Txn-Tokens' ``aud``), the key set of its
    Transaction Token Service, and that service's ``iss`` if it sends one."""

    trust_domain: str = Field(min_length=1, max_length=1024)
    issuer: str | None = Field(default=None, min_length=1, max_length=1024)
    jwks: dict[str, Any] | None = None
    jwks_file: str | None = None
    jwks_url: str | None = None
    algorithms: tuple[str, ...] = ("ES256", "EdDSA")
    #: also take this trust domain's Txn-Tokens directly at the memory resource (``Txn-Token``
    #: header), presented by one of ``callers`` with its own workload credential
    at_resource: bool = False
    #: the SPIFFE IDs of the workloads that may present them there
    callers: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _one_key_source(self) -> TxnTokenTrust:
        if sum(x is not None for x in (self.jwks, self.jwks_file, self.jwks_url)) != 1:
            raise ValueError("give exactly one of `jwks`, `jwks_file`, `jwks_url`")
        if self.at_resource and not self.callers:
            raise ValueError("`at_resource` needs the `callers` that may present the tokens")
        return self


class IdJagIssuerConfig(_Section):
    """An enterprise IdP whose Identity Assertion JWT Authorization Grants (ID-JAG) the token
    service takes (memguard.tokens.id_jag; MCP enterprise-managed authorization)."""

    issuer: str = Field(min_length=1, max_length=1024)
    jwks: dict[str, Any] | None = None
    jwks_file: str | None = None
    jwks_url: str | None = None
    algorithms: tuple[str, ...] = ("ES256", "RS256", "EdDSA")
    #: the ``tenant`` every ID-JAG of this IdP must name (a multi-tenant issuer)
    tenant: str | None = Field(default=None, min_length=1, max_length=1024)
    #: client ids this IdP may issue grants for (empty: any authenticated client)
    clients: tuple[str, ...] = ()
    #: the most an ID-JAG of this IdP can grant (none: the ID-JAG's scope)
    scopes: tuple[str, ...] | None = None

    @model_validator(mode="after")
    def _one_key_source(self) -> IdJagIssuerConfig:
        if sum(x is not None for x in (self.jwks, self.jwks_file, self.jwks_url)) != 1:
            raise ValueError("give exactly one of `jwks`, `jwks_file`, `jwks_url`")
        return self


class IdJagSection(_Section):
    """``sts.id_jag``: the ID-JAG grant at ``/token``; the ID-JAGs' audience is ``sts.issuer``,
    which must then differ from the gateway's resource (one audience per token use)."""

    issuers: tuple[IdJagIssuerConfig, ...] = ()
    #: lifetime of the access tokens issued for an ID-JAG (at most ``sts.max_ttl``)
    access_ttl: int = Field(default=900, gt=0, le=86400)


class StsSection(_Section):
    """The built-in RFC 8693 token service, served at ``/token`` with its JWKS."""

    enabled: bool = True
    issuer: str | None = None  # default: the gateway's resource identifier
    trust_domain: str = Field(default="memguard.local", pattern=r"^[a-z0-9._-]{1,255}$")
    key_dir: str | None = None  # default: {state_dir}/sts
    alg: Literal["EdDSA", "ES256"] = "EdDSA"
    max_ttl: int = Field(default=3600, gt=0, le=86400)
    clients: tuple[StsClient, ...] = ()
    #: ``sql``: used client-assertion ids in the ledger database (several processes, several
    #: hosts); ``memory``: per process (one process only).
    replay: Literal["sql", "memory"] = "sql"
    #: Delegation grants of this token service, added to those of ``identity.config``.
    delegation: tuple[DelegationGrant, ...] = ()
    #: federated trust domains for ``jwt-spiffe`` client authentication
    spiffe_trust_domains: tuple[SpiffeTrustDomainConfig, ...] = ()
    #: A ledger written before memguard kept the subject's issuer in exchanged tokens owns the
    #: facts agents wrote by (this token service, sub). With exactly one other trusted issuer they
    #: are re-owned to it when the gateway opens the ledger; with several, this names the one
    #: (memguard/owner_migration.py). Without it the gateway refuses to start on such a ledger.
    legacy_subject_issuer: str | None = Field(default=None, min_length=1, max_length=1024)
    #: Transaction Tokens of these trust domains are accepted as subject tokens
    transaction_tokens: tuple[TxnTokenTrust, ...] = ()
    #: The entity profile (``sub_profile``) of each actor in the ``act`` entries this service
    #: issues, by actor (SPIFFE) id: ``ai_agent``, ``service``, ...
    actor_profiles: dict[str, str] = {}
    #: MCP enterprise-managed authorization: ID-JAGs of these IdPs are authorization grants
    id_jag: IdJagSection = IdJagSection()


class PolicySection(_Section):
    """``path``: a YAML policy file or folder (``PolicyResolver.from_path``); default: owner isolation."""

    path: str | None = None
    reload_interval: float = Field(default=1.0, gt=0, le=3600)


class RateLimit(_Section):
    """A token bucket per principal: ``per_minute`` sustained, ``burst`` at once."""

    per_minute: float = Field(gt=0, le=1_000_000)
    burst: int = Field(ge=1, le=1_000_000)


class LimitsSection(_Section):
    max_body_bytes: int = Field(default=1 << 20, ge=1024, le=64 << 20)
    request_timeout: float = Field(default=10.0, gt=0, le=600)
    max_concurrency: int = Field(default=64, ge=1, le=10_000)
    #: How long a request waits for a free slot before 503.
    queue_timeout: float = Field(default=1.0, ge=0, le=60)
    #: Token endpoint, per *authenticated* client.
    token_rate: RateLimit | None = RateLimit(per_minute=60, burst=20)
    #: Token endpoint, per peer address, before the client is authenticated (only where the
    #: gateway sees real client addresses: behind a load balancer every peer is the balancer).
    token_peer_rate: RateLimit | None = None
    #: Every memory route and MCP together, per principal and OAuth client.
    memory_rate: RateLimit | None = RateLimit(per_minute=1200, burst=200)
    #: Per route as well (``write``, ``search``, ``get``, ``list``, ``update``, ``delete``,
    #: ``audit``, ``revoke``, ``endorse``), per principal and OAuth client.
    route_rates: dict[str, RateLimit] = Field(default_factory=dict)
    #: Where the counters live: ``memory`` (this process) or ``redis://host:port/db`` (shared
    #: by every worker and host; ``rediss://`` for TLS).
    storage: str = Field(default="memory", pattern=r"^(memory|rediss?://\S+)$")
    #: Keys in the shared storage start with this (several gateways can share one Redis).
    key_prefix: str = Field(default="memguard", pattern=r"^[A-Za-z0-9_.:-]{1,64}$")
    #: When the storage fails: ``deny`` (503, audited: fail closed) or ``allow`` (unlimited
    #: while it is down, audited as an alarm in the operational log).
    on_storage_error: Literal["deny", "allow"] = "deny"
    #: Seconds to wait for the storage before treating it as down.
    storage_timeout: float = Field(default=0.25, gt=0, le=10)

    @model_validator(mode="after")
    def _known_routes(self) -> LimitsSection:
        unknown = set(self.route_rates) - ROUTE_ACTIONS
        if unknown:
            raise ValueError(f"unknown route `{sorted(unknown)[0]}` in `route_rates`")
        return self


#: Route names for ``limits.route_rates`` (the actions of the memory routes).
ROUTE_ACTIONS = frozenset(
    {"write", "search", "get", "list", "update", "delete", "audit", "revoke", "endorse"}
)


class ScopesSection(_Section):
    """OAuth scopes each kind of operation needs (``null``: no scope check, policy alone decides)."""

    read: str | None = "memory:read"
    write: str | None = "memory:write"
    audit: str | None = "memory:read"
    #: ``POST /v1/revocations``: a revocation quarantines what it matches and every descendant,
    #: and bars new writes it matches; policy (action ``revoke``) decides which facts it reaches.
    revoke: str | None = "memory:revoke"
    #: ``POST /v1/facts/{id}/endorse``: lifting a quarantine; policy action ``endorse``.
    endorse: str | None = "memory:endorse"


class McpSection(_Section):
    enabled: bool = True
    path: str = Field(default="/mcp", pattern=r"^/[a-z0-9_/-]{1,64}$")


class MetricsSection(_Section):
    """Prometheus metrics. Recorded in every worker (multi-process files under
    ``PROMETHEUS_MULTIPROC_DIR``, by default ``{state_dir}/prometheus``); served on a listener of
    their own, never on the API port: ``listen`` (``host:port``; ``null``: not served)."""

    enabled: bool = True
    listen: str | None = Field(
        default=None, pattern=r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}$"
    )
    #: An environment variable holding a bearer token the scraper must send (``Authorization:
    #: Bearer ...``); without it the listener's bind address is the only control.
    token_env: str | None = Field(default=None, pattern=r"^[A-Z_][A-Z0-9_]*$")
    #: Seconds between full audit-log verifications behind ``memguard_ledger_verify_ok``
    #: (0: never; the verification reads the whole log).
    verify_interval: float = Field(default=300.0, ge=0, le=86400)


class LoggingSection(_Section):
    """One JSON access line per request on stderr (request id, principal digest, route, status,
    decision, reason, latency)."""

    level: Literal["debug", "info", "warning", "error"] = "info"
    access: bool = True
    #: The share of *allowed* requests that get their access line; refusals and server errors
    #: always do.
    sample_allows: float = Field(default=1.0, ge=0, le=1)


class TracingSection(_Section):
    """OpenTelemetry: spans are exported when an SDK tracer provider is installed (e.g. by
    ``opentelemetry-instrument`` and the ``OTEL_*`` variables); W3C ``traceparent`` is always
    read, so provenance keeps the caller's trace."""

    #: Query text and record content on spans (``gen_ai.memory.query.text``,
    #: ``gen_ai.memory.records``): sensitive, off by default.
    capture_content: bool = False


class IdempotencySection(_Section):
    """``Idempotency-Key`` on writes: a retried write returns the first result (kept in the
    ledger database, so every worker and a restarted one see it)."""

    enabled: bool = True
    #: How long a key is remembered (seconds).
    retention: float = Field(default=86400.0, ge=60, le=30 * 86400)
    #: A reservation older than this with no outcome is taken for a dead worker's: the write it
    #: named is reconciled from the ledger (committed: replayed; else: written again).
    lease: float = Field(default=60.0, ge=1, le=3600)


def _https_or_loopback(url: str) -> bool:
    import ipaddress
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return True
    if parts.scheme != "http" or not parts.hostname:
        return False
    if parts.hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(parts.hostname).is_loopback
    except ValueError:
        return False


https_or_loopback = _https_or_loopback


class SsfTransmitter(_Section):
    """A Shared Signals transmitter whose Security Event Tokens this gateway accepts."""

    issuer: str = Field(min_length=1, max_length=1024)
    jwks: dict[str, Any] | None = None
    jwks_file: str | None = None
    jwks_url: str | None = None
    algorithms: tuple[str, ...] = ("ES256", "EdDSA")
    #: RFC 8936 poll delivery (memguard.gateway.ssf_poll): the transmitter's polling endpoint.
    poll_url: str | None = Field(default=None, min_length=1, max_length=2048)
    #: The bearer token memguard presents to the polling endpoint: a file holding it, or the
    #: name of an environment variable (never the token itself in the config).
    poll_token_file: str | None = None
    poll_token_env: str | None = Field(default=None, pattern=r"^[A-Z_][A-Z0-9_]{0,127}$")
    #: Seconds between polls (the longest a polled event waits before it is applied).
    poll_interval: float = Field(default=1.0, gt=0, le=300)
    poll_max_events: int = Field(default=32, ge=1, le=256)
    #: SSF 1.0 stream management (``memguard ssf stream``, memguard.gateway.ssf_stream): the
    #: transmitter's configuration metadata URL (default ``/.well-known/ssf-configuration`` plus
    #: the issuer's path) and the bearer token of its management endpoints (a file or an
    #: environment variable; default: the poll token).
    configuration_url: str | None = Field(default=None, min_length=1, max_length=2048)
    management_token_file: str | None = None
    management_token_env: str | None = Field(default=None, pattern=r"^[A-Z_][A-Z0-9_]{0,127}$")

    @model_validator(mode="after")
    def _one_key_source(self) -> SsfTransmitter:
        if sum(x is not None for x in (self.jwks, self.jwks_file, self.jwks_url)) != 1:
            raise ValueError("give exactly one of `jwks`, `jwks_file`, `jwks_url`")
        if self.poll_token_file is not None and self.poll_token_env is not None:
            raise ValueError("give at most one of `poll_token_file`, `poll_token_env`")
        if self.poll_url is not None and not _https_or_loopback(self.poll_url):
            raise ValueError("`poll_url` must be https (or a loopback http address)")
        if self.management_token_file is not None and self.management_token_env is not None:
            raise ValueError("give at most one of `management_token_file`, `management_token_env`")
        if self.configuration_url is not None and not _https_or_loopback(self.configuration_url):
            raise ValueError("`configuration_url` must be https (or a loopback http address)")
        return self


class SsfSection(_Section):
    """SSF/CAEP receiver (memguard.gateway.ssf): RFC 8935 push delivery of RFC 8417 SETs, and
    RFC 8936 poll delivery from the transmitters that name a ``poll_url``."""

    enabled: bool = False
    path: str = Field(default="/ssf/events", pattern=r"^/[a-z0-9_/-]{1,64}$")
    #: The SETs' ``aud`` (default ``{resource}/ssf``; its own audience, like every token use).
    audience: str | None = Field(default=None, min_length=1, max_length=2048)
    transmitters: tuple[SsfTransmitter, ...] = ()
    #: ``session-revoked`` also revokes (quarantines) what was written in that session.
    revoke_session_writes: bool = False
    #: How long a deny entry is kept: at least the longest access-token lifetime (seconds).
    retention: int = Field(default=86400, ge=60, le=30 * 86400)
    #: How often each worker re-reads the shared deny list (seconds).
    refresh: float = Field(default=0.25, gt=0, le=60)
    #: Oldest SET ``iat`` accepted (seconds); also how long its ``jti`` is remembered.
    max_age: int = Field(default=300, ge=10, le=86400)
    #: RFC 8936 with several processes: one poller per transmitter holds a lease
    #: (memguard.gateway.ssf_lease); on SQLite a dead holder's lease is taken after this many
    #: seconds (PostgreSQL: an advisory lock, released when the holder's connection ends).
    poll_lease_ttl: float = Field(default=5.0, gt=0, le=300)


class ReceiptsSection(_Section):
    """Signed read receipts (memguard.gateway.receipts): on request, a search or get returns one."""

    enabled: bool = True
    #: The Ed25519 receipt key (PEM; created on first start). Default ``{state_dir}/receipt-key.pem``.
    key: str | None = None


class ScanSection(_Section):
    """The write-time content scan (memguard.scan): the built-in offline scanners (the rules and
    the trained model, :func:`memguard.scan.builtin_scanners`), and what
    its verdicts do to trust (``suspicious``/``malicious``: a trust level or ``refuse``)."""

    enabled: bool = True
    policy: ScanPolicy = ScanPolicy()


class GatewayConfig(_Section):
    """The whole gateway configuration."""

    version: Literal[1] = 1
    state_dir: str = ".memguard/gateway"
    server: ServerSection = ServerSection()
    ledger: LedgerSection = LedgerSection()
    store: StoreSection = StoreSection()
    identity: IdentitySection = IdentitySection()
    sts: StsSection = StsSection()
    policy: PolicySection = PolicySection()
    limits: LimitsSection = LimitsSection()
    scopes: ScopesSection = ScopesSection()
    mcp: McpSection = McpSection()
    metrics: MetricsSection = MetricsSection()
    logging: LoggingSection = LoggingSection()
    tracing: TracingSection = TracingSection()
    idempotency: IdempotencySection = IdempotencySection()
    ssf: SsfSection = SsfSection()
    receipts: ReceiptsSection = ReceiptsSection()
    scan: ScanSection = ScanSection()
    #: Recover pending writes at start (one process). With several processes on one ledger, run it
    #: from one place; ``recover_older_than`` keeps it off other processes' writes in flight.
    recover_on_start: bool = True
    recover_older_than: float = Field(default=300.0, ge=0)
    _base_dir: Path = PrivateAttr(default_factory=Path.cwd)

    @model_validator(mode="after")
    def _coherent(self) -> GatewayConfig:
        if not self.sts.enabled and self.identity.config is None:
            raise ValueError(
                "with `sts.enabled: false`, `identity.config` must name trusted issuers"
            )
        return self

    @property
    def resource(self) -> str:
        return self.server.resource_url()

    @property
    def presenter_audience(self) -> str:
        """The audience of presenter credentials (memguard/tokens/uses.py)."""
        from memguard.tokens.uses import default_presenter_audience

        return self.identity.presenter_audience or default_presenter_audience(self.resource)

    @property
    def token_endpoint(self) -> str:
        """The token endpoint URL: ``/token`` at the resource's origin, where the gateway mounts the
        route (a resource ``https://host/mcp`` has ``https://host/token``). The RFC 8414 metadata
        advertises it and client assertions and actor tokens name it (or the issuer, RFC 7523 3,
        when no other token use has the issuer's name); an explicit ``sts.issuer`` does not move
        it: the route is this gateway's."""
        from memguard.tokens.uses import default_token_endpoint

        return default_token_endpoint(self.resource)

    def path(self, value: str) -> Path:
        """A path from the file, relative to the file's folder."""
        p = Path(value)
        return p if p.is_absolute() else self._base_dir / p

    @property
    def state_path(self) -> Path:
        return self.path(self.state_dir)

    @classmethod
    def from_mapping(cls, data: object, *, where: str = "gateway config") -> GatewayConfig:
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise ConfigurationError(f"{where}: must be a mapping")
        try:
            return cls.model_validate(_tupled(data))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"]) or "(root)"
            msg = first["msg"]
            if first["type"] == "extra_forbidden":
                msg = "unknown key"
            raise ConfigurationError(f"{where}: `{loc}`: {msg.lower()}") from None


def _tupled(value: Any, key: str = "") -> Any:
    # YAML gives lists; the strict delegation-grant model wants tuples. JWKS documents stay as is.
    if isinstance(value, dict):
        return (
            value
            if key in ("jwks", "bundle")
            else {k: _tupled(v, str(k)) for k, v in value.items()}
        )
    if isinstance(value, list):
        return tuple(_tupled(v) for v in value)
    return value


def load_gateway_config(path: str | os.PathLike[str] | None) -> GatewayConfig:
    """Load and validate the YAML file (``None``: all defaults). Bounded, safe YAML
    (:mod:`memguard.yamlsafe`); every error names file, line, column and key, never a value."""
    if path is None:
        return GatewayConfig()
    p = Path(path)
    doc = yamlsafe.read(p)
    if doc.data is None:
        config = GatewayConfig()
    else:
        config = yamlsafe.validate(doc, lambda data: GatewayConfig.model_validate(_tupled(data)))
    config._base_dir = p.resolve().parent
    return config
