"""``memguard ssf stream``: manage the gateway's SSF 1.0 streams at its transmitters.

memguard is the receiver: these commands read the transmitter's configuration metadata, create,
read, update and delete the stream that delivers to the gateway (push to its ``ssf.path``, or
poll), read and set its status, add and remove subjects, and request a verification event, which
``verify`` waits for the gateway to receive (memguard.gateway.ssf_stream). The gateway YAML names
the transmitter (``ssf.transmitters``: ``issuer``, ``configuration_url``, the management token in
``management_token_file`` / ``management_token_env``); what memguard learns is kept in the ledger's
database (memguard.gateway.ssf_stream_state) for the gateway to match against.

Exit codes as every ``memguard`` command: 0 done, 1 the transmitter or database failed, 3 bad
configuration or input, 4 verification failed (metadata of another issuer, a stream for another
audience, no verification event in time), 6 no stream recorded.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from memguard.clikit.exits import CliError, ExitCode
from memguard.clikit.group import ConventionGroup
from memguard.clikit.output import emit
from memguard.errors import ConfigurationError, IntegrityError
from memguard.gateway.config import GatewayConfig, SsfTransmitter, load_gateway_config
from memguard.gateway.ssf_stream import POLL, PUSH, STATUSES, TransmitterClient
from memguard.gateway.ssf_stream_state import StreamStates
from memguard.provenance import sha256_digest
from memguard.tokens.caep import (
    ASSURANCE_LEVEL_CHANGE,
    CREDENTIAL_CHANGE,
    SESSION_REVOKED,
    TOKEN_CLAIMS_CHANGE,
)

__all__ = ["ssf_app"]

#: the CAEP events memguard acts on (memguard.tokens.caep)
DEFAULT_EVENTS = [SESSION_REVOKED, CREDENTIAL_CHANGE, TOKEN_CLAIMS_CHANGE, ASSURANCE_LEVEL_CHANGE]

ssf_app = typer.Typer(
    cls=ConventionGroup,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help="Shared Signals (SSF 1.0) receiver tools.",
)
stream_app = typer.Typer(
    cls=ConventionGroup,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help=__doc__,
)
ssf_app.add_typer(stream_app, name="stream")

Config = Annotated[Path, typer.Option("--config", help="The gateway YAML (docs/gateway.md).")]
Issuer = Annotated[
    str | None,
    typer.Option(
        "--transmitter", help="The transmitter's issuer (default: the only one configured)."
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]


@dataclass
class _Ctx:
    config: GatewayConfig
    transmitter: SsfTransmitter
    client: TransmitterClient
    states: StreamStates

    @property
    def issuer(self) -> str:
        return self.transmitter.issuer

    def stream_id(self) -> str:
        record = self.states.get(self.issuer)
        if record is None:
            raise CliError(
                ExitCode.NOT_FOUND,
                "ssf.stream_unknown",
                f"no stream recorded for `{self.issuer}`; create or adopt one",
            )
        return record.stream_id


def _token(t: SsfTransmitter, config: GatewayConfig) -> Callable[[], str | None]:
    file = t.management_token_file or t.poll_token_file
    env = t.management_token_env or (t.poll_token_env if file is None else None)
    if file is not None:
        path = config.path(file)
        return lambda: path.read_text("utf-8").strip() or None
    if env is not None:
        return lambda: os.environ.get(env) or None
    return lambda: None


@contextmanager
def _open(config_path: Path, issuer: str | None) -> Iterator[_Ctx]:
    config = load_gateway_config(config_path)
    if not config.ssf.transmitters:
        raise ConfigurationError("ssf: no transmitters configured")
    if issuer is None:
        if len(config.ssf.transmitters) != 1:
            raise ConfigurationError("several transmitters: name one with --transmitter")
        t = config.ssf.transmitters[0]
    else:
        found = [t for t in config.ssf.transmitters if t.issuer == issuer]
        if not found:
            raise ConfigurationError(f"`{issuer}` is not a configured transmitter")
        t = found[0]
    url = config.ledger.url or f"sqlite:///{(config.state_path / 'ledger.db').resolve()}"
    config.state_path.mkdir(parents=True, exist_ok=True)
    states = StreamStates.from_url(url)
    client = TransmitterClient(
        t.issuer, token=_token(t, config), configuration_url=t.configuration_url
    )
    try:
        yield _Ctx(config, t, client, states)
    finally:
        client.close()
        states.close()


def _audience(config: GatewayConfig) -> str:
    from memguard.gateway.ssf import ssf_audience

    return ssf_audience(config)


def _record(ctx: _Ctx, stream: dict[str, Any]) -> dict[str, Any]:
    """Keep the stream; refuse one whose ``aud`` is not the gateway's SSF audience."""
    delivery = stream["delivery"]
    aud = stream.get("aud")
    ctx.states.save(
        ctx.issuer,
        stream["stream_id"],
        delivery_method=str(delivery.get("method")),
        endpoint_url=delivery.get("endpoint_url"),
        audience=aud if isinstance(aud, str) else json.dumps(aud),
    )
    want = _audience(ctx.config)
    if aud is not None and aud != want and not (isinstance(aud, list) and want in aud):
        raise IntegrityError(
            f"the stream's audience is `{aud}`, the gateway accepts `{want}` (set `ssf.audience`)",
            code="ssf.stream_audience",
        )
    return stream


def _text(stream: dict[str, Any]) -> str:
    d = stream.get("delivery", {})
    return (
        f"stream {stream.get('stream_id')}: {d.get('method')} {d.get('endpoint_url') or ''}"
        f"\n  aud {stream.get('aud')}\n  events delivered "
        f"{', '.join(e.rsplit('/', 1)[-1] for e in stream.get('events_delivered') or [])}"
    )


@stream_app.command("discover")
def discover(config: Config, transmitter: Issuer = None, as_json: AsJson = False) -> None:
    """Read and check the transmitter's configuration metadata (SSF 1.0 7.1)."""
    with _open(config, transmitter) as ctx:
        meta = ctx.client.discover().model_dump(mode="json", exclude_none=True)
        emit(meta, as_json, "\n".join(f"{k}: {v}" for k, v in sorted(meta.items())))


@stream_app.command("create")
def create(
    config: Config,
    transmitter: Issuer = None,
    delivery: Annotated[
        str, typer.Option("--delivery", help="`push` (to the gateway's ssf.path) or `poll`.")
    ] = "push",
    endpoint_url: Annotated[
        str | None,
        typer.Option(
            "--endpoint-url",
            help="Push: where the transmitter delivers (default {resource}{ssf.path}).",
        ),
    ] = None,
    event: Annotated[
        list[str] | None,
        typer.Option(
            "--event",
            help="An event type to request (repeatable; default the CAEP events memguard acts on).",
        ),
    ] = None,
    description: Annotated[str | None, typer.Option("--description")] = None,
    as_json: AsJson = False,
) -> None:
    """Create the stream (SSF 1.0 8.1.1.1) and record it."""
    if delivery not in ("push", "poll"):
        raise CliError(ExitCode.USAGE, "usage", "--delivery is `push` or `poll`")
    with _open(config, transmitter) as ctx:
        method = PUSH if delivery == "push" else POLL
        if method not in ctx.client.discover().delivery_methods_supported:
            raise ConfigurationError(f"the transmitter does not offer `{method}`")
        spec: dict[str, Any] = {"method": method}
        if method == PUSH:
            spec["endpoint_url"] = endpoint_url or (
                f"{ctx.config.resource.rstrip('/')}{ctx.config.ssf.path}"
            )
        stream = _record(
            ctx,
            ctx.client.create_stream(
                spec, events_requested=event or DEFAULT_EVENTS, description=description
            ),
        )
        emit(
            stream,
            as_json,
            _text(stream)
            + (
                f"\n  poll_url for ssf.transmitters: {stream['delivery'].get('endpoint_url')}"
                if method == POLL
                else ""
            ),
        )


@stream_app.command("get")
def get(
    config: Config,
    transmitter: Issuer = None,
    stream_id: Annotated[
        str | None,
        typer.Option("--stream-id", help="Adopt this stream (default: the one recorded)."),
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Read the stream's configuration (SSF 1.0 8.1.1.2) and record it."""
    with _open(config, transmitter) as ctx:
        stream = _record(ctx, ctx.client.get_stream(stream_id or ctx.stream_id()))
        emit(stream, as_json, _text(stream))


@stream_app.command("update")
def update(
    config: Config,
    transmitter: Issuer = None,
    event: Annotated[
        list[str] | None,
        typer.Option("--event", help="Event types requested (repeatable; replaces the list)."),
    ] = None,
    endpoint_url: Annotated[
        str | None, typer.Option("--endpoint-url", help="A new push endpoint.")
    ] = None,
    description: Annotated[str | None, typer.Option("--description")] = None,
    as_json: AsJson = False,
) -> None:
    """Change the stream (SSF 1.0 8.1.1.3, ``PATCH``) and record the result."""
    with _open(config, transmitter) as ctx:
        changes: dict[str, Any] = {}
        if event:
            changes["events_requested"] = event
        if description is not None:
            changes["description"] = description
        if endpoint_url is not None:
            changes["delivery"] = {"method": PUSH, "endpoint_url": endpoint_url}
        if not changes:
            raise CliError(ExitCode.USAGE, "usage", "nothing to change")
        stream = _record(ctx, ctx.client.update_stream(ctx.stream_id(), changes))
        emit(stream, as_json, _text(stream))


@stream_app.command("delete")
def delete(config: Config, transmitter: Issuer = None, as_json: AsJson = False) -> None:
    """Delete the stream at the transmitter (SSF 1.0 8.1.1.5) and forget it."""
    with _open(config, transmitter) as ctx:
        sid = ctx.stream_id()
        ctx.client.delete_stream(sid)
        ctx.states.forget(ctx.issuer)
        emit({"deleted": sid}, as_json, f"deleted stream {sid}")


@stream_app.command("status")
def status(config: Config, transmitter: Issuer = None, as_json: AsJson = False) -> None:
    """The stream's status at the transmitter (SSF 1.0 8.1.2.1) and what the gateway recorded."""
    with _open(config, transmitter) as ctx:
        sid = ctx.stream_id()
        remote = ctx.client.get_status(sid)
        record = ctx.states.get(ctx.issuer)
        local = record.summary() if record is not None else {}
        emit(
            {"transmitter": remote, "recorded": local},
            as_json,
            f"stream {sid}: {remote.get('status')} at the transmitter"
            + (f" ({remote['reason']})" if remote.get("reason") else "")
            + f"; last stream event: {local.get('status') or 'none'}"
            + f"; verified at: {local.get('verified_at') or 'never'}",
        )


@stream_app.command("set-status")
def set_status(
    config: Config,
    new_status: Annotated[str, typer.Argument(help="enabled, paused or disabled.")],
    transmitter: Issuer = None,
    reason: Annotated[str | None, typer.Option("--reason")] = None,
    as_json: AsJson = False,
) -> None:
    """Ask the transmitter to change the stream's status (SSF 1.0 8.1.2.2)."""
    if new_status not in STATUSES:
        raise CliError(ExitCode.USAGE, "usage", f"status is one of {', '.join(STATUSES)}")
    with _open(config, transmitter) as ctx:
        answer = ctx.client.set_status(ctx.stream_id(), new_status, reason)
        emit(answer, as_json, f"stream status: {answer.get('status', new_status)}")


def _subject(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if not isinstance(value, dict) or not isinstance(value.get("format"), str):
        raise CliError(
            ExitCode.INVALID,
            "invalid_input",
            "--subject is a JSON subject identifier (RFC 9493), e.g. "
            '\'{"format": "iss_sub", "iss": "...", "sub": "..."}\'',
        )
    return value


SubjectOpt = Annotated[str, typer.Option("--subject", help="A JSON subject identifier.")]


@stream_app.command("add-subject")
def add_subject(
    config: Config, subject: SubjectOpt, transmitter: Issuer = None, as_json: AsJson = False
) -> None:
    """Add a subject to the stream (SSF 1.0 8.1.3.2)."""
    with _open(config, transmitter) as ctx:
        ctx.client.add_subject(ctx.stream_id(), _subject(subject))
        emit({"added": _subject(subject)}, as_json, "subject added")


@stream_app.command("remove-subject")
def remove_subject(
    config: Config, subject: SubjectOpt, transmitter: Issuer = None, as_json: AsJson = False
) -> None:
    """Remove a subject from the stream (SSF 1.0 8.1.3.3)."""
    with _open(config, transmitter) as ctx:
        ctx.client.remove_subject(ctx.stream_id(), _subject(subject))
        emit({"removed": _subject(subject)}, as_json, "subject removed")


@stream_app.command("verify")
def verify(
    config: Config,
    transmitter: Issuer = None,
    timeout: Annotated[
        float, typer.Option("--timeout", min=0.1, max=600, help="Seconds to wait for the event.")
    ] = 30.0,
    as_json: AsJson = False,
) -> None:
    """Request a verification event (SSF 1.0 8.1.4.2) and wait until the gateway received it."""
    with _open(config, transmitter) as ctx:
        sid = ctx.stream_id()
        state = secrets.token_urlsafe(24)
        ctx.states.expect_verification(
            ctx.issuer, sid, sha256_digest(state.encode()), int(time.time())
        )
        started = time.monotonic()
        ctx.client.request_verification(sid, state)
        while ctx.states.pending_verification(ctx.issuer, sid):
            if time.monotonic() - started > timeout:
                raise IntegrityError(
                    f"no verification event from `{ctx.issuer}` within {timeout:g} s",
                    code="ssf.verification_timeout",
                )
            time.sleep(0.1)
        took = time.monotonic() - started
        emit(
            {"stream_id": sid, "verified": True, "seconds": round(took, 3)},
            as_json,
            f"stream {sid} verified: the gateway received the event in {took:.2f} s",
        )
