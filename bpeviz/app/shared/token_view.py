"""Any list of tokens drawn in the browser: the Step page's component (``bpeviz/web``) with
``kind: "tokens"``, so the Tokenize, Compare and Two runs pages and the trace draw tokens with
the one renderer the Step page uses, and a click on a token opens the same inspector.

The record is :func:`bpeviz.records.tokens.tokens_data`; this module only mounts it (and the
trace's row labels), one component per ``key``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import streamlit as st

from bpeviz.app.frame.inert import escape_markdown
from bpeviz.app.frame.sized_cache import SizedCache
from bpeviz.app.step.view import component
from bpeviz.app.tokenize.trace import TraceLine
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats.hf_models import ENGINE, LibraryTokenizer
from bpeviz.records.library_tokens import library_tokens_data
from bpeviz.records.tokens import piece_starts, tokens_data

RECORD_BYTES = 8_000_000  # the token records kept for every session, as JSON text


@st.cache_resource(show_spinner=False)
def token_records() -> SizedCache[tuple[Any, ...], str]:
    """The process's one cache of token records as JSON text, by tokenizer and what is
    drawn: a class on one slide draws the same tokens for every student (slide 12's 35
    records were about a quarter of each student's run). Bounded in bytes (``sized_cache``)."""
    return SizedCache(RECORD_BYTES, keep=lambda key: False, most_kept=0)


def drawn_digest(ids: Sequence[int], marks: Sequence[str] | None, text: str | None) -> str:
    """A short name for the ids, marks and text a token view draws: a kept record's name is
    not weighed by the cache, so it must hold no copy of a long text or its ids.

    >>> drawn_digest([1, 2], None, "ab") == drawn_digest([1, 2], None, "ab")
    True
    >>> drawn_digest([1, 2], None, "ab") == drawn_digest([1, 2], [], "ab")
    False
    """
    digest = hashlib.blake2b(digest_size=16)
    digest.update(np.asarray(ids, dtype=np.int64).tobytes())
    for part in (None if marks is None else "\x1f".join(marks), text):
        given = b"" if part is None else part.encode("utf-8", "surrogatepass")
        digest.update(b"\x00-" if part is None else b"\x00+" + given)
    return digest.hexdigest()


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
    tokenizer_key: Any = None,
) -> None:
    """Draw ``ids`` of ``tokenizer`` as coloured spans (with a legend of what they hold).

    ``copy``: "Copy ids" and "Copy tokens" buttons, each putting a JSON list on the clipboard.

    ``label`` names the box of tokens for a screen reader (default "The text, token by
    token"): a page with two boxes gives each its own.

    With ``text`` (what ``ids`` encode, or the start of it), each piece of the tokenizer's
    pre-tokenizer is outlined, with the rule that merges never cross one.

    ``tokenizer_key`` names the tokenizer uniquely (as for ``training.encode``): given, the
    record is made once for every session (:func:`token_records`) and sent as its JSON text,
    which ``web/core/main.js`` reads: Streamlit looks into each key of a dict it is given, in
    every run (a trace's 34 small records took 17 ms of it, their texts 0.2 ms).
    """
    choices: dict[str, Any] = {"legend": legend, "copy": copy}
    if label is not None:
        choices["label"] = label
    drawn = (text, marks, show, group, inspect, scroll)
    if tokenizer_key is None:
        component(data={**_tokens_data(tokenizer, ids, *drawn), **choices}, key=key)
        return
    record = token_record(tokenizer, ids, drawn, tokenizer_key=tokenizer_key)
    component(data={"kind": "tokens", "record": record, **choices}, key=key)


# What a token view draws of its ids: the text they encode (or None), marks, show, group,
# inspect and scroll, as show_tokens takes them.
Drawn = tuple[str | None, Sequence[str] | None, str, bool, bool, bool]


def _tokens_data(
    tokenizer: Tokenizer,
    ids: Sequence[int],
    text: str | None,
    marks: Sequence[str] | None,
    show: str,
    group: bool,
    inspect: bool,
    scroll: bool,
) -> dict[str, Any]:
    pieces = piece_starts(tokenizer, text, ids) if text is not None else None
    return tokens_data(
        tokenizer,
        ids,
        marks=marks,
        pieces=pieces,
        show=show,
        group=group,
        inspect=inspect,
        scroll=scroll,
    )


def token_record(
    tokenizer: Tokenizer, ids: Sequence[int], drawn: Drawn, *, tokenizer_key: Any
) -> str:
    """The record of ``ids`` as :func:`show_tokens` draws them (``drawn``), as JSON text: kept
    for every session when ``tokenizer_key`` names the tokenizer (:func:`token_records`),
    else made."""
    if tokenizer_key is None:
        return json.dumps(_tokens_data(tokenizer, ids, *drawn))
    text, marks, show, group, inspect, scroll = drawn
    name = (tokenizer_key, drawn_digest(ids, marks, text), show, group, inspect, scroll)
    return token_records().get(name, lambda: json.dumps(_tokens_data(tokenizer, ids, *drawn)), len)


def show_trace(
    tokenizer: Tokenizer,
    lines: Sequence[TraceLine],
    *,
    more: int = 0,
    key: str,
    tokenizer_key: Any = None,
) -> None:
    """The "why was this split" trace: each line's name over its tokens, drawn inline (the
    tokens each merge made outlined), and how many rows were left out. ``tokenizer_key``: as
    for :func:`show_tokens`.

    One component for every row (``web/core/main.js``'s ``mountTrace``): drawn as a label and
    a component each, slide 12's trace was 34 elements, a third of each following
    student's rerun of the Tokenize page."""
    records = [
        token_record(
            tokenizer,
            line.ids,
            (None, line.marks, "text", False, False, False),
            tokenizer_key=tokenizer_key,
        )
        for line in lines
    ]
    rows = ",".join(
        f'{{"label":{json.dumps(line.name)},"record":{record}}}'
        for line, record in zip(lines, records, strict=True)
    )
    left_out = f"… {more:,} more merges not shown" if more else ""
    with st.container(gap=None, key=f"{key}_rows"):
        component(data={"kind": "trace", "rows": f"[{rows}]", "more": left_out}, key=key)


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
