"""The algorithm setting: one settings type (TrainingConfig) carries it, the link keeps it as
``algo=`` (and WordPiece's rule as ``wprule=``), the sidebar offers it, and the pre-tokenizers
follow it. A combination that cannot train, from a link, is one sentence, never a traceback.

The expected sentences are written out here: they are what a teacher reads.
"""

from __future__ import annotations

from dataclasses import fields

import pytest
from apptest_support import new_app, plain, run

from bpeviz.app.frame.links import query_from_state, state_from_query
from bpeviz.app.frame.run_settings import Settings, default_state, settings_from_state
from bpeviz.app.two_runs.state import PRESETS
from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.samples import get_sample


def test_the_sidebar_settings_are_the_one_training_settings_type() -> None:
    """Settings is a TrainingConfig with where the text comes from; its config() is the
    training settings alone (the cache key), so two samples with the same settings share none
    of their identity but the same TrainingConfig."""
    settings = Settings(algorithm="wordpiece", pretokenizer="words", vocab_size=30)
    assert isinstance(settings, TrainingConfig)
    assert settings.config() == TrainingConfig(30, "words", algorithm="wordpiece")
    assert Settings(sample_key="ties").config() == Settings(sample_key="english").config()
    trained = {field.name for field in fields(TrainingConfig)}
    assert {"algorithm", "score_rule"} <= trained
    assert isinstance(get_sample("english").settings, TrainingConfig)
    assert all(isinstance(run, TrainingConfig) for item in PRESETS for run in (item.a, item.b))


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        pytest.param(
            TrainingConfig(30, "gpt4", algorithm="wordpiece"),
            "WordPiece needs words: use the pre-tokenizer 'words' or 'bert', not 'gpt4'.",
            id="wordpiece-gpt4",
        ),
        pytest.param(
            TrainingConfig(30, "words", algorithm="wordpiece", score_rule="best"),
            "Unknown WordPiece rule 'best': choose one of score, frequency.",
            id="rule",
        ),
        pytest.param(
            TrainingConfig(30, "words", algorithm="wordpiece", end_of_word=True),
            "The </w> end-of-word marker is BPE's: turn it off for this algorithm.",
            id="eow",
        ),
        pytest.param(
            TrainingConfig(300, "words", algorithm="sentencepiece"),
            "Unknown algorithm 'sentencepiece': choose one of bpe, wordpiece, unigram.",
            id="unknown",
        ),
        pytest.param(
            TrainingConfig(0, "words", algorithm="wordpiece"),
            "Vocab size must be at least 1, got 0.",
            id="vocab-0",
        ),
    ],
)
def test_a_combination_that_cannot_train_is_one_sentence(
    config: TrainingConfig, expected: str
) -> None:
    assert config.problems() == [expected]


def test_wordpiece_takes_a_vocab_below_the_256_bytes() -> None:
    """WordPiece's vocabulary is the text's characters plus merges: 15 tokens is the HF
    course's example, and no problem."""
    assert TrainingConfig(15, "words", algorithm="wordpiece").problems() == []
    assert (
        TrainingConfig(15, "bert", algorithm="wordpiece", score_rule="frequency").problems() == []
    )


def test_the_link_keeps_the_algorithm_and_the_rule_and_reads_them_back() -> None:
    state = {**default_state(), "algo": "wordpiece", "wprule": "frequency", "pretok": "bert",
             "vocab": 40}  # fmt: skip
    params = query_from_state(state)
    assert params == {"algo": "wordpiece", "wprule": "frequency", "pretok": "bert", "vocab": "40"}
    back, messages = state_from_query(params)
    assert messages == []
    settings = settings_from_state(back)
    assert (
        settings.algorithm,
        settings.score_rule,
        settings.pretokenizer,
        settings.vocab_size,
    ) == (
        "wordpiece",
        "frequency",
        "bert",
        40,
    )


def test_the_default_algorithm_writes_nothing_into_the_link() -> None:
    assert query_from_state(default_state()) == {}


def test_wordpiece_on_a_sample_takes_words_when_the_sample_suggests_a_bpe_pretokenizer() -> None:
    """The English sample suggests gpt4; under WordPiece that becomes words, and the link needs
    to say nothing about it."""
    state, messages = state_from_query({"algo": "wordpiece"})
    assert messages == []
    assert state["pretok"] == "words"
    assert query_from_state(state) == {"algo": "wordpiece"}


def test_a_link_with_a_pretokenizer_wordpiece_cannot_use_says_so_in_one_sentence() -> None:
    state, messages = state_from_query({"algo": "wordpiece", "pretok": "gpt2"})
    assert state["pretok"] == "words"
    assert [(m.level, m.text) for m in messages] == [
        (
            "warning",
            "The link's pretok='gpt2' does not fit WordPiece, which takes words or bert: "
            "using 'words'.",
        )
    ]


def test_bert_in_a_bpe_link_is_fitted_too() -> None:
    state, messages = state_from_query({"pretok": "bert"})
    assert state["pretok"] == "gpt4"
    assert len(messages) == 1 and "does not fit BPE" in messages[0].text


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (
            {"algo": "bpe2"},
            "The link's algo='bpe2' is not one of bpe, wordpiece, unigram; ignored.",
        ),
        (
            {"algo": "wordpiece", "wprule": "x"},
            "The link's wprule='x' is not one of score, frequency; ignored.",
        ),
        (
            {"algo": "wordpiece", "eow": "1"},
            "The link's eow='1' is BPE's end-of-word marker, not WordPiece's; ignored.",
        ),
    ],
)
def test_a_link_value_the_algorithm_cannot_use_is_ignored_with_a_sentence(
    params: dict[str, str], expected: str
) -> None:
    _, messages = state_from_query(params)
    assert [m.text for m in messages] == [expected]


def test_a_wordpiece_link_keeps_a_small_vocab_a_bpe_link_refuses_it() -> None:
    state, messages = state_from_query({"algo": "wordpiece", "vocab": "15"})
    assert (state["vocab"], messages) == (15, [])
    state, messages = state_from_query({"vocab": "15"})
    assert state["vocab"] == get_sample("english").settings.vocab_size
    assert "is below 257" in messages[0].text


def test_the_sidebar_offers_the_algorithm_and_the_pretokenizers_follow_it() -> None:
    at = run(new_app())
    assert at.selectbox(key="algo").options == ["BPE", "WordPiece", "Unigram"]
    assert "wprule" not in [radio.key for radio in at.sidebar.radio]
    run(at.selectbox(key="algo").set_value("wordpiece"))
    pretok = at.selectbox(key="pretok")
    assert [option.split(":")[0] for option in pretok.options] == ["words", "bert"]
    assert pretok.value == "words"
    assert at.radio(key="wprule").value == "score"
    assert at.checkbox(key="eow").disabled
    assert at.query_params["algo"] == "wordpiece"
    run(at.radio(key="wprule").set_value("frequency"))
    assert at.query_params["wprule"] == "frequency"
    run(at.number_input(key="vocab").set_value(40))
    assert at.number_input(key="vocab").value == 40


def test_a_link_that_cannot_train_opens_with_its_sentence_not_a_traceback() -> None:
    at = run(new_app(algo="wordpiece", pretok="gpt2"))
    shown = [plain(warning.value) for warning in at.warning]
    assert any("does not fit WordPiece" in text for text in shown), shown
    assert at.selectbox(key="pretok").value == "words"
