"""Pieces that several pages draw: charts and what a click on one means, tokens drawn in the
browser (``token_view``), tables and CSV cells, the tokenizers a page can offer (``choices``)
and a token's readable label. It may import every layer below the app and the app's other
packages, with no import cycle (``tests/test_layers.py``).
"""
