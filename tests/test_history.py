"""The history rebuilds any step exactly: segmentation, pair table and counts, against the oracle.

The history keeps only the step at which each boundary vanished; these tests hold what it
rebuilds from that equal to the textbook loop's full token lists at *every* step.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import MODES, SPECIAL, training_texts

from bpeviz.engine import textbook
from bpeviz.engine.history import History, PairTable, train
from bpeviz.engine.tie_rules import TIE_BREAKS


def pair_counts(table: PairTable) -> dict[tuple[int, int], int]:
    """A pair table as ``{pair: count}``, to compare with counts worked out by hand."""
    return dict(zip(table.pairs(), table.counts.tolist(), strict=True))


def assert_history_matches(history: History, run: textbook.TextbookRun, text: str) -> None:
    """Every step the oracle kept: ids, byte spans, token counts and the ordered pair table."""
    data = text.encode("utf-8", errors="surrogateescape")
    assert history.text == data
    for k in sorted(run.sequences):
        if k > len(history.steps):
            continue
        where = f"after {k} merges"
        segmentation = history.segmentation(k)
        ids = segmentation.ids.tolist()
        assert ids == run.sequences[k], where
        assert history.token_count(k) == len(segmentation) == len(ids), where
        assert k == 0 or history.steps[k - 1].tokens_after == len(ids), where
        # Spans tile the text, and each holds the token's visible bytes (</w> is zero-width).
        starts, ends = segmentation.starts.tolist(), segmentation.ends.tolist()
        assert starts[:1] == [0] and ends[-1:] == [len(data)], where
        assert starts[1:] == ends[:-1], where
        assert [data[s:e] for s, e in zip(starts, ends, strict=True)] == [
            run.vocab[i] for i in ids
        ], where
        table = history.pair_table(k)
        rows = list(zip(table.pairs(), table.counts.tolist(), strict=True))
        assert rows == run.pair_counts[k], where
        assert pair_counts(table) == dict(run.pair_counts[k]), where
        if k < len(history.steps):
            assert table.pairs()[0] == history.steps[k].pair, where
            assert table.counts[0] == history.steps[k].count, where
        assert history.compression_ratio(k) == pytest.approx(len(data) / len(ids)), where
    for step in range(1, len(history.steps) + 1):
        assert history.tied_pairs(step) == list(run.steps[step - 1].tied), f"merge {step}"


@pytest.mark.parametrize("rule", TIE_BREAKS)
@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=200, deadline=None)
@given(text=training_texts(), merges=st.integers(0, 40), with_special=st.booleans())
def test_every_step_equals_the_textbook_loop(
    mode: str, rule: str, text: str, merges: int, with_special: bool
) -> None:
    pretokenizer, end_of_word = MODES[mode]
    options = {
        "pretokenizer": pretokenizer,
        "tie_break": rule,
        "special_tokens": [SPECIAL] if with_special else [],
        "end_of_word": end_of_word,
    }
    vocab_size = (257 if end_of_word else 256) + merges
    history = train(text, vocab_size, **options)
    run = textbook.train(text, vocab_size, **options)
    assert len(history.steps) == len(run.steps)
    assert_history_matches(history, run, text)


def test_aaabdaaabac_segmentation_at_every_step() -> None:
    """Wikipedia's example by hand: aaabdaaabac -> aa a b d aa a b a c -> aaa b d aaa b a c
    -> aaab d aaab a c (ids 256 aa, 257 aaa, 258 aaab)."""
    history = train("aaabdaaabac", 259)
    assert [history.segmentation(k).ids.tolist() for k in range(4)] == [
        list(b"aaabdaaabac"),
        [256, 97, 98, 100, 256, 97, 98, 97, 99],
        [257, 98, 100, 257, 98, 97, 99],
        [258, 100, 258, 97, 99],
    ]
    final = history.segmentation(3)
    assert final.starts.tolist() == [0, 4, 5, 9, 10]
    assert final.ends.tolist() == [4, 5, 9, 10, 11]


def test_pair_table_before_the_first_merge_by_hand() -> None:
    """aaabdaaabac: (a,a) 4, (a,b) 2, then (b,d) (d,a) (b,a) (a,c) once, in text order."""
    table = train("aaabdaaabac", 259).pair_table(0)
    assert table.pairs() == [(97, 97), (97, 98), (98, 100), (100, 97), (98, 97), (97, 99)]
    assert table.counts.tolist() == [4, 2, 1, 1, 1, 1]


def test_end_of_word_markers_are_zero_width_tokens_that_count() -> None:
    """``low lower`` with </w>: l o w </w> _ l o w e r </w> = 11 tokens over 9 bytes; each
    marker is a token with an empty span at its word's end."""
    history = train("low lower", 300, pretokenizer="words", end_of_word=True)
    segmentation = history.segmentation(0)
    assert segmentation.ids.tolist() == [108, 111, 119, 256, 32, 108, 111, 119, 101, 114, 256]
    assert segmentation.starts.tolist() == [0, 1, 2, 3, 3, 4, 5, 6, 7, 8, 9]
    assert segmentation.ends.tolist() == [1, 2, 3, 3, 4, 5, 6, 7, 8, 9, 9]
    assert history.token_count(0) == 11
    # (l,o) and (o,w) occur twice; l o w merges into "low" and the marker stays separate.
    assert [s.token for s in history.steps[:2]] == [b"lo", b"low"]
    assert history.segmentation(2).ids.tolist()[:2] == [258, 256]


def test_special_tokens_in_the_segmentation_get_ids_after_the_merges() -> None:
    """``ab<|e|>ab<|e|>`` with 1 merge: ab S ab S, and S = 256 + 1 merge = 257."""
    history = train(f"ab{SPECIAL}ab{SPECIAL}", 257, special_tokens=[SPECIAL])
    segmentation = history.segmentation(1)
    assert segmentation.ids.tolist() == [256, 257, 256, 257]
    assert segmentation.starts.tolist() == [0, 2, 7, 9]
    assert history.segmentation(0).ids.tolist() == [97, 98, 257, 97, 98, 257]


def test_pair_table_after_the_last_possible_merge_is_empty() -> None:
    history = train("abc", 1000)
    assert len(history.steps) == 2
    table = history.pair_table(2)
    assert len(table) == 0 and pair_counts(table) == {} and table.pairs() == []


def test_pair_table_is_empty_when_no_pair_is_left_in_several_chunks() -> None:
    """``ab cd`` in words mode: ab, then cd; two one-token words and no pair left.

    Documents an engine bug found by the oracle test: ``pair_table(2)`` raised IndexError
    (the grouping indexed an empty array) whenever more than one chunk remained but no pair
    did -- the last step of every run that stops with "no pair left" on a multi-word text.
    """
    history = train("ab cd", 1000, pretokenizer="words")
    assert [s.token for s in history.steps] == [b"ab", b"cd"]
    table = history.pair_table(2)
    assert len(table) == 0 and pair_counts(table) == {}


def test_tied_pairs_lists_every_tied_pair_past_the_recorded_few() -> None:
    """61 distinct characters: 60 pairs tie at 1; ``tied_pairs`` has all 60 in rule order."""
    text = "".join(chr(c) for c in range(0x21 + 60, 0x21 - 1, -1))
    pairs = [(ord(x), ord(y)) for x, y in pairwise(text)]
    assert train(text, 257).tied_pairs(1) == pairs
    assert train(text, 257, tie_break="lexmin").tied_pairs(1) == sorted(pairs)
    assert train(text, 257, tie_break="lexmax").tied_pairs(1) == sorted(pairs, reverse=True)
    assert train("the cat sat on the mat", 257).tied_pairs(1) == []


@pytest.mark.parametrize("step", [0, 4])
def test_tied_pairs_of_a_merge_that_does_not_exist_is_an_error(step: int) -> None:
    with pytest.raises(ValueError, match=r"1\.\.3"):
        train("aaabdaaabac", 259).tied_pairs(step)


@pytest.mark.parametrize("k", [-1, 4])
def test_step_out_of_range_is_an_error(k: int) -> None:
    history = train("aaabdaaabac", 259)
    for query in (history.segmentation, history.pair_table, history.token_count):
        with pytest.raises(ValueError, match=r"0\.\.3"):
            query(k)


def test_tokenizer_at_k_holds_the_first_k_merges() -> None:
    history = train("aaabdaaabac", 259)
    for k in range(4):
        tokenizer = history.tokenizer_at(k)
        assert [m[:2] for m in tokenizer.merges] == [s.pair for s in history.steps[:k]]
        assert tokenizer.encode("aaabdaaabac") == history.segmentation(k).ids.tolist()


def test_compression_ratio_is_bytes_per_token() -> None:
    history = train("aaabdaaabac", 259)
    assert [history.compression_ratio(k) for k in range(4)] == [1.0, 11 / 9, 11 / 7, 11 / 5]


def test_segmentation_arrays_are_integers() -> None:
    segmentation = train("aaabdaaabac", 259).segmentation(1)
    for array in (segmentation.starts, segmentation.ends, segmentation.ids):
        assert np.issubdtype(array.dtype, np.integer)
