"""Small pieces every view of tokens shares: the palette, escaping, a token's readable name.

The coloured token spans themselves are drawn in the browser by ``web/step.js`` (one renderer
for every page; see :mod:`bpeviz.app.token_view`). What stays here serves the HTML the app
still writes (cards, captions, the trace's labels): every piece of user or token text goes
through :func:`esc` (quotes included), so a text holding ``<script>`` is shown, never run.
"""

from __future__ import annotations

import html

from bpeviz.readable import readable
from bpeviz.tokenizer import Tokenizer

# Okabe–Ito colours as light tints (35% colour on white) with the full colour as border,
# ordered so that consecutive entries are far apart in hue (``.bpe-c0`` … in web/tokens.css).
PALETTE: tuple[tuple[str, str], ...] = (
    ("#F6DDA6", "#B07A00"),  # orange
    ("#A6CEE4", "#0072B2"),  # blue
    ("#FAF6BD", "#9C9000"),  # yellow
    ("#EDD0E0", "#B0608C"),  # reddish purple
    ("#A6DDCE", "#007A59"),  # bluish green
    ("#F0C7A6", "#C05500"),  # vermillion
    ("#C4E5F7", "#3A8FC0"),  # sky blue
    ("#E2E2E2", "#6E6E6E"),  # grey
)


def esc(text: str) -> str:
    """HTML-escape text for element content and attribute values (quotes included)."""
    return html.escape(text, quote=True)


def token_label(tokenizer: Tokenizer, token_id: int) -> str:
    """Readable text of a token of ``tokenizer`` (``</w>`` shown as such), not yet escaped."""
    return readable(tokenizer.token_bytes(token_id))


def quoted(text: str) -> str:
    """``“text”``: how tokens are named in sentences."""
    return f"“{text}”"
