"""WordPiece and Unigram runs have a budget too, said before they train (issue 29).

The texts are the Hugging Face course's (``hug``, ``pug``, ``pun``, ``bun``, ``hugs``), so the
counts are worked by hand: its five distinct words hold 3 + 3 + 3 + 3 + 4 = 16 characters,
and WordPiece starts from 12 tokens (``[UNK]``, the 5 first letters, 6 ``##`` letters).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bpeviz import cli
from bpeviz.engine import unigram, wordpiece
from bpeviz.engine.budget import (
    SERVER_UNIGRAM_BUDGET,
    SERVER_WORDPIECE_BUDGET,
    Budget,
    OverBudget,
    UnigramBudget,
)
from bpeviz.engine.unigram import train_unigram
from bpeviz.engine.wordpiece import train_wordpiece

COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
WIDE = 10**9


def refuse_to_train(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any training fail loudly: a refusal must come before it."""

    def trained(*args: object, **kwargs: object) -> None:
        raise AssertionError("trained although the run is past the budget")

    monkeypatch.setattr(wordpiece, "_Trainer", trained)
    monkeypatch.setattr(unigram, "_seed_and_lattices", trained)


# ---- WordPiece: the BPE budget, on characters ----------------------------------------------


def test_a_wordpiece_run_past_the_merge_budget_is_refused_before_training(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Vocab 30 asks for 18 merges, of which the text allows 16 - 5 = 11 (each joins two of
    a word's characters): 11 × 16 = 176 merge-symbols, past 48, which allows 48 // 16 = 3
    merges: vocab 12 + 3 = 15."""
    refuse_to_train(monkeypatch)
    with pytest.raises(OverBudget) as refused:
        train_wordpiece(COURSE, 30, budget=Budget(10**6, 48, WIDE))
    message = str(refused.value)
    assert "vocab size 30 is past the training budget" in message
    assert "the most is vocab size 15" in message and "16 characters" in message
    assert "--algorithm wordpiece" in message and "--no-budget" in message


def test_a_wordpiece_run_within_the_budget_trains() -> None:
    """Vocab 15 within the same budget: the course's first three merges."""
    run = train_wordpiece(COURSE, 15, budget=Budget(10**6, 48, WIDE))
    assert [step.token for step in run.steps] == ["##gs", "hu", "hugs"]


def test_a_wordpiece_text_past_the_characters_budget_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    refuse_to_train(monkeypatch)
    with pytest.raises(OverBudget) as refused:
        train_wordpiece(COURSE, 13, budget=Budget(15, WIDE, WIDE))
    assert "16 characters to train on" in str(refused.value)
    assert "at most 15" in str(refused.value)


def test_wordpiece_new_tokens_are_bounded_by_the_longest_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No new token is longer than the longest word (``hugs``, 4 characters), so 3 merges
    make at most 12 characters of tokens: a budget of 12 allows vocab 15, not 16. Known
    before training, unlike BPE's stop (a WordPiece token can be a whole long word)."""
    refuse_to_train(monkeypatch)
    with pytest.raises(OverBudget) as refused:
        train_wordpiece(COURSE, 16, budget=Budget(10**6, WIDE, 12))
    message = str(refused.value)
    assert "the most is vocab size 15" in message and "4 characters" in message


def test_wordpiece_without_a_budget_trains_as_before() -> None:
    assert len(train_wordpiece(COURSE, 30).steps) == 9


# ---- Unigram: the seed's substrings and the longest word -----------------------------------


def test_a_unigram_text_past_the_substrings_budget_is_refused_before_training(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``▁hug``, ``▁pug``, ``▁pun``, ``▁bun`` are 4 characters each, so 4 + 3 + 2 + 1 = 10
    substrings each; ``▁hugs`` has 15: 55 substrings to seed and train on."""
    refuse_to_train(monkeypatch)
    with pytest.raises(OverBudget) as refused:
        train_unigram(COURSE, 12, budget=UnigramBudget(substrings=54, word_chars=WIDE))
    message = str(refused.value)
    assert "55 substrings" in message and "at most 54" in message
    assert "--algorithm unigram" in message and "--no-budget" in message


def test_a_unigram_word_past_the_budget_is_refused_before_training(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    refuse_to_train(monkeypatch)
    with pytest.raises(OverBudget) as refused:
        train_unigram(COURSE, 12, budget=UnigramBudget(substrings=WIDE, word_chars=4))
    message = str(refused.value)
    assert "longest word is 5 characters" in message and "at most 4" in message


def test_a_unigram_run_within_the_budget_trains() -> None:
    """The docstring's run (sizes 26, 19, 14, 12 in the course's walk-through order)."""
    text = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4
    run = train_unigram(text, 12, budget=UnigramBudget(substrings=40, word_chars=4))
    assert [round_.size for round_ in run.rounds] == [26, 19, 14, 12]


def test_the_server_budgets_keep_tiny_shakespeare_at_vocab_4096(shakespeare_text: str) -> None:
    """The benchmarks' runs (``benchmarks/wordpiece.py``, ``benchmarks/unigram.py``) stay
    within the server's budgets: checked by the budgets alone (training is refused first)."""
    from bpeviz.engine.budget import check_unigram_budget, check_wordpiece_budget
    from bpeviz.engine.unigram import count_words
    from bpeviz.engine.wordpiece import UNK, initial_vocab, split_words

    text = shakespeare_text
    words = tuple(dict.fromkeys(split_words(text)))
    first = len(initial_vocab(words, (UNK,)))
    check_wordpiece_budget(words, first, 4096, SERVER_WORDPIECE_BUDGET)
    check_unigram_budget(count_words(text), 16, SERVER_UNIGRAM_BUDGET)


# ---- the command line keeps them, unless told --no-budget ---------------------------------


@pytest.mark.parametrize("algorithm", ["wordpiece", "unigram"])
@pytest.mark.parametrize("no_budget", [False, True], ids=["budget", "no-budget"])
def test_the_command_line_keeps_the_word_budgets_unless_told_not_to(
    algorithm: str,
    no_budget: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(cli, "SERVER_WORDPIECE_BUDGET", Budget(10**6, 48, WIDE))
    monkeypatch.setattr(cli, "SERVER_UNIGRAM_BUDGET", UnigramBudget(54, WIDE))
    path = tmp_path / "course.txt"
    path.write_text(COURSE, encoding="utf-8")
    flags = ["--no-budget"] if no_budget else []
    status = cli.main(["train", str(path), "--algorithm", algorithm, "--vocab-size", "30",
                       "--out", str(tmp_path / "out"), *flags])  # fmt: skip
    out, err = capsys.readouterr()
    written = (tmp_path / "out.tokenizer.json").exists()
    if no_budget:
        assert status == 0 and written and "trained" in out
    else:
        assert status == 2 and not written and out == ""
        assert ("the most is vocab size 15" if algorithm == "wordpiece" else "55 substrings") in err


# ---- the app says it in one sentence, without training ------------------------------------


def test_a_wordpiece_link_past_the_budget_gets_its_sentence_without_training(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One word of 100,000 letters to vocab 1,000: no new token is longer than the word, so
    the new tokens' budget of 4,000,000 characters allows 40 merges. The app checked only
    the characters (100,000, within 2,000,000), and trained."""
    from apptest_support import new_app, plain, run

    refuse_to_train(monkeypatch)
    text = "".join(chr(ord("a") + (index * 7 + index // 26) % 26) for index in range(100_000))
    at = run(new_app(algo="wordpiece", src="paste", paste=text, vocab="1000"))
    errors = " ".join(plain(error.value) for error in at.error)
    assert "vocab size 1,000 is past the training budget for this text" in errors
    assert "100,000 characters" in errors and "--no-budget" in errors


def test_a_unigram_link_past_the_budget_gets_its_sentence_without_training(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One word of 2,000 letters: within the app's 1,200,000 characters, past Unigram's
    1,000 a word (one of 4,000 had trained for minutes)."""
    from apptest_support import new_app, plain, run

    refuse_to_train(monkeypatch)
    text = "".join(chr(ord("a") + (index * 7 + index // 26) % 26) for index in range(2_000))
    at = run(new_app(algo="unigram", src="paste", paste=text, vocab="100"))
    errors = " ".join(plain(error.value) for error in at.error)
    assert "longest word is 2,001 characters" in errors and "--no-budget" in errors
