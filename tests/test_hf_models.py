"""Any tokenizer.json: what bpeviz's own reader refuses is encoded by ``tokenizers`` itself,
exactly (the library, on files it trained here, is the reference: ``tests/hf_files.py``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hf_files import BOS, KINDS, llama3_style, wordpiece
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import run_cli, stderr_of

from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats.hf_json import to_hf_json
from bpeviz.formats.hf_models import LibraryTokenizer, read_tokenizer_json

REPO = Path(__file__).resolve().parents[1]


def assert_one_sentence(result: subprocess.CompletedProcess[bytes], says: str) -> None:
    """The CLI refused (exit 2) with one line that ``says`` it, no traceback."""
    message = stderr_of(result)
    assert result.returncode == 2, message
    assert says in message
    assert len(message.strip().splitlines()) == 1, message
TEXTS = [
    "The printers counted 1234 pairs!",
    "  leading spaces, trailing  ",
    "駅前の本屋 🙂 unseen Ωmega",
    "",
    "[CLS] <s> </s> <|begin_of_text|> typed by hand",
]
FILES = {name: make().to_str() for name, make in KINDS.items()}


@pytest.mark.parametrize("kind", KINDS)
def test_refused_files_are_read_by_the_library(kind: str) -> None:
    tokenizer = read_tokenizer_json(FILES[kind])
    assert isinstance(tokenizer, LibraryTokenizer)
    assert "which bpeviz does not support" in tokenizer.refused


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("text", TEXTS, ids=repr)
def test_ids_are_the_librarys(kind: str, text: str) -> None:
    from tokenizers import Tokenizer as Library

    expected = Library.from_str(FILES[kind]).encode(text).ids
    assert read_tokenizer_json(FILES[kind].encode()).encode(text) == expected


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=60, deadline=None)
@given(text=st.text(st.characters(exclude_categories=("Cs",)), max_size=60))
def test_arbitrary_text_ids_are_the_librarys(kind: str, text: str) -> None:
    from tokenizers import Tokenizer as Library

    tokenizer = read_tokenizer_json(FILES[kind])
    assert tokenizer.encode(text) == Library.from_str(FILES[kind]).encode(text).ids
    assert [piece.token_id for piece in tokenizer.pieces(text)] == tokenizer.encode(text)


def test_llama3_style_template_puts_the_bos_first() -> None:
    library = llama3_style()
    tokenizer = read_tokenizer_json(library.to_str())
    ids = tokenizer.encode("Hello world")
    assert ids[0] == library.token_to_id(BOS)
    assert ids == library.encode("Hello world").ids
    assert tokenizer.pieces("Hello world")[0].special


def test_byte_level_bpe_without_a_template_stays_ours() -> None:
    """Plain byte-level BPE is still read by our own reader (trace and build tree)."""
    ours = Tokenizer.from_merges([(104, 105)], pretokenizer="gpt2")
    assert isinstance(read_tokenizer_json(to_hf_json(ours)), Tokenizer)


def test_wordpiece_pieces_mark_continuations() -> None:
    tokenizer = read_tokenizer_json(wordpiece().to_str())
    pieces = tokenizer.pieces("The reprinters uncounted")
    assert pieces[0].special and pieces[0].text == "" and pieces[-1].special
    for piece in pieces[1:-1]:
        assert piece.starts_word == (not piece.token.startswith("##"))
    words = "".join((" " if piece.starts_word else "") + piece.text for piece in pieces[1:-1])
    assert words.split() == ["The", "reprinters", "uncounted"]
    assert any(piece.token.startswith("##") for piece in pieces)


def test_sentencepiece_pieces_start_words_at_the_word_mark() -> None:
    tokenizer = read_tokenizer_json(KINDS["unigram"]().to_str())
    pieces = [piece for piece in tokenizer.pieces("printers counted pairs") if not piece.special]
    assert [piece.starts_word for piece in pieces] == [p.token.startswith("▁") for p in pieces]
    assert sum(piece.starts_word for piece in pieces) == 3


def _hand_made_byte_level_file() -> str:
    """Byte-level BPE with nine merges of our choosing and a template adding Llama 3's BOS
    (so our reader refuses it), built with the library: its tokens can be worked out by hand.
    """
    from tokenizers import Tokenizer as Library
    from tokenizers import decoders, models, pre_tokenizers, processors

    merges = [("Ġ", "c"), ("Ġc", "a"), ("Ġca", "t"), ("T", "h"), ("Th", "e"), ("s", "a"),
              ("sa", "t"), ("Ġ", "o"), ("Ġo", "n")]  # fmt: skip
    vocab = {BOS: 0}
    for char in sorted(pre_tokenizers.ByteLevel.alphabet()):
        vocab[char] = len(vocab)
    for left, right in merges:
        vocab[left + right] = len(vocab)
    library = Library(models.BPE(vocab=vocab, merges=merges))
    library.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    library.add_special_tokens([BOS])
    library.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A", special_tokens=[(BOS, 0)]
    )
    library.decoder = decoders.ByteLevel()
    return library.to_str()


def test_byte_level_pieces_start_words_at_a_space() -> None:
    """Worked by hand: "The cat\nsat on! 駅" is BOS, The, Ġcat, Ċ, sat, Ġon, !, Ġ and the
    three bytes of 駅 (no merge joins them). Words start at the BOS (a special token), at the
    text's first token, at a token whose first byte is a space (Ġ) and at the first token of a
    line; the newline, the "!" and the later bytes of 駅 continue the word before them."""
    tokenizer = read_tokenizer_json(_hand_made_byte_level_file())
    assert isinstance(tokenizer, LibraryTokenizer)
    pieces = tokenizer.pieces("The cat\nsat on! 駅")
    tokens = [piece.token for piece in pieces]
    assert tokens[:8] == [BOS, "The", "Ġcat", "Ċ", "sat", "Ġon", "!", "Ġ"]
    assert len(tokens) == 11
    assert [index for index, piece in enumerate(pieces) if piece.starts_word] == [0, 1, 2, 4, 5, 7]


def test_a_file_neither_can_read_gets_a_message() -> None:
    document = json.loads(FILES["wordpiece"])
    del document["model"]["vocab"]
    with pytest.raises(ValueError, match="tokenizers cannot read it either"):
        read_tokenizer_json(json.dumps(document))


@pytest.mark.parametrize("kind", KINDS)
def test_cli_encodes_as_the_library_does(kind: str, tmp_path: Path) -> None:
    from tokenizers import Tokenizer as Library

    path = tmp_path / "tokenizer.json"
    path.write_text(FILES[kind], encoding="utf-8")
    text = "The printers counted 1234 pairs! 駅前"
    result = run_cli(REPO, "encode", "--model", str(path), "--text", text)
    assert result.returncode == 0, stderr_of(result)
    assert json.loads(result.stdout) == Library.from_file(str(path)).encode(text).ids


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=60, deadline=None)
@given(text=st.text(st.characters(exclude_categories=("Cs",)), max_size=40))
def test_byte_spans_tile_the_text_and_end_where_the_offsets_end(kind: str, text: str) -> None:
    """One span per id, contiguous from 0 to the text's UTF-8 length; a token alone on its
    offsets ends at the library's end offset (in bytes), the last one at the text's end."""
    from tokenizers import Tokenizer as Library

    expected = Library.from_str(FILES[kind]).encode(text)
    spans = read_tokenizer_json(FILES[kind]).byte_spans(text)
    assert len(spans) == len(expected.ids)
    if spans:  # a WordLevel file gives no token at all for spaces
        assert [start for start, _ in spans] == [0] + [end for _, end in spans[:-1]]
        assert spans[-1][1] == len(text.encode())
    offsets = expected.offsets
    for index, (start, end) in enumerate(offsets[:-1]):
        alone = offsets.count((start, end)) == 1
        if alone and end > 0 and not expected.special_tokens_mask[index]:
            assert spans[index][1] >= len(text[:end].encode())


# ---- patterns the library would run (issue 17) --------------------------------------------

CATASTROPHIC = r"(?:[\s\S]|[\s\S])*\x00|."  # hangs Python's regex; makes Oniguruma panic
SLOW = r"(?:[\s\S]|[\s\S]){0,21}\x00|."  # took the library 31 s on 300 characters
# Backtracks only on a run of q, which the probe text lacks: it passes the probe, and
# Oniguruma gives up (a Rust panic) on a run of 300 of them.
PANICS = r"(?:q|q)*\x00|."


def with_patterns(*, split: str = r"\s+", replace: str = "x", nested: bool = False) -> str:
    """A WordPiece file (its normalizer alone makes our reader refuse it) built by
    ``tokenizers``, with a Split in its pre-tokenizer and a Replace in its normalizer; their
    regexes are put in afterwards, as a hand-edited file holds them, and with ``nested`` the
    Split goes inside a second Sequence (the library reads that, but flattens its own)."""
    from tokenizers import Regex, normalizers, pre_tokenizers

    library = wordpiece()
    split_step = pre_tokenizers.Split(Regex(r"\s+"), behavior="isolated")
    library.pre_tokenizer = pre_tokenizers.Sequence([split_step, pre_tokenizers.BertPreTokenizer()])
    library.normalizer = normalizers.Sequence(
        [normalizers.BertNormalizer(lowercase=True), normalizers.Replace(Regex("x"), "x")]
    )
    document = json.loads(library.to_str())
    steps = document["pre_tokenizer"]["pretokenizers"]
    steps[0]["pattern"]["Regex"] = split
    if nested:
        steps[0] = {"type": "Sequence", "pretokenizers": [steps[0]]}
    document["normalizer"]["normalizers"][1]["pattern"]["Regex"] = replace
    return json.dumps(document)


@pytest.mark.parametrize("pattern", [CATASTROPHIC, SLOW], ids=["star", "bounded"])
@pytest.mark.parametrize(
    ("where", "edit"),
    [
        ("pre-tokenizer", {"split": "PATTERN"}),
        ("pre-tokenizer", {"split": "PATTERN", "nested": True}),
        ("normalizer", {"replace": "PATTERN"}),
    ],
    ids=["split", "nested-split", "normalizer"],
)
def test_a_library_file_whose_pattern_backtracks_is_refused_by_name(
    pattern: str, where: str, edit: dict
) -> None:
    """The probe our own reader runs, run on every regex the library would run, on load."""
    edit = {key: pattern if value == "PATTERN" else value for key, value in edit.items()}
    with pytest.raises(ValueError) as refused:
        read_tokenizer_json(with_patterns(**edit))
    message = str(refused.value)
    assert "backtracks too much" in message and pattern[:20] in message
    assert where in message


def test_a_library_file_with_sane_patterns_is_read() -> None:
    from bpeviz.engine.pretokenize import GPT4_SPLIT_PATTERN
    from bpeviz.formats.hf_json import to_onig

    document = with_patterns(split=to_onig(GPT4_SPLIT_PATTERN), replace=r"\s{2,}")
    tokenizer = read_tokenizer_json(document)
    assert isinstance(tokenizer, LibraryTokenizer)
    assert tokenizer.encode("Hi  there") == read_library(document).encode("Hi  there").ids


def read_library(document: str):
    from tokenizers import Tokenizer as Library

    return Library.from_str(document)


def test_a_panic_in_the_library_is_a_value_error() -> None:
    """pyo3's PanicException is a BaseException: uncaught it crashed the page."""
    document = with_patterns(split=PANICS)
    tokenizer = read_tokenizer_json(document)
    assert tokenizer.encode("a few words") == read_library(document).encode("a few words").ids
    for encode in (tokenizer.encode, tokenizer.pieces, tokenizer.byte_spans):
        with pytest.raises(ValueError, match="Hugging Face tokenizers could not"):
            encode("q" * 300)


def test_cli_refuses_a_library_file_whose_pattern_backtracks(tmp_path: Path) -> None:
    (tmp_path / "tokenizer.json").write_text(with_patterns(split=CATASTROPHIC))
    assert_one_sentence(run_cli(tmp_path, "encode", "--model", "tokenizer.json", "--text", "hi"),
                        "backtracks too much")  # fmt: skip


def test_cli_says_one_sentence_when_the_library_panics(tmp_path: Path) -> None:
    (tmp_path / "tokenizer.json").write_text(with_patterns(split=PANICS))
    result = run_cli(tmp_path, "encode", "--model", "tokenizer.json", "--text", "q" * 300)
    assert_one_sentence(result, "Hugging Face tokenizers could not")


def test_the_library_encodes_a_bounded_text() -> None:
    """A million characters without a space took the library path 18 s and 370 MB."""
    from bpeviz.formats.hf_models import MAX_TEXT_CHARS

    tokenizer = read_tokenizer_json(FILES["llama3-style"])
    with pytest.raises(ValueError, match=f"at most {MAX_TEXT_CHARS:,} characters"):
        tokenizer.encode("a" * (MAX_TEXT_CHARS + 1))


# ---- ids the library would take (issue 17) ------------------------------------------------


def _added(token_id: object, content: str = "<x>") -> dict:
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": True}  # fmt: skip


def byte_level_with_normalizer() -> dict:
    """A byte-level BPE built by ``tokenizers`` (``split_json``) plus a normalizer, so that
    our reader refuses it and the library would encode it."""
    from hf_helpers import split_json

    document = json.loads(split_json(r"\w+|\s+"))
    document["normalizer"] = {"type": "NFC"}
    return document


def test_a_library_file_with_one_id_for_every_byte_is_refused() -> None:
    """The library took it and encoded "hello" as [0, 0, 0, 0, 0]."""
    document = byte_level_with_normalizer()
    document["model"]["vocab"] = dict.fromkeys(document["model"]["vocab"], 0)
    document["model"]["merges"] = []
    with pytest.raises(ValueError, match=r"gives the id 0 to both .* every token needs its own"):
        read_tokenizer_json(json.dumps(document))


def test_an_added_token_on_another_tokens_id_is_refused() -> None:
    document = byte_level_with_normalizer()
    vocab = document["model"]["vocab"]
    document["added_tokens"] = [_added(vocab["a"])]
    with pytest.raises(ValueError, match=f"gives the id {vocab['a']} to both 'a' and '<x>'"):
        read_tokenizer_json(json.dumps(document))


@pytest.mark.parametrize("token_id", [-7, 2**53, 2**64, 1.5, True, "3"], ids=repr)
@pytest.mark.parametrize("where", ["vocab", "added"])
def test_a_library_file_with_an_id_out_of_range_is_refused_by_name(
    token_id: object, where: str
) -> None:
    document = byte_level_with_normalizer()
    if where == "vocab":
        document["model"]["vocab"]["a"] = token_id
    else:
        document["added_tokens"] = [_added(token_id)]
    # the message our own readers give (2^53 - 1: the largest id a browser holds exactly)
    refused = r"ids (are whole numbers|run from 0 to 9,007,199,254,740,991)"
    with pytest.raises(ValueError, match=refused):
        read_tokenizer_json(json.dumps(document))


def test_real_shapes_of_added_tokens_are_read() -> None:
    """An added token that is also in the vocabulary at the same id (BERT's [CLS], Llama 2's
    <s>) is one token, not two."""
    for make in (wordpiece, KINDS["sentencepiece-bpe"], KINDS["unigram"]):
        assert isinstance(read_tokenizer_json(make().to_str()), LibraryTokenizer)
