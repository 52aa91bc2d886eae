"""The core without I/O: one class with every operation (a flow yielding :class:`~.base._Call`)."""

from __future__ import annotations

import os

# mem0 reads this once, when it is first imported, and uploads usage events from construction
# on: off unless the application turned it on itself (the shells refuse mem0 with it on)
os.environ.setdefault("MEM0_TELEMETRY", "False")


from .reads import _Reads
from .writes import _Writes


class _Core(_Writes, _Reads):
    """Everything but I/O to mem0: each public operation is a generator yielding :class:`_Call`."""

    __slots__ = ()
