"""What a token is, in words: where it came from and its hover title.

Shared by every view of tokens (the browser's step view, the spans of the other pages), so a
token is described the same way wherever a reader points at it.
"""

from __future__ import annotations

from collections.abc import Callable

from bpeviz.engine.corpus import BYTE_COUNT, END_OF_WORD_ID

MAX_TITLE_BYTES = 32


def hex_title(data: bytes) -> str:
    """Bytes as ``68 65 6C`` for a hover title (long tokens are cut with ``…``).

    >>> hex_title(b"hel")
    '68 65 6C'
    """
    shown = " ".join(f"{value:02X}" for value in data[:MAX_TITLE_BYTES])
    return shown + (" …" if len(data) > MAX_TITLE_BYTES else "")


def trained_origin(base: int) -> Callable[[int], str]:
    """Where a token of our own training came from, for hover titles."""

    def origin(token_id: int) -> str:
        if token_id < BYTE_COUNT:
            return "a single byte"
        if base > BYTE_COUNT and token_id == END_OF_WORD_ID:
            return "the </w> end-of-word marker"
        return f"made by merge {token_id - base + 1}"

    return origin


def rank_origin(token_id: int) -> str:
    """Origin for a rank-table tokenizer (``cl100k_base``): the rank is the id."""
    return f"rank {token_id}"


def token_title(token_id: int, data: bytes, origin: str) -> str:
    """``id 300 · bytes 74 68 · made by merge 45``.

    >>> token_title(97, b"a", "a single byte")
    'id 97 · bytes 61 · a single byte'
    """
    if not data:
        return f"id {token_id} · {origin}"
    return f"id {token_id} · bytes {hex_title(data)} · {origin}"


def special_title(token_id: int) -> str:
    return f"id {token_id} · special token"
