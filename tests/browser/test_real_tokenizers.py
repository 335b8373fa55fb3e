"""The real tokenizers in a real browser: the Compression chart's reference lines for both of
them (screenshot to look at), their language-cost lines, and Compare on any two of them.

Expected numbers come from tiktoken (``tests/tiktoken_oracle.py``) on the bundled samples.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import keep_screenshot
from tiktoken_oracle import tiktoken_encoding

from bpeviz.engine.samples import get_sample

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser
REAL = ("cl100k_base", "o200k_base")


def test_compression_chart_shows_both_real_tokenizers(app: AppPage, screenshots: Path) -> None:
    app.open("compression")
    chart = app.page.locator('[data-testid="stVegaLiteChart"]').first
    chart.wait_for(state="visible")
    app.page.wait_for_timeout(500)  # the chart draws after the run settles
    keep_screenshot(chart, screenshots / "compression-chart-real.png")
    app.screenshot(screenshots / "compression-real.png")
    texts = {"English": get_sample("english").text, "Japanese": get_sample("japanese").text}
    # the numbers table: a row per tokenizer (its bytes per token on each text, and how many
    # times as many tokens per byte Japanese takes), the figures from tiktoken itself
    rows = {}
    table = app.page.locator(".stMain table").filter(has_text="trained on English").first
    for row in table.locator("tr").all():
        cells = [cell.strip() for cell in row.locator("th, td").all_inner_texts()]
        if cells:
            rows[cells[0]] = cells[1:]
    for name in REAL:
        ratios = {}
        for language, sample in texts.items():
            tokens = len(tiktoken_encoding(name).encode(sample, disallowed_special=()))
            ratios[language] = len(sample.encode()) / tokens
        cost = ratios["English"] / ratios["Japanese"]
        expected = [f"{ratios['English']:.2f}", f"{ratios['Japanese']:.2f}", f"{cost:.1f}×"]
        assert rows.get(name) == expected, (name, rows)
    app.assert_clean()


def test_compare_any_two_from_the_link(app: AppPage, screenshots: Path) -> None:
    text = "CamelCase and 12345 in 東京"
    app.open("compare", cmp_left="cl100k_base", cmp_right="o200k_base", compare_text=text)
    app.screenshot(screenshots / "compare-real.png")
    titles = [
        span.get_attribute("title") or ""
        for span in app.page.locator(".bpe-scroll").all()[0].locator("[title^='id ']").all()
    ]
    expected = tiktoken_encoding("cl100k_base").encode(text)
    assert [int(re.match(r"id (\d+) ·", title).group(1)) for title in titles] == expected
    assert "Only o200k_base" in app.main_text()
    app.assert_clean()


def test_tekken_draws_mistrals_bos_first_as_a_special_token(
    app: AppPage, screenshots: Path, unavailable
) -> None:
    """Tokenize with Tekken: "Hello world" is [1, 22177, 4304], its <s> drawn as a special
    token (the same style as a chat model's <|im_start|>) before the text's tokens."""
    from tekken_oracle import OFFERED

    if not OFFERED:
        unavailable("the mistral-common wheel is not downloaded (make tekken)")
    app.open("tokenize", tok_model="tekken_240911", tok_text="Hello world")
    app.screenshot(screenshots / "tokenize-tekken.png")
    spans = app.spans()
    titles = [span["title"] for span in spans]
    assert [int(re.search(r"id (\d+)", title).group(1)) for title in titles] == [1, 22177, 4304]
    assert "bpe-special" in spans[0]["cls"] and spans[0]["text"] == "<s>"
    assert "<s> (id 1, its BOS)" in app.main_text()
    app.assert_clean()
