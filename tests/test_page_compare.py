"""AppTest for the Compare page: counts, spans (escaped), the differing cuts, bad input."""

from __future__ import annotations

import apptest_support
import pytest
from apptest_support import open_page

PAGE = "app_pages/compare.py"


@pytest.fixture(autouse=True)
def _app(monkeypatch: pytest.MonkeyPatch):
    yield from apptest_support.prepare(monkeypatch)


def metrics(at) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for metric in at.metric:
        found.setdefault(metric.label, []).append(metric.value)
    return found


def span_html(at) -> list[str]:
    return [
        element.value
        for element in at.get("html")
        if element.value.startswith("<div") and "bpe-text" in element.value
    ]


def test_default_text_compares_both_tokenizers() -> None:
    at = open_page(PAGE)
    assert at.title[0].value == "Compare with cl100k_base"
    found = metrics(at)
    assert len(found["Tokens"]) == 2
    assert len(found["Bytes per token"]) == 2
    assert {"Cuts both make", "Only yours", "Only cl100k_base"} <= set(found)
    assert len(span_html(at)) == 2
    assert len(at.dataframe) == 1  # the table of differing cuts
    table = at.dataframe[0].value
    assert list(table.columns) == ["byte_offset", "only_in", "before", "after"]
    assert set(table["only_in"]) <= {"yours", "cl100k_base"}


def test_a_hand_checkable_text() -> None:
    """cl100k_base reads "the cat" as 2 tokens: "the" and " cat" (ids 1820, 8415)."""
    at = open_page(PAGE)
    at.text_area(key="compare_text").set_value("the cat").run()
    assert not at.exception
    assert metrics(at)["Tokens"][1] == "2"
    theirs = span_html(at)[1]
    assert 'title="id 1820' in theirs and 'title="id 8415' in theirs


def test_identical_cuts_say_so() -> None:
    at = open_page(PAGE)
    at.text_area(key="compare_text").set_value("a").run()
    assert not at.exception
    assert any("exactly the same places" in message.value for message in at.success)
    assert len(at.dataframe) == 0


def test_empty_text_shows_a_message() -> None:
    at = open_page(PAGE)
    at.text_area(key="compare_text").set_value("").run()
    assert not at.exception
    assert any("Type or paste some text" in info.value for info in at.info)
    assert span_html(at) == []


def test_token_text_is_escaped() -> None:
    at = open_page(PAGE)
    at.text_area(key="compare_text").set_value('<script>alert("x")</script><b>bold</b>').run()
    assert not at.exception
    for html in span_html(at):
        assert "<script>" not in html and "<b>" not in html
        assert "&lt;" in html


def test_impossible_sidebar_settings_show_a_message() -> None:
    at = open_page(PAGE)
    at.number_input(key="vocab").set_value(10).run()
    assert not at.exception
    assert any("too small" in error.value for error in at.error)
    assert span_html(at) == []
