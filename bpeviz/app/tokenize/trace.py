""" "Why was this word split like this?": the encoding trace, one row per merge rule that
fired, as data (:func:`trace_rows`, :func:`trace_lines`; the browser draws each line's
tokens, see :func:`bpeviz.app.shared.token_view.show_trace`) and the summary above it as HTML.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bpeviz.app.shared.token_label import token_label
from bpeviz.engine.corpus import END_OF_WORD_ID
from bpeviz.engine.pretokenize import to_bytes
from bpeviz.engine.readable import counted, readable
from bpeviz.engine.tokenizer import TRACE_MAX_BYTES, Tokenizer, TraceStep
from bpeviz.records.narration import quoted
from bpeviz.records.schema import Mark

MAX_PIECE_LABEL = 80  # characters of a piece shown in the menu (a piece can be 1 MB)


def piece_label(piece: str) -> str:
    """How the Tokenize page's menu of pieces shows one: readable, its first
    :data:`MAX_PIECE_LABEL` characters. (A module's function: Streamlit keeps a menu's
    ``format_func`` for the session, and a page's would hold the page's globals.)

    >>> piece_label(" hello")
    '␣hello'
    """
    return readable(to_bytes(piece[:MAX_PIECE_LABEL]))


def traced_part(piece: str, *, limit: int = TRACE_MAX_BYTES) -> str:
    """The part of ``piece`` the trace replays: all of it, or its longest start of at most
    ``limit`` bytes that ends on a whole character (a trace costs bytes × merges).

    >>> traced_part("héllo", limit=3)
    'hé'
    """
    if len(to_bytes(piece)) <= limit:
        return piece
    return to_bytes(piece)[:limit].decode("utf-8", errors="ignore")


def long_piece_note(piece_bytes: int, traced_bytes: int) -> str:
    """The sentence that says a long piece is replayed only in part.

    >>> long_piece_note(5000, 1000)[:60]
    'This piece is 5,000 bytes long: the replay below traces only'
    """
    return (
        f"This piece is {piece_bytes:,} bytes long: the replay below traces only its first "
        f"{counted(traced_bytes, 'byte')}, as a piece on its own (its last tokens may differ "
        "from the whole piece's)."
    )


@dataclass(frozen=True)
class TraceRow:
    """One merge rule applied to a piece: every place it joined, and the tokens after."""

    rank: int
    left: int
    right: int
    new_positions: tuple[int, ...]  # where the new token sits in ``tokens_after``
    tokens_after: tuple[int, ...]

    @property
    def places(self) -> int:
        return len(self.new_positions)


def trace_rows(trace: Sequence[TraceStep]) -> list[TraceRow]:
    """The trace with each run of the same merge folded into one row.

    The encoder joins one pair at a time (leftmost first, as tiktoken does), so a merge that
    applies at four places is four trace steps; tutorials (and minbpe's loop) show it as one
    step that replaces every occurrence. Folding gives that view without losing a place.

    >>> t = [TraceStep(0, 97, 97, 256, 0, (256, 97, 97)), TraceStep(0, 97, 97, 256, 1, (256, 256))]
    >>> trace_rows(t)[0].new_positions, trace_rows(t)[0].tokens_after
    ((0, 1), (256, 256))
    """
    rows: list[TraceRow] = []
    for step in trace:
        previous = rows[-1] if rows else None
        if previous is None or previous.rank != step.rank:
            rows.append(TraceRow(step.rank, step.left, step.right, (), ()))
            previous = rows[-1]
        kept: list[int] = []
        for position in previous.new_positions:
            if position < step.position:
                kept.append(position)
            elif position > step.position + 1:
                kept.append(position - 1)  # one token fewer before it
            # a marked token joined again is covered by the new mark at step.position
        rows[-1] = TraceRow(
            step.rank,
            step.left,
            step.right,
            tuple(sorted({*kept, step.position})),
            step.tokens_after,
        )
    return rows


@dataclass(frozen=True)
class TraceLine:
    """One row of the trace as drawn: its name and the tokens after it, with the tokens that
    merge made outlined (``marks``: ``"new"`` or ``""`` per token)."""

    name: str
    ids: tuple[int, ...]
    marks: tuple[str, ...]


def trace_lines(
    tokenizer: Tokenizer,
    word: bytes,
    trace: Sequence[TraceStep],
    *,
    rank_label: Callable[[int], str],
    max_steps: int = 80,
) -> tuple[list[TraceLine], int]:
    """The merges that build ``word``, one row per merge rule: the rule and the tokens after;
    and how many rows were left out past ``max_steps``.

    The first row is the word as bytes (plus ``</w>``); each later row outlines every token
    that merge made (see :func:`trace_rows`). ``rank_label(rank)`` names a merge
    (``merge 14``, ``rank 1917``).

    >>> lines, more = trace_lines(Tokenizer.from_merges([(97, 97)]), b"aaa",
    ...     Tokenizer.from_merges([(97, 97)]).encode_trace(b"aaa"), rank_label="merge {}".format)
    >>> [(line.name, line.ids, line.marks) for line in lines], more
    ([('start', (97, 97, 97), ('', '', '')), ('merge 0: “a” + “a”', (256, 97), ('new', ''))], 0)
    """
    start_ids = [tokenizer.byte_ids[value] for value in word]
    if tokenizer.end_of_word and tokenizer.ranks is None:
        start_ids.append(END_OF_WORD_ID)
    lines = [TraceLine("start", tuple(start_ids), ("",) * len(start_ids))]
    folded = trace_rows(trace)
    for row in folded[:max_steps]:
        name = (
            f"{rank_label(row.rank)}: {quoted(token_label(tokenizer, row.left))} + "
            f"{quoted(token_label(tokenizer, row.right))}"
        )
        if row.places > 1:
            name += f", at {row.places} places"
        marks = ["" for _ in row.tokens_after]
        for position in row.new_positions:
            if position < len(marks):
                marks[position] = Mark.NEW
        lines.append(TraceLine(name, row.tokens_after, tuple(marks)))
    return lines, max(len(folded) - max_steps, 0)


def trace_summary_html(word: bytes, trace: Sequence[TraceStep], encoded: Sequence[int]) -> str:
    """One paragraph over the trace: how many tokens the piece is, and how many merges build it.

    When the encoder took the piece whole (a rank table whose token list holds the whole
    piece, as tiktoken does) and the merges alone would split it otherwise, it says so.
    """
    name = quoted(readable(word))
    tokens = counted(len(encoded), "token")
    size = counted(len(word), "byte")
    final = list(trace[-1].tokens_after) if trace else None
    whole = len(encoded) == 1 and len(word) > 1 and final != list(encoded)
    rules = len(trace_rows(trace))
    merges = counted(rules, "merge")
    if len(trace) > rules:  # some merges join the same pair at several places
        merges += f" ({len(trace)} joins)"
    if trace:
        sentence = (
            f"{name} is {tokens}. Starting from its {size}, {merges} "
            f"{'applies' if rules == 1 else 'apply'}, always "
            "the one learned earliest (the lowest rank) first:"
        )
    elif whole:
        sentence = f"{name} is {tokens}."
    else:
        sentence = f"{name} is {tokens}: no learned merge applies to its {size}."
    parts = [f'<p class="bpe-summary">{html.escape(sentence)}</p>']
    if whole:
        note = (
            f"The tokenizer takes {name} whole, as tiktoken does, because it is itself a token "
            f"(id {encoded[0]:,}); the replay below shows what the merges alone make of it."
        )
        parts.append(f'<p class="bpe-tie">{html.escape(note)}</p>')
    return "".join(parts)
