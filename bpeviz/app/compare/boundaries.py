"""Two tokenizers on the same text: counts, and where their token boundaries differ.

A tokenization of a text is fully described by where it cuts: the byte offsets between
adjacent tokens. Two tokenizations of the same bytes can then be compared as two sets of
offsets, and their symmetric difference is exactly "where they disagree". Offsets are in
bytes, not characters, because a byte-level tokenizer may cut inside a character (half of a
three-byte Japanese character is a perfectly good token).

What is left out: drawing. The page colours the tokens with :mod:`bpeviz.app.shared.token_view`;
this module only computes (and makes a small table of the differing cuts with some context).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from bpeviz.engine.history import bytes_per_token
from bpeviz.engine.pretokenize import to_bytes
from bpeviz.engine.readable import counted, readable
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats.hf_models import LibraryTokenizer

DEFAULT_COMPARE_TEXT = (
    "The printer counted pairs of letters, 1234 times a day.\n"
    "駅前の小さな本屋で、子どもは文字を読むことを覚えた。 🙂"
)
BOUNDARY_COLUMNS: tuple[str, ...] = ("byte_offset", "only_in", "before", "after")
CONTEXT_BYTES = 12


def token_spans(tokenizer: Tokenizer, ids: list[int]) -> list[tuple[int, int]]:
    """Byte span ``[start, end)`` of each token in the decoded text.

    >>> token_spans(Tokenizer.from_merges([(97, 98)]), [256, 99])
    [(0, 2), (2, 3)]
    """
    spans = []
    start = 0
    for token_id in ids:
        end = start + len(tokenizer.decode_bytes([token_id]))
        spans.append((start, end))
        start = end
    return spans


def boundaries(spans: list[tuple[int, int]]) -> frozenset[int]:
    """The cuts between tokens: every span end except the end of the text (and no 0).

    >>> sorted(boundaries([(0, 2), (2, 3), (3, 5)]))
    [2, 3]
    """
    if not spans:
        return frozenset()
    total = spans[-1][1]
    return frozenset(end for _, end in spans if 0 < end < total)


@dataclass(frozen=True)
class BoundaryDiff:
    """Cuts made by both tokenizers, only by the first (``ours``), only by the second."""

    shared: frozenset[int]
    only_ours: frozenset[int]
    only_theirs: frozenset[int]

    @property
    def differing(self) -> int:
        return len(self.only_ours) + len(self.only_theirs)


def boundary_diff(ours: frozenset[int], theirs: frozenset[int]) -> BoundaryDiff:
    """Split two cut sets into shared cuts and the two halves of their symmetric difference.

    >>> diff = boundary_diff(frozenset({2, 3, 5}), frozenset({1, 2, 5}))
    >>> sorted(diff.shared), sorted(diff.only_ours), sorted(diff.only_theirs)
    ([2, 5], [3], [1])
    """
    return BoundaryDiff(shared=ours & theirs, only_ours=ours - theirs, only_theirs=theirs - ours)


@dataclass(frozen=True)
class Tokenization:
    """One tokenizer's result on the text: ids, byte spans, and the derived counts."""

    name: str
    ids: list[int]
    spans: list[tuple[int, int]]
    byte_count: int

    @property
    def token_count(self) -> int:
        return len(self.ids)

    @property
    def bytes_per_token(self) -> float:
        return bytes_per_token(self.byte_count, self.token_count)

    @property
    def boundaries(self) -> frozenset[int]:
        return boundaries(self.spans)


def tokenize(
    tokenizer: Tokenizer | LibraryTokenizer,
    text: str,
    *,
    name: str,
    ids: list[int] | None = None,
) -> Tokenization:
    """Encode ``text`` (or take its ``ids`` if already encoded) and record the byte spans.

    Special tokens of the tokenizer are recognised, as on the Tokenize page; they decode back
    to their own text, so the spans still tile the text. A file the ``tokenizers`` library
    encodes (WordPiece, Unigram, ...) does not decode token by token to the text (``##ing``,
    a lowercased word, a dropped space): its spans come from the library's offsets instead.
    """
    if ids is None:
        ids = tokenizer.encode(text)
    if isinstance(tokenizer, LibraryTokenizer):
        spans = tokenizer.byte_spans(text)
    else:
        spans = token_spans(tokenizer, ids)
    return Tokenization(
        name=name,
        ids=list(ids),
        spans=spans,
        byte_count=len(to_bytes(text)),
    )


@dataclass(frozen=True)
class Comparison:
    """The same text through two tokenizers."""

    data: bytes
    ours: Tokenization
    theirs: Tokenization
    diff: BoundaryDiff


def compare(
    text: str,
    ours: Tokenizer | LibraryTokenizer,
    theirs: Tokenizer | LibraryTokenizer,
    *,
    names: tuple[str, str] = ("ours", "cl100k_base"),
    ids: tuple[list[int], list[int]] | None = None,
) -> Comparison:
    """Tokenize ``text`` with both tokenizers (or take their ``ids``) and diff their cuts.

    Both decode back to the same bytes (byte-level BPE is lossless), so the offsets line up.

    >>> left = Tokenizer.from_merges([(97, 97)])   # aa
    >>> right = Tokenizer.from_merges([(97, 98)])  # ab
    >>> result = compare("aaab", left, right)
    >>> sorted(result.diff.only_ours), sorted(result.diff.only_theirs), sorted(result.diff.shared)
    ([3], [1], [2])
    """
    first = tokenize(ours, text, name=names[0], ids=None if ids is None else ids[0])
    second = tokenize(theirs, text, name=names[1], ids=None if ids is None else ids[1])
    data = to_bytes(text)
    for result, tokenizer in ((first, ours), (second, theirs)):
        covered = result.spans[-1][1] if result.spans else 0
        dropped = not result.spans and isinstance(tokenizer, LibraryTokenizer)  # spaces only
        if covered != len(data) and not dropped:
            raise ValueError(
                f"the ids given for {result.name} decode to {counted(covered, 'byte')}, but the "
                f"text has {counted(len(data), 'byte')}: they are not this text's tokens"
            )
    return Comparison(
        data=data,
        ours=first,
        theirs=second,
        diff=boundary_diff(first.boundaries, second.boundaries),
    )


def boundary_table(
    comparison: Comparison, *, context: int = CONTEXT_BYTES, limit: int = 500
) -> pd.DataFrame:
    """The differing cuts in text order, with a few readable bytes on each side.

    ``before`` and ``after`` are :func:`bpeviz.engine.readable.readable` forms, so a cut inside a
    character shows up as hex (``<E3><81>``) and spaces as ``␣``. At most ``limit`` rows.
    """
    data = comparison.data
    marked = [(offset, comparison.ours.name) for offset in comparison.diff.only_ours] + [
        (offset, comparison.theirs.name) for offset in comparison.diff.only_theirs
    ]
    rows = [
        (offset, name, readable(data[max(0, offset - context) : offset]),
         readable(data[offset : offset + context]))
        for offset, name in sorted(marked)[:limit]
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=list(BOUNDARY_COLUMNS))


def start_marks(result: Tokenization, cuts: frozenset[int], *, mark: str) -> list[str]:
    """One mark per token: ``mark`` on each token that starts at one of ``cuts``, else "".

    With ``cuts`` = the cuts only this tokenizer makes, the marked tokens are where the other
    tokenizer keeps going (the ``marks`` of :func:`bpeviz.records.tokens.tokens_data`).

    >>> result = tokenize(Tokenizer.from_merges([(97, 97)]), "aaab", name="aa")
    >>> start_marks(result, frozenset({3}), mark="new")
    ['', '', 'new']
    """
    return [mark if start in cuts else "" for start, _ in result.spans]
