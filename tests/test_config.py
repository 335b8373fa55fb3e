"""Tests for bpeviz.config: one set of training checks, said the same way everywhere."""

from __future__ import annotations

import pytest

from bpeviz.app.settings import Settings, check_settings
from bpeviz.config import MAX_VOCAB_SIZE, TrainingConfig
from bpeviz.history import train

BAD = [
    pytest.param(TrainingConfig(255), "at least 256", id="below-256"),
    pytest.param(TrainingConfig(256, "words", end_of_word=True), "at least 257", id="below-257"),
    pytest.param(TrainingConfig(MAX_VOCAB_SIZE + 1), "above the limit of 1,000,000", id="huge"),
    pytest.param(TrainingConfig(300, "spaces"), "bytes, gpt2, gpt4, words", id="pretokenizer"),
    pytest.param(TrainingConfig(300, tie_break="random"), "first, lexmin, lexmax", id="tie"),
    pytest.param(TrainingConfig(300, end_of_word=True), "needs the 'words'", id="eow-bytes"),
    pytest.param(TrainingConfig(300, min_frequency=0), "at least 1, got 0", id="min-frequency"),
    pytest.param(TrainingConfig(300.5), "whole number", id="not-int"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("config", "expected"), BAD)
def test_each_bad_setting_is_one_problem_saying_how_to_fix_it(
    config: TrainingConfig, expected: str
) -> None:
    problems = config.problems()
    assert len(problems) == 1
    assert expected in problems[0]


@pytest.mark.parametrize("vocab_size", [257, 512, MAX_VOCAB_SIZE])
def test_good_settings_have_no_problem(vocab_size: int) -> None:
    assert TrainingConfig(vocab_size, "words", "lexmax", ("<|x|>",), True).problems() == []


def test_every_problem_is_listed_not_only_the_first() -> None:
    assert len(TrainingConfig(10, "spaces", "random", min_frequency=0).problems()) == 4


def test_the_trainer_raises_the_same_words() -> None:
    config = TrainingConfig(100, tie_break="random")
    with pytest.raises(ValueError) as error:
        train("abc", 100, tie_break="random")
    assert str(error.value) == " ".join(config.problems())


def test_the_sidebar_shows_the_same_words() -> None:
    settings = Settings(vocab_size=100, pretokenizer="spaces")
    assert [m.text for m in check_settings(settings)] == settings.config().problems()
    assert len(check_settings(settings)) == 2
