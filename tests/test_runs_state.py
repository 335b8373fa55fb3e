"""Tests for bpeviz.app.two_runs.state: the Two runs page's presets and widget state."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest

from bpeviz.app.two_runs.parting import first_difference, merges_of
from bpeviz.app.two_runs.state import (
    KEY_STEP,
    PRESETS,
    matching_preset,
    preset,
    preset_state,
    run_settings,
    widget_key,
)
from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.history import train
from bpeviz.engine.samples import get_sample


def test_presets_show_what_they_say() -> None:
    """Each preset's sample exists, its runs differ at its step, and the pieces preset's
    claim holds: the most frequent byte pair of the English sample, counted here with a
    plain Counter, is e followed by a space."""
    assert [p.key for p in PRESETS] == ["pieces", "ties"]
    english = get_sample("english").text.encode()
    pairs = Counter(pairwise(english))
    assert max(pairs, key=pairs.__getitem__) == (ord("e"), ord(" "))
    for item in PRESETS:
        text = get_sample(item.sample_key).text
        runs = [
            merges_of(
                train(
                    text,
                    settings.vocab_size,
                    pretokenizer=settings.pretokenizer,
                    tie_break=settings.tie_break,
                )
            )
            for settings in (item.a, item.b)
        ]
        difference = first_difference(*runs)
        assert difference is not None and difference.step == item.step, item.key
    assert preset("ties").a.tie_break == "first"
    with pytest.raises(ValueError, match="known: pieces, ties"):
        preset("nope")


def test_a_preset_round_trips_through_the_widgets_state() -> None:
    """The state a preset writes reads back as its two runs, and is recognised as it."""
    for item in PRESETS:
        state = preset_state(item)
        assert state["src"] == "sample" and state["sample"] == item.sample_key
        assert state[KEY_STEP] == item.step
        a, b = (run_settings(state, name, TrainingConfig(512, "gpt4")) for name in ("A", "B"))
        assert (a, b) == (item.a, item.b)
        assert matching_preset(item.sample_key, a, b) is item
    assert matching_preset("english", PRESETS[1].a, PRESETS[1].b) is None


def test_run_settings_from_odd_state() -> None:
    """Missing values take the default; </w> only with words, as in the sidebar."""
    default = TrainingConfig(300, "bytes")
    assert run_settings({}, "A", default) == default
    state = {widget_key("B", "pretok"): "gpt2", widget_key("B", "eow"): True,
             widget_key("B", "vocab"): 400.0, widget_key("B", "tie"): None}  # fmt: skip
    assert run_settings(state, "B", default) == TrainingConfig(
        400, "gpt2", "first", end_of_word=False
    )
    state[widget_key("B", "pretok")] = "words"
    assert run_settings(state, "B", default).end_of_word is True
    state[widget_key("B", "vocab")] = "lots"
    assert run_settings(state, "B", default).vocab_size == 300
