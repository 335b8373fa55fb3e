"""Small ``tokenizer.json`` files of the kinds bpeviz's own reader refuses, trained here with
the ``tokenizers`` library's own Python API (no downloads): BERT-style WordPiece, T5-style
Unigram, SentencePiece-style BPE with ``byte_fallback`` (Llama 2, Mistral), byte-level BPE
whose template adds a BOS (Llama 3), and WordLevel. The library is the reference for them.
"""

from __future__ import annotations

from collections.abc import Callable

from tokenizers import (
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)

CORPUS = [
    "The printer counted pairs of letters and merged the most frequent ones.",
    "Printing, counting and pairing: the printers counted 1234 pairs a day!",
    "駅前の小さな本屋で、子どもは文字を覚えた。",
    "Tokenizers split words into pieces; pieces become tokens.",
] * 8


def wordpiece() -> Tokenizer:
    """BERT's recipe: lowercasing normalizer, [CLS] text [SEP] template, ## continuations."""
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(
        vocab_size=300, special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]"]
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    tokenizer.decoder = decoders.WordPiece()
    return tokenizer


def unigram() -> Tokenizer:
    """T5's kind: a Unigram model over ▁-marked words, NFKC normalizer, </s> appended."""
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.normalizer = normalizers.NFKC()
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=200, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>"
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    eos = tokenizer.token_to_id("</s>")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="$A </s>", special_tokens=[("</s>", eos)]
    )
    tokenizer.decoder = decoders.Metaspace()
    return tokenizer


def sentencepiece_bpe() -> Tokenizer:
    """Llama 2's kind: BPE over ▁-marked words with byte_fallback (<0xE3> for unseen bytes)."""
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<unk>", "<s>", "</s>", *[f"<0x{byte:02X}>" for byte in range(256)]],
        limit_alphabet=40,
    )
    tokenizer.train_from_iterator(CORPUS[:2] * 4, trainer)
    bos = tokenizer.token_to_id("<s>")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A", special_tokens=[("<s>", bos)]
    )
    tokenizer.decoder = decoders.Sequence(
        [decoders.Metaspace(), decoders.ByteFallback(), decoders.Fuse()]
    )
    return tokenizer


BOS = "<|begin_of_text|>"


def llama3_style() -> Tokenizer:
    """Llama 3's shape: byte-level BPE whose template puts <|begin_of_text|> first."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=[BOS, "<|end_of_text|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A", special_tokens=[(BOS, tokenizer.token_to_id(BOS))]
    )
    tokenizer.decoder = decoders.ByteLevel()
    return tokenizer


def wordlevel() -> Tokenizer:
    """Whole words from a list, [UNK] for the rest."""
    tokenizer = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(CORPUS, trainers.WordLevelTrainer(special_tokens=["[UNK]"]))
    return tokenizer


KINDS: dict[str, Callable[[], Tokenizer]] = {
    "wordpiece": wordpiece,
    "unigram": unigram,
    "sentencepiece-bpe": sentencepiece_bpe,
    "llama3-style": llama3_style,
    "wordlevel": wordlevel,
}
