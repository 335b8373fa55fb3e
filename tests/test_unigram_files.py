"""A trained Unigram as a Hugging Face ``tokenizer.json``: the ``tokenizers`` library loads
it and cuts every text exactly as our Viterbi does (ties to the earliest start, position by
position, in both), bytes for unknown characters included, and decodes back to the words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from bpeviz import UnigramModel
from bpeviz.engine.unigram import UNK, train_unigram
from bpeviz.formats.hf_unigram import to_hf_unigram_json

SAMPLES = Path(__file__).resolve().parents[1] / "sample_texts"
ENGLISH = (SAMPLES / "english.txt").read_text(encoding="utf-8")
COURSE_SEED = {
    "h": 15, "u": 36, "g": 20, "hu": 15, "ug": 20, "p": 17, "pu": 17, "n": 16, "un": 16,
    "b": 4, "bu": 4, "s": 5, "hug": 15, "gs": 5, "ugs": 5, "▁": 36, "▁h": 15, "▁p": 17,
    "▁b": 4, "▁hug": 15,
}  # fmt: skip


@pytest.fixture(scope="module")
def trained() -> UnigramModel:
    return train_unigram(ENGLISH, 400).model()


def library(model: UnigramModel) -> Tokenizer:
    return Tokenizer.from_str(to_hf_unigram_json(model))


def test_file_layout(trained: UnigramModel) -> None:
    document = json.loads(to_hf_unigram_json(trained))
    vocab = document["model"]["vocab"]
    assert document["model"]["type"] == "Unigram" and document["model"]["byte_fallback"]
    assert vocab[0] == [UNK, 0.0] and document["model"]["unk_id"] == 0
    scores = [score for _, score in vocab[1 : 1 + len(trained.log_probs)]]
    assert scores == sorted(scores, reverse=True)
    assert {piece: score for piece, score in vocab[1:] if piece in trained.log_probs} == (
        trained.log_probs
    )
    assert [piece for piece, _ in vocab[-256:]][:2] == ["<0x00>", "<0x01>"]
    assert document["pre_tokenizer"]["pretokenizers"][1]["type"] == "Metaspace"


def test_course_ties_cut_as_the_library_cuts() -> None:
    """[▁h ugs] over [▁hug s] (equal: 15*5 each), [▁p ug] over [▁p u g]..."""
    model = UnigramModel(COURSE_SEED)
    text = "hug pug pun bun hugs"
    assert library(model).encode(text).tokens == model.encode(text)
    assert model.encode("hugs")[:2] == ["▁h", "ugs"]


def test_sample_text_cuts_as_the_library_cuts(trained: UnigramModel) -> None:
    for sample in ("english.txt", "japanese.txt", "parallel_en.txt", "eat.txt"):
        text = (SAMPLES / sample).read_text(encoding="utf-8")
        encoding = library(trained).encode(text)
        assert encoding.tokens == trained.encode(text), sample


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("the cat sat on a mat,.\n\t語é🙂"), max_size=60))
def test_any_text_cuts_and_decodes_as_the_library(trained: UnigramModel, text: str) -> None:
    model, tokenizer = trained, library(trained)
    encoding = tokenizer.encode(text)
    assert encoding.tokens == model.encode(text)
    assert tokenizer.decode(encoding.ids) == " ".join(text.split())


def test_a_piece_named_like_the_unknown_token_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown token's name"):
        to_hf_unigram_json(UnigramModel({UNK: 1, "a": 1}))
