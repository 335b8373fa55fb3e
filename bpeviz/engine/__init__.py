"""The BPE engine, in pure Python: the training settings (``config``), the text to learn
from (``corpus``, ``samples``), pre-tokenizers, tie rules, the textbook recipe and the fast
trainer that must agree with it, the recorded history, the tokenizer that encodes and
decodes, readable forms of bytes, and WordPiece beside BPE (``algorithms``). It may import
nothing of bpeviz but itself, and no Streamlit, pandas or Altair: every other layer stands on
it (``tests/test_layers.py``).
"""
