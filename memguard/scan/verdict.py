"""What a content scanner returns, and the protocol a scanner implements.

A scanner reads the text of a fact about to be written and says whether it looks like an attempt
to instruct the agent that will later recall it: ``clean``, ``suspicious`` or ``malicious``, with a
score in ``[0, 1]``, the reasons (rule ids, never the matched text) and its own id and version, so a
recorded verdict can be tied to the exact scanner that gave it.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from memguard.trust import SourceKind

__all__ = ["Label", "ScanContext", "Scanner", "Verdict"]


class Label(enum.StrEnum):
    """A scanner's judgement; ``error`` is only ever recorded by the stage (a scanner that failed)."""

    CLEAN = "clean"
    SUSPICIOUS = "suspicious"
    MALICIOUS = "malicious"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class ScanContext:
    """What a scanner may know about the text besides the text: where it came from."""

    namespace: str
    source: SourceKind
    derived: bool = False


@dataclass(frozen=True, slots=True)
class Verdict:
    """One scanner's verdict on one text."""

    label: Label
    score: float
    reasons: tuple[str, ...]
    scanner: str
    version: str

    def __post_init__(self) -> None:
        if not isinstance(self.label, Label) or self.label is Label.ERROR:
            raise ValueError("a scanner's label is clean, suspicious or malicious")
        if not 0.0 <= self.score <= 1.0:
            raise ValueError("a verdict's score is between 0 and 1")


@runtime_checkable
class Scanner(Protocol):
    """A content scanner: ``scan`` returns a :class:`Verdict` (or an awaitable of one).

    ``id`` and ``version`` name it in provenance; a new version means old verdicts may be stale.
    """

    id: str
    version: str

    def scan(self, text: str, context: ScanContext) -> Verdict | Awaitable[Verdict]: ...
