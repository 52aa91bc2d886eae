"""Operational logging with structlog (JSON lines). The ledger, not this log, is the system of record.

Log records name the operation, the decision, the reason code, fact ids, trace id and principal
identifiers. They never carry token strings or fact text.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO, cast

import structlog

__all__ = ["configure_json_logging", "get_logger"]


def get_logger() -> Any:
    return structlog.get_logger("memguard")


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at write time (test runners swap and close it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_json_logging(level: int = logging.INFO, stream: Any = None) -> None:
    """Send structlog output as JSON lines to ``stream`` (the current stderr by default)."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(sort_keys=True),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(stream or cast(TextIO, _CurrentStderr())),
        cache_logger_on_first_use=False,
    )
