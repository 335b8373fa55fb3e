"""Tests for the HTML the app still writes (trace, styles).

The coloured token spans are drawn by ``bpeviz/web`` (tests/browser, tests/js); here: the
trace's rows as data, its summary escaped, the stylesheet. Which tokens the Step page outlines
is ``viewAt`` in ``bpeviz/web/core/record.js`` (tests/js, on hand-counted outlines too); the oracle
it is held to is checked in ``test_step_outline.py``.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest

from bpeviz.app.frame.styles import stylesheet
from bpeviz.app.tokenize.trace import (
    TraceRow,
    trace_lines,
    trace_rows,
    trace_summary_html,
    traced_part,
)
from bpeviz.engine.history import train
from bpeviz.engine.tokenizer import TRACE_MAX_BYTES, Tokenizer, TraceStep
from bpeviz.records.schema import Mark
from bpeviz.web import PALETTE

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


# ---- escaping -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE_TEXTS.values(), ids=HOSTILE_TEXTS.keys())
def test_trace_escapes_token_text(text: str) -> None:
    history = train(text * 5, 270, pretokenizer="bytes")
    tokenizer = history.tokenizer
    word = text.encode()
    trace = tokenizer.encode_trace(word)
    assert_safe(trace_summary_html(word, trace, tokenizer.encode(word)))
    lines, _ = trace_lines(tokenizer, word, trace, rank_label="merge {}".format)
    assert list(lines[0].ids) == list(word)  # the rows are ids: the browser draws them as text


# ---- trace --------------------------------------------------------------------------------


def test_trace_has_one_row_per_merge_plus_the_start() -> None:
    """gpt4 pieces ``the`` `` cat`` `` the`` `` hat`` `` the`` `` mat``, counted by hand:
    t+h, h+e and a+t occur 3 times, t+h first (merge 1); then th+e 3 (merge 2), a+t 3
    (merge 3), then space+the 2 (merge 4). `` the`` replays merges 1, 2 and 4."""
    tokenizer = train("the cat the hat the mat", 265, pretokenizer="gpt4").tokenizer
    trace = tokenizer.encode_trace(" the")
    lines, more = trace_lines(
        tokenizer, b" the", trace, rank_label=lambda rank: f"merge {rank + 1}"
    )
    assert len(lines) == len(trace) + 1 == 4 and more == 0
    assert sum(line.marks.count(Mark.NEW) for line in lines) == len(trace)
    labels = [line.name for line in lines]
    assert labels == ["start", "merge 1: “t” + “h”", "merge 2: “th” + “e”", "merge 4: “␣” + “the”"]
    assert lines[-1].ids == tuple(tokenizer.encode(" the"))


def test_a_merge_applied_at_several_places_is_one_row() -> None:
    """``aaaaa`` with the one merge a+a: joined at 0, then at 1 (leftmost first): aa aa a."""
    tokenizer = Tokenizer.from_merges([(97, 97)])
    trace = tokenizer.encode_trace(b"aaaaa")
    assert [(step.position, step.tokens_after) for step in trace] == [
        (0, (256, 97, 97, 97)),
        (1, (256, 256, 97)),
    ]
    assert trace_rows(trace) == [TraceRow(0, 97, 97, (0, 1), (256, 256, 97))]
    lines, _ = trace_lines(tokenizer, b"aaaaa", trace, rank_label=lambda rank: f"merge {rank + 1}")
    assert len(lines) == 2
    assert lines[1].name == "merge 1: “a” + “a”, at 2 places"
    assert lines[1].marks == (Mark.NEW, Mark.NEW, "")
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
    lines, more = trace_lines(tokenizer, word, trace, rank_label=str, max_steps=5)
    assert len(lines) == 5 + 1 and more == len(rows) - 5


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


def test_stylesheet_defines_every_colour_and_grows_for_presentation() -> None:
    normal, big = stylesheet(), stylesheet(presentation=True)
    for index, (background, border) in enumerate(PALETTE):
        assert f".bpe-c{index}{{background:{background};border-color:{border};}}" in normal
    assert normal.startswith("<style>") and normal.endswith("</style>")
    assert "1.45rem" in big and "1.45rem" not in normal
    assert "stMainMenu" in big and "stMainMenu" not in normal


def test_traced_part_of_a_long_piece_ends_on_a_whole_character() -> None:
    """Issue 17: only a bounded part of a long piece is replayed; the cut never splits the
    bytes of one character (é is two bytes in UTF-8)."""
    assert traced_part("abc", limit=10) == "abc"
    assert traced_part("ééé", limit=5) == "éé"
    assert traced_part("aéé", limit=4) == "aé"


def test_encode_trace_refuses_a_piece_longer_than_the_limit() -> None:
    tokenizer = Tokenizer.from_merges([(97, 97)])
    with pytest.raises(ValueError, match="replays at most"):
        tokenizer.encode_trace(b"a" * (TRACE_MAX_BYTES + 1))
    assert len(tokenizer.encode_trace(b"a" * TRACE_MAX_BYTES)) == TRACE_MAX_BYTES // 2
