"""Training in a child process (``bpeviz.engine.apart``): the same run, its progress, its
errors and its end reach the caller; the trainer's temporaries never enter the server's heap.
"""

from __future__ import annotations

import os
import random
import string
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from apptest_support import new_app, run
from test_budget import shuffled_words

from bpeviz.app.frame import training
from bpeviz.app.frame.run_settings import Settings
from bpeviz.engine.apart import TrainingLost, call_apart
from bpeviz.engine.budget import Budget, OverBudget
from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.trainer import corpus_for, run_training

BYTES_259 = TrainingConfig(259, "bytes")


def test_a_run_trained_apart_has_the_hand_worked_merges_on_the_callers_corpus() -> None:
    """Wikipedia's ``aaabdaaabac``: ``aa`` (4 times, overlaps counted), then ``aa a`` and
    ``a b`` tie at 2 and ``first`` takes the earlier (``aaa``), then ``aaa b`` (2)."""
    corpus = corpus_for("aaabdaaabac", BYTES_259)
    run = call_apart(run_training, corpus, BYTES_259, top_pairs=2)
    assert [step.token for step in run.steps] == [b"aa", b"aaa", b"aaab"]
    assert [step.count for step in run.steps] == [4, 2, 2]
    assert run.corpus is corpus  # the caller's corpus, not a copy sent back
    assert all(step.corpus is corpus for step in run.steps)
    assert run.steps == run_training(corpus, BYTES_259, top_pairs=2).steps


def test_progress_reaches_the_caller() -> None:
    seen: list[tuple[int, int]] = []
    corpus = corpus_for("aaabdaaabac", BYTES_259)
    call_apart(run_training, corpus, BYTES_259, progress=lambda *step: seen.append(step))
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_an_error_in_the_child_is_raised_in_the_caller_as_itself() -> None:
    corpus = corpus_for("ab" * 500, BYTES_259)
    tight = Budget(merge_symbols=10, token_symbols=10, symbols=10)
    with pytest.raises(OverBudget, match="1,000"):
        call_apart(run_training, corpus, BYTES_259, budget=tight)


def test_a_child_that_ends_without_answering_is_told_in_a_sentence() -> None:
    with pytest.raises(TrainingLost, match=r"^the training process exited with status 3 before"):
        call_apart(os._exit, 3)


class _Rerun(Exception):
    """What Streamlit raises in a script whose session reruns."""


def _children() -> list[int]:
    """This process's living child processes."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == os.getpid():
            found.append(int(stat.parent.name))
    return found


def test_an_interrupted_wait_ends_the_child() -> None:
    def rerun(done: int, total: int) -> None:
        raise _Rerun

    corpus = corpus_for(shuffled_words(5_000), TrainingConfig(2000, "bytes"))
    before = _children()
    with pytest.raises(_Rerun):
        call_apart(run_training, corpus, TrainingConfig(2000, "bytes"), progress=rerun)
    assert _children() == before


def test_the_servers_heap_holds_only_the_result_of_a_big_run() -> None:
    """A 40 KB text at vocab 1,256 in bytes mode: trained in the server, the trainer's peak
    was several times the run it keeps (its linked lists, pair positions and heap)."""
    settings = Settings(source="paste", vocab_size=1256, pretokenizer="bytes")
    text = shuffled_words(40_000)
    tracemalloc.start()
    try:
        history = training._train_with_progress(text, settings)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert history.merge_count == 1000
    kept = history.memory_bytes()
    assert peak < 1.5 * kept, f"peak {peak:,} bytes for a run of {kept:,}"


def random_words(count: int, seed: int = 29) -> str:
    """``count`` distinct-looking words of six random letters: a text whose distinct words
    hold about ``6 * count`` characters (WordPiece and Unigram train on those)."""
    rng = random.Random(seed)
    return " ".join("".join(rng.choices(string.ascii_lowercase, k=6)) for _ in range(count))


@pytest.fixture
def trained_apart(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """The app's calls of :func:`call_apart`: each trainer's name and what it returned."""
    calls: list[tuple[str, Any]] = []

    def spy(function: Callable[..., Any], *arguments: Any, **options: Any) -> Any:
        value = call_apart(function, *arguments, **options)
        calls.append((function.__name__, value))
        return value

    monkeypatch.setattr(training, "call_apart", spy)
    return calls


def test_a_big_paste_trains_apart_and_the_step_page_draws_it(
    trained_apart: list[tuple[str, Any]],
) -> None:
    """``ab`` × 15,000 in bytes mode (30,000 symbols) to vocab 259: ``ab`` (15,000 times),
    then ``ab ab`` (14,999, merged 7,500 times left to right), then ``abab abab``."""
    at = run(new_app(src="paste", paste="ab" * 15_000, vocab="259", pretok="bytes"))
    assert not at.error
    [(name, value)] = trained_apart
    assert name == "run_training"
    assert [step.token for step in value.steps] == [b"ab", b"abab", b"abababab"]
    assert [step.replacements for step in value.steps] == [15_000, 7_500, 3_750]


@pytest.mark.parametrize(
    ("algorithm", "trainer", "extra"),
    [("wordpiece", "train_wordpiece", {}), ("unigram", "train_unigram", {"pretok": "words"})],
)
def test_wordpiece_and_unigram_runs_of_a_big_paste_train_apart(
    algorithm: str, trainer: str, extra: dict[str, str], trained_apart: list[tuple[str, Any]]
) -> None:
    text = random_words(4_000)  # 24,000 characters of distinct words
    at = run(new_app(src="paste", paste=text, algo=algorithm, vocab="300", **extra))
    assert not at.error
    assert [name for name, _ in trained_apart] == [trainer]


def test_a_small_paste_trains_in_the_server(trained_apart: list[tuple[str, Any]]) -> None:
    """The bundled samples' size (5,000 symbols): a child's start would cost more than
    their run."""
    at = run(new_app(src="paste", paste="ab" * 2_500, vocab="259", pretok="bytes"))
    assert not at.error
    assert trained_apart == []
