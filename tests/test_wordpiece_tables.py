"""The WordPiece CSV downloads: the whole score table at any step, against the textbook recipe
replayed to that step, and the course's corpus worked by hand (Hugging Face LLM course,
chapter 6, "WordPiece tokenization")."""

from __future__ import annotations

import csv
import io
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from bpeviz.app.shared import wordpiece_tables
from bpeviz.engine import wordpiece_textbook
from bpeviz.engine.wordpiece import split_words, train_wordpiece, word_symbols
from bpeviz.engine.wordpiece_history import WordPieceHistory

COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
TEXTS = st.lists(st.text(alphabet="abcé#", min_size=1, max_size=7), min_size=1, max_size=30).map(
    " ".join
)


def course(rule: str = "score") -> WordPieceHistory:
    return WordPieceHistory(COURSE, train_wordpiece(COURSE, 15, score_rule=rule))


def rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


@settings(max_examples=100, deadline=None)
@given(
    text=TEXTS,
    vocab_size=st.integers(1, 40),
    score_rule=st.sampled_from(["score", "frequency"]),
    tie_break=st.sampled_from(["first", "lexmin", "lexmax"]),
    data=st.data(),
)
def test_the_whole_table_at_a_step_is_the_textbooks_ranking(
    text: str, vocab_size: int, score_rule: str, tie_break: str, data: st.DataObject
) -> None:
    """The textbook's merges replayed ``k`` times on every word, then its table ranked."""
    run = train_wordpiece(text, vocab_size, score_rule=score_rule, tie_break=tie_break)
    k = data.draw(st.integers(0, len(run.steps)))
    counts = Counter(split_words(text))
    splits = {word: word_symbols(word) for word in counts}
    for step in run.steps[:k]:
        pair = (step.left, step.right)
        splits = {word: wordpiece_textbook.merge_word(cut, pair) for word, cut in splits.items()}
    pairs, tokens = wordpiece_textbook.pair_table(splits, counts)
    ranked = wordpiece_textbook._ranked(pairs, tokens, score_rule, tie_break, run.vocab_ids())
    table = WordPieceHistory(text, run).pair_table(k)
    assert [(run.vocab[row.left], run.vocab[row.right], row.count) for row in table] == [
        (*pair, count) for pair, count in ranked
    ]
    assert all(row.left_count == tokens[run.vocab[row.left]] for row in table)


def test_score_table_before_merge_2_worked_by_hand() -> None:
    """After ##g + ##s: hug 10 h ##u ##g, pug 5 p ##u ##g, pun 12 p ##u ##n, bun 4 b ##u ##n,
    hugs 5 h ##u ##gs. Tokens: h 15, p 17, b 4, ##u 36, ##g 15, ##n 16, ##gs 5. Pairs and
    scores: (##u, ##gs) 5 / (36 × 5) = 1/36, (h, ##u) 15 / (15 × 36) = 1/36, (p, ##u)
    17 / (17 × 36) = 1/36, (b, ##u) 4 / (4 × 36) = 1/36, (##u, ##g) 15 / (36 × 15) = 1/36,
    (##u, ##n) 16 / (36 × 16) = 1/36: six pairs tie, and ``first`` takes (h, ##u), the one seen
    first; merge 2 is that pair."""
    table = rows(wordpiece_tables.score_csv(course(), 2))
    assert len(table) == 6
    assert {row["score"] for row in table} == {"1/36"}
    assert [(row["left"], row["right"], row["count"]) for row in table[:3]] == [
        ("h", "##u", "15"),
        ("##u", "##g", "15"),
        ("p", "##u", "17"),
    ]
    assert [row["chosen"] for row in table] == ["True"] + ["False"] * 5
    assert table[0]["left_count"] == "15" and table[0]["right_count"] == "36"


def test_merges_csv_has_scores_and_the_most_frequent_pair() -> None:
    """Merge 1 ##g + ##s at 5 / (20 × 5) = 1/20 while ##u + ##g occurs 20 times; merge 2
    h + ##u at 1/36 while p + ##u occurs 17 times (table above); merge 3 hu + ##gs at
    5 / (15 × 5) = 1/15."""
    merges = rows(wordpiece_tables.merge_csv(course(), 3))
    assert [(row["left"], row["right"], row["token"], row["score"]) for row in merges] == [
        ("##g", "##s", "##gs", "1/20"),
        ("h", "##u", "hu", "1/36"),
        ("hu", "##gs", "hugs", "1/15"),
    ]
    assert [(row["most_frequent"], row["most_frequent_count"]) for row in merges[:2]] == [
        ("##u ##g", "20"),
        ("p ##u", "17"),
    ]
    assert float(merges[0]["score_decimal"]) == 0.05
    assert merges[1]["tied"].split("; ")[0] == "h ##u"


def test_the_frequency_rule_ranks_by_count() -> None:
    """By frequency the course's first table starts with ##u + ##g, 20 times (hug 10, pug 5,
    hugs 5), then p + ##u, 17 (pug 5, pun 12)."""
    table = rows(wordpiece_tables.score_csv(course("frequency"), 0))
    assert [(row["left"], row["right"], row["count"]) for row in table[:2]] == [
        ("##u", "##g", "20"),
        ("p", "##u", "17"),
    ]


def test_a_token_that_a_spreadsheet_would_run_is_quoted() -> None:
    history = WordPieceHistory("=a =a", train_wordpiece("=a =a", 10))
    assert rows(wordpiece_tables.merge_csv(history, 1))[0]["token"] == "'=a"
