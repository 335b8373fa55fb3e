"""Tests for bpeviz.app.compare.boundaries: two tokenizations of one text and the cuts where they
differ."""

from __future__ import annotations

import pytest

from bpeviz.app.compare.boundaries import (
    BOUNDARY_COLUMNS,
    DEFAULT_COMPARE_TEXT,
    boundaries,
    boundary_diff,
    boundary_table,
    compare,
    start_marks,
    token_spans,
    tokenize,
)
from bpeviz.engine.history import train
from bpeviz.engine.tokenizer import Tokenizer

AA = Tokenizer.from_merges([(97, 97)])  # one merge: a + a
AB = Tokenizer.from_merges([(97, 98)])  # one merge: a + b


def test_hand_worked_boundary_diff() -> None:
    """``aaabdaaabac`` cut by hand.

    With only ``aa``: aa|a|b|d|aa|a|b|a|c, cuts at 2 3 4 5 7 8 9 10.
    With only ``ab``: a|a|ab|d|a|a|ab|a|c, cuts at 1 2 4 5 6 7 9 10.
    Only the first cuts at 3 and 8 (inside ``ab``); only the second at 1 and 6 (inside ``aa``).
    """
    result = compare("aaabdaaabac", AA, AB, names=("aa", "ab"))
    assert sorted(result.ours.boundaries) == [2, 3, 4, 5, 7, 8, 9, 10]
    assert sorted(result.theirs.boundaries) == [1, 2, 4, 5, 6, 7, 9, 10]
    assert sorted(result.diff.only_ours) == [3, 8]
    assert sorted(result.diff.only_theirs) == [1, 6]
    assert sorted(result.diff.shared) == [2, 4, 5, 7, 9, 10]
    assert result.diff.differing == 4
    assert (result.ours.token_count, result.theirs.token_count) == (9, 9)


def test_boundary_table_by_hand() -> None:
    result = compare("aaabdaaabac", AA, AB, names=("aa", "ab"))
    table = boundary_table(result, context=2)
    assert list(table.columns) == list(BOUNDARY_COLUMNS)
    assert table.values.tolist() == [
        [1, "ab", "a", "aa"],
        [3, "aa", "aa", "bd"],
        [6, "ab", "da", "aa"],
        [8, "aa", "aa", "ba"],
    ]


def test_boundary_table_shows_cuts_inside_a_character_as_hex() -> None:
    """No merges: 日 (E6 97 A5) is cut after each byte; one merge E6+97 keeps only the 2nd cut."""
    merged = Tokenizer.from_merges([(0xE6, 0x97)])
    result = compare("日", Tokenizer(), merged, names=("bytes", "merged"))
    assert sorted(result.ours.boundaries) == [1, 2]
    assert sorted(result.theirs.boundaries) == [2]
    table = boundary_table(result)
    assert table.values.tolist() == [[1, "bytes", "<E6>", "<97><A5>"]]


def test_boundary_table_is_limited() -> None:
    result = compare("a" * 50, Tokenizer(), Tokenizer.from_merges([(97, 97)]))
    assert len(boundary_table(result, limit=5)) == 5


def test_spaces_are_visible_in_the_context() -> None:
    result = compare("a b", Tokenizer(), Tokenizer.from_merges([(32, 98)]))
    assert boundary_table(result).values.tolist() == [[2, "ours", "a␣", "b"]]


def test_identical_tokenizers_agree_everywhere() -> None:
    result = compare("the cat sat on the mat", AA, AA)
    assert result.diff.differing == 0
    assert boundary_table(result).empty


def test_empty_text_compares_to_nothing() -> None:
    result = compare("", AA, AB)
    assert result.ours.token_count == result.theirs.token_count == 0
    assert result.diff.differing == 0
    assert result.ours.bytes_per_token == result.theirs.bytes_per_token == 0.0
    assert boundary_table(result).empty
    assert not result.diff.shared and not result.diff.only_ours and not result.diff.only_theirs


def test_both_sides_of_a_hand_checked_comparison() -> None:
    """aa|a|b|d|aa|a|b|a|c against a|a|ab|d|a|a|ab|a|c: 9 tokens each for 11 bytes; each
    makes two cuts the other does not."""
    result = compare("aaabdaaabac", AA, AB, names=("aa", "ab"))
    for side in (result.ours, result.theirs):
        assert (side.token_count, side.byte_count) == (9, 11)
        assert round(side.bytes_per_token, 3) == 1.222
    assert len(result.diff.only_ours) == len(result.diff.only_theirs) == 2


@pytest.mark.parametrize(
    "text",
    ["", "a", "🙂", "日本語のテキスト", "tab\tand\nnewline", DEFAULT_COMPARE_TEXT],
    ids=["empty", "one-char", "emoji", "cjk", "whitespace", "default"],
)
def test_spans_tile_the_text(text: str) -> None:
    history = train("the cat sat on the mat 日本 日本", 270, pretokenizer="gpt4")
    result = tokenize(history.tokenizer, text, name="ours")
    data = text.encode("utf-8")
    assert result.byte_count == len(data)
    assert sum(end - start for start, end in result.spans) == len(data)
    assert all(a[1] == b[0] for a, b in zip(result.spans, result.spans[1:], strict=False))
    assert b"".join(data[start:end] for start, end in result.spans) == data


def test_end_of_word_markers_take_no_bytes() -> None:
    """``</w>`` is part of a token's name, not of the text: spans still tile the bytes."""
    history = train("low lower lowest", 262, pretokenizer="words", end_of_word=True)
    ids = history.tokenizer.encode("low lower")
    spans = token_spans(history.tokenizer, ids)
    assert spans[-1][1] == len(b"low lower")
    assert boundaries(spans) == frozenset({3, 4})


def test_special_tokens_count_as_one_token_and_keep_their_bytes() -> None:
    tokenizer = Tokenizer.from_merges([], special_tokens=["<|x|>"])
    result = compare("a<|x|>b", tokenizer, Tokenizer())
    assert result.ours.ids == [97, 256, 98]
    assert result.ours.spans == [(0, 1), (1, 6), (6, 7)]
    assert sorted(result.diff.only_theirs) == [2, 3, 4, 5]


def test_precomputed_ids_are_used() -> None:
    result = compare("aaab", AA, AB, ids=([256, 97, 98], [97, 97, 256]))
    assert sorted(result.diff.only_ours) == [3]
    with pytest.raises(ValueError, match="not this text's tokens"):
        compare("aaab", AA, AB, ids=([256], [97, 97, 256]))


def test_boundary_helpers() -> None:
    assert boundaries([]) == frozenset()
    assert boundaries([(0, 3)]) == frozenset()
    diff = boundary_diff(frozenset({1, 2}), frozenset({2, 3}))
    assert (diff.shared, diff.only_ours, diff.only_theirs) == ({2}, {1}, {3})


def test_start_marks_outline_tokens_after_a_cut_only_one_side_makes() -> None:
    """Hand example: aa|a|b|d|aa|a|b|a|c; cuts only here at 3 and 8 start ``b`` and ``b``."""
    result = compare("aaabdaaabac", AA, AB, names=("aa", "ab"))
    marks = start_marks(result.ours, result.diff.only_ours, mark="new")
    assert marks == ["", "", "new", "", "", "", "new", "", ""]
    theirs = start_marks(result.theirs, result.diff.only_theirs, mark="new")
    assert theirs == ["", "new", "", "", "", "new", "", "", ""]


def test_ids_of_another_text_are_refused_with_counts_in_agreement() -> None:
    """Issue 17: "decode to 1 bytes"."""
    tokenizer = Tokenizer.from_merges([])
    with pytest.raises(ValueError, match=r"decode to 1 byte, but the text has 2 bytes"):
        compare("ab", tokenizer, tokenizer, ids=([97], [97, 98]))


def _hand_wordpiece():
    """A WordPiece model written by hand: the, cat, ##s, and byte tokens are not needed."""
    from tokenizers import Tokenizer as Library
    from tokenizers import models, pre_tokenizers

    library = Library(
        models.WordPiece({"[UNK]": 0, "the": 1, "cat": 2, "##s": 3}, unk_token="[UNK]")
    )
    library.pre_tokenizer = pre_tokenizers.Whitespace()
    return library


def test_a_library_file_is_cut_where_its_offsets_end() -> None:
    """WordPiece on "the cats" by hand: the (0, 3), cat (4, 7), ##s (7, 8). The space it
    drops goes with the next token, as GPT's leading spaces do: spans (0,3) (3,7) (7,8), cuts
    3 and 7. cl100k_base reads "the", " cats" (cut 3), so only WordPiece cuts at 7."""
    from bpeviz.formats.hf_models import read_tokenizer_json
    from bpeviz.real.openai_ranks import load_encoding

    wordpiece = read_tokenizer_json(_hand_wordpiece().to_str())
    result = compare("the cats", wordpiece, load_encoding("cl100k_base"), names=("wp", "cl"))
    assert result.ours.ids == [1, 2, 3]
    assert result.ours.spans == [(0, 3), (3, 7), (7, 8)]
    assert sorted(result.diff.only_ours) == [7] and sorted(result.diff.shared) == [3]
    assert result.theirs.ids == [1820, 19987]  # tiktoken: "the", " cats"


def test_byte_fallback_tokens_are_cut_inside_their_character() -> None:
    """SentencePiece-style BPE with byte_fallback spells 駅 (E9 A7 85) as <0xE9> <0xA7>
    <0x85>, all three with the character's offsets (0, 1): one byte each, cuts at 1 and 2.
    Template tokens cover nothing: <s> is the span (0, 0)."""
    from hf_files import KINDS

    from bpeviz.formats.hf_models import read_tokenizer_json

    library = KINDS["sentencepiece-bpe"]()
    text = "駅"
    expected = library.encode(text)
    assert expected.tokens[-3:] == ["<0xE9>", "<0xA7>", "<0x85>"]
    result = tokenize(read_tokenizer_json(library.to_str()), text, name="sp")
    assert result.ids == expected.ids
    assert result.spans[0] == (0, 0) and result.spans[-3:] == [(0, 1), (1, 2), (2, 3)]
    assert sorted(result.boundaries) == [1, 2]


def test_a_library_file_that_drops_the_whole_text_compares_as_no_tokens() -> None:
    """A WordLevel file (split on whitespace) gives no token at all for spaces."""
    from tokenizers import Tokenizer as Library
    from tokenizers import models, pre_tokenizers

    from bpeviz.formats.hf_models import read_tokenizer_json

    library = Library(models.WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    library.pre_tokenizer = pre_tokenizers.Whitespace()
    assert library.encode("   ").ids == []
    result = compare("   ", read_tokenizer_json(library.to_str()), Tokenizer(), names=("w", "b"))
    assert result.ours.token_count == 0 and sorted(result.theirs.boundaries) == [1, 2]
