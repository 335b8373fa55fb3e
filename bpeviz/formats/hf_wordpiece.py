"""A trained WordPiece as a Hugging Face ``tokenizer.json`` that the ``tokenizers`` library reads.

The file holds what BERT's files hold for the model: a ``WordPiece`` model with the ``##``
prefix, ``[UNK]`` for unknown words and the library's default of 100 characters per word, the
pre-tokenizer (``WhitespaceSplit`` for ``words``, ``BertPreTokenizer`` for ``bert``), the
special tokens as added tokens and the WordPiece decoder. Left out: BERT's normalizer
(lower-casing, accents) and its ``[CLS] ... [SEP]`` post-processor, which training here never
had, so the library encodes the file exactly as ``bpeviz.engine.wordpiece_encode`` does (a test
holds the two equal). Reading it back goes through ``bpeviz.formats.hf_models``.
"""

from __future__ import annotations

import json

from bpeviz.engine.wordpiece import CONTINUATION, UNK, WordPieceRun
from bpeviz.engine.wordpiece_encode import MAX_WORD_CHARS

PRE_TOKENIZER_TYPES = {"words": "WhitespaceSplit", "bert": "BertPreTokenizer"}


def to_hf_wordpiece_json(run: WordPieceRun) -> str:
    """The run's vocabulary as a ``tokenizer.json`` (ids in vocabulary order)."""
    if UNK not in run.vocab:
        raise ValueError(f"a WordPiece file needs the {UNK} token: train with it as a special")
    ids = run.vocab_ids()
    document = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": ids[token],
                "content": token,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for token in run.special_tokens
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": PRE_TOKENIZER_TYPES[run.pretokenizer]},
        "post_processor": None,
        "decoder": {"type": "WordPiece", "prefix": CONTINUATION, "cleanup": True},
        "model": {
            "type": "WordPiece",
            "unk_token": UNK,
            "continuing_subword_prefix": CONTINUATION,
            "max_input_chars_per_word": MAX_WORD_CHARS,
            "vocab": ids,
        },
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
