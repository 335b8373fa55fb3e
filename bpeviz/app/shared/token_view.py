"""Any list of tokens drawn in the browser: the Step page's component (``bpeviz/web``) with
``kind: "tokens"``, so the Tokenize, Compare and Two runs pages and the trace draw tokens with
the one renderer the Step page uses, and a click on a token opens the same inspector.

The record is :func:`bpeviz.records.tokens.tokens_data`; this module only mounts it (and the
trace's row labels), one component per ``key``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import streamlit as st

from bpeviz.app.frame.inert import escape_markdown
from bpeviz.app.step.view import component
from bpeviz.app.tokenize.trace import TraceLine
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats.hf_models import ENGINE, LibraryTokenizer
from bpeviz.records.library_tokens import library_tokens_data
from bpeviz.records.tokens import piece_starts, tokens_data


def show_tokens(
    tokenizer: Tokenizer,
    ids: Sequence[int],
    *,
    key: str,
    text: str | None = None,
    marks: Sequence[str] | None = None,
    show: str = "text",
    group: bool = True,
    inspect: bool = True,
    scroll: bool = True,
    legend: bool = True,
    label: str | None = None,
    copy: bool = False,
) -> dict[str, Any]:
    """Draw ``ids`` of ``tokenizer`` as coloured spans (with a legend of what they hold);
    return the record.

    ``copy``: "Copy ids" and "Copy tokens" buttons, each putting a JSON list on the clipboard.

    ``label`` names the box of tokens for a screen reader (default "The text, token by
    token"): a page with two boxes gives each its own.

    With ``text`` (what ``ids`` encode, or the start of it), each piece of the tokenizer's
    pre-tokenizer is outlined, with the rule that merges never cross one.
    """
    pieces = piece_starts(tokenizer, text, ids) if text is not None else None
    data = tokens_data(
        tokenizer,
        ids,
        marks=marks,
        pieces=pieces,
        show=show,
        group=group,
        inspect=inspect,
        scroll=scroll,
    )
    data["legend"] = legend
    data["copy"] = copy
    if label is not None:
        data["label"] = label
    component(data=data, key=key)
    return data


def show_trace(
    tokenizer: Tokenizer, lines: Sequence[TraceLine], *, more: int = 0, key: str
) -> None:
    """The "why was this split" trace: each line's name over its tokens, drawn inline (the
    tokens each merge made outlined), and how many rows were left out."""
    with st.container(gap=None, key=f"{key}_rows"):
        for index, line in enumerate(lines):
            st.html(f'<span class="bpe-trace-label">{html.escape(line.name)}</span>')
            show_tokens(
                tokenizer,
                line.ids,
                key=f"{key}_{index}",
                marks=line.marks,
                group=False,
                inspect=False,
                scroll=False,
                legend=False,
            )
        if more:
            st.html(f'<span class="bpe-trace-label">… {more:,} more merges not shown</span>')


def library_cuts_note(tokenizer: LibraryTokenizer) -> str:
    """How Compare cuts a file the ``tokenizers`` library encodes (Markdown: the file's own
    words made inert)."""
    return (
        f"Encoded by {ENGINE} (a {escape_markdown(tokenizer.model_type)} model): its cuts are "
        "where the library's offsets put each token's end; text the model drops (spaces) goes "
        "with the next token, and tokens its template adds cover no text."
    )


OWN_ENGINE_NOTE = "Encoded by bpeviz: trace and build tree available."  # an imported file


def library_note(tokenizer: LibraryTokenizer) -> str:
    """Which engine encodes an imported file, why, and which views it has (Markdown: what
    the file says, its suffix or its model's type, made inert)."""
    return (
        f"Encoded by {ENGINE}: a {escape_markdown(tokenizer.model_type)} model of "
        f"{tokenizer.vocab_size:,} tokens, which bpeviz's own encoder does not take "
        f"(it uses {escape_markdown(tokenizer.refused_feature)}), so the ids are the library's "
        "own. Views: the tokens, with each word's start outlined, and the counts; no merge "
        "trace and no build tree (the library does not say how a token was built)."
    )


def show_library_tokens(
    tokenizer: LibraryTokenizer,
    text: str,
    *,
    key: str,
    show: str = "text",
    marks: Sequence[str] | None = None,
    words: bool = True,
    limit: int | None = None,
    label: str | None = None,
) -> dict[str, Any]:
    """Draw ``text`` as ``tokenizers`` encodes it (with the file's template tokens): each
    word's start outlined, or (``words=False``) the ``marks`` alone; the first ``limit``;
    ``label`` names the box for a screen reader."""
    data = library_tokens_data(tokenizer, text, show=show, marks=marks, words=words, limit=limit)
    data["legend"] = True
    if label:
        data["label"] = label
    component(data=data, key=key)
    return data
