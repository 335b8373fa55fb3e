"""Tests for bpeviz.formats: minbpe, GPT-2 and tiktoken files, each checked against the real tool.

The oracles are the tools themselves: minbpe's own outputs (files it wrote and ids it
encoded, stored in ``tests/fixtures/minbpe``; its README says which commit and how), Hugging
Face ``tokenizers`` for GPT-2 files, and ``tiktoken`` for ``.tiktoken`` files, both run live.
Hand-worked examples live in ``tests/fixtures`` (see its README for the arithmetic).
"""

from __future__ import annotations

import base64
import functools
import json
import re
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, decoders, models, pre_tokenizers
from tokenizers import Tokenizer as HFTokenizer

from bpeviz.engine.history import train
from bpeviz.engine.pretokenize import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats import load_model_file
from bpeviz.formats.common import render_token
from bpeviz.formats.gpt2 import bytes_to_unicode, from_gpt2_files, to_gpt2_files
from bpeviz.formats.minbpe import from_minbpe_model, to_minbpe_model, to_minbpe_vocab
from bpeviz.formats.tiktoken import from_tiktoken, to_tiktoken

FIXTURES = Path(__file__).parent / "fixtures"
MINBPE = FIXTURES / "minbpe"
# A small mixed corpus: prose, CJK (so some tokens are partial UTF-8), code, control characters.
CORPUS = (MINBPE / "corpus.txt").read_bytes().decode("utf-8")  # bytes: keep its "\r\n"
# Texts minbpe encoded: named ones, then 200 random mixes of fragments and code points.
MINBPE_TEXTS: dict[str, str] = json.loads((MINBPE / "texts.json").read_text(encoding="utf-8"))
MINBPE_IDS: dict[str, dict[str, list[int]]] = json.loads(
    (MINBPE / "encodings.json").read_text(encoding="utf-8")
)
VARIED_TEXTS = {
    name: text
    for name, text in MINBPE_TEXTS.items()
    if not name.startswith("random_") and name != "walkthrough"
}
SPECIAL = "<|endoftext|>"


def write(path: Path, text: str) -> None:
    """A file as the app's download and the CLI write it: UTF-8, newlines untranslated."""
    path.write_text(text, encoding="utf-8", newline="")


def write_gpt2(tokenizer: Tokenizer, directory: Path) -> None:
    vocab_json, merges_txt = to_gpt2_files(tokenizer)
    write(directory / "vocab.json", vocab_json)
    write(directory / "merges.txt", merges_txt)


def minbpe_file(name: str) -> str:
    """A file minbpe wrote, exactly as written."""
    return (MINBPE / name).read_bytes().decode("utf-8")


def assert_encodes_like_minbpe(tokenizer: Tokenizer, model: str) -> None:
    """Every stored text encodes to the ids minbpe gave with ``model`` loaded."""
    assert set(MINBPE_IDS[model]) == set(MINBPE_TEXTS)
    for name, text in MINBPE_TEXTS.items():
        assert tokenizer.encode(text) == MINBPE_IDS[model][name], name


def test_minbpe_fixtures_are_rich() -> None:
    """The stored outputs exercise what they should: CRLF and control bytes in the corpus,
    special tokens (one id each), and over 200 texts."""
    assert len(MINBPE_TEXTS) > 200 and "\r\n" in CORPUS and "\x00" in CORPUS
    assert minbpe_file("minbpe_gpt4.model").splitlines()[2:4] == ["1", "<|endoftext|> 100257"]
    assert MINBPE_IDS["gpt4"]["special"].count(336) == 1  # the special token, as one id


# ---- minbpe .model: hand-worked fixtures --------------------------------------------------


def test_fixture_aaabdaaabac_encodes_as_worked_by_hand() -> None:
    """The Wikipedia/minbpe walk-through: aa -> 256, aa+a -> 257, aaa+b -> 258."""
    tokenizer = from_minbpe_model((FIXTURES / "aaabdaaabac.model").read_bytes())
    assert tokenizer.merges == ((97, 97, 256), (256, 97, 257), (257, 98, 258))
    assert tokenizer.pretokenizer == "bytes" and tokenizer.special_tokens == {}
    assert tokenizer.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert tokenizer.vocab[258] == b"aaab"
    assert tokenizer.decode([258, 100, 258, 97, 99]) == "aaabdaaabac"


def test_fixture_with_pattern_and_special_encodes_as_worked_by_hand() -> None:
    """GPT-2 pieces ``the``, `` cat``, `` the``, `` hat`` plus a special (fixtures/README.md)."""
    tokenizer = from_minbpe_model((FIXTURES / "the_cat.model").read_bytes())
    assert tokenizer.pretokenizer == "gpt2" and tokenizer.pattern is None
    assert tokenizer.special_tokens == {"<|endoftext|>": 260}
    ids = tokenizer.encode("the cat the hat<|endoftext|>")
    assert ids == [257, 32, 99, 259, 258, 32, 104, 259, 260]
    assert tokenizer.decode(ids) == "the cat the hat<|endoftext|>"


@pytest.mark.parametrize("name", ["aaabdaaabac.model", "the_cat.model"])
def test_fixture_is_rewritten_byte_for_byte(name: str) -> None:
    data = (FIXTURES / name).read_text(encoding="utf-8")
    assert to_minbpe_model(from_minbpe_model(data)) == data


@pytest.mark.parametrize("name", ["aaabdaaabac", "the_cat"])
def test_fixture_encodes_as_minbpe_encoded_it(name: str) -> None:
    assert_encodes_like_minbpe(from_minbpe_model((FIXTURES / f"{name}.model").read_bytes()), name)


# ---- minbpe .model: against minbpe's own files and ids ------------------------------------


@pytest.mark.parametrize("model", ["basic", "minbpe_gpt4", "gpt2", "gpt4"])
def test_model_written_by_minbpe_loads_and_encodes_identically(model: str) -> None:
    """minbpe trained on the corpus and saved; we load its file and encode as it did."""
    model_text = minbpe_file(f"{model}.model")
    ours = from_minbpe_model((MINBPE / f"{model}.model").read_bytes())
    assert len(ours.merges) == 80
    assert_encodes_like_minbpe(ours, model)
    assert to_minbpe_model(ours) == model_text
    if model == "minbpe_gpt4":
        # minbpe's GPT-4 pattern is an older spelling than tiktoken's: kept as is, not renamed.
        assert ours.split_pattern == model_text.splitlines()[1] != GPT4_SPLIT_PATTERN
        assert ours.special_tokens == {SPECIAL: 100257}


@pytest.mark.parametrize(
    ("model", "pretokenizer"), [("basic", "bytes"), ("gpt2", "gpt2"), ("gpt4", "gpt4")]
)
def test_our_training_writes_the_files_minbpe_writes(
    model: str, pretokenizer: str, tmp_path: Path
) -> None:
    """Same corpus, same vocab size: our ``first`` tie rule is minbpe's, so the ``.model``
    files are equal byte for byte (minbpe then encodes with ours as with its own: the stored
    ids), and so is the ``.vocab`` minbpe writes after loading (its specials listed last)."""
    specials = [] if model == "basic" else [SPECIAL]
    ours = train(CORPUS, 256 + 80, pretokenizer=pretokenizer, special_tokens=specials).tokenizer
    assert to_minbpe_model(ours) == minbpe_file(f"{model}.model")
    vocab_name = f"{model}.vocab" if model == "basic" else f"{model}.reloaded.vocab"
    assert to_minbpe_vocab(ours) == minbpe_file(vocab_name)
    assert_encodes_like_minbpe(ours, model)
    write(tmp_path / "ours.model", to_minbpe_model(ours))
    write(tmp_path / "ours.vocab", to_minbpe_vocab(ours))
    assert (tmp_path / "ours.model").read_bytes() == (MINBPE / f"{model}.model").read_bytes()
    assert (tmp_path / "ours.vocab").read_bytes() == (MINBPE / vocab_name).read_bytes()


def test_vocab_file_matches_minbpe_byte_for_byte() -> None:
    """Broken UTF-8 shows as U+FFFD and control characters as \\uXXXX, exactly as minbpe."""
    vocab_text = minbpe_file("basic.vocab")
    ours = from_minbpe_model((MINBPE / "basic.model").read_bytes())
    assert to_minbpe_vocab(ours) == vocab_text
    assert "[\\u000a] 10\n" in vocab_text and "[�] 230\n" in vocab_text  # the oracle is rich


def test_vocab_file_lists_special_tokens_as_minbpe_does_after_loading() -> None:
    vocab_text = minbpe_file("minbpe_gpt4.reloaded.vocab")
    ours = from_minbpe_model((MINBPE / "minbpe_gpt4.model").read_bytes())
    assert to_minbpe_vocab(ours) == vocab_text
    assert vocab_text.endswith("[<|endoftext|>] 100257\n")


def test_render_token_is_minbpes() -> None:
    """minbpe's ``render_token`` on every single byte and 300 random byte strings, stored."""
    rendered: list[list[str]] = json.loads((MINBPE / "render_token.json").read_text("utf-8"))
    assert len(rendered) > 500
    for token_hex, theirs in rendered:
        assert render_token(bytes.fromhex(token_hex)) == theirs, token_hex


def test_minbpe_model_accepts_crlf_and_trailing_blank_lines() -> None:
    tokenizer = from_minbpe_model(b"minbpe v1\r\n\r\n0\r\n97 97\r\n256 97\r\n\r\n\r\n")
    assert tokenizer.encode("aaa") == [257]


# ---- minbpe .model: what cannot be written ------------------------------------------------


def test_end_of_word_model_is_refused_with_a_fix() -> None:
    tokenizer = train("low lower lowest", 260, pretokenizer="words", end_of_word=True).tokenizer
    for write in (to_minbpe_model, to_gpt2_files, to_tiktoken):
        with pytest.raises(ValueError, match=r"</w>.*[Rr]etrain without the marker"):
            write(tokenizer)


def test_words_pretokenizer_is_refused_in_a_model_file() -> None:
    tokenizer = train("low lower lowest", 260, pretokenizer="words").tokenizer
    with pytest.raises(ValueError, match=r"'words' pre-tokenizer.*retrain"):
        to_minbpe_model(tokenizer)


def test_rank_table_is_refused_in_a_model_file() -> None:
    tokenizer = from_tiktoken(_byte_ranks() + "aGk= 256\n")
    with pytest.raises(ValueError, match=r"rank table.*save it as a \.tiktoken"):
        to_minbpe_model(tokenizer)
    with pytest.raises(ValueError, match="rank table"):
        to_gpt2_files(tokenizer)


def test_special_token_with_a_space_is_refused_in_a_model_file() -> None:
    tokenizer = Tokenizer.from_merges([(97, 97)], special_tokens=["<end of text>"])
    with pytest.raises(ValueError, match="contains whitespace"):
        to_minbpe_model(tokenizer)


def test_gpt2_numbered_tokenizer_is_refused_in_a_model_file() -> None:
    tokenizer = Tokenizer(byte_ids=range(1, 257), merges=[(98, 98, 0)])
    with pytest.raises(ValueError, match=r"numbers the bytes 0\.\.255.*vocab\.json"):
        to_minbpe_model(tokenizer)


# ---- minbpe .model: malformed files -------------------------------------------------------

MALFORMED_MODELS = [
    pytest.param(b"", 0, "is empty", id="empty"),
    pytest.param(b"\n\n", 0, "is empty", id="blank"),
    pytest.param(b"minbpe v2\n\n0\n", 1, "expected 'minbpe v1', got 'minbpe v2'", id="header"),
    pytest.param(b"minbpe v1\n", 1, "ends after line 1: expected the split pattern", id="short"),
    pytest.param(b"minbpe v1\n(\n0\n", 2, "not a valid regular expression", id="bad-pattern"),
    pytest.param(b"minbpe v1\n\nx\n", 3, "expected the number of special tokens", id="count"),
    pytest.param(b"minbpe v1\n\n1\n", 3, "ends after line 3: expected a special", id="no-special"),
    pytest.param(b"minbpe v1\n\n1\n<|e|>\n", 4, "expected a special token 'token id'", id="sp-id"),
    pytest.param(
        b"minbpe v1\n\n2\n<|a|> 300\n<|b|> 300\n", 5, "reuses id 300", id="special-dup-id"
    ),
    pytest.param(
        b"minbpe v1\n\n1\n<|a|> 256\n97 97\n", 4, "already the merge on line 5", id="special-id"
    ),
    pytest.param(
        b"minbpe v1\n\n0\n97 97\nx y z\n",
        5,
        "expected two ids 'idx1 idx2', got 'x y z'",
        id="three-fields",
    ),
    pytest.param(b"minbpe v1\n\n0\n97 -1\n", 4, "expected two ids", id="negative"),
    pytest.param(b"minbpe v1\n\n0\n97 256\n", 4, "uses id 256, which no earlier line", id="ahead"),
    pytest.param(b"minbpe v1\n\n0\n97 97\n\n98 98\n", 5, "expected two ids", id="blank-merge"),
    pytest.param(b"minbpe v1\n\n0\n97 97\n97 97\n", 5, "already on line 4", id="dup-merge"),
    pytest.param(b"minbpe v1\n\n0\n97 97\n\xff\xfe\n", 5, "not UTF-8", id="not-utf8"),
]


@pytest.mark.parametrize(("data", "line", "message"), MALFORMED_MODELS)
def test_malformed_model_names_the_line(data: bytes, line: int, message: str) -> None:
    with pytest.raises(ValueError, match=r"\.model file") as error:
        from_minbpe_model(data)
    text = str(error.value)
    assert message in text
    if line:
        assert f"line {line}" in text


# ---- GPT-2 vocab.json + merges.txt --------------------------------------------------------


def test_bytes_to_unicode_known_values() -> None:
    """Values from GPT-2's encoder.py: printable bytes are themselves, the rest from U+0100."""
    mapping = bytes_to_unicode()
    assert mapping[32] == "Ġ" and mapping[10] == "Ċ" and mapping[ord("a")] == "a"
    assert mapping[0] == "Ā" and mapping[ord("!")] == "!" and mapping[173] == "Ń"
    assert mapping[255] == "ÿ" and mapping[127] == "ġ"
    assert len(set(mapping.values())) == 256


def test_bytes_to_unicode_is_hugging_face_alphabet() -> None:
    assert set(bytes_to_unicode().values()) == set(pre_tokenizers.ByteLevel.alphabet())


def _set_byte_level(hf: HFTokenizer, pretokenizer: str) -> None:
    """HF's ByteLevel pre-tokenizer with ``use_regex=True`` is GPT-2's pattern; with
    ``use_regex=False`` the whole text is one piece (our ``bytes``); cl100k's pattern goes in
    a ``Split`` before it. Merges are applied lowest rank first in both, so ids agree."""
    if pretokenizer == "bytes":
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    elif pretokenizer == "gpt2":
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    else:
        hf.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(GPT4_SPLIT_PATTERN), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    hf.decoder = decoders.ByteLevel()


@pytest.mark.parametrize("pretokenizer", ["bytes", "gpt2", "gpt4"])
def test_gpt2_files_load_in_hugging_face_and_encode_identically(
    pretokenizer: str, export_dir: Path
) -> None:
    ours = trained_with_specials(pretokenizer, tuple(OVERLAPPING_SPECIALS))
    hf = hugging_face_from_files(pretokenizer, export_dir / pretokenizer)
    for name, text in {**VARIED_TEXTS, "specials": "a<|endoftext|>!!|><|fim|>b"}.items():
        ids = ours.encode(text)
        assert hf.encode(text).ids == ids, name
        assert hf.decode(ids, skip_special_tokens=False) == text, name
    # Longest first, leftmost first: "<|endoftext|>!!" (377), then "|><|" (378), "fim|>" is text.
    assert ours.encode("<|endoftext|>!!|><|fim|>")[:2] == [377, 378]
    assert ours.decode(ours.encode("<|endoftext|>!!|><|fim|>")[2:]) == "fim|>"


# Special tokens that overlap: one is a prefix of another, one straddles the end of one and
# the start of the next. Both sides take the longest special token at the leftmost place.
OVERLAPPING_SPECIALS = ["<|endoftext|>", "<|endoftext|>!!", "|><|", "<|fim|>"]
SPECIAL_FRAGMENTS = [
    *OVERLAPPING_SPECIALS, "<|", "|>", "!!", "!", "end", "of", "text", " the", "a", " ", "  ",
    "\n", "\r\n", "\t", "日本", "語", "é", "😀", "'s", "123", "def", "(x)",
]  # fmt: skip


def texts_with_specials() -> st.SearchStrategy[str]:
    """Text the tokenizer never saw: fragments around the special tokens, or any Unicode."""
    return st.one_of(
        st.lists(st.sampled_from(SPECIAL_FRAGMENTS), max_size=30).map("".join),
        st.text(max_size=40),
    )


@functools.cache
def trained_with_specials(pretokenizer: str, specials: tuple[str, ...]) -> Tokenizer:
    return train(
        CORPUS, 256 + 120, pretokenizer=pretokenizer, special_tokens=list(specials)
    ).tokenizer


@functools.cache
def hugging_face_from_files(pretokenizer: str, directory: Path) -> HFTokenizer:
    """Hugging Face's own loaders on our exported ``vocab.json`` and ``merges.txt``."""
    ours = trained_with_specials(pretokenizer, tuple(OVERLAPPING_SPECIALS))
    directory.mkdir(exist_ok=True)
    write_gpt2(ours, directory)
    hf = HFTokenizer(
        models.BPE.from_file(str(directory / "vocab.json"), str(directory / "merges.txt"))
    )
    _set_byte_level(hf, pretokenizer)
    hf.add_special_tokens(list(ours.special_tokens))  # already in vocab.json: ids kept
    return hf


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("exports")


@pytest.mark.parametrize("pretokenizer", ["bytes", "gpt2", "gpt4"])
@settings(max_examples=60, deadline=None)
@given(text=texts_with_specials())
def test_hugging_face_loaders_read_our_gpt2_files_and_encode_identically(
    pretokenizer: str, text: str, export_dir: Path
) -> None:
    """``models.BPE.from_file`` + ByteLevel + our special tokens (taken from vocab.json by
    name) encodes any text to our ids, and decodes them back."""
    ours = trained_with_specials(pretokenizer, tuple(OVERLAPPING_SPECIALS))
    hf = hugging_face_from_files(pretokenizer, export_dir / pretokenizer)
    assert [hf.token_to_id(s) for s in OVERLAPPING_SPECIALS] == [376, 377, 378, 379]
    ids = ours.encode(text)
    assert hf.encode(text).ids == ids
    assert hf.decode(ids, skip_special_tokens=False) == text


# tiktoken looks special tokens up in a hash map's order, so overlapping ones would be
# ambiguous there: two that do not overlap.
TIKTOKEN_SPECIALS = ("<|endoftext|>", "<|fim|>")


@functools.cache
def tiktoken_from_file(pretokenizer: str, directory: Path) -> tiktoken.Encoding:
    """tiktoken's own loader on our exported ``.tiktoken``, specials passed in code."""
    ours = trained_with_specials(pretokenizer, TIKTOKEN_SPECIALS)
    directory.mkdir(exist_ok=True)
    write(directory / "ours.tiktoken", to_tiktoken(ours))
    return tiktoken.Encoding(
        name=f"bpeviz_{pretokenizer}",
        pat_str=ours.split_pattern or r"[\s\S]+",  # tiktoken needs a pattern: one piece
        mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(directory / "ours.tiktoken")),
        special_tokens=ours.special_tokens,
    )


@pytest.mark.parametrize("pretokenizer", ["bytes", "gpt2", "gpt4"])
@settings(max_examples=60, deadline=None)
@given(text=texts_with_specials())
def test_tiktoken_reads_our_file_with_special_tokens_and_encodes_identically(
    pretokenizer: str, text: str, export_dir: Path
) -> None:
    ours = trained_with_specials(pretokenizer, TIKTOKEN_SPECIALS)
    encoding = tiktoken_from_file(pretokenizer, export_dir / f"tiktoken_{pretokenizer}")
    assert encoding.special_tokens_set == set(TIKTOKEN_SPECIALS)
    loaded = from_tiktoken(
        (export_dir / f"tiktoken_{pretokenizer}" / "ours.tiktoken").read_bytes(),
        pattern=ours.split_pattern,
        special_tokens=ours.special_tokens,
    )
    ids = encoding.encode(text, allowed_special="all")
    assert ours.encode(text) == ids
    assert loaded.encode(text) == ids
    assert encoding.decode(ids) == text


@pytest.mark.parametrize("pretokenizer", ["bytes", "gpt2", "gpt4"])
def test_gpt2_files_round_trip(pretokenizer: str, tmp_path: Path) -> None:
    history = train(CORPUS, 256 + 60, pretokenizer=pretokenizer, special_tokens=["<|endoftext|>"])
    original = history.tokenizer
    write_gpt2(original, tmp_path)
    loaded = from_gpt2_files(
        (tmp_path / "vocab.json").read_bytes(),
        (tmp_path / "merges.txt").read_bytes(),
        pattern=original.split_pattern,
    )
    assert loaded.merges == original.merges and loaded.byte_ids == original.byte_ids
    assert loaded.vocab == original.vocab
    assert loaded.special_tokens == {"<|endoftext|>": 316}
    assert loaded.pretokenizer == pretokenizer
    for text in VARIED_TEXTS.values():
        assert loaded.encode(text) == original.encode(text)
    assert to_gpt2_files(loaded) == to_gpt2_files(original)


def test_gpt2_files_text_is_gpt2s() -> None:
    vocab_json, merges_txt = to_gpt2_files(Tokenizer.from_merges([(32, 116), (256, 104)]))
    assert merges_txt == "#version: 0.2\nĠ t\nĠt h\n"
    vocab = json.loads(vocab_json)
    assert vocab["Ġ"] == 32 and vocab["Ġt"] == 256 and vocab["Ġth"] == 257 and len(vocab) == 258


def test_gpt2_loading_permuted_ids_and_specials() -> None:
    """GPT-2 numbers bytes by rank of their character (``!`` is 0), not by byte value."""
    mapping = bytes_to_unicode()
    order = sorted(range(256), key=lambda byte: (mapping[byte] != chr(byte), mapping[byte]))
    vocab = {mapping[byte]: index for index, byte in enumerate(order)}
    vocab.update({"Ġt": 256, "Ġth": 257, "<|endoftext|>": 258})
    tokenizer = from_gpt2_files(json.dumps(vocab), "#version: 0.2\nĠ t\nĠt h\n")
    assert tokenizer.byte_ids[ord("!")] == 0 and tokenizer.special_tokens == {"<|endoftext|>": 258}
    assert tokenizer.encode("a th<|endoftext|>") == [vocab["a"], 257, 258]
    assert tokenizer.decode([vocab["a"], 257, 258]) == "a th<|endoftext|>"


def test_gpt2_refuses_two_tokens_with_the_same_bytes() -> None:
    """``a+b``/``ab+c`` and ``b+c``/``a+bc`` both make ``abc``: vocab.json cannot hold both."""
    tokenizer = Tokenizer.from_merges([(97, 98), (98, 99), (256, 99), (97, 257)])
    with pytest.raises(ValueError, match="ids 258 and 259 are both the token 'abc'"):
        to_gpt2_files(tokenizer)
    with pytest.raises(ValueError, match="both the token"):
        to_tiktoken(tokenizer)


def _gpt2_vocab(**extra: int) -> dict[str, int]:
    vocab = {char: byte for byte, char in bytes_to_unicode().items()}
    vocab.update(extra)
    return vocab


MALFORMED_GPT2 = [
    pytest.param("", "#version: 0.2\n", "vocab.json file is empty", 0, id="empty-vocab"),
    pytest.param('{"a": 1,\n "b" 2}', "", "not valid JSON", 2, id="json"),
    pytest.param("[1, 2]", "", "holds a JSON list", 0, id="not-object"),
    pytest.param(json.dumps({"a": "x"}), "", "expected a whole number", 1, id="id-type"),
    pytest.param(json.dumps(_gpt2_vocab(ab=97), indent=0), "", "both have id 97", 0, id="dup-id"),
    pytest.param(
        json.dumps({k: v for k, v in _gpt2_vocab().items() if v != 32}),
        "",
        "no entry for byte 32 (written 'Ġ')",
        0,
        id="missing-byte",
    ),
    pytest.param(
        json.dumps(_gpt2_vocab(ab=256)),
        "#version: 0.2\na b c\n",
        "expected two tokens",
        2,
        id="three-tokens",
    ),
    pytest.param(
        json.dumps(_gpt2_vocab(ab=256)),
        "#version: 0.2\na  b\n",
        "expected two tokens",
        2,
        id="two-spaces",
    ),
    pytest.param(
        json.dumps(_gpt2_vocab(ab=256)),
        "#version: 0.2\nab c\n",
        "which no earlier line makes",
        2,
        id="not-yet-made",
    ),
    pytest.param(
        json.dumps(_gpt2_vocab(ab=256)),
        "#version: 0.2\na b\nzz b\n",
        "not in vocab.json",
        3,
        id="unknown-token",
    ),
    pytest.param(
        json.dumps(_gpt2_vocab(ab=256)),
        "#version: 0.2\na c\n",
        "makes 'ac', which is not",
        2,
        id="result-missing",
    ),
    pytest.param(
        json.dumps(_gpt2_vocab(ab=256)),
        "#version: 0.2\na b\na b\n",
        "which line 2 already makes",
        3,
        id="duplicate",
    ),
    pytest.param(
        json.dumps(_gpt2_vocab()).encode(),
        b"#version: 0.2\n\xc3(\n",
        "not UTF-8",
        2,
        id="merges-not-utf8",
    ),
]


@pytest.mark.parametrize(("vocab_json", "merges_txt", "message", "line"), MALFORMED_GPT2)
def test_malformed_gpt2_files_name_the_line(
    vocab_json: str, merges_txt: str, message: str, line: int
) -> None:
    with pytest.raises(ValueError, match=r"vocab\.json|merges\.txt") as error:
        from_gpt2_files(vocab_json, merges_txt)
    assert message in str(error.value)
    if line:
        assert f"line {line} of the" in str(error.value)


# ---- tiktoken .tiktoken -------------------------------------------------------------------


def _byte_ranks() -> str:
    return "".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256))


def test_tiktoken_text_is_base64_and_rank() -> None:
    text = to_tiktoken(Tokenizer.from_merges([(104, 105), (256, 33)]))
    lines = text.splitlines()
    assert len(lines) == 258 and lines[0] == "AA== 0" and lines[32] == "IA== 32"
    assert lines[-2:] == ["aGk= 256", "aGkh 257"]  # b"hi", b"hi!"


@pytest.mark.parametrize("pretokenizer", ["bytes", "gpt2", "gpt4"])
def test_tiktoken_round_trip(pretokenizer: str, tmp_path: Path) -> None:
    original = train(CORPUS, 256 + 80, pretokenizer=pretokenizer).tokenizer
    path = tmp_path / "ours.tiktoken"
    write(path, to_tiktoken(original))
    loaded = from_tiktoken(path.read_bytes(), pattern=original.split_pattern)
    assert loaded.vocab == original.vocab and loaded.pretokenizer == pretokenizer
    assert to_tiktoken(loaded) == to_tiktoken(original)
    for text in VARIED_TEXTS.values():
        assert loaded.decode(loaded.encode(text)) == text


@pytest.mark.parametrize("pretokenizer", ["bytes", "gpt2", "gpt4"])
def test_tiktoken_file_loads_in_tiktoken_and_encodes_identically(
    pretokenizer: str, tmp_path: Path
) -> None:
    original = train(CORPUS, 256 + 120, pretokenizer=pretokenizer).tokenizer
    path = tmp_path / "ours.tiktoken"
    write(path, to_tiktoken(original))
    pattern = original.split_pattern or r"[\s\S]+"  # tiktoken needs a pattern: one piece
    encoding = tiktoken.Encoding(
        name=f"bpeviz_{pretokenizer}",
        pat_str=pattern,
        mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(path)),
        special_tokens={},
    )
    ours = from_tiktoken(path.read_bytes(), pattern=original.split_pattern)
    for name, text in VARIED_TEXTS.items():
        assert ours.encode(text) == encoding.encode(text, disallowed_special=()), name
        # For this trained model the ranks also reproduce the merge order exactly:
        assert ours.encode(text) == original.encode(text), name


def test_ranks_can_join_a_pair_that_never_was_a_merge() -> None:
    """The caveat in ``to_tiktoken``: after a+b, b+c, a+bc, merges give ``ab c`` for "abc"
    (``ab`` first, and ``ab+c`` is no merge), while ranks join ``ab`` and ``c`` since ``abc``
    is a token. tiktoken agrees with our rank-table reading of the file."""
    merges = Tokenizer.from_merges([(97, 98), (98, 99), (97, 257)])
    assert merges.encode("abc") == [256, 99]
    ranks = from_tiktoken(to_tiktoken(merges), pattern="")
    assert ranks.encode("abc") == [258]
    encoding = tiktoken.Encoding(
        name="caveat",
        pat_str=r"[\s\S]+",
        mergeable_ranks={token: rank for rank, token in merges.vocab.items()},
        special_tokens={},
    )
    assert encoding.encode("abc") == [258]


def test_tiktoken_special_tokens_and_pattern_come_from_the_caller() -> None:
    tokenizer = from_tiktoken(
        _byte_ranks() + "aGk= 256\n", pattern=GPT2_SPLIT_PATTERN, special_tokens={"<|e|>": 300}
    )
    assert tokenizer.pretokenizer == "gpt2"
    assert tokenizer.encode("hi<|e|>hi") == [256, 300, 256]


MALFORMED_TIKTOKEN = [
    pytest.param(b"", 0, "is empty", id="empty"),
    pytest.param(b"\n\n", 0, "is empty", id="blank"),
    pytest.param(b"AA== 0\nAQ== 1 2\n", 2, "expected 'base64_token rank'", id="three-fields"),
    pytest.param(b"AA== 0\nAQ==\n", 2, "expected 'base64_token rank'", id="no-rank"),
    pytest.param(b"AA== 0\nAQ== x\n", 2, "expected 'base64_token rank'", id="rank-not-number"),
    pytest.param(b"AA== 0\nA!== 1\n", 2, "is not valid base64", id="base64"),
    pytest.param(b"AA== 0\nAQ= 1\n", 2, "is not valid base64", id="base64-padding"),
    pytest.param(b"AA== 0\nAQ== 0\n", 2, "rank 0 is already used on line 1", id="dup-rank"),
    pytest.param(b"AA== 0\nAA== 1\n", 2, "already on line 1", id="dup-token"),
    pytest.param(b"AA== 0\n\xffAQ== 1\n", 2, "not UTF-8", id="not-utf8"),
    pytest.param(b"AA== 0\nAQ== 1\n", 0, "lacks 254 single-byte tokens (first: byte 2", id="miss"),
]


@pytest.mark.parametrize(("data", "line", "message"), MALFORMED_TIKTOKEN)
def test_malformed_tiktoken_names_the_line(data: bytes, line: int, message: str) -> None:
    with pytest.raises(ValueError, match=r"\.tiktoken file") as error:
        from_tiktoken(data)
    assert message in str(error.value)
    if line:
        assert f"line {line} of the .tiktoken file" in str(error.value)


def test_tiktoken_special_id_clash_is_refused() -> None:
    message = "special token '<|e|>' has id 32, which line 33"
    with pytest.raises(ValueError, match=re.escape(message)):
        from_tiktoken(_byte_ranks(), special_tokens={"<|e|>": 32})


def test_tiktoken_special_tokens_sharing_an_id_are_refused() -> None:
    with pytest.raises(ValueError, match="both have id 300"):
        from_tiktoken(_byte_ranks(), special_tokens={"<|a|>": 300, "<|b|>": 300})


# ---- uploads ------------------------------------------------------------------------------


def test_load_model_file_by_name_and_by_content() -> None:
    model = (FIXTURES / "aaabdaaabac.model").read_bytes()
    ranks = (_byte_ranks() + "aGk= 256\n").encode()
    assert load_model_file("walkthrough.model", model).encode("aaab") == [258]
    assert load_model_file("UPLOAD.MODEL", model).encode("aaab") == [258]
    assert load_model_file("ranks.tiktoken", ranks).encode("hi") == [256]
    assert load_model_file("no_extension", model).encode("aaab") == [258]
    assert load_model_file("ranks.txt", ranks).encode("hi") == [256]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("tokenizer.vocab", "cannot be read back"),
        ("vocab.json", "load vocab.json and merges.txt together"),
        ("merges.txt", "load vocab.json and merges.txt together"),
        ("notes.txt", "cannot tell what kind of model"),
    ],
)
def test_load_model_file_explains_what_it_cannot_read(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_model_file(name, b"hello")


def test_load_model_file_reports_bad_model_lines() -> None:
    with pytest.raises(ValueError, match=r"line 4 of the \.model file: expected two ids"):
        load_model_file("bad.model", b"minbpe v1\n\n0\nx\n")
