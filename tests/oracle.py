"""Test glue around the oracle: the modes, text strategies, and the step comparison.

The oracle itself is the textbook recipe, :mod:`bpeviz.engine.textbook` (slow, short, written from
the spec, not from ``bpeviz/engine/trainer.py``); everything here only helps tests hold the fast
engine against it.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from bpeviz.engine.textbook import TextbookRun
from bpeviz.engine.trainer import MergeStep

# ---- shared by the test files: the modes, text strategies, and the step comparison ---------

MODES: dict[str, tuple[str, bool]] = {
    "bytes": ("bytes", False),
    "gpt2": ("gpt2", False),
    "gpt4": ("gpt4", False),
    "words": ("words", False),
    "words+eow": ("words", True),
}
SPECIAL = "<|e|>"
# ``MergeStep.tied`` keeps the winner and the runner-up; ``more_tied`` says whether a third
# pair tied too, and ``History.tied_pairs`` lists them all.
MAX_TIED_RECORDED = 2

# Pieces that make BPE interesting: repeats, overlaps, whitespace runs, multi-byte UTF-8,
# contractions and digits (regex modes), a special token and broken halves of it, and the
# literal text of the end-of-word marker.
FRAGMENTS = [
    "a", "b", "a", "b", "ab", "aa", " ", " ", "  ", "\n", "\t", "é", "日本", "語", "😀", "👍🏽",
    "'s", "'t", "12", "3", "!", "?!", SPECIAL, "<|", "|>", "</w>",
]  # fmt: skip


def stop_kind(reason: str) -> str:
    """Map the engine's sentence to the oracle's stop label."""
    if "vocab size" in reason:
        return "vocab"
    if "no pair left" in reason:
        return "no pairs"
    if "minimum frequency" in reason:
        return "min frequency"
    raise AssertionError(f"unexpected stop reason: {reason!r}")


def assert_same_steps(
    steps: Sequence[MergeStep], run: TextbookRun, rule: str, stop_reason: str
) -> None:
    """The engine's ``MergeStep`` records equal the oracle's, field by field."""
    got = [(s.pair, s.count) for s in steps]
    want = [(s.pair, s.count) for s in run.steps]
    assert got == want, "merge sequence differs from the textbook loop"
    for index, (mine, theirs) in enumerate(zip(steps, run.steps, strict=True)):
        where = f"step {index + 1}"
        assert mine.step == index + 1, where
        assert mine.new_id == theirs.new_id == run.base + index, where
        assert mine.token == theirs.token, where
        assert mine.replacements == theirs.replacements, where
        assert mine.tokens_after == theirs.tokens_after, where
        assert mine.rule == rule, where
        assert mine.tied == theirs.tied[:MAX_TIED_RECORDED], where
        assert mine.more_tied == (len(theirs.tied) > MAX_TIED_RECORDED), where
    assert stop_kind(stop_reason) == run.stop, stop_reason


def training_texts(max_fragments: int = 40) -> st.SearchStrategy[str]:
    """Non-empty texts: tiny alphabets (many ties and overlaps), fragments, any Unicode."""
    return st.one_of(
        st.text(alphabet="ab ", min_size=1, max_size=80),
        st.text(alphabet="aab\n", min_size=1, max_size=80),
        st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=max_fragments).map("".join),
        st.text(min_size=1, max_size=25),
    )


# Bytes that are not UTF-8: a lone continuation byte, a lead byte cut short, bytes UTF-8
# never uses, an encoded surrogate, a code point past U+10FFFF, an overlong "/".
BROKEN_UTF8 = [b"\x80", b"\xbf", b"\xc3", b"\xe6\x97", b"\xff", b"\xfe", b"\xed\xa0\x80",
               b"\xf4\x90\x80\x80", b"\xc0\xaf"]  # fmt: skip


def training_bytes(max_fragments: int = 40) -> st.SearchStrategy[bytes]:
    """Non-empty bytes, mostly not valid UTF-8: text fragments mixed with broken sequences."""
    fragment = st.one_of(
        st.sampled_from([f.encode() for f in FRAGMENTS]), st.sampled_from(BROKEN_UTF8)
    )
    return st.one_of(
        st.lists(fragment, min_size=1, max_size=max_fragments).map(b"".join),
        st.binary(min_size=1, max_size=40),
        st.lists(st.sampled_from([b"a", b"b", b"\xff", b"\xc3"]), min_size=1, max_size=60).map(
            b"".join
        ),
    )
