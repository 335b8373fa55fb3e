"""Tests for the bundled sample texts and their loader."""

from __future__ import annotations

from collections import Counter

import pytest

from bpeviz.engine.samples import (
    DEFAULT_SAMPLE_KEY,
    SAMPLES_DIR,
    Sample,
    get_sample,
    list_samples,
)

EXPECTED_KEYS = [
    "english", "japanese", "aaabdaaabac", "cat_sat", "low_lower", "eat", "ties", "parallel_en",
    "parallel_ja",
]  # fmt: skip

CLASSIC_TEXTS = {
    "aaabdaaabac": "aaabdaaabac",
    "cat_sat": "the cat sat on the mat",
    "low_lower": "low low low low low lower lower newest newest newest newest newest newest widest",
    "eat": "eat eats eating eaten",
}


def test_every_sample_loads() -> None:
    samples = list_samples()
    assert [s.key for s in samples] == EXPECTED_KEYS
    for sample in samples:
        assert isinstance(sample, Sample)
        assert sample.text
        assert sample.title
        assert sample.description
        assert sample.source
        assert sample.language in {"en", "ja"}
        assert sample.kind in {"prose", "classic", "parallel"}


def test_list_samples_returns_fresh_list() -> None:
    first = list_samples()
    first.clear()
    assert len(list_samples()) == len(EXPECTED_KEYS)


def test_get_sample_and_default() -> None:
    assert get_sample(DEFAULT_SAMPLE_KEY).key == DEFAULT_SAMPLE_KEY
    for key in EXPECTED_KEYS:
        assert get_sample(key).key == key


def test_unknown_key_raises_value_error() -> None:
    with pytest.raises(ValueError, match="english"):
        get_sample("no-such-sample")


@pytest.mark.parametrize("key", ["english", "japanese"])
def test_prose_size(key: str) -> None:
    size = len(get_sample(key).text.encode("utf-8"))
    assert 3_000 <= size <= 8_000
    assert get_sample(key).text.endswith("\n")


def _is_japanese(ch: str) -> bool:
    code = ord(ch)
    return (
        0x3040 <= code <= 0x309F  # Hiragana
        or 0x30A0 <= code <= 0x30FF  # Katakana
        or 0x4E00 <= code <= 0x9FFF  # CJK Unified Ideographs
    )


def test_japanese_is_mostly_kana_and_kanji() -> None:
    chars = [ch for ch in get_sample("japanese").text if not ch.isspace()]
    japanese = [ch for ch in chars if _is_japanese(ch)]
    assert len(japanese) > 0.6 * len(chars)


@pytest.mark.parametrize(("key", "expected"), sorted(CLASSIC_TEXTS.items()))
def test_classic_contents_exact(key: str, expected: str) -> None:
    assert get_sample(key).text == expected
    # The raw file too: no trailing newline, nothing else.
    assert (SAMPLES_DIR / f"{key}.txt").read_bytes() == expected.encode("utf-8")


def test_ties_file_has_no_trailing_newline() -> None:
    raw = (SAMPLES_DIR / "ties.txt").read_bytes()
    assert raw == get_sample("ties").text.encode("utf-8")
    assert not raw.endswith(b"\n")


def test_settings_are_valid() -> None:
    for sample in list_samples():
        s = sample.settings
        assert s.pretokenizer in {"bytes", "gpt2", "gpt4", "words"}
        assert s.tie_break in {"first", "lexmin", "lexmax"}
        assert isinstance(s.vocab_size, int)
        assert s.vocab_size >= 256
        assert isinstance(s.end_of_word, bool)


def test_licences() -> None:
    for sample in list_samples():
        if sample.kind in ("prose", "parallel"):
            assert sample.licence == "CC0-1.0"
            assert sample.source.startswith("Original writing for bpeviz")
        else:
            assert sample.licence == "public domain / facts (tiny example)"


def _pair_counts(text: str, pretokenizer: str) -> tuple[Counter[tuple[int, int]], list]:
    """Byte-pair counts, plus every pair in order of appearance (for the 'first' rule)."""
    if pretokenizer == "bytes":
        chunks = [text]
    elif pretokenizer == "words":
        chunks = text.split()
    else:
        raise AssertionError(f"ties sample should use bytes or words, not {pretokenizer}")
    counts: Counter[tuple[int, int]] = Counter()
    in_order = []
    for chunk in chunks:
        b = chunk.encode("utf-8")
        pairs = list(zip(b, b[1:], strict=False))  # noqa: RUF007 (kept deliberately plain)
        counts.update(pairs)
        in_order.extend(pairs)
    return counts, in_order


def test_ties_first_merge_is_a_real_tie() -> None:
    sample = get_sample("ties")
    counts, in_order = _pair_counts(sample.text, sample.settings.pretokenizer)
    top = max(counts.values())
    tied = [pair for pair, n in counts.items() if n == top]
    assert len(tied) >= 2

    first = next(pair for pair in in_order if counts[pair] == top)
    picks = {"first": first, "lexmin": min(tied), "lexmax": max(tied)}
    # The three tie rules must pick three different pairs.
    assert len(set(picks.values())) == 3
    # And they are the ones the description promises.
    assert picks == {
        "first": (ord("b"), ord("a")),
        "lexmin": (ord("a"), ord("t")),
        "lexmax": (ord("c"), ord("a")),
    }
    # Same text as one byte sequence: the three rules still disagree.
    counts, in_order = _pair_counts(sample.text, "bytes")
    top = max(counts.values())
    tied = [pair for pair, n in counts.items() if n == top]
    first = next(pair for pair in in_order if counts[pair] == top)
    assert len({first, min(tied), max(tied)}) == 3
