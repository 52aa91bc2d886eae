"""Operational logging. The ledger, not this log, is the system of record.

A library must not write to its host's terminal. memguard logs only where the host asked for logs:

* the host configured structlog (``structlog.configure``): records go through the host's pipeline;
* otherwise, to the standard library logger ``memguard`` (it has a ``NullHandler``, so nothing
  appears until the host configures ``logging``, e.g. ``logging.basicConfig``); the event is the
  message, its fields follow as ``key=value`` and are attached as ``record.memguard``.

memguard's own programs (``memguard serve``, the CLI) are hosts: they call
:func:`configure_json_logging`, which sends JSON lines to stderr.

Log records name the operation, the decision, the reason code, fact ids, trace id and principal
identifiers. They never carry token strings or fact text.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, MutableMapping, Sequence
from typing import Any, TextIO, cast

import structlog

__all__ = ["MemguardLogger", "configure_json_logging", "get_logger"]

_ROOT = "memguard"
logging.getLogger(_ROOT).addHandler(logging.NullHandler())

Processor = Callable[[Any, str, MutableMapping[str, Any]], Any]


class MemguardLogger:
    """``log.info("event", key=value, ...)``, routed at each call to where the host wants logs."""

    __slots__ = ("_name", "_stdlib")

    def __init__(self, name: str = _ROOT) -> None:
        self._name = name
        self._stdlib = logging.getLogger(name)

    def _log(self, level: int, method: str, event: str, fields: dict[str, Any]) -> None:
        if structlog.is_configured():
            getattr(structlog.get_logger(self._name), method)(event, **fields)
            return
        if not self._stdlib.isEnabledFor(level):
            return
        text = " ".join(
            f"{k}={json.dumps(v, default=str, ensure_ascii=False)}" for k, v in fields.items()
        )
        self._stdlib.log(
            level,
            "%s %s" if text else "%s%s",
            event,
            text,
            extra={"memguard": {"event": event, **fields}},
        )

    def debug(self, event: str, **fields: Any) -> None:
        self._log(logging.DEBUG, "debug", event, fields)

    def info(self, event: str, **fields: Any) -> None:
        self._log(logging.INFO, "info", event, fields)

    def warning(self, event: str, **fields: Any) -> None:
        self._log(logging.WARNING, "warning", event, fields)

    def error(self, event: str, **fields: Any) -> None:
        self._log(logging.ERROR, "error", event, fields)


def get_logger(name: str = _ROOT) -> MemguardLogger:
    """memguard's logger (``name`` under ``memguard``, e.g. ``memguard.access``)."""
    return MemguardLogger(name)


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at write time (test runners swap and close it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_json_logging(
    level: int = logging.INFO, stream: Any = None, *, processors: Sequence[Processor] = ()
) -> None:
    """Send structlog output as JSON lines to ``stream`` (the current stderr by default).

    For memguard's own programs, which are the host: a library user configures logging itself.
    ``processors`` run first (e.g. to drop events another line already carries).
    """
    structlog.configure(
        processors=[
            *processors,
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(sort_keys=True),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(stream or cast(TextIO, _CurrentStderr())),
        cache_logger_on_first_use=False,
    )
