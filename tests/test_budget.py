"""A run's cost is bounded: the trainer's memory is linear in the text, whatever the vocab.

A small text trained in ``bytes`` mode to the end ends as one token of the whole text, and
its tokens grow with it: kept as bytes, the tokens of every merge sum to about a twelfth of
the text's length squared (200 MB for 50 KB). The sizes below are small enough to run in a
second, and large enough for that square to show.
"""

from __future__ import annotations

import random
import re
import tracemalloc
from pathlib import Path

from bpeviz.config import MAX_VOCAB_SIZE, TrainingConfig
from bpeviz.trainer import run_training

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
