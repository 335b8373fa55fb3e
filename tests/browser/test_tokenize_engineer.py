"""The Tokenize page for an engineer checking token boundaries: the count and the tokens on
the first screen of a laptop, above the tokenizer choice, and the ids and tokens copied as
JSON lists. Expected ids: tiktoken's cl100k_base (``tests/tiktoken_oracle.py``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from tiktoken_oracle import tiktoken_encoding

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

TEXT = "Hello, how are you doing today?"


def test_the_count_and_tokens_come_before_the_choice_at_1366x768(app: AppPage) -> None:
    app.page.set_viewport_size({"width": 1366, "height": 768})
    app.open("tokenize", tok_model="cl100k_base", tok_text=TEXT)
    tokens = app.page.locator(".st-key-tok_spans .bpe-t").first.bounding_box()
    count = app.page.locator('[data-testid="stMetric"]').filter(has_text="Tokens").first
    choice = app.page.locator(".st-key-tok_model").bounding_box()
    assert count.bounding_box()["y"] + count.bounding_box()["height"] <= 768, "count below the fold"
    assert tokens and tokens["y"] + tokens["height"] <= 768, "tokens below the fold"
    assert tokens["y"] < choice["y"], "the tokens come after the tokenizer choice"
    app.assert_clean()


def test_copy_ids_and_copy_tokens_give_json_lists(app: AppPage) -> None:
    """cl100k_base cuts the text into [9906, 11, 1268, 527, 499, 3815, 3432, 30] (tiktoken):
    "Hello", ",", " how", " are", " you", " doing", " today", "?"."""
    app.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    app.open("tokenize", tok_model="cl100k_base", tok_text=TEXT)
    encoding = tiktoken_encoding("cl100k_base")
    ids = encoding.encode(TEXT)
    box = app.page.locator(".st-key-tok_spans")
    box.get_by_role("button", name="Copy ids").click()
    box.get_by_role("button", name="Copied ids").wait_for()
    assert json.loads(app.page.evaluate("navigator.clipboard.readText()")) == ids
    box.get_by_role("button", name="Copy tokens").click()
    box.get_by_role("button", name="Copied tokens").wait_for()
    copied = json.loads(app.page.evaluate("navigator.clipboard.readText()"))
    assert copied == [encoding.decode([token]) for token in ids]
    app.assert_clean()
