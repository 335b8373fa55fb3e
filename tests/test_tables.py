"""Tests for bpeviz.app.shared.tables: pair and vocabulary tables, CSV payloads, the chart, text
stats."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from bpeviz.app.shared.tables import (
    CHOSEN_NOTE,
    PAIR_COLUMNS,
    TIED_NOTE,
    distinct_chunks,
    interesting_chunk,
    pair_csv,
    pair_frame,
    text_stats,
)
from bpeviz.engine.history import train
from bpeviz.engine.samples import get_sample
from bpeviz.engine.tokenizer import Tokenizer

# ---- pair table ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "winner"),
    [("first", (98, 97)), ("lexmin", (97, 116)), ("lexmax", (99, 97))],
)
def test_pair_table_marks_the_chosen_pair_and_flags_the_ties(rule: str, winner) -> None:
    """The ties sample (words): (b,a), (c,a), (a,t) tie at 2 (see samples.json)."""
    history = train(get_sample("ties").text, 258, pretokenizer="words", tie_break=rule)
    step = history.steps[0]
    assert step.pair == winner
    frame = pair_frame(history.pair_table(0), history.tokenizer, chosen=step.pair)
    assert list(frame.columns) == list(PAIR_COLUMNS)
    first = frame.iloc[0]
    assert (first.left_id, first.right_id) == winner
    assert first["note"] == CHOSEN_NOTE and first["count"] == step.count
    assert frame["tied"].tolist()[:3] == [True, True, True]
    assert frame["note"].tolist()[1:3] == [TIED_NOTE, TIED_NOTE]
    assert not frame["tied"].iloc[3:].any()
    assert set(zip(frame.left_id[:3], frame.right_id[:3], strict=True)) == {
        (98, 97),
        (99, 97),
        (97, 116),
    }


def test_pair_table_without_ties_flags_nothing() -> None:
    history = train("aaabdaaabac", 257)
    frame = pair_frame(history.pair_table(0), history.tokenizer, chosen=history.steps[0].pair)
    assert frame["tied"].sum() == 0
    assert frame["note"].tolist()[0] == CHOSEN_NOTE and set(frame["note"][1:]) == {""}


def test_pair_table_counts_match_the_trainer_at_every_step() -> None:
    history = train(get_sample("english").text, 300, pretokenizer="gpt4")
    for k in (0, 1, 10, 43):
        frame = pair_frame(history.pair_table(k), history.tokenizer, limit=1)
        step = history.steps[k]
        assert (frame.left_id[0], frame.right_id[0], frame["count"][0]) == (*step.pair, step.count)


def test_pair_labels_are_readable() -> None:
    history = train("a b\na b\n", 257, pretokenizer="bytes")
    frame = pair_frame(history.pair_table(0), history.tokenizer)
    labels = set(frame["left"]) | set(frame["right"])
    assert "␣" in labels and "↵" in labels and " " not in labels


def test_pair_table_limit_and_a_chosen_pair_that_is_not_first() -> None:
    """The third pair of the table is named as chosen: it is shown (rank 3) but not marked,
    since only the top row can be the pair the trainer picks."""
    history = train(get_sample("english").text, 300)
    table = history.pair_table(0)
    third = (int(table.lefts[2]), int(table.rights[2]))
    assert third != history.steps[0].pair
    frame = pair_frame(table, history.tokenizer, chosen=third, limit=5)
    assert len(frame) == 5 and frame["rank"].tolist() == [1, 2, 3, 4, 5]
    assert (frame["left_id"][2], frame["right_id"][2]) == third
    assert CHOSEN_NOTE not in frame["note"].tolist()


def test_pair_csv_holds_every_pair() -> None:
    history = train(get_sample("english").text, 300)
    table = history.pair_table(3)
    frame = pd.read_csv(io.BytesIO(pair_csv(table, history.tokenizer)), keep_default_na=False)
    assert len(frame) == len(table)
    assert frame["count"].tolist() == table.counts.tolist()
    assert list(frame.columns) == list(PAIR_COLUMNS)


def test_empty_pair_table() -> None:
    history = train("a", 300)
    assert pair_frame(history.pair_table(0), history.tokenizer).empty


# ---- text stats and pieces ----------------------------------------------------------------


def test_text_stats_count_characters_bytes_and_tokens() -> None:
    stats = text_stats("駅前 ab", 3)
    assert (stats.characters, stats.bytes, stats.tokens) == (5, 9, 3)
    assert stats.bytes_per_token == 3.0
    assert text_stats("", 0).bytes_per_token == 0.0
    assert text_stats(b"ab\xff", 2).bytes == 3


def test_distinct_chunks_follow_the_pretokenizer_in_order_of_first_appearance() -> None:
    tokenizer = Tokenizer.from_merges([], pretokenizer="gpt4", special_tokens=["<|e|>"])
    assert distinct_chunks(tokenizer, "the cat<|e|> the cat  ") == ["the", " cat", " the", "  "]


def test_distinct_chunks_in_bytes_mode_are_words() -> None:
    tokenizer = Tokenizer.from_merges([])
    assert distinct_chunks(tokenizer, "to be or not to be") == ["to", " be", " or", " not", " to"]


def test_distinct_chunks_in_words_mode_skip_whitespace() -> None:
    tokenizer = Tokenizer.from_merges([], pretokenizer="words")
    assert distinct_chunks(tokenizer, "low  lower\nlow") == ["low", "lower"]


def test_distinct_chunks_limit() -> None:
    tokenizer = Tokenizer.from_merges([], pretokenizer="words")
    text = " ".join(f"w{i}" for i in range(1000))
    assert len(distinct_chunks(tokenizer, text, limit=10)) == 10


def test_interesting_chunk_prefers_a_word_that_merges_but_still_splits() -> None:
    history = train(get_sample("english").text, 300, pretokenizer="gpt4")
    chunks = distinct_chunks(history.tokenizer, "The printer, 1234!")
    index = interesting_chunk(history.tokenizer, chunks)
    chosen = chunks[index]
    assert chosen.strip().isalpha()
    assert len(history.tokenizer.encode(chosen)) >= 2
    assert history.tokenizer.encode_trace(chosen)
    assert interesting_chunk(history.tokenizer, []) == 0
