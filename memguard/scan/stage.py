"""The scan stage of the write pipeline: run the scanners over a batch, turn verdicts into trust caps.

verify -> decide -> **scan** -> stamp -> log + project -> store -> record. A verdict caps the trust
of its fact through a :class:`ScanPolicy` (default: ``suspicious`` -> ``untrusted``, ``malicious``
-> ``quarantined``; either may be ``refuse``). The stage fails closed: a scanner that raises, returns
something other than a :class:`~memguard.scan.verdict.Verdict` or does not answer within
``timeout`` seconds gives the ``error`` outcome, which caps to ``untrusted`` (never ``clean``).

A batch is scanned together, in one worker call with one deadline; scanners whose ``scan`` is a
coroutine function run concurrently on an event loop in that worker; a scanner with a
``scan_many(items)`` (the trained model) is given the whole batch in one call, and a failure or a
wrong answer from it is a failure of the batch.

Inline scans (issue 17, inlinescan): handing a call to a worker thread costs more than the built-in
scanners take over a small text. A scanner whose own class declares ``bounded = True`` (the
built-in :class:`~memguard.scan.builtin.RuleScanner` and
:class:`~memguard.scan.model.ModelScanner`: work caps and read limits bound their running time;
the declaration is not inherited, so a subclass that scans its own way runs in a worker unless it
declares it again) is run in the caller's thread when every scanner of the stage is bounded, none
is a coroutine function and the batch's texts total at most :data:`INLINE_CHARS` characters. It
fails closed the same way: an exception or a wrong answer gives the ``error`` record, and a scan
that returned after ``timeout`` seconds is treated as timed out (``scan.timeout``), whatever it
said. A bounded scanner that returns an awaitable (a verdict promised now, not later) fails the
batch at once, before anything awaits it (``scan.error:bounded_awaitable``). Third-party and async
scanners, and bigger batches, keep the worker thread and its deadline.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import inspect
import json
import time
from collections.abc import Awaitable, Sequence
from typing import Literal, cast

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memguard.provenance import ScanRecord
from memguard.scan.verdict import Label, ScanContext, Scanner, Verdict
from memguard.trust import TrustLevel

__all__ = [
    "INLINE_CHARS", "REFUSE", "BoundedScannerAwaitable", "ScanPolicy", "ScanStage", "is_bounded",
]  # fmt: skip

REFUSE: Literal["refuse"] = "refuse"
#: how bad each label is (the worst verdict of a stage's scanners wins). ``error`` is listed so
#: that every label is, but never reaches a record's choice: a scanner cannot return it
#: (:class:`~memguard.scan.verdict.Verdict` refuses it) and a verdict forced to hold it all the
#: same fails its batch (:func:`_checked`: every item gets the ``error`` record)
_SEVERITY = {Label.CLEAN: 0, Label.SUSPICIOUS: 1, Label.MALICIOUS: 2, Label.ERROR: 3}
_MAX_REASONS = 16
#: a batch of bounded scanners whose texts total at most this many characters is scanned in the
#: caller's thread (see the module docstring)
INLINE_CHARS = 16 << 10


def is_bounded(scanner: object) -> bool:
    """Whether ``scanner``'s own class (not a base class) declares ``bounded = True`` and its
    ``scan`` is no coroutine function: then a stage may run it inline over a small batch, and
    calls its ``scan`` for a batch of one even when it has a ``scan_many`` (the declaration says
    that ``scan_many`` is ``scan`` of each, as :class:`~memguard.scan.model.ModelScanner`'s is:
    one text scored alone costs less than a batch of one)."""
    return vars(type(scanner)).get("bounded") is True and not inspect.iscoroutinefunction(
        getattr(scanner, "scan", None)
    )


def _level(value: object) -> TrustLevel | Literal["refuse"]:
    if value == REFUSE:
        return REFUSE
    if isinstance(value, str | int | TrustLevel):
        return TrustLevel.parse(value)
    raise ValueError("a cap is a trust level name or `refuse`")


class ScanPolicy(BaseModel):
    """What each verdict does to the trust of its fact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    suspicious: TrustLevel | Literal["refuse"] = TrustLevel.UNTRUSTED
    malicious: TrustLevel | Literal["refuse"] = TrustLevel.QUARANTINED
    #: a scanner error or timeout: at most ``untrusted``, never refused silently nor left clean
    error: TrustLevel = TrustLevel.UNTRUSTED
    timeout: float = Field(default=5.0, gt=0, le=600)

    @field_validator("suspicious", "malicious", mode="before")
    @classmethod
    def _cap(cls, value: object) -> TrustLevel | Literal["refuse"]:
        return _level(value)

    @field_validator("error", mode="before")
    @classmethod
    def _error_cap(cls, value: object) -> TrustLevel:
        level = _level(value)
        if level == REFUSE or level > TrustLevel.UNTRUSTED:
            raise ValueError("a scanner error caps to `untrusted` or lower")
        return level

    def digest(self) -> str:
        """``sha256:`` of what the policy does to trust (the caps; the timeout changes no verdict)."""
        caps = self.model_dump(mode="json", include={"suspicious", "malicious", "error"})
        canonical = json.dumps(caps, sort_keys=True, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()

    def cap(self, label: Label) -> TrustLevel | Literal["refuse"] | None:
        if label is Label.SUSPICIOUS:
            return self.suspicious
        if label is Label.MALICIOUS:
            return self.malicious
        if label is Label.ERROR:
            return self.error
        return None


_DEFAULT_POLICY_DIGEST = ScanPolicy().digest()


class ScanStage:
    """One or more scanners plus the policy that turns their verdicts into caps."""

    def __init__(
        self, scanners: Scanner | Sequence[Scanner], policy: ScanPolicy | None = None
    ) -> None:
        chain = list(scanners) if isinstance(scanners, Sequence) else [scanners]
        if not chain:
            raise ValueError("a scan stage needs at least one scanner")
        for scanner in chain:
            if not isinstance(scanner, Scanner):
                raise TypeError("a scanner has `id`, `version` and `scan(text, context)`")
        self.scanners = tuple(chain)
        self.policy = policy or ScanPolicy()
        self._digested: tuple[ScanPolicy | None, str] = (None, "")
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        #: every scanner bounded: small batches are scanned in the caller's thread
        self._bounded = tuple(is_bounded(s) for s in self.scanners)
        self._inline = all(self._bounded)

    @property
    def name(self) -> str:
        return "+".join(s.id for s in self.scanners)

    @property
    def version(self) -> str:
        """The scanners' versions, and the scan policy's digest when it is not the default one.

        Recorded with every verdict, so a verdict names the policy its cap came from, and
        ``rescan`` (which re-scans facts whose recorded scanner or version differs) re-applies a
        changed policy as it re-applies a changed scanner."""
        versions = "+".join(s.version for s in self.scanners)
        if self._digested[0] is not self.policy:  # a frozen model: digest it once
            self._digested = (self.policy, self.policy.digest())
        digest = self._digested[1]
        return versions if digest == _DEFAULT_POLICY_DIGEST else f"{versions};policy={digest[7:19]}"

    def scan_batch(self, items: Sequence[tuple[str, ScanContext]]) -> list[ScanRecord]:
        """One record per item, in order; any failure gives every item the ``error`` record."""
        if not items:
            return []
        if self._inline and _small(items):
            return self._scan_inline(items)
        try:
            if self._pool is None:  # made on first use, and again after close()
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=4, thread_name_prefix="memguard-scan"
                )
            future = self._pool.submit(self._run, list(items))
            verdicts = future.result(timeout=self.policy.timeout)
            if len(verdicts) != len(items):  # pragma: no cover - _run returns one per item
                raise RuntimeError("scanner returned the wrong number of verdicts")
            return [self._record(v) for v in verdicts]
        except concurrent.futures.TimeoutError:
            return [self.error_record("scan.timeout") for _ in items]
        except Exception as exc:
            return [self.error_record(_reason(exc)) for _ in items]

    def _scan_inline(self, items: Sequence[tuple[str, ScanContext]]) -> list[ScanRecord]:
        """:meth:`scan_batch` in the caller's thread (bounded scanners, a small batch): an
        exception, a wrong answer or a return past the timeout is a failure of the batch."""
        start = time.monotonic()
        try:
            verdicts = self._run(list(items))  # one list per item (scan_many's count checked there)
            if time.monotonic() - start > self.policy.timeout:
                return [self.error_record("scan.timeout") for _ in items]
            return [self._record(v) for v in verdicts]
        except Exception as exc:
            return [self.error_record(_reason(exc)) for _ in items]

    def error_record(self, reason: str) -> ScanRecord:
        return ScanRecord(
            label=Label.ERROR.value, score=1.0, reasons=(reason,), scanner=self.name,
            version=self.version, cap=self.policy.error,
        )  # fmt: skip

    def close(self) -> None:
        """Let the worker threads go (a stage used again afterwards makes new ones)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    # -- worker side ------------------------------------------------------------------------------

    def _run(self, items: list[tuple[str, ScanContext]]) -> list[list[Verdict]]:
        per_item: list[list[Verdict]] = [[] for _ in items]
        pending: list[tuple[int, Awaitable[Verdict]]] = []
        single = len(items) == 1
        for scanner, bounded in zip(self.scanners, self._bounded, strict=True):
            # (a bounded scanner's scan is no coroutine function: is_bounded asked at __init__)
            is_async = not bounded and inspect.iscoroutinefunction(scanner.scan)
            many = None if single and bounded else getattr(scanner, "scan_many", None)
            if callable(many) and not is_async:  # scores the batch in one pass (ModelScanner)
                verdicts = many(items)
                if not isinstance(verdicts, list) or len(verdicts) != len(items):
                    raise TypeError("scan_many must return one verdict per item")
                for i, verdict in enumerate(verdicts):
                    per_item[i].append(_checked(verdict))
                continue
            for i, (text, context) in enumerate(items):
                result = scanner.scan(text, context)
                if type(result) is Verdict and result.label is not Label.ERROR:  # (the common
                    per_item[i].append(result)  # case: no awaitable to look for)
                elif bounded and inspect.isawaitable(result):
                    # a bounded scanner promised a verdict now: an awaitable could run for any
                    # time (in the caller's thread, inline), so the batch fails here, before it
                    # is awaited (a coroutine is closed: no "never awaited" warning)
                    _discard(result)
                    for _, awaitable in pending:
                        _discard(awaitable)
                    raise BoundedScannerAwaitable(scanner.id)
                elif is_async or inspect.isawaitable(result):
                    pending.append((i, cast(Awaitable[Verdict], result)))
                else:
                    per_item[i].append(_checked(result))
        if pending:

            async def gather() -> list[Verdict]:
                return list(await asyncio.gather(*(a for _, a in pending)))

            for (i, _), verdict in zip(pending, asyncio.run(gather()), strict=True):
                per_item[i].append(_checked(verdict))
        return per_item

    def _record(self, verdicts: list[Verdict]) -> ScanRecord:
        worst = max(verdicts, key=lambda v: (_SEVERITY[v.label], v.score))
        reasons: list[str] = []
        for v in verdicts:
            reasons.extend(v.reasons if len(verdicts) == 1 else (f"{v.scanner}:{r}" for r in v.reasons))
        cap = self.policy.cap(worst.label)
        return ScanRecord(
            label=worst.label.value,
            score=round(max(v.score for v in verdicts), 4),
            reasons=tuple(reasons[:_MAX_REASONS]),
            scanner=self.name,
            version=self.version,
            cap=None if cap is None or cap == REFUSE else cap,
            refused=cap == REFUSE,
        )


class BoundedScannerAwaitable(TypeError):
    """A scanner that declares ``bounded = True`` returned an awaitable instead of a verdict."""


def _reason(exc: Exception) -> str:
    """The audit reason of a failed batch: ``scan.error:<exception type>``, or
    ``scan.error:bounded_awaitable`` for a bounded scanner that returned an awaitable."""
    if isinstance(exc, BoundedScannerAwaitable):
        return "scan.error:bounded_awaitable"
    return f"scan.error:{type(exc).__name__}"


def _discard(awaitable: object) -> None:
    """Close a coroutine that will not be awaited (other awaitables are left alone)."""
    if inspect.iscoroutine(awaitable):
        awaitable.close()


def _small(items: Sequence[tuple[str, ScanContext]]) -> bool:
    """Whether the texts of ``items`` are strings totalling at most :data:`INLINE_CHARS`."""
    total = 0
    for text, _ in items:
        if type(text) is not str:
            return False
        total += len(text)
        if total > INLINE_CHARS:
            return False
    return True


def _checked(value: object) -> Verdict:
    if not isinstance(value, Verdict):
        raise TypeError("a scanner must return a Verdict")
    if value.label is Label.ERROR:  # (Verdict refuses it: only a forced one gets here)
        raise TypeError("a scanner's label is clean, suspicious or malicious")
    return value
