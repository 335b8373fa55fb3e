"""A run's cost is bounded: the trainer's memory is linear in the text, whatever the vocab.

A small text trained in ``bytes`` mode to the end ends as one token of the whole text, and
its tokens grow with it: kept as bytes, the tokens of every merge sum to about a twelfth of
the text's length squared (200 MB for 50 KB). The sizes below are small enough to run in a
second, and large enough for that square to show.
"""

from __future__ import annotations

import gc
import random
import re
import threading
import tracemalloc
import weakref
from pathlib import Path

import pytest
from apptest_support import new_app, plain, run

from bpeviz import cli
from bpeviz.app.frame.training import taking_turns
from bpeviz.app.step import view as step_view
from bpeviz.engine import trainer
from bpeviz.engine.budget import SERVER_BUDGET, Budget, OverBudget, check_budget
from bpeviz.engine.config import MAX_VOCAB_SIZE, TrainingConfig
from bpeviz.engine.corpus import build_corpus
from bpeviz.engine.history import train
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.engine.trainer import max_useful_vocab_size, run_training
from bpeviz.records import narration, schema
from bpeviz.records.schema import label_runs
from bpeviz.records.step import LABEL_JOINED_OVER, TOP_PAIRS, payload

REPO = Path(__file__).resolve().parents[1]


def shuffled_words(size: int, seed: int = 1) -> str:
    """``size`` characters of the English sample's words in a seeded random order: a text
    that does not repeat itself, so training it to the end takes thousands of merges."""
    words = re.findall(r"\S+", (REPO / "sample_texts" / "english.txt").read_text())
    rng = random.Random(seed)
    return " ".join(rng.choice(words) for _ in range(size // 3))[:size]


def training_peak(text: str) -> int:
    """Peak bytes allocated while training ``text`` to the end (``bytes``, vocab 1,000,000)."""
    tracemalloc.start()
    try:
        run = run_training(text, TrainingConfig(MAX_VOCAB_SIZE, "bytes"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "no pair left" in run.stop_reason  # trained to the end: one token per piece
    return peak


def test_trainer_memory_grows_linearly_with_the_text_at_the_largest_vocab() -> None:
    """Twice the text costs about twice the memory (quadratic would be four times)."""
    one = training_peak(shuffled_words(8_000))
    two = training_peak(shuffled_words(16_000))
    assert two < 2.5 * one, f"{two / one:.2f}x the memory for 2x the text"


# ---- the budget: checked before the first merge ----------------------------------------------


def refuse_to_train(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any merge loop fail the test: a refused run must not start one."""

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("the merge loop ran")

    monkeypatch.setattr(trainer._IncrementalTrainer, "run", fail)


def test_a_run_past_the_budget_is_refused_before_training(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """1,000 bytes in ``bytes`` mode are 1,000 symbols; vocab 300 asks for 44 merges:
    44,000 merge-symbols, past a budget of 10,000, which allows 10,000 // 1,000 = 10 merges
    (vocab 266)."""
    refuse_to_train(monkeypatch)
    with pytest.raises(OverBudget) as refused:
        run_training("ab" * 500, TrainingConfig(300), budget=Budget(10**6, 10_000, 10**9))
    message = str(refused.value)
    assert "vocab size 300" in message and "the most is vocab size 266" in message
    assert "1,000 symbols" in message and "--no-budget" in message


def test_a_text_past_the_symbols_budget_is_refused_whatever_the_vocab(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The trainer's memory grows with the symbols it trains on (a few hundred bytes each):
    1,000 symbols past a budget of 999 are refused even for one merge. In ``gpt4`` mode
    ``ab ab ab …`` is two distinct pieces, ``ab`` and `` ab``: 5 symbols, trained."""
    refuse_to_train(monkeypatch)
    with pytest.raises(OverBudget) as refused:
        run_training("ab" * 500, TrainingConfig(257), budget=Budget(999, 10**9, 10**9))
    message = str(refused.value)
    assert "1,000 symbols to train on" in message and "at most 999" in message
    monkeypatch.undo()
    text = "ab" + " ab" * 332
    run = run_training(text, TrainingConfig(257, "gpt4"), budget=Budget(5, 10**9, 10**9))
    assert len(run.corpus.unique_symbols) == 5 and len(run.steps) == 1


def test_a_run_within_the_budget_trains() -> None:
    run = run_training("ab" * 500, TrainingConfig(266), budget=Budget(10**6, 10_000, 10**9))
    assert len(run.steps) == 10


def test_the_budget_counts_only_the_merges_the_text_allows() -> None:
    """``ab`` × 500 allows at most 999 merges (each joins two of its 1,000 bytes): vocab
    1,000,000 costs 999 × 1,000 = 999,000 merge-symbols, within 1,000,000."""
    budget = Budget(10**6, 10**6, 10**9)
    run = run_training("ab" * 500, TrainingConfig(MAX_VOCAB_SIZE), budget=budget)
    assert "no pair left" in run.stop_reason


def test_training_stops_when_the_new_tokens_reach_the_budget() -> None:
    """``abcdefgh``: every pair occurs once, and the ``first`` rule takes the leftmost, so
    the merges make ``ab``, ``abc``, ``abcd``: 2 + 3 + 4 = 9 symbols, the budget."""
    run = run_training("abcdefgh", TrainingConfig(MAX_VOCAB_SIZE), budget=Budget(10**6, 10**9, 9))
    assert [step.token for step in run.steps] == [b"ab", b"abc", b"abcd"]
    assert run.stop_reason.startswith("stopped after 3 merges: its new tokens hold 9 symbols")


def test_the_server_budget_keeps_tiny_shakespeare_at_vocab_4096(shakespeare_text: str) -> None:
    """A class's largest usual run (the Step page's latency benchmark uploads it) stays
    within the server's budget: 3,840 merges of Tiny Shakespeare's distinct ``gpt4`` pieces."""
    corpus = build_corpus(shakespeare_text, "gpt4")
    check_budget(corpus, 256, 4096, max_useful_vocab_size(corpus), SERVER_BUDGET)


# ---- the app says it in one sentence, without training ---------------------------------------


def test_a_huge_vocab_link_gets_the_budget_sentence_without_training(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``?src=paste&vocab=1000000&pretok=bytes`` with 100 KB: the issue's link took 91 s and
    1.6 GB. 100,000 symbols allow 500,000,000 // 100,000 = 5,000 merges: vocab 5,256."""
    refuse_to_train(monkeypatch)
    text = shuffled_words(100_000)
    at = new_app(src="paste", paste=text, vocab="1000000", pretok="bytes")
    run(at)
    errors = " ".join(plain(error.value) for error in at.error)
    assert "vocab size 1,000,000 is past the training budget for this text" in errors
    assert "the most is vocab size 5,256" in errors and "--no-budget" in errors


# ---- the command line keeps the same budget, unless told --no-budget ----------------------


@pytest.mark.parametrize("no_budget", [False, True], ids=["budget", "no-budget"])
def test_the_command_line_keeps_the_budget_unless_told_not_to(
    no_budget: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The first test's run (up to 44 merges of 1,000 symbols, past 10,000, which allows 10)
    on the command line; past the budget, it trains on to the end of the text."""
    monkeypatch.setattr(cli, "SERVER_BUDGET", Budget(10**6, 10_000, 10**9))
    path = tmp_path / "ab.txt"
    path.write_text("ab" * 500)
    flags = ["--no-budget"] if no_budget else []
    status = cli.main(["history", str(path), "--vocab-size", "300", "--jsonl", *flags])
    out, err = capsys.readouterr()
    if no_budget:
        assert status == 0 and len(out.splitlines()) > 10
    else:
        assert status == 2 and "the most is vocab size 266" in err and out == ""


# ---- the step record: built in time linear in the merges --------------------------------------


def test_the_step_record_spells_out_no_long_token_the_browser_joins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A text trained to the end has tokens as long as the text; the record leaves a long
    token's label to the browser (its parents' joined), so building it must not spell one
    out: at most :data:`LABEL_JOINED_OVER` bytes a label, not the tokens' whole length."""
    history = train(shuffled_words(4_000), MAX_VOCAB_SIZE, top_pairs=TOP_PAIRS)
    assert max(len(step.token) for step in history.steps) > 1_000  # long tokens were made
    spelled: list[int] = []

    def counting_label_runs(data: bytes) -> str | list[str]:
        spelled.append(len(data))
        return label_runs(data)

    monkeypatch.setattr(schema, "label_runs", counting_label_runs)
    record_of = payload(history)
    assert None in [entry[0] for entry in record_of["vocab"]]  # labels left to the browser
    assert max(spelled) <= LABEL_JOINED_OVER


def test_naming_tokens_keeps_nothing_for_the_process() -> None:
    """Sentences quote a token by its start, and keep nothing once said: a cache for the
    process, filled while a crowd's runs trained, kept its small strings scattered over the
    heap the runs had freed, and the server's memory could not shrink back after the class
    (``benchmarks/crowd.py``: 378 MB, 197 above where it was). 5,000 tokens named, and 100
    long ones (100 KB: 10 MB if kept)."""
    tokenizer = Tokenizer.from_merges([])
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for index in range(5_100):  # tokens under id 0, named as sentences do
            long = index >= 5_000
            tokenizer.vocab[0] = (b"a" * 100_000 if long else b"t") + str(index).encode()
            narration.pair_text(tokenizer, (0, 98))
        tokenizer.vocab[0] = b"a"
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 20_000, f"{kept:,} bytes kept"


def test_a_training_past_the_servers_turns_waits_and_says_so() -> None:
    """Two train at once (the cores); a third session is told it waits, and trains when
    one of them is done."""
    turns = threading.BoundedSemaphore(1)
    turns.acquire()  # the other session's run
    told, trained = threading.Event(), threading.Event()

    def session() -> None:
        with taking_turns(turns, told.set):
            trained.set()

    thread = threading.Thread(target=session)
    thread.start()
    assert told.wait(30)
    assert not trained.is_set()
    turns.release()
    assert trained.wait(30)
    thread.join(30)
    assert turns.acquire(blocking=False)  # its turn was given back


def test_the_step_records_cache_keeps_no_history() -> None:
    """The app's training cache decides how many runs live (48 MB of users'); the step
    record's cache kept its history too, 24 of them: twenty sessions at the budget left
    376 MB behind when they closed. A record is named by what the run was trained from."""
    history = train("the cat sat on the mat", 270, top_pairs=TOP_PAIRS)
    key, record_text = step_view._record(history)
    alive = weakref.ref(history)
    del history
    gc.collect()
    assert alive() is None
    again = train("the cat sat on the mat", 270, top_pairs=TOP_PAIRS)
    assert step_view._record(again) == (key, record_text)  # the same run: the same record
