"""Which tokens to outline, and the legend that says what an outline means.

A mark is a CSS class suffix on a span (``bpe-ps``, drawn by ``web/step.js``): the two
halves of each occurrence of the pair about to merge, or the token a merge just made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bpeviz.history import History, Segmentation

MARK_PAIR_START = "ps"  # left token of an occurrence of the pair about to merge
MARK_PAIR_END = "pe"  # right token of it
MARK_NEW = "new"  # a token the merge just made


def pair_marks(
    before_starts: np.ndarray,
    before_ends: np.ndarray,
    after_starts: np.ndarray,
    after_ends: np.ndarray,
    after_ids: np.ndarray,
    new_id: int,
) -> list[str]:
    """Marks for the tokens *before* a merge: the two halves of each occurrence it merges.

    Exact by construction: the occurrences replaced are the spans of the new token after the
    merge, so a token before it is a left half when it starts where a new token starts.
    """
    made = after_ids == new_id
    left = np.isin(before_starts, after_starts[made])
    right = np.isin(before_ends, after_ends[made])
    marks = np.full(len(before_starts), "", dtype=object)
    marks[left] = MARK_PAIR_START
    marks[right & ~left] = MARK_PAIR_END
    return marks.tolist()


def new_marks(ids: np.ndarray, new_id: int | None) -> list[str]:
    """Marks for the tokens *after* a merge: every token it made."""
    marks = np.full(len(ids), "", dtype=object)
    if new_id is not None:
        marks[ids == new_id] = MARK_NEW
    return marks.tolist()


def window(count: int, focus: int | None, size: int) -> tuple[int, int]:
    """Which tokens to draw when there are too many: ``[lo, hi)`` of at most ``size``.

    The window starts a little before ``focus`` (say, the first highlighted token).

    >>> window(100, None, 40), window(100, 90, 40), window(10, 5, 40)
    ((0, 40), (60, 100), (0, 10))
    """
    if count <= size:
        return 0, count
    lo = 0 if focus is None else max(0, focus - size // 10)
    lo = min(lo, count - size)
    return lo, lo + size


def first_marked(marks: Sequence[str]) -> int | None:
    """Index of the first marked token, if any."""
    for index, mark in enumerate(marks):
        if mark:
            return index
    return None


@dataclass(frozen=True)
class Outline:
    """What the Step page draws: the tokens, one mark each, and which legend explains them."""

    shown: Segmentation
    marks: list[str]
    legend: str | None  # "pair", "new" or None (nothing outlined)


def step_outline(history: History, k: int, *, before: bool) -> Outline:
    """The tokens shown at step ``k`` and which to outline.

    At a merge (``k >= 1``) the text is shown after it with the new token outlined, or
    (``before``) just before it with the two halves of each occurrence outlined. At step 0
    the text is the raw bytes with the pair merge 1 will join outlined, when there is one.

    >>> from bpeviz.history import train
    >>> history = train("abab", 258)
    >>> [(o.marks, o.legend) for o in (step_outline(history, k, before=b)
    ...  for k, b in ((0, False), (1, True), (1, False)))]  # doctest: +NORMALIZE_WHITESPACE
    [(['ps', 'pe', 'ps', 'pe'], 'pair'), (['ps', 'pe', 'ps', 'pe'], 'pair'),
     (['new', 'new'], 'new')]
    """
    after = history.segmentation(k)
    if k == 0 and history.merge_count == 0:
        return Outline(after, new_marks(after.ids, None), None)
    if k and not before:
        return Outline(after, new_marks(after.ids, history.steps[k - 1].new_id), "new")
    # the pair of merge max(k, 1), outlined in the text just before it
    merge = max(k, 1)
    shown, following = history.segmentation(merge - 1), history.segmentation(merge)
    marks = pair_marks(
        shown.starts,
        shown.ends,
        following.starts,
        following.ends,
        following.ids,
        history.steps[merge - 1].new_id,
    )
    return Outline(shown, marks, "pair")
