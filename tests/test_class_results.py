"""A live class's results (issue 28): what the teacher's browser hands the app is checked as
any browser data, and written as JSON and formula-safe CSV. Expected values are worked by
hand from the two questions below."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from bpeviz.app.live.results import checked_results, results_csv, results_json

QUESTIONS: list[Any] = [
    {"step": 0, "choices": ["“h” + “e”", "“t” + “h”", "“ ” + “t”", "“a” + “n”"],
     "right_rows": [0], "counts": [1, 1, 0, 0], "answers": [["Ada", 0], ["=1+2", 1]]},
    {"step": 1, "choices": ["w", "x", "y", "z"], "right_rows": [0, 2],
     "counts": [0, 0, 2, 0], "answers": [["Ada", 2], ["Student 2", 2]]},
]  # fmt: skip
# Unigram's class quiz: which of four tokens round 2 removes (row 0 the one it does).
UNIGRAM = {"step": 1, "unit": "round", "choices": ["“lo”", "“we”", "“ow”", "“er”"],
           "right_rows": [0], "counts": [0, 1, 0, 0], "answers": [["Ada", 1]]}  # fmt: skip


def test_the_json_holds_each_question_and_each_students_answer() -> None:
    data = json.loads(results_json("K7QM4X", checked_results(QUESTIONS)))
    assert data["class"] == "K7QM4X"
    first, second = data["questions"]
    assert first["asked"] == "merge" and first["number"] == 1  # sent with no unit: a merge
    assert first["counts"] == [1, 1, 0, 0]
    assert first["answers"] == [{"student": "Ada", "choice": 0}, {"student": "=1+2", "choice": 1}]
    assert second["right_rows"] == [0, 2]


def test_the_csv_has_a_row_per_pair_offered_and_a_formula_stays_text() -> None:
    rows = list(csv.DictReader(io.StringIO(results_csv(checked_results(QUESTIONS)).decode())))
    assert len(rows) == 8
    assert rows[0] == {"question": "1", "asked": "merge", "number": "1", "choice": "0",
                       "offered": "“h” + “e”", "right": "True", "chosen_by": "1",
                       "students": "Ada"}  # fmt: skip
    assert rows[1]["students"] == "'=1+2"  # a spreadsheet reads it as text
    assert rows[6]["students"] == "Ada; Student 2" and rows[6]["right"] == "True"


def test_a_unigram_question_is_a_round_and_its_tokens_not_a_merge_and_pairs() -> None:
    """Unigram's class quiz asks which token round 2 removes: the results say "round" and
    name the tokens, under columns that do not call them a merge or pairs."""
    data = json.loads(results_json("K7QM4X", checked_results([QUESTIONS[0], UNIGRAM])))
    assert [(q["asked"], q["number"]) for q in data["questions"]] == [("merge", 1), ("round", 2)]
    text = results_csv(checked_results([UNIGRAM])).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert not {"merge", "pair"} & set(rows[0])
    assert [(r["asked"], r["number"], r["offered"], r["students"]) for r in rows] == [
        ("round", "2", "“lo”", ""), ("round", "2", "“we”", "Ada"),
        ("round", "2", "“ow”", ""), ("round", "2", "“er”", ""),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "broken",
    [
        {"step": -1},
        {"choices": ["a", "b", "c"]},
        {"right_rows": [1]},  # row 0, the real next merge, is always right
        {"right_rows": [0, 4]},
        {"counts": [1, 1, 0, "0"]},
        {"answers": [["Ada", 5]]},
        {"answers": [["x" * 201, 0]]},
        {"answers": [[None, 0]]},
        {"unit": "token"},  # a question asks about a merge or a round
    ],
    ids=str,
)
def test_a_question_not_as_written_is_left_out(broken: dict[str, Any]) -> None:
    assert checked_results([{**QUESTIONS[0], **broken}, QUESTIONS[1]]) == checked_results(
        [QUESTIONS[1]]
    )


def test_anything_but_a_list_is_no_results() -> None:
    assert checked_results({"step": 0}) == [] and checked_results(None) == []
