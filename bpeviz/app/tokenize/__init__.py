"""The Tokenize page's parts: the chat view, the encoding trace ("why was this word split like
this?") and the tokenization surprises. It may import every layer below the app and the app's
other packages, with no import cycle (``tests/test_layers.py``).
"""
