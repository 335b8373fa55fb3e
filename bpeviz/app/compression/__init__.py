"""The Compression page's parts: curves of bytes per token against vocabulary size, and one passage
in two languages token by token (``parallel``). It may import every layer below the app and the
app's other packages, with no import cycle (``tests/test_layers.py``).
"""
