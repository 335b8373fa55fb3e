"""A Unigram model as a Hugging Face ``tokenizer.json`` that the ``tokenizers`` library reads.

The file holds a ``Unigram`` model whose scores are the pieces' natural-log probabilities,
``<unk>`` first (id 0), then the pieces from the most probable down (equal: code point
order), then the 256 byte pieces ``<0x00>``..``<0xFF>`` for byte fallback, each scored as the
least probable piece so the unknown score (the lowest score minus 10) is the model's own.
Words are cut as ``bpeviz.engine.unigram.split_words`` cuts them: ``WhitespaceSplit``, then
``Metaspace`` putting ``▁`` in front of each word; the decoder undoes both and the bytes.

The library then segments every word exactly as ``UnigramModel.viterbi`` does: both add the
same float scores position by position and keep the first best (``tests/test_unigram_files.py``
holds them equal). One case is left out: a word that spells a byte piece (``<0x41>``) in
characters the vocabulary lacks, which the library can read as that piece.
"""

from __future__ import annotations

import json
import math

from bpeviz.engine.unigram import SPACE, UNK, UnigramModel

METASPACE = {"type": "Metaspace", "replacement": SPACE, "prepend_scheme": "always", "split": True}


def ordered_pieces(model: UnigramModel) -> list[tuple[str, float]]:
    """The model's pieces with their scores, most probable first (equal: code point order)."""
    return sorted(model.log_probs.items(), key=lambda item: (-item[1], item[0]))


def to_hf_unigram_json(model: UnigramModel) -> str:
    """The model as a ``tokenizer.json`` (see the module docstring for the layout)."""
    pieces = ordered_pieces(model)
    if UNK in model.log_probs:
        raise ValueError(f"the piece {UNK} is the unknown token's name: train without it")
    if any(not math.isfinite(score) for _, score in pieces):
        raise ValueError("every piece needs a probability above 0 to be written")
    lowest = pieces[-1][1] if pieces else 0.0
    taken = set(model.log_probs)
    byte_pieces = [
        [name, lowest] for name in (f"<0x{byte:02X}>" for byte in range(256)) if name not in taken
    ]
    document = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": 0,
                "content": UNK,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
        ],
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [{"type": "WhitespaceSplit"}, METASPACE],
        },
        "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": [{"type": "ByteFallback"}, METASPACE]},
        "model": {
            "type": "Unigram",
            "unk_id": 0,
            "vocab": [[UNK, 0.0], *([piece, score] for piece, score in pieces), *byte_pieces],
            "byte_fallback": True,
        },
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
