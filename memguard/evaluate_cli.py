"""``memguard eval`` (the command line of :mod:`memguard.evaluate`) and ``memguard rescan``
(:meth:`memguard.guard.MemoryGuard.rescan`), registered lazily in cli.py."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from memguard.clikit.exits import CliError, ExitCode
from memguard.clikit.output import emit

__all__ = ["eval_command", "rescan_command"]


def eval_command(
    corpus: Annotated[
        Path, typer.Argument(help="A JSONL corpus: one {id, label, text[, family]} per line.")
    ],
    policies: Annotated[
        Path,
        typer.Option(
            "--policies",
            help="The policy folder or file to deploy (the reference "
            "policies are the repository's policies/ folder).",
        ),
    ] = Path("policies"),
    scan: Annotated[
        bool, typer.Option("--scan/--no-scan", help="Deploy the built-in content scanner.")
    ] = True,
    min_detection: Annotated[
        float, typer.Option("--min-detection", min=0.0, max=1.0, help="Required detection.")
    ] = 0.9,
    max_false_positives: Annotated[
        float,
        typer.Option("--max-false-positives", min=0.0, max=1.0, help="Allowed false positives."),
    ] = 0.02,
    searches: Annotated[
        int,
        typer.Option("--searches", min=0, max=10_000, help="Attack-shaped searches per purpose."),
    ] = 20,
    as_json: Annotated[
        bool, typer.Option("--json", help="Machine-readable JSON on stdout.")
    ] = False,
    gateway: Annotated[
        str | None,
        typer.Option(
            "--gateway",
            help="Measure a running gateway at this URL instead of an "
            "embedded deployment (its own policies and scanner count; needs --token-file).",
        ),
    ] = None,
    token_file: Annotated[
        Path | None,
        typer.Option(
            "--token-file",
            help="With --gateway: JSON tokens per writer chain "
            '({"user": ..., "agent": {"token": ..., "workload": ...}, "sub-agent": ..., '
            '"revoker": ...}).',
        ),
    ] = None,
) -> None:
    """Write a corpus of memory attacks through every untrusted channel and writer chain of a
    fresh embedded deployment (or of a running gateway, --gateway) and report trust per channel,
    scanner detection and false positives, attack facts reachable for tool_argument and planning,
    render breakouts and revocation coverage.

    Exits 7 when a guarantee fails (an attack reachable for an action, a breakout, a fact readable
    after its source was revoked, detection or false positives past the thresholds), 3 on a bad
    corpus, policy or token file, 1 when the gateway cannot be reached."""
    from memguard.evaluate import CorpusError, load_corpus, render_table, run_eval
    from memguard.policy.resolver import PolicyResolver

    try:
        rows = load_corpus(corpus)
    except CorpusError as exc:
        raise CliError(ExitCode.INVALID, "invalid_input", str(exc)) from None
    if gateway is not None or token_file is not None:
        report = _gateway_report(rows, gateway, token_file, min_detection, max_false_positives,
                                 searches)  # fmt: skip
        emit(report.as_json(), as_json, render_table(report))
        if report.failures():
            raise typer.Exit(ExitCode.TESTS_FAILED)
        return
    if not policies.exists():
        raise CliError(ExitCode.USAGE, "usage", f"no policies at `{policies}` (see --policies)")
    resolver = PolicyResolver.from_path(policies)
    report = run_eval(
        rows, scope=resolver, scan=scan, min_detection=min_detection,
        max_false_positives=max_false_positives, searches=searches,
    )  # fmt: skip
    emit(report.as_json(), as_json, render_table(report))
    if report.failures():
        raise typer.Exit(ExitCode.TESTS_FAILED)


def _gateway_report(
    rows: list[dict[str, Any]],
    gateway: str | None,
    token_file: Path | None,
    min_detection: float,
    max_false_positives: float,
    searches: int,
) -> Any:
    from memguard.client import GatewayUnavailable
    from memguard.evaluate_gateway import TokenFileError, load_tokens, run_gateway_eval

    if gateway is None or token_file is None:
        raise CliError(ExitCode.USAGE, "usage", "--gateway and --token-file go together")
    try:
        tokens = load_tokens(token_file)
    except TokenFileError as exc:
        raise CliError(ExitCode.INVALID, "invalid_input", str(exc)) from None
    try:
        return run_gateway_eval(
            rows,
            gateway,
            tokens,
            min_detection=min_detection,
            max_false_positives=max_false_positives,
            searches=searches,
        )
    except GatewayUnavailable as exc:
        raise CliError(ExitCode.FAILURE, "backend.unavailable", str(exc)) from None


def rescan_command(
    state_dir: Annotated[
        Path, typer.Option("--state-dir", help="The state folder whose facts to re-scan.")
    ] = Path(".memguard"),
    ledger_url: Annotated[
        str | None,
        typer.Option("--ledger-url", help="A PostgreSQL ledger instead of STATE_DIR/ledger.db."),
    ] = None,
    batch: Annotated[
        int, typer.Option("--batch", min=1, max=10_000, help="Facts per batch.")
    ] = 200,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="A gateway configuration whose `scan` section (its policy: "
            "what each verdict does to trust) to re-scan under; default: the built-in "
            "defaults.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Machine-readable JSON on stdout.")
    ] = False,
) -> None:
    """Re-scan the facts the built-in scanner has not scanned under this version and this scan
    policy, as the local operator: each gets a new version with the new verdict, and a lower trust
    when the verdict caps it (a rescan never raises trust). A changed scan policy counts as a
    change (its digest is part of a verdict's version). Resumable: run it again after an
    interruption."""
    from memguard.clikit.progress import progress
    from memguard.embedded import open_embedded
    from memguard.scan import builtin_scanners
    from memguard.scan.stage import ScanStage

    if not (state_dir / "ledger.db").exists() and ledger_url is None:
        raise CliError(ExitCode.USAGE, "usage", f"no ledger in `{state_dir}` (see --state-dir)")
    policy = _scan_policy(config) if config is not None else None
    stack = open_embedded(state_dir, ledger_url=ledger_url, scan=policy is None)
    if policy is not None:
        stack.guard.kernel.scan_stage = ScanStage(builtin_scanners(), policy)
    try:
        total = len({r.fact_id for r in stack.guard.ledger.in_state(_committed())})
        with progress("re-scanning facts", total=total) as bar:
            report = stack.guard.rescan(
                operator=_operator(), batch=batch, on_batch=lambda n: bar.advance(n)
            )
    finally:
        stack.close()
    data = {"scanner": report.scanner, "version": report.version,
            "rescanned": len(report.rescanned), "lowered": list(report.lowered)}  # fmt: skip
    emit(data, as_json, f"re-scanned {len(report.rescanned)} facts with {report.scanner} "
         f"v{report.version}; {len(report.lowered)} got a lower trust")  # fmt: skip


def _scan_policy(config: Path) -> Any:
    from memguard.errors import ConfigurationError
    from memguard.gateway.config import load_gateway_config

    if not config.is_file():
        raise CliError(ExitCode.USAGE, "usage", f"no configuration at `{config}` (see --config)")
    try:
        loaded = load_gateway_config(config)
    except ConfigurationError as exc:
        raise CliError(ExitCode.INVALID, "invalid_input", str(exc)) from None
    if not loaded.scan.enabled:
        raise CliError(ExitCode.USAGE, "usage", f"the `scan` section of `{config}` is disabled")
    return loaded.scan.policy


def _committed() -> Any:
    from memguard.ledger import FactState

    return FactState.COMMITTED


def _operator() -> str:
    from memguard.cli import _operator as operator

    return operator()
