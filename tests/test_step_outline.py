"""The test oracle of the Step page's outlines (``tests/step_outline.py``) against examples
counted by hand.

The browser tests and ``tests/js`` hold the Step page's own outlines (``viewAt`` in
``bpeviz/web/core/record.js``) equal to this oracle at every step of several runs; an oracle wrong
the same way as the page would hide the page's bug, so here the oracle meets hand-worked
answers (``tests/test_web_js.py`` gives the page the same aaabdaaabac counts).
"""

from __future__ import annotations

import numpy as np
from step_outline import new_marks, pair_marks, step_outline

from bpeviz.engine.history import train
from bpeviz.records.schema import Mark

# ---- the marks of one merge -----------------------------------------------------------------


def test_pair_marks_are_exactly_the_occurrences_merged_left_to_right() -> None:
    """aaabdaaabac: merge 1 (lexmin) is (a, a); in each "aaa" only the first two merge."""
    history = train("aaabdaaabac", 259, tie_break="lexmin")
    before, after = history.segmentation(0), history.segmentation(1)
    marks = pair_marks(
        before.starts, before.ends, after.starts, after.ends, after.ids, history.steps[0].new_id
    )
    assert marks == ["ps", "pe", "", "", "", "ps", "pe", "", "", "", ""]
    assert marks.count(Mark.PAIR_START) == history.steps[0].replacements


def test_pair_marks_do_not_cross_piece_boundaries() -> None:
    """gpt4 cuts digits in threes: "34 34 1234" is ``34`` ``␣`` ``34`` ``␣`` ``123`` ``4``.
    Merge 1 is (3, 4), twice (inside the two ``34``); the "3" then "4" of ``1234`` lie across
    a piece boundary, so they are never merged and must not be marked."""
    history = train("34 34 1234", 257, pretokenizer="gpt4")
    step = history.steps[0]
    assert step.pair == (ord("3"), ord("4")) and step.replacements == 2
    before, after = history.segmentation(0), history.segmentation(1)
    marks = pair_marks(before.starts, before.ends, after.starts, after.ends, after.ids, step.new_id)
    assert marks == ["ps", "pe", "", "ps", "pe", "", "", "", "", ""]
    marked = [
        history.text[s:e] for s, e, m in zip(before.starts, before.ends, marks, strict=True) if m
    ]
    assert marked == [b"3", b"4", b"3", b"4"]


def test_new_marks_flag_every_new_token() -> None:
    ids = np.array([256, 97, 256, 98])
    assert new_marks(ids, 256) == [Mark.NEW, "", Mark.NEW, ""]
    assert new_marks(ids, None) == ["", "", "", ""]


# ---- the outline at a step, before or after its merge ---------------------------------------


def test_step_outline_at_a_merge_outlines_the_new_tokens_after_it() -> None:
    """``aaabdaaabac`` (rule first), merge 1 makes aa: aa|a|b|d|aa|a|b|a|c, two new tokens."""
    history = train("aaabdaaabac", 259)
    outline = step_outline(history, 1, before=False)
    assert outline.legend == "new"
    assert len(outline.shown) == 9
    assert [i for i, mark in enumerate(outline.marks) if mark] == [0, 4]
    assert set(outline.marks) == {"", Mark.NEW}


def test_step_outline_before_a_merge_outlines_both_halves_of_each_occurrence() -> None:
    """Merge 2 joins aa + a: before it the text is aa|a|b|d|aa|a|b|a|c."""
    history = train("aaabdaaabac", 259)
    outline = step_outline(history, 2, before=True)
    assert outline.legend == "pair"
    assert len(outline.shown) == 9
    assert outline.marks[:2] == [Mark.PAIR_START, Mark.PAIR_END]
    assert outline.marks[4:6] == [Mark.PAIR_START, Mark.PAIR_END]
    assert [mark for mark in outline.marks if mark] == [Mark.PAIR_START, Mark.PAIR_END] * 2


def test_step_outline_at_step_0_outlines_the_pair_merge_1_joins() -> None:
    """Before any merge: the 11 bytes, with a+a outlined where merge 1 replaces it
    (positions 0-1 and 5-6; the overlapping third a of aaa is not replaced)."""
    history = train("aaabdaaabac", 259)
    outline = step_outline(history, 0, before=False)
    assert outline.legend == "pair" and len(outline.shown) == 11
    assert [i for i, mark in enumerate(outline.marks) if mark] == [0, 1, 5, 6]
    at_start = step_outline(history, 0, before=True)  # there is no "after" at step 0
    assert (at_start.marks, at_start.legend) == (outline.marks, outline.legend)


def test_step_outline_with_nothing_to_merge_outlines_nothing() -> None:
    outline = step_outline(train("a", 300), 0, before=False)
    assert outline.legend is None and outline.marks == [""]
