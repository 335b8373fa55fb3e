"""Everything the Step page shows at any step, in one record for the browser.

The step view is drawn in the browser (``bpeviz/web/step.js``), in the app and in an exported
HTML file alike, so that stepping costs the server nothing. It draws from this record only:
a pure function of the trained history, computed once per training run. The browser cuts the
text at step ``k`` the way :meth:`History.segmentation` does, from the step at which each
boundary between two symbols vanished (a token starts where that step is later than ``k``;
its id is the one made by the last merge inside it, or its first symbol's).

Schema (``SCHEMA`` 1; every list index is a step, a merge number minus one, or a token id):

- ``base``, ``merge_count``, ``text_bytes``, ``rule``, ``end_of_word``;
- ``tokens``: the token count of the whole text at steps ``0..merge_count``;
- ``window``: ``{"from", "bytes", "symbols", "whole"}``: the text drawn is its bytes
  ``from``..``bytes`` (``whole`` when that is all of it), ``symbols`` symbols cut where no
  merge ever joins, so every token drawn is whole at every step;
- ``symbols``, ``offsets``, ``death``: per symbol of the window, its id, its byte offset
  (``offsets`` has one more entry, the window's end) and the step its left boundary
  vanished (``merge_count + 1``: never);
- ``vocab``: per token id (bytes, merges, then special tokens), ``[label, title, kind,
  broken, newlines, all hex]``: its readable text as runs (even indices text, odd indices
  bytes shown as hex), hover title, kind (0 plain, 1 ends in ``</w>``, 2 special), for a
  token that is not whole UTF-8 characters its bytes in hex (to group tokens under the
  character they spell) else ``""``, how many line breaks follow it (its newlines), and all
  its bytes in hex (``</w>`` included). A merged token leaves what its parents give to the
  browser (:func:`vocab_entries`): ``all hex`` ``""`` (its parents' joined), ``broken``
  ``1`` (that hex), and a long whole-character token's label ``None`` (theirs joined);
- ``merges``: per merge ``[left, right, new_id, count, replacements]``;
- ``sentences``: per merge ``[count sentence, tie sentence or ""]``; ``start``: step 0's
  two sentences;
- ``tops``: at steps ``0..merge_count``, the best ``TOP_PAIRS`` rows of the pair table,
  flattened ``[left, right, count, ...]``; ``tied``: how many pairs share the top count
  (``TOP_PAIRS + 1``: that many or more);
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

from bpeviz.history import History
from bpeviz.narration import (
    count_sentence,
    first_merge_sentence,
    pieces_sentence,
    start_sentence,
    tie_sentence,
)
from bpeviz.readable import hex_bytes, readable, split_utf8
from bpeviz.token_info import special_title, token_title, trained_origin
from bpeviz.tokenizer import Tokenizer

SCHEMA = 1
TOP_PAIRS = 12  # rows of the pair table shown at each step
WINDOW_SYMBOLS = 6_000  # symbols of text drawn: a bundled sample whole, a book's first pages
END_OF_WORD = b"</w>"
QUIZ_CHOICES = 4  # the real next merge and three others from near the top
LABEL_JOINED_OVER = 24  # bytes: a longer token's label may be left to the browser to join


def label_runs(data: bytes) -> str | list[str]:
    """A token's text as the browser draws it: one string when it is whole characters, else
    runs alternating text and hex (the hex ones drawn smaller, as bytes).

    >>> label_runs(b" a\\n"), label_runs("あ".encode()[:2] + b"b")
    ('␣a↵', ['', '<E3><81>', 'b'])
    """
    runs: list[str] = []
    for run, valid in split_utf8(data):
        if valid:
            text = readable(run.encode("utf-8"))
            if len(runs) % 2 == 0:
                runs.append(text)
            else:
                runs[-1] += text
        else:
            if len(runs) % 2 == 0:
                runs.append("")
            runs.append(hex_bytes(run.encode("utf-8", errors="surrogateescape")))
    if len(runs) <= 1:
        return runs[0] if runs else ""
    return runs


def _whole_characters(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def vocab_entries(tokenizer: Tokenizer, base: int, size: int) -> list[list[Any]]:
    """``[label, title, kind, broken, newlines, all hex]`` for ids ``0..size-1`` (see the
    module docstring).

    A merged token's bytes are its parents' bytes joined, so they are left for the browser
    to join (``all hex`` ``""``, ``broken`` ``1`` for its hex): long tokens would otherwise
    repeat their parents, and a small text trained far in ``bytes`` mode has tokens of
    whole paragraphs. So is the label of a long token made of two whole-character parents,
    whose readable text is theirs joined (``None``).
    """
    origin = trained_origin(base)
    parents = {new: (left, right) for left, right, new in tokenizer.merges}
    whole: list[bool] = []
    entries: list[list[Any]] = []
    for token_id in range(size):
        data = full = tokenizer.token_bytes(token_id)
        if tokenizer.is_special(token_id):
            whole.append(True)
            entries.append([label_runs(data), special_title(token_id), 2, "", 0, data.hex()])
            continue
        kind = 0
        title = token_title(token_id, data, origin(token_id))
        if tokenizer.end_of_word and data.endswith(END_OF_WORD):
            data, kind = data[: -len(END_OF_WORD)], 1
        whole.append(_whole_characters(data))
        made = parents.get(token_id)
        if made is None:  # a byte or </w>: its bytes given
            broken: Any = "" if whole[-1] else data.hex()
            entries.append([label_runs(data), title, kind, broken, data.count(b"\n"), full.hex()])
            continue
        joinable = whole[-1] and whole[made[0]] and whole[made[1]] and len(full) > LABEL_JOINED_OVER
        label = None if joinable else label_runs(data)
        entries.append([label, title, kind, "" if whole[-1] else 1, data.count(b"\n"), ""])
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
    tops = [history.pair_top(k, TOP_PAIRS) for k in range(merges + 1)]
    sentences = []
    for step in history.steps:
        top = tops[step.step - 1]
        tied = [(left, right) for left, right, count in top.rows if count == step.count]
        at_least = top.tied > TOP_PAIRS
        tie = tie_sentence(step, tokenizer, tied, top.tied, at_least=at_least) or ""
        sentences.append([count_sentence(step, history.token_count(step.step - 1)), tie])
    start = [
        start_sentence(
            len(history.text),
            history.token_count(0),
            end_of_word=tokenizer.end_of_word,
            specials=bool(tokenizer.special_tokens),
        ),
        first_merge_sentence(history.steps[0] if merges else None, tokenizer),
    ]
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
            [*step.pair, step.new_id, step.count, step.replacements] for step in history.steps
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
