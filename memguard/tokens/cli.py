"""``memguard token ...``: mint, exchange, decode and verify tokens for local development and demos.

Exit codes: 0 ok / valid, 2 refused (the verdict says why), 3 invalid configuration, 1 other failure.
Tokens go to stdout, diagnostics to stderr. The local STS keeps its keys in ``STATE_DIR/sts``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from memguard.embedded import DEFAULT_STATE_DIR

token_app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)

StateDir = Annotated[Path, typer.Option("--state-dir", help="Folder of the local STS keys.")]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]
Issuer = Annotated[str, typer.Option("--issuer", help="Issuer of the local STS.")]
DEFAULT_DIR = Path(DEFAULT_STATE_DIR) / "demo"
DEFAULT_ISSUER = "https://sts.memguard.local"


def _sts(state_dir: Path, issuer: str) -> Any:
    from memguard.tokens.sts import SecurityTokenService

    return SecurityTokenService(state_dir / "sts", issuer=issuer)


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
    audience: Annotated[str, typer.Option("--audience")] = "memguard",
    ttl: Annotated[int, typer.Option("--ttl", help="Seconds.")] = 900,
    state_dir: StateDir = DEFAULT_DIR,
    issuer: Issuer = DEFAULT_ISSUER,
) -> None:
    """Mint a user access token (at+jwt) from the local STS."""
    typer.echo(_sts(state_dir, issuer).issue_user_token(subject, scopes=scope or (),
                                                         audience=audience, ttl=ttl))


@token_app.command("mint-workload")
def mint_workload(
    spiffe_id: Annotated[str, typer.Argument(help="spiffe://trust-domain/path")],
    audience: Annotated[str, typer.Option("--audience")] = "memguard",
    ttl: Annotated[int, typer.Option("--ttl")] = 300,
    state_dir: StateDir = DEFAULT_DIR,
    issuer: Issuer = DEFAULT_ISSUER,
) -> None:
    """Mint a workload credential (JWT-SVID, typ wit+jwt) from the local STS."""
    from memguard.errors import MemguardError

    try:
        typer.echo(_sts(state_dir, issuer).issue_workload_credential(spiffe_id, audience=audience,
                                                                      ttl=ttl))
    except MemguardError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


@token_app.command("jwks")
def jwks(state_dir: StateDir = DEFAULT_DIR, issuer: Issuer = DEFAULT_ISSUER,
         workload: Annotated[bool, typer.Option("--workload")] = False) -> None:
    """Print the local STS's public JWKS (access tokens, or ``--workload`` credentials)."""
    sts = _sts(state_dir, issuer)
    typer.echo(json.dumps(sts.workload_jwks() if workload else sts.jwks(), indent=2))


@token_app.command("exchange")
def exchange(
    subject_token: Annotated[str, typer.Argument(help="Token, @file or - (stdin).")],
    token_endpoint: Annotated[str, typer.Option("--token-endpoint")],
    client_id: Annotated[str, typer.Option("--client-id")],
    client_key: Annotated[Path, typer.Option("--client-key", help="PEM private key (ES256/EdDSA).")],
    audience: Annotated[str, typer.Option("--audience")],
    scope: Annotated[str, typer.Option("--scope", help="Space-separated scopes.")],
    actor_token: Annotated[str | None, typer.Option("--actor-token")] = None,
    alg: Annotated[str, typer.Option("--alg")] = "ES256",
    kid: Annotated[str | None, typer.Option("--kid")] = None,
) -> None:
    """RFC 8693 exchange at a token endpoint (authlib client, private_key_jwt)."""
    from memguard.tokens.client import TokenExchangeClient
    from memguard.tokens.rfc8693 import TokenExchangeError

    client = TokenExchangeClient(token_endpoint, client_id, client_key.read_bytes(), alg=alg, kid=kid)
    try:
        out = client.exchange(_read(subject_token), audience=audience, scope=scope,
                              actor_token=_read(actor_token) if actor_token else None)
    except TokenExchangeError as exc:
        typer.echo(f"refused: {exc.error} ({exc})", err=True)
        raise typer.Exit(2) from None
    finally:
        client.close()
    typer.echo(out.access_token)


@token_app.command("decode")
def decode(token: Annotated[str, typer.Argument(help="Token, @file or -.")], as_json: AsJson = False) -> None:
    """Show header and claims WITHOUT verifying anything (after the strict JWS pre-parse)."""
    from memguard.errors import IdentityError
    from memguard.tokens.rfc7515 import parse_compact

    try:
        header, claims = parse_compact(_read(token))
    except IdentityError as exc:
        typer.echo(f"malformed: {exc.code} ({exc})", err=True)
        raise typer.Exit(2) from None
    data = {"verified": False, "header": header, "claims": claims}
    text = "UNVERIFIED\nheader: " + json.dumps(header, indent=2) + "\nclaims: " + json.dumps(claims, indent=2)
    typer.echo(json.dumps(data, indent=2, sort_keys=True) if as_json else text)


@token_app.command("verify")
def verify(
    token: Annotated[str, typer.Argument(help="Token, @file or -.")],
    config: Annotated[Path | None, typer.Option("--config", help="Identity YAML; default: trust the local STS.")] = None,
    workload_credential: Annotated[str | None, typer.Option("--workload-credential")] = None,
    state_dir: StateDir = DEFAULT_DIR,
    issuer: Issuer = DEFAULT_ISSUER,
    as_json: AsJson = False,
) -> None:
    """Verify a token (and its presenter) and print a readable verdict."""
    from memguard.errors import ConfigurationError, IdentityError
    from memguard.tokens.config import IdentityConfig
    from memguard.tokens.verifier import IdentityVerifier

    try:
        if config is not None:
            verifier = IdentityVerifier.from_yaml(config)
        else:
            sts = _sts(state_dir, issuer)
            verifier = IdentityVerifier(IdentityConfig.from_mapping({
                "version": 1,
                "access_tokens": {"audience": "memguard", "issuers": [
                    {"issuer": issuer, "algorithms": [sts.access_keys.alg], "jwks": sts.jwks()}]},
                "workload_credentials": {"audience": "memguard", "trust_domains": [
                    {"trust_domain": sts.trust_domain, "algorithms": [sts.workload_keys.alg],
                     "jwks": sts.workload_jwks()}]},
            }))
    except ConfigurationError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(3) from None
    try:
        presented = _read(token)
        if workload_credential:
            identity = verifier.verify_presented(presented, _read(workload_credential))
        else:
            identity = verifier.verify(presented)
    except IdentityError as exc:
        data: dict[str, Any] = {"valid": False, "code": exc.code, "reason": str(exc)}
        typer.echo(json.dumps(data, sort_keys=True) if as_json else f"refused: {exc.code} ({exc})")
        raise typer.Exit(2) from None
    p = identity.principal
    data = {"valid": True, "expires_at": identity.expires_at, "scopes": sorted(p.scopes), **p.summary()}
    chain = " -> ".join([f"{p.subject.subject} @ {p.subject.issuer}", *(a.subject for a in p.actors)])
    text = f"valid: {chain}\nscopes: {' '.join(sorted(p.scopes)) or '-'}\njti: {p.token_jti}"
    typer.echo(json.dumps(data, sort_keys=True) if as_json else text)
