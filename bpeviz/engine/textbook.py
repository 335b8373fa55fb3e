"""The textbook BPE recipe: slow, short and obviously right. Read it before ``trainer.py``.

This is byte-pair encoding the way a textbook (or minbpe) writes it, in our own words:

1. cut the text into pieces (:func:`pieces`); BPE never merges across a piece's edge;
2. count every adjacent pair of ids in every piece (:func:`get_stats`);
3. take the most frequent pair, ties broken by a named rule (:func:`best_pair`);
4. give it the next free id and replace it left to right in every piece (:func:`merge`);
5. record the merge, and repeat until the vocabulary is full (:func:`train`).

Encoding (:func:`encode`) replays the merges: in each piece, merge the pair that was learned
earliest, until no learned pair is left.

It recounts the whole text for every merge, so it is for small texts. Everything that makes
``bpeviz/engine/trainer.py`` and ``bpeviz/engine/tokenizer.py`` fast (distinct chunks with weights,
linked lists, heaps, counts updated in place, caches) is left out on purpose: the tests hold the
fast engine equal to this recipe, merge by merge and id by id. Only the published split patterns
come from ``bpeviz.engine.pretokenize``; the cutting itself is done here, independently.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import regex

from bpeviz.engine.config import unique_special_tokens
from bpeviz.engine.pretokenize import END_OF_WORD, SPLIT_PATTERNS
from bpeviz.engine.tie_rules import TIE_BREAKS

Pair = tuple[int, int]
END_OF_WORD_ID = 256  # the ``</w>`` marker: one more base symbol, after the 256 bytes


def get_stats(ids: Sequence[int], counts: dict[Pair, int] | None = None) -> dict[Pair, int]:
    """Count the adjacent pairs of ``ids`` (overlaps included) into ``counts``, in scan order.

    >>> get_stats([97, 97, 97, 98])
    {(97, 97): 2, (97, 98): 1}
    """
    counts = {} if counts is None else counts
    for pair in pairwise(ids):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge(ids: list[int], pair: Pair, new_id: int) -> list[int]:
    """Replace ``pair`` by ``new_id``, scanning left to right, never overlapping.

    >>> merge([97, 97, 97, 98], (97, 97), 256)
    [256, 97, 98]
    """
    if pair[0] not in ids:  # nothing to do (saves the loop on most pieces of a book)
        return ids
    out: list[int] = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def best_pair(counts: dict[Pair, int], rule: str = "first") -> Pair:
    """The most frequent pair; among equal counts, the one the tie rule names.

    ``first``: the pair seen first in the text (``counts`` is filled in scan order, and
    ``max`` keeps the first of equals). ``lexmin`` / ``lexmax``: the smallest / largest ids.

    >>> counts = {(98, 99): 2, (97, 98): 2, (99, 97): 1}
    >>> best_pair(counts, "first"), best_pair(counts, "lexmin"), best_pair(counts, "lexmax")
    ((98, 99), (97, 98), (98, 99))
    """
    if rule == "first":
        return max(counts, key=counts.__getitem__)
    top = max(counts.values())
    tied = [pair for pair, count in counts.items() if count == top]
    if rule == "lexmin":
        return min(tied)
    if rule == "lexmax":
        return max(tied)
    raise ValueError(f"unknown tie rule {rule!r}: choose one of {', '.join(TIE_BREAKS)}")


def ranked_pairs(counts: dict[Pair, int], rule: str = "first") -> list[Pair]:
    """Every pair, best first: by count, then by the tie rule (``sorted`` is stable).

    >>> ranked_pairs({(98, 99): 2, (97, 98): 2, (99, 97): 1}, "lexmin")
    [(97, 98), (98, 99), (99, 97)]
    """
    if rule == "first":
        return sorted(counts, key=lambda pair: -counts[pair])
    if rule == "lexmin":
        return sorted(counts, key=lambda pair: (-counts[pair], pair))
    if rule == "lexmax":
        return sorted(counts, key=lambda pair: (-counts[pair], -pair[0], -pair[1]))
    raise ValueError(f"unknown tie rule {rule!r}: choose one of {', '.join(TIE_BREAKS)}")


# ---- cutting a text into pieces --------------------------------------------------------------


def pieces(
    text: str | bytes, pretokenizer: str = "bytes", special_tokens: Iterable[str] = ()
) -> list[tuple[str, str]]:
    """Cut ``text`` into ``(kind, part)``: ``chunk`` (merged inside), ``space`` (``words``
    mode's whitespace, never merged) or ``special`` (one special token, never split).

    Special tokens are found first, scanning left to right and taking the longest one that
    starts at each position. ``bytes`` keeps the rest whole, ``gpt2``/``gpt4`` cut it with
    the published patterns, ``words`` at runs of whitespace. Bytes that are not UTF-8 come in
    as lone surrogates (``surrogateescape``) and go back out as the same bytes.

    >>> pieces("the cat<|e|>", "gpt2", ["<|e|>"])
    [('chunk', 'the'), ('chunk', ' cat'), ('special', '<|e|>')]
    >>> pieces(b"to  be\\xff", "words")
    [('chunk', 'to'), ('space', '  '), ('chunk', 'be\\udcff')]
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="surrogateescape")
    specials = sorted({s for s in special_tokens if s}, key=len, reverse=True)
    if not specials:
        return _plain_pieces(text, pretokenizer)
    out: list[tuple[str, str]] = []
    plain_start = i = 0
    while i <= len(text):
        found = next((s for s in specials if text.startswith(s, i)), None)
        if found is None and i < len(text):
            i += 1
            continue
        out.extend(_plain_pieces(text[plain_start:i], pretokenizer))
        if found is None:
            break
        out.append(("special", found))
        i = plain_start = i + len(found)
    return out


def _plain_pieces(text: str, pretokenizer: str) -> list[tuple[str, str]]:
    """The pieces of text that holds no special token."""
    if not text:
        return []
    if pretokenizer == "bytes":
        return [("chunk", text)]
    if pretokenizer == "words":
        parts = regex.split(r"(\s+)", text)  # word, whitespace, word, ... (maybe empty words)
        return [("space" if i % 2 else "chunk", part) for i, part in enumerate(parts) if part]
    found = regex.findall(SPLIT_PATTERNS[pretokenizer], text)
    assert "".join(found) == text, "the published patterns match every character"
    return [("chunk", part) for part in found]


def to_ids(part: str, end_of_word: bool = False) -> list[int]:
    """A piece's base ids: its UTF-8 bytes, then the ``</w>`` marker when asked.

    >>> to_ids("hé", end_of_word=True)
    [104, 195, 169, 256]
    """
    data = part.encode("utf-8", errors="surrogateescape")
    return list(data) + ([END_OF_WORD_ID] if end_of_word else [])


# ---- training ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TextbookStep:
    """One merge as the recipe saw it (``tied``: every pair that tied with it, rule order)."""

    pair: Pair
    new_id: int
    token: bytes  # what the new token shows as (``</w>`` as its text)
    count: int
    replacements: int
    tied: tuple[Pair, ...]
    tokens_after: int


@dataclass
class TextbookRun:
    """The merges, why training stopped, and the whole text after ``k`` merges.

    ``sequences[k]``: ids of the whole text after ``k`` merges (special tokens get the ids
    after the last merge). ``pair_counts[k]``: every pair and its count then, in rule order.
    ``vocab``: each id's bytes (``</w>`` is ``b""``: it adds no text).
    """

    base: int
    steps: list[TextbookStep] = field(default_factory=list)
    stop: str = ""  # "vocab", "no pairs" or "min frequency"
    sequences: dict[int, list[int]] = field(default_factory=dict)
    pair_counts: dict[int, list[tuple[Pair, int]]] = field(default_factory=dict)
    vocab: dict[int, bytes] = field(default_factory=dict)

    @property
    def merges(self) -> list[Pair]:
        return [step.pair for step in self.steps]


def train(
    text: str | bytes,
    vocab_size: int,
    *,
    pretokenizer: str = "bytes",
    tie_break: str = "first",
    special_tokens: Iterable[str] = (),
    end_of_word: bool = False,
    min_frequency: int = 1,
    snapshots: Iterable[int] | None = None,
) -> TextbookRun:
    """Learn merges until ``vocab_size`` ids exist, no pair is left, or the best is too rare.

    Snapshots of the whole text and its pair counts are kept after every merge, or only
    after the merge counts listed in ``snapshots``.

    >>> run = train("aaabdaaabac", 259)
    >>> [(step.pair, step.count, step.token) for step in run.steps]
    [((97, 97), 4, b'aa'), ((256, 97), 2, b'aaa'), ((257, 98), 2, b'aaab')]
    >>> run.sequences[3]
    [258, 100, 258, 97, 99]
    """
    base = END_OF_WORD_ID + 1 if end_of_word else 256
    specials = list(unique_special_tokens(special_tokens))
    keep = None if snapshots is None else set(snapshots)
    layout = pieces(text, pretokenizer, specials)
    chunks = [to_ids(part, end_of_word) for kind, part in layout if kind == "chunk"]

    run = TextbookRun(base=base, vocab={i: bytes([i]) for i in range(256)})
    shown = dict(run.vocab)  # what each token shows as, the marker included
    if end_of_word:
        run.vocab[END_OF_WORD_ID] = b""
        shown[END_OF_WORD_ID] = END_OF_WORD.encode()
    raw_sequences: dict[int, list[int | str]] = {}
    while True:
        counts: dict[Pair, int] = {}
        for ids in chunks:
            get_stats(ids, counts)
        done = len(run.steps)
        ranked = ranked_pairs(counts, tie_break)
        if keep is None or done in keep:
            raw_sequences[done] = _whole_text(layout, chunks)
            run.pair_counts[done] = [(pair, counts[pair]) for pair in ranked]
        if base + done >= vocab_size:
            run.stop = "vocab"
            break
        if not counts:
            run.stop = "no pairs"
            break
        pair = best_pair(counts, tie_break)
        assert pair == ranked[0], "the ranking and the winner must agree"
        if counts[pair] < min_frequency:
            run.stop = "min frequency"
            break
        new_id = base + done
        before = sum(map(len, chunks))
        chunks = [merge(ids, pair, new_id) for ids in chunks]
        run.vocab[new_id] = run.vocab[pair[0]] + run.vocab[pair[1]]
        shown[new_id] = shown[pair[0]] + shown[pair[1]]
        tied = [p for p in ranked if counts[p] == counts[pair]]
        run.steps.append(
            TextbookStep(
                pair=pair,
                new_id=new_id,
                token=shown[new_id],
                count=counts[pair],
                replacements=before - sum(map(len, chunks)),
                tied=tuple(tied) if len(tied) > 1 else (),
                tokens_after=len(_whole_text(layout, chunks)),
            )
        )

    special_ids = {token: base + len(run.steps) + i for i, token in enumerate(specials)}
    for token, token_id in special_ids.items():
        run.vocab[token_id] = token.encode("utf-8", errors="surrogateescape")
    run.sequences = {
        k: [special_ids[t] if isinstance(t, str) else t for t in sequence]
        for k, sequence in raw_sequences.items()
    }
    return run


def _whole_text(layout: list[tuple[str, str]], chunks: list[list[int]]) -> list[int | str]:
    """The whole text's ids in order; a special token stands as its text until ids exist."""
    out: list[int | str] = []
    next_chunk = iter(chunks)
    for kind, part in layout:
        if kind == "chunk":
            out.extend(next(next_chunk))
        elif kind == "space":
            out.extend(to_ids(part))
        else:
            out.append(part)
    return out


# ---- encoding ----------------------------------------------------------------------------------


def encode_ids(ids: list[int], merges: dict[Pair, int]) -> list[int]:
    """Merge the earliest-learned pair present, everywhere, until no learned pair is left.

    ``merges`` maps a pair to the id it makes (a smaller id was learned earlier).

    >>> encode_ids(list(b"aaabdaaabac"), {(97, 97): 256, (256, 97): 257, (257, 98): 258})
    [258, 100, 258, 97, 99]
    """
    while len(ids) >= 2:
        learned = [pair for pair in get_stats(ids) if pair in merges]
        if not learned:
            break
        pair = min(learned, key=merges.__getitem__)
        ids = merge(ids, pair, merges[pair])
    return ids


def encode(
    text: str | bytes,
    merges: Sequence[Pair],
    *,
    pretokenizer: str = "bytes",
    special_tokens: Iterable[str] = (),
    end_of_word: bool = False,
) -> list[int]:
    """Encode with merges numbered as :func:`train` numbers them (special tokens after).

    >>> encode("aaab<|e|>aa", [(97, 97), (256, 97), (257, 98)], special_tokens=["<|e|>"])
    [258, 259, 256]
    """
    base = END_OF_WORD_ID + 1 if end_of_word else 256
    made = {pair: base + index for index, pair in enumerate(merges)}
    specials = list(unique_special_tokens(special_tokens))
    special_ids = {token: base + len(merges) + i for i, token in enumerate(specials)}
    ids: list[int] = []
    for kind, part in pieces(text, pretokenizer, specials):
        if kind == "chunk":
            ids.extend(encode_ids(to_ids(part, end_of_word), made))
        elif kind == "space":
            ids.extend(to_ids(part))
        else:
            ids.append(special_ids[part])
    return ids
