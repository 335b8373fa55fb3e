"""The frame every page of the app shares: the session's state, the sidebar and its checked
settings (``run_settings``), the link format, the training cache, the text to train on (typed,
uploaded or kept by the server), the stylesheet, small widgets, the one helper that makes user
text inert in Markdown, and the sweep that frees closed tabs. It may import every layer below
the app and the app's other packages, with no import cycle (``tests/test_layers.py``).
"""
