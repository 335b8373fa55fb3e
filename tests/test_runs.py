"""Tests for bpeviz.app.two_runs.parting and runs_view: two training runs of one text, merge by
merge.

Every expected value below is worked out by hand in the test's docstring.
"""

from __future__ import annotations

import re

import pytest

from bpeviz.app.two_runs.parting import (
    CURVE_COLUMNS,
    MERGE_COLUMNS,
    FirstDifference,
    Merge,
    curves_chart,
    curves_frame,
    cut_by,
    first_difference,
    merge_frame,
    merges_of,
    only_in,
)
from bpeviz.app.two_runs.view import crossing_sentence, difference_html, difference_reason
from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.history import train

WIKI = "aaabdaaabac"


@pytest.fixture(scope="module")
def first_vs_lexmin():
    """``aaabdaaabac`` to vocab 259 (three merges) with tie rule ``first`` (A) and ``lexmin`` (B).

    By hand (counts include overlaps, replacement left to right):

    - merge 1, both: pairs aa 4, ab 2, bd 1, da 1, ba 1, ac 1, so a + a → aa (count 4);
      the text becomes ``aa a b d aa a b a c`` (9 tokens).
    - merge 2: (aa, a) 2, (a, b) 2, (b, d) 1, (d, aa) 1, (b, a) 1, (a, c) 1: a tie at 2.
      ``first`` takes the pair met first in the text, (aa, a) at offset 0 → aaa;
      ``lexmin`` takes the smaller ids, (97, 98) < (256, 97), so a + b → ab. 7 tokens each.
    - merge 3: A has ``aaa b d aaa b a c``: (aaa, b) 2 is alone on top → aaab.
      B has ``aa ab d aa ab a c``: (aa, ab) 2 is alone on top → aaab. 5 tokens each.
    """
    a = train(WIKI, 259, pretokenizer="bytes", tie_break="first")
    b = train(WIKI, 259, pretokenizer="bytes", tie_break="lexmin")
    return a, b


@pytest.fixture(scope="module")
def bytes_vs_gpt4():
    """``ab ab ab`` (8 bytes) to vocab 260 with the ``bytes`` (A) and ``gpt4`` (B) pre-tokenizers.

    A, one piece: (a, b) 3, (b, ␣) 2, (␣, a) 2 → ab; then ``ab ␣ ab ␣ ab`` has (ab, ␣) 2 and
    (␣, ab) 2 tied, ``first`` takes (ab, ␣) → ``ab␣``; then ``ab␣ ab␣ ab`` has (ab␣, ab␣) 1
    and (ab␣, ab) 1 tied, the first → ``ab␣ab␣``; then ``ab␣ab␣ + ab`` → ``ab␣ab␣ab``.
    Tokens 8, 5, 3, 2, 1.
    B, pieces ``ab`` ``␣ab`` ``␣ab``: (a, b) 3 → ab; then (␣, ab) 2 → ``␣ab``; then every
    piece is one token and training stops after 2 merges. Tokens 8, 5, 3.
    """
    a = train("ab ab ab", 260, pretokenizer="bytes", tie_break="first")
    b = train("ab ab ab", 260, pretokenizer="gpt4", tie_break="first")
    return a, b


def texts(merges: list[Merge]) -> list[str]:
    return [merge.text() for merge in merges]


def test_merges_are_compared_as_bytes(first_vs_lexmin) -> None:
    a, b = first_vs_lexmin
    assert texts(merges_of(a)) == ["a + a → aa", "aa + a → aaa", "aaa + b → aaab"]
    assert texts(merges_of(b)) == ["a + a → aa", "a + b → ab", "aa + ab → aaab"]
    assert [m.count for m in merges_of(a)] == [4, 2, 2]
    # Id 257 means aaa in A and ab in B: only bytes can be compared.
    assert a.steps[1].new_id == b.steps[1].new_id == 257


def test_the_cards_chips_are_coloured_by_id_as_the_browser_colours_them(first_vs_lexmin) -> None:
    """Merge 2 of A joins aa (256) and a (97) into aaa (257); of B, a (97) and b (98) into ab
    (257). The palette has 8 colours and a token's is its id mod 8 (dom.js's colourClass)."""
    a, b = first_vs_lexmin
    difference = first_difference(merges_of(a), merges_of(b))
    assert difference is not None
    assert (difference.a.ids, difference.b.ids) == ((256, 97, 257), (97, 98, 257))
    html = difference_html(difference, merge_counts=(3, 3))
    chips = re.findall(r'class="bpe-chip (bpe-c\d)">([^<]*)<', html)
    assert chips == [
        ("bpe-c0", "aa"), ("bpe-c1", "a"), ("bpe-c1", "aaa"),
        ("bpe-c1", "a"), ("bpe-c2", "b"), ("bpe-c1", "ab"),
    ]  # fmt: skip


def test_first_difference_is_the_tie_at_merge_2(first_vs_lexmin) -> None:
    a, b = first_vs_lexmin
    difference = first_difference(merges_of(a), merges_of(b))
    assert difference is not None
    assert difference.step == 2
    assert difference.a == Merge(2, b"aa", b"a", 2)
    assert difference.b == Merge(2, b"a", b"b", 2)
    assert difference.same_count
    assert difference_reason(
        difference, TrainingConfig(512, "bytes", "first"), TrainingConfig(512, "bytes", "lexmin")
    ) == (
        "Both pairs occurred 2 times: a tie, which the rules first (A) and lexmin (B) break "
        "differently."
    )


def test_only_in_each_run_and_the_token_both_build(first_vs_lexmin) -> None:
    """A alone merges aa + a and aaa + b; B alone a + b and aa + ab; both end with aaab."""
    merges_a, merges_b = (merges_of(run) for run in first_vs_lexmin)
    only_a, only_b = only_in(merges_a, merges_b), only_in(merges_b, merges_a)
    assert texts(only_a) == ["aa + a → aaa", "aaa + b → aaab"]
    assert texts(only_b) == ["a + b → ab", "aa + ab → aaab"]
    frame = merge_frame(only_a, merges_b, crossing=[only_a[1]])
    assert list(frame.columns) == list(MERGE_COLUMNS)
    assert frame["crosses"].tolist() == ["", "yes"]
    assert frame["merge"].tolist() == [2, 3]
    assert frame["token"].tolist() == ["aaa", "aaab"]
    assert frame["other_run"].tolist() == ["no", "yes, from other parents"]


def test_curves_of_both_runs(first_vs_lexmin, bytes_vs_gpt4) -> None:
    """Both tie rules give 11, 9, 7, 5 tokens (bytes per token 11/11, 11/9, 11/7, 11/5)."""
    a, b = first_vs_lexmin
    frame = curves_frame({"A": a, "B": b})
    assert list(frame.columns) == list(CURVE_COLUMNS)
    for name in ("A", "B"):
        run = frame[frame["run"] == name]
        assert run["merges"].tolist() == [0, 1, 2, 3]
        assert run["tokens"].tolist() == [11, 9, 7, 5]
        assert run["bytes_per_token"].tolist() == pytest.approx([1, 11 / 9, 11 / 7, 11 / 5])
    a, b = bytes_vs_gpt4
    frame = curves_frame({"A": a, "B": b})
    assert frame[frame["run"] == "A"]["tokens"].tolist() == [8, 5, 3, 2, 1]
    assert frame[frame["run"] == "B"]["tokens"].tolist() == [8, 5, 3]


def test_curves_chart_draws_both_runs_and_the_step() -> None:
    a = train(WIKI, 259, tie_break="first")
    spec = curves_chart(curves_frame({"A": a, "B": a}), step=2).to_dict()
    layers = spec["layer"]
    assert layers[0]["mark"]["type"] == "line"
    assert layers[0]["encoding"]["color"]["scale"]["domain"] == ["A", "B"]
    assert layers[0]["encoding"]["x"]["field"] == "merges"
    assert layers[-1]["mark"]["type"] == "rule"
    rule_data = spec["datasets"][layers[-1]["data"]["name"]]
    assert rule_data == [{"merges": 2}]


def test_bytes_merges_cross_word_boundaries_gpt4_ones_never(bytes_vs_gpt4) -> None:
    """``ab␣``, ``ab␣ab␣`` and ``ab␣ab␣ab`` each hold a space that GPT-4 puts before a word."""
    a, b = bytes_vs_gpt4
    merges_a, merges_b = merges_of(a), merges_of(b)
    assert texts(merges_b) == ["a + b → ab", "␣ + ab → ␣ab"]
    assert [m.token for m in cut_by(merges_a, "gpt4")] == [b"ab ", b"ab ab ", b"ab ab ab"]
    assert cut_by(merges_b, "gpt4") == []
    assert cut_by(merges_a, "bytes") == []  # one piece: nothing is ever cut
    assert crossing_sentence("A", 3, 4, "B", "gpt4").startswith(
        "**3 of A's 4 merges** make a token that B's pre-tokenizer (`gpt4`) would cut in two: "
        "they cross"
    )
    difference = first_difference(merges_a, merges_b)
    assert difference is not None and difference.step == 2
    assert (difference.a, difference.b) == (Merge(2, b"ab", b" ", 2), Merge(2, b" ", b"ab", 2))
    assert texts(only_in(merges_b, merges_a)) == ["␣ + ab → ␣ab"]
    # ab␣ is cut by gpt4 into ab and ␣: B can never make it (its ␣ab is one gpt4 piece).
    assert difference_reason(
        difference, TrainingConfig(512, "bytes"), TrainingConfig(512, "gpt4")
    ) == (
        "A's new token “ab␣” spans two pieces of B's pre-tokenizer (gpt4), so B can never make it."
    )
    html = difference_html(difference, merge_counts=(4, 2), reason="<b>x</b>")
    assert "The runs part at merge 2" in html and "&lt;b&gt;x&lt;/b&gt;" in html


def test_a_shorter_run_differs_where_it_stops() -> None:
    """Vocab 257 (one merge, a + a) against 259 under lexmin: they part at merge 2."""
    short = merges_of(train(WIKI, 257, tie_break="lexmin"))
    long = merges_of(train(WIKI, 259, tie_break="lexmin"))
    difference = first_difference(short, long)
    assert difference is not None
    assert (difference.step, difference.a, difference.b) == (2, None, Merge(2, b"a", b"b", 2))
    assert not difference.same_count
    assert (
        difference_reason(difference, TrainingConfig(257, "gpt4"), TrainingConfig(512, "gpt4"))
        is None
    )
    html = difference_html(difference, merge_counts=(1, 3))
    assert "stopped after 1 merge<" in html and "Merge 1 is the same in both." in html
    same = difference_html(None, merge_counts=(3, 3))
    assert "The two runs make the same merges" in same and "All 3 merges agree" in same
    assert first_difference(short, short) is None
    assert only_in(short, long) == []


def test_end_of_word_marker_is_part_of_the_bytes() -> None:
    """``ab ab`` with words and </w>: (a, b) 2 and (b, </w>) 2 tie; ``first`` takes a + b,
    then (ab, </w>) 2 → ``ab</w>``."""
    run = train("ab ab", 259, pretokenizer="words", end_of_word=True)
    assert texts(merges_of(run)) == ["a + b → ab", "ab + </w> → ab</w>"]


def test_reasons_for_unequal_counts_and_for_a_tie_under_one_rule() -> None:
    """Made-up merges: neither token is cut by the other pre-tokenizer, so the sentence
    comes from the counts alone."""
    unequal = FirstDifference(1, Merge(1, b"a", b"b", 5), Merge(1, b"c", b"d", 3))
    assert difference_reason(
        unequal, TrainingConfig(512, "words"), TrainingConfig(512, "gpt2")
    ) == (
        "The counts differ (5 against 3): the runs cut the text into different pieces, so "
        "they count different pairs."
    )
    tie = FirstDifference(1, Merge(1, b"a", b"b", 3), Merge(1, b"c", b"d", 3))
    assert difference_reason(tie, TrainingConfig(512, "words"), TrainingConfig(512, "gpt2")) == (
        "Both pairs occurred 3 times: a tie, broken differently because the runs' texts are "
        "cut differently."
    )


def test_a_tie_at_count_one_says_once() -> None:
    """Made-up merges tied at a count of 1: "occurred once", not "occurred 1 times"."""
    tie = FirstDifference(1, Merge(1, b"a", b"b", 1), Merge(1, b"c", b"d", 1))
    assert difference_reason(tie, TrainingConfig(512, "words"), TrainingConfig(512, "gpt2")) == (
        "Both pairs occurred once: a tie, broken differently because the runs' texts are "
        "cut differently."
    )
