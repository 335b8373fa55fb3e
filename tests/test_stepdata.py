"""The browser's step record: the trainer's head of the pair table, and the payload.

The oracle for the pair-table head is ``History.pair_table``, which recounts every pair from
the boundary deaths with numpy, independently of the trainer's buckets. What the browser
draws from the payload is held equal to the engine in ``tests/browser/test_step_view.py``.
"""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import MODES, training_texts
from sample_runs import sample_history

from bpeviz.engine.history import History, train
from bpeviz.engine.samples import get_sample
from bpeviz.records.narration import count_sentence
from bpeviz.records.schema import MERGE_FIELDS, SENTENCE_FIELDS, label_runs, named
from bpeviz.records.step import (
    TOP_PAIRS,
    payload,
    payload_json,
    quiz_order,
    window_for,
    window_shows,
)
from bpeviz.web import step_page


def table_head(history: History, k: int, limit: int) -> tuple[list[tuple[int, int, int]], int]:
    table = history.pair_table(k)
    columns = (table.lefts.tolist(), table.rights.tolist(), table.counts.tolist())
    rows = list(zip(*columns, strict=True))
    tied = sum(1 for count in table.counts.tolist() if count == table.counts[0]) if rows else 0
    return rows[:limit], min(tied, limit + 1)  # counted up to limit + 1: "that many or more"


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=40, deadline=None)
@given(
    text=training_texts(),
    merges=st.integers(0, 60),
    rule=st.sampled_from(["first", "lexmin", "lexmax"]),
    limit=st.integers(1, 6),
)
def test_recorded_pair_heads_equal_the_recounted_table_and_change_no_merge(
    mode: str, text: str, merges: int, rule: str, limit: int
) -> None:
    pretokenizer, end_of_word = MODES[mode]
    base = 257 if end_of_word else 256
    options = {"pretokenizer": pretokenizer, "tie_break": rule, "end_of_word": end_of_word}
    plain = train(text, base + merges, **options)
    recorded = train(text, base + merges, top_pairs=limit, **options)
    assert recorded.steps == plain.steps
    assert len(recorded.run.pair_tops) == recorded.merge_count + 1
    for k, top in enumerate(recorded.run.pair_tops):
        rows, tied = table_head(recorded, k, limit)
        assert (list(top.rows), top.tied) == (rows, tied), f"step {k}"


def test_pair_top_counts_the_table_when_nothing_was_recorded() -> None:
    history = train("aaabdaaabac", 259, tie_break="lexmin")
    top = history.pair_top(0, 2)
    # aaabdaaabac: (a,a) 4 times, then (a,b) 2 and (b,?) once each... by hand: a a a b d a a
    # a b a c has pairs aa aa ab bd da aa aa ab ba ac: (a,a) 4, (a,b) 2.
    assert top.rows == ((97, 97, 4), (97, 98, 2)) and top.tied == 1


@pytest.mark.parametrize("key", ["english", "japanese"])
def test_a_bundled_sample_fits_its_budgets(key: str) -> None:
    """Issue 9: at most 300 KB gzipped for the record, 1 MB for the whole exported page."""
    history = sample_history(key)
    record = payload_json(history)
    assert len(gzip.compress(record.encode("utf-8"))) <= 300_000
    page = step_page(record, title="t", subtitle="s")
    assert len(page.encode("utf-8")) <= 1_000_000
    assert json.loads(record)["window"]["whole"], "a bundled sample is drawn whole"


def test_payload_says_what_the_engine_recorded() -> None:
    history = sample_history("english")
    data = payload(history)
    merges = history.merge_count
    assert data["merge_count"] == merges and data["base"] == 256
    assert data["tokens"] == [history.token_count(k) for k in range(merges + 1)]
    step = history.steps[9]
    merge = named(MERGE_FIELDS, data["merges"][9])
    assert merge == {"left": step.pair[0], "right": step.pair[1], "made": step.new_id,
                     "count": step.count, "replacements": step.replacements}  # fmt: skip
    sentences = named(SENTENCE_FIELDS, data["sentences"][9])
    assert sentences["counts"] == count_sentence(step, history.token_count(9))
    rows, tied = table_head(history, 9, TOP_PAIRS)
    assert data["tops"][9] == [value for row in rows for value in row]
    assert data["tied"][9] == tied
    symbols = len(data["symbols"])
    assert len(data["offsets"]) == symbols + 1 and len(data["death"]) == symbols
    assert max(data["death"]) <= merges + 1


def test_the_window_ends_where_no_merge_joins() -> None:
    """A long text is cut where a boundary survives every merge, so no drawn token is cut."""
    history = train(get_sample("english").text * 3, 300, pretokenizer="gpt4")
    data = payload(history, window_symbols=1_000)
    end = data["window"]["symbols"]
    assert 0 < end <= 1_000 and not data["window"]["whole"]
    _, _, death = history.text_symbols()
    assert death[end] > history.merge_count  # the boundary after the window never died
    final = history.segmentation(history.merge_count)
    assert data["window"]["bytes"] in set(final.starts.tolist())


def test_a_window_never_cuts_a_token_even_a_long_one() -> None:
    """Repeating one sentence, bytes merges grow tokens longer than the window: it takes the
    whole first token rather than half of it."""
    history = train("the cat sat on the mat. " * 400, 300, pretokenizer="bytes")
    data = payload(history, window_symbols=100)
    final = history.segmentation(history.merge_count)
    assert data["window"]["bytes"] in {*final.starts.tolist(), len(history.text)}
    assert data["window"]["bytes"] >= 100


def test_a_small_text_trained_far_keeps_a_small_record() -> None:
    """Bytes mode to 2000 on a 5 KB sample makes tokens of whole sentences: the record
    leaves their bytes and labels to be joined, and quotes them shortened (13 MB before)."""
    history = train(get_sample("english").text, 2000, pretokenizer="bytes", top_pairs=TOP_PAIRS)
    assert len(payload_json(history).encode("utf-8")) < 2_000_000


def test_label_runs_mark_broken_bytes() -> None:
    assert label_runs(b"ab") == "ab"
    assert label_runs(b"\xe6") == ["", "<E6>"]
    assert label_runs(b"a\xe6b") == ["a", "<E6>", "b"]


@pytest.mark.parametrize("step", range(40))
def test_quiz_order_offers_the_next_merge_once_among_four(step: int) -> None:
    order = quiz_order(step, TOP_PAIRS)
    assert sorted(order) == [0, 1, 2, 3], "row 0 is the real next merge; no row twice"
    assert quiz_order(step, TOP_PAIRS) == order, "the same order for the whole class"


def test_quiz_order_with_fewer_pairs_offers_what_there_is() -> None:
    assert sorted(quiz_order(7, 2)) == [0, 1] and quiz_order(7, 0) == []


def test_the_quiz_order_moves_the_answer_around() -> None:
    assert len({quiz_order(step, TOP_PAIRS).index(0) for step in range(40)}) == 4


def test_pieces_are_the_pre_tokenizers_cuts() -> None:
    """GPT-4's pattern on a line worked by hand: letters (no spaces in Japanese) one piece,
    then 。, the space, digits in threes, a space-led word, the newline."""
    text = "駅前の本屋。 12345 apples\n"
    history = train(text, 300, pretokenizer="gpt4", top_pairs=TOP_PAIRS)
    data = payload(history)
    offsets = data["offsets"]
    cuts = [offsets[symbol] for symbol in data["pieces"]]
    raw = text.encode()
    pieces = [raw[a:b].decode() for a, b in zip(cuts, [*cuts[1:], len(raw)], strict=True)]
    assert pieces == ["駅前の本屋", "。", " ", "123", "45", " apples", "\n"]
    assert "Merges never cross a piece's edge" in data["pieces_rule"]
    assert payload(train(text, 300, pretokenizer="bytes"))["pieces"] == [0]


def test_a_window_moves_to_a_merge_the_start_of_the_text_lacks() -> None:
    """A late merge of a long text may first occur far down: the window for it starts a
    little before that place, at a boundary no merge joins, and holds the merge."""
    history = train(get_sample("english").text * 3 + get_sample("japanese").text, 700,
                    pretokenizer="gpt4", top_pairs=TOP_PAIRS)  # fmt: skip
    _, offsets, death = history.text_symbols()
    late = next(step.step for step in history.steps
                if not window_shows(history, 0, step.step, 1_000))  # fmt: skip
    start = window_for(history, late, 1_000)
    assert start > 0 and death[start] > history.merge_count
    assert window_shows(history, start, late, 1_000)
    data = payload(history, window_symbols=1_000, window_from=start)
    assert data["window"]["from"] == offsets[start] and not data["window"]["whole"]
    assert late in data["death"], "the window holds a place of the merge"
    assert data["offsets"][0] == offsets[start] and len(data["symbols"]) == len(data["death"])
    assert all(0 <= piece < len(data["symbols"]) for piece in data["pieces"])
