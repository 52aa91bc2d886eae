"""``memguard receipt ...``: check a signed read receipt offline (memguard/receipts.py).

Exit codes (the table of every ``memguard`` command): 0 verified, 4 the receipt does not verify
(signature, event, inclusion proof or checkpoint), 3 invalid input (a key set or receipt file that
does not parse), 1 any other failure. Results go to stdout, errors to stderr (JSON on stdout under
``--json``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from memguard.clikit.exits import CliError, ExitCode
from memguard.clikit.group import ConventionGroup
from memguard.clikit.output import emit
from memguard.errors import ConfigurationError, InvalidRequest

receipt_app = typer.Typer(
    cls=ConventionGroup,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help=__doc__,
)

AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text("utf-8").strip()
    except OSError as exc:
        raise CliError(
            ExitCode.FAILURE, "io", f"cannot read {what} `{path}`: {exc.strerror}"
        ) from None


@receipt_app.command("verify")
def verify(
    receipt: Annotated[Path, typer.Argument(help="A file holding the receipt (the compact JWS).")],
    jwks: Annotated[
        Path,
        typer.Option(
            "--jwks", help="The gateway's receipt key set (GET /.well-known/receipt-jwks.json)."
        ),
    ],
    checkpoint_key: Annotated[
        list[str] | None,
        typer.Option(
            "--checkpoint-key",
            help="The ledger's checkpoint verifier key (signed-note form); "
            "needed to prove the read event's inclusion. Repeatable.",
        ),
    ] = None,
    issuer: Annotated[
        str | None,
        typer.Option("--issuer", help="The gateway the receipt must come from (its resource URL)."),
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Verify a read receipt: signature, the read event it carries, and (with a checkpoint key)
    the event's inclusion under the signed checkpoint. Offline: no ledger or gateway needed."""
    from memguard.receipts import verify_receipt

    try:
        keys = json.loads(_read(jwks, "key set"))
    except ValueError:
        raise InvalidRequest(f"`{jwks}` is not JSON") from None
    if not isinstance(keys, dict):
        raise InvalidRequest(f"`{jwks}` is not a JWK Set")
    try:
        result = verify_receipt(
            _read(receipt, "receipt"),
            keys,
            issuer=issuer,
            checkpoint_keys=tuple(checkpoint_key or ()),
        )
    except ConfigurationError as exc:
        raise InvalidRequest(str(exc)) from None
    summary = result.summary()
    p = result.claims["principal"]
    lines = [
        f"verified: read receipt from {result.claims['iss']}",
        f"  principal: {p.get('subject')} @ {p.get('issuer')}"
        + (f" via {' -> '.join(p['actors'])}" if p.get("actors") else ""),
        f"  {result.claims['action']} for {result.claims['purpose']}, "
        f"policy {result.claims['policy_digest']}",
        *(
            f"  fact {f['id']} v{f['version']} record {f['record_digest']}"
            for f in result.claims["facts"]
        ),
        f"  read event in the audit log: {result.inclusion}"
        + (f" (checkpoint of {result.checkpoint_size} entries)" if result.checkpoint_size else ""),
    ]
    emit(summary, as_json, "\n".join(lines))
