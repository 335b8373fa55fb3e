"""Merging one pair wherever it occurs, over a linked list of tokens: the inner loop that BPE's
trainer (``trainer.py``) and WordPiece's (``wordpiece.py``) share.

Both keep the text as a buffer of positions: ``seq[i]`` is the token that lives at position
``i`` (-1 once merged into the token before it), ``nxt``/``prv`` link the live positions of a
piece of text (-1 at its edges), ``weight[i]`` is how often that piece occurs, and ``counts``
maps a pair key ``left << SHIFT | right`` to its weighted count. Merging ``(a, b)`` into
``new`` at position ``i`` turns the pair before it ``(p, a)`` into ``(p, new)`` and the one
after it ``(b, q)`` into ``(new, q)``. The pairs lost are counted down in place here; the
pairs made, all holding ``new``, are gathered by their other token, for the trainer to count
and queue as its rule wants.

Left out: choosing the pair, and queueing what changed (each trainer's own).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, MutableSequence

SHIFT = 21  # pair key: left << SHIFT | right (ids stay below 2**21)
MASK = (1 << SHIFT) - 1


class Merged:
    """What one merge changed, besides the buffer and the lost pairs' counts.

    ``before[x]``/``before_at[x]``: the count and positions (ascending) of the new pair
    ``(x, new)``; ``after[y]``/``after_at[y]``: those of ``(new, y)``. A count may be zero or
    less (``abab``: the first merge's ``(new, a)`` is undone by the second). ``joined``: the
    positions whose token merged into the one before; ``emptied``: the pairs whose count fell
    to zero (removed from ``counts``); ``replacements``: the merges made, weighted.
    """

    __slots__ = ("after", "after_at", "before", "before_at", "emptied", "joined", "replacements")

    def __init__(self) -> None:
        self.before: defaultdict[int, int] = defaultdict(int)
        self.before_at: defaultdict[int, list[int]] = defaultdict(list)
        self.after: defaultdict[int, int] = defaultdict(int)
        self.after_at: defaultdict[int, list[int]] = defaultdict(list)
        self.joined: list[int] = []
        self.emptied: list[int] = []
        self.replacements = 0

    def made(self, new_id: int) -> Iterable[tuple[int, int, list[int]]]:
        """Each new pair as ``(key, count, positions)``, ``(x, new)`` ones first."""
        for other, count in self.before.items():
            yield other << SHIFT | new_id, count, self.before_at[other]
        high = new_id << SHIFT
        for other, count in self.after.items():
            yield high | other, count, self.after_at[other]


def count_down(counts: dict[int, int], keys: Iterable[int], amounts: Iterable[int]) -> list[int]:
    """Take ``amounts`` off the counts of ``keys``; remove those that reach zero and return
    them. (``merge_pair`` does the same inline, twice an occurrence: a call there would cost
    a tenth of its time.)

    >>> counts = {1: 5, 2: 3}
    >>> count_down(counts, [1, 2], [2, 3]), counts
    ([2], {1: 3})
    """
    emptied = []
    for key, amount in zip(keys, amounts, strict=True):
        if left := counts[key] - amount:
            counts[key] = left
        else:
            del counts[key]
            emptied.append(key)
    return emptied


def merge_pair(
    holders: Iterable[int],
    a: int,
    b: int,
    new_id: int,
    seq: MutableSequence[int],
    nxt: MutableSequence[int],
    prv: MutableSequence[int],
    weight: MutableSequence[int],
    counts: dict[int, int],
) -> Merged:
    """Merge ``(a, b)`` into ``new_id`` at each of ``holders`` (ascending positions, some
    stale: skipped) where it still occurs, left to right, so overlaps merge once (``aaa``).

    >>> seq, nxt, prv = [1, 2, 1, 2], [1, 2, 3, -1], [-1, 0, 1, 2]  # a b a b, one word
    >>> counts = {1 << SHIFT | 2: 2, 2 << SHIFT | 1: 1}
    >>> merged = merge_pair([0, 2], 1, 2, 9, seq, nxt, prv, [1, 1, 1, 1], counts)
    >>> seq, counts == {1 << SHIFT | 2: 2}, merged.emptied == [2 << SHIFT | 1], merged.joined
    ([9, -1, 9, -1], True, True, [1, 3])
    >>> [(key >> SHIFT, key & MASK, count) for key, count, _ in merged.made(9) if count > 0]
    [(9, 9, 1)]
    """
    merged = Merged()
    before, before_at, after, after_at = (
        merged.before,
        merged.before_at,
        merged.after,
        merged.after_at,
    )
    joined, emptied = merged.joined, merged.emptied
    b_high = b << SHIFT
    replacements = 0
    for i in holders:
        if seq[i] != a:
            continue  # stale: this occurrence went in an earlier merge
        j = nxt[i]
        if j < 0 or seq[j] != b:
            continue
        w = weight[i]
        p = prv[i]
        if p >= 0:
            x = seq[p]
            if x == new_id:  # a token of new_id before: its (new, a) goes (abab)
                after[a] -= w
            else:
                lost = x << SHIFT | a
                if left := counts[lost] - w:
                    counts[lost] = left
                else:
                    del counts[lost]
                    emptied.append(lost)
            before[x] += w
            before_at[x].append(p)
        k = nxt[j]
        if k >= 0:
            y = seq[k]
            lost = b_high | y
            if left := counts[lost] - w:
                counts[lost] = left
            else:
                del counts[lost]
                emptied.append(lost)
            after[y] += w
            after_at[y].append(i)
            prv[k] = i
        seq[i] = new_id
        seq[j] = -1
        nxt[i] = k
        joined.append(j)
        replacements += w
    merged.replacements = replacements
    return merged
