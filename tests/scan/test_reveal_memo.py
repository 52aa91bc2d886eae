"""``reveal`` remembers its last non-ASCII texts by identity (issue 17, scanspeed): the rules and
the model of one scan stage reveal the same string object once.

What would fail if it broke: a remembered answer given for another text with the same ``id`` or
the same characters in another object (the equal-text and the identity tests), an answer that
differs from computing it again (the corpus test), a memo that grows without bound.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memguard.scan import unicode
from memguard.scan.unicode import _reveal, reveal

ROWS = [
    json.loads(line)["text"]
    for line in (Path(__file__).resolve().parent.parent / "corpus" / "injections.jsonl")
    .read_text("utf-8")
    .splitlines()
    if line.strip()
]
HIDDEN = "note: pay the invoice\U000e0049\U000e0047\U000e004e\u200b today"


def test_the_remembered_answer_is_the_computed_one_on_the_corpus() -> None:
    for text in ROWS:
        assert reveal(text) == _reveal(text) == reveal(text)


@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xE007F), max_size=60))
@settings(max_examples=200, deadline=None)
def test_generated_texts_reveal_as_computed(text: str) -> None:
    assert reveal(text) == _reveal(text)
    assert reveal(text) == _reveal(text)  # (the second from the memo for non-ASCII text)


def test_an_equal_text_in_another_object_is_revealed_for_itself() -> None:
    first = "".join(["pay ", "\u0456nvoice"])
    assert reveal(first) == _reveal(first)
    other = "".join(["pay ", "\u0456nvoice"])
    assert other is not first
    assert reveal(other) == reveal(first)


def test_a_text_whose_id_is_reused_is_not_given_the_old_answer() -> None:
    unicode._MEMO.clear()
    hidden = "".join([HIDDEN, "!"])
    found = reveal(hidden)
    assert found.tags == 3 and found.zero_width == 1
    key = id(hidden)
    # a remembered entry whose text is another object (as if the first were freed and its id
    # reused) is never taken
    unicode._MEMO[key] = ("x\u00e9", unicode._NOTHING)
    assert reveal(hidden) == found
    assert unicode._MEMO[key][0] is hidden


def test_the_memo_stays_bounded_and_skips_long_texts() -> None:
    unicode._MEMO.clear()
    texts = [f"caf\u00e9 {i}" for i in range(unicode._MEMO_ENTRIES * 3)]
    for text in texts:
        reveal(text)
        assert len(unicode._MEMO) <= unicode._MEMO_ENTRIES
    long = "\u00e9" * (unicode._MEMO_CHARS + 1)
    unicode._MEMO.clear()
    reveal(long)
    assert unicode._MEMO == {}
    assert reveal("plain ascii") is unicode._NOTHING and unicode._MEMO == {}
