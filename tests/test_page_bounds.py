"""AppTest: what a hostile file, a long text or a long link does to the pages (issue 17).
Each ends in one sentence on the page, never an exception, and loses nothing typed.

The files are built by ``tokenizers`` itself and hand-edited (``tests/test_hf_models.py``).
"""

from __future__ import annotations

from apptest_support import open_page, plain, token_views
from hf_files import wordpiece
from streamlit.testing.v1 import AppTest
from test_hf_models import CATASTROPHIC, PANICS, with_patterns
from tiktoken_oracle import tiktoken_encoding

from bpeviz.app.frame.text_input import MAX_BOX_CHARS

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


# ---- a text box holds any text; the page tokenizes a bounded part --------------------------


def metric(at: AppTest, label: str) -> list[str]:
    return [found.value for found in at.metric if found.label == label]


def captions(at: AppTest) -> str:
    return " ".join(plain(caption.value) for caption in at.caption)


LONG = "thecatsatonthemat " * 12_000  # 216,000 characters: past the cap, 16,000 over


def test_the_tokenize_box_keeps_a_long_text_and_tokenizes_its_first_part() -> None:
    """cl100k on 4 MB in the box took 18.6 s and 777 MB; nothing capped it."""
    at = open_page(TOKENIZE)
    at.text_area(key="tok_text").input(LONG).run()
    assert not at.exception
    assert at.text_area(key="tok_text").value == LONG  # nothing lost
    assert metric(at, "Characters") == [f"{MAX_BOX_CHARS:,}"]
    assert (
        f"{len(LONG):,} characters long: this page tokenizes the first {MAX_BOX_CHARS:,}"
        in captions(at)
    )


def test_the_compare_box_keeps_a_long_text_and_compares_its_first_part() -> None:
    at = open_page(COMPARE)
    at.selectbox(key="cmp_left").set_value("cl100k_base")
    at.selectbox(key="cmp_right").set_value("r50k_base")
    at.text_area(key="compare_text").input(LONG).run()
    assert not at.exception
    assert at.text_area(key="compare_text").value == LONG
    assert (
        f"{len(LONG):,} characters long: this page tokenizes the first {MAX_BOX_CHARS:,}"
        in captions(at)
    )
    part = LONG[:MAX_BOX_CHARS]
    expected = [len(tiktoken_encoding(name).encode(part)) for name in ("cl100k_base", "r50k_base")]
    assert metric(at, "Tokens") == [f"{count:,}" for count in expected]


def test_the_tokenize_page_draws_the_first_tokens_of_a_library_file() -> None:
    """As for bpeviz's own encoders: the first 5,000 tokens drawn, the count of all."""
    from tokenizers import Tokenizer as Library

    document = wordpiece().to_str()
    text = "printers counted " * 3_000
    at = import_file(TOKENIZE, document)
    at.radio(key="tok_model").set_value("Imported").run()
    at.text_area(key="tok_text").input(text).run()
    assert not at.exception
    ids = Library.from_str(document).encode(text).ids
    assert metric(at, "Tokens") == [f"{len(ids):,}"]
    assert token_views(at)["tok_spans"]["ids"] == ids[:5_000]
    assert f"Showing the first 5,000 of {len(ids):,} tokens." in captions(at)


# ---- numbers in a link -------------------------------------------------------------------

HUGE = "9" * 5_000  # past int()'s 4,300 digits: its message told users to call Python


def test_a_vocab_of_5000_digits_in_a_link_is_ignored_in_a_sentence() -> None:
    from apptest_support import new_app

    at = new_app(vocab=HUGE).run()
    assert not at.exception, [e.value for e in at.exception]
    warnings = " ".join(plain(w.value) for w in at.warning)
    assert "The link's vocab=" in warnings and "has more than 12 digits; ignored." in warnings
    assert HUGE not in warnings  # named, not copied out whole
    assert "set_int_max_str_digits" not in warnings


def test_a_step_of_5000_digits_in_a_link_opens_the_view_in_a_sentence() -> None:
    from apptest_support import new_app

    at = new_app(sample="aaabdaaabac", step=HUGE).run()
    assert not at.exception, [e.value for e in at.exception]
    warnings = " ".join(plain(w.value) for w in at.warning)
    assert "The link's step=" in warnings and "has more than 12 digits" in warnings
