"""The ``memguard`` command. Results go to stdout, operational errors to stderr.

Exit codes: 0 ok (audit: verified), 1 failure, 2 unknown fact id, 4 audit verification failed.
``memguard policy ...``: 0 ok / allow, 2 deny, 3 invalid policy, 1 any other failure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from memguard.ledger import Ledger
    from memguard.policy.model import PolicySet
    from memguard.revocation import RevocationSelector

from memguard.embedded import DEFAULT_STATE_DIR

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)

StateDir = Annotated[
    Path, typer.Option("--state-dir", help="Folder of the embedded ledger, store and keys.")
]


@app.callback()
def _setup() -> None:
    """memguard: provenance and scoped, fail-closed reads for agent memory."""
    import logging

    from memguard.logging import configure_json_logging

    configure_json_logging(logging.WARNING)


@app.command()
def demo(state_dir: StateDir = Path(DEFAULT_STATE_DIR) / "demo") -> None:
    """Run the end-to-end demo on the embedded defaults."""
    import logging

    from memguard.demo import run_demo
    from memguard.logging import configure_json_logging

    state_dir.mkdir(parents=True, exist_ok=True)
    with (state_dir / "operations.jsonl").open("a", encoding="utf-8") as log:
        configure_json_logging(logging.INFO, stream=log)
        code = run_demo(state_dir)
    typer.echo(f"operational log (structlog JSON lines): {state_dir / 'operations.jsonl'}")
    raise typer.Exit(code)


LedgerUrl = Annotated[
    str | None,
    typer.Option("--ledger-url", help="A PostgreSQL ledger instead of STATE_DIR/ledger.db."),
]


def _selector(
    source: str | None,
    source_pattern: str | None,
    domain: str | None,
    session: str | None,
    turn: str | None,
    principal: str | None,
    jti: str | None,
    subject: str | None,
    issuer: str | None,
    fact: str | None,
) -> RevocationSelector | None:
    """At most one selector from the command-line options (exit 1 on a bad combination)."""
    from memguard.revocation import RevocationSelector

    given: list[RevocationSelector] = []
    try:
        if source is not None:
            given.append(RevocationSelector.source(source))
        if source_pattern is not None:
            given.append(RevocationSelector.source_pattern(source_pattern))
        if domain is not None:
            given.append(RevocationSelector.domain(domain))
        if session is not None:
            given.append(RevocationSelector.session(session))
        if turn is not None:
            sid, sep, index = turn.rpartition("#")
            if not sep or not sid or not index.isdigit():
                raise ValueError("`--turn` takes SESSION#INDEX")
            given.append(RevocationSelector.turn(sid, int(index)))
        if principal is not None:
            given.append(
                RevocationSelector.workload(principal)
                if principal.startswith("spiffe://")
                else RevocationSelector.jti(principal)
            )
        if jti is not None:
            given.append(RevocationSelector.jti(jti))
        if subject is not None:
            if issuer is None:
                raise ValueError("`--subject` needs `--issuer`")
            given.append(RevocationSelector.subject(issuer, subject))
        if fact is not None:
            given.append(RevocationSelector.fact(fact))
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    if len(given) > 1:
        typer.echo("error: give one selector", err=True)
        raise typer.Exit(1)
    return given[0] if given else None


Src = Annotated[str | None, typer.Option("--source", help="An exact source URI.")]
SrcPattern = Annotated[str | None, typer.Option("--source-pattern", help="A glob over source URIs.")]
Domain = Annotated[str | None, typer.Option("--domain", help="A host and its subdomains.")]
Session = Annotated[str | None, typer.Option("--session", help="Every turn of a session.")]
TurnOpt = Annotated[str | None, typer.Option("--turn", help="One turn: SESSION#INDEX.")]
PrincipalOpt = Annotated[
    str | None,
    typer.Option("--principal", help="A workload id (spiffe://...) or a token jti."),
]
Jti = Annotated[str | None, typer.Option("--jti", help="A token id.")]
Subject = Annotated[str | None, typer.Option("--subject", help="A user (with --issuer).")]
Issuer = Annotated[str | None, typer.Option("--issuer", help="The issuer of --subject.")]
AsJsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]


def _open_ledger(state_dir: Path, ledger_url: str | None) -> Ledger:
    """The ledger, with the checkpoint key when the state folder has one (to verify checkpoints)."""
    from memguard.ledger import Ledger
    from memguard.ledger.checkpoint import CheckpointSigner

    key = state_dir / "keys" / "checkpoint.key"
    signer = CheckpointSigner.load(key) if key.exists() else None
    if ledger_url is not None:
        return Ledger.from_url(ledger_url, checkpoint_signer=signer)
    if not (state_dir / "ledger.db").exists():
        typer.echo(f"error: no ledger in `{state_dir}`", err=True)
        raise typer.Exit(1)
    return Ledger.sqlite(state_dir / "ledger.db", checkpoint_signer=signer)


@app.command()
def audit(
    fact_id: Annotated[str | None, typer.Argument(help="The fact to audit.")] = None,
    state_dir: StateDir = Path(DEFAULT_STATE_DIR) / "demo",
    ledger_url: LedgerUrl = None,
    source: Src = None,
    source_pattern: SrcPattern = None,
    domain: Domain = None,
    session: Session = None,
    turn: TurnOpt = None,
    principal: PrincipalOpt = None,
    jti: Jti = None,
    subject: Subject = None,
    issuer: Issuer = None,
    prov: Annotated[
        bool, typer.Option("--prov", help="The fact's lineage as W3C PROV-JSON.")
    ] = False,
    no_store: Annotated[
        bool, typer.Option("--no-store", help="Do not check the embedded store's copy.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Stable JSON (memguard.audit/v1).")
    ] = False,
) -> None:
    """Where a fact came from, its lineage, who read it, whether it verifies; or (with a selector
    such as --source, --domain, --turn, --principal) what a source, turn or principal touched.

    Exit: 0 verified / listed, 1 failure, 2 unknown fact id, 4 verification failed."""
    from memguard.audit import audit_fact, audit_selector, render_selector_text, render_text
    from memguard.errors import FactNotFound, MemguardError
    from memguard.prov import lineage_prov_json

    selector = _selector(
        source, source_pattern, domain, session, turn, principal, jti, subject, issuer, None
    )
    if (selector is None) == (fact_id is None):
        typer.echo("error: give a fact id or one selector (--source, --turn, ...)", err=True)
        raise typer.Exit(1)
    store = None
    try:
        ledger = _open_ledger(state_dir, ledger_url)
        try:
            if selector is not None:
                listing = audit_selector(ledger, selector)
                _emit(listing, as_json, render_selector_text(listing))
                raise typer.Exit(0)
            assert fact_id is not None
            if prov:
                typer.echo(json.dumps(lineage_prov_json(ledger, fact_id), indent=2, sort_keys=True))
                raise typer.Exit(0)
            if not no_store and ledger_url is None and (state_dir / "qdrant").exists():
                from memguard.stores.qdrant import QdrantStore

                store = QdrantStore(path=str(state_dir / "qdrant"))
            report = audit_fact(ledger, store, fact_id)
        finally:
            if store is not None:
                store.close()
            ledger.close()
    except FactNotFound:
        typer.echo(f"error: unknown fact `{fact_id}`", err=True)
        raise typer.Exit(2) from None
    except MemguardError as exc:
        typer.echo(f"error: {exc} ({exc.code})", err=True)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True))
    else:
        typer.echo(render_text(report))
    raise typer.Exit(0 if report["verification"]["verified"] else 4)


def _operator() -> str:
    import getpass
    import socket

    try:
        user = getpass.getuser()
    except Exception:
        user = "unknown"
    return f"operator:{user}@{socket.gethostname()}"


@app.command()
def revoke(
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the audit log).")],
    state_dir: StateDir = Path(DEFAULT_STATE_DIR) / "demo",
    ledger_url: LedgerUrl = None,
    source: Src = None,
    source_pattern: SrcPattern = None,
    domain: Domain = None,
    session: Session = None,
    turn: TurnOpt = None,
    principal: PrincipalOpt = None,
    jti: Jti = None,
    subject: Subject = None,
    issuer: Issuer = None,
    fact: Annotated[str | None, typer.Option("--fact", help="One fact id.")] = None,
    derived_only: Annotated[
        bool,
        typer.Option("--derived-only", help="Follow derived_from edges only, not turn taint."),
    ] = False,
    as_json: AsJsonOpt = False,
) -> None:
    """Revoke a source, turn or principal as the local operator: quarantine what it wrote and
    every descendant (exit 0 done, 1 failure)."""
    from memguard.embedded import open_embedded
    from memguard.errors import MemguardError

    selector = _selector(
        source, source_pattern, domain, session, turn, principal, jti, subject, issuer, fact
    )
    if selector is None:
        typer.echo("error: give one selector (--source, --domain, --turn, --fact, ...)", err=True)
        raise typer.Exit(1)
    if ledger_url is None and not (state_dir / "ledger.db").exists():
        typer.echo(f"error: no ledger in `{state_dir}`", err=True)
        raise typer.Exit(1)
    try:
        stack = open_embedded(state_dir, ledger_url=ledger_url)
        try:
            report = stack.guard.revoke(
                None,
                selector,
                reason=reason,
                follow_context=not derived_only,
                operator=_operator(),
            )
        finally:
            stack.close()
    except MemguardError as exc:
        typer.echo(f"error: {exc} ({exc.code})", err=True)
        raise typer.Exit(1) from None
    data = {
        "revocation_id": report.revocation_id,
        "selector": report.selector.model_dump(mode="json", exclude_none=True),
        "roots": list(report.roots),
        "quarantined": list(report.quarantined),
        "count": report.count,
        "store_synced": report.store_synced,
    }
    _emit(
        data,
        as_json,
        f"revoked {selector.describe()}: {len(report.roots)} facts matched,"
        f" {report.count} quarantined (revocation {report.revocation_id})",
    )


@app.command()
def endorse(
    fact_ids: Annotated[list[str], typer.Argument(help="Facts whose quarantine to lift.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the audit log).")],
    state_dir: StateDir = Path(DEFAULT_STATE_DIR) / "demo",
    ledger_url: LedgerUrl = None,
    as_json: AsJsonOpt = False,
) -> None:
    """Lift the quarantine of facts as the local operator (an audited endorsement)."""
    from memguard.embedded import open_embedded
    from memguard.errors import MemguardError

    if ledger_url is None and not (state_dir / "ledger.db").exists():
        typer.echo(f"error: no ledger in `{state_dir}`", err=True)
        raise typer.Exit(1)
    try:
        stack = open_embedded(state_dir, ledger_url=ledger_url)
        try:
            lifted = stack.guard.endorse(None, fact_ids, reason=reason, operator=_operator())
        finally:
            stack.close()
    except MemguardError as exc:
        typer.echo(f"error: {exc} ({exc.code})", err=True)
        raise typer.Exit(1) from None
    _emit({"lifted": lifted}, as_json, f"lifted the quarantine of {len(lifted)} facts")


policy_app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Validate, test and explain YAML policies (exit: 0 ok/allow, 2 deny, 3 invalid, 1 failure).",
)
app.add_typer(policy_app, name="policy")

PolicyPath = Annotated[Path, typer.Argument(help="A policy file or a folder of policy files.")]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]


def _emit(data: object, as_json: bool, text: str) -> None:
    typer.echo(json.dumps(data, indent=2, sort_keys=True) if as_json else text)


def _policy_problems(exc: object, as_json: bool) -> None:
    from memguard.policy.model import PolicyError

    assert isinstance(exc, PolicyError)
    for problem in exc.problems:
        typer.echo(f"error: {problem}", err=True)
    if as_json:
        _emit({"valid": False, "problems": [p.as_json() for p in exc.problems]}, True, "")


def _load_policy_or_exit(path: Path, as_json: bool) -> PolicySet:
    """Load a policy set; exit 3 (invalid policy) or 1 (cannot read) with the reason on stderr."""
    from memguard.policy.loader import load_policy_path
    from memguard.policy.model import PolicyError

    try:
        return load_policy_path(path)
    except PolicyError as exc:
        _policy_problems(exc, as_json)
        raise typer.Exit(3) from None
    except (OSError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


@policy_app.command("validate")
def policy_validate(
    path: PolicyPath,
    as_json: AsJson = False,
    backend: Annotated[
        list[str] | None,
        typer.Option(
            "--backend",
            help="A push-down backend the set must be translatable for (qdrant, sql, mem0, "
            "langgraph); exit 3 if it is not. Without it, every backend is reported.",
        ),
    ] = None,
) -> None:
    """Parse and validate a policy set; print its digest and what each backend can push down."""
    from memguard.pushdown.capability import BACKENDS, report

    policy = _load_policy_or_exit(path, as_json)
    unknown = [b for b in backend or () if b not in BACKENDS]
    if unknown:
        typer.echo(f"error: unknown backend `{unknown[0]}` (one of {', '.join(BACKENDS)})", err=True)
        raise typer.Exit(1)
    pushdown = report(policy, backend or list(BACKENDS))
    data = {
        "valid": True,
        "policy_digest": policy.digest,
        "files": list(policy.files),
        "rules": [r.id for r in policy.rules],
        "pushdown": {b: [u.problem(policy).as_json() for u in us] for b, us in pushdown.items()},
    }
    lines = [f"ok: {len(policy.rules)} rules in {len(policy.files)} files, {policy.digest}"]
    for name, unsupported in pushdown.items():
        lines.append(f"pushdown {name}: " + ("ok" if not unsupported else "NOT translatable"))
        lines += [f"  {u.problem(policy)}" for u in unsupported]
    refused = [u for b in backend or () for u in pushdown[b]]
    if refused:
        for u in refused:
            typer.echo(f"error: {u.problem(policy)}", err=True)
        if as_json:
            _emit(data, True, "")
        raise typer.Exit(3)
    _emit(data, as_json, "\n".join(lines))


@policy_app.command("test")
def policy_test(
    path: Annotated[Path, typer.Argument(help="A *.tests.yaml file or a folder holding them.")],
    as_json: AsJson = False,
) -> None:
    """Run the policy test files (exit 0 all pass, 1 a case fails, 3 a policy is invalid)."""
    from memguard.policy.testing import run_policy_tests

    try:
        reports = run_policy_tests(path)
    except (OSError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    if not reports:
        typer.echo(f"error: no *.tests.yaml files in `{path}`", err=True)
        raise typer.Exit(1)
    lines = []
    for report in reports:
        for problem in report.problems:
            typer.echo(f"error: {problem}", err=True)
        for case in report.cases:
            mark = "ok  " if case.passed else "FAIL"
            lines.append(f"{mark} {report.file}:{case.line} {case.name}")
            if not case.passed:
                lines.append(f"     {case.message}")
    passed = sum(c.passed for r in reports for c in r.cases)
    total = sum(len(r.cases) for r in reports)
    lines.append(f"{passed}/{total} cases passed in {len(reports)} files")
    _emit(
        {"reports": [r.as_json() for r in reports], "passed": passed, "total": total},
        as_json,
        "\n".join(lines),
    )
    if any(r.policy_invalid for r in reports):
        raise typer.Exit(3)
    raise typer.Exit(0 if all(r.passed for r in reports) else 1)


@policy_app.command("explain")
def policy_explain(
    path: PolicyPath,
    request: Annotated[
        str | None,
        typer.Option(
            "--request",
            help="The request as YAML/JSON (a test case without `expect`), a file path, or `-` for stdin.",
        ),
    ] = None,
    subject: Annotated[str | None, typer.Option(help="principal.subject")] = None,
    issuer: Annotated[str, typer.Option(help="principal.issuer")] = "https://idp.example",
    actor: Annotated[list[str] | None, typer.Option(help="an actor, first delegate first")] = None,
    scope: Annotated[list[str] | None, typer.Option(help="a token scope")] = None,
    action: Annotated[str | None, typer.Option(help="the action")] = None,
    purpose: Annotated[str | None, typer.Option(help="context.purpose")] = None,
    namespace: Annotated[str | None, typer.Option(help="target namespace (write)")] = None,
    fact: Annotated[str | None, typer.Option(help="the fact's attributes as JSON")] = None,
    as_json: AsJson = False,
) -> None:
    """Why a request is allowed or denied: the decision, the determining rules, the read plan."""
    import sys

    from memguard import yamlsafe
    from memguard.errors import ConfigurationError
    from memguard.policy.resolver import PolicyResolver
    from memguard.policy.testing import DEFAULT_NOW, CaseError, evaluate_request, parse_request

    policy = _load_policy_or_exit(path, as_json)
    try:
        raw: dict[str, object]
        if request is not None:
            text = sys.stdin.read() if request == "-" else request
            inline = request == "-" or request.lstrip().startswith("{") or "\n" in request
            if not inline and Path(request).is_file():
                text = Path(request).read_text(encoding="utf-8")
            loaded = yamlsafe.load(text, "--request").data
            if not isinstance(loaded, dict):
                raise CaseError("the request must be a mapping")
            raw = loaded
        else:
            if subject is None or action is None:
                raise CaseError("give `--request`, or at least `--subject` and `--action`")
            principal: dict[str, object] = {"subject": subject, "issuer": issuer}
            principal["actors"] = list(actor or [])
            principal["scopes"] = list(scope or [])
            raw = {"principal": principal, "action": action}
            if purpose is not None:
                raw["context"] = {"purpose": purpose}
            if namespace is not None:
                raw["namespace"] = namespace
            if fact is not None:
                raw["fact"] = json.loads(fact)
        now = raw.pop("now", DEFAULT_NOW)
        if isinstance(now, bool) or not isinstance(now, int):
            raise CaseError("`now` must be epoch seconds")
        req = parse_request(raw, now)
        resolver = PolicyResolver(policy, clock=lambda: float(now))
        result = evaluate_request(resolver, req)
    except (CaseError, ValueError, TypeError, ConfigurationError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    by_id = {r.id: r for r in policy.rules}
    ids = result.get("rules")
    details = [
        {"id": i, "effect": by_id[i].effect.value, "description": by_id[i].description,
         "file": by_id[i].file, "line": by_id[i].line}
        for i in (ids if isinstance(ids, list) else []) if i in by_id
    ]  # fmt: skip
    result["rule_details"] = details
    lines = [f"decision: {result['decision']} ({result.get('reason', '')})"]
    for d in details:
        lines.append(f"  {d['effect']} {d['id']} at {d['file']}:{d['line']} {d['description']}")
    errors = result.get("errors")
    for err in errors if isinstance(errors, list) else []:
        lines.append(f"  error: {err}")
    if result.get("kind") == "plan":
        lines.append(f"plan: {result['plan']}")
        if result.get("residual") is not None:
            lines.append(f"residual: {json.dumps(result['residual'], sort_keys=True)}")
    if "max_trust" in result:
        lines.append(f"max_trust: {result['max_trust']}")
    lines.append(f"policy_digest: {result['policy_digest']}")
    _emit(result, as_json, "\n".join(lines))
    raise typer.Exit(0 if result["decision"] == "allow" else 2)


from memguard.gateway.cli import serve  # noqa: E402  (the gateway; loads FastAPI only when run)
from memguard.ledger.cli import ledger_app  # noqa: E402  (audit log sub-app)
from memguard.tokens.cli import token_app  # noqa: E402  (identity sub-app)

app.add_typer(token_app, name="token")
app.add_typer(ledger_app, name="ledger")
app.command("serve")(serve)


def main() -> None:
    app(prog_name="memguard")


if __name__ == "__main__":  # pragma: no cover
    main()
