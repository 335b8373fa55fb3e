"""AppTest: what a hostile file, a long text or a long link does to the pages (issue 17).
Each ends in one sentence on the page, never an exception, and loses nothing typed.

The files are built by ``tokenizers`` itself and hand-edited (``tests/test_hf_models.py``).
"""

from __future__ import annotations

from apptest_support import open_page, plain
from streamlit.testing.v1 import AppTest
from test_hf_models import CATASTROPHIC, PANICS, with_patterns

TOKENIZE = "app_pages/tokenize.py"
COMPARE = "app_pages/compare.py"


def upload(at: AppTest, data: str) -> AppTest:
    """Upload ``data`` as a tokenizer.json on the Export / import page."""
    at.switch_page("app_pages/export.py").run()
    at.file_uploader(key="export_model_files").upload("tokenizer.json", data.encode()).run()
    assert not at.exception
    return at


def import_file(page: str, data: str) -> AppTest:
    """Open ``page``, import ``data`` as a tokenizer.json, come back."""
    return upload(open_page(page), data).switch_page(page).run()


def errors(at: AppTest) -> str:
    return " ".join(plain(error.value) for error in at.error)


def test_a_library_file_whose_split_backtracks_is_refused_on_import() -> None:
    at = upload(open_page(TOKENIZE), with_patterns(split=CATASTROPHIC))
    assert "pre-tokenizer Split pattern" in errors(at) and "backtracks too much" in errors(at)
    at.switch_page(TOKENIZE).run()
    assert not at.exception
    assert "Imported" not in " ".join(at.radio(key="tok_model").options)


def test_a_panic_of_the_library_is_a_sentence_on_the_tokenize_page() -> None:
    at = import_file(TOKENIZE, with_patterns(split=PANICS))
    at.radio(key="tok_model").set_value("Imported").run()
    text = "q" * 300
    at.text_area(key="tok_text").input(text).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Hugging Face tokenizers could not tokenize this text" in errors(at)
    assert at.text_area(key="tok_text").value == text


def test_a_panic_of_the_library_is_a_sentence_on_the_compare_page() -> None:
    at = import_file(COMPARE, with_patterns(split=PANICS))
    at.selectbox(key="cmp_left").set_value("Imported")
    at.selectbox(key="cmp_right").set_value("cl100k_base")
    at.text_area(key="compare_text").input("q" * 300).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Hugging Face tokenizers could not tokenize this text" in errors(at)
