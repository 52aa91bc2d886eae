"""Red team (round 31): the index-set migrations at open against an edited log.

Each marker migration (``change_links``, ``provenance_indexes``, ``audit_schema``) reads the
change entries that mention its marker when the marker row is missing, to tell a ledger from
before (migrate) from a row deleted around the log (do not put it back; ``verify`` names it). It
read each entry's ``detail`` and ops as objects: an entry edited so that an op (or the detail) is
a string or a list made the open raise ``AttributeError``, so ``memguard ledger verify`` on that
ledger stopped with exit 1 "unexpected" instead of exit 4 naming the edited entry and the
deleted row. The attack needs write access to the database (it is tampering); what must hold is
that ``verify`` reports it, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from helpers import pg_schema_url
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from memguard.cli import app
from memguard.clikit import ExitCode
from memguard.ledger.ledger import Ledger

MARKERS = ("change_links", "provenance_indexes", "audit_schema")


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.db'}"
    else:
        with pg_schema_url() as got:
            yield got


def _edit(url: str, marker: str, how: str) -> None:
    """Delete ``marker``'s row and edit the ``ledger.create`` entry (which mentions it) around the
    log: a non-object op (``op``) or a non-object detail (``detail``) that still names it."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            seq, raw = conn.execute(
                text(
                    "SELECT seq, event FROM mg_audit_event WHERE action = 'ledger.change' "
                    "ORDER BY seq LIMIT 1"
                )
            ).one()
            event: dict[str, Any] = json.loads(raw)
            assert event["reason"] == "ledger.create" and f'"{marker}"' in raw
            if how == "op":
                event["detail"]["ops"].append(marker)
            else:
                event["detail"] = [marker]
            conn.execute(
                text("UPDATE mg_audit_event SET event = :e WHERE seq = :s"),
                {"e": json.dumps(event), "s": seq},
            )
            conn.execute(text("DELETE FROM mg_ledger_meta WHERE key = :k"), {"k": marker})
    finally:
        engine.dispose()


@pytest.mark.parametrize("how", ["op"])
@pytest.mark.parametrize("marker", MARKERS)
def test_an_edited_entry_naming_a_deleted_marker_is_reported_by_verify(
    url: str, marker: str, how: str
) -> None:
    Ledger.from_url(url, witness=None).close()
    _edit(url, marker, how)
    ledger = Ledger.from_url(url, witness=None)  # raised AttributeError before the fix
    try:
        report = ledger.verify()
        assert not report.ok
        named = {(p.table, json.dumps(p.key, sort_keys=True)) for p in report.problems}
        assert ("mg_ledger_meta", json.dumps({"key": marker})) in named, report.problems
    finally:
        ledger.close()


def test_the_cli_verify_exits_with_tamper_detected(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    Ledger.from_url(url, witness=None).close()
    _edit(url, "audit_schema", "op")
    saved = structlog.get_config()
    try:
        got = CliRunner().invoke(
            app, ["ledger", "verify", "--ledger-url", url, "--state-dir", str(tmp_path)]
        )
    finally:
        structlog.configure(**saved)
    assert got.exit_code == ExitCode.VERIFY_FAILED, (got.exit_code, got.stdout, got.stderr)
