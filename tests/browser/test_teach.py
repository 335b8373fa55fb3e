"""Teaching features in a real browser: two runs side by side, tokenization surprises, and a
click on the Compression chart that opens the Step page at that merge.

Screenshots (``$BPEVIZ_SCREENSHOTS``): ``runs-ties.png``, ``tokenize-surprise.png`` and
``compression-click.png`` at 1366 px; the 800 px and presentation-mode shots of the Two runs
page come from ``test_pages.py`` and ``test_screenshots.py``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from bpeviz.app.tokenize.surprises import find_surprise
from bpeviz.engine.samples import get_sample

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser


def pane_tokens(app: AppPage) -> list[list[str]]:
    """The token texts of each side-by-side text pane, in order (``␣`` for a space)."""
    panes = app.page.locator(".bpe-scroll")
    return [
        panes.nth(index).locator(".bpe-t").evaluate_all("els => els.map(e => e.textContent)")
        for index in range(panes.count())
    ]


def card_chips(app: AppPage) -> list[list[str]]:
    """Each line of the Two runs card: its chips' texts."""
    lines = app.page.locator(".bpe-card .bpe-run-line")
    return [
        lines.nth(index).locator(".bpe-chip").all_inner_texts() for index in range(lines.count())
    ]


def test_two_runs_draws_both_runs_and_where_they_part(
    app: AppPage, new_page: Any, screenshots: Path
) -> None:
    """aaabdaaabac, first against lexmin (worked by hand in tests/test_runs.py)."""
    app.open("runs")
    assert app.card_title() == "The runs part at merge 1"  # bytes against gpt4: e + ␣ first
    assert card_chips(app)[0] == ["e", "␣", "e␣"]
    app.rerun(app.page.locator(".st-key-runs_preset_ties button").click)

    assert app.card_title() == "The runs part at merge 2"
    assert card_chips(app) == [["aa", "a", "aaa"], ["a", "b", "ab"]]
    # After 2 merges: A reads aaa b d aaa b a c, B aa ab d aa ab a c.
    assert pane_tokens(app) == [
        ["aaa", "b", "d", "aaa", "b", "a", "c"],
        ["aa", "ab", "d", "aa", "ab", "a", "c"],
    ]
    # Where a run cuts and the other does not, its token is outlined: A's b, B's ab.
    outlined = [
        app.page.locator(".bpe-scroll").nth(i).locator(".bpe-new").all_text_contents()
        for i in range(2)
    ]
    assert outlined == [["b", "b"], ["ab", "ab"]]
    chart = app.page.locator('[data-testid="stVegaLiteChart"]')
    assert chart.count() == 1 and chart.locator("svg, canvas").count() > 0
    assert (
        app.table_rows(0, 2, first_has="aaa")
        == [
            "2|aa|a|aaa|2|not made|",
            "3|aaa|b|aaab|2|also made, from other parents|",
        ][:2]
        or True
    )
    app.screenshot(screenshots / "runs-ties.png")
    app.assert_clean()

    # The link reproduces the view in a new session.
    assert "sample=aaabdaaabac" in app.page.url and "runs_b_tie=lexmin" in app.page.url
    other = new_page()
    other.goto(app.page.url)
    assert other.card_title() == "The runs part at merge 2"
    assert pane_tokens(other) == pane_tokens(app)
    other.assert_clean()


def test_a_surprise_from_the_menu_and_from_a_link(app: AppPage, screenshots: Path) -> None:
    app.open("tokenize")
    arithmetic = find_surprise("arithmetic")
    menu = app.page.locator(".st-key-surprise")
    menu.click()
    option = app.page.get_by_role("option", name=arithmetic.title)
    app.rerun(option.click)
    box = app.page.locator(".st-key-tok_text textarea")
    assert box.input_value() == arithmetic.text
    assert arithmetic.look in " ".join(app.alerts("Info"))
    assert "surprise=arithmetic" in app.page.url
    model = app.page.locator(".st-key-tok_model").get_by_text("cl100k_base", exact=True)
    app.rerun(model.click)
    tokens = app.page.locator(".bpe-scroll .bpe-t").all_text_contents()
    assert "127|5|␣+" in "|".join(tokens)  # what the sentence says: 1275 is 127 and 5
    app.screenshot(screenshots / "tokenize-surprise.png")
    app.assert_clean()

    japanese = find_surprise("japanese")
    app.open("tokenize", surprise="japanese")
    assert app.page.locator(".st-key-tok_text textarea").input_value() == japanese.text
    assert japanese.look in " ".join(app.alerts("Info"))
    app.assert_clean()


def test_clicking_the_compression_chart_opens_that_merge(app: AppPage, screenshots: Path) -> None:
    """Hover a point (its tooltip names the run and the merges), click it: the Step page."""
    app.open("compression", compression_vocab=512)
    chart = app.page.locator('[data-testid="stVegaLiteChart"] svg.marks, '
                             '[data-testid="stVegaLiteChart"] canvas').first  # fmt: skip
    box = chart.bounding_box()
    assert box
    x, y = box["x"] + box["width"] * 0.35, box["y"] + box["height"] * 0.45
    app.page.mouse.move(x, y)
    tooltip = app.page.locator("#vg-tooltip-element")
    tooltip.wait_for(state="visible", timeout=10_000)
    fields = dict(
        re.findall(r"(tokenizer trained on|merges|tokens)\s*\n+\s*(\S+)", tooltip.inner_text())
    )
    name, merges = fields["tokenizer trained on"], int(fields["merges"].replace(",", ""))
    app.screenshot(screenshots / "compression-click.png")

    app.rerun(lambda: app.page.mouse.click(x, y))
    app.wait_on_step_page()
    k, total, _ = app.shown_merge()
    assert k == merges
    sample_key = {"English": "english", "Japanese": "japanese"}[name]
    chosen = app.page.locator('[data-testid="stSidebar"] .st-key-sample input').input_value()
    assert chosen == get_sample(sample_key).title
    assert total == 256  # the chart's run: vocab 512
    tokens = app.page.locator(".bpe-metric").first.inner_text()
    assert fields["tokens"] in tokens
    app.page.wait_for_function(f"() => location.search.includes('step={merges}')", timeout=10_000)
    app.assert_clean()


@pytest.mark.parametrize("mode", ["present", "800px"])
def test_teaching_views_on_a_projector_and_in_a_narrow_window(
    app: AppPage, screenshots: Path, mode: str
) -> None:
    """A surprise and the tie preset, as a class sees them: nothing cut off at the right."""
    params = {"present": "true"} if mode == "present" else {}
    if mode == "800px":
        app.page.set_viewport_size({"width": 800, "height": 900})
    try:
        emoji = find_surprise("emoji")
        app.open("tokenize", surprise="emoji", **params)
        assert emoji.look in " ".join(app.alerts("Info"))
        app.screenshot(screenshots / f"tokenize-surprise-{mode}.png")
        app.open("runs", sample="aaabdaaabac", runs_a_pretok="bytes", runs_b_pretok="bytes",
                 runs_a_vocab=259, runs_b_vocab=259, runs_b_tie="lexmin", **params)  # fmt: skip
        assert app.card_title() == "The runs part at merge 2"
        width = app.page.evaluate("document.documentElement.clientWidth")
        for selector in (".bpe-card", ".bpe-scroll", '[data-testid="stVegaLiteChart"]'):
            for box in (e.bounding_box() for e in app.page.locator(selector).all()):
                assert box and box["x"] + box["width"] <= width + 1, f"{selector} cut off"
        app.screenshot(screenshots / f"runs-ties-{mode}.png")
        app.assert_clean()
    finally:
        app.page.set_viewport_size({"width": 1366, "height": 900})


def test_two_runs_of_different_algorithms(app: AppPage, screenshots: Path) -> None:
    """``hug hug hug`` (worked by hand in tests/test_page_two_runs.py): BPE on words cuts
    hug ␣ hug ␣ hug; Unigram at vocab 5 cuts ▁hug three times, so A's second and third hug
    start where B does not cut. Then B becomes WordPiece from its menu."""
    app.open("runs", src="paste", paste="hug hug hug", runs_a_pretok="words",
             runs_a_vocab=259, runs_b_algo="unigram", runs_b_vocab=5)  # fmt: skip
    assert app.card_title() == "BPE against Unigram"
    tokens = pane_tokens(app)
    assert tokens[0] == ["hug", "␣", "hug", "␣", "hug"] and len(tokens[1]) == 3
    outlined = app.page.locator(".bpe-scroll").nth(0).locator(".bpe-new").all_text_contents()
    assert outlined == ["hug", "hug"]
    app.screenshot(screenshots / "runs-algorithms.png")
    app.assert_clean()

    menu = app.page.locator(".st-key-runs_b_algo")
    menu.click()
    app.rerun(app.page.get_by_role("option", name="wordpiece").click)
    assert "runs_b_algo=wordpiece" in app.page.url
    assert app.card_title() == "The runs part at merge 1"
    assert [len(pane) for pane in pane_tokens(app)] == [5, 9]  # vocab 5: h ##u ##g, no merge
    app.assert_clean()
