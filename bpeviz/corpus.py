"""The training text laid out for BPE: unique chunks once each, weighted by how often they occur.

A book repeats the same few thousand words; counting a pair in every copy of " the" is
wasted work. So the trainer sees each distinct chunk once, with a weight (its number of
occurrences), and the chunks are kept **in order of first appearance**. That order is what
makes the ``first`` tie rule exact: the first occurrence of a pair in the whole text lies in
the earliest-appearing chunk that contains it.

``bytes`` mode is the same picture with one chunk of weight 1 (or one per stretch between
special tokens). Whitespace in ``words`` mode and special tokens are not chunks: they are
kept so the text can be shown and decoded, but no pair is ever counted across or inside them.

This module also knows how the full text maps onto the unique chunks, which is what lets the
history rebuild the segmentation of the whole text at any step.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from bpeviz.pretokenize import END_OF_WORD, PieceKind, pretokenize, to_bytes

BYTE_COUNT = 256
END_OF_WORD_ID = 256  # the </w> marker, a base symbol after the 256 bytes when enabled


def base_size(end_of_word: bool) -> int:
    """Number of base symbols: the 256 bytes, plus the ``</w>`` marker when it is used."""
    return BYTE_COUNT + 1 if end_of_word else BYTE_COUNT


@dataclass(frozen=True)
class Corpus:
    """A text cut into pieces, with its distinct chunks laid end to end for training.

    Full-text arrays (one entry per symbol of the text; a symbol is a byte or a ``</w>``):
    ``symbols``, ``symbol_offsets`` (byte offset of each symbol, plus one final entry: the
    text length), ``gather`` (position in the unique buffer of each chunk symbol, -1 for
    whitespace and special-token symbols), ``special_starts``/``special_ids`` and
    ``special_inner`` (symbols inside a special token, after its first).

    Unique buffer (the training sequence): ``unique_symbols``, ``unique_weights`` (weight
    of the chunk each position belongs to) and ``unique_chunk_start`` (True where a chunk
    begins: no pair is ever counted across such a position).
    """

    text: bytes
    end_of_word: bool
    symbols: np.ndarray
    symbol_offsets: np.ndarray
    gather: np.ndarray
    special_starts: np.ndarray
    special_texts: tuple[str, ...]
    special_inner: np.ndarray
    unique_symbols: np.ndarray
    unique_weights: np.ndarray
    unique_chunk_start: np.ndarray

    @property
    def symbol_count(self) -> int:
        """Tokens of the text before any merge (a special token counts as one)."""
        return int(len(self.symbols) - self.special_inner.sum())


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
    >>> corpus.unique_symbols.tolist(), corpus.unique_weights.tolist()
    ([97, 98], [2, 2])
    """
    pieces = pretokenize(source, pretokenizer, special_tokens=special_tokens, pattern=pattern)
    marker = 1 if end_of_word else 0

    unique_index: dict[bytes, int] = {}
    chunk_counts: list[int] = []
    piece_unique: list[int] = []  # per piece: its unique chunk, or -1
    piece_lengths: list[int] = []  # per piece: number of symbols
    special_piece_texts: list[str] = []
    for piece in pieces:
        if piece.kind is PieceKind.CHUNK:
            index = unique_index.get(piece.data)
            if index is None:
                index = unique_index[piece.data] = len(chunk_counts)
                chunk_counts.append(0)
            chunk_counts[index] += 1
            piece_unique.append(index)
            piece_lengths.append(len(piece.data) + marker)
        else:
            piece_unique.append(-1)
            piece_lengths.append(len(piece.data))
            if piece.kind is PieceKind.SPECIAL:
                special_piece_texts.append(piece.data.decode("utf-8", errors="surrogateescape"))

    text = b"".join(piece.data for piece in pieces)
    chunk_lengths = np.array([len(data) + marker for data in unique_index], dtype=np.int64)
    unique_starts = np.zeros(len(chunk_lengths) + 1, dtype=np.int64)
    np.cumsum(chunk_lengths, out=unique_starts[1:])
    unique_symbols = _lay_out(list(unique_index), end_of_word)
    unique_weights = np.repeat(np.array(chunk_counts, dtype=np.int64), chunk_lengths)
    unique_chunk_start = np.zeros(len(unique_symbols), dtype=bool)
    unique_chunk_start[unique_starts[:-1]] = True

    lengths = np.array(piece_lengths, dtype=np.int64)
    piece_starts = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=piece_starts[1:])
    total = int(piece_starts[-1])
    owner = np.repeat(np.arange(len(lengths)), lengths)  # piece of each symbol
    uniques = np.array(piece_unique, dtype=np.int64)
    within = np.arange(total, dtype=np.int64) - piece_starts[:-1][owner]
    owner_unique = uniques[owner] if total else np.zeros(0, dtype=np.int64)
    gather = np.where(owner_unique >= 0, unique_starts[:-1][owner_unique] + within, -1)

    is_chunk_piece = uniques >= 0
    if end_of_word:
        symbols = np.empty(total, dtype=np.int32)
        chunk_positions = gather >= 0
        symbols[chunk_positions] = unique_symbols[gather[chunk_positions]]
        # Non-chunk symbols are plain bytes of the text, in order.
        is_marker = symbols == END_OF_WORD_ID
        is_marker &= chunk_positions
        byte_of_symbol = np.cumsum(~is_marker) - 1
        text_array = np.frombuffer(text, dtype=np.uint8).astype(np.int32)
        symbols[~chunk_positions] = text_array[byte_of_symbol[~chunk_positions]]
        offsets = np.zeros(total + 1, dtype=np.int64)
        np.cumsum(~is_marker, out=offsets[1:])
    else:
        symbols = np.frombuffer(text, dtype=np.uint8).astype(np.int32)
        offsets = np.arange(total + 1, dtype=np.int64)

    is_special_piece = (~is_chunk_piece) & np.array(
        [piece.kind is PieceKind.SPECIAL for piece in pieces], dtype=bool
    )
    special_starts = piece_starts[:-1][is_special_piece]
    special_inner = np.zeros(total, dtype=bool)
    if len(special_starts):
        special_inner[is_special_piece[owner]] = True
        special_inner[special_starts] = False

    return Corpus(
        text=text,
        end_of_word=end_of_word,
        symbols=symbols,
        symbol_offsets=offsets,
        gather=gather,
        special_starts=special_starts,
        special_texts=tuple(special_piece_texts),
        special_inner=special_inner,
        unique_symbols=unique_symbols,
        unique_weights=unique_weights,
        unique_chunk_start=unique_chunk_start,
    )


def _lay_out(chunks: list[bytes], end_of_word: bool) -> np.ndarray:
    """Concatenate chunks into one symbol array (``</w>`` after each one when asked)."""
    if not end_of_word:
        return np.frombuffer(b"".join(chunks), dtype=np.uint8).astype(np.int32)
    lengths = np.array([len(chunk) + 1 for chunk in chunks], dtype=np.int64)
    symbols = np.full(int(lengths.sum()), END_OF_WORD_ID, dtype=np.int32)
    ends = np.cumsum(lengths) - 1  # marker positions
    is_byte = np.ones(len(symbols), dtype=bool)
    is_byte[ends] = False
    symbols[is_byte] = np.frombuffer(b"".join(chunks), dtype=np.uint8)
    return symbols


def symbol_bytes(symbol: int) -> bytes:
    """What a base symbol shows as: its byte, or the ``</w>`` marker text."""
    return to_bytes(END_OF_WORD) if symbol == END_OF_WORD_ID else bytes([symbol])
