"""A tokenizer.json built by Hugging Face's ``tokenizers`` with a Split on any regex: what an
upload with its own split pattern looks like."""

from __future__ import annotations

import json

from tokenizers import Regex, decoders, models, pre_tokenizers
from tokenizers import Tokenizer as HFTokenizer


def split_json(pattern: str) -> str:
    """A byte-level BPE (256 bytes, one merge ``a a``) cutting text with ``pattern``.

    ``tokenizers`` compiles the regex itself (Oniguruma), so a pattern it refuses is put in
    the file afterwards, as a hand-edited file would hold it.
    """
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {char: index for index, char in enumerate(alphabet)}
    vocab["aa"] = len(vocab)
    hf = HFTokenizer(models.BPE(vocab=vocab, merges=[("a", "a")]))
    split = pre_tokenizers.Split(Regex(r"\s+"), behavior="isolated", invert=False)
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [split, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    )
    hf.decoder = decoders.ByteLevel()
    document = json.loads(hf.to_str())
    document["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = pattern
    return json.dumps(document)
