"""Everything the Step page shows at any step, in one record for the browser.

The step view is drawn in the browser (``bpeviz/web``), in the app and in an exported
HTML file alike, so that stepping costs the server nothing. It draws from this record only:
a pure function of the trained history, computed once per training run. The browser cuts the
text at step ``k`` the way :meth:`History.segmentation` does, from the step at which each
boundary between two symbols vanished (a token starts where that step is later than ``k``;
its id is the one made by the last merge inside it, or its first symbol's).

Schema (:data:`bpeviz.records.schema.SCHEMA`; every list index is a step, a merge number minus
one, or a token id; the places of a list that stands for one thing are named in
:mod:`bpeviz.records.schema`):

- ``base``, ``merge_count``, ``text_bytes``, ``rule``, ``end_of_word``;
- ``tokens``: the token count of the whole text at steps ``0..merge_count``;
- ``window``: ``{"from", "bytes", "symbols", "whole"}``: the text drawn is its bytes
  ``from``..``bytes`` (``whole`` when that is all of it), ``symbols`` symbols cut where no
  merge ever joins, so every token drawn is whole at every step;
- ``symbols``, ``offsets``, ``death``: per symbol of the window, its id, its byte offset
  (``offsets`` has one more entry, the window's end) and the step its left boundary
  vanished (``merge_count + 1``: never);
- ``vocab``: per token id (bytes, merges, then special tokens), its entry
  (:data:`~bpeviz.records.schema.VOCAB_FIELDS`: label, title, kind, broken, newlines, hex). A merged
  token leaves what its parents give to the browser (:func:`vocab_entries`): ``hex`` ``""``
  (its parents' joined), ``broken`` :data:`~bpeviz.records.schema.JOINED` (that hex), and a long
  whole-character token's label ``None`` (theirs joined);
- ``merges``: per merge ``[left, right, made, count, replacements]``
  (:data:`~bpeviz.records.schema.MERGE_FIELDS`);
- ``sentences``: per merge ``[counts, tie]`` (:data:`~bpeviz.records.schema.SENTENCE_FIELDS`: what
  it did, and how a tie was broken or ``""``); ``start``: step 0's two sentences
  ``[counts, first_merge]`` (:data:`~bpeviz.records.schema.START_FIELDS`);
- ``tops``: at steps ``0..merge_count``, the best ``TOP_PAIRS`` rows of the pair table,
  flattened ``[left, right, count, ...]`` (:data:`~bpeviz.records.schema.TOP_FIELDS`); ``tied``:
  how many pairs share the top count (``TOP_PAIRS + 1``: that many or more);
- ``pieces``: the window's symbols where a piece of the pre-tokenizer starts (no merge ever
  crosses one); ``pieces_rule``: the sentence that says so for this run's pre-tokenizer;
- ``quiz``: at steps ``0..merge_count - 1``, the rows of ``tops`` offered as candidates for
  the next merge, in the order shown (:func:`quiz_order`).

Budget (``benchmarks/run.py``): at most 300 KB gzipped for a bundled sample at vocab 512,
2 MB for Tiny Shakespeare at 4096. The full pair table stays a download of the server.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np

from bpeviz.engine.history import History
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.records.narration import (
    count_sentence,
    first_merge_sentence,
    pieces_sentence,
    start_sentence,
    tie_sentence,
)
from bpeviz.records.schema import (
    JOINED,
    MERGE_FIELDS,
    SCHEMA,
    SENTENCE_FIELDS,
    START_FIELDS,
    VOCAB_FIELDS,
    row,
    vocab_entry,
)
from bpeviz.records.token_info import trained_origin

TOP_PAIRS = 12  # rows of the pair table shown at each step
WINDOW_SYMBOLS = 6_000  # symbols of text drawn: a bundled sample whole, a book's first pages
QUIZ_CHOICES = 4  # the real next merge and three others from near the top
LABEL_JOINED_OVER = 24  # bytes: a longer token's label may be left to the browser to join


def vocab_entries(tokenizer: Tokenizer, base: int, size: int) -> list[list[Any]]:
    """The vocabulary entries (:data:`bpeviz.records.schema.VOCAB_FIELDS`) of ids ``0..size-1``.

    A merged token's bytes are its parents' bytes joined, so they are left for the browser
    to join (``hex`` ``""``, ``broken`` :data:`~bpeviz.records.schema.JOINED` for its hex): long
    tokens would otherwise repeat their parents, and a small text trained far in ``bytes``
    mode has tokens of whole paragraphs. So is the label of a long token made of two
    whole-character parents, whose readable text is theirs joined (``None``).
    """
    origin = trained_origin(base)
    parents = {new: (left, right) for left, right, new in tokenizer.merges}
    whole: list[bool] = []
    entries: list[list[Any]] = []
    broken, full = (VOCAB_FIELDS.index(name) for name in ("broken", "hex"))
    for token_id in range(size):
        made = parents.get(token_id)
        # Two whole-character parents make a whole-character token, whose label is theirs
        # joined: a long one is not spelled out here (its text may be the whole text's).
        joined = (
            made is not None
            and whole[made[0]]
            and whole[made[1]]
            and len(tokenizer.token_bytes(token_id)) > LABEL_JOINED_OVER
        )
        entry = vocab_entry(tokenizer, token_id, origin, spell=not joined)
        whole.append(entry[broken] == "")
        if made is not None:  # what its parents give is left to the browser
            entry[broken] = "" if whole[-1] else JOINED
            entry[full] = ""
        entries.append(entry)
    return entries


def quiz_order(step: int, candidates: int) -> list[int]:
    """Which rows of the pair table a quiz offers for the merge after ``step``, in order.

    The real next merge (row 0) and up to three runners-up (rows 1..3), shuffled by a
    generator seeded with the step: every student of a class sees the same order, and it
    changes from step to step.

    >>> quiz_order(0, 12) == quiz_order(0, 12), sorted(quiz_order(5, 12)), quiz_order(3, 1)
    (True, [0, 1, 2, 3], [0])
    """
    rows = list(range(min(candidates, QUIZ_CHOICES)))
    random.Random(f"bpeviz quiz {step}").shuffle(rows)
    return rows


def _window_end(death: np.ndarray, merge_count: int, limit: int) -> int:
    """How many symbols to draw: at most ``limit``, ending where no merge ever joins two
    symbols, so no token drawn is cut; past ``limit`` only when a first token is longer."""
    if len(death) <= limit:
        return len(death)
    survives = death[1:] > merge_count  # boundary before symbol i + 1
    inside = np.flatnonzero(survives[:limit])
    if len(inside):
        return int(inside[-1]) + 1
    beyond = np.flatnonzero(survives[limit:])
    return limit + int(beyond[0]) + 1 if len(beyond) else len(death)


def window_shows(
    history: History, window_from: int, merge: int, window_symbols: int = WINDOW_SYMBOLS
) -> bool:
    """Whether the window starting at symbol ``window_from`` holds a place of ``merge``."""
    _, _, death = history.text_symbols()
    end = window_from + _window_end(death[window_from:], history.merge_count, window_symbols)
    return bool(np.any(death[window_from + 1 : end] == merge))


def window_for(history: History, merge: int, window_symbols: int = WINDOW_SYMBOLS) -> int:
    """The first symbol of a window that shows ``merge``: a tenth of the window before its
    first place, where no merge ever joins (so the first token drawn is whole)."""
    _, _, death = history.text_symbols()
    places = np.flatnonzero(death == merge)
    if not len(places):
        return 0
    target = max(int(places[0]) - window_symbols // 10, 0)
    edges = np.flatnonzero(death[: target + 1] > history.merge_count)
    return int(edges[-1]) if len(edges) else 0


def payload(
    history: History, *, window_symbols: int = WINDOW_SYMBOLS, window_from: int = 0
) -> dict[str, Any]:
    """The step view's record for ``history`` (schema in the module docstring); the text
    drawn starts at symbol ``window_from`` (see :func:`window_for`)."""
    merges = history.merge_count
    tokenizer = history.tokenizer
    symbols, offsets, death = history.text_symbols()
    lo = window_from
    end = lo + _window_end(death[lo:], merges, window_symbols)
    window_death = np.minimum(death[lo:end], merges + 1)
    tops = history.pair_tops(TOP_PAIRS)
    sentences = []
    for step in history.steps:
        top = tops[step.step - 1]
        tied = [(left, right) for left, right, count in top.rows if count == step.count]
        at_least = top.tied > TOP_PAIRS
        tie = tie_sentence(step, tokenizer, tied, top.tied, at_least=at_least) or ""
        counts = count_sentence(step, history.token_count(step.step - 1))
        sentences.append(row(SENTENCE_FIELDS, counts=counts, tie=tie))
    start = row(
        START_FIELDS,
        counts=start_sentence(
            len(history.text),
            history.token_count(0),
            end_of_word=tokenizer.end_of_word,
            specials=bool(tokenizer.special_tokens),
        ),
        first_merge=first_merge_sentence(history.steps[0] if merges else None, tokenizer),
    )
    vocab_size = history.vocab_size + len(tokenizer.special_tokens)
    return {
        "schema": SCHEMA,
        "base": history.base,
        "merge_count": merges,
        "text_bytes": len(history.text),
        "rule": history.run.tie_break,
        "end_of_word": tokenizer.end_of_word,
        "tokens": [history.token_count(k) for k in range(merges + 1)],
        "window": {
            "from": int(offsets[lo]),
            "bytes": int(offsets[end]),
            "symbols": end - lo,
            "whole": lo == 0 and end == len(death),
        },
        "symbols": symbols[lo:end].tolist(),
        "offsets": offsets[lo : end + 1].tolist(),
        "death": window_death.tolist(),
        "vocab": vocab_entries(tokenizer, history.base, vocab_size),
        "merges": [
            row(
                MERGE_FIELDS,
                left=step.pair[0],
                right=step.pair[1],
                made=step.new_id,
                count=step.count,
                replacements=step.replacements,
            )
            for step in history.steps
        ],
        "sentences": sentences,
        "start": start,
        "tops": [[value for row in top.rows for value in row] for top in tops],
        "tied": [top.tied for top in tops],
        "pieces": [int(start) - lo for start in history.piece_starts() if lo <= start < end],
        "pieces_rule": pieces_sentence(history.run.pretokenizer),
        "quiz": [quiz_order(k, len(tops[k].rows)) for k in range(merges)],
    }


def payload_json(history: History, **kwargs: Any) -> str:
    """:func:`payload` as compact JSON (what the app and an exported page carry)."""
    return json.dumps(payload(history, **kwargs), ensure_ascii=False, separators=(",", ":"))
