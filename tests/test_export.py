"""Tests for bpeviz.app.export.files: download payloads, the history CSV, and reading uploads
back."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpeviz.app.export.files import (
    PATTERN_CHOICES,
    export_formats,
    file_stem,
    first_tokens_frame,
    load_upload,
    pattern_description,
    summarize,
)
from bpeviz.engine.history import train
from bpeviz.engine.samples import get_sample
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats.gpt2 import from_gpt2_files
from bpeviz.formats.minbpe import from_minbpe_model, to_minbpe_vocab
from bpeviz.formats.tiktoken import from_tiktoken, to_tiktoken

ROUND_TRIP_TEXTS = [
    "",
    "a",
    "🙂",
    "The printer counted pairs, 1234 times a day.\n",
    "駅前の小さな本屋で、子どもは文字を読むことを覚えた。",
]


@pytest.fixture(scope="module")
def english():
    return train(get_sample("english").text[:2000], 400, pretokenizer="gpt4")


def by_title(tokenizer: Tokenizer) -> dict:
    return {item.title: item for item in export_formats(tokenizer, stem="toy")}


# ---- history CSV --------------------------------------------------------------------------


# ---- downloads round-trip through bpeviz.formats ------------------------------------------


def test_every_format_is_offered_for_a_plain_model(english) -> None:
    exports = by_title(english.tokenizer)
    assert [item.error for item in exports.values()] == [None, None, None, None]
    names = [download.file_name for item in exports.values() for download in item.files]
    assert names == [
        "toy.model",
        "toy.vocab",
        "toy-vocab.json",
        "toy-merges.txt",
        "toy.tiktoken",
        "toy-tokenizer.json",
    ]


def test_minbpe_download_round_trips(english) -> None:
    model, vocab = by_title(english.tokenizer)["minbpe .model + .vocab"].files
    loaded = from_minbpe_model(model.data)
    assert loaded.merges == english.tokenizer.merges
    assert loaded.pretokenizer == "gpt4"
    assert vocab.data.decode("utf-8") == to_minbpe_vocab(english.tokenizer)
    for text in ROUND_TRIP_TEXTS:
        assert loaded.encode(text) == english.tokenizer.encode(text)


def test_gpt2_download_round_trips(english) -> None:
    vocab_json, merges_txt = by_title(english.tokenizer)["GPT-2 vocab.json + merges.txt"].files
    loaded = from_gpt2_files(vocab_json.data, merges_txt.data, pattern=PATTERN_CHOICES["gpt4"])
    assert loaded.vocab == english.tokenizer.vocab
    for text in ROUND_TRIP_TEXTS:
        assert loaded.encode(text) == english.tokenizer.encode(text)


def test_tiktoken_download_round_trips(english) -> None:
    (ranks,) = by_title(english.tokenizer)["tiktoken .tiktoken"].files
    loaded = from_tiktoken(ranks.data)
    assert loaded.vocab == english.tokenizer.vocab
    for text in ROUND_TRIP_TEXTS:
        assert loaded.decode(loaded.encode(text)) == text


def test_downloads_read_back_through_the_upload_path(english) -> None:
    exports = by_title(english.tokenizer)
    model = exports["minbpe .model + .vocab"].files[0]
    vocab_json, merges_txt = exports["GPT-2 vocab.json + merges.txt"].files
    (ranks,) = exports["tiktoken .tiktoken"].files
    uploads = [
        [(model.file_name, model.data)],
        [(merges_txt.file_name, merges_txt.data), (vocab_json.file_name, vocab_json.data)],
        [(ranks.file_name, ranks.data)],
    ]
    kinds = []
    for files in uploads:
        loaded = load_upload(files, pattern="gpt4")
        kinds.append(loaded.kind)
        assert loaded.tokenizer.encode(ROUND_TRIP_TEXTS[3]) == english.tokenizer.encode(
            ROUND_TRIP_TEXTS[3]
        )
        assert loaded.summary.vocab_size == english.tokenizer.vocab_size
    assert kinds == ["minbpe .model", "GPT-2 vocab.json + merges.txt", "tiktoken .tiktoken"]


def test_end_of_word_models_explain_instead_of_offering_files() -> None:
    history = train("low lower lowest", 262, pretokenizer="words", end_of_word=True)
    exports = export_formats(history.tokenizer)
    assert all(item.files == () for item in exports)
    assert all("</w>" in (item.error or "") for item in exports)


def test_a_format_that_cannot_hold_the_model_does_not_hide_the_others() -> None:
    history = train("low lower lowest", 262, pretokenizer="words")
    exports = by_title(history.tokenizer)
    assert "words" in (exports["minbpe .model + .vocab"].error or "")
    assert exports["tiktoken .tiktoken"].error is None


def test_file_stem() -> None:
    assert file_stem("english", 512) == "bpeviz-english-512"
    assert file_stem("駅前", 300) == "bpeviz-300"


# ---- uploads ------------------------------------------------------------------------------


def test_uploaded_model_summary() -> None:
    model = b"minbpe v1\n\n1\n<|end|> 258\n97 97\n256 97\n"
    loaded = load_upload([("toy.model", model)])
    summary = loaded.summary
    assert (summary.kind, summary.vocab_size, summary.merges) == ("minbpe .model", 259, 2)
    assert summary.pattern == ""
    assert summary.special_tokens == {"<|end|>": 258}
    rows = dict(summary.as_rows())
    assert rows["split pattern"].startswith("(none")
    assert rows["special tokens"] == "<|end|> = 258"
    assert summary.frame().values.tolist()[:3] == [
        ["kind", "minbpe .model"],
        ["vocab size", "259"],
        ["merges", "2"],
    ]
    assert loaded.source == "toy.model"


def test_first_tokens_frame() -> None:
    tokenizer = Tokenizer.from_merges([(97, 97), (32, 256)])
    assert first_tokens_frame(tokenizer).values.tolist() == [[256, "aa", 2], [257, "␣aa", 3]]
    assert len(first_tokens_frame(tokenizer, start=0, limit=10)) == 10


def test_summarize_a_rank_table() -> None:
    ranks = {bytes([value]): value for value in range(256)} | {b"hi": 256}
    tokenizer = Tokenizer.from_ranks(ranks, pattern="")
    summary = summarize(tokenizer, "tiktoken .tiktoken")
    assert (summary.vocab_size, summary.merges, summary.pattern) == (257, 1, "")


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ([("bad.model", b"minbpe v1\n\n0\n97 97\n97 x\n")], "bad.model: line 5 of the .model file"),
        ([("bad.model", b"hello\n")], "line 1 of the .model file"),
        ([("bad.model", b"")], "is empty"),
        ([("bad.model", b"minbpe v1\n\n0\n\xff\xfe\n")], "line 4 of the .model file is not UTF-8"),
        ([("bad.tiktoken", b"YQ== 0\nnot base64! 1\n")], "line 2 of the .tiktoken file"),
        ([("x.vocab", b"[a] 97\n")], "cannot be read back"),
        ([("vocab.json", b"{}")], "half of a GPT-2 tokenizer"),
        ([("notes.txt", b"a b\n")], "upload both"),
        ([("mystery.bin", b"\x00\x01\x02")], "cannot tell what kind of model"),
        ([("a.json", b"{}"), ("b.json", b"{}")], "one vocab.json (.json) and one merges.txt"),
        ([("v.json", b"[1, 2]"), ("m.txt", b"")], "holds a JSON list"),
        ([("v.json", b'{"a": 1,}'), ("m.txt", b"")], "line 1 of the vocab.json file is not valid"),
        ([("a.model", b""), ("b.model", b""), ("c.model", b"")], "3 files uploaded"),
        ([], "no file uploaded"),
    ],
    ids=[
        "bad-merge-line",
        "not-minbpe",
        "empty",
        "not-utf8",
        "bad-base64",
        "vocab-listing",
        "half-gpt2",
        "stray-txt",
        "unknown-kind",
        "two-json",
        "json-list",
        "bad-json",
        "three-files",
        "nothing",
    ],
)
def test_malformed_uploads_give_a_message(files, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        load_upload(files)
    assert message in str(raised.value)


def test_unknown_pattern_choice() -> None:
    with pytest.raises(ValueError, match="unknown split pattern"):
        load_upload([("a.model", b"minbpe v1\n\n0\n")], pattern="gpt5")


def test_the_chosen_pattern_applies_to_tiktoken_uploads() -> None:
    ranks = to_tiktoken(Tokenizer.from_merges([(32, 97)])).encode()
    assert load_upload([("r.tiktoken", ranks)], pattern="bytes").tokenizer.encode("a a") == [
        97,
        256,
    ]
    gpt4 = load_upload([("r.tiktoken", ranks)], pattern="gpt4").tokenizer
    assert gpt4.split_pattern == PATTERN_CHOICES["gpt4"]
    # Without a file extension the content decides, and the chosen pattern still applies.
    assert load_upload([("ranks", ranks)], pattern="bytes").tokenizer.split_pattern == ""


@settings(max_examples=200, deadline=None)
@given(
    name=st.sampled_from(["x.model", "x.tiktoken", "x", "vocab.json"]),
    data=st.binary(max_size=200),
)
def test_arbitrary_bytes_never_escape_as_anything_but_a_message(name: str, data: bytes) -> None:
    try:
        load_upload([(name, data)])
    except ValueError as error:
        assert str(error).startswith(name)


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(st.text(alphabet="0123456789 abx\t", max_size=12), max_size=8))
def test_arbitrary_model_lines_never_escape(lines: list[str]) -> None:
    data = ("minbpe v1\n\n0\n" + "\n".join(lines)).encode()
    try:
        load_upload([("x.model", data)])
    except ValueError as error:
        assert "could not be read" not in str(error)  # the reader itself said what is wrong


def test_published_split_patterns_are_named() -> None:
    assert pattern_description(PATTERN_CHOICES["gpt4"]).startswith("GPT-4's (cl100k) pattern: ")
    assert pattern_description(PATTERN_CHOICES["gpt2"]).startswith("GPT-2's pattern: ")
    assert pattern_description(r"\w+") == r"\w+"
    assert pattern_description("").startswith("(none")
