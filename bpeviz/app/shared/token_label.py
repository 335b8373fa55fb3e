"""A token's readable name, for the HTML and tables the app still writes.

The coloured token spans themselves are drawn in the browser by ``bpeviz/web`` (one renderer
for every page; see :mod:`bpeviz.app.shared.token_view`). The HTML the app still writes (cards,
captions, the trace's labels) passes every piece of user or token text through
``html.escape`` (quotes included), so a text holding ``<script>`` is shown, never run.
"""

from __future__ import annotations

from bpeviz.engine.readable import readable
from bpeviz.engine.tokenizer import Tokenizer


def token_label(tokenizer: Tokenizer, token_id: int) -> str:
    """Readable text of a token of ``tokenizer`` (``</w>`` shown as such), not yet escaped."""
    return readable(tokenizer.token_bytes(token_id))
