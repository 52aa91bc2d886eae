# ruff: noqa: RUF001  (mixed-script probes)
"""The trained scanner's batch kernel (memguard/scan/logits.py) gives every text of a batch the
logits the plain computation gives it alone (tests/model_reference.py, and the per-text code of
memguard/scan/features.py), and a failure in it fails closed in the scan stage."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model_reference import window_logits as reference_logits

import memguard.scan.features as feats
import memguard.scan.logits as kernel
from memguard import LocalTokenService, MemoryGuard, Source, SourceKind, TrustLevel, Turn
from memguard.guard import FactInput
from memguard.scan import Label, ModelScanner, RuleScanner, ScanContext, Verdict
from memguard.scan.features import MAX_CHARS, features, window_logits
from memguard.scan.stage import ScanStage
from memguard.scan.unicode import reveal

TOLERANCE = 1e-9
CTX = ScanContext(namespace="n", source=SourceKind.WEB)
USER = Source(kind=SourceKind.USER_MESSAGE, name="chat")


@pytest.fixture(scope="module")
def model() -> ModelScanner:
    return ModelScanner()


def _split(z: np.ndarray, first: np.ndarray) -> list[list[float]]:
    return [z[first[i] : first[i + 1]].tolist() for i in range(len(first) - 1)]


def _close(got: list[float], want: list[float]) -> bool:
    return len(got) == len(want) and all(
        abs(a - b) <= TOLERANCE for a, b in zip(got, want, strict=True)
    )


# -- against the plain computation --------------------------------------------------------------

_PIECES = [
    "ignore", "previous", "instructions", "send", "the", "password", "to", "alice", "Bob", "42",
    "drop@evil.example", "https://x.example/a?b=c", "assistant", "Note:", "remember", "SYSTEM",
    " ", " ", " ", "  ", "\n", "\t", ". ", "! ", "? ", "; ", ": ", ", ", "...", "-", "(", ")", '"',
    "é", "ß", "жизнь", "日本語", "。", "！", "\u2026", "\u2014", "\u3000", "\u200b", "ﬁ", "Ｆ",
    "\U0001f600", "\x00", "\x1c", "a" * 70, "word " * 40,
]  # fmt: skip
texts = st.one_of(
    st.lists(st.sampled_from(_PIECES), max_size=60),
    st.lists(st.sampled_from(_PIECES), min_size=60, max_size=400),  # windowed
).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(texts, min_size=1, max_size=6))
def test_a_batch_gives_each_text_the_plain_logits(model: ModelScanner, batch: list[str]) -> None:
    w = model.weights
    z, first = kernel.batch_logits(w.wide, w.bias, batch)
    assert first[0] == 0 and first[-1] == len(z) and len(first) == len(batch) + 1
    vector = w.wide.tolist()
    for text, got in zip(batch, _split(z, first), strict=True):
        assert _close(got, reference_logits(text, vector, w.bias, w.bits)), text[:80]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(texts, min_size=1, max_size=8))
def test_scan_many_is_scan_of_each(model: ModelScanner, batch: list[str]) -> None:
    assert model.scan_many([(t, CTX) for t in batch]) == [model.scan(t, CTX) for t in batch]


def _odd() -> list[str]:
    para = "Alice met Bob at 10:30. They planned the trip; the tickets are booked! " * 30
    return [
        "", "a", ".", " \t\n ", "ab", "abc", "x" * 241, "one long sentence " * 300,
        "Hi there. " * 4000,  # more than MAX_WINDOWS sentences: fixed windows
        para, para[:240], para[:241], "Привет. Как дела? 日本語の文。" * 40, "ＩＧＮＯＲＥ ＡＬＬ。" * 30,
        "x" * 32767 + " " + "y" * 32769,  # a text as long as a chunk holds
        para * 20,  # over MAX_CHARS: its first and last halves
    ]  # fmt: skip


@pytest.mark.parametrize("order", ["as is", "reversed"])
def test_odd_texts_in_one_batch_match_the_per_text_code(model: ModelScanner, order: str) -> None:
    w = model.weights
    batch = _odd() if order == "as is" else _odd()[::-1]
    assert sum(len(t) for t in batch) > 2 * MAX_CHARS  # more than one chunk
    z, first = kernel.batch_logits(w.wide, w.bias, batch)
    for text, got in zip(batch, _split(z, first), strict=True):
        want = window_logits(w.wide, w.bias, features(text, w.bits)).tolist()
        assert _close(got, want), text[:60]


def test_an_empty_batch_and_a_bad_input(model: ModelScanner) -> None:
    w = model.weights
    z, first = kernel.batch_logits(w.wide, w.bias, [])
    assert len(z) == 0 and first.tolist() == [0]
    assert model.scan_many([]) == []
    with pytest.raises(TypeError):
        model.scan_many([("fine", CTX), (b"bytes", CTX)])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        kernel.batch_logits(w.wide[:1000], w.bias, ["x"])


def test_probabilities_are_the_logistic_of_the_top_window_less_the_offset(
    model: ModelScanner,
) -> None:
    w = model.weights
    batch = [t for t in _odd() if len(t) < 5000]
    for text, p in zip(batch, model._probabilities(w, batch), strict=True):
        z = np.array(reference_logits(text, w.wide.tolist(), w.bias, w.bits))
        top = float(z.max()) - (w.window_offset if len(z) > 1 else 0.0)
        assert abs(p - 1 / (1 + math.exp(-top))) <= TOLERANCE


# -- failing closed -----------------------------------------------------------------------------


class Many:
    """A scanner with ``scan_many`` that answers wrongly in one of several ways."""

    id, version = "test.many", "1"

    def __init__(self, how: str) -> None:
        self.how = how
        self.calls: list[int] = []

    def scan(self, text: str, context: ScanContext) -> Verdict:
        raise AssertionError("the stage calls scan_many")

    def scan_many(self, items: list[tuple[str, ScanContext]]) -> Any:
        self.calls.append(len(items))
        clean = Verdict(Label.CLEAN, 0.0, (), self.id, self.version)
        if self.how == "raises":
            raise RuntimeError("kernel crashed")
        if self.how == "one short":
            return [clean] * (len(items) - 1)
        if self.how == "wrong type":
            return ["clean"] * len(items)
        if self.how == "not a list":
            return iter([clean] * len(items))
        return [clean] * len(items)


def _guard(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, stage: ScanStage
) -> Any:
    g = make_guard("memory", scan_stage=stage)
    return g, g.authenticate(tokens.issue("alice", ttl=3600))


def _facts(n: int) -> list[FactInput]:
    return [FactInput(text=f"Alice prefers aisle seats, trip {i}.", namespace="n", source=USER,
                      turn=Turn(session_id=f"s{i}", turn_index=i)) for i in range(n)]  # fmt: skip


@pytest.mark.parametrize("how", ["raises", "one short", "wrong type", "not a list"])
def test_a_failing_scan_many_caps_the_whole_batch_with_an_alarm(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, how: str
) -> None:
    scanner = Many(how)
    g, alice = _guard(make_guard, tokens, ScanStage([RuleScanner(), scanner]))
    written = g.write_many(alice, _facts(3))
    assert scanner.calls == [3]
    for prov in written:
        assert prov.trust is TrustLevel.UNTRUSTED  # never "clean"
        assert prov.scan is not None and prov.scan.label == "error"
    alarms = [e for e in g.ledger.events(decision="alarm") if e.reason == "scan.failed"]
    assert sorted(f for e in alarms for f in e.fact_ids) == sorted(p.fact_id for p in written)


def test_the_stage_gives_scan_many_the_whole_batch(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService
) -> None:
    scanner = Many("fine")
    g, alice = _guard(make_guard, tokens, ScanStage([scanner]))
    written = g.write_many(alice, _facts(5))
    assert scanner.calls == [5]
    assert all(p.trust is TrustLevel.USER and p.scan and p.scan.label == "clean" for p in written)


def test_a_crash_in_the_model_kernel_fails_closed(
    make_guard: Callable[..., MemoryGuard],
    tokens: LocalTokenService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: Any) -> Any:
        raise FloatingPointError("kernel crashed")

    import memguard.scan.model as model_module

    monkeypatch.setattr(model_module, "batch_logits", broken)
    monkeypatch.setattr(model_module, "text_logits", broken)
    g, alice = _guard(make_guard, tokens, ScanStage([RuleScanner(), ModelScanner()]))
    written = g.write_many(alice, _facts(4))
    one = g.write(alice, "Alice prefers window seats.", namespace="n", source=USER,
                  turn=Turn(session_id="x", turn_index=9))  # fmt: skip
    for prov in [*written, one]:
        assert prov.trust is TrustLevel.UNTRUSTED and prov.scan is not None
        assert prov.scan.label == "error" and prov.scan.reasons == (
            "scan.error:FloatingPointError",
        )
    alarms = [e for e in g.ledger.events(decision="alarm") if e.reason == "scan.failed"]
    assert len({f for e in alarms for f in e.fact_ids}) == 5
    with pytest.raises(FloatingPointError):  # one text scanned alone fails too (not clean)
        ModelScanner().scan("Alice prefers window seats.", CTX)


def test_threads_scoring_batches_at_once_get_one_thread_s_verdicts(model: ModelScanner) -> None:
    import concurrent.futures

    batches = [
        [(t, CTX) for t in _odd()[i : i + 3] + ["Alice prefers aisle seats."] * i] for i in range(8)
    ]
    alone = [model.scan_many(b) for b in batches]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(3):
            assert list(pool.map(model.scan_many, batches)) == alone


# -- normalisation: whitespace collapsed over UTF-8 bytes ---------------------------------------


def _plain_normalise(text: str) -> str:
    """features.normalise as main had it: reveal, NFKC, case folding, str.split and join."""
    text = feats._capped(text)
    if not text.isascii():
        shown = reveal(text)
        if shown.texts:
            text = "\n".join(shown.texts)
        text = unicodedata.normalize("NFKC", text)
    return feats._capped(" ".join(text.casefold().split()))


_SPACES = st.sampled_from(
    [" ", "  ", "\t", "\n", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u3000"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=8), _SPACES, st.sampled_from(_PIECES)), max_size=30))
def test_normalise_is_the_plain_one_on_any_text(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert feats.normalise(text) == _plain_normalise(text)
    assert feats._collapsed(text) == " ".join(text.split())


def test_every_wide_whitespace_character_takes_the_str_path() -> None:
    wide = [chr(c) for c in range(128, 0x110000) if chr(c).isspace()]
    assert wide and all(feats._WIDE_SPACE.fullmatch(c) for c in wide)
    assert feats._collapsed("a\u2028b\x85 c\u3000") == "a b c"


def test_the_kind_table_is_the_word_and_stop_tables_over_every_code_point() -> None:
    c = np.arange(0x110000, dtype=np.uint32)
    kinds = kernel._KINDS[np.minimum(c, feats._BMP_LAST)]
    assert ((kinds & 1).astype(bool) == feats._word_mask(c, False)).all()
    assert ((kinds >> 1).astype(bool) == feats._STOP[np.minimum(c, feats._BMP_LAST)]).all()


def test_a_subclass_that_scans_its_own_way_is_not_bypassed_by_scan_many() -> None:
    class Strict(ModelScanner):
        def scan(self, text: str, context: ScanContext | None = None) -> Verdict:
            return Verdict(Label.SUSPICIOUS, 0.5, ("strict",), self.id, self.version)

    stage = ScanStage([Strict()])
    records = stage.scan_batch([("Alice prefers aisle seats.", CTX)] * 3)
    stage.close()
    assert [r.label for r in records] == ["suspicious"] * 3
