"""Tests for bpeviz.engine.config: one set of training checks, said the same way everywhere."""

from __future__ import annotations

import pytest

from bpeviz.app.frame.run_settings import Settings, check_settings, parse_special_tokens
from bpeviz.engine.config import MAX_VOCAB_SIZE, TrainingConfig
from bpeviz.engine.history import train
from bpeviz.engine.tokenizer import Tokenizer

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


# Settings that fail twice, and the two sentences, written out: the trainer, the sidebar and
# the CLI must all say exactly these (the sizes: 100 < 256 single bytes).
TOO_SMALL = (
    "Vocab size 100 is too small, smaller than the 256 base symbols (256 bytes): "
    "use at least 256, then each merge adds one token."
)
UNKNOWN_TIE = "Unknown tie rule 'random': choose one of first, lexmin, lexmax."
UNKNOWN_PRETOKENIZER = "Unknown pre-tokenizer 'spaces': choose one of bytes, gpt2, gpt4, words."


def test_the_trainer_raises_every_problem_in_these_words() -> None:
    with pytest.raises(ValueError) as error:
        train("abc", 100, tie_break="random")
    assert str(error.value) == f"{TOO_SMALL} {UNKNOWN_TIE}"


def test_the_sidebar_shows_the_same_words_as_errors() -> None:
    settings = Settings(vocab_size=100, pretokenizer="spaces")
    shown = [(message.level, message.text) for message in check_settings(settings)]
    assert shown == [("error", TOO_SMALL), ("error", UNKNOWN_PRETOKENIZER)]


def test_special_tokens_are_made_unique_the_same_way_everywhere() -> None:
    """Typed in the sidebar, passed to train, or to Tokenizer.from_merges: "<|a|>" twice and an
    empty one are one special token, numbered after the 256 bytes and no merge: id 256."""
    typed = parse_special_tokens("<|a|>, <|a|>,,<|b|>")
    assert typed == ("<|a|>", "<|b|>")
    trained = train("abc", 256, special_tokens=["<|a|>", "", "<|a|>"]).tokenizer
    assert trained.special_tokens == {"<|a|>": 256}
    assert Tokenizer.from_merges([], special_tokens=["<|a|>", "", "<|a|>"]).special_tokens == {
        "<|a|>": 256
    }


def test_a_unigram_summary_names_no_tie_rule() -> None:
    """Unigram has no tie rule to choose (equal removal costs go by probability, then code
    point order: bpeviz/engine/unigram.py), so "ties: first" in its summary said something
    untrue; BPE and WordPiece keep theirs."""
    assert (
        TrainingConfig(30, "words", algorithm="unigram").summary() == "Unigram · vocab 30 · words"
    )
    assert TrainingConfig(30, "words", algorithm="wordpiece").summary().endswith("ties: first")
