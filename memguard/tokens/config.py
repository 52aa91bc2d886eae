"""The identity configuration (YAML). Missing or invalid configuration refuses everything.

Example::

    version: 1
    access_tokens:
      audience: memguard
      issuers:
        - issuer: https://sts.memguard.local
          algorithms: [EdDSA]
          jwks_url: http://127.0.0.1:8700/.well-known/jwks.json   # or `jwks:` inline, or `jwks_file:`
          attests: [https://login.example.com]   # RFC 9493 `sub_id`: subjects it may name (exchange)
        - issuer: https://login.example.com      # users' own tokens
          algorithms: [ES256]
          jwks_url: https://login.example.com/jwks
    workload_credentials:
      audience: memguard/workload    # presenter credentials: never the access-token audience
      typ: wit+jwt
      max_ttl: 600
      trust_domains:
        - trust_domain: memguard.local
          algorithms: [EdDSA]
          jwks_url: http://127.0.0.1:8700/.well-known/workload-jwks.json
    limits: {max_depth: 3, max_ttl: 3600, max_age: 86400, leeway: 30}
    jwks: {lifespan: 300, cooldown: 30, max_stale: 600, timeout: 2.0, max_bytes: 65536}
    delegation:                      # which actor may act for which subject class, with which scopes
      - actor: spiffe://memguard.local/agent/planner
        on_behalf_of: user           # `user` = a subject token without an act chain
        scopes: [memory:read, memory:write]
      - actor: spiffe://memguard.local/agent/browser
        on_behalf_of: spiffe://memguard.local/agent/planner   # re-delegation by this current actor
        scopes: [memory:read, memory:write]
    tenancy: []                      # issuers that share one tenant space (tokens/tenancy.py)
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from memguard import yamlsafe
from memguard.errors import ConfigurationError, IdentityError
from memguard.identity import check_identifier
from memguard.tokens.rfc7515 import ASYMMETRIC_ALGS
from memguard.tokens.rfc7517 import JwksUrlSource, KeySource, StaticKeySource
from memguard.tokens.rfc7519 import MAX_LEEWAY
from memguard.tokens.tenancy import TenancyMap
from memguard.tokens.uses import PRESENTER_TYP, RESERVED_TYPES, check_distinct

__all__ = [
    "DelegationGrant",
    "IdentityConfig",
    "IssuerConfig",
    "JwksSettings",
    "Limits",
    "TenancyGroup",
    "TrustDomainConfig",
    "load_identity_config",
]


def _identifier(value: str, what: str) -> str:
    try:
        return check_identifier(value, what)
    except IdentityError as exc:
        raise ValueError(str(exc)) from None


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class _KeyedSource(_Model):
    algorithms: tuple[str, ...] = ("EdDSA",)
    jwks_url: str | None = None
    jwks: dict[str, Any] | None = None
    jwks_file: str | None = None

    @field_validator("algorithms")
    @classmethod
    def _algs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [a for a in value if a not in ASYMMETRIC_ALGS]
        if not value or bad:
            raise ValueError(f"algorithms must be a non-empty subset of {sorted(ASYMMETRIC_ALGS)}")
        return value

    @model_validator(mode="after")
    def _one_source(self) -> _KeyedSource:
        if sum(x is not None for x in (self.jwks_url, self.jwks, self.jwks_file)) != 1:
            raise ValueError("exactly one of `jwks_url`, `jwks`, `jwks_file` is required")
        return self

    def key_source(self, settings: JwksSettings, clock: Callable[[], float]) -> KeySource:
        algs = frozenset(self.algorithms)
        if self.jwks_url is not None:
            return JwksUrlSource(
                self.jwks_url,
                algs,
                lifespan=settings.lifespan,
                cooldown=settings.cooldown,
                max_stale=settings.max_stale,
                timeout=settings.timeout,
                max_bytes=settings.max_bytes,
                clock=clock,
            )
        if self.jwks_file is not None:
            try:
                data = json.loads(Path(self.jwks_file).read_text("utf-8"))
            except (OSError, ValueError) as exc:
                raise ConfigurationError(
                    f"cannot read jwks_file `{self.jwks_file}`: {exc}"
                ) from None
            return StaticKeySource(data, algs)
        return StaticKeySource(self.jwks, algs)


class IssuerConfig(_KeyedSource):
    issuer: str = Field(min_length=1)
    #: Issuers whose subjects this issuer may name in an RFC 9493 ``sub_id`` (a token service
    #: that exchanges their users' tokens); every issuer attests its own subjects.
    attests: tuple[str, ...] = ()
    #: ``granted``: every ``act`` hop needs a delegation grant; ``asserted``: the issuer's own
    #: ``act`` claims are taken as they are (the embedded development token service only).
    act_chains: Literal["granted", "asserted"] = "granted"

    @field_validator("issuer")
    @classmethod
    def _issuer_name(cls, value: str) -> str:
        return _identifier(value, "issuer")

    @field_validator("attests")
    @classmethod
    def _attested(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(_identifier(v, "attests") for v in value)


class TrustDomainConfig(_KeyedSource):
    trust_domain: str = Field(pattern=r"^[a-z0-9._-]{1,255}$")
    issuer: str | None = None  # if set, JWT-SVIDs must carry exactly this `iss`


class AccessTokens(_Model):
    audience: str = Field(min_length=1)
    issuers: tuple[IssuerConfig, ...] = Field(min_length=1)


class WorkloadCredentials(_Model):
    """Presenter credentials: their own audience and ``typ``, never an access token's (uses.py)."""

    audience: str = Field(min_length=1)
    typ: str = PRESENTER_TYP
    max_ttl: int = Field(default=600, gt=0, le=3600)
    trust_domains: tuple[TrustDomainConfig, ...] = Field(min_length=1)

    @field_validator("typ")
    @classmethod
    def _own_typ(cls, value: str) -> str:
        if not value or value.lower() in RESERVED_TYPES:
            raise ValueError(
                "the presenter credential `typ` must differ from access tokens', "
                "actor tokens' and client assertions'"
            )
        return value


class Limits(_Model):
    max_depth: int = Field(default=3, ge=0, le=10)
    max_ttl: int = Field(default=3600, gt=0, le=86400)
    max_age: int = Field(default=86400, gt=0)
    leeway: int = Field(default=30, ge=0, le=MAX_LEEWAY)


class JwksSettings(_Model):
    lifespan: float = Field(default=300, gt=0)
    cooldown: float = Field(default=30, ge=1)
    max_stale: float = Field(default=600, ge=0)
    timeout: float = Field(default=2.0, gt=0, le=30)
    max_bytes: int = Field(default=64 * 1024, gt=0, le=1 << 20)


class DelegationGrant(_Model):
    actor: str = Field(pattern=r"^spiffe://")
    on_behalf_of: str  # `user` or the spiffe id of the current actor being re-delegated from
    scopes: tuple[str, ...] = Field(min_length=1)

    @field_validator("on_behalf_of")
    @classmethod
    def _class(cls, value: str) -> str:
        if value != "user" and not value.startswith("spiffe://"):
            raise ValueError("on_behalf_of must be `user` or a spiffe:// id")
        return value


class TenancyGroup(_Model):
    """Issuers whose principals are one tenant space, recorded under ``issuer`` (tokens/tenancy.py)."""

    issuer: str = Field(min_length=1)
    aliases: tuple[str, ...] = Field(min_length=1)


class IdentityConfig(_Model):
    """Validated identity configuration: trusted issuers, trust domains, limits, delegation grants."""

    version: Literal[1]
    access_tokens: AccessTokens
    workload_credentials: WorkloadCredentials | None = None
    limits: Limits = Limits()
    jwks: JwksSettings = JwksSettings()
    delegation: tuple[DelegationGrant, ...] = ()
    tenancy: tuple[TenancyGroup, ...] = ()
    #: ``required``: a token with an ``act`` chain is accepted only with its current actor's
    #: presenter credential; ``optional`` (the embedded development default only): without one too.
    presenter_binding: Literal["required", "optional"] = "required"

    @model_validator(mode="after")
    def _coherent(self) -> IdentityConfig:
        names = [i.issuer for i in self.access_tokens.issuers]
        if len(set(names)) != len(names):
            raise ValueError("an issuer is listed twice in `access_tokens.issuers`")
        wc = self.workload_credentials
        try:
            if wc is not None:
                check_distinct(
                    {
                        "access tokens": [self.access_tokens.audience],
                        "presenter credentials": [wc.audience],
                    }
                )
            self.tenancy_map()  # refuses ambiguous or unknown tenancy entries at load
        except ConfigurationError as exc:
            raise ValueError(str(exc)) from None
        return self

    def tenancy_map(self) -> TenancyMap:
        known = {i.issuer for i in self.access_tokens.issuers}
        known.update(a for i in self.access_tokens.issuers for a in i.attests)
        return TenancyMap({g.issuer: g.aliases for g in self.tenancy}, known=known)

    def grant(self, actor: str, on_behalf_of: str) -> DelegationGrant | None:
        for grant in self.delegation:
            if grant.actor == actor and grant.on_behalf_of == on_behalf_of:
                return grant
        return None

    @classmethod
    def from_mapping(cls, data: object, *, where: str = "identity config") -> IdentityConfig:
        if not isinstance(data, dict):
            raise ConfigurationError(f"{where}: must be a mapping")
        try:
            return cls.model_validate(_tupled(data))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"]) or "(root)"
            raise ConfigurationError(f"{where}: `{loc}`: {first['msg']}") from None


def _tupled(value: Any) -> Any:
    # YAML gives lists; strict models want tuples / frozensets for the frozen fields.
    if isinstance(value, dict):
        return {
            k: (v if k == "jwks" and isinstance(v, dict) and "keys" in v else _tupled(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return tuple(_tupled(v) for v in value)
    return value


def load_identity_config(path: str | os.PathLike[str] | None) -> IdentityConfig:
    """Load and validate the YAML file; any problem raises ``ConfigurationError`` saying why.
    Bounded, safe YAML (:mod:`memguard.yamlsafe`): errors name file, line, column and key only."""
    if path is None:
        raise ConfigurationError("no identity configuration; refusing every credential")
    doc = yamlsafe.read(Path(path))
    return yamlsafe.validate(doc, lambda data: IdentityConfig.model_validate(_tupled(data)))
