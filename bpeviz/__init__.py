"""bpeviz: byte-level BPE that records every merge, for seeing how tokens are built.

The public API, in a few explicit names (see each one's docstring):

>>> import bpeviz
>>> history = bpeviz.train("aaabdaaabac", 259, tie_break="lexmin")
>>> [(step.pair, step.new_id) for step in history.steps]
[((97, 97), 256), ((97, 98), 257), ((256, 257), 258)]
>>> history.tokenizer.encode("aaabdaaabac")
[258, 100, 258, 97, 99]
>>> bpeviz.UnigramModel({"h": 15, "u": 36, "g": 20, "hu": 15, "ug": 20}).viterbi("hug")
(['h', 'ug'], 0.026699893200427205)

Nothing here imports Streamlit; only the app layer (``bpeviz.app``) does.
"""

from bpeviz.engine.history import History, PairTable, Segmentation, train
from bpeviz.engine.pretokenize import (
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    PRETOKENIZERS,
    pretokenize,
)
from bpeviz.engine.tie_rules import TIE_BREAKS
from bpeviz.engine.tokenizer import Tokenizer, TraceStep
from bpeviz.engine.trainer import MergeStep
from bpeviz.engine.unigram import UnigramModel

__all__ = [
    "GPT2_SPLIT_PATTERN",
    "GPT4_SPLIT_PATTERN",
    "PRETOKENIZERS",
    "TIE_BREAKS",
    "History",
    "MergeStep",
    "PairTable",
    "Segmentation",
    "Tokenizer",
    "TraceStep",
    "UnigramModel",
    "pretokenize",
    "train",
]
