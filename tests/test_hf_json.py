"""Tests for bpeviz.formats.hf_json: Hugging Face ``tokenizer.json`` out and in.

The oracle is Hugging Face ``tokenizers`` itself: our exports are loaded with
``Tokenizer.from_file``/``from_str`` and must encode every text to our ids; files that
``tokenizers`` trains and saves (GPT-2, Llama 3 and Qwen style pre-tokenizers, with added
special tokens) are read by us and must encode to its ids. Expected ids always come from
``tokenizers`` at test time. Files with what we do not support are made with ``tokenizers``
too, and the message must name what is unsupported.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, processors, trainers
from tokenizers import Tokenizer as HFTokenizer

from bpeviz import train
from bpeviz.app.export.files import load_upload
from bpeviz.engine.pretokenize import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN
from bpeviz.engine.samples import get_sample
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats import load_model_file
from bpeviz.formats.hf_json import MAX_JSON_BYTES, from_hf_json, to_hf_json

ENGLISH = get_sample("english").text
JAPANESE = get_sample("japanese").text
# Runs of spaces and long numbers teach merges (" " + " ", "1" + "2") that a text can place
# across a split: where the split pattern decides the ids, so a wrong split shows.
BOUNDARY = "  the  cat   sat on 1234567890 and 12345678,\n\n   the end  " * 8
BOUNDARY_TEXTS = ("a  the  cat    sat 12345678901 23\n\n  x", "   1234 the")
CORPUS = ENGLISH + "\n" + JAPANESE + "\n" + BOUNDARY
SPECIALS = ["<|endoftext|>", "<|endoftext|>!!", "|><|", "<|fim|>"]  # overlapping on purpose
FRAGMENTS = [
    *SPECIALS, "<|", "|>", "!!", "end", "of", "text", " the", "The", "a", " ", "  ", "   ",
    "\n", "\r\n", "\t", "\u3000", "日本", "語", "の", "。", "é", "😀", "'s", "'LL", "123",
    "45678", "def", "(x)", "CamelCase",
]  # fmt: skip
# Llama 3's published split pattern: cl100k's, written without possessive quantifiers.
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"""
    r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
# Qwen2's published split pattern (one digit per piece, letters after one non-letter).
QWEN_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)


def texts() -> st.SearchStrategy[str]:
    """Fragments around the special tokens, or any assigned Unicode character.

    Code points that Python's ``unicodedata`` (Unicode 14 here) calls unassigned are left
    out: ``regex`` and Oniguruma each classify them by their own, newer or older, Unicode
    tables (``regex`` knows U+323B0 as a letter, tokenizers' Oniguruma does not), which is a
    limit of the engines that docs/engine.md states, not something a file format can settle.
    """
    assigned = st.characters(exclude_categories=("Cn", "Cs"))
    return st.one_of(
        st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join),
        st.text(assigned, max_size=50),
    )


# ---- out: our exports in tokenizers --------------------------------------------------------


@functools.cache
def ours(pretokenizer: str) -> Tokenizer:
    return train(CORPUS, 256 + 300, pretokenizer=pretokenizer, special_tokens=SPECIALS).tokenizer


@functools.cache
def exported(pretokenizer: str) -> HFTokenizer:
    return HFTokenizer.from_str(to_hf_json(ours(pretokenizer)))


MODES = ["bytes", "gpt2", "gpt4"]


@pytest.mark.parametrize("mode", MODES)
def test_export_loads_with_from_file_and_encodes_both_samples_identically(
    mode: str, tmp_path: Path
) -> None:
    (tmp_path / "tokenizer.json").write_text(to_hf_json(ours(mode)), encoding="utf-8")
    hf = HFTokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for text in (ENGLISH, JAPANESE, "a<|endoftext|>b<|endoftext|>!!c|><|<|fim|>", *BOUNDARY_TEXTS):
        assert ours(mode).encode(text) == hf.encode(text).ids
    assert hf.get_vocab_size() == ours(mode).vocab_size
    assert [hf.token_to_id(s) for s in SPECIALS] == [556, 557, 558, 559]


@pytest.mark.parametrize("mode", MODES)
def test_export_shape_is_split_then_byte_level(mode: str) -> None:
    document = json.loads(to_hf_json(ours(mode)))
    pre = document["pre_tokenizer"]
    if mode == "bytes":
        assert pre["type"] == "ByteLevel" and pre["use_regex"] is False
    else:
        split, byte_level = pre["pretokenizers"]
        assert split["type"] == "Split" and split["behavior"] == "Isolated"
        assert byte_level["type"] == "ByteLevel" and byte_level["use_regex"] is False
    if mode == "gpt2":
        assert pre["pretokenizers"][0]["pattern"] == {"Regex": GPT2_SPLIT_PATTERN}
    assert all(token["special"] for token in document["added_tokens"])


@pytest.mark.parametrize("mode", ["gpt2", "gpt4"])
@settings(max_examples=150, deadline=None)
@given(text=texts())
def test_the_written_split_cuts_where_our_pattern_does(mode: str, text: str) -> None:
    """tokenizers' Split runs in Oniguruma, which reads cl100k's ``\\p{N}{1,3}+`` as a whole
    run of digits: the file's regex must cut every text where Python's ``regex`` does."""
    pattern = GPT2_SPLIT_PATTERN if mode == "gpt2" else GPT4_SPLIT_PATTERN
    split = exported(mode).pre_tokenizer
    cut = split.pre_tokenize_str(text)  # ByteLevel pieces with character offsets
    assert [text[start:end] for _, (start, end) in cut] == regex.findall(pattern, text)


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=80, deadline=None)
@given(text=texts())
def test_export_encodes_any_text_as_we_do(mode: str, text: str) -> None:
    ids = ours(mode).encode(text)
    assert exported(mode).encode(text).ids == ids
    assert exported(mode).decode(ids, skip_special_tokens=False) == text


def test_words_mode_and_end_of_word_are_refused_with_the_reason() -> None:
    words = train(ENGLISH, 300, pretokenizer="words").tokenizer
    with pytest.raises(ValueError, match="never merges the whitespace between words"):
        to_hf_json(words)
    marked = train(ENGLISH, 300, pretokenizer="words", end_of_word=True).tokenizer
    with pytest.raises(ValueError, match="</w>"):
        to_hf_json(marked)


def test_a_rank_table_is_refused() -> None:
    ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256}
    with pytest.raises(ValueError, match="rank table"):
        to_hf_json(Tokenizer.from_ranks(ranks, pattern=GPT4_SPLIT_PATTERN))


# ---- in: files tokenizers writes, read by us -----------------------------------------------


def hf_trained(style: str) -> HFTokenizer:
    """A byte-level BPE that tokenizers trains itself, in one of the published styles."""
    hf = HFTokenizer(models.BPE())
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=style == "gpt2")
    if style == "gpt2":
        hf.pre_tokenizer = byte_level
    else:
        # "possessive": cl100k's own string, whose \p{N}{1,3}+ Oniguruma reads as repeated
        pattern = {"llama3": LLAMA3_PATTERN, "qwen": QWEN_PATTERN}.get(style, GPT4_SPLIT_PATTERN)
        split = pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False)
        hf.pre_tokenizer = pre_tokenizers.Sequence([split, byte_level])
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=700,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>", "<|fim|>"],
        show_progress=False,
    )
    hf.train_from_iterator([ENGLISH, JAPANESE, BOUNDARY], trainer=trainer)
    hf.add_special_tokens(["<|endoftext|>!!", "|><|"])
    return hf


STYLES = ["gpt2", "llama3", "qwen", "possessive"]


@functools.cache
def theirs(style: str) -> tuple[HFTokenizer, Tokenizer]:
    hf = hf_trained(style)
    return hf, from_hf_json(hf.to_str())


@pytest.mark.parametrize("style", STYLES)
def test_files_tokenizers_writes_read_and_encode_both_samples_as_it_does(style: str) -> None:
    hf, read = theirs(style)
    for text in (ENGLISH, JAPANESE, "x<|endoftext|>!!y<|fim|>", *BOUNDARY_TEXTS):
        assert read.encode(text) == hf.encode(text).ids


@pytest.mark.parametrize("style", STYLES)
@settings(max_examples=80, deadline=None)
@given(text=texts())
def test_files_tokenizers_writes_encode_any_text_as_it_does(style: str, text: str) -> None:
    hf, read = theirs(style)
    ids = read.encode(text)
    assert ids == hf.encode(text).ids
    assert read.decode(ids) == text


@pytest.mark.parametrize("mode", MODES)
def test_our_export_reads_back_to_the_same_encodings(mode: str) -> None:
    read = from_hf_json(to_hf_json(ours(mode)))
    assert (read.pretokenizer, read.pattern) == (mode, None)  # the published pattern, by name
    for text in (ENGLISH, JAPANESE, "<|endoftext|> the end"):
        assert read.encode(text) == ours(mode).encode(text)
    assert read.merges == ours(mode).merges


def test_merges_written_as_strings_are_read_too() -> None:
    """Older files write each merge as one string "left right"."""
    hf, _ = theirs("gpt2")
    document = json.loads(hf.to_str())
    document["model"]["merges"] = [" ".join(pair) for pair in document["model"]["merges"]]
    older = json.dumps(document)
    assert from_hf_json(older).encode(ENGLISH) == HFTokenizer.from_str(older).encode(ENGLISH).ids


def test_upload_dispatcher_and_export_page_glue_read_it() -> None:
    data = hf_trained("llama3").to_str().encode()
    assert load_model_file("tokenizer.json", data).encode("hello") == theirs("llama3")[
        0
    ].encode("hello").ids
    assert load_model_file("upload", data).encode("hello") == load_model_file(
        "tokenizer.json", data
    ).encode("hello")
    loaded = load_upload([("tokenizer.json", data)])
    assert loaded.kind == "Hugging Face tokenizer.json"


# ---- in: what is refused -------------------------------------------------------------------


def _with(model: models.Model, **parts: object) -> str:
    hf = HFTokenizer(model)
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    for name, value in parts.items():
        setattr(hf, name, value)
    return hf.to_str()


def _bpe(**options: object) -> models.BPE:
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {char: index for index, char in enumerate(sorted(alphabet))}
    return models.BPE(vocab=vocab, merges=[], **options)


def _edited(**changes: object) -> str:
    document = json.loads(_with(_bpe()))
    for path, value in changes.items():
        target = document
        *parents, last = path.split("__")
        for key in parents:
            target = target[key]
        target[last] = value
    return json.dumps(document)


UNSUPPORTED = {
    "wordpiece": (lambda: _with(models.WordPiece({"[UNK]": 0, "a": 1}, unk_token="[UNK]")),
                  "WordPiece model"),
    "unigram": (lambda: _with(models.Unigram([("a", -1.0), ("b", -2.0)], 0, False)),
                "Unigram model"),
    "wordlevel": (lambda: _with(models.WordLevel({"a": 0}, unk_token="a")), "WordLevel model"),
    "normalizer": (lambda: _with(_bpe(), normalizer=normalizers.NFC()), "normalizer \\(NFC\\)"),
    "lowercase": (lambda: _with(_bpe(), normalizer=normalizers.Lowercase()),
                  "normalizer \\(Lowercase\\)"),
    "post-processor": (lambda: _with(_bpe(), post_processor=processors.TemplateProcessing(
        single="<s> $A", special_tokens=[("<s>", 1)])), "post-processor \\(TemplateProcessing\\)"),
    "byte_fallback": (lambda: _with(_bpe(byte_fallback=True)), "byte_fallback"),
    "ignore_merges": (lambda: _with(_bpe(ignore_merges=True)), "ignore_merges"),
    "dropout": (lambda: _with(_bpe(dropout=0.1)), "dropout"),
    "suffix": (lambda: _with(_bpe(end_of_word_suffix="</w>")), "end_of_word_suffix"),
    "prefix-space": (lambda: _with(_bpe(), pre_tokenizer=pre_tokenizers.ByteLevel(
        add_prefix_space=True)), "add_prefix_space"),
    "whitespace": (lambda: _with(_bpe(), pre_tokenizer=pre_tokenizers.Whitespace()),
                   "pre-tokenizer Whitespace"),
    "metaspace": (lambda: _with(_bpe(), pre_tokenizer=pre_tokenizers.Metaspace()),
                  "pre-tokenizer Metaspace"),
    "split-removed": (lambda: _with(_bpe(), pre_tokenizer=pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(r"\s+"), behavior="removed"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])),
        "behavior 'Removed'"),
    "lstrip": (lambda: _edited(added_tokens=[{"id": 300, "content": "<x>", "lstrip": True}]),
               "lstrip on the added token '<x>'"),
    "not-byte-level": (lambda: _edited(model__vocab={"a": 0, "b": 1}),
                       "lacks the byte-level token"),
}  # fmt: skip


@pytest.mark.parametrize("case", UNSUPPORTED.values(), ids=UNSUPPORTED.keys())
def test_unsupported_features_are_named(case) -> None:
    make, named = case
    with pytest.raises(ValueError, match=named):
        from_hf_json(make())


def test_a_refused_upload_is_encoded_by_the_library() -> None:
    """Our reader's refusal (a normalizer) hands the upload to tokenizers, named in its kind."""
    data = _with(_bpe(), normalizer=normalizers.NFKC()).encode()
    loaded = load_upload([("tokenizer.json", data)])
    assert "normalizer (NFKC)" in loaded.tokenizer.refused
    assert "encoded by Hugging Face tokenizers" in loaded.kind
    text = "ﬁne Ｆｕｌｌwidth ①"
    assert loaded.tokenizer.encode(text) == HFTokenizer.from_str(data.decode()).encode(text).ids


def test_a_file_both_refuse_reaches_the_upload_as_a_message() -> None:
    data = b'{"model": {"type": "WordPiece", "vocab": {"a": 0}}}'
    with pytest.raises(
        ValueError, match=r"tokenizer\.json: .*WordPiece model.*tokenizers cannot read it either"
    ):
        load_upload([("tokenizer.json", data)])


MALFORMED = {
    "not-json": (b'{"model": {', "line 1 of the tokenizer.json is not valid JSON"),
    "empty": (b"", "not valid JSON"),
    "a-list": (b"[1, 2]", 'no "model" object'),
    "deep": (b"[" * 100_000 + b"]" * 100_000, "nests too deep|not valid JSON"),
    "not-utf8": (b'{"model": "\xff"}', "UTF-8"),
    "bad-merge": (_edited(model__merges=[["Ġ", "nope"]]).encode(), "merge 1 .* 'nope'"),
    "bad-merge-shape": (_edited(model__merges=[1]).encode(), "merge 1 .* expected"),
    "bad-id": (_edited(model__vocab={"a": "x"}).encode(), "gives 'a' the id 'x'"),
}


@pytest.mark.parametrize("case", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_files_get_a_clear_message(case) -> None:
    data, message = case
    with pytest.raises(ValueError, match=message):
        from_hf_json(data)
    with pytest.raises(ValueError, match=r"tokenizer\.json: "):
        load_upload([("tokenizer.json", data)])


def test_a_huge_file_is_refused_before_parsing() -> None:
    data = b" " * (MAX_JSON_BYTES + 1)
    with pytest.raises(ValueError, match="at most 32 MB is read"):
        from_hf_json(data)
