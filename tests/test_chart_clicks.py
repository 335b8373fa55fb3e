"""Tests for bpeviz.app.shared.chart_clicks: a click on the Compression chart → the Step page's
merge.

The selection payloads are the shape Streamlit hands a page for a point selection with
``fields`` (a list of the picked points' field values, keyed by the selection's name).
"""

from __future__ import annotations

import pytest

from bpeviz.app.frame.run_settings import Settings, settings_from_state
from bpeviz.app.shared.chart_clicks import (
    StepTarget,
    change_sentence,
    click_undo,
    picked_point,
    step_settings,
    step_target,
)
from bpeviz.engine.history import train

SAMPLES = {"English": "english", "Japanese": "japanese"}
MERGES = {"English": 768, "Japanese": 700}


@pytest.mark.parametrize(
    "selection, expected",
    [
        ({"pick": [{"trained_on": "English", "merges": 120}]}, StepTarget("english", 120)),
        ({"pick": [{"trained_on": "Japanese", "merges": 0}]}, StepTarget("japanese", 0)),
        # a float from the browser, and shift-click: the last point counts
        (
            {
                "pick": [
                    {"trained_on": "English", "merges": 3},
                    {"trained_on": "Japanese", "merges": 9.0},
                ]
            },
            StepTarget("japanese", 9),
        ),
        # beyond the run (a curve longer than its run cannot exist, but a stale click can)
        ({"pick": [{"trained_on": "Japanese", "merges": 5000}]}, StepTarget("japanese", 700)),
        ({"pick": {"trained_on": "English", "merges": 7}}, StepTarget("english", 7)),
        ({"pick": []}, None),
        ({}, None),
        ({"pick": [{"trained_on": "cl100k_base", "merges": 3}]}, None),
        ({"pick": [{"trained_on": "English"}]}, None),
        ({"pick": [{"trained_on": "English", "merges": "3"}]}, None),
        ({"nearest": [{"trained_on": "English", "merges": 3}]}, None),  # a hover, not a click
    ],
    ids=[
        "english",
        "japanese-start",
        "shift-click",
        "clamped",
        "one-dict",
        "cleared",
        "empty",
        "unknown-run",
        "no-merges",
        "text-merges",
        "other-param",
    ],
)
def test_step_target(selection, expected) -> None:
    assert step_target(selection, samples=SAMPLES, merge_counts=MERGES) == expected


def test_picked_point_ignores_junk() -> None:
    assert picked_point({"pick": [None, 3, {"merges": 1}]}) == {"merges": 1}
    assert picked_point({"pick": None}) is None


def test_the_settings_train_the_clicked_run_on_the_step_page() -> None:
    """The sidebar state reads back as the chart's run: same sample, vocab, rule, no extras,
    so the Step page's history is the chart's (the cache key is the same), and its step k
    has the token count the curve showed."""
    state = step_settings(
        StepTarget("aaabdaaabac", 2), vocab_size=259, pretokenizer="bytes", tie_break="first"
    )
    settings = settings_from_state(state)
    assert settings == Settings(
        source="sample",
        sample_key="aaabdaaabac",
        vocab_size=259,
        pretokenizer="bytes",
        tie_break="first",
    )
    # aaabdaaabac under first: 11, 9, 7, 5 tokens after 0..3 merges (see tests/test_runs.py)
    history = train("aaabdaaabac", settings.vocab_size, tie_break=settings.tie_break)
    assert history.token_count(2) == 7


def test_the_change_sentence_names_each_setting_the_click_changed() -> None:
    """Sidebar on the ties sample (vocab 300, words, lexmin); a click on the Japanese curve
    of a 1,024 chart (gpt4, first): four settings change, </w> and specials do not."""
    before = {"algo": "bpe", "src": "sample", "sample": "ties", "vocab": 300, "pretok": "words",
              "tie": "lexmin", "eow": False, "special": ""}  # fmt: skip
    after = {**before, **step_settings(StepTarget("japanese", 5), vocab_size=1024,
                                       pretokenizer="gpt4", tie_break="first")}  # fmt: skip
    assert change_sentence(before, after) == (
        "The chart click changed the sidebar: sample ties → japanese, vocab size 300 → 1,024, "
        "pre-tokenizer words → gpt4, tie rule lexmin → first."
    )
    assert change_sentence(after, after) is None


def test_undoing_a_click_gives_back_the_settings_and_the_step() -> None:
    before = {"algo": "bpe", "src": "paste", "sample": "english", "vocab": 512,
              "pretok": "gpt2", "tie": "first", "eow": True, "special": "<|x|>",
              "step": 7}  # fmt: skip
    undo = click_undo(before, step_settings(StepTarget("english", 120), vocab_size=768,
                                            pretokenizer="gpt4", tie_break="first"))  # fmt: skip
    assert undo.restore == {"src": "paste", "vocab": 512, "pretok": "gpt2", "eow": True,
                            "special": "<|x|>", "step": 7}  # fmt: skip
    assert undo.sentence.startswith("The chart click changed the sidebar: source paste → sample")


def test_a_click_on_a_bpe_curve_under_wordpiece_opens_the_bpe_run() -> None:
    """The Compression page's curves are BPE's: a click with WordPiece in the sidebar opens
    that BPE run (not a WordPiece run of the sample), says so, and the undo gives it back."""
    before = {"algo": "wordpiece", "src": "sample", "sample": "english", "vocab": 512,
              "pretok": "words", "tie": "first", "eow": False, "special": "",
              "step": 3}  # fmt: skip
    changed = step_settings(StepTarget("english", 40), vocab_size=512, pretokenizer="gpt4",
                            tie_break="first")  # fmt: skip
    assert settings_from_state({**before, **changed}).algorithm == "bpe"
    undo = click_undo(before, changed)
    assert undo.sentence == (
        "The chart click changed the sidebar: algorithm wordpiece → bpe, pre-tokenizer words → "
        "gpt4."
    )
    assert undo.restore == {"algo": "wordpiece", "pretok": "words", "step": 3}


def test_a_click_on_a_wordpiece_curve_opens_that_wordpiece_run() -> None:
    """A point of the Compression page's dash-dot curve (``English · WordPiece``) leads to the
    WordPiece run it was drawn from: the sample, WordPiece by score with BERT's pre-tokenizer
    at the chart's vocab size, that merge; a BPE point still leads to BPE."""
    merges = {**MERGES, "English · WordPiece": 400}
    wordpiece = {"English · WordPiece": "english"}
    picked = {"pick": [{"trained_on": "English · WordPiece", "merges": 120}]}
    target = step_target(picked, samples=SAMPLES, merge_counts=merges, wordpiece=wordpiece)
    assert target == StepTarget("english", 120, algorithm="wordpiece")
    runs = {"samples": SAMPLES, "merge_counts": merges, "wordpiece": wordpiece}
    clamped = {"pick": [{"trained_on": "English · WordPiece", "merges": 999}]}
    assert step_target(clamped, **runs) == StepTarget("english", 400, algorithm="wordpiece")
    bpe = {"pick": [{"trained_on": "English", "merges": 120}]}
    assert step_target(bpe, **runs) == StepTarget("english", 120)
    state = step_settings(target, vocab_size=512, pretokenizer="bert", tie_break="first")
    settings = settings_from_state(state)
    assert settings == Settings(
        algorithm="wordpiece",
        score_rule="score",
        source="sample",
        sample_key="english",
        vocab_size=512,
        pretokenizer="bert",
        tie_break="first",
    )
    before = {"algo": "bpe", "wprule": "frequency", "src": "sample", "sample": "english",
              "vocab": 512, "pretok": "gpt4", "tie": "first", "eow": False,
              "special": ""}  # fmt: skip
    assert change_sentence(before, {**before, **state}) == (
        "The chart click changed the sidebar: algorithm bpe → wordpiece, WordPiece rule "
        "frequency → score, pre-tokenizer gpt4 → bert."
    )
