"""Unigram against SentencePiece (the ``sentencepiece`` package, a test dependency): given
the same pieces and scores, its Viterbi cuts every word as ours does; and where our trainer
differs from SentencePiece's (docs/engine.md, Unigram), each stated difference is shown on
its trainer.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import pytest
import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2 as model_pb2

from bpeviz import UnigramModel
from bpeviz.engine.unigram import UNK, byte_pieces, count_words, seed_vocabulary, train_unigram

SAMPLES = Path(__file__).resolve().parents[1] / "sample_texts"
COURSE_SEED = {
    "h": 15, "u": 36, "g": 20, "hu": 15, "ug": 20, "p": 17, "pu": 17, "n": 16, "un": 16,
    "b": 4, "bu": 4, "s": 5, "hug": 15, "gs": 5, "ugs": 5,
}  # fmt: skip


def processor(model: UnigramModel, *, byte_fallback: bool = False) -> spm.SentencePieceProcessor:
    """A SentencePiece Unigram model holding our pieces and scores, text taken as it is
    (identity normalizer, no added space), ``<unk>`` first, then the 256 byte pieces."""
    proto = model_pb2.ModelProto()
    proto.trainer_spec.model_type = model_pb2.TrainerSpec.UNIGRAM
    proto.trainer_spec.byte_fallback = byte_fallback
    proto.normalizer_spec.name = "identity"
    proto.normalizer_spec.add_dummy_prefix = False
    proto.normalizer_spec.remove_extra_whitespaces = False
    proto.normalizer_spec.escape_whitespaces = False
    piece = proto.pieces.add()
    piece.piece, piece.score, piece.type = UNK, 0.0, model_pb2.ModelProto.SentencePiece.UNKNOWN
    if byte_fallback:
        for byte in range(256):
            piece = proto.pieces.add()
            piece.piece, piece.type = f"<0x{byte:02X}>", model_pb2.ModelProto.SentencePiece.BYTE
    for text, score in model.log_probs.items():
        piece = proto.pieces.add()
        piece.piece, piece.score = text, score
    proto.trainer_spec.vocab_size = len(proto.pieces)
    return spm.SentencePieceProcessor(model_proto=proto.SerializeToString())


def test_course_seed_cuts_as_sentencepiece() -> None:
    """The course's seed (ties included: [p ug] over [pu g], [h ugs] over [hug s])."""
    model = UnigramModel(COURSE_SEED)
    reference = processor(model)
    for word in ("hug", "pug", "pun", "bun", "hugs", "bugs", "snug", "ghun"):
        assert reference.encode(word, out_type=str) == model.viterbi(word)[0], word


@pytest.mark.parametrize("sample", ["english.txt", "japanese.txt", "low_lower.txt"])
def test_trained_and_seed_vocabularies_cut_every_word_as_sentencepiece(sample: str) -> None:
    """Every word of a sample, under the seed (every substring, scored by frequency) and
    under a trained vocabulary. SentencePiece keeps scores as 32-bit floats, so ours are
    rounded to those first: the two then add the same numbers."""
    text = (SAMPLES / sample).read_text(encoding="utf-8")
    words = count_words(text)
    seed = seed_vocabulary(words, max_piece_length=8)
    trained = train_unigram(text, 200).model()
    for model in (UnigramModel(seed), trained):
        rounded = UnigramModel.from_log_probs(
            {piece: float(model_pb2_float(score)) for piece, score in model.log_probs.items()}
        )
        reference = processor(rounded)
        for word in words:
            assert reference.encode(word, out_type=str) == rounded.viterbi(word)[0], word


def model_pb2_float(value: float) -> float:
    """``value`` as the 32-bit float a ModelProto stores."""
    proto = model_pb2.ModelProto.SentencePiece(score=value)
    return proto.score


def test_byte_fallback_matches_sentencepiece() -> None:
    model = UnigramModel({"▁": 3, "h": 2, "u": 2, "▁hu": 1})
    reference = processor(model, byte_fallback=True)
    for word in ("▁hu語", "▁éh", "▁hu"):
        assert reference.encode(word, out_type=str) == model.viterbi(word)[0], word
    assert model.viterbi("▁語")[0] == ["▁", *byte_pieces("語")]


# ---- where the trainers differ (docs/engine.md, Unigram) -----------------------------------


def sentencepiece_vocab(text: str, vocab_size: int, **options: object) -> dict[str, float]:
    """SentencePiece's own Unigram trainer on ``text`` (one sentence a line)."""
    written = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(text.splitlines()),
        model_writer=written,
        vocab_size=vocab_size,
        model_type="unigram",
        normalization_rule_name="identity",
        hard_vocab_limit=False,
        num_threads=1,
        minloglevel=2,
        **options,
    )
    proto = model_pb2.ModelProto()
    proto.ParseFromString(written.getvalue())
    return {piece.piece: piece.score for piece in proto.pieces if piece.type == 1}


def test_seed_difference_sentencepiece_seeds_only_repeated_substrings() -> None:
    """Ours seeds every substring; SentencePiece's seed (a suffix array) holds only those
    occurring at least twice. 'zebra' occurs once: our seed has it, and asking SentencePiece
    for more pieces than the text has still gives no '▁zebra' or 'ebr'."""
    text = "\n".join(["the cat sat on the mat"] * 5 + ["a zebra"])
    seed = seed_vocabulary(count_words(text))
    assert {"▁zebra", "ebr"} <= set(seed)
    theirs = sentencepiece_vocab(text, 200)
    assert not any("ebr" in piece for piece in theirs)
    assert {"z", "e", "b", "r"} <= set(theirs)  # characters are always kept, as ours


def test_digamma_difference_sentencepiece_scores_by_digamma_not_count_over_total() -> None:
    """Our M-step is P = count / total. SentencePiece's is exp(digamma(count)) /
    exp(digamma(total)), which lowers rare pieces most. Here its final vocabulary keeps
    '▁hello' (8 times) and cuts 'world' (6 times) into '▁' 'w' 'o' 'r' 'l' 'd': 44 pieces
    expected in all. Its scores are digamma(8) - digamma(44) and digamma(6) - digamma(44),
    below our ln(8/44) and ln(6/44)."""
    text = "\n".join(["hello world"] * 6 + ["hello"] * 2)
    theirs = sentencepiece_vocab(text, 20)
    assert "▁world" not in theirs
    assert theirs["▁hello"] == pytest.approx(digamma(8) - digamma(44), abs=1e-3)
    assert theirs["d"] == pytest.approx(digamma(6) - digamma(44), abs=1e-3)
    assert theirs["▁hello"] < math.log(8 / 44) - 0.05
    assert theirs["d"] < math.log(6 / 44) - 0.05


def digamma(x: float) -> float:
    """The digamma function by its asymptotic series after shifting x above 6."""
    result = 0.0
    while x < 6:
        result -= 1 / x
        x += 1
    return (
        result
        + math.log(x)
        - 1 / (2 * x)
        - sum(c / x ** (2 * n) for n, c in ((1, 1 / 12), (2, -1 / 120), (3, 1 / 252)))
    )


def test_half_count_cut_difference_sentencepiece_drops_pieces_expected_less_than_half() -> None:
    """After each EM iteration SentencePiece drops every piece expected less than 0.5 times;
    ours keeps a piece until pruning chooses it. Asked for more pieces than the seed has,
    ours keeps them all, while SentencePiece's vocabulary is smaller than its seed."""
    text = "\n".join(["hug pug pun bun hugs"] * 2)
    seed = seed_vocabulary(count_words(text))
    ours = train_unigram(text, len(seed) + 10)
    assert set(ours.final.pieces) == set(seed)
    theirs = sentencepiece_vocab(text, 200)
    repeated = {piece for piece, count in seed.items() if count >= 2}
    assert len(theirs) < len(repeated)
