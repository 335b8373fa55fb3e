"""The WordPiece step record (``bpeviz/records/wordpiece_step.py``) cuts the text as the trainer
left it: at the last step, each word drawn is the run's own segmentation of that word
(``WordPieceRun.segmentation``, which ``tests/test_wordpiece.py`` holds to the textbook recipe),
on generated texts, by score and by frequency, with ``#`` in the text and merges whose token
already existed. The cut is computed here as the browser's ``tokensAt`` computes it (a token
starts where its boundary outlives the step; its id is the last merge inside it).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bpeviz.engine.wordpiece import train_wordpiece
from bpeviz.engine.wordpiece_history import WordPieceHistory
from bpeviz.records.schema import Kind
from bpeviz.records.step import TOP_PAIRS
from bpeviz.records.wordpiece_step import payload, window_for, window_shows

WORDS = st.text(alphabet="ab#c", min_size=1, max_size=6)


def tokens_at(record: dict[str, Any], k: int) -> list[list[str]]:
    """The words drawn at step ``k``, each as its tokens' names (## put back)."""
    vocab, base = record["vocab"], record["base"]

    def name(token: int) -> str:
        entry = vocab[token]
        return ("##" if entry[2] == Kind.CONTINUATION else "") + entry[0]

    pieces = set(record["pieces"])
    words: list[list[str]] = []
    inner = -1
    start = 0
    symbols, death = record["symbols"], record["death"]
    for index in range(1, len(symbols) + 1):
        if index == len(symbols) or death[index] > k:
            token = base + inner - 1 if inner > 0 else symbols[start]
            if start in pieces:
                words.append([])
            words[-1].append(name(token))
            start, inner = index, -1
        elif death[index] > inner:
            inner = death[index]
    return words


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(WORDS, min_size=1, max_size=12),
    size=st.integers(min_value=1, max_value=40),
    rule=st.sampled_from(["score", "frequency"]),
    tie=st.sampled_from(["first", "lexmin", "lexmax"]),
)
def test_the_last_step_draws_each_word_as_training_left_it(
    words: list[str], size: int, rule: str, tie: str
) -> None:
    text = " ".join(words)
    run = train_wordpiece(text, size, score_rule=rule, tie_break=tie, top_pairs=TOP_PAIRS)
    record = payload(WordPieceHistory(text, run))
    drawn = tokens_at(record, record["merge_count"])
    assert drawn == [run.segmentation(word) for word in text.split()]
    assert tokens_at(record, 0) == [
        [word[0], *(f"##{char}" for char in word[1:])] for word in text.split()
    ]
    assert record["tokens"][-1] == sum(map(len, drawn))


def test_a_merge_whose_token_existed_is_drawn_as_its_text() -> None:
    """tests/test_wordpiece.py's case: in "##u ##u hu" by count, # + ### makes ## (a word's
    start), then ## + ##u makes the text ##u, which is already the continuation of u: the
    vocabulary does not grow. The record draws the word "##u" as one plain token "##u" (it
    starts its word) and "hu" as h ##u (the continuation)."""
    text = "##u ##u hu"
    run = train_wordpiece(text, 12, score_rule="frequency", tie_break="lexmin", top_pairs=12)
    record = payload(WordPieceHistory(text, run))
    assert record["existed"] == [2]
    drawn = tokens_at(record, 2)
    assert drawn == [["##u"], ["##u"], ["h", "##u"]]
    made = record["merges"][1][2]
    assert record["vocab"][made][2] == Kind.PLAIN and record["vocab"][made][0] == "##u"


# A long text whose merges lie at both ends, worked by hand (score rule, ties "first"): "cd" and
# "xy" each occur once, their characters nowhere else, so c + ##d and x + ##y score
# 1 / (1 × 1) = 1, the best; "cd" comes first in the text, so it is merge 1 and x + ##y
# merge 2; "ab", 3,000 times, scores 3,000 / (3,000 × 3,000) and is merge 3. "xy" starts at
# character 3 + 3 × 3,000 = 9,003, past the first 6,000 characters the view draws.
LONG = "cd " + "ab " * 3_000 + "xy"
LONG_VOCAB = 13  # [UNK], a b c d x y (every character plain), ##b ##d ##y, three merges


def drawn_places(record: dict[str, Any], merge: int) -> list[int]:
    """The byte offsets of the characters that ``merge`` joined to the one before them."""
    return [
        offset
        for offset, died in zip(record["offsets"], record["death"], strict=False)
        if died == merge
    ]


def test_a_long_texts_window_moves_to_the_merge_it_shows() -> None:
    history = WordPieceHistory(LONG, train_wordpiece(LONG, LONG_VOCAB, top_pairs=TOP_PAIRS))
    late = LONG.find("xy")  # 9,003: its ##y is joined by merge 2
    assert late > 6_000 and [step.token for step in history.run.steps] == ["cd", "xy", "ab"]
    first = payload(history)
    assert drawn_places(first, 1) == [1] and drawn_places(first, 2) == []
    assert not first["window"]["whole"] and first["window"]["from"] == 0
    assert not window_shows(history, 0, 2) and window_shows(history, 0, 1)
    moved = payload(history, window_from=window_for(history, 2))
    assert drawn_places(moved, 2) == [late + 1]
    assert moved["window"]["bytes"] == len(LONG) and 0 < moved["window"]["from"] < late
    assert moved["window"]["from"] >= late - 6_000  # its first pages are out of sight
    labels = [moved["vocab"][symbol][0] for symbol in moved["symbols"]]
    assert labels[:2] == ["a", "b"] and labels[-2:] == ["x", "y"]  # whole words at both ends
    assert moved["pieces"][0] == 0 and len(moved["symbols"]) <= 6_000
    assert LONG[moved["window"]["from"] : moved["window"]["from"] + 3] == "ab "
    assert window_shows(history, window_for(history, 2), 2)
    assert window_for(history, 1) == 0


@settings(max_examples=40, deadline=None)
@given(
    words=st.lists(WORDS, min_size=1, max_size=30),
    size=st.integers(min_value=1, max_value=40),
    window=st.integers(min_value=1, max_value=12),
)
def test_every_merge_is_drawn_in_the_window_picked_for_it(
    words: list[str], size: int, window: int
) -> None:
    """With a window of a few characters, the window picked for each merge draws a place of it,
    whole words of the text (each drawn character is the text's at its offset)."""
    text = " ".join(words)
    history = WordPieceHistory(text, train_wordpiece(text, size, top_pairs=TOP_PAIRS))
    for merge in range(1, history.merge_count + 1):
        start = window_for(history, merge, window)
        record = payload(history, window_symbols=window, window_from=start)
        assert merge in record["death"] and window_shows(history, start, merge, window)
        drawn = text.encode()[record["window"]["from"] : record["window"]["bytes"]].decode()
        assert [record["vocab"][symbol][0] for symbol in record["symbols"]] == list(
            drawn.replace(" ", "")
        )
        assert f" {drawn} " in f" {text} "  # whole words, never a cut one


def test_step_zero_says_why_nothing_merges() -> None:
    """Step 0's second sentence names the run's true reason when no merge is made. ``hug pug``
    starts with 7 tokens ([UNK], g h p u, ##g ##u): at vocab 5 the vocabulary is already full,
    though every word has pairs; ``a b a`` has no word of two characters, at any size."""
    full = train_wordpiece("hug pug", 5)
    start = payload(WordPieceHistory("hug pug", full))["start"]
    assert "two characters" not in start[1]
    assert start[1] == (
        "Nothing will be merged: the first vocabulary already has 7 tokens, at least the vocab "
        "size of 5 asked for."
    )
    single = train_wordpiece("a b a", 30)
    start = payload(WordPieceHistory("a b a", single))["start"]
    assert start[1] == "No word has two characters here, so there is nothing to merge."
