"""Small pieces every view of tokens shares: escaping and a token's readable name.

The coloured token spans themselves are drawn in the browser by ``bpeviz/web`` (one renderer
for every page; see :mod:`bpeviz.app.token_view`). What stays here serves the HTML the app
still writes (cards, captions, the trace's labels): every piece of user or token text goes
through :func:`esc` (quotes included), so a text holding ``<script>`` is shown, never run.
"""

from __future__ import annotations

import html

from bpeviz.readable import readable
from bpeviz.tokenizer import Tokenizer


def esc(text: str) -> str:
    """HTML-escape text for element content and attribute values (quotes included)."""
    return html.escape(text, quote=True)


def token_label(tokenizer: Tokenizer, token_id: int) -> str:
    """Readable text of a token of ``tokenizer`` (``</w>`` shown as such), not yet escaped."""
    return readable(tokenizer.token_bytes(token_id))
