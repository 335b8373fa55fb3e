"""A ``tokenizers``-encoded text as a record for the browser's token view, the same schema
as :func:`bpeviz.records.tokens.tokens_data` draws (``kind: "tokens"``), so a WordPiece or Unigram
file's tokens look like every other token list.

What differs: each token is labelled with what it stands for
(:meth:`~bpeviz.formats.hf_models.LibraryTokenizer.shown_bytes`: ``##ing`` as ``ing``,
``▁the`` as ``␣the``), the outlined pieces are the words as the model marks them (a token
without ``##``, a token with ``▁``, a byte-level token starting with a space, a special
token), and there is no inspector or build tree: the library does not say how a token was
built.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bpeviz.formats.hf_models import LibraryTokenizer
from bpeviz.records.schema import SCHEMA, entry
from bpeviz.records.token_info import special_title, token_title

WORD_RULE = (
    "Outlined: where a word starts, as the model marks it (WordPiece's tokens without ##, "
    "SentencePiece's ▁, a byte-level file's leading space or new line, special tokens); the "
    "other tokens continue the word before them."
)


def library_tokens_data(
    tokenizer: LibraryTokenizer,
    text: str,
    *,
    show: str = "text",
    marks: Sequence[str] | None = None,
    words: bool = True,
    limit: int | None = None,
) -> dict[str, Any]:
    """The record of ``text`` encoded by ``tokenizer`` (the library's ids, in order).

    ``marks`` as in :func:`bpeviz.records.tokens.tokens_data` (one per token shown); ``words``
    outlines each word's start; ``limit`` draws only the first tokens.
    """
    pieces = tokenizer.pieces(text)[:limit]
    vocab: dict[str, list[Any]] = {}
    for piece in pieces:
        key = str(piece.token_id)
        if key in vocab:
            continue
        if piece.special:
            data = piece.token.encode("utf-8")
            vocab[key] = entry(data, special_title(piece.token_id), special=True)
            continue
        data = tokenizer.shown_bytes(piece.token)
        vocab[key] = entry(
            data, token_title(piece.token_id, data, f"the model's token {piece.token!r}")
        )
    return {
        "kind": "tokens",
        "schema": SCHEMA,
        "vocab": vocab,
        "ids": [piece.token_id for piece in pieces],
        "marks": None if marks is None else list(marks[: len(pieces)]),
        "pieces": (
            [index for index, piece in enumerate(pieces) if piece.starts_word] if words else None
        ),
        "pieces_rule": WORD_RULE if words else "",
        "show": show,
        "group": False,
        "parents": {},
        "unit": "merge",
        "inspect": False,
        "scroll": True,
    }
