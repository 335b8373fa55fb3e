"""Tests for the HTML views (spans, marks, card, trace, styles): escaping, colours, the card."""

from __future__ import annotations

import doctest
import html
import itertools
import random
import re
from html.parser import HTMLParser

import numpy as np
import pytest

from bpeviz.app import marks, spans, styles, trace
from bpeviz.app.marks import (
    MARK_NEW,
    MARK_PAIR_END,
    MARK_PAIR_START,
    first_marked,
    legend_html,
    new_marks,
    pair_marks,
    step_outline,
    window,
)
from bpeviz.app.spans import (
    PALETTE,
    TokenView,
    char_groups,
    colour_indices,
    id_views,
    segment_views,
    tokens_html,
    visible_html,
)
from bpeviz.app.styles import stylesheet
from bpeviz.app.trace import TraceRow, trace_html, trace_rows, trace_summary_html
from bpeviz.history import train
from bpeviz.samples import get_sample
from bpeviz.tokenizer import Tokenizer, TraceStep

HOSTILE_TEXTS = {
    "script": "<script>alert('x')</script> & done",
    "img-onerror": '<img src=x onerror="alert(1)"> \'quoted\' "double"',
    "attribute-break": '" onmouseover="alert(1)" x="',
    "entities": "&lt; &amp; &#60; AT&T",
}
DANGEROUS_TAGS = {"script", "img", "iframe", "svg", "object", "embed", "style", "a"}


class _Collector(HTMLParser):
    """Every start tag and attribute name in a piece of HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(name for name, _ in attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(markup: str) -> _Collector:
    collector = _Collector()
    collector.feed(markup)
    collector.close()
    return collector


def assert_safe(markup: str) -> None:
    """No tag or event attribute from user text survives; the text itself is shown."""
    collector = parse(markup)
    assert not DANGEROUS_TAGS & set(collector.tags), collector.tags
    assert not [name for name in collector.attributes if name.startswith("on")]
    assert set(collector.attributes) <= {"class", "title", "data-char"}
    assert "<script" not in markup.lower()
    assert "<img" not in markup.lower()
    assert not re.search(r"<[^>]*\bonerror\s*=", markup, flags=re.IGNORECASE)


def span_texts(markup: str) -> list[str]:
    """The text inside each token span (``bpe-t``), unescaped."""
    return [
        html.unescape(m)
        for m in re.findall(r'<span class="bpe-t[^"]*" title="[^"]*">(.*?)</span>', markup)
    ]


def test_doctests() -> None:
    for module in (marks, spans, styles, trace):
        assert doctest.testmod(module).failed == 0


# ---- escaping -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE_TEXTS.values(), ids=HOSTILE_TEXTS.keys())
@pytest.mark.parametrize("merges", [0, 40], ids=["bytes", "merged"])
def test_training_text_spans_escape_everything(text: str, merges: int) -> None:
    history = train(text * 3, 256 + merges, pretokenizer="bytes")
    k = min(merges, history.merge_count)
    seg = history.segmentation(k)
    views = segment_views(
        history.text, seg.starts, seg.ends, seg.ids, history.tokenizer, base=history.base
    )
    markup = tokens_html(views, marks=new_marks(seg.ids, None))
    assert_safe(markup)
    assert "".join(parse(markup).text).replace("␣", " ") == text * 3


@pytest.mark.parametrize("text", HOSTILE_TEXTS.values(), ids=HOSTILE_TEXTS.keys())
@pytest.mark.parametrize("show", ["text", "ids"])
def test_id_spans_escape_everything(text: str, show: str) -> None:
    tokenizer = train(text * 4, 300, pretokenizer="gpt4").tokenizer
    markup = tokens_html(id_views(tokenizer, tokenizer.encode(text)), show=show)
    assert_safe(markup)


def test_a_special_token_with_markup_is_escaped() -> None:
    special = "<img src=x onerror=alert(1)>"
    history = train(f"ab{special}ab", 258, special_tokens=(special,))
    seg = history.segmentation(0)
    views = segment_views(
        history.text, seg.starts, seg.ends, seg.ids, history.tokenizer, base=history.base
    )
    markup = tokens_html(views)
    assert_safe(markup)
    assert html.escape(special.replace(" ", "␣")) in markup


def test_character_group_labels_are_escaped() -> None:
    views = [
        TokenView(1, b'"\xe9', "t"),
        TokenView(2, b"\xa7\x85", "t"),
        TokenView(3, b"<", "t"),
    ]
    markup = tokens_html(views)
    assert_safe(markup)
    assert 'data-char="&quot;駅"' in markup


@pytest.mark.parametrize("text", HOSTILE_TEXTS.values(), ids=HOSTILE_TEXTS.keys())
def test_trace_escapes_token_text(text: str) -> None:
    history = train(text * 5, 270, pretokenizer="bytes")
    tokenizer = history.tokenizer
    word = text.encode()
    trace = tokenizer.encode_trace(word)
    assert_safe(trace_html(tokenizer, word, trace, rank_label="merge {}".format))
    assert_safe(trace_summary_html(word, trace, tokenizer.encode(word)))


# ---- colours ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_neighbouring_tokens_never_share_a_colour(seed: int) -> None:
    rng = random.Random(seed)
    ids = [rng.choice([0, 8, 16, 97, 105, 300]) for _ in range(500)]
    colours = colour_indices(ids)
    assert all(a != b for a, b in itertools.pairwise(colours))
    assert all(0 <= colour < len(PALETTE) for colour in colours)


def test_neighbouring_spans_in_html_never_share_a_colour() -> None:
    history = train(get_sample("english").text, 300, pretokenizer="gpt4")
    seg = history.segmentation(44)
    views = segment_views(
        history.text, seg.starts, seg.ends, seg.ids, history.tokenizer, base=history.base
    )
    classes = re.findall(r'class="bpe-t (bpe-c\d)', tokens_html(views, group_chars=False))
    assert len(classes) == len(seg)
    assert all(a != b for a, b in itertools.pairwise(classes))


def test_repeated_tokens_keep_their_colour_when_they_can() -> None:
    assert colour_indices([97, 32, 97, 32]) == [97 % 8, 32 % 8, 97 % 8, 32 % 8]


# ---- visible bytes ------------------------------------------------------------------------


def test_whitespace_is_visible_and_newlines_also_break_the_line() -> None:
    markup = tokens_html(id_views(Tokenizer.from_merges([]), list(b"a b\n\tc")))
    assert span_texts(markup) == ["a", "␣", "b", "↵", "⇥", "c"]
    assert markup.count("<br>") == 1


def test_partial_utf8_is_shown_as_hex() -> None:
    content, newlines = visible_html("駅".encode()[:2])
    assert content == '<span class="bpe-hex">&lt;E9&gt;&lt;A7&gt;</span>'
    assert newlines == 0


def test_invalid_bytes_from_a_binary_text_are_hex_too() -> None:
    content, _ = visible_html(b"ok\xff\xfe")
    assert content.startswith("ok") and content.count("bpe-hex") == 2
    assert "&lt;FF&gt;" in content and "&lt;FE&gt;" in content


def test_tokens_that_split_a_character_are_grouped_under_it() -> None:
    tokenizer = Tokenizer.from_merges([])
    markup = tokens_html(id_views(tokenizer, list("a駅".encode())))
    assert markup.count('class="bpe-g"') == 1
    assert 'data-char="駅"' in markup
    assert 'class="bpe-g"' not in tokens_html(
        id_views(tokenizer, list("a駅".encode())), group_chars=False
    )


def test_char_groups_ignore_bytes_that_never_make_a_character() -> None:
    assert char_groups([b"\xff", b"\x80", b"a"]) == []
    assert char_groups([b"ab", b"cd"]) == []


def test_ids_view_shows_each_id() -> None:
    tokenizer = train("hello hello", 260).tokenizer
    ids = tokenizer.encode("hello")
    assert span_texts(tokens_html(id_views(tokenizer, ids), show="ids")) == [str(i) for i in ids]
    with pytest.raises(ValueError, match="show"):
        tokens_html([], show="bytes")


def test_hover_title_has_id_hex_bytes_and_origin() -> None:
    history = train("aaabdaaabac", 259, tie_break="lexmin")
    views = id_views(history.tokenizer, [258, 100])
    assert views[0].title == "id 258 · bytes 61 61 61 62 · made by merge 3"
    assert views[1].title == "id 100 · bytes 64 · a single byte"


# ---- special tokens and </w> --------------------------------------------------------------


def test_special_tokens_are_marked_distinctly() -> None:
    history = train("ab<|endoftext|>ab", 257, special_tokens=("<|endoftext|>",))
    seg = history.segmentation(1)
    views = segment_views(
        history.text, seg.starts, seg.ends, seg.ids, history.tokenizer, base=history.base
    )
    special = [view for view in views if view.special]
    assert len(special) == 1 and special[0].data == b"<|endoftext|>"
    markup = tokens_html(views)
    assert markup.count("bpe-special") == 1
    assert "special token" in special[0].title


def test_end_of_word_marker_is_drawn_after_the_word() -> None:
    history = train("low low lower", 262, pretokenizer="words", end_of_word=True)
    seg = history.segmentation(history.merge_count)
    views = segment_views(
        history.text, seg.starts, seg.ends, seg.ids, history.tokenizer, base=history.base
    )
    assert any(view.marker for view in views)
    assert 'class="bpe-eow">&lt;/w&gt;' in tokens_html(views)
    texts = [view.data for view in views]
    assert b"".join(texts) == history.text


# ---- marks --------------------------------------------------------------------------------


def test_pair_marks_are_exactly_the_occurrences_merged_left_to_right() -> None:
    """aaabdaaabac: merge 1 (lexmin) is (a, a); in each "aaa" only the first two merge."""
    history = train("aaabdaaabac", 259, tie_break="lexmin")
    before, after = history.segmentation(0), history.segmentation(1)
    marks = pair_marks(
        before.starts, before.ends, after.starts, after.ends, after.ids, history.steps[0].new_id
    )
    assert marks == ["ps", "pe", "", "", "", "ps", "pe", "", "", "", ""]
    assert marks.count(MARK_PAIR_START) == history.steps[0].replacements


def test_pair_marks_do_not_cross_piece_boundaries() -> None:
    """gpt4 cuts digits in threes: "34 34 1234" is ``34`` ``␣`` ``34`` ``␣`` ``123`` ``4``.
    Merge 1 is (3, 4), twice (inside the two ``34``); the "3" then "4" of ``1234`` lie across
    a piece boundary, so they are never merged and must not be marked."""
    history = train("34 34 1234", 257, pretokenizer="gpt4")
    step = history.steps[0]
    assert step.pair == (ord("3"), ord("4")) and step.replacements == 2
    before, after = history.segmentation(0), history.segmentation(1)
    marks = pair_marks(before.starts, before.ends, after.starts, after.ends, after.ids, step.new_id)
    assert marks == ["ps", "pe", "", "ps", "pe", "", "", "", "", ""]
    marked = [
        history.text[s:e] for s, e, m in zip(before.starts, before.ends, marks, strict=True) if m
    ]
    assert marked == [b"3", b"4", b"3", b"4"]


def test_new_marks_flag_every_new_token() -> None:
    ids = np.array([256, 97, 256, 98])
    assert new_marks(ids, 256) == [MARK_NEW, "", MARK_NEW, ""]
    assert new_marks(ids, None) == ["", "", "", ""]
    assert first_marked(new_marks(ids, 256)) == 0
    assert first_marked(["", "", MARK_PAIR_END]) == 2
    assert first_marked(["", ""]) is None


def test_marks_become_classes() -> None:
    views = id_views(Tokenizer.from_merges([]), [97, 98, 99])
    markup = tokens_html(views, marks=[MARK_PAIR_START, MARK_PAIR_END, MARK_NEW])
    assert "bpe-ps" in markup and "bpe-pe" in markup and "bpe-new" in markup


@pytest.mark.parametrize(
    ("count", "focus", "size", "expected"),
    [
        (10, None, 4000, (0, 10)),
        (10_000, None, 4000, (0, 4000)),
        (10_000, 9_990, 4000, (6000, 10_000)),
        (10_000, 5000, 4000, (4600, 8600)),
    ],
)
def test_window(count: int, focus: int | None, size: int, expected: tuple[int, int]) -> None:
    lo, hi = window(count, focus, size)
    assert (lo, hi) == expected
    assert hi - lo == min(count, size)
    if focus is not None:
        assert lo <= focus < hi


# ---- trace --------------------------------------------------------------------------------


def test_trace_has_one_row_per_merge_plus_the_start() -> None:
    """gpt4 pieces ``the`` `` cat`` `` the`` `` hat`` `` the`` `` mat``, counted by hand:
    t+h, h+e and a+t occur 3 times, t+h first (merge 1); then th+e 3 (merge 2), a+t 3
    (merge 3), then space+the 2 (merge 4). `` the`` replays merges 1, 2 and 4."""
    tokenizer = train("the cat the hat the mat", 265, pretokenizer="gpt4").tokenizer
    trace = tokenizer.encode_trace(" the")
    markup = trace_html(tokenizer, b" the", trace, rank_label=lambda rank: f"merge {rank + 1}")
    assert markup.count('class="bpe-trace-row"') == len(trace) + 1 == 4
    assert markup.count("bpe-new") == len(trace)
    labels = re.findall(r'<span class="bpe-trace-label">([^<]*)</span>', markup)
    assert labels == ["start", "merge 1: “t” + “h”", "merge 2: “th” + “e”", "merge 4: “␣” + “the”"]


def test_a_merge_applied_at_several_places_is_one_row() -> None:
    """``aaaaa`` with the one merge a+a: joined at 0, then at 1 (leftmost first): aa aa a."""
    tokenizer = Tokenizer.from_merges([(97, 97)])
    trace = tokenizer.encode_trace(b"aaaaa")
    assert [(step.position, step.tokens_after) for step in trace] == [
        (0, (256, 97, 97, 97)),
        (1, (256, 256, 97)),
    ]
    assert trace_rows(trace) == [TraceRow(0, 97, 97, (0, 1), (256, 256, 97))]
    markup = trace_html(tokenizer, b"aaaaa", trace, rank_label=lambda rank: f"merge {rank + 1}")
    assert markup.count('class="bpe-trace-row"') == 2
    assert "merge 1: “a” + “a”, at 2 places" in html.unescape(markup)
    assert markup.count("bpe-new") == 2
    summary = html.unescape(trace_summary_html(b"aaaaa", trace, tokenizer.encode(b"aaaaa")))
    assert "is 3 tokens. Starting from its 5 bytes, 1 merge (2 joins) applies" in summary


def test_folding_keeps_marks_in_place_when_a_later_join_is_to_their_left() -> None:
    """Joins out of left-to-right order (any rank table may cause them) shift the marks."""
    steps = [
        TraceStep(3, 98, 99, 300, 3, (98, 99, 97, 300)),
        TraceStep(3, 98, 99, 300, 0, (300, 97, 300)),
    ]
    assert trace_rows(steps)[0].new_positions == (0, 2)


def test_trace_is_cut_after_max_steps() -> None:
    text = "abcdefghijklmnop" * 4
    tokenizer = train(text, 300).tokenizer
    word = text.encode()
    trace = tokenizer.encode_trace(word)
    # The block repeats 4 times, so most merges join at several places: fewer rows than joins.
    rows = trace_rows(trace)
    assert len(rows) > 5 and len(trace) > len(rows)
    markup = trace_html(tokenizer, word, trace, rank_label=str, max_steps=5)
    assert markup.count('class="bpe-trace-row"') == 5 + 1 + 1
    assert f"{len(rows) - 5} more merges not shown" in markup


def test_trace_summary_says_when_a_piece_is_taken_whole() -> None:
    ranks = {bytes([value]): value for value in range(256)}
    ranks[b"abc"] = 256
    tokenizer = Tokenizer.from_ranks(ranks, pattern="")
    word = b"abc"
    assert tokenizer.encode(word) == [256] and tokenizer.encode_trace(word) == []
    summary = trace_summary_html(word, [], [256])
    assert "takes “abc” whole" in summary and "“abc” is 1 token." in summary
    untouched = trace_summary_html(b"x", [], [120])
    assert "“x” is 1 token: no learned merge applies to its 1 byte." in untouched
    merged = train("abcabc", 258).tokenizer
    assert "whole" not in trace_summary_html(word, merged.encode_trace(word), merged.encode(word))


# ---- legend and stylesheet ----------------------------------------------------------------


def test_legend_explains_the_marks() -> None:
    assert "the pair about to merge" in legend_html(mark="pair")
    assert "the new token" in legend_html(mark="new")
    assert "special token" in legend_html(mark=None)
    tokenizer = Tokenizer.from_merges([], special_tokens=["<|e|>"])
    plain_views = id_views(tokenizer, tokenizer.encode("ab"))
    assert "special token" not in legend_html(mark=None, views=plain_views)
    assert "part of a character" not in legend_html(mark=None, views=plain_views)
    mixed = id_views(tokenizer, tokenizer.encode("駅<|e|>"))
    assert "special token" in legend_html(mark=None, views=mixed)  # 駅 is 3 one-byte tokens
    assert "part of a character" in legend_html(mark=None, views=mixed)
    assert_safe(legend_html(mark="pair"))


def test_stylesheet_defines_every_colour_and_grows_for_presentation() -> None:
    normal, big = stylesheet(), stylesheet(presentation=True)
    for index, (background, border) in enumerate(PALETTE):
        assert f".bpe-c{index}{{background:{background};border-color:{border};}}" in normal
    assert normal.startswith("<style>") and normal.endswith("</style>")
    assert "1.45rem" in big and "1.45rem" not in normal
    assert "stMainMenu" in big and "stMainMenu" not in normal


# ---- which tokens the Step page outlines --------------------------------------------------


def test_step_outline_at_a_merge_outlines_the_new_tokens_after_it() -> None:
    """``aaabdaaabac`` (rule first), merge 1 makes aa: aa|a|b|d|aa|a|b|a|c, two new tokens."""
    history = train("aaabdaaabac", 259)
    outline = step_outline(history, 1, before=False)
    assert outline.legend == "new"
    assert len(outline.shown) == 9
    assert [i for i, mark in enumerate(outline.marks) if mark] == [0, 4]
    assert set(outline.marks) == {"", MARK_NEW}


def test_step_outline_before_a_merge_outlines_both_halves_of_each_occurrence() -> None:
    """Merge 2 joins aa + a: before it the text is aa|a|b|d|aa|a|b|a|c."""
    history = train("aaabdaaabac", 259)
    outline = step_outline(history, 2, before=True)
    assert outline.legend == "pair"
    assert len(outline.shown) == 9
    assert outline.marks[:2] == [MARK_PAIR_START, MARK_PAIR_END]
    assert outline.marks[4:6] == [MARK_PAIR_START, MARK_PAIR_END]
    assert [mark for mark in outline.marks if mark] == [MARK_PAIR_START, MARK_PAIR_END] * 2


def test_step_outline_at_step_0_outlines_the_pair_merge_1_joins() -> None:
    """Before any merge: the 11 bytes, with a+a outlined where merge 1 replaces it
    (positions 0-1 and 5-6; the overlapping third a of aaa is not replaced)."""
    history = train("aaabdaaabac", 259)
    outline = step_outline(history, 0, before=False)
    assert outline.legend == "pair" and len(outline.shown) == 11
    assert [i for i, mark in enumerate(outline.marks) if mark] == [0, 1, 5, 6]
    at_start = step_outline(history, 0, before=True)  # there is no "after" at step 0
    assert (at_start.marks, at_start.legend) == (outline.marks, outline.legend)


def test_step_outline_with_nothing_to_merge_outlines_nothing() -> None:
    outline = step_outline(train("a", 300), 0, before=False)
    assert outline.legend is None and outline.marks == [""]
