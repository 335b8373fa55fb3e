"""What the server's caches of runs hold, in bytes (issue 29: memory back near its baseline
after a crowd at the training budget has gone).

``History.memory_bytes`` is checked against Python's own allocation tracer (tracemalloc),
not against itself; the run cache against that bound after many runs at the budget.
"""

from __future__ import annotations

import gc
import threading
import tracemalloc
from types import SimpleNamespace

import pytest

from bpeviz.app.frame.reaper import sweep_once
from bpeviz.app.frame.run_settings import Settings
from bpeviz.app.frame.sized_cache import SizedCache
from bpeviz.engine.budget import SERVER_BUDGET
from bpeviz.engine.history import History
from bpeviz.engine.samples import get_sample
from bpeviz.engine.trainer import corpus_for, run_training
from bpeviz.records.step import TOP_PAIRS


def _train(text: str, vocab_size: int, pretokenizer: str) -> History:
    config = Settings(vocab_size=vocab_size, pretokenizer=pretokenizer).config()
    corpus = corpus_for(text, config)
    return History(run_training(corpus, config, top_pairs=TOP_PAIRS, budget=SERVER_BUDGET))


def _traced(make: object) -> tuple[History, int]:
    """A history with its tokenizer built, and the bytes tracemalloc saw it keep."""
    gc.collect()
    tracemalloc.start()
    try:
        history = make()  # type: ignore[operator]
        history.tokenizer  # noqa: B018 (built and kept: the Step page builds it)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return history, held


def _words(size: int, seed: int) -> str:
    """A text of English words that does not repeat itself (each seed its own)."""
    import random

    words = get_sample("english").text.split()
    rng = random.Random(seed)
    return " ".join(rng.choice(words) for _ in range(size // 3))[:size]


def test_memory_bytes_counts_what_a_run_at_the_budget_holds() -> None:
    # 20 KB in bytes mode trained far: the long tokens, the recorded pair tables and the
    # tokenizer are most of it (the arrays alone are a tenth).
    text = _words(20_000, 1)
    history, held = _traced(lambda: _train(text, 2256, "bytes"))
    assert 0.7 * held <= history.memory_bytes() <= 1.5 * held


def test_memory_bytes_counts_a_small_sample_run() -> None:
    history, held = _traced(lambda: _train(get_sample("english").text, 1000, "gpt4"))
    assert 0.7 * held <= history.memory_bytes() <= 1.5 * held


def _history_cache(max_bytes: int) -> SizedCache[tuple[str, int], History]:
    return SizedCache(max_bytes, keep=lambda key: key[0] == "sample", most_kept=4)


def test_runs_past_the_byte_bound_are_let_go_and_the_sample_run_stays() -> None:
    cache = _history_cache(max_bytes=6_000_000)
    sample = cache.get(("sample", 0), lambda: _train(get_sample("english").text, 1000, "gpt4"),
                       History.memory_bytes)  # fmt: skip
    made: list[int] = []
    for seed in range(6):

        def make(seed: int = seed) -> History:
            made.append(seed)
            return _train(_words(20_000, seed), 2256, "bytes")

        cache.get(("paste", seed), make, History.memory_bytes)
        assert cache.held_bytes(kept=False) <= 6_000_000
    assert made == list(range(6))
    assert cache.held_bytes(kept=False) > 0  # the last runs stay for the next rerun
    again = cache.get(("sample", 0), lambda: _train("retrained", 300, "gpt4"), History.memory_bytes)
    assert again is sample  # the class's sample was not trained again


def test_a_run_is_made_once_while_it_is_kept() -> None:
    cache: SizedCache[str, bytes] = SizedCache(100, keep=lambda key: False, most_kept=0)
    calls: list[str] = []

    def make(key: str) -> bytes:
        calls.append(key)
        return b"x" * 40

    for key in ["a", "b", "a", "c", "a", "d", "b"]:  # b is let go when d comes: a was used
        cache.get(key, lambda key=key: make(key), len)
    assert calls == ["a", "b", "c", "d", "b"]
    assert cache.held_bytes(kept=False) <= 100


def test_one_value_past_the_bound_is_kept_until_the_next() -> None:
    cache: SizedCache[str, bytes] = SizedCache(100, keep=lambda key: False, most_kept=0)
    big = cache.get("big", lambda: b"x" * 500, len)
    assert cache.get("big", lambda: b"other", len) is big  # the session's rerun reuses it
    cache.get("small", lambda: b"y", len)
    assert cache.held_bytes(kept=False) == 1


def test_kept_keys_are_bounded_by_count_least_recently_used_first() -> None:
    cache: SizedCache[str, bytes] = SizedCache(10, keep=lambda key: True, most_kept=2)
    calls: list[str] = []
    for key in ["s1", "s2", "s1", "s3", "s1", "s2"]:
        cache.get(key, lambda key=key: calls.append(key) or key.encode() * 100, len)
    assert calls == ["s1", "s2", "s3", "s2"]


def test_a_failed_make_keeps_nothing_and_is_tried_again() -> None:
    cache: SizedCache[str, bytes] = SizedCache(100, keep=lambda key: False, most_kept=0)

    def refuse() -> bytes:
        raise ValueError("over budget")

    for _ in range(2):
        with pytest.raises(ValueError, match="over budget"):
            cache.get("a", refuse, len)
    assert cache.get("a", lambda: b"ok", len) == b"ok"
    assert cache.held_bytes(kept=False) == 2


def test_runs_of_closed_sessions_are_let_go_the_samples_stay() -> None:
    cache: SizedCache[str, bytes] = SizedCache(10**6, keep=lambda key: key == "sample", most_kept=4)
    cache.get("sample", lambda: b"s" * 10, len, user="gone")
    cache.get("paste-a", lambda: b"a" * 100, len, user="gone")
    cache.get("paste-b", lambda: b"b" * 200, len, user="gone")
    cache.get("paste-b", lambda: b"b" * 200, len, user="here")  # two sessions share it
    cache.get("unnamed", lambda: b"u" * 400, len)  # made outside any session: bytes bound only
    assert cache.let_go_of_closed(alive={"here"}) == 100
    assert cache.held_bytes(kept=False) == 600
    assert cache.let_go_of_closed(alive=set()) == 200
    assert cache.held_bytes(kept=True) == 10


def test_a_sweep_hands_the_live_sessions_to_let_go_of_the_rest() -> None:
    class Info:
        def __init__(self, session_id: str) -> None:
            self.session = SimpleNamespace(id=session_id, shutdown=lambda: None)

    table = SimpleNamespace(expire=lambda: [("closed", Info("closed"))])
    manager = SimpleNamespace(
        _session_storage=SimpleNamespace(_cache=table),
        _storage_lock=threading.Lock(),
        list_sessions=lambda: [Info("open"), Info("resumable")],
    )
    seen: list[set[str]] = []
    assert sweep_once(SimpleNamespace(_session_mgr=manager), seen.append) == 1
    assert seen == [{"open", "resumable"}]


class _CountingTokenizer:
    """Encodes a text as its code points, counting how often it is asked."""

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, text: str) -> list[int]:
        self.calls += 1
        return [ord(char) for char in text]


def test_encodings_are_bounded_in_bytes_and_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Tokenize and Compare pages' encodings: at most ``ENCODE_BYTES`` of ids (4 bytes
    each), least recently used let go first. Three texts of 1,000 characters (4,000 bytes
    of ids each) in 10,000 bytes: the first goes when the third comes, the others stay, and
    an encoding kept is the same ids for every caller (a fresh list each)."""
    from bpeviz.app.frame import training

    monkeypatch.setattr(training, "ENCODE_BYTES", 10_000)
    training.encodings.clear()
    tokenizer = _CountingTokenizer()
    texts = ["a" * 1_000, "b" * 1_000, "c" * 1_000]
    for text in texts:
        assert training.encode(tokenizer, "counting", text) == [ord(text[0])] * 1_000
    assert tokenizer.calls == 3
    assert training.encodings().held_bytes(kept=False) == 8_000
    first = training.encode(tokenizer, "counting", texts[2])
    first.append(0)  # a caller's list is its own
    assert training.encode(tokenizer, "counting", texts[2]) == [ord("c")] * 1_000
    assert tokenizer.calls == 3  # the second and third were kept
    training.encode(tokenizer, "counting", texts[0])
    assert tokenizer.calls == 4  # the first was let go
    training.encodings.clear()
