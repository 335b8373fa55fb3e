"""AppTest: the Step page with the algorithm WordPiece, on the Hugging Face course's corpus.

The record the page hands the browser is checked against the course's corpus worked by hand
(``tests/js/wordpiece.test.mjs`` has the working): by score, merge 1 is ##g + ##s (1/20),
merge 2 h + ##u (a six-way tie at 1/36, broken by "first"), merge 3 hu + ##gs (1/15, not the
course's tie with hu + ##g, which scores 2/45). By frequency (the ``tokenizers`` library's
``WordPieceTrainer``), merge 1 is ##u + ##g, the pair that occurs 20 times.
"""

from __future__ import annotations

import json
from typing import Any

from apptest_support import new_app, plain, run
from test_page_step import view_data
from test_wordpiece_record import LONG, LONG_VOCAB, drawn_places

COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5


def wordpiece_app(**params: str) -> Any:
    return run(new_app(algo="wordpiece", src="paste", paste=COURSE, vocab="15", **params))


def label(record: dict[str, Any], token: int) -> str:
    entry = record["vocab"][token]
    return ("##" if entry[2] == 3 else "") + entry[0]


def merges(record: dict[str, Any]) -> list[str]:
    return [
        f"{label(record, left)} + {label(record, right)}"
        for left, right, *_ in record["merges"]
    ]


def test_the_view_gets_the_course_corpus_merges_by_score() -> None:
    at = wordpiece_app()
    assert not at.error, [plain(e.value) for e in at.error]
    record = json.loads(view_data(at)["payload"])
    assert record["algorithm"] == "wordpiece" and record["score_rule"] == "score"
    assert merges(record) == ["##g + ##s", "h + ##u", "hu + ##gs"]
    assert record["tokens"] == [113, 108, 93, 88]  # 36 words: 10·3 + 5·3 + 12·3 + 4·3 + 5·4
    first, second, third = (sentences[0] for sentences in record["sentences"])
    assert second.startswith("“h” + “##u” has the best score, 15 / (15 × 36) = 1/36")
    assert first.startswith("“##g” + “##s” has the best score, 5 / (20 × 5) = 1/20 ≈ 0.0500")
    assert "The most frequent pair, “##u” + “##g”, occurs 20 times" in first
    assert third.startswith("“hu” + “##gs” has the best score, 5 / (15 × 5) = 1/15")
    tie = record["sentences"][1][1]
    assert tie.startswith("6 pairs share the score 1/36 ≈ 0.0278")
    assert "The rule “first” picked “h” + “##u” because it appears first in the text." in tie
    assert "best score" in record["rule_sentence"] and "frequency rule" in record["rule_sentence"]


def test_the_frequency_rule_merges_the_most_frequent_pair_first() -> None:
    record = json.loads(view_data(wordpiece_app(wprule="frequency"))["payload"])
    assert record["score_rule"] == "frequency"
    assert merges(record)[0] == "##u + ##g"
    assert record["sentences"][0][0].startswith("“##u” + “##g” is the most frequent pair, 20 times")
    assert record["rule_sentence"].startswith("This run merges the most frequent pair")


def test_the_summary_names_the_algorithm_and_the_rule() -> None:
    at = wordpiece_app()
    shown = " ".join(str(node.proto) for node in at.main if getattr(node, "type", None) == "html")
    assert "WordPiece by score · vocab 15 · words · ties: first" in shown


def test_a_text_with_no_words_is_one_sentence() -> None:
    at = run(new_app(algo="wordpiece", src="paste", paste="   \n  ", vocab="15"))
    assert [plain(error.value) for error in at.error] == [
        "Cannot train: the text has no words: paste or upload some text to train on."
    ]
    assert not [node for node in at.main if getattr(node, "type", None) == "bidi_component"]


def test_the_downloads_are_wordpieces_score_table_and_merges() -> None:
    """Before merge 2 the course's corpus has six pairs (``test_wordpiece_tables`` works them
    by hand); the CSVs hold scores, not BPE's columns."""
    at = wordpiece_app(step="2")
    assert [button.label for button in at.get("download_button")] == [
        "Download the whole score table before merge 2 (CSV)",
        "Download merges 1–2 (CSV)",
    ]
    frequency = wordpiece_app(step="1", wprule="frequency")
    assert [button.label for button in frequency.get("download_button")] == [
        "Download the whole pair table before merge 1 (CSV)",
        "Download merge 1 (CSV)",
    ]


def test_a_long_text_draws_the_part_that_holds_the_merge() -> None:
    """``tests/test_wordpiece_record.py``'s long text, worked by hand: merge 1 is c + ##d at
    its start, merge 2 x + ##y at character 9,003, past the first 6,000 characters drawn. The
    view starts at the text's start; a step set elsewhere (as a link or the chart sets it) at
    merge 2 gets the part of the text where "xy" is."""
    late = LONG.find("xy")
    at = run(new_app(algo="wordpiece", src="paste", paste="x", vocab=str(LONG_VOCAB)))
    run(at.text_area(key="paste").input(LONG))
    assert not at.error, [plain(e.value) for e in at.error]
    first = json.loads(view_data(at)["payload"])
    assert first["window"]["from"] == 0 and not first["window"]["whole"]
    assert 2 not in first["death"]
    at.session_state["step"] = 2
    run(at)
    moved = json.loads(view_data(at)["payload"])
    assert merges(moved)[1] == "x + ##y"
    assert drawn_places(moved, 2) == [late + 1] and 0 < moved["window"]["from"] < late
    assert view_data(at)["start"]["step"] == 2
