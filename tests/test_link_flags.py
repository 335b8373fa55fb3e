"""Every on/off setting a link carries reads ``1``, ``true`` and ``yes`` as on (and ``0``,
``false``, ``no`` as off), whatever page or widget it belongs to: one rule
(:func:`bpeviz.app.frame.links.link_flag`), so ``?present=1`` works as ``?quiz=1`` does."""

from __future__ import annotations

import json

import pytest
from apptest_support import new_app, open_page, run

from bpeviz.app.frame.links import link_flag


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1", True), ("true", True), ("yes", True), ("TRUE", True), ("Yes", True),
     ("0", False), ("false", False), ("no", False), ("2", None), ("", None), ("on!", None)],
)  # fmt: skip
def test_link_flag_reads_the_three_spellings(text: str, expected: bool | None) -> None:
    assert link_flag(text) is expected


@pytest.mark.parametrize("spelling", ["1", "true", "yes"])
def test_presentation_mode_from_any_spelling(spelling: str) -> None:
    at = run(new_app(present=spelling))
    assert at.toggle(key="present").value is True


@pytest.mark.parametrize("spelling", ["1", "true", "yes"])
def test_the_step_views_quiz_and_pieces_from_any_spelling(spelling: str) -> None:
    at = run(new_app(quiz=spelling, pieces=spelling, step="2"))
    views = [node for node in at.main if getattr(node, "type", None) == "bidi_component"]
    proto = views[0].proto
    data = json.loads(proto.mixed.json if proto.WhichOneof("data") == "mixed" else proto.json)
    assert data["start"]["quiz"] is True and data["start"]["pieces"] is True


def test_the_end_of_word_marker_from_yes() -> None:
    at = run(new_app(pretok="words", eow="yes"))
    assert at.checkbox(key="eow").value is True
    assert not at.warning


def test_the_tokenize_pages_pieces_from_yes() -> None:
    at = open_page("app_pages/tokenize.py", tok_pieces="yes")
    assert at.toggle(key="tok_pieces").value is True
    assert not at.warning


def test_the_two_runs_end_of_word_marker_from_1() -> None:
    at = open_page("app_pages/two_runs.py", runs_a_pretok="words", runs_a_eow="1")
    assert at.checkbox(key="runs_a_eow").value is True
    assert not at.warning
