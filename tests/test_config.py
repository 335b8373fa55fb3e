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


UNIGRAM_BAD = [
    pytest.param(
        {"max_piece_length": 0},
        "The longest piece must be a whole number from 1 to 32, got 0.",
        id="piece-0",
    ),
    pytest.param({"max_piece_length": 33}, "from 1 to 32, got 33", id="piece-33"),
    pytest.param(
        {"seed_size": 0},
        "The seed size must be a whole number from 1 to 1,000,000, got 0.",
        id="seed-0",
    ),
    pytest.param(
        {"shrinking_factor": 1.0},
        "The shrinking factor (the share of tokens a round "
        "keeps) must lie between 0.05 and 0.95, got 1.0.",
        id="shrink-1",
    ),
    pytest.param({"shrinking_factor": 0.01}, "between 0.05 and 0.95, got 0.01", id="shrink-0"),
    pytest.param(
        {"em_iterations": 11},
        "EM iterations a round must be a whole number from 1 to 10, got 11.",
        id="em-11",
    ),
]


@pytest.mark.parametrize(("change", "expected"), UNIGRAM_BAD)
def test_each_bad_unigram_setting_is_one_sentence(change: dict, expected: str) -> None:
    """Unigram's own settings (SentencePiece's max_sentencepiece_length 16,
    seed_sentencepiece_size 1,000,000, shrinking_factor 0.75, num_sub_iterations 2) have bounds
    a sentence states; BPE and WordPiece do not use them, so they are not checked there."""
    problems = TrainingConfig(30, "words", algorithm="unigram", **change).problems()
    assert len(problems) == 1 and expected in problems[0]
    assert TrainingConfig(300, **change).problems() == []


def test_unigram_settings_reach_the_summary_only_when_they_are_not_sentencepieces() -> None:
    plain = TrainingConfig(30, "words", algorithm="unigram")
    assert (
        plain.max_piece_length,
        plain.seed_size,
        plain.shrinking_factor,
        plain.em_iterations,
    ) == (16, 1_000_000, 0.75, 2)
    changed = TrainingConfig(30, "words", algorithm="unigram", max_piece_length=4,
                             shrinking_factor=0.5, em_iterations=3)  # fmt: skip
    assert changed.summary() == (
        "Unigram · vocab 30 · words · pieces ≤ 4 characters · keeps 0.5 a round · EM 3 a round"
    )


def test_settings_keep_unigram_values_out_of_other_algorithms_cache_keys() -> None:
    """A BPE run does not depend on Unigram's settings: it must not train twice for them."""
    assert Settings(max_piece_length=4).config() == Settings().config()
    assert Settings(algorithm="unigram", max_piece_length=4).config().max_piece_length == 4
