"""The sentences of the merge card, checked against walk-throughs worked by hand."""

from __future__ import annotations

import pytest

from bpeviz.engine.history import History, train
from bpeviz.engine.samples import get_sample
from bpeviz.records.narration import count_sentence, first_merge_sentence, tie_sentence


def ties_history(rule: str) -> History:
    return train(get_sample("ties").text, 258, pretokenizer="words", tie_break=rule)


@pytest.mark.parametrize(
    ("rule", "winner", "reason"),
    [
        ("first", "“b” + “a”", "appears first in the text"),
        ("lexmin", "“a” + “t”", "smallest"),
        ("lexmax", "“c” + “a”", "largest"),
    ],
)
def test_tie_sentence_names_the_tied_pairs_the_rule_and_why(
    rule: str, winner: str, reason: str
) -> None:
    """samples.json: with words, (b,a), (c,a), (a,t) tie at 2; first/lexmin/lexmax pick
    (b,a) / (a,t) / (c,a)."""
    history = ties_history(rule)
    step = history.steps[0]
    sentence = tie_sentence(step, history.tokenizer, history.tied_pairs(1), 3)
    assert sentence is not None
    assert sentence.startswith("3 pairs occurred 2 times each")
    for pair in ("“b” + “a”", "“c” + “a”", "“a” + “t”"):
        assert pair in sentence
    assert f"The rule “{rule}” picked {winner}" in sentence
    assert reason in sentence
    assert "more" not in sentence


def test_a_long_tie_lists_five_and_counts_the_rest() -> None:
    """Eight distinct two-letter words, once each: eight pairs tie at 1, and a count of 1 is
    "once", not "1 times" (the plural stays for 2: the ties sample above)."""
    history = train("ab cd ef gh ij kl mn op", 257, pretokenizer="words", tie_break="lexmin")
    step = history.steps[0]
    pairs = history.tied_pairs(1)
    assert len(pairs) == 8
    sentence = tie_sentence(step, history.tokenizer, pairs, len(pairs))
    assert sentence is not None and sentence.startswith("8 pairs occurred once each: ")
    assert sentence.count("(“") == 5 and "and 3 more" in sentence


def test_no_tie_no_sentence() -> None:
    history = train("aaabdaaabac", 257)
    assert tie_sentence(history.steps[0], history.tokenizer, [], 1) is None


def test_count_sentence_explains_overlaps() -> None:
    """(a, a) occurs 4 times in aaabdaaabac counting overlaps, but only 2 merge."""
    history = train("aaabdaaabac", 257)
    step = history.steps[0]
    assert (step.count, step.replacements) == (4, 2)
    sentence = count_sentence(step, 11)
    assert "4 times" in sentence and "2 were replaced" in sentence and "11 to 9" in sentence


def test_first_merge_sentence_names_the_first_merge() -> None:
    history = train("aaabdaaabac", 259, tie_break="lexmin")
    sentence = first_merge_sentence(history.steps[0], history.tokenizer)
    assert "Merge 1 will join “a” + “a”" in sentence
    assert "nothing to merge" in first_merge_sentence(None, history.tokenizer)


def test_first_merge_sentence_says_what_was_counted_and_what_will_be_replaced() -> None:
    """aaabdaaabac: "aaa" twice, each holding a+a at two overlapping places, so a+a is
    counted 4 times; merging left to right replaces 2 (aaa -> Za, twice), and those 2 are
    the ones outlined. The lecturer read "4 times… outlined below" and counted 2 outlines."""
    history = train("aaabdaaabac", 259, tie_break="lexmin")
    sentence = first_merge_sentence(history.steps[0], history.tokenizer)
    assert "counted 4 times, overlapping occurrences included" in sentence
    assert "left to right, 2 of them will be replaced: the 2 outlined below" in sentence


def test_first_merge_sentence_without_overlaps_says_all() -> None:
    """"west west": w+e occurs twice, never overlapping, and both are replaced."""
    history = train("west west", 258, pretokenizer="words", end_of_word=True)
    sentence = first_merge_sentence(history.steps[0], history.tokenizer)
    assert "occurs 2 times" in sentence and "overlapping" not in sentence
    assert "every occurrence will be replaced (outlined below)" in sentence


def test_a_tie_counted_only_so_far_says_at_least() -> None:
    """The trainer counts a tie up to 13 pairs (TOP_PAIRS + 1): then the card says so."""
    history = train("ab cd ef gh ij kl mn op", 257, pretokenizer="words", tie_break="lexmin")
    pairs = history.tied_pairs(1)
    sentence = tie_sentence(history.steps[0], history.tokenizer, pairs, 8, at_least=True)
    assert sentence is not None and sentence.startswith("At least 8 pairs occurred once each: ")
    assert sentence.count("(“") == 5 and "and more." in sentence


def test_count_sentence_says_one_token_and_one_replaced() -> None:
    """"to 1 tokens" and "1 were replaced" (issue 17's count nouns)."""
    history = train("aa", 257)  # one pair, once: 2 tokens become 1
    sentence = count_sentence(history.steps[0], 2)
    assert sentence.endswith("The text went from 2 to 1 token.")
    overlap = train("aaa", 257).steps[0]  # (a, a) twice, overlapping: one merge
    assert (overlap.count, overlap.replacements) == (2, 1)
    assert "so 1 was replaced, left to right" in count_sentence(overlap, 3)
