"""The test oracle of which tokens the Step page outlines, from :class:`History` directly.

The browser cuts the text and picks its marks from the step record (``viewAt`` in
``bpeviz/web/core/record.js``); this computes the same from ``History.segmentation`` by another
route (comparing the tokens just before and just after a merge), so the two can be held equal
(``tests/js``, ``tests/browser/test_step_view.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bpeviz.engine.history import History, Segmentation
from bpeviz.records.schema import Mark


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
    merge, so a token before it is a left half when it starts where a new token starts, and a
    right half when it ends where one ends and starts where a left half ends (a ``</w>``
    marker spans no bytes: ending where the pair ends does not make it part of it).
    """
    made = after_ids == new_id
    left = np.isin(before_starts, after_starts[made])
    right = np.isin(before_ends, after_ends[made]) & np.isin(before_starts, before_ends[left])
    marks = np.full(len(before_starts), "", dtype=object)
    marks[left] = Mark.PAIR_START
    marks[right & ~left] = Mark.PAIR_END
    return marks.tolist()


def new_marks(ids: np.ndarray, new_id: int | None) -> list[str]:
    """Marks for the tokens *after* a merge: every token it made."""
    marks = np.full(len(ids), "", dtype=object)
    if new_id is not None:
        marks[ids == new_id] = Mark.NEW
    return marks.tolist()


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

    >>> from bpeviz.engine.history import train
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
