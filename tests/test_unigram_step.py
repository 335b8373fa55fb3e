"""The Unigram step record (:mod:`bpeviz.records.unigram_step`): the cards, the window of text
and the tables, on the Hugging Face course's corpus and small texts worked by hand."""

from __future__ import annotations

import math

from bpeviz.engine.unigram import train_unigram
from bpeviz.records.unigram_step import (
    ROUND_FIELDS,
    TABLE_EDGE,
    TABLE_FIELDS,
    loss_text,
    unigram_payload,
)

COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4


def test_course_cards_say_each_round_s_sizes() -> None:
    """The seed of ▁hug ▁pug ▁pun ▁bun, every substring: 7 characters (▁ h u g p n b), 8 of
    two (▁h hu ug ▁p pu un ▁b bu), 7 of three (▁hu hug ▁pu pug pun ▁bu bun) and the 4 words:
    26. Each round keeps floor(0.75 x size), never below 12: 26 -> 19 -> 14 -> 12."""
    record = unigram_payload(train_unigram(COURSE, 12), COURSE)
    titles = [card["title"] for card in record["cards"]]
    assert titles[0].startswith("The seed: 26 tokens; loss ")
    for number, (before, after) in enumerate([(26, 19), (19, 14), (14, 12)], start=1):
        removed = before - after
        assert titles[number].startswith(
            f"Round {number}: {before} → {after} tokens; removed the {removed} whose removal "
            "raised the loss least; loss "
        )
    assert len(titles) == 4
    assert record["cards"][-1]["note"] == "Training stopped: it reached the vocab size (12)."
    assert [r["size"] for r in record["rounds"]] == [26, 19, 14, 12]
    assert [r["removed"] for r in record["rounds"]] == [7, 5, 2, 0]
    assert [r["singles"] for r in record["rounds"]] == [7, 7, 7, 7]


def test_each_card_s_losses_are_its_round_s_and_the_next() -> None:
    run = train_unigram(COURSE, 12)
    record = unigram_payload(run, COURSE)
    for number in range(1, len(run.rounds)):
        before, after = run.rounds[number - 1].loss, run.rounds[number].loss
        assert record["cards"][number]["title"].endswith(
            f"; loss {loss_text(before)} → {loss_text(after)}"
        )


def test_loss_text() -> None:
    assert loss_text(12_345.4) == "12,345"
    assert loss_text(54.525) in {"54.52", "54.53"}  # float rounding of a tie either way
    assert loss_text(999.994) == "999.99"


def test_pieces_of_a_round_are_a_prefix() -> None:
    """Pieces that live longest come first, so round r's are the first ``known``; each round's
    log probabilities are those of its own pieces, and none of a removed piece."""
    run = train_unigram(COURSE, 12)
    record = unigram_payload(run, COURSE)
    assert set(ROUND_FIELDS) == set(record["rounds"][0])
    for round_, sent in zip(run.rounds, record["rounds"], strict=True):
        pieces = record["pieces"][: sent["known"]]
        assert set(pieces) == set(round_.pieces)  # the course's words use every piece
        probability = dict(zip(round_.pieces, round_.probabilities.tolist(), strict=True))
        for piece, value in zip(pieces, sent["log_probs"], strict=True):
            assert math.isclose(value, math.log(probability[piece]))


def test_table_marks_the_removed_cheapest_first() -> None:
    run = train_unigram(COURSE, 12)
    record = unigram_payload(run, COURSE)
    for round_, sent in zip(run.rounds, record["rounds"], strict=True):
        rows = sent["table"]
        assert [row["rank"] for row in rows] == list(range(len(rows)))  # few enough: all
        removed = [record["pieces"][row["piece"]] for row in rows if row["removed"]]
        assert removed == list(round_.removed)
        assert len(rows) == min(sent["candidates"], len(round_.removed) + TABLE_EDGE)
        assert all(len(record["pieces"][row["piece"]]) > 1 for row in rows)
        assert all(tuple(row) == TABLE_FIELDS for row in rows)


def test_a_long_round_s_table_shows_the_cheapest_and_both_sides_of_the_cut() -> None:
    text = " ".join(f"w{n:03d}x{n % 7}" for n in range(400))
    run = train_unigram(text, 60)
    first = unigram_payload(run, text)["rounds"][0]
    cut = len(run.rounds[0].removed)
    assert cut > 3 * TABLE_EDGE
    ranks = [row["rank"] for row in first["table"]]
    expected = [*range(TABLE_EDGE), *range(cut - TABLE_EDGE, cut + TABLE_EDGE)]
    assert ranks == expected
    assert [row["removed"] for row in first["table"]] == [rank < cut for rank in expected]
    kept = [row["loss"] for row in first["table"] if not row["removed"]]
    assert kept == sorted(kept)


def test_window_words_and_line_breaks() -> None:
    """``a b\\n\\nc a``: the words ▁a ▁b ▁c, drawn as ▁a ▁b (two breaks) ▁c ▁a."""
    text = "a b\n\nc a"
    record = unigram_payload(train_unigram(text, 3), text)
    assert record["words"] == ["▁a", "▁b", "▁c"]
    assert record["occurrences"] == [[0, 0], [1, 0], [2, 2], [0, 0]]
    assert record["window"] == {"chars": 8, "text_chars": 8, "whole": True}
    assert record["space"] == "▁" and record["space_label"] == "␣"


def test_a_long_text_is_drawn_to_a_whole_word() -> None:
    text = "abc defg " * 50
    record = unigram_payload(train_unigram(text, 10), text, window_chars=20)
    assert record["window"] == {"chars": 17, "text_chars": 450, "whole": False}  # abc defg abc defg
    assert len(record["occurrences"]) == 4


def test_the_quiz_offers_one_token_the_next_round_removes_and_three_it_keeps() -> None:
    run = train_unigram(COURSE, 12)
    record = unigram_payload(run, COURSE)
    for round_, sent in zip(run.rounds[:-1], record["rounds"], strict=False):
        rows = [sent["table"][place] for place in sent["quiz"]]
        assert len(rows) == 4
        assert [row["removed"] for row in rows].count(True) == 1
        gone = next(record["pieces"][row["piece"]] for row in rows if row["removed"])
        assert gone in round_.removed
    assert record["rounds"][-1]["quiz"] == []  # the last round removes nothing
