"""A bundled sample trained as the app opens it: the one helper every test uses when it needs
the engine's history of a sample (the expected values then come from the engine, called in
the test, never from the page under test).

The sidebar's settings for a sample come from ``sample_texts/samples.json``; the app's
training cache also records the head of the pair table (``top_pairs``), so this does too.
Cached: a history is not modified by the tests that read it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from bpeviz.engine.history import History, train
from bpeviz.engine.samples import get_sample
from bpeviz.records.step import TOP_PAIRS


@cache
def sample_history(key: str, **overrides: Any) -> History:
    """``key``'s text trained with its suggested settings, any of them overridden."""
    sample = get_sample(key)
    options: dict[str, Any] = {
        "vocab_size": sample.settings.vocab_size,
        "pretokenizer": sample.settings.pretokenizer,
        "tie_break": sample.settings.tie_break,
        "end_of_word": sample.settings.end_of_word,
        "top_pairs": TOP_PAIRS,
    }
    options.update(overrides)
    return train(sample.text, options.pop("vocab_size"), **options)
