"""Any list of tokens as a record for the browser: the spans ``bpeviz/web`` draws outside the
Step page (Tokenize, Compare, Two runs, the "why was this split" trace), with its inspector.

The browser draws coloured spans and a click-a-token inspector from this record only
(``mountTokens`` in ``bpeviz/web/core/main.js``), with the same renderer as the step view, so
every page shows tokens one way. Schema of :func:`tokens_data`:

- ``schema``: :data:`bpeviz.records.schema.SCHEMA`; ``kind``: ``"tokens"``;
- ``ids``: the tokens to draw; ``marks``: per token ``""``, ``"ps"``, ``"pe"`` or ``"new"``
  (an outline), or ``None``;
- ``vocab``: per id drawn and per ancestor in ``parents``, its entry
  (:data:`bpeviz.records.schema.VOCAB_FIELDS`), every field given;
- ``parents``: per token made by a merge, ``[left, right, number]``
  (:data:`bpeviz.records.schema.PARENT_FIELDS`): a merge list's merge
  number (its index + 1), or for a rank table (``cl100k_base``) the token's rank, with the
  two parts the BPE of its bytes ends with when only lower ranks may merge (the "rank
  replay", as tiktoken's educational module builds a token). Every ancestor down to single
  bytes is there; ``unit`` says which (``"merge"`` or ``"rank"``);
- ``pieces``: the token indices where a piece of the pre-tokenizer starts (outlined), or
  ``None``; ``pieces_rule``: the sentence drawn above them;
- ``show`` (``"text"`` or ``"ids"``), ``group`` (group tokens that split a character),
  ``inspect`` (a click opens the inspector), ``scroll`` (a box of fixed height).

What is left out: drawing (the browser's), and counts of the training text (a merge's count
is the Step page's; here the inspector counts the token in the text shown).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from bpeviz.engine.corpus import base_size
from bpeviz.engine.pretokenize import PieceKind, pretokenize_text, to_bytes
from bpeviz.engine.tokenizer import Tokenizer, _merge_parts
from bpeviz.records.narration import pieces_sentence
from bpeviz.records.schema import PARENT_FIELDS, SCHEMA, row, vocab_entry
from bpeviz.records.token_info import rank_origin, trained_origin

SHOWS = ("text", "ids")
MARKS = ("", "ps", "pe", "new")


def token_entry(tokenizer: Tokenizer, token_id: int) -> list[Any]:
    """The vocabulary entry of one token (:func:`bpeviz.records.schema.vocab_entry`), its title
    naming its merge, or its rank in a rank table.

    >>> token_entry(Tokenizer.from_merges([(97, 98)]), 256)
    ['ab', 'id 256 · bytes 61 62 · made by merge 1', 0, '', 0, '6162']
    """
    if tokenizer.ranks is not None:
        return vocab_entry(tokenizer, token_id, rank_origin)
    return vocab_entry(tokenizer, token_id, trained_origin(base_size(tokenizer.end_of_word)))


def rank_parents(ranks: dict[bytes, int], data: bytes) -> tuple[bytes, bytes] | None:
    """The two parts a token of a rank table is built from: the BPE of its bytes, merging
    only pairs of lower rank than the token's own, ends with exactly two parts (tiktoken's
    ``_educational`` replay). ``None`` for a single byte, or a token the replay cannot build.

    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    >>> rank_parents(ranks, b"abc"), rank_parents(ranks, b"a")
    ((b'ab', b'c'), None)
    """
    rank = ranks.get(data)
    if rank is None or len(data) < 2:
        return None

    def rank_of(left: bytes, right: bytes) -> int | None:
        found = ranks.get(left + right)
        return found if found is not None and found < rank else None

    parts = _merge_parts([bytes([value]) for value in data], rank_of, bytes.__add__)
    return (parts[0], parts[1]) if len(parts) == 2 else None


def token_parents(tokenizer: Tokenizer, ids: Iterable[int]) -> dict[int, tuple[int, int, int]]:
    """``{id: (left, right, number)}`` for ``ids`` and every ancestor down to single bytes:
    a merge list's merge number (index + 1), or a rank table's rank (see the module docstring).

    >>> parents = token_parents(Tokenizer.from_merges([(97, 97), (256, 97), (257, 98)]), [258])
    >>> dict(sorted(parents.items()))
    {256: (97, 97, 1), 257: (256, 97, 2), 258: (257, 98, 3)}
    """
    made: dict[int, tuple[int, int, int]] = {}
    ranks = tokenizer.ranks
    by_new = {
        new: (left, right, rank + 1) for rank, (left, right, new) in enumerate(tokenizer.merges)
    }
    todo = list(dict.fromkeys(ids))
    seen: set[int] = set()
    while todo:
        token_id = todo.pop()
        if token_id in seen:
            continue
        seen.add(token_id)
        if ranks is None:
            found = by_new.get(token_id)
        else:
            parts = (
                None
                if tokenizer.is_special(token_id)
                else rank_parents(ranks, tokenizer.token_bytes(token_id))
            )
            found = (ranks[parts[0]], ranks[parts[1]], token_id) if parts else None
        if found is not None:
            made[token_id] = found
            todo.extend(found[:2])
    return made


def piece_starts(tokenizer: Tokenizer, text: str, ids: Sequence[int]) -> list[int]:
    """The indices of ``ids`` (``text`` encoded by ``tokenizer``) where a piece of its
    pre-tokenizer starts. A special token is a piece; so is each whitespace byte of
    ``words``, which is never merged.

    >>> gpt4 = Tokenizer.from_merges([], pretokenizer="gpt4")
    >>> piece_starts(gpt4, "ab 12345", gpt4.encode("ab 12345"))
    [0, 2, 3, 6]
    """
    parts, kinds = pretokenize_text(
        text,
        tokenizer.pretokenizer,
        special_tokens=tokenizer.special_tokens,
        pattern=tokenizer.pattern,
    )
    cuts: set[int] = set()
    offset = 0
    for part, kind in zip(parts, kinds, strict=True):
        size = len(to_bytes(part))
        cuts.update(range(offset, offset + size) if kind is PieceKind.FIXED else (offset,))
        offset += size
    starts: list[int] = []
    offset = 0
    for index, token_id in enumerate(ids):
        if offset in cuts:
            starts.append(index)
        offset += len(tokenizer.decode_bytes([token_id]))
    return starts


def tokens_data(
    tokenizer: Tokenizer,
    ids: Sequence[int],
    *,
    marks: Sequence[str] | None = None,
    pieces: Sequence[int] | None = None,
    show: str = "text",
    group: bool = True,
    inspect: bool = True,
    scroll: bool = True,
) -> dict[str, Any]:
    """The record of ``ids`` for the browser's token spans (schema in the module docstring).

    ``pieces`` are token indices (:func:`piece_starts`); given, they are outlined with the
    tokenizer's pre-tokenizer rule above them.

    >>> data = tokens_data(Tokenizer.from_merges([(97, 97)]), [256, 98])
    >>> data["ids"], data["parents"], sorted(data["vocab"])
    ([256, 98], {'256': [97, 97, 1]}, ['256', '97', '98'])
    """
    if show not in SHOWS:
        raise ValueError(f"show must be one of {', '.join(SHOWS)}, got {show!r}")
    ids = [int(token_id) for token_id in ids]
    if marks is not None:
        marks = [str(mark) for mark in marks]
        if len(marks) != len(ids) or not set(marks) <= set(MARKS):
            raise ValueError(
                f"marks must be one of {MARKS} per token: {len(marks)} marks for {len(ids)} ids"
            )
    parents = token_parents(tokenizer, ids)
    drawn = dict.fromkeys(ids)
    for left, right, _ in parents.values():
        drawn.setdefault(left)
        drawn.setdefault(right)
    return {
        "schema": SCHEMA,
        "kind": "tokens",
        "vocab": {str(token_id): token_entry(tokenizer, token_id) for token_id in drawn},
        "ids": ids,
        "marks": marks,
        "pieces": [int(index) for index in pieces] if pieces is not None else None,
        "pieces_rule": pieces_sentence(tokenizer.pretokenizer) if pieces is not None else "",
        "show": show,
        "group": group,
        "parents": {
            str(token_id): row(PARENT_FIELDS, left=left, right=right, number=number)
            for token_id, (left, right, number) in sorted(parents.items())
        },
        "unit": "rank" if tokenizer.ranks is not None else "merge",
        "inspect": inspect,
        "scroll": scroll,
    }
