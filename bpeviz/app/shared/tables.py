"""Tables (pandas DataFrames) and CSV payloads of the Step, Tokenize and Export pages.

Pure functions over a :class:`~bpeviz.engine.history.History` or a tokenizer; the pages only hand
them to ``st.dataframe`` and ``st.download_button``. Token text in every table is the
readable form (``␣the``, ``<E3><81>``), so whitespace and broken characters are visible in a
table cell too.

- :func:`pair_frame`: the pair counts at one step, best first, the chosen pair and ties
  flagged (:func:`pair_csv` for the whole table);
- :func:`merge_frame`: the merges so far, one :mod:`bpeviz.records.merge_rows` row each
  (:func:`merge_csv` for the file);
- :func:`text_stats` and :func:`distinct_chunks`: what the Tokenize page counts and lists;
- :func:`presented`: a table as presentation mode draws it (its own HTML, at projector size).

What is left out: the charts (:mod:`bpeviz.app.shared.charts`) and HTML
(:mod:`bpeviz.app.shared.token_label`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import regex

from bpeviz.app.frame.inert import escape_markdown
from bpeviz.app.shared.csv_cells import csv_bytes
from bpeviz.app.shared.token_label import token_label
from bpeviz.engine.history import History, PairTable, bytes_per_token
from bpeviz.engine.pretokenize import PieceKind, pretokenize_text, to_bytes, to_text
from bpeviz.engine.tokenizer import TRACE_MAX_BYTES, Tokenizer
from bpeviz.engine.trainer import Pair
from bpeviz.records.merge_rows import MERGE_COLUMNS, merge_rows

PAIR_COLUMNS: tuple[str, ...] = (
    "rank",
    "pair",
    "left",
    "right",
    "left_id",
    "right_id",
    "count",
    "tied",
    "note",
)
# How the pages label a merge row's columns (the CSV keeps the plain names).
MERGE_LABELS: dict[str, str] = {
    "left_id": "left id",
    "right_id": "right id",
    "new_id": "new id",
    "token_hex": "token (hex)",
    "replacements": "replaced",
    "tied": "tied with",
    "tied_ids": "tied with (ids)",
    "more_tied": "3+ tied",
    "tokens_after": "tokens after",
}
CHOSEN_NOTE = "◀ chosen"
TIED_NOTE = "tied"


def pair_frame(
    table: PairTable,
    tokenizer: Tokenizer,
    *,
    chosen: Pair | None = None,
    chosen_note: str = CHOSEN_NOTE,
    limit: int | None = None,
) -> pd.DataFrame:
    """Pair counts best first (``rank`` 1 is what the trainer picks next), as in
    :data:`PAIR_COLUMNS`.

    ``tied`` is true for every row that shares the top count with at least one other row;
    ``note`` says which row is ``chosen`` (when it is the first row) and which only tied.

    >>> from bpeviz.engine.history import train
    >>> history = train("bad cab bat cat", 258, pretokenizer="words")
    >>> frame = pair_frame(history.pair_table(0), history.tokenizer, chosen=(98, 97))
    >>> frame[["pair", "count", "tied"]].head(3).values.tolist()
    [['b + a', 2, True], ['c + a', 2, True], ['a + t', 2, True]]
    >>> frame["note"].tolist()[:2]
    ['◀ chosen', 'tied']
    """
    size = len(table) if limit is None else min(limit, len(table))
    counts = table.counts[:size].tolist()
    top = int(table.counts[0]) if len(table) else 0
    top_rows = int(np.count_nonzero(table.counts == top)) if len(table) else 0
    rows = []
    for index in range(size):
        left, right = int(table.lefts[index]), int(table.rights[index])
        left_label, right_label = token_label(tokenizer, left), token_label(tokenizer, right)
        tied = top_rows > 1 and counts[index] == top
        if index == 0 and chosen is not None and (left, right) == tuple(chosen):
            note = chosen_note
        elif tied:
            note = TIED_NOTE
        else:
            note = ""
        rows.append(
            (
                index + 1,
                f"{left_label} + {right_label}",
                left_label,
                right_label,
                left,
                right,
                counts[index],
                tied,
                note,
            )
        )
    return pd.DataFrame(rows, columns=list(PAIR_COLUMNS))


def pair_csv(table: PairTable, tokenizer: Tokenizer, *, chosen: Pair | None = None) -> bytes:
    """The whole pair table (every pair, not just the top rows) as UTF-8 CSV."""
    return csv_bytes(pair_frame(table, tokenizer, chosen=chosen))


def merge_frame(
    history: History, k: int | None = None, *, newest_first: bool = False
) -> pd.DataFrame:
    """The first ``k`` merges (all by default), one :class:`~bpeviz.records.merge_rows.MergeRow` a
    row.

    >>> from bpeviz.engine.history import train
    >>> merge_frame(train("aaabdaaabac", 259, tie_break="lexmin"), 3)["token"].tolist()
    ['aa', 'ab', 'aaab']
    """
    rows = [row.as_dict() for row in merge_rows(history, k)]
    if newest_first:
        rows.reverse()
    return pd.DataFrame(rows, columns=list(MERGE_COLUMNS))


def merge_csv(history: History, k: int | None = None) -> bytes:
    """:func:`merge_frame` as UTF-8 CSV bytes (a header row, then one row per merge)."""
    return csv_bytes(merge_frame(history, k))


@dataclass(frozen=True)
class TextStats:
    """What the Tokenize page counts."""

    characters: int
    bytes: int
    tokens: int

    @property
    def bytes_per_token(self) -> float:
        return bytes_per_token(self.bytes, self.tokens)


def text_stats(text: str | bytes, token_count: int) -> TextStats:
    """Characters, bytes and tokens of a text (bytes of a ``str`` are its UTF-8).

    >>> text_stats("駅 a", 2).bytes_per_token
    2.5
    """
    data = text if isinstance(text, bytes) else to_bytes(text)
    characters = len(to_text(data)) if isinstance(text, bytes) else len(text)
    return TextStats(characters=characters, bytes=len(data), tokens=token_count)


_WORDS = regex.compile(r"\s*\S+")


def distinct_chunks(
    tokenizer: Tokenizer, text: str, *, limit: int = 300, scan_chars: int = 200_000
) -> list[str]:
    """The distinct pieces the tokenizer merges inside, in order of first appearance.

    These are what "why was this word split like this?" offers. With the ``bytes``
    pre-tokenizer the whole text is one piece, so words (with the spaces before them) are
    offered instead. Special tokens and whitespace that is never merged are left out. Only
    the first ``scan_chars`` characters are read, and at most ``limit`` pieces are returned.

    >>> distinct_chunks(Tokenizer.from_merges([], pretokenizer="gpt4"), "the cat, the")
    ['the', ' cat', ',', ' the']
    """
    head = text[:scan_chars]
    if tokenizer.pretokenizer == "bytes" and tokenizer.pattern is None:
        parts = _WORDS.findall(head)
        kinds = [PieceKind.CHUNK] * len(parts)
    else:
        parts, kinds = pretokenize_text(
            head,
            tokenizer.pretokenizer,
            special_tokens=tokenizer.special_tokens,
            pattern=tokenizer.pattern,
        )
    seen: dict[str, None] = {}
    for part, kind in zip(parts, kinds, strict=True):
        if kind is PieceKind.CHUNK and part not in seen:
            seen[part] = None
            if len(seen) >= limit:
                break
    return list(seen)


def _symbol_count(tokenizer: Tokenizer, chunk: str) -> int:
    """How many symbols encoding ``chunk`` starts from: fewer tokens means a merge applied
    (and costs one encode, where a trace costs bytes × merges)."""
    return len(to_bytes(chunk)) + (tokenizer.end_of_word and tokenizer.ranks is None)


def interesting_chunk(tokenizer: Tokenizer, chunks: Sequence[str], *, scan: int = 200) -> int:
    """Index of a good first example among the first ``scan`` chunks: a word that some
    merges build but that still ends up as two or more tokens; else any chunk of two or
    more tokens; else the first.

    >>> tokenizer = Tokenizer.from_merges([(116, 104)], pretokenizer="gpt4")
    >>> interesting_chunk(tokenizer, [",", " a", " the", " this"])
    2
    """
    fallback = None
    for index, chunk in enumerate(chunks[:scan]):
        if len(chunk) > TRACE_MAX_BYTES:  # replayed only in part: a fallback at most
            fallback = index if fallback is None else fallback
            continue
        tokens = len(tokenizer.encode(chunk, allow_special=False))
        if tokens < 2:
            continue
        if chunk.strip().isalpha() and tokens < _symbol_count(tokenizer, chunk):
            return index
        if fallback is None:
            fallback = index
    return fallback or 0


def presented(
    frame: pd.DataFrame,
    *,
    columns: Sequence[str] | None = None,
    labels: dict[str, str] | None = None,
    formats: dict[str, str] | None = None,
) -> pd.DataFrame:
    """The table as text, for ``st.table``: ``columns`` picked in order, numbers written with
    ``formats`` (``"{:.2f}×"``), headings renamed by ``labels``. What ``st.dataframe``'s
    column settings do on its canvas grid, which no stylesheet can enlarge.

    ``st.table`` renders Markdown in its cells, so every text cell is made inert
    (:func:`~bpeviz.app.frame.inert.escape_markdown`): a token ``![x](http://…)`` is shown, not
    fetched.

    >>> frame = pd.DataFrame({"name": ["a*b*"], "ratio": [1.5], "n": [2]})
    >>> presented(frame, columns=["ratio", "name"], labels={"ratio": "÷"},
    ...           formats={"ratio": "{:.2f}×"}).to_dict("list")
    {'÷': ['1\\\\.50×'], 'name': ['a\\\\*b\\\\*']}
    """
    shown = frame[list(columns)] if columns is not None else frame.copy()
    for column, pattern in (formats or {}).items():
        if column in shown:
            shown[column] = [pattern.format(value) for value in shown[column]]
    shown = shown.map(lambda cell: escape_markdown(cell) if isinstance(cell, str) else cell)
    return shown.rename(columns=labels or {})
