"""The ``memguard`` command. Results go to stdout, operational errors to stderr; under ``--json``
errors are JSON on stdout too (``{"error": {"code": ..., "message": ...}}``).

Exit codes, the same for every subcommand (memguard/clikit/exits.py): 0 ok / allow / verified,
1 failure, 2 usage error, 3 invalid input or policy, 4 verification failed, 5 denied, 6 not found,
7 policy tests failed, 130 interrupted.

Adding a subcommand: raise a :class:`~memguard.errors.MemguardError` (or
:class:`~memguard.clikit.CliError`) and print results with :func:`~memguard.clikit.emit`; the
group maps errors to exit codes and prints them. A sub-app in its own module is registered in
``_Memguard.lazy_subcommands`` so that ``memguard --help`` does not import it.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from memguard.clikit import DEFAULT_STATE
from memguard.clikit.exits import EXIT_TABLE, CliError, ExitCode
from memguard.clikit.group import ConventionGroup, LazySubcommand
from memguard.clikit.output import emit
from memguard.clikit.progress import progress

if TYPE_CHECKING:
    from memguard.embedded import EmbeddedStack
    from memguard.ledger import Ledger
    from memguard.policy.model import PolicySet
    from memguard.revocation import RevocationSelector

EXIT_CODES_HELP = "**Exit codes**\n\n" + "\n".join(f"- `{int(c)}` {what}" for c, what in EXIT_TABLE)


class _Memguard(ConventionGroup):
    lazy_subcommands = {  # noqa: RUF012  (read-only configuration of the class)
        "console": LazySubcommand(
            "memguard.console.cli:console",
            "Open the audit console (web pages on 127.0.0.1) on a state folder.",
        ),
        "ledger": LazySubcommand(
            "memguard.ledger.cli:ledger_app",
            "Integrate, checkpoint, prove and verify the tamper-evident audit log.",
        ),
        "store": LazySubcommand(
            "memguard.storecli:store_app",
            "Check the vector store against the ledger; rebuild it from the ledger.",
        ),
        "token": LazySubcommand(
            "memguard.tokens.cli:token_app",
            "Mint, exchange, decode and verify tokens for local development and demos.",
        ),
        "receipt": LazySubcommand(
            "memguard.receipts_cli:receipt_app",
            "Verify a signed read receipt offline (signature, read event, inclusion proof).",
        ),
        "eval": LazySubcommand(
            "memguard.evaluate_cli:eval_command",
            "Measure a deployment against a JSONL corpus of memory attacks (exit 7 on a failure).",
        ),
        "rescan": LazySubcommand(
            "memguard.evaluate_cli:rescan_command",
            "Re-scan stored facts with the current scanner (resumable; may lower trust).",
        ),
        "sweep": LazySubcommand(
            "memguard.sweepcli:sweep_command",
            "Delete expired facts (time-to-live) through the kernel, audited; --dry-run lists them.",
        ),
        "adopt": LazySubcommand(
            "memguard.adopt.cli:adopt_app",
            "Turn an existing Qdrant, mem0, LangGraph or SQL store into guarded facts (resumable).",
        ),
        "ssf": LazySubcommand(
            "memguard.gateway.ssf_cli:ssf_app",
            "Manage the gateway's Shared Signals (SSF 1.0) streams at their transmitters.",
        ),
        "serve": LazySubcommand(
            "memguard.gateway.cli:serve",
            "Run memguard as a service: memory API, RFC 8693 token endpoint, JWKS, MCP.",
        ),
    }
    creates_state = frozenset({"demo"})


app = typer.Typer(
    cls=_Memguard,
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help="memguard: provenance and scoped, fail-closed reads for agent memory.",
    epilog=EXIT_CODES_HELP,
)

StateDir = Annotated[
    Path,
    typer.Option(
        "--state-dir",
        help="Folder of the embedded ledger, store and keys (must exist unless --init).",
    ),
]
LedgerUrl = Annotated[
    str | None,
    typer.Option("--ledger-url", help="A PostgreSQL ledger instead of STATE_DIR/ledger.db."),
]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]


@app.callback()
def _setup() -> None:
    """memguard: provenance and scoped, fail-closed reads for agent memory."""
    import logging

    from memguard.logging import configure_json_logging

    configure_json_logging(logging.WARNING)


@app.command()
def demo(
    state_dir: Annotated[
        Path,
        typer.Option(
            "--state-dir",
            help="Where the demo keeps its state: created, and emptied again on each run.",
        ),
    ] = DEFAULT_STATE,
) -> None:
    """Run the end-to-end demo on the embedded defaults.

    Each run starts the demo's own folder afresh, so it can run again and again; a non-empty
    folder the demo did not create is refused."""
    import logging

    from memguard.demo import prepare_demo_dir, run_demo
    from memguard.logging import configure_json_logging

    prepare_demo_dir(state_dir)
    with (state_dir / "operations.jsonl").open("a", encoding="utf-8") as log:
        configure_json_logging(logging.INFO, stream=log)
        code = run_demo(state_dir)
    typer.echo(f"operational log (structlog JSON lines): {state_dir / 'operations.jsonl'}")
    if code:
        raise CliError(ExitCode.FAILURE, "demo.unexpected", "the demo did not go as told above")


# -- selectors -------------------------------------------------------------------------------------


def _usage(message: str) -> CliError:
    return CliError(ExitCode.USAGE, "usage", message)


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
    """At most one selector from the command-line options (a usage error otherwise)."""
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
        first = exc.errors()[0]["msg"] if hasattr(exc, "errors") else str(exc)
        raise _usage(str(first)) from None
    if len(given) > 1:
        raise _usage("give one selector")
    return given[0] if given else None


Src = Annotated[str | None, typer.Option("--source", help="An exact source URI.")]
SrcPattern = Annotated[
    str | None, typer.Option("--source-pattern", help="A glob over source URIs.")
]
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


def _require_ledger(state_dir: Path, ledger_url: str | None) -> None:
    if ledger_url is None and not (state_dir / "ledger.db").exists():
        raise CliError(
            ExitCode.USAGE, "state.no_ledger", f"no ledger in `{state_dir}` (wrong --state-dir?)"
        )


def _open_ledger(state_dir: Path, ledger_url: str | None) -> Ledger:
    """The ledger, with the checkpoint key when the state folder has one (to verify checkpoints)."""
    from memguard.ledger import Ledger
    from memguard.ledger.checkpoint import CheckpointSigner

    _require_ledger(state_dir, ledger_url)
    key = state_dir / "keys" / "checkpoint.key"
    signer = CheckpointSigner.load(key) if key.exists() else None
    if ledger_url is not None:
        return Ledger.from_url(ledger_url, checkpoint_signer=signer)
    return Ledger.sqlite(state_dir / "ledger.db", checkpoint_signer=signer)


def _open_stack(state_dir: Path, ledger_url: str | None) -> EmbeddedStack:
    from memguard.embedded import open_embedded

    _require_ledger(state_dir, ledger_url)
    return open_embedded(state_dir, ledger_url=ledger_url)


def _unknown_fact(fact_id: str) -> CliError:
    return CliError(ExitCode.NOT_FOUND, "not_found", f"unknown fact `{fact_id}`")


# -- audit -----------------------------------------------------------------------------------------


class AuditFormat(enum.StrEnum):
    text = "text"
    json = "json"
    dot = "dot"
    mermaid = "mermaid"
    prov = "prov"


@app.command()
def audit(
    fact_id: Annotated[str | None, typer.Argument(help="The fact to audit.")] = None,
    state_dir: StateDir = DEFAULT_STATE,
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
    output: Annotated[
        AuditFormat | None,
        typer.Option(
            "--format",
            help="text (default), json (memguard.audit/v1), dot or mermaid (the lineage graph), "
            "prov (the lineage as W3C PROV-JSON).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    as_prov: Annotated[bool, typer.Option("--prov", help="Same as --format prov.")] = False,
    no_store: Annotated[
        bool, typer.Option("--no-store", help="Do not check the embedded store's copy.")
    ] = False,
) -> None:
    """Where a fact came from, who wrote it for whom, what it touched, whether it verifies.

    With a selector (--source, --domain, --turn, --principal, ...) instead of a fact id: what a
    source, turn or principal touched. Exit: 0 verified / listed, 4 verification failed, 6 unknown
    fact id."""
    import json

    from memguard.audit import audit_fact, audit_selector, render_selector_text, render_text
    from memguard.errors import FactNotFound

    chosen = {f for f, on in ((AuditFormat.json, as_json), (AuditFormat.prov, as_prov)) if on}
    if output is not None:
        chosen.add(output)
    if len(chosen) > 1:
        raise _usage("give one of --format, --json, --prov")
    fmt = chosen.pop() if chosen else AuditFormat.text
    selector = _selector(
        source, source_pattern, domain, session, turn, principal, jti, subject, issuer, None
    )
    if (selector is None) == (fact_id is None):
        raise _usage("give a fact id or one selector (--source, --turn, ...)")
    if selector is not None and fmt not in (AuditFormat.text, AuditFormat.json):
        raise _usage("a selector listing is text or json")
    ledger = _open_ledger(state_dir, ledger_url)
    store = None
    try:
        if selector is not None:
            listing = audit_selector(ledger, selector)
            emit(listing, fmt is AuditFormat.json, render_selector_text(listing))
            return
        assert fact_id is not None
        if not ledger.versions(fact_id):
            raise _unknown_fact(fact_id)
        if fmt is AuditFormat.prov:
            from memguard.prov import lineage_prov_json

            typer.echo(json.dumps(lineage_prov_json(ledger, fact_id), indent=2, sort_keys=True))
            return
        if fmt in (AuditFormat.dot, AuditFormat.mermaid):
            from memguard.console.graph import lineage_graph, to_dot, to_mermaid

            graph = lineage_graph(ledger, fact_id)
            typer.echo(to_dot(graph) if fmt is AuditFormat.dot else to_mermaid(graph), nl=False)
            return
        if (
            not no_store
            and ledger_url is None
            and any((state_dir / d).exists() for d in ("edge", "qdrant"))
        ):
            from memguard.embedded import open_store

            store = open_store(state_dir)
        try:
            report = audit_fact(ledger, store, fact_id)
        except FactNotFound:
            raise _unknown_fact(fact_id) from None
    finally:
        if store is not None:
            store.close()
        ledger.close()
    emit(report, fmt is AuditFormat.json, render_text(report))
    if not report["verification"]["verified"]:
        raise typer.Exit(ExitCode.VERIFY_FAILED)


# -- revoke, endorse ------------------------------------------------------------------------------


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
    state_dir: StateDir = DEFAULT_STATE,
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
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Only show what would be quarantined (audited preview)."),
    ] = False,
    as_json: AsJson = False,
) -> None:
    """Revoke a source, turn, principal or fact: quarantine it and every descendant.

    As the local operator (the revocation bars everyone). --dry-run only shows what would be
    quarantined. Exit 6 for an unknown --fact."""
    selector = _selector(
        source, source_pattern, domain, session, turn, principal, jti, subject, issuer, fact
    )
    if selector is None:
        raise _usage("give one selector (--source, --domain, --turn, --fact, ...)")
    stack = _open_stack(state_dir, ledger_url)
    try:
        guard = stack.guard
        if fact is not None and not guard.ledger.versions(fact):
            raise _unknown_fact(fact)
        if dry_run:
            preview = guard.kernel.preview_revocation(
                None, selector, follow_context=not derived_only, operator=_operator()
            )
            held = preview.already_quarantined
            data: dict[str, object] = {
                "dry_run": True,
                "selector": selector.model_dump(mode="json", exclude_none=True),
                "roots": list(preview.roots),
                "would_quarantine": [f for f in preview.affected if f not in held],
                "already_quarantined": [f for f in preview.affected if f in held],
                "count": len(preview.affected),
            }
            lines = [
                f"would revoke {selector.describe()}: {len(preview.roots)} facts matched,"
                f" {len(preview.affected)} would be quarantined"
                f" ({len(held)} of them already are)"
            ]
            lines += [
                f"  {f}{'  (already quarantined)' if f in held else ''}" for f in preview.affected
            ]
            emit(data, as_json, "\n".join(lines))
            return
        with progress(f"revoking {selector.describe()}"):
            report = guard.revoke(
                None,
                selector,
                reason=reason,
                follow_context=not derived_only,
                operator=_operator(),
            )
    finally:
        stack.close()
    data = {
        "revocation_id": report.revocation_id,
        "selector": report.selector.model_dump(mode="json", exclude_none=True),
        "roots": list(report.roots),
        "quarantined": list(report.quarantined),
        "count": report.count,
        "store_synced": report.store_synced,
    }
    emit(
        data,
        as_json,
        f"revoked {selector.describe()}: {len(report.roots)} facts matched,"
        f" {report.count} quarantined (revocation {report.revocation_id})",
    )


@app.command()
def endorse(
    fact_ids: Annotated[list[str], typer.Argument(help="Facts whose quarantine to lift.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the audit log).")],
    state_dir: StateDir = DEFAULT_STATE,
    ledger_url: LedgerUrl = None,
    as_json: AsJson = False,
) -> None:
    """Lift the quarantine of facts (an audited endorsement by the local operator).

    Exit 6 if an id is unknown (nothing is lifted then)."""
    stack = _open_stack(state_dir, ledger_url)
    try:
        known = stack.guard.ledger.latest(fact_ids)
        missing = [f for f in fact_ids if f not in known]
        if missing:
            raise _unknown_fact(missing[0])
        operator = _operator()
        lifted = stack.guard.endorse(None, fact_ids, reason=reason, operator=operator)
        after = stack.guard.ledger.latest(lifted)
    finally:
        stack.close()
    from memguard.endorsement import endorsement_report

    data, text = endorsement_report(fact_ids, known, after, operator)
    emit(data, as_json, text)


# -- policy ----------------------------------------------------------------------------------------

policy_app = typer.Typer(
    cls=ConventionGroup,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help="Validate, test and explain YAML policies.",
    epilog=EXIT_CODES_HELP,
)
app.add_typer(policy_app, name="policy")

PolicyPath = Annotated[Path, typer.Argument(help="A policy file or a folder of policy files.")]


def _load_policy(path: Path, as_json: bool) -> PolicySet:
    """Load a policy set; an invalid one prints every problem (and, under --json, the verdict)
    and exits 3."""
    from memguard.policy.loader import load_policy_path
    from memguard.policy.model import PolicyError

    try:
        return load_policy_path(path)
    except PolicyError as exc:
        for problem in exc.problems:
            typer.echo(f"error: {problem}", err=True)
        if as_json:
            emit({"valid": False, "problems": [p.as_json() for p in exc.problems]}, True, "")
        raise typer.Exit(ExitCode.INVALID) from None
    except ValueError as exc:
        raise CliError(ExitCode.INVALID, "invalid_input", str(exc)) from None


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
    from memguard.policy.capability import BACKENDS, report

    policy = _load_policy(path, as_json)
    unknown = [b for b in backend or () if b not in BACKENDS]
    if unknown:
        raise _usage(f"unknown backend `{unknown[0]}` (one of {', '.join(BACKENDS)})")
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
            emit(data, True, "")
        raise typer.Exit(ExitCode.INVALID)
    emit(data, as_json, "\n".join(lines))


@policy_app.command("test")
def policy_test(
    path: Annotated[Path, typer.Argument(help="A *.tests.yaml file or a folder holding them.")],
    as_json: AsJson = False,
) -> None:
    """Run the policy test files.

    Exit 0 all pass, 7 a case fails, 3 a policy is invalid, 6 no test files."""
    from memguard.policy.testing import run_policy_tests

    try:
        reports = run_policy_tests(path)
    except ValueError as exc:
        raise CliError(ExitCode.INVALID, "invalid_input", str(exc)) from None
    if not reports:
        raise CliError(ExitCode.NOT_FOUND, "policy.no_tests", f"no *.tests.yaml files in `{path}`")
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
    emit(
        {"reports": [r.as_json() for r in reports], "passed": passed, "total": total},
        as_json,
        "\n".join(lines),
    )
    if any(r.policy_invalid for r in reports):
        raise typer.Exit(ExitCode.INVALID)
    if not all(r.passed for r in reports):
        raise typer.Exit(ExitCode.TESTS_FAILED)


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
    """Why a request is allowed or denied: the decision, the determining rules, the read plan.

    Exit 0 allow, 5 deny, 3 invalid policy or request."""
    import json
    import sys

    from memguard import yamlsafe
    from memguard.errors import ConfigurationError
    from memguard.policy.resolver import PolicyResolver
    from memguard.policy.testing import DEFAULT_NOW, CaseError, evaluate_request, parse_request

    policy = _load_policy(path, as_json)
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
        raise CliError(ExitCode.INVALID, "invalid_request", str(exc)) from None
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
    emit(result, as_json, "\n".join(lines))
    if result["decision"] != "allow":
        raise typer.Exit(ExitCode.DENIED)


def main() -> None:
    app(prog_name="memguard")


if __name__ == "__main__":  # pragma: no cover
    main()
