"""Tests for the merge-row schema (bpeviz.records.merge_rows) and its tables
(bpeviz.app.shared.tables): one shape for the Step table, the history CSV, the Export page and the
CLI's JSONL."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from bpeviz.app.shared.tables import MERGE_LABELS, merge_csv, merge_frame
from bpeviz.engine.history import train
from bpeviz.engine.samples import get_sample
from bpeviz.records.merge_rows import MERGE_COLUMNS, merge_rows


def test_a_hand_checked_row() -> None:
    """``aaabdaaabac``, rule ``first``. Step 2 by hand: after ``aa`` the text is
    [aa] a b d [aa] a b a c; (aa, a) and (a, b) both occur twice, (aa, a) comes first."""
    table = pd.read_csv(io.BytesIO(merge_csv(train("aaabdaaabac", 259))), keep_default_na=False)
    assert list(table.columns) == list(MERGE_COLUMNS)
    assert len(table) == 3
    row = table.iloc[1].to_dict()
    assert row == {
        "merge": 2,
        "left_id": 256,
        "right_id": 97,
        "new_id": 257,
        "left": "aa",
        "right": "a",
        "token": "aaa",
        "token_hex": 616161,  # read back as a number: the hex digits of "aaa" are all digits
        "count": 2,
        "replacements": 2,
        "tied": "[aa][a] [a][b]",
        "tied_ids": "[[256, 97], [97, 98]]",
        "more_tied": False,
        "rule": "first",
        "tokens_after": 7,
    }
    first = table.iloc[0]
    # aa occurs 4 times counting overlaps (aaa has two) but only 2 are replaced.
    assert (first["count"], first["replacements"], first["tied"]) == (4, 2, "")
    assert table["tokens_after"].tolist() == [9, 7, 5]


def test_the_wikipedia_walk_through_with_lexmin() -> None:
    """Wikipedia's aaabdaaabac with lexmin: Z=aa, Y=ab, X=ZY."""
    history = train("aaabdaaabac", 259, tie_break="lexmin")
    frame = merge_frame(history, 3)
    assert frame["token"].tolist() == ["aa", "ab", "aaab"]
    assert frame["new_id"].tolist() == [256, 257, 258]
    assert frame[["left", "right"]].values.tolist() == [["a", "a"], ["a", "b"], ["aa", "ab"]]
    assert merge_frame(history, 2, newest_first=True)["merge"].tolist() == [2, 1]
    assert merge_frame(history, 0).empty


@pytest.mark.parametrize("k", [-1, 4])
def test_steps_out_of_range_are_rejected(k: int) -> None:
    with pytest.raises(ValueError, match="out of range"):
        merge_rows(train("aaabdaaabac", 259), k)


def test_the_csv_has_one_row_per_merge_and_stops_at_k() -> None:
    history = train(get_sample("english").text, 300)
    full = pd.read_csv(io.BytesIO(merge_csv(history)), keep_default_na=False)
    assert len(full) == history.merge_count
    assert full["count"].tolist() == [step.count for step in history.steps]
    partial = pd.read_csv(io.BytesIO(merge_csv(history, 5)), keep_default_na=False)
    assert partial["merge"].tolist() == [1, 2, 3, 4, 5]


def test_spaces_and_broken_utf8_are_readable() -> None:
    frame = merge_frame(train(" 日 日", 258))
    assert frame["token"].tolist() == ["␣<E6>", "␣<E6><97>"]
    assert frame[["left", "right"]].values.tolist()[0] == ["␣", "<E6>"]
    assert frame["token_hex"].tolist() == ["20e6", "20e697"]


def test_a_run_with_no_merges_is_a_header_only() -> None:
    text = merge_csv(train("a", 300)).decode("utf-8")
    assert text.strip() == ",".join(MERGE_COLUMNS)


def test_the_page_labels_name_real_columns() -> None:
    assert set(MERGE_LABELS) <= set(MERGE_COLUMNS)
