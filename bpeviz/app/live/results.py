"""A live class's results, to download during and after class: for each question the class
answered, what it asked (which pair merge N joins, or which token Unigram's round N removes),
the four pairs or tokens offered, the right ones, how many chose each and who chose which (a
nickname, or "Student N" in the order students joined).

The teacher's browser keeps them (``web/live/class_results.js``: the server tells the teacher
who answered what at each reveal) and hands them to the app; they are checked here as any
data from a browser, and written as JSON and as CSV (formula-safe,
:mod:`~bpeviz.app.shared.csv_cells`).
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from bpeviz.app.shared.csv_cells import csv_bytes

CHOICES = 4  # the quiz's rows: 0 (the real next merge) to 3
MAX_QUESTIONS = 200
MAX_ANSWERS = 1_000  # per question (a class holds 200 students)
MAX_TEXT = 200  # characters of a pair's words or a student's name
# What a question asks about, by the browser's word: a merge's pair, or a round's token.
ASKED = ("merge", "round")
CSV_COLUMNS = (
    "question", "asked", "number", "choice", "offered", "right", "chosen_by", "students",
)  # fmt: skip


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and len(value) <= MAX_TEXT else None


def _row(value: Any) -> int | None:
    return value if type(value) is int and 0 <= value < CHOICES else None


def _question(raw: Any) -> dict[str, Any] | None:
    """One question as the browser kept it, or ``None`` when any part is not as written."""
    if not isinstance(raw, dict):
        return None
    step, choices, right, counts, answers = (
        raw.get(name) for name in ("step", "choices", "right_rows", "counts", "answers")
    )
    asked = raw.get("unit", "merge")  # a page from before Unigram's quiz sent none
    if type(step) is not int or step < 0 or asked not in ASKED:
        return None
    lists = (choices, right, counts, answers)
    if not all(isinstance(part, list) for part in lists) or len(answers) > MAX_ANSWERS:
        return None
    words = [_text(choice) for choice in choices]
    rows = [_row(row) for row in right]
    people = [
        (_text(entry[0]), _row(entry[1]))
        for entry in answers
        if isinstance(entry, list) and len(entry) == 2
    ]
    if (
        len(words) != CHOICES
        or None in words
        or None in rows
        or 0 not in rows
        or len(counts) != CHOICES
        or not all(type(n) is int and n >= 0 for n in counts)
        or len(people) != len(answers)
        or any(None in person for person in people)
    ):
        return None
    return {
        "step": step,
        "asked": asked,
        "number": step + 1,
        "choices": words,
        "right_rows": sorted(set(rows)),
        "counts": counts,
        "answers": [{"student": who, "choice": row} for who, row in people],
    }


def checked_results(raw: Any) -> list[dict[str, Any]]:
    """The questions of ``raw`` that are whole and well formed (others are left out), at
    most :data:`MAX_QUESTIONS`, in the order asked.

    >>> checked_results([{"step": 2, "choices": ["a", "b", "c", "d"], "right_rows": [0],
    ...   "counts": [1, 0, 0, 0], "answers": [["Ada", 0]]}, "junk"])[0]["answers"]
    [{'student': 'Ada', 'choice': 0}]
    """
    if not isinstance(raw, list):
        return []
    questions = (_question(item) for item in raw[:MAX_QUESTIONS])
    return [question for question in questions if question is not None]


def results_json(code: str, questions: list[dict[str, Any]]) -> bytes:
    """The results as JSON: the class's code and its questions (:func:`checked_results`)."""
    return json.dumps({"class": code, "questions": questions}, ensure_ascii=False, indent=1).encode(
        "utf-8"
    )


def results_frame(questions: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per question and choice offered: what the question asked ("merge" or "round",
    and its number), the pair's or token's words, whether it was right, how many chose it and
    who (names joined by "; ")."""
    rows = []
    for number, question in enumerate(questions, start=1):
        for choice, offered in enumerate(question["choices"]):
            names = [a["student"] for a in question["answers"] if a["choice"] == choice]
            rows.append(
                (number, question["asked"], question["number"], choice, offered,
                 choice in question["right_rows"], question["counts"][choice], "; ".join(names))
            )  # fmt: skip
    return pd.DataFrame(rows, columns=list(CSV_COLUMNS))


def results_csv(questions: list[dict[str, Any]]) -> bytes:
    """:func:`results_frame` as CSV, every text cell formula-safe."""
    return csv_bytes(results_frame(questions))
