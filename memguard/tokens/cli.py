"""``memguard token ...``: mint, exchange, decode and verify tokens for local development and demos.

Which token service and which verifier a command uses:

- by default, those of the gateway that ``memguard serve`` runs without a configuration file
  (keys in ``.memguard/gateway/sts``, resource ``http://127.0.0.1:8700``), so a token minted here
  is accepted by that gateway as it is;
- ``--gateway-config gateway.yaml``: those of the gateway that file configures (its token
  service's keys, issuer and audiences; its trusted issuers, trust domains and grants);
- ``--state-dir DIR`` (and ``--issuer``): a standalone local token service with keys in
  ``DIR/sts``, trusted alone;
- ``verify --config identity.yaml``: a verifier from an identity configuration file.

Exit codes are ``memguard --help``'s: 0 ok / valid, 5 refused (the verdict says why), 3 invalid input
or configuration, 1 other failure. Tokens go to stdout, diagnostics to stderr; under ``--json`` an
error is ``{"error": {"code", "message"}}`` on stdout.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memguard.clikit.exits import CliError, ExitCode

if TYPE_CHECKING:
    from memguard.tokens.config import IdentityConfig
    from memguard.tokens.sts import SecurityTokenService

token_app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)

GatewayConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--gateway-config", help="Gateway YAML: use that gateway's token service and verifier."
    ),
]
StateDir = Annotated[
    Path | None,
    typer.Option("--state-dir", help="A standalone local token service with keys in DIR/sts."),
]
Issuer = Annotated[
    str | None,
    typer.Option("--issuer", help="Issuer of the standalone token service (with --state-dir)."),
]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]
STANDALONE_ISSUER = "https://sts.memguard.local"


@dataclass
class _Target:
    sts: SecurityTokenService | None
    identity: IdentityConfig


def _target(gateway_config: Path | None, state_dir: Path | None, issuer: str | None) -> _Target:
    """The token service and identity configuration a command works with (module docstring)."""
    from memguard.tokens.config import IdentityConfig

    if state_dir is None and issuer is None:
        from memguard.gateway.config import load_gateway_config
        from memguard.gateway.stack import gateway_identity

        sts, identity = gateway_identity(load_gateway_config(gateway_config))
        return _Target(sts, identity)
    if gateway_config is not None:
        from memguard.errors import ConfigurationError

        raise ConfigurationError("give `--gateway-config` or `--state-dir`/`--issuer`, not both")
    from memguard.tokens.sts import SecurityTokenService

    sts = SecurityTokenService(
        (state_dir or Path(".memguard/standalone")) / "sts", issuer=issuer or STANDALONE_ISSUER
    )
    identity = IdentityConfig.from_mapping(
        {
            "version": 1,
            "access_tokens": {
                "audience": min(sts.audiences),
                "issuers": [
                    {"issuer": sts.issuer, "algorithms": [sts.access_keys.alg], "jwks": sts.jwks()}
                ],
            },
            "workload_credentials": {
                "audience": sts.presenter_audience,
                "trust_domains": [
                    {
                        "trust_domain": sts.trust_domain,
                        "algorithms": [sts.workload_keys.alg],
                        "jwks": sts.workload_jwks(),
                    }
                ],
            },
        },
        where="standalone token service",
    )
    return _Target(sts, identity)


def _sts(gateway_config: Path | None, state_dir: Path | None, issuer: str | None) -> Any:
    from memguard.errors import ConfigurationError

    target = _target(gateway_config, state_dir, issuer)
    if target.sts is None:
        raise ConfigurationError("that gateway runs no token service (`sts.enabled: false`)")
    return target.sts


def _read(value: str) -> str:
    """A token argument: the token itself, ``@file``, or ``-`` for stdin."""
    if value == "-":
        return sys.stdin.read().strip()
    if value.startswith("@"):
        return Path(value[1:]).read_text("utf-8").strip()
    return value


@token_app.command("mint-user")
def mint_user(
    subject: Annotated[str, typer.Argument(help="The user's `sub`.")],
    scope: Annotated[list[str] | None, typer.Option("--scope", help="Repeat for several.")] = None,
    audience: Annotated[
        str | None, typer.Option("--audience", help="Default: the gateway's resource.")
    ] = None,
    ttl: Annotated[int, typer.Option("--ttl", help="Seconds.")] = 900,
    gateway_config: GatewayConfigOpt = None,
    state_dir: StateDir = None,
    issuer: Issuer = None,
) -> None:
    """Mint a user access token (at+jwt) from the local token service (development login)."""
    sts = _sts(gateway_config, state_dir, issuer)
    typer.echo(sts.issue_user_token(subject, scopes=scope or (), audience=audience, ttl=ttl))


@token_app.command("mint-workload")
def mint_workload(
    spiffe_id: Annotated[str, typer.Argument(help="spiffe://trust-domain/path")],
    use: Annotated[
        str,
        typer.Option(
            "--use",
            help="presenter (Workload-Identity-Token at the gateway), actor (an RFC 8693 "
            "actor_token) or client (jwt-spiffe client authentication at /token).",
        ),
    ] = "presenter",
    ttl: Annotated[int, typer.Option("--ttl")] = 300,
    gateway_config: GatewayConfigOpt = None,
    state_dir: StateDir = None,
    issuer: Issuer = None,
) -> None:
    """Mint a workload credential (JWT-SVID) for one use; each use has its own typ and audience."""
    sts = _sts(gateway_config, state_dir, issuer)
    typer.echo(sts.issue_workload_credential(spiffe_id, use=use, ttl=ttl))


@token_app.command("jwks")
def jwks(
    workload: Annotated[bool, typer.Option("--workload")] = False,
    gateway_config: GatewayConfigOpt = None,
    state_dir: StateDir = None,
    issuer: Issuer = None,
) -> None:
    """Print the local token service's public JWKS (access tokens, or ``--workload`` credentials)."""
    sts = _sts(gateway_config, state_dir, issuer)
    typer.echo(json.dumps(sts.workload_jwks() if workload else sts.jwks(), indent=2))


@token_app.command("keygen")
def keygen(
    path: Annotated[Path, typer.Argument(help="Where to write the private key (PEM, mode 0600).")],
    alg: Annotated[str, typer.Option("--alg", help="ES256 or EdDSA.")] = "ES256",
) -> None:
    """Create a client key for private_key_jwt; print its public JWKS (register it at the STS)."""
    import os

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from memguard.tokens.rfc7517 import public_jwk

    if alg not in ("ES256", "EdDSA"):
        raise CliError(ExitCode.USAGE, "usage", "--alg is ES256 or EdDSA")
    key = (
        ec.generate_private_key(ec.SECP256R1()) if alg == "ES256" else Ed25519PrivateKey.generate()
    )
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise CliError(
            ExitCode.FAILURE, "file_exists", f"`{path}` exists; a key is never overwritten"
        ) from None
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    typer.echo(json.dumps({"keys": [public_jwk(key)]}, indent=2))


def _key_id(pem: bytes) -> dict[str, str]:
    """The public JWK of a PEM key: its ``kid`` (RFC 7638 thumbprint, what ``keygen`` printed)
    and ``alg``."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from memguard.tokens.rfc7517 import public_jwk

    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey | Ed25519PrivateKey):
        raise ValueError("not an ES256 or EdDSA key")
    return public_jwk(key)


@token_app.command("exchange")
def exchange(
    subject_token: Annotated[str, typer.Argument(help="Token, @file or - (stdin).")],
    token_endpoint: Annotated[str, typer.Option("--token-endpoint")],
    client_id: Annotated[str, typer.Option("--client-id")],
    client_key: Annotated[
        Path, typer.Option("--client-key", help="PEM private key (ES256/EdDSA).")
    ],
    audience: Annotated[str, typer.Option("--audience")],
    scope: Annotated[str, typer.Option("--scope", help="Space-separated scopes.")],
    actor_token: Annotated[str | None, typer.Option("--actor-token")] = None,
    alg: Annotated[
        str | None, typer.Option("--alg", help="Default: the key's (ES256 or EdDSA).")
    ] = None,
    kid: Annotated[
        str | None,
        typer.Option(
            "--kid", help="Default: the key's RFC 7638 thumbprint (what `keygen` printed)."
        ),
    ] = None,
) -> None:
    """RFC 8693 exchange at a token endpoint (authlib client, private_key_jwt)."""
    from memguard.tokens.client import TokenExchangeClient
    from memguard.tokens.rfc8693 import TokenExchangeError

    pem = client_key.read_bytes()
    try:
        jwk = _key_id(pem)
    except ValueError as exc:
        raise CliError(ExitCode.INVALID, "invalid_key", f"`{client_key}`: {exc}") from None
    client = TokenExchangeClient(
        token_endpoint, client_id, pem, alg=alg or jwk["alg"], kid=kid or jwk["kid"]
    )
    try:
        out = client.exchange(
            _read(subject_token),
            audience=audience,
            scope=scope,
            actor_token=_read(actor_token) if actor_token else None,
        )
    except TokenExchangeError as exc:
        raise CliError(
            ExitCode.DENIED, f"token_exchange.{exc.error}", f"refused: {exc.error} ({exc})"
        ) from None
    finally:
        client.close()
    typer.echo(out.access_token)


@token_app.command("decode")
def decode(
    token: Annotated[str, typer.Argument(help="Token, @file or -.")], as_json: AsJson = False
) -> None:
    """Show header and claims WITHOUT verifying anything (after the strict JWS pre-parse)."""
    from memguard.errors import IdentityError
    from memguard.tokens.rfc7515 import parse_compact

    try:
        header, claims = parse_compact(_read(token))
    except IdentityError as exc:
        raise CliError(ExitCode.INVALID, exc.code, str(exc)) from None  # nothing to decode
    data = {"verified": False, "header": header, "claims": claims}
    text = (
        "UNVERIFIED\nheader: "
        + json.dumps(header, indent=2)
        + "\nclaims: "
        + json.dumps(claims, indent=2)
    )
    typer.echo(json.dumps(data, indent=2, sort_keys=True) if as_json else text)


@token_app.command("verify")
def verify(
    token: Annotated[str, typer.Argument(help="Token, @file or -.")],
    config: Annotated[
        Path | None, typer.Option("--config", help="Identity YAML (memguard.tokens.config).")
    ] = None,
    workload_credential: Annotated[str | None, typer.Option("--workload-credential")] = None,
    gateway_config: GatewayConfigOpt = None,
    state_dir: StateDir = None,
    issuer: Issuer = None,
    as_json: AsJson = False,
) -> None:
    """Verify a token (and its presenter) as the gateway would, and print a readable verdict."""
    from memguard.errors import ConfigurationError, IdentityError
    from memguard.tokens.verifier import IdentityVerifier

    if config is not None:
        if gateway_config is not None or state_dir is not None:
            raise ConfigurationError("give one of `--config`, `--gateway-config`, `--state-dir`")
        verifier = IdentityVerifier.from_yaml(config)
    else:
        verifier = IdentityVerifier(_target(gateway_config, state_dir, issuer).identity)
    try:
        presented = _read(token)
        if workload_credential:
            identity = verifier.verify_presented(presented, _read(workload_credential))
        else:
            identity = verifier.verify(presented)
    except IdentityError as exc:
        data: dict[str, Any] = {"valid": False, "code": exc.code, "reason": str(exc)}
        typer.echo(json.dumps(data, sort_keys=True) if as_json else f"refused: {exc.code} ({exc})")
        raise typer.Exit(ExitCode.DENIED) from None  # the verdict is the output
    p = identity.principal
    data = {
        "valid": True,
        "expires_at": identity.expires_at,
        "scopes": sorted(p.scopes),
        **p.summary(),
    }
    chain = " -> ".join(
        [f"{p.subject.subject} @ {p.subject.issuer}", *(a.subject for a in p.actors)]
    )
    text = f"valid: {chain}\nscopes: {' '.join(sorted(p.scopes)) or '-'}\njti: {p.token_jti}"
    typer.echo(json.dumps(data, sort_keys=True) if as_json else text)
