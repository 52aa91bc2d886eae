"""SIGTERM drains the audit log's queue before the process ends.

Python's default SIGTERM ends the process at once: no ``finally``, no ``atexit``. Events are
durable when recorded (each commits with its queued leaf hash), so nothing is lost either way and
the next :class:`~memguard.ledger.Ledger` open integrates what was left (:meth:`Ledger.drain`);
:func:`drain_on_sigterm` also integrates and signs them before the process exits, so the
checkpoint and the witness cover every event the process recorded.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

__all__ = ["drain_on_sigterm"]


def drain_on_sigterm(drain: Callable[[], object]) -> bool:
    """On SIGTERM call ``drain`` (e.g. ``guard.close`` or ``ledger.drain``), then do what the
    previous handler did (the default: end the process, with the SIGTERM exit status).

    Only the main thread can install signal handlers: returns ``False`` (nothing installed)
    elsewhere. A failing ``drain`` does not stop the exit."""
    if threading.current_thread() is not threading.main_thread():
        return False
    previous: Any = signal.getsignal(signal.SIGTERM)

    def handler(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
        try:
            drain()
        except Exception:
            pass
        finally:
            if callable(previous):
                previous(signum, frame)
            elif previous != signal.SIG_IGN:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, handler)
    return True
