"""The Compression page's WordPiece curves in a real browser: the toggle draws them beside
BPE's (a screenshot at 1366 × 768 to look at) and the numbers table has a row each.

The English figure comes from the ``tokenizers`` library's WordPiece on the exported vocabulary
of 512 (the sidebar's vocab size, where the table reads), not from bpeviz's own count.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import keep_screenshot

from bpeviz.engine.samples import get_sample
from bpeviz.engine.wordpiece import train_wordpiece
from bpeviz.formats.hf_wordpiece import to_hf_wordpiece_json

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser


def test_wordpiece_curves_are_drawn_beside_bpe(app: AppPage, screenshots: Path) -> None:
    from tokenizers import Tokenizer as LibraryWordPiece

    text = get_sample("english").text
    library = LibraryWordPiece.from_str(
        to_hf_wordpiece_json(train_wordpiece(text, 512, pretokenizer="bert"))
    )
    english = len(text.encode()) / len(library.encode(text, add_special_tokens=False).ids)

    app.page.set_viewport_size({"width": 1366, "height": 768})
    try:
        app.open("compression")
        toggle = app.page.locator(".st-key-compression_wordpiece label").first
        app.rerun(toggle.click)
        chart = app.page.locator('[data-testid="stVegaLiteChart"]').first
        chart.wait_for(state="visible")
        keep_screenshot(app.page, screenshots / "compression-wordpiece-1366x768.png")
        app.screenshot(screenshots / "compression-wordpiece.png")
        rows = {}
        table = app.page.locator(".stMain table").filter(has_text="trained on English").first
        for row in table.locator("tr").all():
            cells = [cell.strip() for cell in row.locator("th, td").all_inner_texts()]
            if cells:
                rows[cells[0]] = cells[1:]
        assert rows["English · WordPiece"][0] == f"{english:.2f}", rows
        assert rows["Japanese · WordPiece"][1] == "–", rows  # its first vocabulary is 564
        assert "##" in app.main_text()  # the sentence on how WordPiece counts
        app.assert_clean()
    finally:
        app.page.set_viewport_size({"width": 1366, "height": 900})


def test_clicking_a_wordpiece_point_opens_that_wordpiece_merge(app: AppPage) -> None:
    """As a BPE point does: hover a dash-dot point (its tooltip names the WordPiece run and
    the merges), click it, and the Step page shows that merge of that WordPiece run."""
    app.open("compression", compression_vocab=512)
    app.rerun(app.page.locator(".st-key-compression_wordpiece label").first.click)
    chart = app.page.locator('[data-testid="stVegaLiteChart"] svg.marks, '
                             '[data-testid="stVegaLiteChart"] canvas').first  # fmt: skip
    box = chart.bounding_box()
    assert box
    tooltip = app.page.locator("#vg-tooltip-element")
    fields: dict[str, str] = {}
    x = box["x"] + box["width"] * 0.6
    for tenth in range(5, 200):  # down the chart, until the pointer is on a WordPiece point
        y = box["y"] + box["height"] * tenth / 200
        app.page.mouse.move(x, y)
        text = tooltip.inner_text() if tooltip.is_visible() else ""
        found = dict(re.findall(r"(tokenizer trained on|merges|tokens)\s*\n+\s*([^\n]+)", text))
        if found.get("tokenizer trained on", "").endswith("WordPiece"):
            fields = found
            break
    assert fields, "no WordPiece point under the pointer down the chart"
    language = fields["tokenizer trained on"].split(" · ")[0]
    merges = int(fields["merges"].replace(",", ""))

    app.rerun(lambda: app.page.mouse.click(x, y))
    app.wait_on_step_page()
    assert "algo=wordpiece" in app.page.url and "pretok=bert" in app.page.url
    k, _, _ = app.shown_merge()
    assert k == merges
    chosen = app.page.locator('[data-testid="stSidebar"] .st-key-sample input').input_value()
    assert chosen == get_sample({"English": "english", "Japanese": "japanese"}[language]).title
    assert fields["tokens"].strip() in app.page.locator(".bpe-metric").first.inner_text()
    app.assert_clean()
