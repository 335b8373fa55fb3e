"""The training text laid out for BPE: unique chunks once each, weighted by how often they occur.

A book repeats the same few thousand words; counting a pair in every copy of " the" is
wasted work. So the trainer sees each distinct chunk once, with a weight (its number of
occurrences), and the chunks are kept **in order of first appearance**. That order is what
makes the ``first`` tie rule exact: the first occurrence of a pair in the whole text lies in
the earliest-appearing chunk that contains it.

``bytes`` mode is the same picture with one chunk of weight 1 (or one per stretch between
special tokens). Whitespace in ``words`` mode and special tokens are not chunks: they are
kept so the text can be shown and decoded, but no pair is ever counted across or inside them.

How the full text maps onto the distinct chunks (:class:`TextLayout`) is only needed to show
the text, so it is built on demand, from the text, by :func:`text_layout`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from bpeviz.engine.pretokenize import END_OF_WORD, PieceKind, pretokenize_text, to_bytes

BYTE_COUNT = 256
END_OF_WORD_ID = 256  # the </w> marker, a base symbol after the 256 bytes when enabled


def base_size(end_of_word: bool) -> int:
    """Number of base symbols: the 256 bytes, plus the ``</w>`` marker when it is used."""
    return BYTE_COUNT + 1 if end_of_word else BYTE_COUNT


def symbol_bytes(symbol: int) -> bytes:
    """What a base symbol shows as: its byte, or the ``</w>`` marker text."""
    return to_bytes(END_OF_WORD) if symbol == END_OF_WORD_ID else bytes([symbol])


@dataclass(frozen=True)
class Corpus:
    """A text and its distinct chunks laid end to end: the sequence BPE trains on.

    ``unique_symbols`` is the buffer of chunks (bytes, and ``</w>`` after each chunk when
    ``end_of_word``), ``unique_chunk_start`` is True where a chunk begins (no pair is
    counted across it), ``chunk_starts`` lists those positions and ``chunk_weights`` says
    how often each chunk occurs in the text.
    ``chunk_index`` maps each distinct chunk's text to its index, in order of appearance.
    ``symbol_count`` is the number of tokens of the whole text before any merge.
    """

    text: bytes
    pretokenizer: str
    special_tokens: tuple[str, ...]
    pattern: str | None
    end_of_word: bool
    chunk_index: dict[str, int]
    unique_symbols: np.ndarray
    unique_chunk_start: np.ndarray
    chunk_starts: np.ndarray
    chunk_weights: np.ndarray
    symbol_count: int

    def weights_at(self, positions: np.ndarray) -> np.ndarray:
        """Weight of the chunk each buffer position (sorted or not) belongs to."""
        chunk = np.searchsorted(self.chunk_starts, positions, side="right") - 1
        return self.chunk_weights[chunk]

    def buffer_bytes(self, start: int, stop: int) -> bytes:
        """The bytes of buffer positions ``start..stop-1`` (``</w>`` spelled out).

        >>> build_corpus("ab", "bytes").buffer_bytes(0, 2)
        b'ab'
        """
        symbols = self.unique_symbols[start:stop]
        if not self.end_of_word:
            return symbols.astype(np.uint8).tobytes()
        return b"".join(symbol_bytes(symbol) for symbol in symbols.tolist())


def build_corpus(
    source: str | bytes,
    pretokenizer: str,
    *,
    special_tokens: Iterable[str] = (),
    end_of_word: bool = False,
    pattern: str | None = None,
) -> Corpus:
    """Cut ``source`` and lay out its distinct chunks in order of first appearance.

    >>> corpus = build_corpus("ab ab", "words")
    >>> corpus.unique_symbols.tolist(), corpus.chunk_weights.tolist(), corpus.symbol_count
    ([97, 98], [2], 5)
    """
    specials = tuple(special_tokens)
    parts, kinds = pretokenize_text(source, pretokenizer, special_tokens=specials, pattern=pattern)
    if kinds.count(PieceKind.CHUNK) == len(kinds):
        chunk_counts = Counter(parts)  # keeps first-appearance order
        other_symbols = 0
    else:
        chunk_counts = Counter(
            part for part, kind in zip(parts, kinds, strict=True) if kind is PieceKind.CHUNK
        )
        other_symbols = sum(
            1 if kind is PieceKind.SPECIAL else len(to_bytes(part))
            for part, kind in zip(parts, kinds, strict=True)
            if kind is not PieceKind.CHUNK
        )
    del parts, kinds

    marker = 1 if end_of_word else 0
    chunks = [to_bytes(part) for part in chunk_counts]
    counts = np.fromiter(chunk_counts.values(), dtype=np.int64, count=len(chunks))
    lengths = np.fromiter((len(chunk) + marker for chunk in chunks), np.int64, len(chunks))
    starts = np.zeros(len(chunks) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    unique_symbols = _lay_out(chunks, end_of_word)
    unique_chunk_start = np.zeros(len(unique_symbols), dtype=bool)
    unique_chunk_start[starts[:-1]] = True
    source_text = source if isinstance(source, str) else None
    return Corpus(
        text=to_bytes(source_text) if source_text is not None else bytes(source),
        pretokenizer=pretokenizer,
        special_tokens=specials,
        pattern=pattern,
        end_of_word=end_of_word,
        chunk_index={part: index for index, part in enumerate(chunk_counts)},
        unique_symbols=unique_symbols,
        unique_chunk_start=unique_chunk_start,
        chunk_starts=starts[:-1],
        chunk_weights=counts,
        symbol_count=int((counts * lengths).sum()) + other_symbols,
    )


def _lay_out(chunks: list[bytes], end_of_word: bool) -> np.ndarray:
    """Concatenate chunks into one symbol array (``</w>`` after each one when asked)."""
    joined = np.frombuffer(b"".join(chunks), dtype=np.uint8).astype(np.uint16)
    if not end_of_word:
        return joined
    ends = np.cumsum([len(chunk) + 1 for chunk in chunks], dtype=np.int64) - 1
    symbols = np.full(len(joined) + len(chunks), END_OF_WORD_ID, dtype=np.uint16)
    is_byte = np.ones(len(symbols), dtype=bool)
    is_byte[ends] = False
    symbols[is_byte] = joined
    return symbols


@dataclass(frozen=True)
class TextLayout:
    """The whole text as symbols (bytes, and ``</w>`` after each word when used).

    ``symbols`` is a view of the text itself when there is no ``</w>``; then symbol *i* is
    byte *i* and ``symbol_offsets`` is None. With ``</w>`` it holds each symbol's byte
    offset plus a final entry, the text length (a ``</w>`` takes no bytes). ``gather`` is
    each symbol's position in the buffer of distinct chunks, or -1 for whitespace and
    special-token symbols. ``special_starts`` are where special tokens begin
    (``special_texts`` says which) and ``special_inner`` marks their other symbols (None
    when the text has no special token).
    """

    symbols: np.ndarray
    symbol_offsets: np.ndarray | None
    gather: np.ndarray | None
    special_starts: np.ndarray
    special_texts: tuple[str, ...]
    special_inner: np.ndarray | None


def text_layout(corpus: Corpus) -> TextLayout:
    """Map every symbol of the text onto the chunk buffer (vectorised; once per history)."""
    parts, kinds = pretokenize_text(
        corpus.text,
        corpus.pretokenizer,
        special_tokens=corpus.special_tokens,
        pattern=corpus.pattern,
    )
    chunk_index = corpus.chunk_index
    codes = np.fromiter(
        (
            chunk_index[part] if kind is PieceKind.CHUNK else -1
            for part, kind in zip(parts, kinds, strict=True)
        ),
        dtype=np.int64,
        count=len(parts),
    )
    is_chunk_piece = codes >= 0
    unique_starts = np.flatnonzero(corpus.unique_chunk_start)
    chunk_lengths = np.diff(np.append(unique_starts, len(corpus.unique_symbols)))
    piece_lengths = np.fromiter(
        (
            0 if kind is PieceKind.CHUNK else len(to_bytes(part))
            for part, kind in zip(parts, kinds, strict=True)
        ),
        dtype=np.int64,
        count=len(parts),
    )
    piece_lengths[is_chunk_piece] = chunk_lengths[codes[is_chunk_piece]]
    is_special_piece = np.array([kind is PieceKind.SPECIAL for kind in kinds], dtype=bool)
    special_texts = tuple(
        part for part, kind in zip(parts, kinds, strict=True) if kind is PieceKind.SPECIAL
    )
    del parts, kinds

    piece_starts = np.zeros(len(piece_lengths) + 1, dtype=np.int64)
    np.cumsum(piece_lengths, out=piece_starts[1:])
    total = int(piece_starts[-1])
    owner = np.repeat(np.arange(len(piece_lengths)), piece_lengths)  # piece of each symbol
    within = np.arange(total, dtype=np.int64) - piece_starts[:-1][owner]
    owner_code = codes[owner]
    gather = (
        np.where(owner_code >= 0, unique_starts[np.maximum(owner_code, 0)] + within, -1)
        if len(unique_starts)
        else np.full(total, -1, dtype=np.int64)
    )

    text_bytes = np.frombuffer(corpus.text, dtype=np.uint8)
    offsets: np.ndarray | None = None
    if corpus.end_of_word:
        chunk_positions = gather >= 0
        symbols = np.empty(total, dtype=np.uint16)
        symbols[chunk_positions] = corpus.unique_symbols[gather[chunk_positions]]
        is_marker = chunk_positions & (symbols == END_OF_WORD_ID)
        byte_of_symbol = np.cumsum(~is_marker) - 1
        symbols[~chunk_positions] = text_bytes[byte_of_symbol[~chunk_positions]]
        offsets = np.zeros(total + 1, dtype=np.int64)
        np.cumsum(~is_marker, out=offsets[1:])
    else:
        symbols = text_bytes

    special_starts = piece_starts[:-1][is_special_piece]
    special_inner = None
    if len(special_starts):
        special_inner = np.zeros(total, dtype=bool)
        special_inner[is_special_piece[owner]] = True
        special_inner[special_starts] = False
    return TextLayout(
        symbols=symbols,
        symbol_offsets=offsets,
        gather=gather,
        special_starts=special_starts,
        special_texts=special_texts,
        special_inner=special_inner,
    )
