"""RFC 7517 (JWK / JWK Set): where verification keys come from -- configuration only.

RFC 7517 4.2 ``use``: "The 'use' (public key use) parameter identifies the intended use of the
public key" -- keys whose ``use`` is not ``sig`` are skipped. 4.4 ``alg``: "The 'alg' (algorithm)
parameter identifies the algorithm intended for use with the key" -- a key whose ``alg`` is not the
issuer's pinned algorithm is skipped. 4.5 ``kid``: "used to match a specific key" -- keys without a
``kid`` are skipped, and a token must name its key.

:class:`JwksUrlSource` fetches a JWKS URL through PyJWKClient's transport (no redirects, timeout) with
a byte cap, and keeps its own cache: fresh for ``lifespan`` seconds; an unknown ``kid`` triggers at
most one refetch per ``cooldown`` (so a flood of random kids costs one fetch, not one per token);
when the endpoint is down the last good set is used for at most ``max_stale`` seconds past its
lifespan (the grace period), then every token is refused.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from jwt import PyJWK, PyJWKClient
from jwt.jwks_client import _NoRedirectHandler

from memguard.errors import ConfigurationError, IdentityError
from memguard.tokens.rfc7515 import strict_json_object

__all__ = ["JwksUrlSource", "KeySource", "StaticKeySource", "key_fits", "parse_jwks", "public_jwk"]

SigningKey = ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey
PublicKey = ed25519.Ed25519PublicKey | ec.EllipticCurvePublicKey


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def public_jwk(key: SigningKey | PublicKey) -> dict[str, str]:
    """The public JWK of an Ed25519 or P-256 key, ``kid`` = its RFC 7638 thumbprint."""
    pub = key.public_key() if isinstance(key, SigningKey) else key
    if isinstance(pub, ec.EllipticCurvePublicKey):
        nums = pub.public_numbers()
        jwk = {
            "crv": "P-256",
            "kty": "EC",
            "x": _b64(nums.x.to_bytes(32, "big")),
            "y": _b64(nums.y.to_bytes(32, "big")),
        }
        alg = "ES256"
    else:
        raw = pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        jwk = {"crv": "Ed25519", "kty": "OKP", "x": _b64(raw)}
        alg = "EdDSA"
    canonical = json.dumps(jwk, separators=(",", ":"), sort_keys=True).encode()
    return {**jwk, "kid": _b64(hashlib.sha256(canonical).digest()), "alg": alg, "use": "sig"}


class KeySource(Protocol):
    """Returns the public key object for ``kid`` usable with ``alg``, or raises ``IdentityError``."""

    def get(self, kid: str, alg: str) -> object: ...


def key_fits(alg: str, key: object) -> bool:
    """Key family must match the algorithm: no RSA key for EdDSA, no P-384 key for ES256, ..."""
    if alg == "EdDSA":
        return isinstance(key, ed25519.Ed25519PublicKey | ed448.Ed448PublicKey)
    if alg in ("ES256", "ES384"):
        curve = ec.SECP256R1 if alg == "ES256" else ec.SECP384R1
        return isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, curve)
    if alg in ("RS256", "PS256"):
        return isinstance(key, rsa.RSAPublicKey) and key.key_size >= 2048
    return False


def parse_jwks(data: object, algorithms: frozenset[str], *, use: str = "sig") -> dict[str, object]:
    """``kid -> public key`` for the usable signing keys of a JWK Set (RFC 7517 5).

    ``use``: the keys' intended use; ``sig`` (keys without ``use`` count as ``sig``), or another
    value that must be given exactly (a SPIFFE bundle's ``jwt-svid``, spiffe_client_auth.py).
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("keys"), list):
        raise IdentityError("key set unavailable", code="identity.jwks_unavailable")
    out: dict[str, object] = {}
    for jwk in data["keys"]:
        if not isinstance(jwk, dict) or not isinstance(jwk.get("kid"), str):
            continue
        if (
            jwk.get("use", "sig" if use == "sig" else None) != use
            or ("d" in jwk)
            or (jwk.get("kty") == "oct")
        ):
            continue  # other uses, private or symmetric material never verify anything
        if "alg" in jwk and jwk["alg"] not in algorithms:
            continue
        try:
            key = PyJWK({k: v for k, v in jwk.items() if k != "use"}).key
        except Exception:
            continue
        if any(key_fits(alg, key) for alg in algorithms):
            out[jwk["kid"]] = key
    return out


class StaticKeySource:
    """A JWK Set given in configuration."""

    def __init__(self, jwks: object, algorithms: frozenset[str]) -> None:
        self._keys = parse_jwks(jwks, algorithms)
        if not self._keys:
            raise ConfigurationError("static JWKS holds no usable signing key")

    def get(self, kid: str, alg: str) -> object:
        key = self._keys.get(kid)
        if key is None:
            raise IdentityError("unknown key", code="identity.unknown_key")
        if not key_fits(alg, key):
            raise IdentityError("key does not fit algorithm", code="identity.bad_alg")
        return key


class _BoundedClient(PyJWKClient):
    """PyJWKClient's transport (no redirects, timeout) with a byte cap and strict JSON."""

    def __init__(self, uri: str, *, timeout: float, max_bytes: int) -> None:
        super().__init__(uri, cache_keys=False, cache_jwk_set=False, timeout=timeout)
        self.max_bytes = max_bytes

    def fetch_data(self) -> Any:
        request = urllib.request.Request(url=self.uri, headers=self.headers)
        opener = urllib.request.build_opener(_NoRedirectHandler())
        with opener.open(request, timeout=self.timeout) as response:
            if response.status != 200:
                raise OSError("jwks fetch failed")
            body = response.read(self.max_bytes + 1)
        if len(body) > self.max_bytes:
            raise OSError("jwks document too large")
        return strict_json_object(body)


class JwksUrlSource:
    """Keys from a JWKS URL with a cache, refresh-on-unknown-kid cooldown and a stale grace period."""

    def __init__(
        self,
        url: str,
        algorithms: frozenset[str],
        *,
        lifespan: float = 300,
        cooldown: float = 30,
        max_stale: float = 600,
        timeout: float = 2.0,
        max_bytes: int = 64 * 1024,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not url.startswith(("https://", "http://127.0.0.1", "http://localhost", "http://[::1]")):
            raise ConfigurationError(
                f"jwks_url `{url}` must be https (plain http on loopback only)"
            )
        self.url = url
        self.algorithms = algorithms
        self.lifespan, self.cooldown, self.max_stale = lifespan, cooldown, max_stale
        self._client = _BoundedClient(url, timeout=timeout, max_bytes=max_bytes)
        self._clock = clock
        self._lock = threading.Lock()
        self._keys: dict[str, object] = {}
        self._fetched_at: float | None = None
        self._attempted_at: float | None = None
        self.fetches = 0  # attempts, for tests and metrics

    def _refresh(self, now: float) -> None:
        self._attempted_at = now
        self.fetches += 1
        try:
            keys = parse_jwks(self._client.fetch_data(), self.algorithms)
        except Exception:
            return  # keep the last good set; freshness is judged by the caller
        self._keys, self._fetched_at = keys, now

    def _may_fetch(self, now: float) -> bool:
        return self._attempted_at is None or now - self._attempted_at >= self.cooldown

    def get(self, kid: str, alg: str) -> object:
        with self._lock:
            now = self._clock()
            if (self._fetched_at is None or now - self._fetched_at >= self.lifespan) and (
                self._may_fetch(now)
            ):
                self._refresh(now)
            if self._fetched_at is None or now - self._fetched_at >= self.lifespan + self.max_stale:
                raise IdentityError("key set unavailable", code="identity.jwks_unavailable")
            key = self._keys.get(kid)
            if key is None and self._may_fetch(now):
                self._refresh(now)
                key = self._keys.get(kid)
            if key is None:
                raise IdentityError("unknown key", code="identity.unknown_key")
        if not key_fits(alg, key):
            raise IdentityError("key does not fit algorithm", code="identity.bad_alg")
        return key
