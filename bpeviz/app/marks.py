"""The marks a token may carry: a CSS class suffix on a span (``bpe-ps``, drawn by
``bpeviz/web``), for the two halves of each occurrence of the pair about to merge, or a token
a merge just made. Which tokens the step view marks is the browser's (``viewAt``); its test
oracle is ``tests/step_outline.py``.
"""

from __future__ import annotations

MARK_PAIR_START = "ps"  # left token of an occurrence of the pair about to merge
MARK_PAIR_END = "pe"  # right token of it
MARK_NEW = "new"  # a token the merge just made
