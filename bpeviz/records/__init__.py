"""The records the browser draws: the schema its script reads (``schema``, written into the
JavaScript by :mod:`bpeviz.web`), a step of a training run (``step``), a text's tokens
(``tokens``, ``library_tokens``), the narration, the merge table's rows and a token's card.
Plain data from the engine's objects, no I/O. It may import the engine, the file formats and
the real tokenizers (``tests/test_layers.py``).
"""
